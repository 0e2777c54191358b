//! A route cut at its pieces' boundaries: each piece of a way as a leg with its
//! name, its stretch of the route's line, the bearings it starts and ends with, the
//! other ways leaving the junction it starts at, and its expected incidents.

use alloc::vec::Vec;

use h3o::LatLng;

use super::maneuver::bearing;
use crate::roads::RoadGraph;
use crate::routing::{Path, RouteIndex, RouteLine};
use crate::scoring::StreetRisk;

/// One piece of a route.
#[derive(Debug, Clone, PartialEq)]
pub struct Leg<'a> {
    /// Its way's name, if it has one.
    pub name: Option<&'a str>,
    /// The first and last index of its stretch of the route's line.
    pub points: [usize; 2],
    /// Metres of its stretch of the line.
    pub metres: f64,
    /// Bearing at its start and at its end, degrees from north.
    pub bearings: [f64; 2],
    /// Bearings of the other ways leaving the junction it starts at (not the way
    /// arrived on nor its own); empty for the first leg.
    pub others: Vec<f64>,
    /// Its expected incidents, where the ways carry risks of their own.
    pub incidents: Option<f64>,
}

/// The bearing of the line at `points[at]` looking forward, and at `points[end]`
/// looking back along the same stretch (0 for a stretch of one point).
fn stretch_bearings(points: &[LatLng], [start, end]: [usize; 2]) -> [f64; 2] {
    if end <= start {
        return [0.0, 0.0];
    }
    [
        bearing(points[start], points[start + 1]),
        bearing(points[end - 1], points[end]),
    ]
}

/// The bearing of `way` leaving `node` (one of its ends).
fn leaving(graph: &RoadGraph, index: &RouteIndex, way: usize, node: u32) -> Option<f64> {
    let ends = index.way_nodes(way);
    let mut points = graph.way_points(way, ends);
    let (first, second) = if ends[0] == node {
        (points.next()?, points.next()?)
    } else {
        let all: Vec<_> = points.collect();
        (*all.last()?, *all.get(all.len().checked_sub(2)?)?)
    };
    Some(bearing(first.to_lat_lng(), second.to_lat_lng()))
}

/// The legs of `path`, whose line is `line`; `risk` prices its ways.
#[must_use]
pub fn legs<'a>(
    graph: &'a RoadGraph,
    index: &RouteIndex,
    path: &Path,
    line: &RouteLine,
    risk: Option<&StreetRisk>,
) -> Vec<Leg<'a>> {
    let mut legs = Vec::with_capacity(path.pieces.len());
    let mut start = 0;
    for (k, piece) in path.pieces.iter().enumerate() {
        let end = line.piece_end.get(k).copied().unwrap_or(start).max(start);
        let way = piece.way as usize;
        let metres: f64 = line
            .segment_m
            .get(start..end)
            .map_or(0.0, |s| s.iter().sum());
        // The junction a piece starts at: the end of its way it enters from.
        let length = f64::from(graph.way_length_m[way]);
        let junction = match piece.from_m {
            m if k > 0 && m <= 0.0 => Some(index.way_nodes(way)[0]),
            m if k > 0 && m >= length => Some(index.way_nodes(way)[1]),
            _ => None,
        };
        let previous = k.checked_sub(1).map(|p| path.pieces[p].way as usize);
        let others = junction.map_or_else(Vec::new, |node| {
            graph
                .out_edges(node)
                .map(|edge| graph.edge_way(edge).0)
                .filter(|&w| w != way && Some(w) != previous)
                .filter_map(|w| leaving(graph, index, w, node))
                .collect()
        });
        let incidents =
            risk.map(|r| r.incidents(libm::fabs(piece.to_m - piece.from_m) * r.risk_of(way)));
        legs.push(Leg {
            name: graph.way_name(way),
            points: [start, end],
            metres,
            bearings: stretch_bearings(&line.points, [start, end]),
            others,
            incidents,
        });
        start = end;
    }
    legs
}

/// Farthest a line segment's middle may lie from a way to be taken as on it, in
/// metres (as a drawn line's exposure matches it: `plan::line_exposure`).
pub const LINE_MATCH_M: f64 = 15.0;

/// The legs of a line drawn by anyone (`points`, with `segment_m` the metres of each
/// segment): runs of segments whose middles lie on one way of `graph` within
/// [`LINE_MATCH_M`] (a run on no way is a leg without a name), each with its stretch,
/// bearings and, where consecutive ways meet at a node, the other ways leaving it.
#[must_use]
pub fn line_legs<'a>(
    graph: &'a RoadGraph,
    index: &RouteIndex,
    (points, segment_m): (&[LatLng], &[f64]),
    risk: Option<&StreetRisk>,
) -> Vec<Leg<'a>> {
    let way_of = |i: usize| {
        let (a, b) = (points[i], points[i + 1]);
        let middle = LatLng::new(
            f64::midpoint(a.lat(), b.lat()),
            f64::midpoint(a.lng(), b.lng()),
        )
        .unwrap_or(a);
        index
            .nearest_way(graph, middle)
            .filter(|&(_, metres)| metres <= LINE_MATCH_M)
            .map(|(way, _)| way as usize)
    };
    let segments = points.len().saturating_sub(1).min(segment_m.len());
    let mut legs: Vec<Leg<'a>> = Vec::new();
    let mut runs: Vec<(Option<usize>, usize, usize)> = Vec::new();
    for i in 0..segments {
        let way = way_of(i);
        match runs.last_mut() {
            Some((w, _, end)) if *w == way => *end = i + 1,
            _ => runs.push((way, i, i + 1)),
        }
    }
    for (k, &(way, start, end)) in runs.iter().enumerate() {
        let metres: f64 = segment_m[start..end].iter().sum();
        let previous = k.checked_sub(1).and_then(|p| runs[p].0);
        // The node two consecutive matched ways share, if they meet at one.
        let junction = way.zip(previous).and_then(|(w, p)| {
            let (a, b) = (index.way_nodes(w), index.way_nodes(p));
            a.into_iter().find(|n| b.contains(n))
        });
        let others = junction.map_or_else(Vec::new, |node| {
            graph
                .out_edges(node)
                .map(|edge| graph.edge_way(edge).0)
                .filter(|&w| Some(w) != way && Some(w) != previous)
                .filter_map(|w| leaving(graph, index, w, node))
                .collect()
        });
        let incidents = risk
            .zip(way)
            .map(|(r, w)| r.incidents(metres * r.risk_of(w)));
        legs.push(Leg {
            name: way.and_then(|w| graph.way_name(w)),
            points: [start, end],
            metres,
            bearings: stretch_bearings(points, [start, end]),
            others,
            incidents,
        });
    }
    legs
}
