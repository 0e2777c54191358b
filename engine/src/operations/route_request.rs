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
use super::{ErrorCode, QueryError, Success};
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(inline))]
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

/// The body of `POST /route`: the two points, the method and the scoring options.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct RouteQuery {
    /// Where the route starts.
    pub origin: PointQuery,
    /// Where it ends.
    pub destination: PointQuery,
    /// safest (default), balanced, shortest, or tradeoff: the set shortest to safest
    /// (docs/ROUTING.md).
    #[cfg_attr(
        feature = "schema",
        schemars(with = "Option<super::wire::RouteMethodName>")
    )]
    pub method: Option<String>,
    /// 0 (default) to 3; 0 with method tradeoff
    #[cfg_attr(feature = "schema", schemars(range(max = routing::MAX_ALTERNATIVES)))]
    pub alternatives: Option<u32>,
    /// Follow the city's network (default true); false routes over the hex grid itself
    /// and answers no geometry.
    pub snap_to_roads: Option<bool>,
    /// walking, cycling or driving; default driving for intent driving, else walking.
    #[cfg_attr(feature = "schema", schemars(with = "Option<TravelMode>"))]
    pub mode: Option<String>,
    /// leave at this time (an ISO 8601 instant or local time, or an hour of the week 0-167, Monday 00:00 local = 0): each cell is scored in the time band in which the traveller reaches it at the mode's speed; not with modifiers.time
    pub depart_at: Option<TimeModifier>,
    /// Scoring options.
    #[serde(flatten)]
    pub scoring: ScoringQuery,
}

/// What a route, line or hex path was scored with.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(inline))]
#[serde(rename_all = "camelCase")]
#[serde(deny_unknown_fields)]
pub struct ScoredWith {
    /// The city's code.
    pub city: String,
    /// Monday of the forecast week.
    #[cfg_attr(feature = "schema", schemars(with = "super::wire::Date"))]
    pub week_of: String,
    /// The intent.
    pub intent: &'static str,
    /// The classes counted.
    #[cfg_attr(feature = "schema", schemars(with = "Vec<super::wire::ClassCode>"))]
    pub active_codes: Vec<&'static str>,
    /// the hours scored: week, nights (intent night) or a band such as "weekend 22:00-00:00" (local time)
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(inline))]
#[serde(rename_all = "camelCase")]
#[serde(deny_unknown_fields)]
pub struct BandScored {
    /// Monday of the band's forecast week.
    #[cfg_attr(feature = "schema", schemars(with = "super::wire::Date"))]
    pub week_of: String,
    /// The band, as `timeWindow` names one.
    pub time_window: String,
}

/// with departAt: the departure and the bands cells were scored in, the departure's first, then in the order they are reached
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(inline))]
#[serde(rename_all = "camelCase")]
#[serde(deny_unknown_fields)]
pub struct DepartAtAnswer {
    /// local hours since Monday 00:00 of the departure's week
    #[cfg_attr(feature = "schema", schemars(range(min = 0), extend("exclusiveMaximum" = 168)))]
    pub hour_of_week: f64,
    /// The travel mode's speed, with which the times cells are reached were found,
    /// km/h.
    #[cfg_attr(feature = "schema", schemars(extend("exclusiveMinimum" = 0)))]
    pub speed_kmh: f64,
    /// The bands cells were scored in: the departure's first, then in the order the
    /// traveller reaches them.
    #[cfg_attr(feature = "schema", schemars(length(min = 1)))]
    pub bands: Vec<BandScored>,
}

/// The answer of `POST /route`: the best route, the alternatives or the trade-off set,
/// with what they were scored with.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "Route"))]
#[serde(deny_unknown_fields)]
pub struct RouteResponse {
    /// Always `success`.
    pub status: Success,
    /// What the routes were scored with (with departAt: the departure's band).
    #[serde(flatten)]
    pub scored_with: ScoredWith,
    /// with departAt: the departure and the bands cells were scored in, the departure's first, then in the order they are reached
    #[serde(rename = "departAt", skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(with = "DepartAtAnswer"))]
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
        status: Success,
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

/// A GeoJSON LineString to evaluate.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(inline))]
pub struct LineStringQuery {
    /// `LineString`.
    #[serde(rename = "type")]
    #[cfg_attr(feature = "schema", schemars(with = "super::wire::LineStringType"))]
    pub kind: String,
    /// 2 to 10,000 `[lng, lat]` positions (a third value, elevation, is ignored).
    #[cfg_attr(
        feature = "schema",
        schemars(length(min = 2, max = MAX_LINE_POSITIONS), inner(length(min = 2)))
    )]
    pub coordinates: Vec<Vec<f64>>,
}

/// The body of `POST /evaluate`: a line and the scoring options.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct EvaluateQuery {
    /// The line.
    pub geometry: LineStringQuery,
    /// walking, cycling or driving; default driving for intent driving, else walking.
    #[cfg_attr(feature = "schema", schemars(with = "Option<TravelMode>"))]
    pub mode: Option<String>,
    /// The scoring options.
    #[serde(flatten)]
    pub scoring: ScoringQuery,
}

/// The body of `POST /evaluate-hex-path`: an ordered hex path and the scoring options.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct HexPathQuery {
    /// Resolution-8 cell ids in travel order, each sharing an edge with an earlier
    /// one, none twice.
    #[cfg_attr(
        feature = "schema",
        schemars(length(min = 1, max = corridor::MAX_HEX_PATH_CELLS))
    )]
    pub hex_path: Vec<String>,
    /// walking, cycling or driving; default driving for intent driving, else walking.
    #[cfg_attr(feature = "schema", schemars(with = "Option<TravelMode>"))]
    pub mode: Option<String>,
    /// The scoring options.
    #[serde(flatten)]
    pub scoring: ScoringQuery,
}

/// The answer of `POST /evaluate` and `POST /evaluate-hex-path`: the corridor scored,
/// with what it was scored with.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "Evaluation"))]
#[serde(deny_unknown_fields)]
pub struct EvaluationResponse {
    /// Always `success`.
    pub status: Success,
    /// What it was scored with.
    #[serde(flatten)]
    pub scored_with: ScoredWith,
    /// The corridor: its cells, tiers, metrics and segments.
    #[serde(flatten)]
    pub evaluation: Evaluation,
    /// Against the shortest road route between the path's ends (its first and last
    /// positions, or its first and last cells' centres); null when either end is
    /// beyond snapping distance or no route joins them.
    pub explanation: Option<plan::Explanation>,
    /// A line's named steps (`steps`, `riskiestStep`), matched to the city's ways;
    /// neither member for a hex path or a city without a network.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub directions: Option<StepsAnswer>,
}

/// Named steps as answers give them.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(inline))]
#[serde(rename_all = "camelCase")]
#[serde(deny_unknown_fields)]
pub struct StepsAnswer {
    /// a line's named steps, matched to the city's ways (POST /evaluate; absent for a hex path)
    pub steps: Vec<Step>,
    /// index in steps of the step with the most expected incidents, where the ways carry risks of their own
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
        status: Success,
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
        status: Success,
        scored_with: ScoredWith::new(model, &scoring),
        evaluation,
        explanation,
        directions: None,
    })
}

#[cfg(test)]
mod tests;
