//! A plain reference Dijkstra (petgraph) over a city network with the engine's own
//! edge costs, to check that the engine's routes are optimal and to time it beside
//! the engine's search.

use hexrisk_engine::roads::RoadGraph;
use hexrisk_engine::routing::{CostModel, RouteIndex, Snap};
use petgraph::graph::{DiGraph, NodeIndex};

/// Whether the way has an edge along it (`reversed = false`) or against it.
#[must_use]
pub fn way_has_edge(graph: &RoadGraph, index: &RouteIndex, way: u32, reversed: bool) -> bool {
    let [start, end] = index.way_nodes(way as usize);
    let from = if reversed { end } else { start };
    graph
        .out_edges(from)
        .any(|e| graph.edge_way(e) == (way as usize, reversed))
}

/// The reference: Dijkstra over the whole graph plus a virtual origin and
/// destination joined to the ends of their ways by the partial way costs.
pub struct Reference {
    graph: DiGraph<(), f64>,
    origin: NodeIndex,
    destination: NodeIndex,
}

impl Reference {
    /// The whole graph with `costs` on every edge.
    #[must_use]
    pub fn new(graph: &RoadGraph, costs: &CostModel) -> Self {
        let mut g = DiGraph::with_capacity(graph.node_count() + 2, graph.edge_count() + 8);
        for _ in 0..graph.node_count() {
            g.add_node(());
        }
        for node in 0..graph.node_count() as u32 {
            for e in graph.out_edges(node) {
                let cost = costs.way_cost(graph, graph.edge_way(e).0);
                g.add_edge(
                    NodeIndex::new(node as usize),
                    NodeIndex::new(graph.edge_target[e] as usize),
                    cost,
                );
            }
        }
        let origin = g.add_node(());
        let destination = g.add_node(());
        Self {
            graph: g,
            origin,
            destination,
        }
    }

    /// Cost of the cheapest path between two snapped points, found by petgraph's
    /// Dijkstra from a virtual origin to a virtual destination.
    pub fn cost(
        &mut self,
        graph: &RoadGraph,
        index: &RouteIndex,
        costs: &CostModel,
        from: &Snap,
        to: &Snap,
    ) -> Option<f64> {
        let node = |n: u32| NodeIndex::new(n as usize);
        let mut added = Vec::new();
        let (o, d) = (self.origin, self.destination);
        let way = from.way as usize;
        let length = f64::from(graph.way_length_m[way]);
        let [start, end] = index.way_nodes(way);
        if way_has_edge(graph, index, from.way, false) {
            let c = costs.way_cost_between(way, from.offset_m, length);
            added.push(self.graph.add_edge(o, node(end), c));
        }
        if way_has_edge(graph, index, from.way, true) {
            let c = costs.way_cost_between(way, 0.0, from.offset_m);
            added.push(self.graph.add_edge(o, node(start), c));
        }
        let way = to.way as usize;
        let length = f64::from(graph.way_length_m[way]);
        let [start, end] = index.way_nodes(way);
        if way_has_edge(graph, index, to.way, false) {
            let c = costs.way_cost_between(way, 0.0, to.offset_m);
            added.push(self.graph.add_edge(node(start), d, c));
        }
        if way_has_edge(graph, index, to.way, true) {
            let c = costs.way_cost_between(way, to.offset_m, length);
            added.push(self.graph.add_edge(node(end), d, c));
        }
        if from.way == to.way {
            let along = (way_has_edge(graph, index, from.way, false)
                && from.offset_m <= to.offset_m)
                || (way_has_edge(graph, index, from.way, true) && from.offset_m >= to.offset_m);
            if along {
                let c = costs.way_cost_between(way, from.offset_m, to.offset_m);
                added.push(self.graph.add_edge(o, d, c));
            }
        }
        let result = petgraph::algo::dijkstra(&self.graph, o, Some(d), |e| *e.weight())
            .get(&d)
            .copied();
        // Removing the newest edges first leaves every other edge index unchanged.
        for e in added.into_iter().rev() {
            self.graph.remove_edge(e);
        }
        result
    }
}
