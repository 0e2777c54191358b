//! From a query's arcs back to road edges. An arc's cost is either a road edge's
//! between its ends or the sum of the two arcs of a lower triangle, computed by
//! customisation as exactly that sum; unpacking finds which by its exact cost, the
//! first time for each arc of a metric, and keeps it
//! ([`Triangles`](super::triangles::Triangles)).

use alloc::vec;
use alloc::vec::Vec;

use super::metric::Metric;
use super::query::Side;
use super::topology::{NO_ARC, Topology};
use super::triangles::Through;
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
    fn arc_edges(&self, arc: u32, upward: bool, out: &mut Vec<u32>) -> Option<()> {
        let topology = self.topology;
        // Arcs still to expand, next last.
        let mut stack = vec![(arc, upward)];
        // Each expansion adds an edge or splits an arc into two lower ones.
        let mut budget = 4 * topology.arc_count() + 4;
        while let Some((arc, upward)) = stack.pop() {
            budget = budget.checked_sub(1)?;
            let through = self
                .metric
                .triangles
                .get_or_find(arc, upward, || self.find(arc, upward));
            let lower = match through? {
                Through::RoadEdge => {
                    out.push(self.road_edge(arc, upward)?);
                    continue;
                }
                Through::Triangle(lower) => lower,
            };
            // The triangle below: `lower` joins r and low, `higher` r and high.
            let high = topology.head[arc as usize];
            let higher = topology.arc(*topology.tail.get(lower as usize)?, high);
            if higher == NO_ARC {
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

    /// What one direction of an arc runs through: a road edge with exactly its cost
    /// (looked for first, so on a tie the edge wins, as customisation kept it), else
    /// the lowest triangle whose two arcs sum to it exactly.
    // Costs are compared exactly on purpose: customisation stored these very sums.
    #[allow(clippy::float_cmp)]
    fn find(&self, arc: u32, upward: bool) -> Option<Through> {
        let (topology, metric, a) = (self.topology, self.metric, arc as usize);
        let (low, high) = (topology.tail[a], topology.head[a]);
        let cost = if upward { metric.up[a] } else { metric.down[a] };
        if self.edge_with_cost(arc, upward, cost).is_some() {
            return Some(Through::RoadEdge);
        }
        topology.below(low).iter().find_map(|&lower| {
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
            (sum == cost).then_some(Through::Triangle(lower))
        })
    }

    /// The graph nodes one direction of an arc runs from and to (`upward`: tail to
    /// head).
    fn end_nodes(&self, arc: u32, upward: bool) -> (u32, u32) {
        let (topology, a) = (self.topology, arc as usize);
        let (from, to) = if upward {
            (topology.tail[a], topology.head[a])
        } else {
            (topology.head[a], topology.tail[a])
        };
        (topology.node[from as usize], topology.node[to as usize])
    }

    /// The first road edge between an arc's ends in one direction whose cost is
    /// exactly `cost`.
    #[allow(clippy::float_cmp)]
    fn edge_with_cost(&self, arc: u32, upward: bool, cost: f64) -> Option<u32> {
        let graph = self.graph;
        let (from, to) = self.end_nodes(arc, upward);
        graph
            .out_edges(from)
            .find(|&e| {
                graph.edge_target[e] == to
                    && self.costs.way_cost(graph, graph.edge_way(e).0) == cost
            })
            .map(|e| e as u32)
    }

    /// The road edge whose cost one direction of an arc has: the only edge between its
    /// ends that way, or the first of parallel ones with exactly that cost.
    fn road_edge(&self, arc: u32, upward: bool) -> Option<u32> {
        let (graph, a) = (self.graph, arc as usize);
        let (from, to) = self.end_nodes(arc, upward);
        let mut edges = graph
            .out_edges(from)
            .filter(|&e| graph.edge_target[e] == to);
        let only = edges.next()?;
        if edges.next().is_none() {
            return Some(only as u32);
        }
        let cost = if upward {
            self.metric.up[a]
        } else {
            self.metric.down[a]
        };
        self.edge_with_cost(arc, upward, cost)
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
