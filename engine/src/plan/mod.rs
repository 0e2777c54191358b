//! Planning a route for a request in one city: snapping both ends, the search with
//! alternatives (or the safety–length trade-off set) over the city's network, and
//! each route's corridor evaluation, detour and explanation against the shortest
//! route. The algorithms are in [`crate::routing`]; this module ties them to a
//! city's model and scores.

use alloc::string::String;
use alloc::vec::Vec;

use h3o::LatLng;
use serde::Serialize;

use crate::city::CityModel;
use crate::corridor::{Evaluation, Metrics, TravelMode, evaluate_hex_path, evaluate_measured_line};
use crate::directions::{Directions, directions};
use crate::roads::NetworkKind;
use crate::routing::{
    CostModel, MAX_ALTERNATIVES, MAX_SNAP_DISTANCE_M, Path, RouteIndex, RouteLine, RouteMethod,
    Snap, TradeoffRoute, thin,
};
use crate::scoring::{CityScores, ScoringParams, StreetRisk};

mod avoided_streets;
pub mod departure;
mod explain;
mod line_exposure;
mod reach;

pub use avoided_streets::{AvoidedStreet, MAX_EXPLAINED_STREETS, avoided_streets};
pub use explain::{
    AvoidedCell, EQUAL_WITHIN, Explanation, MAX_EXPLAINED_CELLS, ShortestRoute, difference, explain,
};
pub use line_exposure::{LineExposure, MATCH_DISTANCE_M, MATCH_STEP_M, line_exposure};
pub use reach::{
    MAX_REACH_M, MAX_REACH_MINUTES, ReachAnswer, ReachError, ReachRequest, ReachedCell, reach,
};

/// What a route request optimises.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RouteObjective {
    /// One route, best for the method's cost.
    Method(RouteMethod),
    /// The safety–length trade-off set, shortest to safest
    /// ([`RouteIndex::tradeoff`], thinned by [`thin`]).
    Tradeoff,
}

impl RouteObjective {
    /// The name a request gives it (`safest`, …, `tradeoff`).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Method(method) => method.name(),
            Self::Tradeoff => "tradeoff",
        }
    }
}

/// A route request, validated.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RouteRequest {
    /// Where the route starts.
    pub origin: LatLng,
    /// Where it ends.
    pub destination: LatLng,
    /// One route by a method, or the trade-off set.
    pub objective: RouteObjective,
    /// Forecast week of the scores (for the classes behind avoided cells).
    pub week: usize,
    /// Scoring parameters of the scores (the same).
    pub params: ScoringParams,
    /// Alternatives wanted, 0 to [`MAX_ALTERNATIVES`] (none with the trade-off).
    pub alternatives: usize,
    /// Follow the city's network (`true`) or the hex grid itself (`false`: the
    /// answer has a corridor but no road geometry).
    pub snap_to_roads: bool,
    /// Travel mode for durations.
    pub mode: TravelMode,
}

/// Where a requested point was snapped to the network, and how far it moved.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
#[serde(deny_unknown_fields)]
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
    /// Cost in the request's cost model (`None` in a trade-off set, which has none).
    pub cost: Option<f64>,
    /// Corridor, tiers, metrics and segments of the line.
    pub evaluation: Evaluation,
    /// Metrics of `hexPath` scored as a hex path: exactly what evaluating the hex
    /// path on its own returns.
    pub corridor_metrics: Option<Metrics>,
    /// Against the shortest route between the same snapped points.
    pub explanation: Explanation,
    /// Named steps along the line (`None` when the request did not snap to roads).
    pub directions: Option<Directions>,
}

/// One route of a trade-off answer, in the set's order (shortest to safest).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TradeoffStep {
    /// Where the route is in the answer: `None` for `best` (the safest), else its
    /// index in `alternatives`.
    pub alternative: Option<usize>,
    /// Extra metres paid per expected incident avoided against the previous route of the
    /// set (`None` for the shortest, or when nothing is avoided).
    pub metres_per_exposure_avoided: Option<f64>,
}

/// How a trade-off set was found.
#[derive(Debug, Clone, PartialEq)]
pub struct TradeoffAnswer {
    /// The set, shortest to safest.
    pub steps: Vec<TradeoffStep>,
    /// Corners of the hull found before thinning.
    pub corners: usize,
    /// Searches run.
    pub searches: usize,
    /// `false` when the search budget ran out before every corner was found.
    pub complete: bool,
}

/// The answer to a route request.
#[derive(Debug, Clone, PartialEq)]
pub struct RouteAnswer {
    /// The network routed over.
    pub network: NetworkKind,
    /// Where the network came from.
    pub source: String,
    /// The method or the trade-off.
    pub objective: RouteObjective,
    /// The method's `α` (`None` for the trade-off, whose routes each have their own).
    pub alpha: Option<f64>,
    /// The snapped origin.
    pub origin: SnappedPoint,
    /// The snapped destination.
    pub destination: SnappedPoint,
    /// The best route: optimal for its cost.
    pub best: RouteOption,
    /// Genuinely different alternatives, best first; with the trade-off, the set's
    /// other routes, shortest first.
    pub alternatives: Vec<RouteOption>,
    /// With the trade-off: the set's order and how it was found.
    pub tradeoff: Option<TradeoffAnswer>,
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
    /// Alternatives asked for with the trade-off, whose set is its own alternatives.
    #[error("alternatives do not apply to method tradeoff: its set holds every route")]
    AlternativesWithTradeoff,
}

/// Finds the best route and alternatives (or the trade-off set) for a request in
/// one city, scored with `scores` (the request's intent, classes and week).
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
    if request.objective == RouteObjective::Tradeoff && request.alternatives > 0 {
        return Err(RouteError::AlternativesWithTradeoff);
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
    let street_risk = StreetRisk::of(model, scores, &network);
    let (routes, shortest, tradeoff) =
        find_routes(index, graph, (&street_risk, scores), (&from, &to), request)?;
    let planner = Planner {
        model,
        scores,
        request,
        index,
        graph,
        street_risk: &street_risk,
        shortest: &shortest,
    };
    let shortest_evaluation = planner.evaluate(&shortest);
    let mut options: Vec<RouteOption> = routes
        .iter()
        .map(|path| {
            let evaluation = planner.evaluate(path);
            planner.option(path, evaluation, &shortest_evaluation)
        })
        .collect();
    let (best, alternatives, tradeoff) = match tradeoff {
        None => {
            let alternatives = options.split_off(1);
            (options.remove(0), alternatives, None)
        }
        Some((corners, searches, complete)) => {
            for option in &mut options {
                option.cost = None;
            }
            let steps = tradeoff_steps(&options);
            let best = options.pop().ok_or(RouteError::Unreachable)?;
            let answer = TradeoffAnswer {
                steps,
                corners,
                searches,
                complete,
            };
            (best, options, Some(answer))
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
        objective: request.objective,
        alpha: match request.objective {
            RouteObjective::Method(method) => Some(method.alpha()),
            RouteObjective::Tradeoff => None,
        },
        origin: snapped(&from),
        destination: snapped(&to),
        best,
        alternatives,
        tradeoff,
    })
}

/// The routes of a request, best first for a method and shortest first for the
/// trade-off (with the hull's corner count, searches and completeness), and the
/// shortest route.
#[allow(clippy::type_complexity)]
fn find_routes(
    index: &RouteIndex,
    graph: &crate::roads::RoadGraph,
    (street_risk, scores): (&StreetRisk, &CityScores),
    (from, to): (&Snap, &Snap),
    request: &RouteRequest,
) -> Result<(Vec<Path>, Path, Option<(usize, usize, bool)>), RouteError> {
    Ok(match request.objective {
        RouteObjective::Method(method) => {
            let costs = street_risk.cost_model(scores, method.alpha());
            let (best, alternatives) = index
                .search_with_alternatives(graph, &costs, from, to, request.alternatives)
                .ok_or(RouteError::Unreachable)?;
            let shortest = if method.alpha() > 0.0 {
                index
                    .search(graph, &CostModel::lengths(), from, to)
                    .unwrap_or_else(|| best.clone())
            } else {
                best.clone()
            };
            let routes: Vec<Path> = core::iter::once(best).chain(alternatives).collect();
            (routes, shortest, None)
        }
        RouteObjective::Tradeoff => {
            let set = index
                .tradeoff(graph, street_risk.risks(), from, to)
                .ok_or(RouteError::Unreachable)?;
            let kept = thin(&set.routes);
            let shortest = kept
                .first()
                .map(|r| r.path.clone())
                .ok_or(RouteError::Unreachable)?;
            let summary = (set.routes.len(), set.searches, set.complete);
            let routes = kept.into_iter().map(|r: TradeoffRoute| r.path).collect();
            (routes, shortest, Some(summary))
        }
    })
}

/// The set's steps from its options in order, shortest first (the last is `best`).
fn tradeoff_steps(options: &[RouteOption]) -> Vec<TradeoffStep> {
    let last = options.len().saturating_sub(1);
    options
        .iter()
        .enumerate()
        .map(|(i, option)| {
            let metres_per_exposure_avoided = i.checked_sub(1).and_then(|previous| {
                let (before, now) = (
                    &options[previous].evaluation.metrics,
                    &option.evaluation.metrics,
                );
                let avoided = difference(now.exposure, before.exposure);
                (avoided > 0.0).then(|| difference(before.distance_m, now.distance_m) / avoided)
            });
            TradeoffStep {
                alternative: (i < last).then_some(i),
                metres_per_exposure_avoided,
            }
        })
        .collect()
}

/// What evaluating a request's routes needs.
struct Planner<'a> {
    model: &'a CityModel,
    scores: &'a CityScores,
    request: &'a RouteRequest,
    index: &'a RouteIndex,
    graph: &'a crate::roads::RoadGraph,
    street_risk: &'a StreetRisk,
    shortest: &'a Path,
}

impl Planner<'_> {
    fn evaluate(&self, path: &Path) -> (RouteLine, Evaluation) {
        let line = self.index.line(self.graph, path);
        let mut evaluation = evaluate_measured_line(
            self.model,
            self.scores,
            &line.points,
            &line.segment_m,
            self.request.mode,
        );
        // Streets, and lattice ways with shares, carry their own risk; the grid's
        // lattice has only its cells', so its routes keep the corridor's exact
        // cell-level exposure, as its lines do.
        if has_own_risk(self.graph, self.street_risk) {
            evaluation.metrics.exposure = path_exposure(self.street_risk, path);
        }
        // Detours compare network lengths of the pieces, so the shortest route's own
        // detour is exactly zero.
        let shortest_m = self.shortest.length_m();
        evaluation.metrics.detour_pct = Some(if shortest_m > 0.0 {
            100.0 * (path.length_m() - shortest_m) / shortest_m
        } else {
            0.0
        });
        (line, evaluation)
    }

    fn option(
        &self,
        path: &Path,
        (line, evaluation): (RouteLine, Evaluation),
        shortest: &(RouteLine, Evaluation),
    ) -> RouteOption {
        let corridor_metrics = evaluate_hex_path(
            self.model,
            self.scores,
            &evaluation.hex_path,
            self.request.mode,
        )
        .ok()
        .map(|e| e.metrics);
        let mut explanation = explain(
            self.model,
            self.request.week,
            &self.request.params,
            &evaluation,
            &shortest.1,
        );
        if self.graph.kind == NetworkKind::Roads {
            let mut ways: Vec<u32> = path.pieces.iter().map(|p| p.way).collect();
            ways.sort_unstable();
            explanation.avoided_streets =
                avoided_streets(self.graph, self.street_risk, self.shortest, |way| {
                    ways.binary_search(&way).is_ok()
                });
        }
        let own_risk = has_own_risk(self.graph, self.street_risk).then_some(self.street_risk);
        let directions = self.request.snap_to_roads.then(|| {
            directions(
                self.graph,
                self.index,
                (path, &line),
                own_risk,
                self.request.mode,
            )
        });
        RouteOption {
            geometry: self.request.snap_to_roads.then_some(line.points),
            cost: Some(path.cost),
            evaluation,
            corridor_metrics,
            explanation,
            directions,
        }
    }
}

/// Whether a network's ways carry risks of their own (streets, or a lattice with
/// learnt shares), so that a path's exposure is counted on its ways
/// ([`path_exposure`]) rather than on the cells its line crosses.
fn has_own_risk(graph: &crate::roads::RoadGraph, street_risk: &StreetRisk) -> bool {
    graph.kind == NetworkKind::Roads || street_risk.by_shares()
}

/// Expected incidents passed along a path: each piece's metres times its way's risk,
/// in the city's incidents per metre.
fn path_exposure(street_risk: &StreetRisk, path: &Path) -> f64 {
    let risk_metres: f64 = path
        .pieces
        .iter()
        .map(|piece| {
            libm::fabs(piece.to_m - piece.from_m) * street_risk.risk_of(piece.way as usize)
        })
        .sum();
    street_risk.incidents(risk_metres)
}

/// The shortest route on a city's road network between two points, evaluated with
/// `scores`.
#[derive(Debug, Clone, PartialEq)]
pub struct ShortestRoad {
    /// Its network length, metres.
    pub length_m: f64,
    /// Its evaluation (its exposure from its streets).
    pub evaluation: Evaluation,
    /// The stretches of it on ways the compared line does not take.
    pub avoided_streets: Vec<AvoidedStreet>,
}

/// The shortest route on a city's road network between two points, with the streets
/// of it on ways `taken` says the compared line does not use; `None` when either
/// point is too far from the network or no route joins them.
#[must_use]
pub fn shortest_route(
    model: &CityModel,
    scores: &CityScores,
    (from, to): (LatLng, LatLng),
    mode: TravelMode,
    taken: impl Fn(u32) -> bool,
) -> Option<ShortestRoad> {
    let network = model.road_network()?;
    let (graph, index) = (network.graph, network.index);
    let (from, to) = (index.snap(graph, from).ok()?, index.snap(graph, to).ok()?);
    let path = index.search(graph, &CostModel::lengths(), &from, &to)?;
    let line = index.line(graph, &path);
    let street_risk = StreetRisk::of(model, scores, &network);
    let mut evaluation = evaluate_measured_line(model, scores, &line.points, &line.segment_m, mode);
    if has_own_risk(graph, &street_risk) {
        evaluation.metrics.exposure = path_exposure(&street_risk, &path);
    }
    let avoided_streets = if graph.kind == NetworkKind::Roads {
        avoided_streets(graph, &street_risk, &path, taken)
    } else {
        Vec::new()
    };
    Some(ShortestRoad {
        length_m: path.length_m(),
        evaluation,
        avoided_streets,
    })
}
