//! Planning a route for a request in one city: snapping both ends, the search with
//! alternatives over the city's network, and each route's corridor evaluation and
//! detour against the shortest route. The algorithms are in [`crate::routing`]; this
//! module ties them to a city's model and scores.

use alloc::string::String;
use alloc::vec::Vec;

use h3o::LatLng;
use serde::Serialize;

use crate::city::CityModel;
use crate::corridor::{Evaluation, Metrics, TravelMode, evaluate_hex_path, evaluate_line};
use crate::roads::NetworkKind;
use crate::routing::{CostModel, MAX_ALTERNATIVES, MAX_SNAP_DISTANCE_M, Path, RouteMethod, Snap};
use crate::scoring::CityScores;

pub mod departure;

/// A route request, validated.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RouteRequest {
    /// Where the route starts.
    pub origin: LatLng,
    /// Where it ends.
    pub destination: LatLng,
    /// How strongly to avoid risk.
    pub method: RouteMethod,
    /// Alternatives wanted, 0 to [`MAX_ALTERNATIVES`].
    pub alternatives: usize,
    /// Follow the city's network (`true`) or the hex grid itself (`false`: the
    /// answer has a corridor but no road geometry).
    pub snap_to_roads: bool,
    /// Travel mode for durations.
    pub mode: TravelMode,
}

/// A point as requested and where it was snapped.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SnappedPoint {
    /// Latitude on the network.
    pub lat: f64,
    /// Longitude on the network.
    pub lng: f64,
    /// Metres from the requested point.
    pub distance_m: f64,
}

/// One route of an answer.
#[derive(Debug, Clone, PartialEq)]
pub struct RouteOption {
    /// The line to draw (`None` when the request did not snap to roads).
    pub geometry: Option<Vec<LatLng>>,
    /// Cost in the request's cost model.
    pub cost: f64,
    /// Corridor, tiers, metrics and segments of the line.
    pub evaluation: Evaluation,
    /// Metrics of `hexPath` scored as a hex path: exactly what evaluating the hex
    /// path on its own returns.
    pub corridor_metrics: Option<Metrics>,
}

/// The answer to a route request.
#[derive(Debug, Clone, PartialEq)]
pub struct RouteAnswer {
    /// The network routed over.
    pub network: NetworkKind,
    /// Where the network came from.
    pub source: String,
    /// The method.
    pub method: RouteMethod,
    /// Its `α`.
    pub alpha: f64,
    /// The snapped origin.
    pub origin: SnappedPoint,
    /// The snapped destination.
    pub destination: SnappedPoint,
    /// The best route: optimal for its cost.
    pub best: RouteOption,
    /// Genuinely different alternatives, best first.
    pub alternatives: Vec<RouteOption>,
}

/// A route request that cannot be answered.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
pub enum RouteError {
    /// The origin is too far from the network.
    #[error("origin is {0:.0} m from the nearest way; the limit is {limit} m", limit = MAX_SNAP_DISTANCE_M)]
    OriginTooFar(f64),
    /// The destination is too far from the network.
    #[error("destination is {0:.0} m from the nearest way; the limit is {limit} m", limit = MAX_SNAP_DISTANCE_M)]
    DestinationTooFar(f64),
    /// More alternatives than [`MAX_ALTERNATIVES`].
    #[error("alternatives must be between 0 and {max}, got {0}", max = MAX_ALTERNATIVES)]
    TooManyAlternatives(usize),
    /// The city has no network to route on.
    #[error("this city has no routing network")]
    NoNetwork,
    /// No path joins the two points.
    #[error("no route joins origin and destination")]
    Unreachable,
}

/// Finds the best route and alternatives for a request in one city, scored with
/// `scores` (the request's intent, classes and week).
///
/// # Errors
/// [`RouteError`] when a point cannot be snapped or the request is out of range.
pub fn route(
    model: &CityModel,
    scores: &CityScores,
    request: &RouteRequest,
) -> Result<RouteAnswer, RouteError> {
    if request.alternatives > MAX_ALTERNATIVES {
        return Err(RouteError::TooManyAlternatives(request.alternatives));
    }
    let network = if request.snap_to_roads {
        model.road_network().ok_or(RouteError::NoNetwork)?
    } else {
        model.grid_network()
    };
    let (graph, index) = (network.graph, network.index);
    let from = index
        .snap(graph, request.origin)
        .map_err(RouteError::OriginTooFar)?;
    let to = index
        .snap(graph, request.destination)
        .map_err(RouteError::DestinationTooFar)?;
    let alpha = request.method.alpha();
    let costs = CostModel::from_safety((0..model.cell_count()).map(|p| scores.safety(p)), alpha);
    let (best, alternatives) = index
        .search_with_alternatives(graph, &costs, &from, &to, request.alternatives)
        .ok_or(RouteError::Unreachable)?;
    // Detours compare network lengths of the pieces, so the shortest route's own
    // detour is exactly zero.
    let shortest_m = if alpha > 0.0 {
        index
            .search(graph, &CostModel::from_risks(&[], 0.0), None, &from, &to)
            .map_or(best.length_m(), |p| p.length_m())
    } else {
        best.length_m()
    };
    let option = |path: &Path| {
        let line = index.geometry(graph, path);
        let mut evaluation = evaluate_line(model, scores, &line, request.mode);
        evaluation.metrics.detour_pct = Some(if shortest_m > 0.0 {
            100.0 * (path.length_m() - shortest_m) / shortest_m
        } else {
            0.0
        });
        let corridor_metrics = evaluate_hex_path(model, scores, &evaluation.hex_path, request.mode)
            .ok()
            .map(|e| e.metrics);
        RouteOption {
            geometry: request.snap_to_roads.then_some(line),
            cost: path.cost,
            evaluation,
            corridor_metrics,
        }
    };
    let snapped = |snap: &Snap| SnappedPoint {
        lat: snap.point.lat(),
        lng: snap.point.lng(),
        distance_m: snap.distance_m,
    };
    Ok(RouteAnswer {
        network: graph.kind,
        source: graph.source.clone(),
        method: request.method,
        alpha,
        origin: snapped(&from),
        destination: snapped(&to),
        best: option(&best),
        alternatives: alternatives.iter().map(option).collect(),
    })
}

/// Length in metres of the shortest route on a city's network between two points,
/// or `None` when either is too far from the network.
#[must_use]
pub fn shortest_length_m(model: &CityModel, from: LatLng, to: LatLng) -> Option<f64> {
    let network = model.road_network()?;
    let (graph, index) = (network.graph, network.index);
    let (from, to) = (index.snap(graph, from).ok()?, index.snap(graph, to).ok()?);
    index
        .search(graph, &CostModel::from_risks(&[], 0.0), None, &from, &to)
        .map(|p| p.length_m())
}
