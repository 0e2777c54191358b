use super::*;

#[test]
fn bracketed_numbers_are_dropped() {
    assert_eq!(without_number("Wychwood (94)"), "Wychwood");
    assert_eq!(without_number("Yonge-St.Clair (97)"), "Yonge-St.Clair");
    assert_eq!(without_number("Area (North)"), "Area (North)");
    assert_eq!(without_number("D11"), "D11");
}
