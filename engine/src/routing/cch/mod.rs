//! A customisable contraction hierarchy (CCH; Dibbelt, Strasser and Wagner, 2016):
//! exact cheapest paths for any per-request cost model at hierarchy speed.
//!
//! - **Order** ([`contraction_order`]): metric-independent, by nested dissection with
//!   inertial flow; computed by `hexrisk-build` and stored with the road graph
//!   ([`RoadGraph::contraction_order`](crate::roads::RoadGraph::contraction_order)),
//!   or here when a graph has none.
//! - **Topology**: the arcs left after contracting every node in that order (the
//!   chordal completion) and its elimination tree; built once per network.
//! - **Metric** ([`Metric`]): every arc's cost in both directions for one
//!   [`CostModel`], by the basic customisation over lower triangles; kept for the
//!   most recent cost models ([`CACHED_METRICS`], at most [`CACHED_METRIC_BYTES`])
//!   and, always, for length alone.
//! - **Query**: both ends walk up the elimination tree, and the cheapest meeting is the
//!   cheapest path; arcs are unpacked to road edges by matching their exact costs.
//! - **Potential** ([`Potential`]): exact remaining costs to a destination on demand,
//!   for A* searches whose weights change too often to customise (the trade-off).

mod adjacency;
mod cache;
mod flow_cut;
mod metric;
mod order;
mod potential;
mod query;
mod topology;
mod triangles;
mod unpack;

#[cfg(test)]
mod tests;

use alloc::sync::Arc;
use alloc::vec::Vec;

pub use cache::{CACHED_METRIC_BYTES, CACHED_METRICS};
pub use metric::Metric;
pub use order::contraction_order;
pub use potential::Potential;

use cache::MetricCache;
use once_cell::race::OnceBox;
use query::query;
use topology::Topology;
use unpack::Unpacker;

use crate::roads::RoadGraph;
use crate::routing::CostModel;

/// The hierarchy of one network, with its cached metrics.
pub struct Hierarchy {
    topology: Topology,
    length: OnceBox<Arc<Metric>>,
    cache: MetricCache,
}

/// The cheapest path found by a query: its cost, which start and end it uses, and
/// its road edges in travel order.
pub(super) struct HierarchyPath {
    pub(super) cost: f64,
    pub(super) source: usize,
    pub(super) target: usize,
    pub(super) edges: Vec<u32>,
}

impl Hierarchy {
    /// The hierarchy of `graph`, in its stored order or, without a valid one, an
    /// order computed now.
    #[must_use]
    pub fn new(graph: &RoadGraph) -> Self {
        let topology = match graph.stored_order() {
            Some(order) => Topology::new(graph, order),
            None => Topology::new(graph, &contraction_order(graph)),
        };
        Self {
            topology,
            length: OnceBox::new(),
            cache: MetricCache::default(),
        }
    }

    /// Number of arcs (road edges joined in pairs, plus shortcuts).
    #[must_use]
    pub fn arc_count(&self) -> usize {
        self.topology.arc_count()
    }

    /// Customises a metric for `costs`, without the cache (for benchmarks).
    #[must_use]
    pub fn customise(&self, graph: &RoadGraph, costs: &CostModel) -> Metric {
        Metric::customise(&self.topology, graph, costs)
    }

    /// The metric of `costs`: the length-only one when `costs` has no risk weight,
    /// else from the cache, customised on a miss.
    #[must_use]
    pub fn metric(&self, graph: &RoadGraph, costs: &CostModel) -> Arc<Metric> {
        if costs.alpha() == 0.0 {
            return Arc::clone(
                self.length
                    .get_or_init(|| alloc::boxed::Box::new(Arc::new(self.customise(graph, costs)))),
            );
        }
        self.cache
            .get_or_insert(costs, || self.customise(graph, costs))
    }

    /// Exact remaining costs under `metric` to the `targets` (`(node, cost)` from
    /// the node to the end), computed node by node on demand: the potential of an
    /// A* search that must not customise (it combines potentials of fixed metrics).
    #[must_use]
    pub fn potential(&self, metric: Arc<Metric>, targets: &[(u32, f64)]) -> Potential<'_> {
        let ranked: Vec<(u32, f64)> = targets
            .iter()
            .filter_map(|&(node, cost)| Some((*self.topology.rank.get(node as usize)?, cost)))
            .collect();
        Potential::new(&self.topology, metric, &ranked)
    }

    /// Metrics kept in the cache (besides length).
    #[must_use]
    pub fn cached_metrics(&self) -> usize {
        self.cache.len()
    }

    /// The cheapest path from any of `sources` to any of `targets` (`(node, cost)`:
    /// a node and the cost of reaching it from the start, or from it to the end)
    /// under `metric`, customised for `costs`.
    pub(super) fn path(
        &self,
        graph: &RoadGraph,
        costs: &CostModel,
        metric: &Metric,
        sources: &[(u32, f64)],
        targets: &[(u32, f64)],
    ) -> Option<HierarchyPath> {
        let ranked = |ends: &[(u32, f64)]| -> Option<Vec<(u32, f64)>> {
            ends.iter()
                .map(|&(node, cost)| Some((*self.topology.rank.get(node as usize)?, cost)))
                .collect()
        };
        let (forward, backward, (cost, i, j)) =
            query(&self.topology, metric, &ranked(sources)?, &ranked(targets)?)?;
        let unpacker = Unpacker {
            topology: &self.topology,
            graph,
            costs,
            metric,
        };
        let mut edges = unpacker.forward_edges(&forward, i)?;
        edges.extend(unpacker.backward_edges(&backward, j)?);
        Some(HierarchyPath {
            cost,
            source: forward.start[i] as usize,
            target: backward.start[j] as usize,
            edges,
        })
    }
}

impl core::fmt::Debug for Hierarchy {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Hierarchy")
            .field("arcs", &self.topology.arc_count())
            .field("cached_metrics", &self.cache.len())
            .finish_non_exhaustive()
    }
}
