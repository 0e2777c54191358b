//! What snapping works with: the local planar frame of a network and a point moved
//! onto a way.

use h3o::LatLng;

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
