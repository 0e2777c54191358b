//! Reverse lookup against a brute-force search over every node and way of a named
//! lattice, and on a network without names.

use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use h3o::LatLng;

use super::{Plane, reverse, to_segment};
use crate::roads::{NetworkKind, RoadGraph, hex_lattice};
use crate::routing::RouteIndex;

/// The hex lattice within `k` rings of central Toronto, routed as roads, its ways
/// named by `name(way)`.
pub(crate) fn named_lattice(
    k: u32,
    name: impl Fn(usize) -> &'static str,
) -> (RoadGraph, RouteIndex) {
    let centre = crate::grid::cell_at(43.6532, -79.3832).unwrap();
    let cells = crate::grid::disk(centre, k).unwrap();
    let mut grid: Vec<u64> = cells.iter().map(|&c| u64::from(c)).collect();
    grid.sort_unstable();
    let mut graph = hex_lattice(&cells, &grid, "test");
    graph.kind = NetworkKind::Roads;
    let names: Vec<&str> = (0..graph.way_count()).map(name).collect();
    graph.set_way_names(names);
    let index = RouteIndex::new(&graph);
    (graph, index)
}

/// An intersection's names and metres; the names of the streets nearest the point
/// (more than one when several lie at the same distance) and their metres.
type Finds = (Option<(Vec<String>, f64)>, Option<(Vec<String>, f64)>);

/// The nearest intersection and named street by looking at everything.
fn brute_force(graph: &RoadGraph, index: &RouteIndex, point: LatLng) -> Finds {
    let plane = Plane::around(point);
    let mut intersection: Option<(Vec<String>, f64)> = None;
    for node in 0..graph.node_count() as u32 {
        let mut names: Vec<String> = graph
            .out_edges(node)
            .filter_map(|e| graph.way_name(graph.edge_way(e).0).map(String::from))
            .collect();
        names.sort_unstable();
        names.dedup();
        let [x, y] = plane.project(graph.node(node));
        let metres = libm::hypot(x, y);
        if names.len() >= 2
            && metres <= super::MAX_DISTANCE_M
            && intersection.as_ref().is_none_or(|i| metres < i.1)
        {
            intersection = Some((names, metres));
        }
    }
    let mut street: Option<(Vec<String>, f64)> = None;
    for way in 0..graph.way_count() {
        let Some(name) = graph.way_name(way) else {
            continue;
        };
        let points: Vec<[f64; 2]> = graph
            .way_points(way, index.way_nodes(way))
            .map(|p| plane.project(p))
            .collect();
        let metres = points
            .windows(2)
            .map(|s| to_segment(s[0], s[1]))
            .fold(f64::INFINITY, f64::min);
        if metres > super::MAX_DISTANCE_M {
            continue;
        }
        match &mut street {
            Some((names, nearest)) if (metres - *nearest).abs() < 1e-9 => {
                names.push(String::from(name));
            }
            Some((_, nearest)) if metres > *nearest => {}
            _ => street = Some((vec![String::from(name)], metres)),
        }
    }
    (intersection, street)
}

#[test]
fn the_nearest_intersection_and_street_are_those_a_full_search_finds() {
    // Few named ways, so that intersections are sparse and the nearest is often some
    // way off: the search has to walk out to find it.
    let (graph, index) = named_lattice(5, |way| match way % 11 {
        0 => "First St",
        5 => "Fifth Ave",
        _ => "",
    });
    let mut with_street = 0;
    for i in 0..40 {
        let t = f64::from(i) / 40.0;
        let point = LatLng::new(
            43.6532 + 0.02 * (t - 0.5),
            -79.3832 + 0.03 * libm::sin(7.0 * t),
        )
        .unwrap();
        let found = reverse(&graph, &index, point);
        let (intersection, street) = brute_force(&graph, &index, point);
        assert_eq!(
            found
                .intersection
                .as_ref()
                .map(|i| (i.streets.clone(), i.distance_m)),
            intersection,
            "{point}"
        );
        match (&found.street, &street) {
            (Some(s), Some((names, metres))) => {
                assert!(
                    (s.distance_m - metres).abs() < 1e-9,
                    "{point}: {} vs {metres}",
                    s.distance_m
                );
                // Streets at the same distance: any of their names will do.
                assert!(
                    names.contains(&s.name),
                    "{point}: {} not in {names:?}",
                    s.name
                );
                with_street += 1;
            }
            (a, b) => assert_eq!(a.is_some(), b.is_some(), "{point}"),
        }
    }
    assert!(
        with_street >= 30,
        "only {with_street} points had a named street near"
    );
}

#[test]
fn a_network_without_names_names_nothing() {
    let (graph, index) = named_lattice(2, |_| "");
    assert!(graph.names.is_empty());
    let found = reverse(&graph, &index, LatLng::new(43.6532, -79.3832).unwrap());
    assert_eq!(found, super::Reverse::default());
}
