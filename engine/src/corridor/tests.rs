use super::*;
use crate::artifact::fixture::CityFixture;
use crate::scoring::ScoringParams;

fn model() -> CityModel {
    CityModel::from_artifact(CityFixture::default().build())
}

#[test]
fn modes_parse_and_follow_the_intent() {
    for mode in TravelMode::ALL {
        assert_eq!(mode.name().parse(), Ok(mode));
    }
    assert!("flying".parse::<TravelMode>().is_err());
    assert_eq!(TravelMode::for_intent(Intent::Driving), TravelMode::Driving);
    assert_eq!(TravelMode::for_intent(Intent::Night), TravelMode::Walking);
}

#[test]
fn hex_path_checks_name_the_first_bad_cell() {
    let centre = crate::grid::cell_at(43.6532, -79.3832).unwrap();
    let ring = crate::grid::disk(centre, 2).unwrap();
    let far = ring[ring.len() - 1];
    assert_eq!(check_hex_path(&[]), Err(HexPathError::Empty));
    assert_eq!(check_hex_path(&[centre, ring[1]]), Ok(()));
    assert_eq!(
        check_hex_path(&[centre, ring[1], far]),
        Err(HexPathError::Gap { index: 2 })
    );
    assert_eq!(
        check_hex_path(&[centre, ring[1], centre]),
        Err(HexPathError::Repeated { index: 2, first: 0 })
    );
    let parent = centre.parent(h3o::Resolution::Seven).unwrap();
    assert_eq!(
        check_hex_path(&[centre, parent]),
        Err(HexPathError::WrongResolution {
            index: 1,
            resolution: 7
        })
    );
    // A path that folds back: its third cell touches the first, not the second
    // (ring-1 cells 1 and 4 lie opposite each other).
    assert!(!ring[1].is_neighbor_with(ring[4]).unwrap());
    assert_eq!(check_hex_path(&[centre, ring[1], ring[4]]), Ok(()));
    assert_eq!(
        check_hex_path(&vec![centre; MAX_HEX_PATH_CELLS + 1]),
        Err(HexPathError::TooLong(MAX_HEX_PATH_CELLS + 1))
    );
}

#[test]
fn line_metrics_add_up() {
    let model = model();
    let scores = CityScores::compute(&model, 0, &ScoringParams::default());
    let cells: Vec<CellIndex> = (0..model.cell_count())
        .filter_map(|p| model.cell(p))
        .collect();
    let (a, b) = (LatLng::from(cells[0]), LatLng::from(cells[cells.len() - 1]));
    let far = LatLng::new(a.lat() + 0.05, a.lng()).unwrap();
    let evaluation = evaluate_line(&model, &scores, &[a, b, far], TravelMode::Walking);
    let m = evaluation.metrics;
    let length = a.distance_m(b) + b.distance_m(far);
    assert!((m.distance_m - length).abs() < 1e-6 * length);
    assert!((m.duration_s - length / (5.0 / 3.6)).abs() < 1e-6 * m.duration_s);
    assert!(m.outside_coverage_m > 0.0);
    assert_eq!(m.cell_count, evaluation.hex_path.len());
    let run_total: f64 = evaluation.segments.iter().map(|s| s.distance_m).sum();
    assert!((run_total - length).abs() < 1e-6 * length);
    for pair in evaluation.segments.windows(2) {
        assert_ne!(pair[0].tier, pair[1].tier);
        assert!((pair[0].start_m + pair[0].distance_m - pair[1].start_m).abs() < 1e-6);
    }
    let worst = m.worst_safety.unwrap();
    let mean = m.mean_safety.unwrap();
    assert!(worst <= mean && mean <= 100.0);
    for tiered in &evaluation.hex_path_with_tiers {
        assert_eq!(tiered.tier.is_none(), model.position(tiered.h3).is_none());
        assert_eq!(tiered.color_index == -1, tiered.tier.is_none());
    }
    // One point: its cell, no length, still a tier.
    let point = evaluate_line(&model, &scores, &[a], TravelMode::Driving);
    assert_eq!(point.hex_path, [cells[0]]);
    assert_eq!(point.metrics.distance_m, 0.0);
    assert!(point.hex_path_with_tiers[0].tier.is_some());
    assert_eq!(point.metrics.mean_safety, Some(scores.safety(0)));
    assert_eq!(point.segments.len(), 1);
}

#[test]
fn a_hex_path_is_scored_along_its_centres() {
    let model = model();
    let scores = CityScores::compute(&model, 0, &ScoringParams::default());
    let cells: Vec<CellIndex> = (0..model.cell_count())
        .filter_map(|p| model.cell(p))
        .collect();
    let first = cells[0];
    let path: Vec<CellIndex> = first
        .grid_path_cells(crate::grid::disk(first, 3).unwrap()[30])
        .unwrap()
        .flatten()
        .collect();
    let evaluation = evaluate_hex_path(&model, &scores, &path, TravelMode::Walking).unwrap();
    assert_eq!(evaluation.hex_path, path);
    let centres: f64 = path
        .windows(2)
        .map(|w| LatLng::from(w[0]).distance_m(LatLng::from(w[1])))
        .sum();
    assert!((evaluation.metrics.distance_m - centres).abs() < 1e-6);
    // A straight grid path has no detour.
    assert!(evaluation.metrics.detour_pct.unwrap().abs() < 1e-9);
}
