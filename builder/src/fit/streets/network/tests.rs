use super::*;
use hexrisk_engine::artifact::fixture::tiny_graph;
use hexrisk_engine::roads::OUTSIDE_GRID;

#[test]
fn a_way_goes_to_the_cell_holding_most_of_it() {
    // The fixture's one way has 500 m in cell 0 and 305 m outside the grid.
    let graph = tiny_graph();
    let network = StreetNetwork::new(&graph, 1);
    assert_eq!(network.way_cell, [Some(0)]);
    assert_eq!(network.cell_length_m, [805.0]);
    assert_eq!(network.total_length_m, 805.0);

    let mut split = graph.clone();
    split.way_cells = vec![1, 0];
    split.way_cell_m = vec![400.0, 405.0];
    assert_eq!(StreetNetwork::new(&split, 2).way_cell, [Some(0)]);
    split.way_cell_m = vec![405.0, 400.0];
    assert_eq!(StreetNetwork::new(&split, 2).way_cell, [Some(1)]);
    // Equal metres: the first crossed.
    split.way_cell_m = vec![400.0, 400.0];
    assert_eq!(StreetNetwork::new(&split, 2).way_cell, [Some(1)]);
}

#[test]
fn ways_outside_the_grid_or_without_length_are_assigned_nowhere() {
    let mut graph = tiny_graph();
    graph.way_cells = vec![OUTSIDE_GRID, OUTSIDE_GRID];
    let network = StreetNetwork::new(&graph, 1);
    assert_eq!(network.way_cell, [None]);
    assert_eq!(network.total_length_m, 0.0);
    assert_eq!(network.assigned().count(), 0);

    let mut graph = tiny_graph();
    graph.way_length_m = vec![0.0];
    assert_eq!(StreetNetwork::new(&graph, 1).way_cell, [None]);
    // A cell index beyond the grid given is outside it too.
    assert_eq!(StreetNetwork::new(&tiny_graph(), 0).way_cell, [None]);
}
