//! Small test networks shared by the routing tests: stretched hex lattices, points
//! exactly on nodes, reproducible risks.

use alloc::vec::Vec;

use h3o::LatLng;

use super::{RouteIndex, Snap};
use crate::roads::{RoadGraph, hex_lattice};

/// The hex lattice over the cells within `k` rings of central Toronto, and its
/// grid (the cells in order).
pub(super) fn plain_lattice(k: u32) -> (RoadGraph, Vec<u64>) {
    let centre = crate::grid::cell_at(43.6532, -79.3832).unwrap();
    let cells = crate::grid::disk(centre, k).unwrap();
    let mut grid: Vec<u64> = cells.iter().map(|&c| u64::from(c)).collect();
    grid.sort_unstable();
    (hex_lattice(&cells, &grid, "test"), grid)
}

/// A hex lattice whose way lengths are stretched by up to 40 % at random, so that no
/// two routes tie (a plain lattice has many equally long ones).
pub(super) fn lattice(k: u32) -> (RoadGraph, Vec<u64>, Vec<LatLng>) {
    let (mut graph, grid) = plain_lattice(k);
    // Routed as roads, so the searches under test go through the hierarchy.
    graph.kind = crate::roads::NetworkKind::Roads;
    let stretch = risks(99, graph.way_count());
    for (length, s) in graph.way_length_m.iter_mut().zip(stretch) {
        *length *= 1.0 + 0.4 * s as f32;
    }
    let nodes = (0..graph.node_count() as u32)
        .map(|n| graph.node(n).to_lat_lng())
        .collect();
    (graph, grid, nodes)
}

/// A point exactly on a node: the start of a way leaving it, or the end of one
/// arriving.
pub(super) fn at_node(index: &RouteIndex, graph: &RoadGraph, node: u32) -> Snap {
    let point = graph.node(node).to_lat_lng();
    (0..graph.way_count())
        .find_map(|way| {
            let [start, end] = index.way_nodes(way);
            let offset_m = if start == node {
                0.0
            } else if end == node {
                f64::from(graph.way_length_m[way])
            } else {
                return None;
            };
            Some(Snap {
                way: way as u32,
                offset_m,
                point,
                distance_m: 0.0,
            })
        })
        .unwrap()
}

/// Risks from a small linear congruential generator: reproducible, no dependency.
pub(super) fn risks(seed: u64, n: usize) -> Vec<f64> {
    let mut state = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
    (0..n)
        .map(|_| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 11) as f64 / (1_u64 << 53) as f64
        })
        .collect()
}
