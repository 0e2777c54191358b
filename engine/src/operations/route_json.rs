//! The router API's route operations on JSON (`GET /route/config`, `POST /route`,
//! `/evaluate`, `/evaluate-hex-path`), and the JSON form of route answers: GeoJSON
//! lines, cell ids as text, and the members of `POST /route`'s answer in the
//! router API's order.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use h3o::LatLng;
use serde::Serialize;
use serde_json::{Map, Value};

use super::json::parse;
use super::route_request::{self, EvaluationResponse, MAX_LINE_POSITIONS, RouteResponse};
use super::wire::LineStringType;
use super::{QueryError, Success};
use crate::city::Atlas;
use crate::corridor::{Evaluation, MAX_HEX_PATH_CELLS, Metrics, TravelMode};
use crate::directions::Step;
use crate::plan::{
    Explanation, RouteAnswer, RouteObjective, RouteOption, SnappedPoint, TradeoffAnswer,
};
use crate::routing::{
    MAX_ALTERNATIVES, MAX_SNAP_DISTANCE_M, OUTSIDE_COVERAGE_RISK, RouteMethod, TRADEOFF_MAX_ROUTES,
    TRADEOFF_MAX_STRETCH, TRADEOFF_MIN_DIFFERENCE,
};
use crate::scoring::{ColourIndex, Intent, PALETTE};

/// One route of an answer as the router API writes it: the line, the corridor and
/// its figures, the explanation and the steps.
#[derive(Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(inline))]
#[serde(rename_all = "camelCase")]
#[serde(deny_unknown_fields)]
struct RouteOptionJson<'a> {
    /// The line to draw; null when the request did not snap to roads.
    geometry: Option<LineString<'a>>,
    /// cost in the method's model; null in a trade-off set
    cost: Option<f64>,
    /// The corridor: its cells, tiers, metrics and segments.
    #[serde(flatten)]
    evaluation: &'a Evaluation,
    /// The corridor's cells scored as a hex path: exactly what evaluating the hex path
    /// on its own answers; null when the route has no line.
    corridor_metrics: Option<Metrics>,
    /// The route against the shortest route between the same points.
    explanation: &'a Explanation,
    /// Named steps along the geometry (empty without it): depart, the maneuvers, arrive
    steps: &'a [Step],
    /// index in steps of the step with the most expected incidents, where the ways carry risks of their own
    riskiest_step: Option<usize>,
}

impl<'a> RouteOptionJson<'a> {
    fn of(option: &'a RouteOption) -> Self {
        let (steps, riskiest_step) = option
            .directions
            .as_ref()
            .map_or((&[][..], None), |d| (d.steps.as_slice(), d.riskiest_step));
        Self {
            geometry: option.geometry.as_deref().map(LineString),
            cost: option.cost,
            evaluation: &option.evaluation,
            corridor_metrics: option.corridor_metrics,
            explanation: &option.explanation,
            steps,
            riskiest_step,
        }
    }
}

impl Serialize for RouteOption {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        RouteOptionJson::of(self).serialize(serializer)
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for RouteOption {
    fn schema_name() -> alloc::borrow::Cow<'static, str> {
        "RouteOption".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        RouteOptionJson::json_schema(generator)
    }
}

/// Serialises points as a GeoJSON `LineString` (`[lng, lat]`, RFC 7946).
pub struct LineString<'a>(pub &'a [LatLng]);

/// A GeoJSON `LineString` as answers write it.
#[derive(Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(inline))]
#[serde(deny_unknown_fields)]
struct LineStringJson {
    /// `LineString`.
    #[serde(rename = "type")]
    kind: LineStringType,
    /// `[lng, lat]` positions.
    coordinates: Vec<[f64; 2]>,
}

impl Serialize for LineString<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        LineStringJson {
            kind: LineStringType,
            coordinates: self.0.iter().map(|p| [p.lng(), p.lat()]).collect(),
        }
        .serialize(serializer)
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for LineString<'_> {
    fn schema_name() -> alloc::borrow::Cow<'static, str> {
        "LineString".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        LineStringJson::json_schema(generator)
    }
}

/// Cells written as their ids.
struct CellIds<'a>(&'a [h3o::CellIndex]);

impl Serialize for CellIds<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        crate::corridor::cell_ids(self.0, serializer)
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for CellIds<'_> {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> alloc::borrow::Cow<'static, str> {
        "CellIds".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        <Vec<super::wire::CellId>>::json_schema(generator)
    }
}

/// The routes of a route answer as the router API writes them.
#[derive(Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(inline))]
#[serde(rename_all = "camelCase")]
#[serde(deny_unknown_fields)]
struct RouteAnswerJson<'a> {
    /// The network routed over: the city's roads, or a lattice over its cells.
    #[cfg_attr(feature = "schema", schemars(with = "super::wire::NetworkName"))]
    network: &'static str,
    /// Where the network came from.
    source: &'a str,
    /// The method, or `tradeoff`.
    #[cfg_attr(feature = "schema", schemars(with = "super::wire::RouteMethodName"))]
    method: &'static str,
    /// null for tradeoff
    alpha: Option<f64>,
    /// The origin snapped to the network.
    origin: &'a SnappedPoint,
    /// The destination snapped to the network.
    destination: &'a SnappedPoint,
    /// The best route for the method; with the trade-off, the safest.
    best: &'a RouteOption,
    /// The best route's cells.
    hex_path: CellIds<'a>,
    /// Genuinely different alternatives, best first; with the trade-off, the set's
    /// other routes, shortest first.
    #[cfg_attr(feature = "schema", schemars(length(max = TRADEOFF_MAX_ROUTES - 1)))]
    alternatives: &'a [RouteOption],
    /// with method tradeoff: the set shortest to safest (docs/ROUTING.md)
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(with = "TradeoffJson"))]
    tradeoff: Option<TradeoffJson>,
}

impl Serialize for RouteAnswer {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // The specification's route table names `best.geometry` before `hexPath`.
        RouteAnswerJson {
            network: self.network.name(),
            source: &self.source,
            method: self.objective.name(),
            alpha: self.alpha,
            origin: &self.origin,
            destination: &self.destination,
            best: &self.best,
            hex_path: CellIds(&self.best.evaluation.hex_path),
            alternatives: &self.alternatives,
            tradeoff: self.tradeoff.as_ref().map(|t| TradeoffJson::of(self, t)),
        }
        .serialize(serializer)
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for RouteAnswer {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> alloc::borrow::Cow<'static, str> {
        "RouteAnswer".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        RouteAnswerJson::json_schema(generator)
    }
}

/// `tradeoff` of a route answer: the set's routes shortest to safest, each named by
/// a JSON pointer (RFC 6901) into the answer, with its figures.
#[derive(Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(inline))]
#[serde(deny_unknown_fields)]
struct TradeoffJson {
    /// The set, shortest to safest.
    #[cfg_attr(feature = "schema", schemars(length(min = 1, max = TRADEOFF_MAX_ROUTES)))]
    routes: Vec<TradeoffRoute>,
    /// Corners of the hull found before thinning.
    #[cfg_attr(feature = "schema", schemars(range(min = 1)))]
    corners: usize,
    /// Searches run.
    #[cfg_attr(feature = "schema", schemars(range(min = 1)))]
    searches: usize,
    /// false when the search budget ran out before every corner was found.
    complete: bool,
}

/// A route of the trade-off set.
#[derive(Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(inline))]
#[serde(rename_all = "camelCase")]
#[serde(deny_unknown_fields)]
struct TradeoffRoute {
    /// JSON pointer (RFC 6901) into this answer: /alternatives/N or /best
    route: String,
    /// Its length, metres.
    distance_m: f64,
    /// Its travel time, seconds.
    duration_s: f64,
    /// Expected incidents passed: the forecast's expected incidents (active classes, each counted at the intent's weight, over the request's week or time window) on the stretches of street walked. A route on the network counts its ways' street-level expected incidents per metre; a line is matched to the streets in pieces of at most 20 m (a piece within 15 m of a way counts that way's, any other its cell's); a hex path counts each cell's incidents per street metre.
    exposure: f64,
    /// Extra metres paid per expected incident avoided; null when nothing is avoided.
    metres_per_exposure_avoided: Option<f64>,
}

impl TradeoffJson {
    fn of(answer: &RouteAnswer, tradeoff: &TradeoffAnswer) -> Self {
        let routes = tradeoff
            .steps
            .iter()
            .filter_map(|step| {
                let (pointer, option) = match step.alternative {
                    None => (String::from("/best"), &answer.best),
                    Some(i) => (format!("/alternatives/{i}"), answer.alternatives.get(i)?),
                };
                let metrics = &option.evaluation.metrics;
                Some(TradeoffRoute {
                    route: pointer,
                    distance_m: metrics.distance_m,
                    duration_s: metrics.duration_s,
                    exposure: metrics.exposure,
                    metres_per_exposure_avoided: step.metres_per_exposure_avoided,
                })
            })
            .collect();
        Self {
            routes,
            corners: tradeoff.corners,
            searches: tradeoff.searches,
            complete: tradeoff.complete,
        }
    }
}

/// The answer of `GET /route/config`: the methods, intents, modes, limits and tier
/// colours of the routing operations.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
#[serde(deny_unknown_fields)]
pub struct RouteConfig {
    /// Always `success`.
    pub status: Success,
    /// The method of a request that names none.
    pub default_method: &'static str,
    /// Each method with its risk weight α (null for the trade-off).
    pub methods: Vec<MethodConfig>,
    /// The trade-off set's limits (docs/ROUTING.md).
    pub tradeoff: TradeoffConfig,
    /// The intents.
    pub intents: Vec<&'static str>,
    /// The travel modes with their speeds.
    pub modes: Vec<ModeConfig>,
    /// Most alternatives a request may ask for.
    pub max_alternatives: usize,
    /// Farthest a point may be from the network, metres.
    pub max_snap_distance_m: f64,
    /// Most cells of a hex path to evaluate.
    pub max_hex_path_cells: usize,
    /// Most positions of a line to evaluate.
    pub max_line_positions: usize,
    /// The risk a route is charged outside the city's cells.
    pub outside_coverage_risk: f64,
    /// The tiers of a route's cells, safest first, with their colours.
    pub tiers: Vec<TierConfig>,
}

/// A method of `GET /route/config`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(inline))]
#[serde(deny_unknown_fields)]
pub struct MethodConfig {
    /// Its name.
    pub name: &'static str,
    /// The risk weight α in length × (1 + α · risk); null for the trade-off.
    pub alpha: Option<f64>,
}

/// The trade-off limits of `GET /route/config`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(inline))]
#[serde(rename_all = "camelCase")]
#[serde(deny_unknown_fields)]
pub struct TradeoffConfig {
    /// Most routes in the set.
    pub max_routes: usize,
    /// Longest route of the set, as a multiple of the shortest's length.
    pub max_stretch: f64,
    /// Least share of its length by which a route of the set runs off its shorter
    /// neighbour.
    pub min_difference: f64,
}

/// A travel mode of `GET /route/config`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(inline))]
#[serde(rename_all = "camelCase")]
#[serde(deny_unknown_fields)]
pub struct ModeConfig {
    /// Its name.
    pub name: &'static str,
    /// Its speed, km/h.
    pub speed_kmh: f64,
}

/// A tier of `GET /route/config`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(inline))]
#[serde(rename_all = "camelCase")]
#[serde(deny_unknown_fields)]
pub struct TierConfig {
    /// 0 (safest) to 4.
    #[cfg_attr(feature = "schema", schemars(range(max = 4)))]
    pub tier: u8,
    /// Lowest safety score of the tier.
    pub min_safety: f64,
    /// Highest safety score of the tier.
    pub max_safety: f64,
    /// Its colour, from the palette of `GET /hexes/config`.
    pub color: &'static str,
}

/// `GET /route/config`.
#[must_use]
pub fn route_config() -> RouteConfig {
    RouteConfig {
        status: Success,
        default_method: RouteMethod::default().name(),
        methods: RouteMethod::ALL
            .iter()
            .map(|m| MethodConfig {
                name: m.name(),
                alpha: Some(m.alpha()),
            })
            .chain(core::iter::once(MethodConfig {
                name: RouteObjective::Tradeoff.name(),
                alpha: None,
            }))
            .collect(),
        tradeoff: TradeoffConfig {
            max_routes: TRADEOFF_MAX_ROUTES,
            max_stretch: TRADEOFF_MAX_STRETCH,
            min_difference: TRADEOFF_MIN_DIFFERENCE,
        },
        intents: Intent::ALL.iter().map(|i| i.name()).collect(),
        modes: TravelMode::ALL
            .iter()
            .map(|m| ModeConfig {
                name: m.name(),
                speed_kmh: m.speed_m_per_s() * 3.6,
            })
            .collect(),
        max_alternatives: MAX_ALTERNATIVES,
        max_snap_distance_m: MAX_SNAP_DISTANCE_M,
        max_hex_path_cells: MAX_HEX_PATH_CELLS,
        max_line_positions: MAX_LINE_POSITIONS,
        outside_coverage_risk: OUTSIDE_COVERAGE_RISK,
        tiers: (0..=4_u8)
            .map(|t| {
                let low = f64::from(4 - t) * 20.0;
                TierConfig {
                    tier: t,
                    min_safety: low,
                    max_safety: if t == 0 { 100.0 } else { low + 20.0 },
                    color: PALETTE[ColourIndex::from_safety_score(low + 10.0).get() as usize],
                }
            })
            .collect(),
    }
}

/// `POST /route`.
///
/// # Errors
/// The engine's request errors ([`route_request::route`]), and `INVALID_REQUEST` for
/// a body of the wrong shape.
pub fn route(
    atlas: &Atlas,
    body: &Map<String, Value>,
    now: i64,
) -> Result<RouteResponse, QueryError> {
    route_request::route(atlas, &parse(body)?, now)
}

/// `POST /evaluate`.
///
/// # Errors
/// The engine's request errors ([`route_request::evaluate`]), and `INVALID_REQUEST`
/// for a body of the wrong shape.
pub fn evaluate(
    atlas: &Atlas,
    body: &Map<String, Value>,
    now: i64,
) -> Result<EvaluationResponse, QueryError> {
    route_request::evaluate(atlas, &parse(body)?, now)
}

/// `POST /evaluate-hex-path`.
///
/// # Errors
/// The engine's request errors ([`route_request::evaluate_hex_path`]), and
/// `INVALID_REQUEST` for a body of the wrong shape.
pub fn evaluate_hex_path(
    atlas: &Atlas,
    body: &Map<String, Value>,
    now: i64,
) -> Result<EvaluationResponse, QueryError> {
    route_request::evaluate_hex_path(atlas, &parse(body)?, now)
}
