use super::*;

#[test]
fn todays_costing_weighs_cells_by_metres_and_charges_the_median_outside() {
    // One way: 500 m in grid position 0, then 305 m outside the grid.
    let graph = hexrisk_engine::artifact::fixture::tiny_graph();
    let risks = cell_rank_risks(&graph, |p| {
        assert_eq!(p, 0);
        risk_of_safety(80.0)
    });
    let expected = (500.0 * 0.2 + 305.0 * 0.5) / 805.0;
    assert!((risks[0] - expected).abs() < 1e-12, "{risks:?}");
    assert_eq!(risk_of_safety(f64::NAN), 0.5);
}

#[test]
fn the_fitted_weeks_end_on_the_sunday_before_a_midweek_cut() {
    let first = NaiveDate::from_ymd_opt(2014, 1, 6).unwrap();
    let weeks = cleaning::Weeks::within(
        NaiveDate::from_ymd_opt(2014, 1, 1).unwrap(),
        NaiveDate::from_ymd_opt(2019, 12, 31).unwrap(),
    );
    assert_eq!(weeks.first, first);
    assert_eq!(
        last_day(weeks.first, weeks.count),
        NaiveDate::from_ymd_opt(2019, 12, 29).unwrap()
    );
}
