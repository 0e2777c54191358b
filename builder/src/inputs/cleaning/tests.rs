use super::*;

fn date(y: i32, m: u32, d: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(y, m, d).unwrap()
}

#[test]
fn weeks_are_the_full_monday_weeks_of_the_span() {
    let weeks = Weeks::within(date(2014, 1, 1), date(2021, 12, 31));
    assert_eq!(weeks.first, date(2014, 1, 6));
    assert_eq!(weeks.start_of(weeks.count - 1), date(2021, 12, 20));
    assert_eq!(weeks.index_of(date(2014, 1, 5)), None);
    assert_eq!(weeks.index_of(date(2014, 1, 12)), Some(0));
    assert_eq!(weeks.index_of(date(2014, 1, 13)), Some(1));
    assert_eq!(weeks.index_of(date(2021, 12, 26)), Some(weeks.count - 1));
    assert_eq!(weeks.index_of(date(2021, 12, 27)), None);
}

#[test]
fn a_span_starting_on_monday_starts_there() {
    let weeks = Weeks::within(date(2012, 1, 2), date(2012, 1, 15));
    assert_eq!((weeks.first, weeks.count), (date(2012, 1, 2), 2));
    assert_eq!(Weeks::within(date(2012, 1, 2), date(2012, 1, 7)).count, 0);
}
