//! Landmark distances (ALT): exact network metres to and from a few well-spread
//! nodes, which give admissible lower bounds for any per-request costs.

use alloc::vec;
use alloc::vec::Vec;

use super::dijkstra::costs_to_all;
use crate::roads::RoadGraph;

/// Landmarks per network.
const LANDMARK_COUNT: usize = 8;

/// Slack, in metres, taken off landmark bounds for the rounding of stored distances.
const LANDMARK_SLACK_M: f64 = 0.05;

/// Network distances in metres to and from a few well-spread nodes.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Landmarks {
    count: usize,
    /// `from[v * count + l]`: metres from landmark `l` to node `v`.
    from: Vec<f32>,
    /// `to[v * count + l]`: metres from node `v` to landmark `l`.
    to: Vec<f32>,
}

impl Landmarks {
    pub(super) fn lower_bound(&self, v: u32, target: u32) -> f64 {
        let (v, t) = (v as usize * self.count, target as usize * self.count);
        let mut best = 0.0_f32;
        for l in 0..self.count {
            best = best
                .max(self.from[t + l] - self.from[v + l])
                .max(self.to[v + l] - self.to[t + l]);
        }
        (f64::from(best) - LANDMARK_SLACK_M).max(0.0)
    }
}

/// One-to-all shortest distances in metres over CSR arrays.
fn length_distances(first: &[u32], target: &[u32], length: &[f32], source: u32) -> Vec<f64> {
    costs_to_all(first.len() - 1, [(source, 0.0)], |node| {
        let arcs = first[node as usize] as usize..first[node as usize + 1] as usize;
        arcs.map(|e| (target[e], f64::from(length[e])))
    })
}

impl Landmarks {
    /// Farthest-first landmarks: each new one is the node farthest (there and back)
    /// from those already chosen.
    pub(super) fn new(graph: &RoadGraph, edge_source: &[u32]) -> Self {
        let n = graph.node_count();
        let count = LANDMARK_COUNT.min(n);
        let lengths: Vec<f32> = (0..graph.edge_count())
            .map(|e| graph.way_length_m[graph.edge_way(e).0])
            .collect();
        // The reverse graph, for distances *to* a landmark.
        let mut reverse_first = vec![0_u32; n + 1];
        for &t in &graph.edge_target {
            reverse_first[t as usize + 1] += 1;
        }
        for i in 0..n {
            reverse_first[i + 1] += reverse_first[i];
        }
        let mut fill = reverse_first.clone();
        let mut reverse_target = vec![0_u32; graph.edge_count()];
        let mut reverse_length = vec![0_f32; graph.edge_count()];
        for (e, &t) in graph.edge_target.iter().enumerate() {
            let slot = fill[t as usize] as usize;
            reverse_target[slot] = edge_source[e];
            reverse_length[slot] = lengths[e];
            fill[t as usize] += 1;
        }

        let mut from = vec![0_f32; n * count];
        let mut to = vec![0_f32; n * count];
        let mut spread = vec![f64::INFINITY; n];
        let farthest = |d: &[f64]| {
            d.iter()
                .enumerate()
                .filter(|(_, x)| x.is_finite())
                .max_by(|a, b| a.1.total_cmp(b.1))
                .map_or(0, |(i, _)| i as u32)
        };
        let mut next = if n == 0 {
            0
        } else {
            farthest(&length_distances(
                &graph.first_edge,
                &graph.edge_target,
                &lengths,
                0,
            ))
        };
        for l in 0..count {
            let out = length_distances(&graph.first_edge, &graph.edge_target, &lengths, next);
            let back = length_distances(&reverse_first, &reverse_target, &reverse_length, next);
            for v in 0..n {
                // Unreachable nodes (none in a strongly connected graph) get no bound.
                let (a, b) = (out[v], back[v]);
                from[v * count + l] = if a.is_finite() { a as f32 } else { 0.0 };
                to[v * count + l] = if b.is_finite() { b as f32 } else { 0.0 };
                spread[v] = spread[v].min(a + b);
            }
            next = farthest(&spread);
        }
        Self { count, from, to }
    }
}
