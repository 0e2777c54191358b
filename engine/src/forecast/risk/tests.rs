use super::*;

fn level(p: f64) -> RiskLevel {
    RiskLevel::from_no_crime_probability(p).unwrap()
}

#[test]
fn boundaries_fall_as_documented() {
    assert_eq!(level(0.50), RiskLevel::Moderate);
    assert_eq!(level(0.25), RiskLevel::Moderate);
    assert_eq!(level(0.10), RiskLevel::High);
}

#[test]
fn values_either_side_of_each_boundary() {
    let eps = 1e-12;
    assert_eq!(level(0.50 + eps), RiskLevel::Low);
    assert_eq!(level(0.25 - eps), RiskLevel::High);
    assert_eq!(level(0.10 - eps), RiskLevel::VeryHigh);
    assert_eq!(level(1.0), RiskLevel::Low);
    assert_eq!(level(0.0), RiskLevel::VeryHigh);
}

#[test]
fn level_never_decreases_as_quiet_probability_falls() {
    let mut previous = RiskLevel::Low;
    for step in (0..=1000).rev() {
        let current = level(f64::from(step) / 1000.0);
        assert!(current >= previous, "p={step}/1000");
        previous = current;
    }
}

#[test]
fn rejects_values_that_are_not_probabilities() {
    for p in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.01, 1.01] {
        assert!(RiskLevel::from_no_crime_probability(p).is_err(), "{p}");
    }
}

#[test]
fn codes_match_the_specification() {
    let codes: [&str; 4] = RiskLevel::ALL.map(RiskLevel::code);
    assert_eq!(codes, ["LOW", "MODERATE", "HIGH", "VERY_HIGH"]);
}
