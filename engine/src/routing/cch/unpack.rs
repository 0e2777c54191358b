//! From a query's arcs back to road edges. An arc's cost is either a road edge's
//! between its ends or the sum of the two arcs of a lower triangle; customisation
//! records which ([`Metric::via`]), so unpacking follows the
//! records down to road edges.

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
    /// (`upward`: from tail to head). `None` if a record leads nowhere, which a metric
    /// customised for `costs` rules out.
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
            let lower = metric.via[a][usize::from(!upward)];
            if lower == NO_ARC {
                out.push(self.road_edge(arc, upward)?);
                continue;
            }
            // The triangle below: `lower` joins r and low, `higher` r and high.
            let higher = topology.arc(topology.tail[lower as usize], high);
            if higher == NO_ARC || topology.head[lower as usize] != low {
                return None;
            }
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

    /// The road edge whose cost one direction of an arc has: the only edge between its
    /// ends that way, or the first of parallel ones with exactly that cost.
    // Costs are compared exactly on purpose: customisation took this very cost.
    #[allow(clippy::float_cmp)]
    fn road_edge(&self, arc: u32, upward: bool) -> Option<u32> {
        let (topology, graph, a) = (self.topology, self.graph, arc as usize);
        let (cost, from, to) = if upward {
            (self.metric.up[a], topology.tail[a], topology.head[a])
        } else {
            (self.metric.down[a], topology.head[a], topology.tail[a])
        };
        let (from, to) = (topology.node[from as usize], topology.node[to as usize]);
        let mut edges = graph
            .out_edges(from)
            .filter(|&e| graph.edge_target[e] == to);
        let first = edges.next()?;
        let found = if edges.next().is_none() {
            first
        } else {
            graph.out_edges(from).find(|&e| {
                graph.edge_target[e] == to
                    && self.costs.way_cost(graph, graph.edge_way(e).0) == cost
            })?
        };
        Some(found as u32)
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
