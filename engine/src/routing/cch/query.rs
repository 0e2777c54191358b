//! The query: from the search's start nodes up the elimination tree with upward arc
//! costs, from its end nodes up with downward ones, and the cheapest meeting rank.
//! Every upward neighbour of a rank is its ancestor, so each side relaxes exactly the
//! ancestors of its nodes, lowest first, with no priority queue.

use alloc::vec::Vec;

use super::metric::Metric;
use super::topology::{NO_ARC, Topology};

/// One side's costs over the ancestors of its start ranks.
pub(super) struct Side {
    /// The ancestors, ascending.
    pub(super) ranks: Vec<u32>,
    /// Cost to (or from) each, parallel to `ranks`.
    pub(super) cost: Vec<f64>,
    /// The arc each was reached by ([`NO_ARC`] at a start), parallel to `ranks`.
    pub(super) arc: Vec<u32>,
    /// The start each was reached from, parallel to `ranks`.
    pub(super) start: Vec<u32>,
}

impl Side {
    /// Relaxes upward (`forward`) or downward arc costs from the `starts` (rank,
    /// cost) over all their ancestors.
    pub(super) fn new(
        topology: &Topology,
        metric: &Metric,
        starts: &[(u32, f64)],
        forward: bool,
    ) -> Self {
        let mut side = Self::with_starts(topology, starts);
        let weights = if forward { &metric.up } else { &metric.down };
        for i in 0..side.ranks.len() {
            side.relax(topology, weights, i);
        }
        side
    }

    /// The ancestors of the `starts` (rank, cost), with the starts' costs and nothing
    /// relaxed yet.
    fn with_starts(topology: &Topology, starts: &[(u32, f64)]) -> Self {
        // Each start's chain of ancestors ascends, so merging the chains (the lowest
        // next, once) lists them in order; chains that meet go on as one.
        let mut chains: Vec<u32> = starts.iter().map(|&(r, _)| r).collect();
        let mut ranks = Vec::new();
        while let Some(lowest) = chains.iter().copied().filter(|&r| r != NO_ARC).min() {
            if ranks.len() == topology.rank.len() {
                break;
            }
            ranks.push(lowest);
            for at in &mut chains {
                if *at == lowest {
                    *at = topology.parent[lowest as usize];
                }
            }
        }
        let len = ranks.len();
        let mut side = Self {
            ranks,
            cost: alloc::vec![f64::INFINITY; len],
            arc: alloc::vec![NO_ARC; len],
            start: alloc::vec![NO_ARC; len],
        };
        for (k, &(r, cost)) in starts.iter().enumerate() {
            if let Some(i) = side.position(r)
                && cost < side.cost[i]
            {
                side.cost[i] = cost;
                side.start[i] = k as u32;
            }
        }
        side
    }

    /// Relaxes the arcs up from the rank at `i`, whose cost is final (every lower
    /// ancestor is relaxed), with `weights`.
    fn relax(&mut self, topology: &Topology, weights: &[f64], i: usize) {
        let cost = self.cost[i];
        if cost.is_infinite() {
            return;
        }
        let (start, arcs) = (self.start[i], topology.up(self.ranks[i]));
        // Slices of the rank's arcs: no bounds check per arc.
        let heads = &topology.head[arcs.clone()];
        let weights = &weights[arcs.clone()];
        let mut j = i;
        // Heads ascend and are all ancestors, so each is found by walking on.
        for ((a, &h), &weight) in arcs.zip(heads).zip(weights) {
            let next = cost + weight;
            while self.ranks[j] < h {
                j += 1;
            }
            if next < self.cost[j] {
                self.cost[j] = next;
                self.arc[j] = a as u32;
                self.start[j] = start;
            }
        }
    }

    pub(super) fn position(&self, r: u32) -> Option<usize> {
        self.ranks.binary_search(&r).ok()
    }
}

/// Both sides of a query, `sources` up with upward costs and `targets` up with
/// downward ones, and their cheapest meeting: (cost, index in the forward side,
/// index in the backward side), the lowest such rank on a tie.
///
/// The sides advance together, lowest rank first, so the cheapest meeting so far
/// bounds both: a rank dearer than it relaxes nothing, since every path on through
/// it costs more (costs are not negative). Only strictly dearer ranks are skipped,
/// so every cost and arc on the meeting's paths is the one the full sides would have.
pub(super) fn query(
    topology: &Topology,
    metric: &Metric,
    sources: &[(u32, f64)],
    targets: &[(u32, f64)],
) -> Option<(Side, Side, (f64, usize, usize))> {
    let mut forward = Side::with_starts(topology, sources);
    let mut backward = Side::with_starts(topology, targets);
    let (mut i, mut j) = (0, 0);
    let mut best: Option<(f64, usize, usize)> = None;
    while i < forward.ranks.len() || j < backward.ranks.len() {
        let at_forward = forward.ranks.get(i).copied().unwrap_or(u32::MAX);
        let at_backward = backward.ranks.get(j).copied().unwrap_or(u32::MAX);
        if at_forward == at_backward {
            let cost = forward.cost[i] + backward.cost[j];
            if cost.is_finite() && best.is_none_or(|(b, _, _)| cost < b) {
                best = Some((cost, i, j));
            }
        }
        let bound = best.map_or(f64::INFINITY, |(b, _, _)| b);
        if at_forward <= at_backward {
            if forward.cost[i] <= bound {
                forward.relax(topology, &metric.up, i);
            }
            i += 1;
        }
        if at_backward <= at_forward {
            if backward.cost[j] <= bound {
                backward.relax(topology, &metric.down, j);
            }
            j += 1;
        }
    }
    Some((forward, backward, best?))
}
