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
    /// cost) over their ancestors.
    pub(super) fn new(
        topology: &Topology,
        metric: &Metric,
        starts: &[(u32, f64)],
        forward: bool,
    ) -> Self {
        let mut ranks = Vec::new();
        for &(r, _) in starts {
            let mut at = r;
            // A chain of ancestors, each higher than the last, so at most n steps.
            while at != NO_ARC && ranks.len() <= topology.rank.len() * starts.len() {
                ranks.push(at);
                at = topology.parent[at as usize];
            }
        }
        ranks.sort_unstable();
        ranks.dedup();
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
        let weights = if forward { &metric.up } else { &metric.down };
        for i in 0..len {
            let cost = side.cost[i];
            if cost.is_infinite() {
                continue;
            }
            let r = side.ranks[i];
            let mut j = i;
            // Heads ascend and are all ancestors, so each is found by walking on.
            for a in topology.up(r) {
                let next = cost + weights[a];
                let h = topology.head[a];
                while side.ranks[j] < h {
                    j += 1;
                }
                if next < side.cost[j] {
                    side.cost[j] = next;
                    side.arc[j] = a as u32;
                    side.start[j] = side.start[i];
                }
            }
        }
        side
    }

    pub(super) fn position(&self, r: u32) -> Option<usize> {
        self.ranks.binary_search(&r).ok()
    }
}

/// The cheapest meeting of the two sides: (cost, index in `forward`, index in
/// `backward`).
pub(super) fn meet(forward: &Side, backward: &Side) -> Option<(f64, usize, usize)> {
    let (mut i, mut j) = (0, 0);
    let mut best: Option<(f64, usize, usize)> = None;
    while i < forward.ranks.len() && j < backward.ranks.len() {
        match forward.ranks[i].cmp(&backward.ranks[j]) {
            core::cmp::Ordering::Less => i += 1,
            core::cmp::Ordering::Greater => j += 1,
            core::cmp::Ordering::Equal => {
                let cost = forward.cost[i] + backward.cost[j];
                if cost.is_finite() && best.is_none_or(|(b, _, _)| cost < b) {
                    best = Some((cost, i, j));
                }
                i += 1;
                j += 1;
            }
        }
    }
    best
}
