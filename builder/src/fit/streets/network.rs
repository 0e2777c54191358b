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
mod tests;
