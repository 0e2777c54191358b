//! The hierarchy against a plain Dijkstra on small lattices with one-way streets,
//! dead ends and random weights; the order's and topology's invariants; the cache.

use alloc::sync::Arc;
use alloc::vec;
use alloc::vec::Vec;

use proptest::prelude::*;

use super::topology::Topology;
use super::*;
use crate::roads::RoadGraph;
use crate::routing::dijkstra::costs_to_all;
use crate::routing::test_lattice::{lattice, risks};
use crate::routing::{RouteIndex, Snap};

/// The graph without the edges `drop` picks (one-way streets, dead ends).
fn without_edges(graph: &RoadGraph, drop: impl Fn(usize) -> bool) -> RoadGraph {
    let mut out = graph.clone();
    out.first_edge = vec![0];
    out.edge_target.clear();
    out.edge_way.clear();
    for node in 0..graph.node_count() as u32 {
        for e in graph.out_edges(node).filter(|&e| !drop(e)) {
            out.edge_target.push(graph.edge_target[e]);
            out.edge_way.push(graph.edge_way[e]);
        }
        out.first_edge.push(out.edge_target.len() as u32);
    }
    out
}

/// Costs of the cheapest paths from `source` to every node.
fn dijkstra(graph: &RoadGraph, costs: &CostModel, source: u32) -> Vec<f64> {
    costs_to_all(graph.node_count(), [(source, 0.0)], |node| {
        graph.out_edges(node).map(|e| {
            let way = graph.edge_way(e).0;
            (graph.edge_target[e], costs.way_cost(graph, way))
        })
    })
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(1.0)
}

/// A lattice of radius `k` with every `drop_every`-th edge removed (none for 0), its
/// and per-way risks.
fn network(k: u32, drop_every: usize, seed: u64) -> (RoadGraph, Vec<f64>) {
    let (graph, _, _) = lattice(k);
    let graph = if drop_every == 0 {
        graph
    } else {
        without_edges(&graph, |e| e % drop_every == drop_every / 2)
    };
    let risks = risks(seed, graph.way_count());
    (graph, risks)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Every pair of nodes: the hierarchy's cost is Dijkstra's, its unpacked edges
    /// join the two nodes and add up to that cost, and unreachable stays unreachable.
    #[test]
    fn hierarchy_costs_equal_dijkstra(
        k in 1_u32..5,
        drop_every in prop_oneof![Just(0_usize), 3_usize..9],
        seed in 0_u64..1_000,
        alpha in prop_oneof![Just(0.0), 0.0..10.0, Just(1e6)],
    ) {
        let (graph, risks) = network(k, drop_every, seed);
        let costs = CostModel::from_risks(&risks, alpha);
        let hierarchy = Hierarchy::new(&graph);
        let metric = hierarchy.customise(&graph, &costs);
        for s in 0..graph.node_count() as u32 {
            let expected = dijkstra(&graph, &costs, s);
            for t in 0..graph.node_count() as u32 {
                let found = hierarchy.path(&graph, &costs, &metric, &[(s, 0.0)], &[(t, 0.0)]);
                let Some(found) = found else {
                    prop_assert!(expected[t as usize].is_infinite(), "{s} → {t} missed");
                    continue;
                };
                prop_assert!(close(found.cost, expected[t as usize]), "{s} → {t}: {} ≠ {}", found.cost, expected[t as usize]);
                let mut at = s;
                let mut walked = 0.0;
                for &e in &found.edges {
                    prop_assert!(graph.out_edges(at).contains(&(e as usize)), "edge {e} does not leave {at}");
                    walked += costs.way_cost(&graph, graph.edge_way(e as usize).0);
                    at = graph.edge_target[e as usize];
                }
                prop_assert_eq!(at, t);
                prop_assert!(close(walked, found.cost));
            }
        }
    }

    /// From points part-way along ways: the hierarchy's route costs what the A*
    /// search's does (both optimal), for any weights.
    #[test]
    fn snapped_searches_agree_with_astar(
        k in 2_u32..5,
        drop_every in prop_oneof![Just(0_usize), 4_usize..9],
        seed in 0_u64..1_000,
        alpha in 0.0..8.0,
    ) {
        let (graph, risks) = network(k, drop_every, seed);
        let costs = CostModel::from_risks(&risks, alpha);
        let index = RouteIndex::new(&graph);
        let ways = graph.way_count();
        let picks = crate::routing::test_lattice::risks(seed + 1, 60);
        for pair in picks.chunks(4) {
            let snap = |w: f64, along: f64| {
                let way = ((w * ways as f64) as usize).min(ways - 1);
                Snap {
                    way: way as u32,
                    offset_m: along * f64::from(graph.way_length_m[way]),
                    point: graph.node(index.way_nodes(way)[0]).to_lat_lng(),
                    distance_m: 0.0,
                }
            };
            let (from, to) = (snap(pair[0], pair[1]), snap(pair[2], pair[3]));
            let fast = index.search(&graph, &costs, &from, &to);
            let reference = index.astar(&graph, &costs, None, &from, &to);
            match (fast, reference) {
                (Some(fast), Some(reference)) => {
                    prop_assert!(close(fast.cost, reference.cost), "{} ≠ {}", fast.cost, reference.cost);
                }
                (fast, reference) => prop_assert_eq!(fast.is_some(), reference.is_some()),
            }
        }
    }
}

#[test]
fn the_order_is_a_deterministic_permutation_and_upward_neighbours_are_ancestors() {
    let (graph, _) = network(6, 5, 7);
    let order = contraction_order(&graph);
    assert_eq!(order, contraction_order(&graph));
    let mut sorted = order.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, (0..graph.node_count() as u32).collect::<Vec<_>>());

    let topology = Topology::new(&graph, &order);
    for r in 0..graph.node_count() as u32 {
        let mut ancestors = Vec::new();
        let mut at = topology.parent[r as usize];
        while at != topology::NO_ARC {
            ancestors.push(at);
            at = topology.parent[at as usize];
        }
        for a in topology.up(r) {
            assert!(
                ancestors.contains(&topology.head[a]),
                "arc above {r} leaves its ancestors"
            );
        }
    }
    // A separator ranks above what it separates: far fewer arcs than the clique a
    // bad order would make (a lattice of radius 6 has 127 nodes).
    assert!(
        topology.arc_count() < 127 * 12,
        "{} arcs",
        topology.arc_count()
    );
}

#[test]
fn a_stored_order_is_used_and_a_broken_one_replaced() {
    let (mut graph, _) = network(3, 0, 1);
    let computed = Hierarchy::new(&graph).arc_count();
    graph.contraction_order = (0..graph.node_count() as u32).collect();
    let identity = Hierarchy::new(&graph).arc_count();
    assert_ne!(identity, computed, "the stored order was ignored");
    graph.contraction_order[0] = 1;
    assert!(graph.stored_order().is_none());
    assert!(graph.validate(usize::MAX).is_err());
    assert_eq!(Hierarchy::new(&graph).arc_count(), computed);
}

#[test]
fn metrics_are_cached_per_cost_model_and_bounded() {
    let (graph, risks) = network(3, 0, 2);
    let hierarchy = Hierarchy::new(&graph);
    let model = |alpha: f64| CostModel::from_risks(&risks, alpha);
    let first = hierarchy.metric(&graph, &model(4.0));
    assert!(Arc::ptr_eq(&first, &hierarchy.metric(&graph, &model(4.0))));
    let length = hierarchy.metric(&graph, &CostModel::lengths());
    assert!(Arc::ptr_eq(&length, &hierarchy.metric(&graph, &model(0.0))));
    assert_eq!(hierarchy.cached_metrics(), 1, "length is kept apart");
    for alpha in 1..=CACHED_METRICS + 2 {
        let _ = hierarchy.metric(&graph, &model(alpha as f64 / 10.0));
    }
    assert_eq!(hierarchy.cached_metrics(), CACHED_METRICS);
    assert!(
        !Arc::ptr_eq(&first, &hierarchy.metric(&graph, &model(4.0))),
        "the oldest was kept"
    );
}

#[test]
fn vertex_cuts_separate_sources_from_sinks_with_the_fewest_nodes() {
    use super::adjacency::Adjacency;
    use super::flow_cut::{LocalGraph, Role, min_vertex_cut};
    // A lattice, and the same lattice cut to two halves joined through one node.
    let (graph, _) = network(5, 0, 3);
    let adjacency = Adjacency::new(&graph);
    let part: Vec<u32> = (0..graph.node_count() as u32).collect();
    let mut local = vec![u32::MAX; part.len()];
    let local_graph = LocalGraph::new(&adjacency, &part, &mut local);
    let by_lng = {
        let mut order = part.clone();
        order.sort_by_key(|&v| graph.nodes[v as usize].0[0]);
        order
    };
    let quarter = part.len() / 4;
    let mut roles = vec![Role::Inner; part.len()];
    for &v in &by_lng[..quarter] {
        roles[v as usize] = Role::Source;
    }
    for &v in &by_lng[part.len() - quarter..] {
        roles[v as usize] = Role::Sink;
    }
    let cut = min_vertex_cut(&local_graph, &roles);
    let separated = |v: u32| cut.separator.contains(&v);
    for v in part.iter().copied().filter(|&v| !separated(v)) {
        match roles[v as usize] {
            Role::Source => assert!(cut.source_side[v as usize]),
            Role::Sink => assert!(!cut.source_side[v as usize]),
            Role::Inner => {}
        }
        for &u in adjacency.neighbours(v) {
            assert!(
                separated(u) || cut.source_side[u as usize] == cut.source_side[v as usize],
                "{v} and {u} are on different sides of the cut"
            );
        }
    }
    // A column of the lattice, not a quarter of it: a hex lattice of radius 5 is 11
    // cells across.
    assert!(cut.separator.len() <= 11, "{} nodes", cut.separator.len());

    // A path of three nodes from a source to a sink: one node (any) is the cut.
    let roles: Vec<Role> = (0..3_u32)
        .map(|v| [Role::Source, Role::Inner, Role::Sink][v as usize])
        .collect();
    let path = {
        let mut g = graph.clone();
        g.nodes.truncate(3);
        g.first_edge = vec![0, 1, 3, 4];
        g.edge_target = vec![1, 0, 2, 1];
        g.edge_way = vec![0, 0, 1, 1];
        g
    };
    let adjacency = Adjacency::new(&path);
    let mut local = vec![u32::MAX; 3];
    let cut = min_vertex_cut(&LocalGraph::new(&adjacency, &[0, 1, 2], &mut local), &roles);
    assert_eq!(cut.separator.len(), 1);
}

#[test]
fn potentials_are_the_exact_remaining_costs() {
    for (k, drop_every, seed) in [(3, 0, 4), (4, 5, 5), (4, 7, 6)] {
        let (graph, risks) = network(k, drop_every, seed);
        let hierarchy = Hierarchy::new(&graph);
        for model in [
            CostModel::lengths(),
            CostModel::exposure_only(&risks),
            CostModel::from_risks(&risks, 3.0),
        ] {
            let t = (graph.node_count() / 3) as u32;
            let mut potential = hierarchy.potential(hierarchy.metric(&graph, &model), &[(t, 0.5)]);
            // Asked in an order that is neither the ranks' nor the nodes'.
            for s in (0..graph.node_count() as u32)
                .rev()
                .step_by(2)
                .chain(0..graph.node_count() as u32)
            {
                let expected = dijkstra(&graph, &model, s)[t as usize] + 0.5;
                let found = potential.at(s);
                assert!(
                    (expected.is_infinite() && found.is_infinite()) || close(found, expected),
                    "{s} → {t}: {found} ≠ {expected}"
                );
            }
        }
    }
}

#[test]
fn hex_lattices_have_no_hierarchy_and_route_by_astar() {
    let (mut graph, risks) = network(3, 0, 8);
    assert!(RouteIndex::new(&graph).hierarchy().is_some());
    graph.kind = crate::roads::NetworkKind::HexLattice;
    let index = RouteIndex::new(&graph);
    assert!(index.hierarchy().is_none());
    let costs = CostModel::from_risks(&risks, 4.0);
    let at = |node: u32| crate::routing::test_lattice::at_node(&index, &graph, node);
    let (from, to) = (at(0), at(graph.node_count() as u32 - 1));
    let found = index.search(&graph, &costs, &from, &to).unwrap();
    let expected = dijkstra(&graph, &costs, 0)[graph.node_count() - 1];
    assert!(close(found.cost, expected), "{} ≠ {expected}", found.cost);
}

#[test]
fn what_arcs_run_through_is_kept_in_blocks_made_as_routes_unpack() {
    let (graph, risks) = network(12, 0, 3);
    let costs = CostModel::from_risks(&risks, 4.0);
    let hierarchy = Hierarchy::new(&graph);
    let metric = hierarchy.customise(&graph, &costs);
    let blocks = (2 * hierarchy.arc_count()).div_ceil(super::triangles::BLOCK);
    assert_eq!(metric.triangles.blocks_made(), 0, "customising makes none");
    let last = graph.node_count() as u32 - 1;
    let route = |metric: &Metric| {
        hierarchy
            .path(&graph, &costs, metric, &[(0, 0.0)], &[(last, 0.0)])
            .unwrap()
            .edges
    };
    let first = route(&metric);
    let made = metric.triangles.blocks_made();
    assert!(made > 0 && made < blocks, "{made} of {blocks} blocks");
    // Found again from what was kept, and found alike by a metric that keeps nothing yet.
    assert_eq!(route(&metric), first);
    assert_eq!(metric.triangles.blocks_made(), made);
    assert_eq!(route(&hierarchy.customise(&graph, &costs)), first);
    // Potentials read costs only: the exposure-only metric of the trade-off keeps none.
    let exposure = hierarchy.metric(&graph, &CostModel::exposure_only(&risks));
    let mut potential = hierarchy.potential(Arc::clone(&exposure), &[(last, 0.0)]);
    for node in 0..=last {
        let _ = potential.at(node);
    }
    assert_eq!(exposure.triangles.blocks_made(), 0);
}
