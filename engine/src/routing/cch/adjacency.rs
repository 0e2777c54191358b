//! The undirected simple graph under a road graph: what a contraction order and the
//! hierarchy's shape depend on (never the direction or cost of an edge).

use alloc::vec;
use alloc::vec::Vec;

use crate::roads::RoadGraph;

/// Neighbours of every node in compressed-sparse-row form, each edge in both
/// directions, without loops or repeats.
pub(super) struct Adjacency {
    first: Vec<u32>,
    heads: Vec<u32>,
}

impl Adjacency {
    pub(super) fn new(graph: &RoadGraph) -> Self {
        let n = graph.node_count();
        let mut pairs: Vec<(u32, u32)> = Vec::with_capacity(2 * graph.edge_count());
        for node in 0..n as u32 {
            for e in graph.out_edges(node) {
                let target = graph.edge_target[e];
                if target != node {
                    pairs.push((node, target));
                    pairs.push((target, node));
                }
            }
        }
        pairs.sort_unstable();
        pairs.dedup();
        let mut first = vec![0_u32; n + 1];
        for &(from, _) in &pairs {
            first[from as usize + 1] += 1;
        }
        for i in 0..n {
            first[i + 1] += first[i];
        }
        Self {
            first,
            heads: pairs.into_iter().map(|(_, to)| to).collect(),
        }
    }

    pub(super) fn node_count(&self) -> usize {
        self.first.len() - 1
    }

    pub(super) fn neighbours(&self, node: u32) -> &[u32] {
        let n = node as usize;
        &self.heads[self.first[n] as usize..self.first[n + 1] as usize]
    }
}
