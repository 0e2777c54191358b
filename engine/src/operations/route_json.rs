//! The router API's route operations on JSON (`GET /route/config`, `POST /route`,
//! `/evaluate`, `/evaluate-hex-path`), and the JSON form of route answers: GeoJSON
//! lines, cell ids as text, and the members of `POST /route`'s answer in the
//! router API's order.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use h3o::LatLng;
use serde::Serialize;
use serde_json::{Map, Value, json};

use super::QueryError;
use super::json::{parse, with_status};
use super::route_request::{self, EvaluationResponse, MAX_LINE_POSITIONS, RouteResponse};
use crate::city::Atlas;
use crate::corridor::{MAX_HEX_PATH_CELLS, TravelMode};
use crate::plan::{RouteAnswer, RouteObjective, RouteOption, TradeoffAnswer};
use crate::routing::{
    MAX_ALTERNATIVES, MAX_SNAP_DISTANCE_M, OUTSIDE_COVERAGE_RISK, RouteMethod, TRADEOFF_MAX_ROUTES,
    TRADEOFF_MAX_STRETCH, TRADEOFF_MIN_DIFFERENCE,
};
use crate::scoring::{ColourIndex, Intent, PALETTE};

impl Serialize for RouteOption {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut out = serializer.serialize_struct("RouteOption", 10)?;
        out.serialize_field("geometry", &self.geometry.as_deref().map(LineString))?;
        out.serialize_field("cost", &self.cost)?;
        out.serialize_field("hexPath", &CellIds(&self.evaluation.hex_path))?;
        out.serialize_field("hexPathWithTiers", &self.evaluation.hex_path_with_tiers)?;
        out.serialize_field("metrics", &self.evaluation.metrics)?;
        out.serialize_field("segments", &self.evaluation.segments)?;
        out.serialize_field("corridorMetrics", &self.corridor_metrics)?;
        out.serialize_field("explanation", &self.explanation)?;
        let (steps, riskiest) = self
            .directions
            .as_ref()
            .map_or((&[][..], None), |d| (d.steps.as_slice(), d.riskiest_step));
        out.serialize_field("steps", steps)?;
        out.serialize_field("riskiestStep", &riskiest)?;
        out.end()
    }
}

/// Serialises points as a GeoJSON `LineString` (`[lng, lat]`, RFC 7946).
pub struct LineString<'a>(pub &'a [LatLng]);

impl Serialize for LineString<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut out = serializer.serialize_struct("LineString", 2)?;
        out.serialize_field("type", "LineString")?;
        let coordinates: Vec<[f64; 2]> = self.0.iter().map(|p| [p.lng(), p.lat()]).collect();
        out.serialize_field("coordinates", &coordinates)?;
        out.end()
    }
}

struct CellIds<'a>(&'a [h3o::CellIndex]);

impl Serialize for CellIds<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        crate::corridor::cell_ids(self.0, serializer)
    }
}

impl Serialize for RouteAnswer {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut out = serializer.serialize_struct("RouteAnswer", 10)?;
        out.serialize_field("network", self.network.name())?;
        out.serialize_field("source", &self.source)?;
        out.serialize_field("method", self.objective.name())?;
        out.serialize_field("alpha", &self.alpha)?;
        out.serialize_field("origin", &self.origin)?;
        out.serialize_field("destination", &self.destination)?;
        // The specification's route table names `best.geometry` before `hexPath`.
        out.serialize_field("best", &self.best)?;
        out.serialize_field("hexPath", &CellIds(&self.best.evaluation.hex_path))?;
        out.serialize_field("alternatives", &self.alternatives)?;
        if let Some(tradeoff) = &self.tradeoff {
            out.serialize_field("tradeoff", &TradeoffJson(self, tradeoff))?;
        }
        out.end()
    }
}

/// `tradeoff` of a route answer: the set's routes shortest to safest, each named by
/// a JSON pointer (RFC 6901) into the answer, with its figures.
struct TradeoffJson<'a>(&'a RouteAnswer, &'a TradeoffAnswer);

impl Serialize for TradeoffJson<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let TradeoffJson(answer, tradeoff) = self;
        let routes: Vec<Value> = tradeoff
            .steps
            .iter()
            .filter_map(|step| {
                let (pointer, option) = match step.alternative {
                    None => (String::from("/best"), &answer.best),
                    Some(i) => (format!("/alternatives/{i}"), answer.alternatives.get(i)?),
                };
                let metrics = &option.evaluation.metrics;
                Some(json!({
                    "route": pointer,
                    "distanceM": metrics.distance_m,
                    "durationS": metrics.duration_s,
                    "exposure": metrics.exposure,
                    "metresPerExposureAvoided": step.metres_per_exposure_avoided,
                }))
            })
            .collect();
        let mut out = serializer.serialize_struct("Tradeoff", 4)?;
        out.serialize_field("routes", &routes)?;
        out.serialize_field("corners", &tradeoff.corners)?;
        out.serialize_field("searches", &tradeoff.searches)?;
        out.serialize_field("complete", &tradeoff.complete)?;
        out.end()
    }
}

/// `GET /route/config`.
#[must_use]
pub fn route_config() -> Value {
    json!({
        "status": "success",
        "defaultMethod": RouteMethod::default().name(),
        "methods": RouteMethod::ALL
            .iter()
            .map(|m| json!({"name": m.name(), "alpha": m.alpha()}))
            .chain(core::iter::once(json!({"name": RouteObjective::Tradeoff.name(), "alpha": null})))
            .collect::<Vec<_>>(),
        "tradeoff": {
            "maxRoutes": TRADEOFF_MAX_ROUTES,
            "maxStretch": TRADEOFF_MAX_STRETCH,
            "minDifference": TRADEOFF_MIN_DIFFERENCE,
        },
        "intents": Intent::ALL.iter().map(|i| i.name()).collect::<Vec<_>>(),
        "modes": TravelMode::ALL.iter().map(|m| json!({"name": m.name(), "speedKmh": m.speed_m_per_s() * 3.6})).collect::<Vec<_>>(),
        "maxAlternatives": MAX_ALTERNATIVES,
        "maxSnapDistanceM": MAX_SNAP_DISTANCE_M,
        "maxHexPathCells": MAX_HEX_PATH_CELLS,
        "maxLinePositions": MAX_LINE_POSITIONS,
        "outsideCoverageRisk": OUTSIDE_COVERAGE_RISK,
        "tiers": (0..=4_u8).map(|t| {
            let low = f64::from(4 - t) * 20.0;
            json!({
                "tier": t,
                "minSafety": low,
                "maxSafety": if t == 0 { 100.0 } else { low + 20.0 },
                "color": PALETTE[ColourIndex::from_safety_score(low + 10.0).get() as usize],
            })
        }).collect::<Vec<_>>(),
    })
}

/// `POST /route`.
///
/// # Errors
/// The engine's request errors ([`route_request::route`]).
pub fn route(atlas: &Atlas, body: &Map<String, Value>, now: i64) -> Result<Value, QueryError> {
    route_answer(atlas, body, now).map(with_status)
}

/// `POST /route`'s answer before [`with_status`], for callers that serialize it
/// themselves (the npm package).
///
/// # Errors
/// As [`route`].
pub fn route_answer(
    atlas: &Atlas,
    body: &Map<String, Value>,
    now: i64,
) -> Result<RouteResponse, QueryError> {
    route_request::route(atlas, &parse(body)?, now)
}

/// `POST /evaluate`.
///
/// # Errors
/// The engine's request errors ([`route_request::evaluate`]).
pub fn evaluate(atlas: &Atlas, body: &Map<String, Value>, now: i64) -> Result<Value, QueryError> {
    evaluate_answer(atlas, body, now).map(with_status)
}

/// `POST /evaluate`'s answer before [`with_status`] (see [`route_answer`]).
///
/// # Errors
/// As [`evaluate`].
pub fn evaluate_answer(
    atlas: &Atlas,
    body: &Map<String, Value>,
    now: i64,
) -> Result<EvaluationResponse, QueryError> {
    route_request::evaluate(atlas, &parse(body)?, now)
}

/// `POST /evaluate-hex-path`.
///
/// # Errors
/// The engine's request errors ([`route_request::evaluate_hex_path`]).
pub fn evaluate_hex_path(
    atlas: &Atlas,
    body: &Map<String, Value>,
    now: i64,
) -> Result<Value, QueryError> {
    evaluate_hex_path_answer(atlas, body, now).map(with_status)
}

/// `POST /evaluate-hex-path`'s answer before [`with_status`] (see [`route_answer`]).
///
/// # Errors
/// As [`evaluate_hex_path`].
pub fn evaluate_hex_path_answer(
    atlas: &Atlas,
    body: &Map<String, Value>,
    now: i64,
) -> Result<EvaluationResponse, QueryError> {
    route_request::evaluate_hex_path(atlas, &parse(body)?, now)
}
