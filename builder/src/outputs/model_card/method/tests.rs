#[test]
fn the_section_states_the_code_constants() {
    let mut md = String::new();
    super::section(&mut md);
    // The training window as the card writes it, and as `fit` takes it.
    let training = crate::fit::model::TRAINING_WEEKS;
    assert!(md.contains(&format!("`max(o − {training}, w) .. o`")));
    for (origin, warmup) in [(312_usize, 52), (22, 11), (26, 13), (200, 0), (50, 60)] {
        let written = origin.saturating_sub(training).max(warmup)..origin;
        assert_eq!(crate::fit::model::training_weeks(origin, warmup), written);
    }
    assert!(md.contains(&format!("on its last {training} weeks")));
    assert!(md.contains(&format!("{} features", crate::fit::model::FEATURES)));
    assert!(md.contains("negative binomial"));
    for window in crate::fit::calibration::WINDOW_GRID {
        assert!(md.contains(&format!("{window}, ")) || md.contains(&format!("{window}}}")));
    }
    for name in crate::fit::model::FEATURE_NAMES {
        assert!(md.contains(name));
    }
}
