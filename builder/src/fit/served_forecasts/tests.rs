use hexrisk_engine::artifact::fixture::CityFixture;
use hexrisk_engine::forecast::CRIME_CLASSES;

use super::*;

fn incident(date: &str, class: usize, (lat, lng): (f64, f64)) -> Incident {
    Incident {
        date: date.parse().unwrap(),
        class: CRIME_CLASSES[class],
        lat,
        lng,
        cell: 0,
        hour: None,
        hour_weight: 0.0,
        street: None,
        reported: None,
    }
}

#[test]
fn a_served_week_is_scored_against_its_own_incidents_in_the_artifacts_cells() {
    let model = CityModel::from_artifact(CityFixture::default().build());
    let centre = |p: usize| {
        let point = h3o::LatLng::from(model.cell(p).unwrap());
        (point.lat(), point.lng())
    };
    let monday: NaiveDate = "2021-12-27".parse().unwrap();
    let incidents = [
        incident("2021-12-27", 0, centre(0)),
        incident("2022-01-02", 0, centre(0)),
        incident("2021-12-29", 2, centre(1)),
        // Another week, and a place outside the grid: neither counts.
        incident("2022-01-03", 1, centre(2)),
        incident("2021-12-28", 1, (43.9, -79.0)),
    ];
    let mut board = Scoreboard::default();
    score_week(&model, (monday, Cells::All), &incidents, &mut board).unwrap();

    let week = 1;
    let mut observed = vec![[0_u16; CLASSES]; model.cell_count()];
    observed[0][0] = 2;
    observed[1][2] = 1;
    let forecasts: Vec<_> = (0..model.cell_count())
        .map(|p| model.forecast(p, week))
        .map(|f| (f.rates, f.probabilities))
        .collect();
    let mut expected = Scoreboard::default();
    expected.add_week(&forecasts, &model.dispersion(week), &observed);
    assert_eq!(board, expected);

    // Only the cells shared with another artifact: here the first two.
    let shared: BTreeSet<CellIndex> = (0..2).filter_map(|p| model.cell(p)).collect();
    let mut board = Scoreboard::default();
    score_week(
        &model,
        (monday, Cells::Shared(&shared)),
        &incidents,
        &mut board,
    )
    .unwrap();
    let mut expected = Scoreboard::default();
    expected.add_week(&forecasts[..2], &model.dispersion(week), &observed[..2]);
    assert_eq!(board, expected);
}

#[test]
fn a_week_the_artifact_does_not_forecast_is_refused() {
    let model = CityModel::from_artifact(CityFixture::default().build());
    let mut board = Scoreboard::default();
    let late = "2022-01-10".parse().unwrap();
    assert!(score_week(&model, (late, Cells::All), &[], &mut board).is_err());
    assert_eq!(board, Scoreboard::default());
}
