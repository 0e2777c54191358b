//! From a query's arcs back to road edges. An arc's cost is either a road edge's
//! between its ends or the sum of the two arcs of a lower triangle, computed by
//! customisation as exactly that sum; unpacking finds one that matches bit for bit
//! rather than storing which it was (a third less memory per metric).

use alloc::vec;
use alloc::vec::Vec;

use super::metric::Metric;
use super::query::Side;
use super::topology::{NO_ARC, Topology};
use crate::roads::RoadGraph;
use crate::routing::CostModel;

/// What unpacking needs: the hierarchy, the graph and the metric's cost model.
pub(super) struct Unpacker<'a> {
    pub(super) topology: &'a Topology,
    pub(super) graph: &'a RoadGraph,
    pub(super) costs: &'a CostModel,
    pub(super) metric: &'a Metric,
}

impl Unpacker<'_> {
    /// The road edges of one direction of an arc, in travel order, appended to `out`
    /// (`upward`: from tail to head). `None` if no edge or triangle matches, which a
    /// metric customised for `costs` rules out.
    // Costs are compared exactly on purpose: customisation stored these very sums.
    #[allow(clippy::float_cmp)]
    fn arc_edges(&self, arc: u32, upward: bool, out: &mut Vec<u32>) -> Option<()> {
        let (topology, metric) = (self.topology, self.metric);
        // Arcs still to expand, next last.
        let mut stack = vec![(arc, upward)];
        // Each expansion adds an edge or splits an arc into two lower ones.
        let mut budget = 4 * topology.arc_count() + 4;
        while let Some((arc, upward)) = stack.pop() {
            budget = budget.checked_sub(1)?;
            let a = arc as usize;
            let (low, high) = (topology.tail[a], topology.head[a]);
            let cost = if upward { metric.up[a] } else { metric.down[a] };
            let (from, to) = if upward { (low, high) } else { (high, low) };
            let (from, to) = (topology.node[from as usize], topology.node[to as usize]);
            if let Some(e) = self.graph.out_edges(from).find(|&e| {
                self.graph.edge_target[e] == to
                    && self.costs.way_cost(self.graph, self.graph.edge_way(e).0) == cost
            }) {
                out.push(e as u32);
                continue;
            }
            // A triangle below: `lower` joins r and low, `higher` r and high.
            let triangle = topology.below(low).iter().find_map(|&lower| {
                let higher = topology.arc(topology.tail[lower as usize], high);
                if higher == NO_ARC {
                    return None;
                }
                let (l, h) = (lower as usize, higher as usize);
                let sum = if upward {
                    metric.down[l] + metric.up[h]
                } else {
                    metric.down[h] + metric.up[l]
                };
                (sum == cost).then_some((lower, higher))
            });
            let (lower, higher) = triangle?;
            // Upward: low → r down `lower`, then r → high up `higher`. Downward:
            // high → r down `higher`, then r → low up `lower`.
            if upward {
                stack.push((higher, true));
                stack.push((lower, false));
            } else {
                stack.push((lower, true));
                stack.push((higher, false));
            }
        }
        Some(())
    }

    /// The road edges from the forward side's start to its rank at `index`, in
    /// travel order.
    pub(super) fn forward_edges(&self, side: &Side, mut index: usize) -> Option<Vec<u32>> {
        let mut arcs = Vec::new();
        while side.arc[index] != NO_ARC {
            let arc = side.arc[index];
            arcs.push(arc);
            index = side.position(self.topology.tail[arc as usize])?;
        }
        let mut edges = Vec::new();
        for &arc in arcs.iter().rev() {
            self.arc_edges(arc, true, &mut edges)?;
        }
        Some(edges)
    }

    /// The road edges from the backward side's rank at `index` to its start, in
    /// travel order.
    pub(super) fn backward_edges(&self, side: &Side, mut index: usize) -> Option<Vec<u32>> {
        let mut edges = Vec::new();
        while side.arc[index] != NO_ARC {
            let arc = side.arc[index];
            self.arc_edges(arc, false, &mut edges)?;
            index = side.position(self.topology.tail[arc as usize])?;
        }
        Some(edges)
    }
}
