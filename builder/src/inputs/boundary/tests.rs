use super::*;

fn square(id: &str, west: f64, south: f64, size: f64) -> Precinct {
    let polygon = Polygon::new(
        geo::LineString::from(vec![
            (west, south),
            (west + size, south),
            (west + size, south + size),
            (west, south + size),
            (west, south),
        ]),
        vec![],
    );
    Precinct {
        id: id.into(),
        name: id.into(),
        outline: MultiPolygon(vec![polygon]),
    }
}

#[test]
fn cells_have_centres_inside_and_know_their_precinct() {
    let grid = grid_from_precincts(vec![
        square("A", -79.40, 43.60, 0.05),
        square("B", -79.35, 43.60, 0.05),
    ])
    .unwrap();
    assert!(grid.cells.len() > 20, "{} cells", grid.cells.len());
    assert!(
        grid.cells.windows(2).all(|w| w[0] < w[1]),
        "sorted and unique"
    );
    for (cell, precinct) in grid.cells.iter().zip(&grid.precinct_of) {
        let centre = centre_point(*cell);
        assert!(grid.outline.contains(&centre));
        let expected = u16::from(centre.x() >= -79.35);
        assert_eq!(*precinct, Some(expected), "{cell}");
    }
}

#[test]
fn derived_boundary_covers_the_busy_area() {
    let mut points = Vec::new();
    for i in 0..40 {
        for j in 0..40 {
            let p = (29.70 + f64::from(i) * 0.002, -95.40 + f64::from(j) * 0.002);
            points.extend([p; 3]);
        }
    }
    let grid = grid_from_incidents(points).unwrap();
    assert!(!grid.cells.is_empty());
    let inside = hexrisk_engine::grid::cell_at(29.74, -95.36).unwrap();
    assert!(grid.position(inside).is_some());
    let far = hexrisk_engine::grid::cell_at(29.95, -95.0).unwrap();
    assert!(grid.position(far).is_none());
    assert!(grid_from_incidents(vec![(29.7, -95.4)]).is_err());
}
