use super::*;

#[test]
fn a_lattice_joins_neighbouring_cells_both_ways() {
    let centre = crate::grid::cell_at(29.7604, -95.3698).unwrap();
    let disk = crate::grid::disk(centre, 1).unwrap();
    let mut grid: Vec<u64> = disk.iter().map(|&c| u64::from(c)).collect();
    grid.sort_unstable();
    let graph = hex_lattice(&disk, &grid, "test lattice");
    assert_eq!(graph.validate(grid.len()), Ok(()));
    assert_eq!(graph.kind, NetworkKind::HexLattice);
    assert_eq!(graph.node_count(), 7);
    // The centre touches six cells; each outer cell its two outer neighbours and
    // the centre: 6 + 6 x 3 = 24 directed edges over 12 ways.
    assert_eq!(graph.edge_count(), 24);
    assert_eq!(graph.way_count(), 12);
    for way in 0..graph.way_count() {
        let crossed: Vec<_> = graph.way_cells(way).collect();
        assert_eq!(crossed.len(), 2, "centre to centre crosses two cells");
        let metres: f32 = crossed.iter().map(|(_, m)| m).sum();
        assert!((metres - graph.way_length_m[way]).abs() < 0.01);
        assert_eq!(graph.way_name(way), None);
    }
}
