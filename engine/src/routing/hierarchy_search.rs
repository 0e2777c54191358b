//! Cheapest paths through the network's contraction hierarchy, with the metric of
//! the request's cost model (customised once per cost model and cached).

use alloc::vec::Vec;

use super::cch::Metric;
use super::cost::{CostModel, SearchCosts};
use super::index::RouteIndex;
use super::path::{Path, Piece};
use super::snap::Snap;
use crate::roads::RoadGraph;

impl RouteIndex {
    /// The cheapest path between two snapped points under `costs`, or `None` when the
    /// destination is unreachable. Exact: the same cost as a Dijkstra search. Through
    /// the hierarchy with the cost model's cached metric; on a hex lattice, which has
    /// none, by [`astar`](Self::astar).
    #[must_use]
    pub fn search(
        &self,
        graph: &RoadGraph,
        costs: &CostModel,
        from: &Snap,
        to: &Snap,
    ) -> Option<Path> {
        match &self.hierarchy {
            Some(hierarchy) => {
                let metric = hierarchy.metric(graph, costs);
                self.search_with_metric(graph, costs, &metric, from, to)
            }
            None => self.astar(graph, costs, None, from, to),
        }
    }

    /// [`search`](Self::search) with a metric already customised for `costs` by this
    /// network's hierarchy (without one, [`astar`](Self::astar)).
    #[must_use]
    pub fn search_with_metric(
        &self,
        graph: &RoadGraph,
        costs: &CostModel,
        metric: &Metric,
        from: &Snap,
        to: &Snap,
    ) -> Option<Path> {
        let search_costs = SearchCosts::new(graph, costs, None);
        let sources = self.terminals(graph, &search_costs, from, true);
        let targets = self.terminals(graph, &search_costs, to, false);
        let ends = |terminals: &[super::search::Terminal]| -> Vec<(u32, f64)> {
            terminals.iter().map(|t| (t.node, t.cost)).collect()
        };
        let Some(hierarchy) = &self.hierarchy else {
            return self.astar(graph, costs, None, from, to);
        };
        let direct = self.direct(&search_costs, from, to);
        let found = hierarchy
            .path(graph, costs, metric, &ends(&sources), &ends(&targets))
            .map(|path| (path.cost, path));
        let pieces: Vec<Piece> = match (direct, found) {
            (Some((direct_cost, piece)), Some((cost, _))) if direct_cost <= cost => {
                Vec::from([piece])
            }
            (Some((_, piece)), None) => Vec::from([piece]),
            (_, Some((_, path))) => core::iter::once(sources[path.source].piece)
                .chain(
                    path.edges
                        .iter()
                        .map(|&e| Piece::of_edge(graph, e as usize)),
                )
                .chain(core::iter::once(targets[path.target].piece))
                .collect(),
            (None, None) => return None,
        };
        Some(Path::priced(costs, pieces))
    }
}
