//! Moving a point onto the nearest way: a local planar frame and a segment R-tree.

use h3o::LatLng;
use rstar::primitives::{GeomWithData, Line};

use super::MAX_SNAP_DISTANCE_M;
use super::index::RouteIndex;
use crate::roads::RoadGraph;

/// A point moved onto the network.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Snap {
    /// The way it lies on.
    pub way: u32,
    /// Metres from the way's start.
    pub offset_m: f64,
    /// The point on the way.
    pub point: LatLng,
    /// Metres from the requested point.
    pub distance_m: f64,
}

/// A local planar frame in metres, for nearest-segment queries.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct LocalFrame {
    lat0: f64,
    lng0: f64,
    kx: f64,
    ky: f64,
}

impl LocalFrame {
    pub(super) fn new(graph: &RoadGraph) -> Self {
        let (mut lat, mut lng) = (0.0, 0.0);
        for node in &graph.nodes {
            lng += node.lng();
            lat += node.lat();
        }
        let n = graph.nodes.len().max(1) as f64;
        let (lat0, lng0) = (lat / n, lng / n);
        Self {
            lat0,
            lng0,
            kx: 111_320.0 * libm::cos(lat0.to_radians()),
            ky: 110_574.0,
        }
    }

    pub(super) fn project(&self, lat: f64, lng: f64) -> [f64; 2] {
        [(lng - self.lng0) * self.kx, (lat - self.lat0) * self.ky]
    }
}

/// A segment of a way in the local frame, with its way and its index along the way.
pub(super) type Segment = GeomWithData<Line<[f64; 2]>, (u32, u32)>;

impl RouteIndex {
    /// Moves a point onto the nearest way.
    ///
    /// # Errors
    /// The distance to the nearest way, in metres, when it exceeds
    /// [`MAX_SNAP_DISTANCE_M`] (infinite for an empty network).
    pub fn snap(&self, graph: &RoadGraph, point: LatLng) -> Result<Snap, f64> {
        let query = self.frame.project(point.lat(), point.lng());
        let Some(nearest) = self.segments.nearest_neighbor(&query) else {
            return Err(f64::INFINITY);
        };
        let (way, segment) = nearest.data;
        let points = graph.way_polyline(way as usize, self.way_nodes[way as usize]);
        let (start_xy, end_xy) = (nearest.geom().from, nearest.geom().to);
        let (dx, dy) = (end_xy[0] - start_xy[0], end_xy[1] - start_xy[1]);
        let span = dx * dx + dy * dy;
        let along = if span > 0.0 {
            (((query[0] - start_xy[0]) * dx + (query[1] - start_xy[1]) * dy) / span).clamp(0.0, 1.0)
        } else {
            0.0
        };
        let (p, q) = (points[segment as usize], points[segment as usize + 1]);
        let on_way = LatLng::new(
            p.lat() + (q.lat() - p.lat()) * along,
            p.lng() + (q.lng() - p.lng()) * along,
        )
        .unwrap_or(p);
        let distance = point.distance_m(on_way);
        if distance > MAX_SNAP_DISTANCE_M {
            return Err(distance);
        }
        let before: f64 = points[..=segment as usize]
            .windows(2)
            .map(|w| w[0].distance_m(w[1]))
            .sum();
        let length = f64::from(graph.way_length_m[way as usize]);
        let offset = (before + along * p.distance_m(q)).clamp(0.0, length);
        Ok(Snap {
            way,
            offset_m: offset,
            point: on_way,
            distance_m: distance,
        })
    }
}
