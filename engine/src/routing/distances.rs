//! How far along the network each cell is from a point: one Dijkstra over way
//! lengths from a snapped point to every node, then each cell at the nearest point of
//! the ways crossing it. A departure time turns these distances into the time a
//! traveller reaches each cell (`plan::departure`).

use alloc::vec;
use alloc::vec::Vec;

use super::cost::{CostModel, SearchCosts};
use super::dijkstra::costs_to_all;
use super::index::RouteIndex;
use super::snap::Snap;
use crate::roads::RoadGraph;

impl RouteIndex {
    /// Network metres from `from` to every node (infinite where unreachable),
    /// following the ways' directions.
    #[must_use]
    pub fn node_distances_m(&self, graph: &RoadGraph, from: &Snap) -> Vec<f64> {
        let lengths = CostModel::lengths();
        let costs = SearchCosts::new(graph, &lengths, None);
        let starts = self.terminals(graph, &costs, from, true);
        costs_to_all(
            graph.node_count(),
            starts.into_iter().map(|start| (start.node, start.cost)),
            |node| {
                graph
                    .out_edges(node)
                    .map(|e| (graph.edge_target[e], costs.edge(e)))
            },
        )
    }

    /// Network metres from `from` to each of the city's `cells` cell positions: the
    /// nearest point of any way crossing the cell, reached from either end of the way
    /// (so a one-way street counts as reached from its far end too: a walker's view).
    /// Cells no reachable way crosses are infinitely far; the snapped point's own
    /// cells are at its distance along its way.
    #[must_use]
    pub fn cell_distances_m(&self, graph: &RoadGraph, from: &Snap, cells: usize) -> Vec<f64> {
        let nodes = self.node_distances_m(graph, from);
        let mut cell_m = vec![f64::INFINITY; cells];
        let mut visit = |way: usize, from_start: f64, from_end: f64| {
            let length = f64::from(graph.way_length_m[way]);
            let mut along = 0.0;
            for (position, metres) in graph.way_cells(way) {
                let metres = f64::from(metres);
                let near = (from_start + along).min(from_end + (length - along - metres).max(0.0));
                if let Some(slot) = cell_m.get_mut(position as usize) {
                    *slot = slot.min(near.max(0.0));
                }
                along += metres;
            }
        };
        for (way, &[start, end]) in self.way_nodes.iter().enumerate() {
            visit(way, nodes[start as usize], nodes[end as usize]);
        }
        // The snapped way itself is reached from the point, not only from its ends.
        let at = from.way as usize;
        visit(
            at,
            -from.offset_m,
            from.offset_m - f64::from(graph.way_length_m[at]),
        );
        cell_m
    }
}

#[cfg(test)]
mod tests;
