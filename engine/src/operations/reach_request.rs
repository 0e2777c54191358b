//! `POST /reach` on JSON: the cells reachable from a point within a time budget,
//! each with its travel time and the least exposure to reach it, and the area's
//! outline as GeoJSON.

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use super::json::parse;
use super::options::ScoringQuery;
use super::route_request::{PointQuery, ScoredWith, locate, mode, point, route_error};
use super::wire::MultiPolygonType;
use super::{QueryError, Success};
use crate::city::Atlas;
use crate::grid::Polygon;
use crate::plan::{self, ReachAnswer, ReachError, ReachRequest, ReachedCell, SnappedPoint};
use crate::scoring::CityScores;
use serde_json::{Map, Value};

/// The body of `POST /reach`: the start, the time budget and the scoring options.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ReachQuery {
    /// Where the traveller starts.
    pub origin: PointQuery,
    /// time budget; also at most 5 km at the mode's speed (walking 5, cycling 15, driving 30 km/h)
    #[cfg_attr(
        feature = "schema",
        schemars(extend("exclusiveMinimum" = 0), range(max = plan::MAX_REACH_MINUTES))
    )]
    pub minutes: f64,
    /// walking, cycling or driving; default driving for intent driving, else walking.
    #[cfg_attr(
        feature = "schema",
        schemars(with = "Option<crate::corridor::TravelMode>")
    )]
    pub mode: Option<String>,
    /// Scoring options.
    #[serde(flatten)]
    pub scoring: ScoringQuery,
}

/// The answer of `POST /reach`: the cells within the time budget, each with the least
/// exposure to reach it, and the area's outline.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "Reach"))]
#[serde(rename_all = "camelCase")]
#[serde(deny_unknown_fields)]
pub struct ReachResponse {
    /// Always `success`.
    status: Success,
    /// What the cells were scored with.
    #[serde(flatten)]
    scored_with: ScoredWith,
    /// The network travelled: the city's roads, or a lattice over its cells.
    #[cfg_attr(feature = "schema", schemars(with = "super::wire::NetworkName"))]
    network: &'static str,
    /// The start snapped to the network.
    origin: SnappedPoint,
    /// The travel mode.
    #[cfg_attr(feature = "schema", schemars(with = "crate::corridor::TravelMode"))]
    mode: &'static str,
    /// The time budget, minutes.
    minutes: f64,
    /// The budget as metres at the mode's speed.
    budget_m: f64,
    /// The number of cells.
    cell_count: usize,
    /// The cells reached.
    cells: Vec<CellJson>,
    /// The outline of the cells reached.
    boundary: MultiPolygon,
}

/// A cell of a reach answer.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(inline))]
#[serde(rename_all = "camelCase")]
#[serde(deny_unknown_fields)]
struct CellJson {
    /// The cell.
    #[serde(serialize_with = "crate::corridor::cell_id")]
    #[cfg_attr(feature = "schema", schemars(with = "super::wire::CellId"))]
    h3: h3o::CellIndex,
    /// Minutes to reach it.
    #[cfg_attr(feature = "schema", schemars(range(min = 0)))]
    minutes: f64,
    /// Expected incidents passed on the least exposed way to the cell within the budget.
    #[cfg_attr(feature = "schema", schemars(range(min = 0)))]
    exposure: f64,
    /// 0 (least safe) to 100 (safest) among the city's cells.
    safety_score: f64,
    /// The colour band of the score.
    #[cfg_attr(feature = "schema", schemars(with = "super::wire::ColourBand"))]
    color_index: i8,
}

/// A GeoJSON MultiPolygon (RFC 7946): `[lng, lat]` positions.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(inline))]
#[serde(deny_unknown_fields)]
struct MultiPolygon {
    /// `MultiPolygon`.
    #[serde(rename = "type")]
    kind: MultiPolygonType,
    /// The polygons.
    #[cfg_attr(
        feature = "schema",
        schemars(with = "Vec<Vec<Vec<super::wire::Position>>>")
    )]
    coordinates: Vec<Vec<Vec<[f64; 2]>>>,
}

fn multipolygon(polygons: &[Polygon]) -> MultiPolygon {
    MultiPolygon {
        kind: MultiPolygonType,
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
        status: Success,
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
pub fn reach(
    atlas: &Atlas,
    body: &Map<String, Value>,
    now: i64,
) -> Result<ReachResponse, QueryError> {
    let query: ReachQuery = parse(body)?;
    reach_query(atlas, &query, now)
}
