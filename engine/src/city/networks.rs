//! The routable networks of a city, indexed on first use.

use super::derived::Derived;
use crate::roads::RoadGraph;
use crate::routing::RouteIndex;

/// A routable network: a graph and its search index.
#[derive(Debug, Clone, Copy)]
pub struct Network<'a> {
    /// The graph.
    pub graph: &'a RoadGraph,
    /// Its index.
    pub index: &'a RouteIndex,
}

/// Route indexes, built on first use: they are derived data, so clones start empty
/// and equality ignores them.
#[derive(Clone, PartialEq, Debug)]
pub(super) struct Networks {
    roads: Derived<RouteIndex>,
    grid: Derived<(RoadGraph, RouteIndex)>,
}

impl Networks {
    pub(super) const fn new() -> Self {
        Self {
            roads: Derived::new(),
            grid: Derived::new(),
        }
    }

    /// The artifact's own network, indexed on first use.
    pub(super) fn roads<'a>(&'a self, graph: &'a RoadGraph) -> Network<'a> {
        let index = self.roads.get_or_init(|| RouteIndex::new(graph));
        Network { graph, index }
    }

    /// The lattice over the city's cells, built by `lattice` and indexed on first use.
    pub(super) fn grid(&self, lattice: impl FnOnce() -> RoadGraph) -> Network<'_> {
        let (graph, index) = self.grid.get_or_init(|| {
            let graph = lattice();
            let index = RouteIndex::new(&graph);
            (graph, index)
        });
        Network { graph, index }
    }
}
