//! `POST /reach` on JSON: the cells reachable from a point within a time budget,
//! each with its travel time and the least exposure to reach it, and the area's
//! outline as GeoJSON.

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use super::QueryError;
use super::json::{parse, with_status};
use super::options::ScoringQuery;
use super::route_request::{PointQuery, ScoredWith, locate, mode, point, route_error};
use crate::city::Atlas;
use crate::grid::Polygon;
use crate::plan::{self, ReachAnswer, ReachError, ReachRequest, ReachedCell, SnappedPoint};
use crate::scoring::CityScores;
use serde_json::{Map, Value};

/// Body of a reach request.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReachQuery {
    /// Where the traveller starts.
    pub origin: PointQuery,
    /// Time budget, minutes.
    pub minutes: f64,
    /// `walking`, `cycling` or `driving`; default from the intent.
    pub mode: Option<String>,
    /// Scoring options.
    #[serde(flatten)]
    pub scoring: ScoringQuery,
}

/// A reach answer with what it was scored with.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReachResponse {
    /// Scoring context.
    #[serde(flatten)]
    scored_with: ScoredWith,
    network: &'static str,
    origin: SnappedPoint,
    mode: &'static str,
    minutes: f64,
    budget_m: f64,
    cell_count: usize,
    cells: Vec<CellJson>,
    boundary: MultiPolygon,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
struct CellJson {
    #[serde(serialize_with = "crate::corridor::cell_id")]
    h3: h3o::CellIndex,
    minutes: f64,
    exposure: f64,
    safety_score: f64,
    color_index: i8,
}

/// GeoJSON MultiPolygon (RFC 7946): `[lng, lat]` positions.
#[derive(Debug, Clone, PartialEq, Serialize)]
struct MultiPolygon {
    #[serde(rename = "type")]
    kind: &'static str,
    coordinates: Vec<Vec<Vec<[f64; 2]>>>,
}

fn multipolygon(polygons: &[Polygon]) -> MultiPolygon {
    MultiPolygon {
        kind: "MultiPolygon",
        coordinates: polygons
            .iter()
            .map(|polygon| {
                polygon
                    .iter()
                    .map(|ring| ring.iter().map(|p| [p.lng(), p.lat()]).collect())
                    .collect()
            })
            .collect(),
    }
}

fn reach_error(e: ReachError) -> QueryError {
    match e {
        ReachError::Route(e) => route_error(e),
        ReachError::Minutes(_) | ReachError::TooFar(_) | ReachError::TooLarge(_) => {
            QueryError::invalid("minutes", e.to_string())
        }
    }
}

/// Answers a reach request.
///
/// # Errors
/// [`QueryError`]: invalid fields, a budget out of range, an origin outside coverage
/// or too far from the network.
pub fn reach_query(
    atlas: &Atlas,
    query: &ReachQuery,
    now_utc_seconds: i64,
) -> Result<ReachResponse, QueryError> {
    let origin = point(query.origin, "origin")?;
    // The budget is checked before the city, so a bad one is named wherever it is.
    if !(query.minutes > 0.0 && query.minutes <= plan::MAX_REACH_MINUTES) {
        return Err(reach_error(ReachError::Minutes(query.minutes)));
    }
    let model = locate(atlas, origin, "origin")?;
    let scoring = query.scoring.resolve(model, now_utc_seconds)?;
    let travel = mode(query.mode.as_ref(), scoring.params.intent)?;
    let scores = CityScores::kept(model, scoring.week, &scoring.params);
    let request = ReachRequest {
        origin,
        minutes: query.minutes,
        mode: travel,
    };
    let answer: ReachAnswer = plan::reach(model, &scores, &request).map_err(reach_error)?;
    let cell = |c: &ReachedCell| CellJson {
        h3: c.cell,
        minutes: c.minutes,
        exposure: c.exposure,
        safety_score: c.safety_score,
        color_index: c.color_index.get(),
    };
    Ok(ReachResponse {
        scored_with: ScoredWith::new(model, &scoring),
        network: answer.network.name(),
        origin: answer.origin,
        mode: travel.name(),
        minutes: query.minutes,
        budget_m: answer.budget_m,
        cell_count: answer.cells.len(),
        cells: answer.cells.iter().map(cell).collect(),
        boundary: multipolygon(&answer.boundary),
    })
}

/// `POST /reach`.
///
/// # Errors
/// As [`reach_query`], and `INVALID_REQUEST` for a body of the wrong shape.
pub fn reach(atlas: &Atlas, body: &Map<String, Value>, now: i64) -> Result<Value, QueryError> {
    let query: ReachQuery = parse(body)?;
    reach_query(atlas, &query, now).map(with_status)
}
