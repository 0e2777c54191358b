//! Exact remaining costs to a destination, node by node on demand (the CCH
//! potentials of Strasser and Zeitz, 2021): the destination's side of a query once,
//! then for a node the cheapest of going up its ancestors and down from one the
//! destination's side reached, memoised so each node is computed once.

use alloc::sync::Arc;
use alloc::vec;
use alloc::vec::Vec;

use super::metric::Metric;
use super::query::Side;
use super::topology::{NO_ARC, Topology};

/// Remaining costs to one destination under one metric.
pub struct Potential<'a> {
    topology: &'a Topology,
    metric: Arc<Metric>,
    destination: Side,
    /// Per rank: the remaining cost, `NaN` until computed.
    memo: Vec<f64>,
    /// Scratch: the ranks being computed, lowest first.
    chain: Vec<u32>,
}

impl<'a> Potential<'a> {
    pub(super) fn new(topology: &'a Topology, metric: Arc<Metric>, targets: &[(u32, f64)]) -> Self {
        let destination = Side::new(topology, &metric, targets, false);
        Self {
            topology,
            metric,
            destination,
            memo: vec![f64::NAN; topology.rank.len()],
            chain: Vec::new(),
        }
    }

    /// The cost of the cheapest path from `node` to the destination (infinite when
    /// there is none).
    pub fn at(&mut self, node: u32) -> f64 {
        let Some(&rank) = self.topology.rank.get(node as usize) else {
            return f64::INFINITY;
        };
        self.chain.clear();
        let mut at = rank;
        // Ancestors of a computed rank are computed, so the walk stops at the first.
        while at != NO_ARC && self.memo[at as usize].is_nan() {
            self.chain.push(at);
            at = self.topology.parent[at as usize];
        }
        // Highest first: every upward arc leads to an ancestor, computed by then.
        for &r in self.chain.iter().rev() {
            let mut best = self
                .destination
                .position(r)
                .map_or(f64::INFINITY, |i| self.destination.cost[i]);
            for a in self.topology.up(r) {
                let via = self.metric.up[a] + self.memo[self.topology.head[a] as usize];
                if via < best {
                    best = via;
                }
            }
            self.memo[r as usize] = best;
        }
        self.memo[rank as usize]
    }
}
