//! The exposure of a line drawn by anyone (another router's route, a GPS trace):
//! matched to the city's ways piece by piece, so that a line along them has the
//! exposure of the route over them.
//!
//! The line is cut into pieces of at most [`MATCH_STEP_M`]. On streets, a piece
//! whose middle is within [`MATCH_DISTANCE_M`] of a way counts that way's expected
//! incidents per metre ([`StreetRisk`]); any other piece counts its cell's
//! ([`CityScores::density_or_mean`]). On a hex lattice with learnt shares (a city
//! without road data), a way's risk stands for the incidents nearest it (as the
//! build attributed them), so every piece counts its nearest way's. A route of this
//! engine lies on its ways, so its line matches them exactly but for a piece across
//! a junction, where the nearest way may be the crossing street.
//!
//! A lattice without shares (the grid network of `snapToRoads: false`) has nothing
//! finer than its cells: its lines keep the corridor's exact cell-level exposure.

use alloc::vec::Vec;

use h3o::LatLng;

use crate::city::CityModel;
use crate::grid::RESOLUTION;
use crate::roads::NetworkKind;
use crate::scoring::{CityScores, StreetRisk};

/// Longest piece of a line matched to one way, in metres.
pub const MATCH_STEP_M: f64 = 20.0;

/// Farthest a piece's middle may lie from a way to be counted on it, in metres: GPS
/// error and the offset between two maps' centre lines.
pub const MATCH_DISTANCE_M: f64 = 15.0;

/// A line's exposure and the ways it was matched to.
#[derive(Debug, Clone, PartialEq)]
pub struct LineExposure {
    /// Expected incidents passed.
    pub incidents: f64,
    /// The ways some piece of the line was counted on, sorted, each once.
    pub ways: Vec<u32>,
}

impl LineExposure {
    /// Whether some piece of the line was counted on `way`.
    #[must_use]
    pub fn takes(&self, way: u32) -> bool {
        self.ways.binary_search(&way).is_ok()
    }
}

/// The expected incidents passed along `points` under `scores` (see the module
/// documentation), or `None` for a city with nothing finer than its cells (no
/// network, or a hex lattice without shares): the corridor's exact cell crossing
/// counts its line.
#[must_use]
pub fn line_exposure(
    model: &CityModel,
    scores: &CityScores,
    points: &[LatLng],
) -> Option<LineExposure> {
    let network = model.road_network()?;
    let risk = StreetRisk::of(model, scores, &network);
    let match_distance = match network.graph.kind {
        NetworkKind::Roads => MATCH_DISTANCE_M,
        NetworkKind::HexLattice if risk.by_shares() => f64::INFINITY,
        NetworkKind::HexLattice => return None,
    };
    let mut ways: Vec<u32> = Vec::new();
    let mut density_at = |point: LatLng| {
        network
            .index
            .nearest_way(network.graph, point)
            .filter(|&(_, distance)| distance <= match_distance)
            .map_or_else(
                || scores.density_or_mean(model.position(point.to_cell(RESOLUTION))),
                |(way, _)| {
                    ways.push(way);
                    risk.per_km(way as usize) / 1000.0
                },
            )
    };
    let mut exposure = 0.0;
    for pair in points.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        let metres = a.distance_m(b);
        let pieces = libm::ceil(metres / MATCH_STEP_M).max(1.0);
        let piece_m = metres / pieces;
        for i in 0..pieces as usize {
            let t = (i as f64 + 0.5) / pieces;
            let middle = LatLng::new(
                a.lat() + (b.lat() - a.lat()) * t,
                a.lng() + (b.lng() - a.lng()) * t,
            )
            .unwrap_or(a);
            exposure += piece_m * density_at(middle);
        }
    }
    ways.sort_unstable();
    ways.dedup();
    Some(LineExposure {
        incidents: exposure,
        ways,
    })
}
