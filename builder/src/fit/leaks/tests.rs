use super::*;

#[test]
fn weights_from_before_the_backtest_stand_beside_those_from_all_rows() {
    let start = NaiveDate::from_ymd_opt(2021, 1, 4).unwrap();
    let (early, late) = (start - chrono::Days::new(7), start + chrono::Days::new(7));
    // 100 rows an hour; midnight doubled before the backtest, tripled after.
    let mut dated = Vec::new();
    for hour in 0..24_u8 {
        for _ in 0..100 {
            dated.push((early, hour));
            dated.push((late, hour));
        }
    }
    dated.extend(std::iter::repeat_n((early, 0), 100));
    dated.extend(std::iter::repeat_n((late, 0), 200));
    let report = SourceReport {
        hours: histogram(dated.iter().map(|&(_, h)| Some(h))),
        dated_hours: dated,
        ..SourceReport::default()
    };
    let name = "mci".to_owned();
    let [leak] = &default_hours([(&name, &report)], start)[..] else {
        panic!("one source")
    };
    // All rows: 500 at midnight against 200 around it, weight 0.4; before: 200
    // against 100, 0.5.
    assert_eq!(leak.hours, [(0, 0.4, 0.5)]);
    assert!((leak.largest_difference() - 0.1).abs() < 1e-12);
    // Before the backtest: 2,300 rows at weight 1 and 200 at midnight at 0.5;
    // the weights from all rows move those 200 by 0.1 each.
    assert!((leak.weight_before - 2400.0).abs() < 1e-9);
    assert!((leak.moved_before - 20.0).abs() < 1e-9);
}
