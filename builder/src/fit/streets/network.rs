//! The street network as the street-level layer sees it: every way of a city's road
//! graph assigned to one grid cell, the cell in which it has the most metres, so
//! that a cell's forecast can be spread over the ways assigned to it.
//!
//! The assignment and the cells' lengths are the engine's [`cell_lengths`], so that the shares the
//! artifact carries are read against the same cells. A way with no metres inside
//! the grid or of zero length is assigned to no cell and takes no part: no
//! incident is attributed to it and no forecast reaches it. Ties in metres go to
//! the cell crossed first along the way, so the assignment depends on the graph
//! alone.

use hexrisk_engine::roads::{RoadGraph, cell_lengths};

/// The ways of a road graph with their cells and lengths.
#[derive(Debug, Clone, PartialEq)]
pub struct StreetNetwork {
    /// Per way: the grid position of its cell, `None` when it is assigned to none.
    pub way_cell: Vec<Option<u32>>,
    /// Per way: its length in metres (`ℓ_w`).
    pub way_length_m: Vec<f64>,
    /// Per grid cell: the total length of the ways assigned to it (`L_c`).
    pub cell_length_m: Vec<f64>,
    /// The total length of all assigned ways.
    pub total_length_m: f64,
}

impl StreetNetwork {
    /// Assigns every way of `graph` to its cell among the `cells` grid cells.
    #[must_use]
    pub fn new(graph: &RoadGraph, cells: usize) -> Self {
        let (way_cell, cell_length_m) = cell_lengths(graph, cells);
        let way_length_m = graph.way_length_m.iter().map(|&m| f64::from(m)).collect();
        let total_length_m = cell_length_m.iter().sum();
        Self {
            way_cell,
            way_length_m,
            cell_length_m,
            total_length_m,
        }
    }

    /// Number of ways (assigned or not).
    #[must_use]
    pub fn way_count(&self) -> usize {
        self.way_cell.len()
    }

    /// The ways assigned to a cell, with their cells, in way order.
    pub fn assigned(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.way_cell
            .iter()
            .enumerate()
            .filter_map(|(way, cell)| cell.map(|c| (way, c as usize)))
    }
}

#[cfg(test)]
mod tests {
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
}
