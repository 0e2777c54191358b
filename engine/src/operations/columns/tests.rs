use super::*;
use crate::artifact::fixture::CityFixture;
use crate::city::{Atlas, CityModel};

fn atlas() -> Atlas {
    Atlas::new(vec![CityModel::from_artifact(
        CityFixture::default().build(),
    )])
}

#[test]
fn columns_match_the_city_scores() {
    let atlas = atlas();
    let city = &atlas.cities()[0];
    let covered = city.cell(0).unwrap();
    let outside = grid::cell_at(0.0, 0.0).unwrap();
    let scoring = ScoringQuery::default();
    let scored = ScoredCells::score(
        &atlas,
        vec![outside, covered],
        &scoring,
        0,
        &mut ScoreMemo::new(),
    )
    .unwrap();
    assert_eq!(scored.cells, vec![outside, covered]);
    let resolved = scoring.resolve(city, 0).unwrap();
    let expected = CityScores::compute(city, resolved.week, &resolved.params);
    assert!(scored.safety_scores[0].is_nan());
    assert_eq!(scored.color_indexes[0], -1);
    assert_eq!(scored.safety_scores[1], expected.safety(0));
    assert_eq!(scored.color_indexes[1], expected.colour(0).get());
}

#[test]
fn ring_follows_grid_disk_and_refuses_large_k() {
    let atlas = atlas();
    let centre = atlas.cities()[0].cell(0).unwrap();
    let scoring = ScoringQuery::default();
    let ring = ScoredCells::ring(&atlas, centre, 2, &scoring, 0, &mut ScoreMemo::new()).unwrap();
    assert_eq!(ring.cells, grid::disk(centre, 2).unwrap());
    assert_eq!(ring.len(), 19);
    let err = ScoredCells::ring(
        &atlas,
        centre,
        grid::MAX_RING_DISTANCE + 1,
        &scoring,
        0,
        &mut ScoreMemo::new(),
    )
    .unwrap_err();
    assert_eq!(err.field, "ring");
}

#[test]
fn box_lists_covered_cells_with_centres_inside() {
    let atlas = atlas();
    let city = &atlas.cities()[0];
    let b = city.artifact().bounds;
    let scoring = ScoringQuery::default();
    let all = ScoredCells::in_box(
        &atlas,
        [b.west, b.south, b.east, b.north],
        &scoring,
        0,
        &mut ScoreMemo::new(),
    )
    .unwrap();
    assert!(!all.is_empty());
    for cell in &all.cells {
        let (lat, lng) = grid::cell_centre(*cell);
        assert!(city.position(*cell).is_some());
        assert!((b.west..=b.east).contains(&lng) && (b.south..=b.north).contains(&lat));
    }
    let nowhere = ScoredCells::in_box(
        &atlas,
        [10.0, 10.0, 10.5, 10.5],
        &scoring,
        0,
        &mut ScoreMemo::new(),
    )
    .unwrap();
    assert!(nowhere.is_empty());
}

#[test]
fn a_memo_gives_the_scores_of_the_options_asked_for() {
    let atlas = atlas();
    let cells: Vec<CellIndex> = (0..atlas.cities()[0].cell_count())
        .filter_map(|p| atlas.cities()[0].cell(p))
        .collect();
    let overall = ScoringQuery::default();
    let night = ScoringQuery {
        intent: Some("night".into()),
        ..ScoringQuery::default()
    };
    let fresh = |q: &ScoringQuery| {
        ScoredCells::score(&atlas, cells.clone(), q, 0, &mut ScoreMemo::new()).unwrap()
    };
    let mut memo = ScoreMemo::new();
    for q in [&overall, &overall, &night, &overall, &night] {
        let kept = ScoredCells::score(&atlas, cells.clone(), q, 0, &mut memo).unwrap();
        assert_eq!(kept, fresh(q));
        let (scoring, _) = memo.cities[0].as_ref().unwrap();
        assert_eq!(scoring.params, q.params().unwrap());
    }
    // Another week through the clock: the sample's third week starts 14 days on.
    let later = 14 * 86_400;
    let kept = ScoredCells::score(&atlas, cells.clone(), &overall, later, &mut memo).unwrap();
    assert_eq!(
        kept,
        ScoredCells::score(&atlas, cells, &overall, later, &mut ScoreMemo::new()).unwrap()
    );
    memo.clear();
    assert!(memo.cities.is_empty());
}

#[test]
fn bad_options_are_reported_without_covered_cells() {
    let atlas = atlas();
    let scoring = ScoringQuery {
        intent: Some("nonsense".into()),
        ..ScoringQuery::default()
    };
    assert!(ScoredCells::score(&atlas, Vec::new(), &scoring, 0, &mut ScoreMemo::new()).is_err());
}
