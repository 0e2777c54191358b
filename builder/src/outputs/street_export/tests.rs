use super::*;

#[test]
fn decimals_are_short_and_exact_to_six_places() {
    assert_eq!(decimal(1.0), "1");
    assert_eq!(decimal(0.5), "0.5");
    assert_eq!(decimal(1.0 / 3.0), "0.333333");
    assert_eq!(decimal(256.0), "256");
    assert_eq!(decimal(-1e-9), "0");
}
