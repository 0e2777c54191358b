//! The trade-off set against a brute-force reference: every simple path of a small
//! hex lattice, its (length, exposure), and the lower convex hull of those points.

use alloc::vec;
use alloc::vec::Vec;

use super::*;
use crate::roads::RoadGraph;
use crate::routing::test_lattice::{at_node, lattice, risks};

/// (length, exposure) of every simple path from node `s` to node `t`.
fn every_path(graph: &RoadGraph, model: &CostModel, s: u32, t: u32) -> Vec<(f64, f64)> {
    fn walk(
        graph: &RoadGraph,
        model: &CostModel,
        node: u32,
        t: u32,
        seen: &mut Vec<bool>,
        so_far: (f64, f64),
        out: &mut Vec<(f64, f64)>,
    ) {
        if node == t {
            out.push(so_far);
            return;
        }
        for e in graph.out_edges(node) {
            let next = graph.edge_target[e];
            if seen[next as usize] {
                continue;
            }
            let way = graph.edge_way(e).0;
            let length = f64::from(graph.way_length_m[way]);
            let exposure = model.way_cost(graph, way) - length;
            seen[next as usize] = true;
            walk(
                graph,
                model,
                next,
                t,
                seen,
                (so_far.0 + length, so_far.1 + exposure),
                out,
            );
            seen[next as usize] = false;
        }
    }
    let mut seen = vec![false; graph.node_count()];
    seen[s as usize] = true;
    let mut out = Vec::new();
    walk(graph, model, s, t, &mut seen, (0.0, 0.0), &mut out);
    out
}

/// Corners of the lower-left convex hull of `points`, by increasing length.
fn hull_corners(points: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let mut sorted = points.to_vec();
    sorted.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    let mut hull: Vec<(f64, f64)> = Vec::new();
    for p in sorted {
        // Only points less exposed than every shorter one are candidates.
        if hull.last().is_some_and(|last| p.1 >= last.1 - 1e-9) {
            continue;
        }
        while hull.len() >= 2 {
            let (a, b) = (hull[hull.len() - 2], hull[hull.len() - 1]);
            // `b` is a corner only if it lies strictly below the line from `a` to `p`.
            let cross = (b.0 - a.0) * (p.1 - a.1) - (p.0 - a.0) * (b.1 - a.1);
            if cross <= 1e-9 * (p.0 - a.0).abs().max(1.0) {
                hull.pop();
            } else {
                break;
            }
        }
        hull.push(p);
    }
    hull
}

#[test]
fn the_set_is_every_corner_of_the_brute_force_hull_within_the_stretch() {
    let (graph, _, nodes) = lattice(2);
    let index = RouteIndex::new(&graph);
    // Pairs whose reference set has a real trade-off (two routes or more).
    let mut corners_seen = 0;
    let mut pairs = 0;
    let far_pairs: Vec<(usize, usize)> = (0..nodes.len())
        .flat_map(|s| (0..nodes.len()).map(move |t| (s, t)))
        // Pairs at least three cells apart have room for detours.
        .filter(|&(s, t)| nodes[s].distance_m(nodes[t]) > 2_500.0)
        .collect();
    for (seed, &(s, t)) in far_pairs.iter().enumerate() {
        let seed = seed as u64;
        let risks = risks(seed, graph.way_count());
        let exposure = CostModel::from_risks(&risks, 1.0);
        pairs += 1;
        let from = at_node(&index, &graph, s as u32);
        let to = at_node(&index, &graph, t as u32);
        let set = index.tradeoff(&graph, &risks, &from, &to).unwrap();
        assert!(set.complete);
        let points = every_path(&graph, &exposure, s as u32, t as u32);
        let shortest = points.iter().map(|p| p.0).fold(f64::INFINITY, f64::min);
        let expected: Vec<(f64, f64)> = hull_corners(&points)
            .into_iter()
            .filter(|p| p.0 <= shortest * TRADEOFF_MAX_STRETCH + 1e-6)
            .collect();
        let found: Vec<(f64, f64)> = set
            .routes
            .iter()
            .map(|r| (r.length_m, r.exposure_m))
            .collect();
        assert_eq!(
            found.len(),
            expected.len(),
            "seed {seed}: {found:?} vs {expected:?}"
        );
        for (f, e) in found.iter().zip(&expected) {
            assert!(
                (f.0 - e.0).abs() < 1e-6 * e.0 && (f.1 - e.1).abs() < 1e-6 * e.0,
                "seed {seed}: {found:?} vs {expected:?}"
            );
        }
        corners_seen += usize::from(expected.len() >= 2);
    }
    // The reference must have found real trade-offs, not only single routes.
    assert!(
        pairs >= 100 && corners_seen >= pairs / 2,
        "{corners_seen} in {pairs}"
    );
}

#[test]
fn thinning_keeps_both_ends_distinct_routes_and_at_most_five() {
    let (graph, _, nodes) = lattice(6);
    let index = RouteIndex::new(&graph);
    let (s, t) = (0..nodes.len())
        .flat_map(|s| (0..nodes.len()).map(move |t| (s, t)))
        .max_by(|a, b| {
            let d = |(s, t): (usize, usize)| nodes[s].distance_m(nodes[t]);
            d(*a).total_cmp(&d(*b))
        })
        .unwrap();
    let mut longest_set = 0;
    for seed in 0..8_u64 {
        let risks = risks(seed, graph.way_count());
        let from = at_node(&index, &graph, s as u32);
        let to = at_node(&index, &graph, t as u32);
        let set = index.tradeoff(&graph, &risks, &from, &to).unwrap();
        let kept = thin(&set.routes);
        longest_set = longest_set.max(set.routes.len());
        assert!(!kept.is_empty() && kept.len() <= TRADEOFF_MAX_ROUTES);
        assert_eq!(kept[0], set.routes[0]);
        assert_eq!(kept.last(), set.routes.last());
        for pair in kept.windows(2) {
            let (shorter, longer) = (&pair[0], &pair[1]);
            assert!(longer.length_m > shorter.length_m);
            assert!(longer.exposure_m < shorter.exposure_m);
            let off = longer.length_m - longer.path.shared_m(&shorter.path);
            assert!(off >= TRADEOFF_MIN_DIFFERENCE * longer.length_m - 1e-9);
        }
    }
    assert!(longest_set > TRADEOFF_MAX_ROUTES, "{longest_set}");
}

#[test]
fn the_same_point_twice_is_a_set_of_one_empty_route() {
    let (graph, _, nodes) = lattice(1);
    let index = RouteIndex::new(&graph);
    let at = index.snap(&graph, nodes[3]).unwrap();
    let set = index
        .tradeoff(&graph, &risks(1, graph.way_count()), &at, &at)
        .unwrap();
    assert_eq!(set.routes.len(), 1);
    assert_eq!(set.routes[0].length_m, 0.0);
    assert_eq!(thin(&set.routes).len(), 1);
}
