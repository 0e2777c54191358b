use rstar::PointDistance;

use super::*;
use crate::routing::test_lattice::{lattice, risks};

/// A stretched lattice whose ways have 0 to 3 interior points, bent off the
/// straight line, so ways have several segments and junctions many ways' ends.
fn bent_network() -> RoadGraph {
    let (mut graph, _, _) = lattice(7);
    let ends = graph.way_ends();
    let bends = risks(7, 4 * graph.way_count());
    let (mut starts, mut points) = (alloc::vec![0_u32], Vec::new());
    for (way, [a, b]) in ends.iter().enumerate() {
        let (a, b) = (graph.node(*a), graph.node(*b));
        let interior = way % 4;
        for k in 1..=interior {
            let t = k as f64 / (interior + 1) as f64;
            let off = (bends[4 * way + k] - 0.5) * 400.0;
            points.push(MicroDegrees([
                a.0[0] + (f64::from(b.0[0] - a.0[0]) * t + off) as i32,
                a.0[1] + (f64::from(b.0[1] - a.0[1]) * t - off) as i32,
            ]));
        }
        starts.push(points.len() as u32);
    }
    graph.way_points = points;
    graph.way_points_start = starts;
    graph
}

#[test]
fn the_nearest_segment_is_the_one_the_rstar_tree_finds_ties_included() {
    let graph = bent_network();
    let way_nodes = graph.way_ends();
    let frame = LocalFrame::new(&graph);
    let geometry = Geometry {
        graph: &graph,
        way_nodes: &way_nodes,
        frame: &frame,
    };
    let tree = SegmentTree::new(&geometry);
    // The tree the index built before this one: `rstar`'s own.
    let mut entries = Vec::new();
    for (way, &ends) in way_nodes.iter().enumerate() {
        let points: Vec<[f64; 2]> = graph
            .way_points(way, ends)
            .map(|p| {
                let p = p.to_lat_lng();
                frame.project(p.lat(), p.lng())
            })
            .collect();
        for (i, pair) in points.windows(2).enumerate() {
            entries.push(GeomWithData::new(
                Line::new(pair[0], pair[1]),
                (way as u32, i as u32),
            ));
        }
    }
    let reference = RTree::bulk_load(entries);
    assert_eq!(tree.leaves.len(), reference.size());

    // Every node and interior point (where several segments meet), points
    // around the lattice and beyond it.
    let mut queries: Vec<[f64; 2]> = graph
        .nodes
        .iter()
        .chain(&graph.way_points)
        .map(|p| {
            let p = p.to_lat_lng();
            frame.project(p.lat(), p.lng())
        })
        .collect();
    let spread = risks(11, 2 * 6000);
    queries.extend(
        spread
            .chunks(2)
            .map(|r| [(r[0] - 0.5) * 12_000.0, (r[1] - 0.5) * 12_000.0]),
    );
    let mut ties = 0;
    for q in queries {
        let (ours, distance_2) = tree.nearest(&geometry, q).unwrap();
        let theirs = reference.nearest_neighbor(&q).unwrap();
        assert_eq!((ours.way, ours.index), theirs.data, "at {q:?}");
        assert_eq!(ours.from, theirs.geom().from);
        assert_eq!(ours.to, theirs.geom().to);
        assert_eq!(distance_2.to_bits(), theirs.distance_2(&q).to_bits());
        if reference.nearest_neighbors(&q).len() > 1 {
            ties += 1;
        }
    }
    // Equally near segments are common (at every junction), and ours are rstar's.
    assert!(ties > 1000, "{ties} ties");
}

#[test]
fn an_empty_network_has_no_nearest_segment() {
    let (mut graph, _, _) = lattice(1);
    graph.way_length_m.clear();
    graph.way_points_start = alloc::vec![0];
    graph.way_points.clear();
    let frame = LocalFrame::new(&graph);
    let geometry = Geometry {
        graph: &graph,
        way_nodes: &[],
        frame: &frame,
    };
    assert_eq!(
        SegmentTree::new(&geometry).nearest(&geometry, [0.0, 0.0]),
        None
    );
}

#[test]
fn distances_are_rstar_s() {
    use rstar::{Envelope, RTreeObject};
    let cases = [
        ([0.0, 0.0], [3.0, 4.0], [1.0, 1.0]),
        ([0.5, 0.5], [0.5, 2.0], [0.0, 0.0]),
        ([1.0, 1.0], [1.0, 1.0], [2.0, -3.0]),
        ([-2.5, 7.25], [13.0, -1.0], [30.0, 1e-3]),
        ([0.1, 0.2], [0.3, 0.7], [0.2, 0.45]),
    ];
    for (from, to, q) in cases {
        let line = Line::new(from, to);
        assert_eq!(
            segment_distance_2(from, to, q).to_bits(),
            line.distance_2(&q).to_bits()
        );
        let ours = Aabb::from_corners(from, to);
        let theirs = line.envelope();
        assert_eq!(ours, aabb(&theirs));
        assert_eq!(
            ours.distance_2(q).to_bits(),
            theirs.distance_2(&q).to_bits()
        );
        assert_eq!(
            ours.min_max_dist_2(q).to_bits(),
            theirs.min_max_dist_2(&q).to_bits()
        );
    }
}
