use alloc::vec::Vec;

use petgraph::graph::{DiGraph, NodeIndex};

use super::*;
use crate::routing::test_lattice::lattice;

#[test]
fn node_distances_are_the_shortest_metres_from_a_point_partway_along_a_way() {
    let (graph, _, nodes) = lattice(3);
    let index = RouteIndex::new(&graph);
    // petgraph's Dijkstra over the way lengths, from an extra node for the point.
    let mut reference = DiGraph::<(), f64>::new();
    let ids: Vec<NodeIndex> = (0..=graph.node_count())
        .map(|_| reference.add_node(()))
        .collect();
    for node in 0..graph.node_count() as u32 {
        for e in graph.out_edges(node) {
            let length = f64::from(graph.way_length_m[graph.edge_way(e).0]);
            let head = ids[graph.edge_target[e] as usize];
            reference.add_edge(ids[node as usize], head, length);
        }
    }
    let point = ids[graph.node_count()];
    for way in (0..graph.way_count()).step_by(7) {
        let [start, end] = index.way_nodes(way);
        let length = f64::from(graph.way_length_m[way]);
        let offset_m = 0.3 * length;
        // The lattice's ways run both ways, so the point reaches both ends.
        let mut from_point = reference.clone();
        from_point.add_edge(point, ids[start as usize], offset_m);
        from_point.add_edge(point, ids[end as usize], length - offset_m);
        let expected = petgraph::algo::dijkstra(&from_point, point, None, |e| *e.weight());
        let snap = Snap {
            way: way as u32,
            offset_m,
            point: nodes[start as usize],
            distance_m: 0.0,
        };
        let found = index.node_distances_m(&graph, &snap);
        for (node, &metres) in found.iter().enumerate() {
            let want = expected[&ids[node]];
            assert!(
                (metres - want).abs() <= 1e-6 * want.max(1.0),
                "way {way} node {node}: {metres} vs {want}"
            );
        }
    }
}
