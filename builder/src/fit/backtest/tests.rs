use super::*;

#[test]
fn outcome_follows_counts_then_severity_then_order() {
    assert_eq!(outcome(&[0, 0, 0, 0, 0]), CrimeClass::NoCrime);
    assert_eq!(outcome(&[2, 1, 0, 0, 0]), CrimeClass::TheftBurglary);
    assert_eq!(outcome(&[1, 1, 0, 0, 0]), CrimeClass::BatteryAssault);
    assert_eq!(outcome(&[1, 1, 0, 1, 0]), CrimeClass::SeriousViolent);
    assert_eq!(outcome(&[1, 0, 1, 0, 0]), CrimeClass::TheftBurglary);
    assert_eq!(outcome(&[0, 0, 0, 0, 3]), CrimeClass::Other);
}

#[test]
fn a_perfect_forecast_scores_zero_and_pei_one() {
    let mut board = Scoreboard::default();
    let quiet = [0.0, 0.0, 0.0, 0.0, 0.0, 1.0];
    let theft = [1.0, 0.0, 0.0, 0.0, 0.0, 0.0];
    let forecasts: Vec<_> = (0..100)
        .map(|i| {
            if i == 7 {
                ([1.0, 0.0, 0.0, 0.0, 0.0], theft)
            } else {
                ([0.0; 5], quiet)
            }
        })
        .collect();
    let mut observed = vec![[0u16; 5]; 100];
    observed[7] = [1, 0, 0, 0, 0];
    board.add_week(&forecasts, &hexrisk_engine::forecast::POISSON, &observed);
    let m = board.metrics();
    assert_eq!(
        (m.brier, m.no_crime_brier, m.mae, m.mae_median),
        (0.0, 0.0, 0.0, 0.0)
    );
    assert!(m.log_loss < 1e-12);
    assert_eq!(m.pei, [1.0, 1.0]);
    assert!((m.pai[0] - 100.0).abs() < 1e-9);
    assert!((m.pai[1] - 20.0).abs() < 1e-9);
}

#[test]
fn uniform_forecast_has_the_textbook_scores() {
    let mut board = Scoreboard::default();
    let p = [1.0 / 6.0; 6];
    board.add_week(
        &[([0.2; 5], p)],
        &hexrisk_engine::forecast::POISSON,
        &[[0, 0, 0, 0, 0]],
    );
    let m = board.metrics();
    assert!((m.brier - (25.0 / 36.0 + 5.0 / 36.0)).abs() < 1e-12);
    assert!((m.log_loss - 6f64.ln()).abs() < 1e-12);
    assert!((m.mae - 1.0).abs() < 1e-12);
    // Poisson(1.0) total: P(0) = 0.37 < 0.5, so the median forecast is 1.
    assert!((m.mae_median - 1.0).abs() < 1e-12);
}
