use super::*;

/// The cells within three rings of a centre, sorted, and the centre's position.
fn disk() -> (Vec<CellIndex>, usize) {
    let centre = LatLng::new(43.65, -79.38)
        .unwrap()
        .to_cell(h3o::Resolution::Eight);
    let mut cells: Vec<CellIndex> = centre.grid_disk(3);
    cells.sort_unstable();
    let position = cells.binary_search(&centre).unwrap();
    (cells, position)
}

#[test]
fn the_city_total_is_kept_and_nearer_cells_get_more() {
    let (cells, centre) = disk();
    let mut counts = vec![0.0; cells.len()];
    counts[centre] = 10.0;
    for bandwidth in BANDWIDTHS_M {
        let kde = Kde::new(&cells, bandwidth);
        let density = kde.density(&counts);
        assert!((density.iter().sum::<f64>() - 10.0).abs() < 1e-9);
        // Density falls with distance from the busy cell.
        let from = LatLng::from(cells[centre]);
        let mut by_distance: Vec<(f64, f64)> = cells
            .iter()
            .zip(&density)
            .map(|(&c, &d)| (from.distance_m(LatLng::from(c)), d))
            .collect();
        by_distance.sort_by(|a, b| a.0.total_cmp(&b.0));
        for pair in by_distance.windows(2) {
            assert!(pair[1].1 <= pair[0].1 + 1e-12, "{bandwidth}: {pair:?}");
        }
    }
    // A narrow kernel keeps most of it home; a wide one spreads it.
    let narrow = Kde::new(&cells, 250.0).density(&counts)[centre];
    let wide = Kde::new(&cells, 2000.0).density(&counts)[centre];
    assert!(narrow > 9.0 && wide < 2.0, "{narrow} {wide}");
}
