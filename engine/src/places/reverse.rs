//! Reverse lookup: the named street and the intersection (a node where ways of two or
//! more different names meet) nearest a point, for naming a route's ends ("near King
//! St W & Spadina Ave").
//!
//! The search walks the network's nodes outward from the ends of the way nearest the
//! point, nearest first, and stops once every node left is farther than
//! [`SEARCH_MARGIN_M`] beyond the best intersection and street found, or after
//! [`MAX_NODES`] nodes. Distances are in a local equirectangular plane around the
//! point (under a metre off the great circle at these ranges).

use alloc::collections::{BTreeSet, BinaryHeap};
use alloc::string::String;
use alloc::vec::Vec;
use core::cmp::Ordering;

use h3o::LatLng;

use crate::grid::MicroDegrees;
use crate::roads::RoadGraph;
use crate::routing::RouteIndex;

/// Nodes visited at most.
pub const MAX_NODES: usize = 400;

/// Nodes farther than the best finds by more than this are not visited.
pub const SEARCH_MARGIN_M: f64 = 150.0;

/// Farthest a named street or an intersection may be and still name a point.
pub const MAX_DISTANCE_M: f64 = 500.0;

/// Mean earth radius, metres (as the builder's street attribution).
const EARTH_RADIUS_M: f64 = 6_371_008.8;

/// The street nearest a point, by name.
#[derive(Debug, Clone, PartialEq)]
pub struct NamedStreet {
    /// Its name, as the network's source spells it.
    pub name: String,
    /// Metres from the point to its line.
    pub distance_m: f64,
}

/// A node where ways of two or more names meet.
#[derive(Debug, Clone, PartialEq)]
pub struct Intersection {
    /// The names meeting there, in byte order, each once.
    pub streets: Vec<String>,
    /// Where it is.
    pub point: LatLng,
    /// Metres from the point.
    pub distance_m: f64,
}

/// What is nearest a point.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Reverse {
    /// The nearest named street within [`MAX_DISTANCE_M`].
    pub street: Option<NamedStreet>,
    /// The nearest intersection within [`MAX_DISTANCE_M`].
    pub intersection: Option<Intersection>,
}

/// Metres east and north of an origin.
struct Plane {
    lat0: f64,
    lng0: f64,
    per_lat: f64,
    per_lng: f64,
}

impl Plane {
    fn around(point: LatLng) -> Self {
        let per_lat = EARTH_RADIUS_M * core::f64::consts::PI / 180.0;
        Self {
            lat0: point.lat(),
            lng0: point.lng(),
            per_lat,
            per_lng: per_lat * libm::cos(point.lat_radians()),
        }
    }

    fn project(&self, p: MicroDegrees) -> [f64; 2] {
        [
            (p.lng() - self.lng0) * self.per_lng,
            (p.lat() - self.lat0) * self.per_lat,
        ]
    }
}

/// Metres from the origin to the segment `a`–`b`.
fn to_segment(a: [f64; 2], b: [f64; 2]) -> f64 {
    let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
    let length_2 = dx * dx + dy * dy;
    let t = if length_2 > 0.0 {
        (-(a[0] * dx + a[1] * dy) / length_2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    libm::hypot(a[0] + t * dx, a[1] + t * dy)
}

/// A node to visit, nearest first.
#[derive(PartialEq)]
struct Visit(f64, u32);

impl Eq for Visit {}

impl Ord for Visit {
    fn cmp(&self, other: &Self) -> Ordering {
        other.0.total_cmp(&self.0).then(other.1.cmp(&self.1))
    }
}

impl PartialOrd for Visit {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// The named street and the intersection nearest `point` on `graph` (see the
/// module documentation); both `None` on a network without names.
#[must_use]
pub fn reverse(graph: &RoadGraph, index: &RouteIndex, point: LatLng) -> Reverse {
    let mut found = Reverse::default();
    if graph.names.is_empty() {
        return found;
    }
    let Some((nearest, _)) = index.nearest_way(graph, point) else {
        return found;
    };
    let plane = Plane::around(point);
    let node_m = |node: u32| {
        let [x, y] = plane.project(graph.node(node));
        libm::hypot(x, y)
    };
    let mut queue = BinaryHeap::new();
    let mut seen: BTreeSet<u32> = BTreeSet::new();
    let mut ways_seen: BTreeSet<u32> = BTreeSet::new();
    for node in index.way_nodes(nearest as usize) {
        queue.push(Visit(node_m(node), node));
    }
    let mut visited = 0;
    while let Some(Visit(metres, node)) = queue.pop() {
        if !seen.insert(node) {
            continue;
        }
        visited += 1;
        let best = |d: Option<f64>| d.unwrap_or(MAX_DISTANCE_M);
        let bound = best(found.intersection.as_ref().map(|i| i.distance_m))
            .max(best(found.street.as_ref().map(|s| s.distance_m)));
        if visited > MAX_NODES || metres > bound + SEARCH_MARGIN_M {
            break;
        }
        let mut names: Vec<&str> = Vec::new();
        for edge in graph.out_edges(node) {
            let way = graph.edge_way(edge).0;
            let ends = index.way_nodes(way);
            if let Some(name) = graph.way_name(way) {
                if !names.contains(&name) {
                    names.push(name);
                }
                if ways_seen.insert(way as u32) {
                    let points: Vec<[f64; 2]> = graph
                        .way_points(way, ends)
                        .map(|p| plane.project(p))
                        .collect();
                    let distance = points
                        .windows(2)
                        .map(|s| to_segment(s[0], s[1]))
                        .fold(f64::INFINITY, f64::min);
                    if distance <= MAX_DISTANCE_M
                        && found
                            .street
                            .as_ref()
                            .is_none_or(|s| distance < s.distance_m)
                    {
                        found.street = Some(NamedStreet {
                            name: String::from(name),
                            distance_m: distance,
                        });
                    }
                }
            }
            let next = if ends[0] == node { ends[1] } else { ends[0] };
            if !seen.contains(&next) {
                queue.push(Visit(node_m(next), next));
            }
        }
        if names.len() >= 2
            && metres <= MAX_DISTANCE_M
            && found
                .intersection
                .as_ref()
                .is_none_or(|i| metres < i.distance_m)
        {
            crate::sorting::sort(&mut names);
            found.intersection = Some(Intersection {
                streets: names.into_iter().map(String::from).collect(),
                point: graph.node(node).to_lat_lng(),
                distance_m: metres,
            });
        }
    }
    found
}

#[cfg(test)]
pub(crate) mod tests;
