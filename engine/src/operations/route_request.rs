//! Routes, line evaluations and hex-path evaluations as typed requests and answers:
//! the bodies of `POST /route`, `/evaluate` and `/evaluate-hex-path`, checked and
//! answered the same way offline and online.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::sync::Arc;
use alloc::vec::Vec;

use h3o::{CellIndex, LatLng};
use serde::{Deserialize, Serialize};

use super::options::{Scoring, ScoringQuery, TimeModifier, window_label};
use super::{ErrorCode, QueryError};
use crate::city::{Atlas, CityModel};
use crate::corridor::{self, Evaluation, HexPathError, TravelMode};
use crate::directions::{Step, line_directions};
use crate::forecast::CRIME_CLASSES;
use crate::forecast::TimeWindow;
use crate::plan::departure::{self, BandOnTheWay};
use crate::plan::{self, RouteAnswer, RouteError, RouteObjective, RouteRequest};
use crate::routing::{self, RouteMethod};
use crate::scoring::{CityScores, Intent};

/// Most positions in a LineString to evaluate.
pub const MAX_LINE_POSITIONS: usize = 10_000;

/// A point as `{lat, lng}`.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
pub struct PointQuery {
    /// Latitude in degrees.
    pub lat: f64,
    /// Longitude in degrees.
    pub lng: f64,
}

pub(super) fn point(query: PointQuery, field: &str) -> Result<LatLng, QueryError> {
    crate::grid::validate(query.lat, query.lng).map_err(|e| {
        QueryError::new(
            ErrorCode::InvalidCoordinates,
            field,
            format!("{field}: {e}"),
        )
    })
}

/// Body of a route request.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RouteQuery {
    /// Start.
    pub origin: PointQuery,
    /// End.
    pub destination: PointQuery,
    /// `safest` (default), `balanced` or `shortest`.
    pub method: Option<String>,
    /// 0 (default) to 3.
    pub alternatives: Option<u32>,
    /// Follow roads (default `true`).
    pub snap_to_roads: Option<bool>,
    /// `walking`, `cycling` or `driving`; default from the intent.
    pub mode: Option<String>,
    /// Leaving at this time (an hour of the week or an ISO 8601 time): each cell is
    /// scored in the band in which the traveller reaches it.
    pub depart_at: Option<TimeModifier>,
    /// Scoring options.
    #[serde(flatten)]
    pub scoring: ScoringQuery,
}

/// What a route, line or hex path was scored with.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScoredWith {
    /// City code.
    pub city: String,
    /// Monday of the forecast week.
    pub week_of: String,
    /// The intent.
    pub intent: &'static str,
    /// Classes counted.
    pub active_codes: Vec<&'static str>,
    /// The hours scored: `week`, `nights` or a band (`modifiers.time`).
    pub time_window: String,
}

impl ScoredWith {
    pub(super) fn new(model: &CityModel, scoring: &Scoring) -> Self {
        Self {
            city: model.artifact().city.code.clone(),
            week_of: model.week_monday(scoring.week).to_string(),
            intent: scoring.params.intent.name(),
            active_codes: CRIME_CLASSES
                .iter()
                .zip(scoring.params.active)
                .filter(|(_, on)| *on)
                .map(|(c, _)| c.code())
                .collect(),
            time_window: window_label(model, scoring.params.window),
        }
    }
}

/// A band a departing route's cells were scored in.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BandScored {
    /// Monday of the band's forecast week.
    pub week_of: String,
    /// The band, as `timeWindow` names one.
    pub time_window: String,
}

/// How a route with `departAt` was scored.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DepartAtAnswer {
    /// Local hours since Monday 00:00 of the departure's week (fractions are minutes).
    pub hour_of_week: f64,
    /// Travel mode speed used for reach times, km/h.
    pub speed_kmh: f64,
    /// The bands cells were scored in: the departure's first, then in the order the
    /// traveller reaches them.
    pub bands: Vec<BandScored>,
}

/// A route answer with what it was scored with.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RouteResponse {
    /// Scoring context.
    #[serde(flatten)]
    pub scored_with: ScoredWith,
    /// With `departAt`: the departure and the bands used.
    #[serde(rename = "departAt", skip_serializing_if = "Option::is_none")]
    pub depart_at: Option<DepartAtAnswer>,
    /// The routes.
    #[serde(flatten)]
    pub answer: RouteAnswer,
}

pub(super) fn route_error(e: RouteError) -> QueryError {
    let (field, distance) = match e {
        RouteError::OriginTooFar(d) => ("origin", Some(d)),
        RouteError::DestinationTooFar(d) => ("destination", Some(d)),
        _ => ("body", None),
    };
    QueryError {
        distance_m: distance.filter(|d| d.is_finite()),
        ..QueryError::new(
            if distance.is_some() {
                ErrorCode::LocationNotCovered
            } else {
                ErrorCode::InvalidRequest
            },
            field,
            e.to_string(),
        )
    }
}

pub(super) fn mode(text: Option<&String>, intent: Intent) -> Result<TravelMode, QueryError> {
    match text {
        None => Ok(TravelMode::for_intent(intent)),
        Some(text) => text
            .parse()
            .map_err(|e: corridor::UnknownMode| QueryError::invalid("mode", e.to_string())),
    }
}

pub(super) fn locate<'a>(
    atlas: &'a Atlas,
    point: LatLng,
    field: &str,
) -> Result<&'a CityModel, QueryError> {
    atlas
        .locate_cell(point.to_cell(crate::grid::RESOLUTION))
        .map(|(city, _)| city)
        .ok_or_else(|| {
            QueryError::new(
                ErrorCode::LocationNotCovered,
                field,
                format!("{field} is not covered by any city"),
            )
        })
}

/// Plans a route.
///
/// # Errors
/// [`QueryError`]: invalid fields, points outside coverage or too far from the
/// network, origin and destination in different cities.
pub fn route(
    atlas: &Atlas,
    query: &RouteQuery,
    now_utc_seconds: i64,
) -> Result<RouteResponse, QueryError> {
    let origin = point(query.origin, "origin")?;
    let destination = point(query.destination, "destination")?;
    let objective = match query.method.as_deref() {
        None => RouteObjective::Method(RouteMethod::Safest),
        Some(text) if text == RouteObjective::Tradeoff.name() => RouteObjective::Tradeoff,
        Some(text) => {
            RouteObjective::Method(text.parse().map_err(|_: routing::UnknownMethod| {
                QueryError::invalid(
                    "method",
                    format!(
                        "unknown method (expected one of {}, {})",
                        RouteMethod::ALL.map(RouteMethod::name).join(", "),
                        RouteObjective::Tradeoff.name()
                    ),
                )
            })?)
        }
    };
    let alternatives = query.alternatives.unwrap_or(0) as usize;
    if alternatives > routing::MAX_ALTERNATIVES {
        return Err(QueryError::invalid(
            "alternatives",
            RouteError::TooManyAlternatives(alternatives).to_string(),
        ));
    }
    if objective == RouteObjective::Tradeoff && alternatives > 0 {
        return Err(QueryError::invalid(
            "alternatives",
            RouteError::AlternativesWithTradeoff.to_string(),
        ));
    }
    let model = locate(atlas, origin, "origin")?;
    let other = locate(atlas, destination, "destination")?;
    if other.artifact().city.code != model.artifact().city.code {
        return Err(QueryError::invalid(
            "destination",
            "origin and destination must be in the same city",
        ));
    }
    let scoring = query.scoring.resolve(model, now_utc_seconds)?;
    let request = RouteRequest {
        origin,
        destination,
        objective,
        week: scoring.week,
        params: scoring.params,
        alternatives,
        snap_to_roads: query.snap_to_roads.unwrap_or(true),
        mode: mode(query.mode.as_ref(), scoring.params.intent)?,
    };
    let mut scored_with = ScoredWith::new(model, &scoring);
    let (scores, depart_at) = match &query.depart_at {
        None => (CityScores::kept(model, scoring.week, &scoring.params), None),
        Some(time) => {
            let (scores, answer) = scores_departing(model, query, &scoring, time, &request)?;
            scored_with.week_of.clone_from(&answer.bands[0].week_of);
            scored_with
                .time_window
                .clone_from(&answer.bands[0].time_window);
            (Arc::new(scores), Some(answer))
        }
    };
    let answer = plan::route(model, &scores, &request).map_err(route_error)?;
    Ok(RouteResponse {
        scored_with,
        depart_at,
        answer,
    })
}

/// The scores of a route leaving at `time` (`departAt`), each cell in the band it is
/// reached, with the answer's account of them.
fn scores_departing(
    model: &CityModel,
    query: &RouteQuery,
    scoring: &Scoring,
    time: &TimeModifier,
    request: &RouteRequest,
) -> Result<(CityScores, DepartAtAnswer), QueryError> {
    let departure = query.scoring.departure(model, time, scoring.week)?;
    let on_the_way = departure::scores_on_the_way(
        model,
        &scoring.params,
        departure,
        request.origin,
        request.mode,
        request.snap_to_roads,
    )
    .map_err(route_error)?;
    let band_scored = |b: &BandOnTheWay| BandScored {
        week_of: model.week_monday(b.week).to_string(),
        time_window: window_label(model, TimeWindow::Band(b.band)),
    };
    let answer = DepartAtAnswer {
        hour_of_week: departure.hour_of_week,
        speed_kmh: request.mode.speed_m_per_s() * 3.6,
        bands: on_the_way.bands.iter().map(band_scored).collect(),
    };
    Ok((on_the_way.scores, answer))
}

/// A GeoJSON LineString.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct LineStringQuery {
    /// Must be `LineString`.
    #[serde(rename = "type")]
    pub kind: String,
    /// `[lng, lat]` positions (a third value, elevation, is ignored).
    pub coordinates: Vec<Vec<f64>>,
}

/// Body of a line evaluation.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EvaluateQuery {
    /// The line.
    pub geometry: LineStringQuery,
    /// Travel mode.
    pub mode: Option<String>,
    /// Scoring options.
    #[serde(flatten)]
    pub scoring: ScoringQuery,
}

/// Body of a hex-path evaluation.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HexPathQuery {
    /// Ordered resolution-8 cell ids.
    pub hex_path: Vec<String>,
    /// Travel mode.
    pub mode: Option<String>,
    /// Scoring options.
    #[serde(flatten)]
    pub scoring: ScoringQuery,
}

/// A line or hex-path evaluation with what it was scored with.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EvaluationResponse {
    /// Scoring context.
    #[serde(flatten)]
    pub scored_with: ScoredWith,
    /// Corridor, tiers, metrics, segments.
    #[serde(flatten)]
    pub evaluation: Evaluation,
    /// Against the shortest road route between the path's ends (its first and last
    /// positions, or its first and last cells' centres); `None` when either end is
    /// beyond snapping distance or no route joins them.
    pub explanation: Option<plan::Explanation>,
    /// A line's named steps (`steps`, `riskiestStep`), matched to the city's ways;
    /// `None` (neither member) for a hex path or a city without a network.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub directions: Option<StepsAnswer>,
}

/// Named steps as answers give them.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StepsAnswer {
    /// Depart, the maneuvers, arrive.
    pub steps: Vec<Step>,
    /// The index of the step with the most expected incidents, where known.
    pub riskiest_step: Option<usize>,
}

/// The steps of a drawn line in `model`'s network, if it has one.
fn line_steps(
    model: &CityModel,
    scores: &CityScores,
    points: &[LatLng],
    mode: TravelMode,
) -> Option<StepsAnswer> {
    let network = model.road_network()?;
    let risk = crate::scoring::StreetRisk::of(model, scores, &network);
    let own = (network.graph.kind == crate::roads::NetworkKind::Roads || risk.by_shares())
        .then_some(&risk);
    let segment_m: Vec<f64> = points.windows(2).map(|p| p[0].distance_m(p[1])).collect();
    let directions = line_directions(
        network.graph,
        network.index,
        (points, &segment_m),
        own,
        mode,
    );
    Some(StepsAnswer {
        steps: directions.steps,
        riskiest_step: directions.riskiest_step,
    })
}

/// Evaluates a LineString; `detourPct` compares it with the shortest route on the
/// city's network between its ends, when both ends are within snapping distance.
///
/// # Errors
/// [`QueryError`] for a malformed line or one no city covers.
pub fn evaluate(
    atlas: &Atlas,
    query: &EvaluateQuery,
    now_utc_seconds: i64,
) -> Result<EvaluationResponse, QueryError> {
    let field = "geometry";
    if query.geometry.kind != "LineString" {
        return Err(QueryError::invalid(
            field,
            "geometry must be a GeoJSON LineString",
        ));
    }
    let positions = &query.geometry.coordinates;
    if positions.len() < 2 || positions.len() > MAX_LINE_POSITIONS {
        return Err(QueryError::invalid(
            field,
            format!(
                "a LineString needs 2 to {MAX_LINE_POSITIONS} positions, got {}",
                positions.len()
            ),
        ));
    }
    let mut points = Vec::with_capacity(positions.len());
    for (i, position) in positions.iter().enumerate() {
        let (Some(&lng), Some(&lat)) = (position.first(), position.get(1)) else {
            return Err(QueryError {
                index: Some(i),
                ..QueryError::invalid(field, format!("position {i} must be [lng, lat]"))
            });
        };
        let p = crate::grid::validate(lat, lng).map_err(|e| QueryError {
            index: Some(i),
            ..QueryError::new(
                ErrorCode::InvalidCoordinates,
                field,
                format!("position {i}: {e}"),
            )
        })?;
        points.push(p);
    }
    let length: f64 = points.windows(2).map(|w| w[0].distance_m(w[1])).sum();
    if length > crate::routing::MAX_LINE_LENGTH_M {
        return Err(QueryError::invalid(
            field,
            format!(
                "the line is {:.0} km long; the limit is {:.0} km",
                length / 1000.0,
                crate::routing::MAX_LINE_LENGTH_M / 1000.0
            ),
        ));
    }
    let model = points
        .iter()
        .find_map(|&p| atlas.locate_cell(p.to_cell(crate::grid::RESOLUTION)))
        .map(|(city, _)| city)
        .ok_or_else(|| {
            QueryError::new(
                ErrorCode::LocationNotCovered,
                field,
                "no point of the line is covered by any city",
            )
        })?;
    let scoring = query.scoring.resolve(model, now_utc_seconds)?;
    let mode = mode(query.mode.as_ref(), scoring.params.intent)?;
    let scores = CityScores::kept(model, scoring.week, &scoring.params);
    let mut evaluation = corridor::evaluate_line(model, &scores, &points, mode);
    let on_streets = plan::line_exposure(model, &scores, &points);
    if let Some(on_streets) = &on_streets {
        evaluation.metrics.exposure = on_streets.incidents;
    }
    let ends = (points[0], points[points.len() - 1]);
    let shortest = plan::shortest_route(model, &scores, ends, mode, |way| {
        on_streets.as_ref().is_some_and(|s| s.takes(way))
    });
    evaluation.metrics.detour_pct = shortest
        .as_ref()
        .map(|shortest| shortest.length_m)
        .filter(|&metres| metres > 0.0)
        .map(|metres| 100.0 * (evaluation.metrics.distance_m - metres) / metres);
    let explanation = shortest.map(|shortest| {
        let mut explanation = plan::explain(
            model,
            scoring.week,
            &scoring.params,
            &evaluation,
            &shortest.evaluation,
        );
        explanation.avoided_streets = shortest.avoided_streets;
        explanation
    });
    let directions = line_steps(model, &scores, &points, mode);
    Ok(EvaluationResponse {
        scored_with: ScoredWith::new(model, &scoring),
        evaluation,
        explanation,
        directions,
    })
}

/// Evaluates an ordered hex path.
///
/// # Errors
/// [`QueryError`] for a malformed id, a path with a gap or repeat, or one no city
/// covers.
pub fn evaluate_hex_path(
    atlas: &Atlas,
    query: &HexPathQuery,
    now_utc_seconds: i64,
) -> Result<EvaluationResponse, QueryError> {
    let field = "hexPath";
    let path_error = |e: HexPathError| QueryError {
        index: e.index(),
        ..QueryError::invalid(field, e.to_string())
    };
    if query.hex_path.len() > corridor::MAX_HEX_PATH_CELLS {
        return Err(path_error(HexPathError::TooLong(query.hex_path.len())));
    }
    let mut cells: Vec<CellIndex> = Vec::with_capacity(query.hex_path.len());
    for (i, text) in query.hex_path.iter().enumerate() {
        let cell: CellIndex = text.parse().map_err(|_| QueryError {
            index: Some(i),
            ..QueryError::invalid(field, format!("hexPath[{i}] is not a valid H3 cell id"))
        })?;
        cells.push(cell);
    }
    corridor::check_hex_path(&cells).map_err(path_error)?;
    let model = cells
        .iter()
        .find_map(|&c| atlas.locate_cell(c))
        .map(|(city, _)| city)
        .ok_or_else(|| {
            QueryError::new(
                ErrorCode::LocationNotCovered,
                field,
                "no cell of the path is covered by any city",
            )
        })?;
    let scoring = query.scoring.resolve(model, now_utc_seconds)?;
    let mode = mode(query.mode.as_ref(), scoring.params.intent)?;
    let scores = CityScores::kept(model, scoring.week, &scoring.params);
    let evaluation =
        corridor::evaluate_hex_path(model, &scores, &cells, mode).map_err(path_error)?;
    let ends = (LatLng::from(cells[0]), LatLng::from(cells[cells.len() - 1]));
    // A hex path follows no street: it names cells avoided, not streets.
    let explanation = plan::shortest_route(model, &scores, ends, mode, |_| true).map(|shortest| {
        plan::explain(
            model,
            scoring.week,
            &scoring.params,
            &evaluation,
            &shortest.evaluation,
        )
    });
    Ok(EvaluationResponse {
        scored_with: ScoredWith::new(model, &scoring),
        evaluation,
        explanation,
        directions: None,
    })
}

#[cfg(test)]
mod tests;
