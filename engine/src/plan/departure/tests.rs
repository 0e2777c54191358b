use super::*;
use crate::artifact::fixture::{CityFixture, FIXTURE_BANDS};

/// A disk of cells around the origin, routed over the grid itself, whose busiest
/// cells change from band to band.
fn model() -> CityModel {
    CityModel::from_artifact(
        CityFixture::default()
            .disk_around(43.65, -79.38, 3)
            .profile(|cell, _, band| 1.0 + 3.0 * ((cell + band) % 3) as f64)
            .build(),
    )
}

fn origin() -> LatLng {
    LatLng::new(43.650, -79.380).unwrap()
}

#[test]
fn each_cell_is_scored_in_the_band_it_is_reached() {
    let model = model();
    let network = model.grid_network();
    let from = network.index.snap(network.graph, origin()).unwrap();
    let distances = network
        .index
        .cell_distances_m(network.graph, &from, model.cell_count());
    let reached: Vec<usize> = (0..model.cell_count())
        .filter(|&p| distances[p].is_finite())
        .collect();
    let far = *reached
        .iter()
        .max_by(|&&a, &&b| distances[a].total_cmp(&distances[b]))
        .unwrap();
    assert!(distances[far] > 100.0, "{distances:?}");
    // Leave 30 s before Friday 22:00 on foot: the origin's cell is in the band
    // ending at 22:00, a cell over 100 m on in the band starting then.
    let departure = Departure {
        week: 0,
        hour_of_week: 4.0 * 24.0 + 22.0 - 0.5 / 60.0,
    };
    let params = ScoringParams::default();
    let on_the_way = scores_on_the_way(
        &model,
        &params,
        departure,
        origin(),
        TravelMode::Walking,
        false,
    )
    .unwrap();
    let before = FIXTURE_BANDS.at_hour_of_week(4 * 24 + 21);
    let after = FIXTURE_BANDS.at_hour_of_week(4 * 24 + 22);
    assert_ne!(before, after);
    let bands: Vec<Band> = on_the_way.bands.iter().map(|b| b.band).collect();
    assert_eq!(bands, [before, after]);
    let in_band = |band: Band| {
        let params = ScoringParams {
            window: TimeWindow::Band(band),
            ..params
        };
        CityScores::compute(&model, 0, &params)
    };
    let (early, late) = (in_band(before), in_band(after));
    assert_ne!(early.safety(far), late.safety(far));
    assert_eq!(on_the_way.scores.safety(far), late.safety(far));
    let near = from_cell(&model, origin());
    assert_eq!(on_the_way.scores.safety(near), early.safety(near));
    assert_eq!(on_the_way.scores.harm(far), late.harm(far));
    // Leaving two hours earlier, the whole walk stays in that band.
    assert!(distances[far] / TravelMode::Walking.speed_m_per_s() < 3600.0);
    let earlier = Departure {
        hour_of_week: departure.hour_of_week - 2.0,
        ..departure
    };
    let within = scores_on_the_way(
        &model,
        &params,
        earlier,
        origin(),
        TravelMode::Walking,
        false,
    )
    .unwrap();
    assert_eq!(within.bands.len(), 1);
    assert_eq!(within.scores, early);
}

fn from_cell(model: &CityModel, point: LatLng) -> usize {
    model
        .position(point.to_cell(crate::grid::RESOLUTION))
        .unwrap()
}

#[test]
fn sunday_night_runs_into_the_next_week_and_stops_at_the_last() {
    let model = model();
    let late = |week: usize| Departure {
        week,
        hour_of_week: HOURS_PER_WEEK - 0.001,
    };
    let next = band_after(&model, late(0), 1.0);
    assert_eq!(
        (next.week, next.band),
        (1, FIXTURE_BANDS.at_hour_of_week(0))
    );
    let last = model.week_count() - 1;
    assert_eq!(band_after(&model, late(last), 1.0).week, last);
}
