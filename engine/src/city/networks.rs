//! The routable networks of a city, indexed on first use.

use alloc::boxed::Box;

use once_cell::race::OnceBox;

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
pub(super) struct Networks {
    roads: OnceBox<RouteIndex>,
    grid: OnceBox<(RoadGraph, RouteIndex)>,
}

impl Networks {
    pub(super) const fn new() -> Self {
        Self {
            roads: OnceBox::new(),
            grid: OnceBox::new(),
        }
    }

    /// The artifact's own network, indexed on first use.
    pub(super) fn roads<'a>(&'a self, graph: &'a RoadGraph) -> Network<'a> {
        let index = self.roads.get_or_init(|| Box::new(RouteIndex::new(graph)));
        Network { graph, index }
    }

    /// The lattice over the city's cells, built by `lattice` and indexed on first use.
    pub(super) fn grid(&self, lattice: impl FnOnce() -> RoadGraph) -> Network<'_> {
        let (graph, index) = self.grid.get_or_init(|| {
            let graph = lattice();
            let index = RouteIndex::new(&graph);
            Box::new((graph, index))
        });
        Network { graph, index }
    }
}

impl Clone for Networks {
    fn clone(&self) -> Self {
        Self::new()
    }
}

impl PartialEq for Networks {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl core::fmt::Debug for Networks {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Networks")
            .field("roads_indexed", &self.roads.get().is_some())
            .field("grid_indexed", &self.grid.get().is_some())
            .finish()
    }
}
