//! A route through the network as pieces of ways, and its geometry.

use alloc::vec::Vec;

use h3o::LatLng;

use super::cost::CostModel;
use super::index::RouteIndex;
use crate::grid::{MicroDegrees, distance_m};
use crate::roads::RoadGraph;

/// Part of a way travelled by a route, between two offsets (metres from the way's
/// start; `from_m > to_m` when travelled backwards).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Piece {
    /// The way.
    pub way: u32,
    /// Where the route enters the way.
    pub from_m: f64,
    /// Where the route leaves the way.
    pub to_m: f64,
}

impl Piece {
    /// The whole way of a road edge, in the edge's direction.
    pub(super) fn of_edge(graph: &RoadGraph, edge: usize) -> Self {
        let (way, against) = graph.edge_way(edge);
        let length = f64::from(graph.way_length_m[way]);
        Self {
            way: way as u32,
            from_m: if against { length } else { 0.0 },
            to_m: if against { 0.0 } else { length },
        }
    }

    fn metres(&self) -> f64 {
        libm::fabs(self.to_m - self.from_m)
    }
}

/// A route through the network.
#[derive(Debug, Clone, PartialEq)]
pub struct Path {
    /// Its cost in the request's cost model (without alternative penalties).
    pub cost: f64,
    /// The ways it travels, in order.
    pub pieces: Vec<Piece>,
}

impl Path {
    /// A path of `pieces`, priced piece by piece in `costs` (the same sum however it
    /// was found).
    pub(super) fn priced(costs: &CostModel, pieces: Vec<Piece>) -> Self {
        let cost = pieces
            .iter()
            .map(|p| costs.way_cost_between(p.way as usize, p.from_m, p.to_m))
            .sum();
        Self { cost, pieces }
    }

    /// Length in metres.
    #[must_use]
    pub fn length_m(&self) -> f64 {
        self.pieces.iter().map(Piece::metres).sum()
    }

    /// Metres of `self` that run along `other`.
    #[must_use]
    pub fn shared_m(&self, other: &Self) -> f64 {
        let mut shared = 0.0;
        for a in &self.pieces {
            for b in other.pieces.iter().filter(|b| b.way == a.way) {
                let lo = a.from_m.min(a.to_m).max(b.from_m.min(b.to_m));
                let hi = a.from_m.max(a.to_m).min(b.from_m.max(b.to_m));
                shared += (hi - lo).max(0.0);
            }
        }
        shared
    }
}

/// A route's line: its points, and the great-circle metres of each segment.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RouteLine {
    /// From the snapped origin to the snapped destination.
    pub points: Vec<LatLng>,
    /// `segment_m[i]`: metres from `points[i]` to `points[i + 1]`, as
    /// [`distance_m`] gives them (taken from the index where a segment is a way's own).
    pub segment_m: Vec<f64>,
    /// `piece_end[k]`: the index in `points` where the path's `k`th piece ends (the
    /// next piece starts there).
    pub piece_end: Vec<usize>,
}

impl RouteIndex {
    /// The geometry of a path, from the snapped origin to the snapped destination.
    #[must_use]
    pub fn geometry(&self, graph: &RoadGraph, path: &Path) -> Vec<LatLng> {
        self.line(graph, path).points
    }

    /// The geometry of a path with its segments' lengths.
    #[must_use]
    pub fn line(&self, graph: &RoadGraph, path: &Path) -> RouteLine {
        let mut line = RouteLine::default();
        // One set of buffers for every piece: a route has a hundred pieces or more.
        let (mut points, mut slice, mut slice_m) = (Vec::new(), Vec::new(), Vec::new());
        for piece in &path.pieces {
            let way = piece.way as usize;
            points.clear();
            points.extend(
                graph
                    .way_points(way, self.way_nodes[way])
                    .map(MicroDegrees::to_lat_lng),
            );
            let lengths = self.way_segment_m(graph, way);
            // Offsets count the way's stored length (`f32`), a hair off the sum of its
            // segments (`f64`): an offset at or past it is the way's end node itself.
            let stored = f64::from(graph.way_length_m[way]);
            let end_of = |m: f64| {
                if m > 0.0 && m >= stored {
                    f64::INFINITY
                } else {
                    m
                }
            };
            let offsets = (end_of(piece.from_m), end_of(piece.to_m));
            slice_polyline(&points, lengths, offsets, &mut slice, &mut slice_m);
            for (k, &point) in slice.iter().enumerate() {
                let Some(&last) = line.points.last() else {
                    line.points.push(point);
                    continue;
                };
                if last == point {
                    continue;
                }
                // Pieces meet at a node, so a gap between them is a rounding remnant.
                let metres = if k > 0 && slice[k - 1] == last {
                    slice_m[k - 1]
                } else {
                    distance_m(last, point)
                };
                line.points.push(point);
                line.segment_m.push(metres);
            }
            line.piece_end.push(line.points.len().saturating_sub(1));
        }
        line
    }
}

/// The part of a polyline between two distances from its start, in travel order,
/// into `out` (cleared first), and each of its segments' metres into `out_m`;
/// `lengths` are the polyline's segments' metres. Vertices inside the part are the
/// polyline's own points; only its two cut ends are interpolated.
fn slice_polyline(
    points: &[LatLng],
    lengths: &[f64],
    (from_m, to_m): (f64, f64),
    out: &mut Vec<LatLng>,
    out_m: &mut Vec<f64>,
) {
    let (lo, hi) = if from_m <= to_m {
        (from_m, to_m)
    } else {
        (to_m, from_m)
    };
    out.clear();
    out_m.clear();
    if lo <= 0.0 && hi == f64::INFINITY {
        // The whole polyline, as the loop below would take it, without its offsets.
        out.extend(points.first());
        for (&q, &length) in points.iter().skip(1).zip(lengths) {
            if out.last() != Some(&q) {
                out.push(q);
                out_m.push(length);
            }
        }
        if from_m > to_m {
            out.reverse();
            out_m.reverse();
        }
        return;
    }
    let mut walked = 0.0;
    let interpolate = |p: LatLng, q: LatLng, t: f64| {
        LatLng::new(
            p.lat() + (q.lat() - p.lat()) * t,
            p.lng() + (q.lng() - p.lng()) * t,
        )
        .unwrap_or(p)
    };
    for (pair, &length) in points.windows(2).zip(lengths) {
        // Nothing past `hi` is taken.
        if walked > hi {
            break;
        }
        let (p, q) = (pair[0], pair[1]);
        let (start, end) = (walked, walked + length);
        if end >= lo && start <= hi {
            let at = |m: f64| {
                if m <= start {
                    p
                } else if m >= end {
                    q
                } else {
                    interpolate(p, q, (m - start) / length)
                }
            };
            if out.is_empty() {
                out.push(at(lo));
            }
            let (first, last) = (out[out.len() - 1], at(hi));
            if first != last {
                // A whole segment has its length already.
                out_m.push(if first == p && last == q {
                    length
                } else {
                    distance_m(first, last)
                });
                out.push(last);
            }
        }
        walked = end;
    }
    if out.is_empty() {
        // Offsets past the end (rounding): the nearest end point.
        out.push(if lo <= 0.0 {
            points[0]
        } else {
            points[points.len() - 1]
        });
    }
    if from_m > to_m {
        out.reverse();
        out_m.reverse();
    }
}
