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
mod tests {
    use super::*;
    use crate::artifact::fixture::CityFixture;
    use crate::operations::options::default_week;
    use crate::scoring::{CityScores, ScoringParams};

    fn atlas() -> Atlas {
        Atlas::new(alloc::vec![CityModel::from_artifact(
            CityFixture::default().build()
        )])
    }

    /// 2021-12-22 12:00 UTC, inside the sample's first week.
    const NOW: i64 = 1_640_174_400;

    fn scoring(json: &str) -> Result<Scoring, QueryError> {
        let query: ScoringQuery = serde_json::from_str(json).unwrap();
        let atlas = atlas();
        query.resolve(&atlas.cities()[0], NOW)
    }

    #[test]
    fn scoring_options_resolve_or_name_the_field() {
        let all = scoring("{}").unwrap();
        assert_eq!(all.params, ScoringParams::default());
        assert_eq!(all.week, 0);
        let err = scoring(r#"{"intent":"flying"}"#).unwrap_err();
        assert_eq!(
            (err.code, err.field.as_str()),
            (ErrorCode::InvalidRequest, "intent")
        );
        let err = scoring(r#"{"activeCodes":["OTHER","NOPE"]}"#).unwrap_err();
        assert_eq!((err.field.as_str(), err.index), ("activeCodes", Some(1)));
        assert!(err.message.contains("NOPE"));
        assert!(scoring(r#"{"activeCodes":[]}"#).is_err());
        assert!(scoring(r#"{"activeCodes":["NO_CRIME"]}"#).is_err());
        let night = scoring(r#"{"intent":"night","activeCodes":["OTHER","SERIOUS_VIOLENT"],"toggles":{"OTHER":false}}"#).unwrap();
        assert_eq!(night.params.intent, Intent::Night);
        assert_eq!(night.params.active, [false, false, false, true, false]);
        assert!(scoring(r#"{"toggles":{"BOGUS":true}}"#).is_err());
        let weighted = scoring(r#"{"modifiers":{"classWeights":{"VEHICLE_DAMAGE":2.5}}}"#).unwrap();
        assert_eq!(weighted.params.overrides, [1.0, 1.0, 2.5, 1.0, 1.0]);
        let err = scoring(r#"{"modifiers":{"classWeights":{"OTHER":11}}}"#).unwrap_err();
        assert_eq!(err.field, "modifiers.classWeights");
        assert_eq!(
            scoring(r#"{"modifiers":{"week":"2021-12-29"}}"#)
                .unwrap()
                .week,
            1
        );
        let err = scoring(r#"{"modifiers":{"week":"2030-01-07"}}"#).unwrap_err();
        assert_eq!(err.code, ErrorCode::DateOutOfRange);
        let err = scoring(r#"{"modifiers":{"week":"next week"}}"#).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidRequest);
    }

    #[test]
    fn a_time_scores_its_band_and_night_the_nights() {
        use crate::forecast::{Band, DayKind, TimeWindow};
        let atlas = atlas();
        let city = &atlas.cities()[0];
        // Friday 2021-12-31 23:00 local: the weekend's first band, in week 1.
        let at = scoring(r#"{"modifiers":{"time":"2021-12-31T23:00:00"}}"#).unwrap();
        let friday_night = TimeWindow::Band(Band {
            kind: DayKind::Weekend,
            position: 0,
        });
        assert_eq!((at.week, at.params.window), (1, friday_night));
        // The same band as an hour of the week (Friday 23:00 = 4 × 24 + 23), in the
        // week the options choose.
        let hour = scoring(r#"{"modifiers":{"time":119,"week":"2021-12-29"}}"#).unwrap();
        assert_eq!((hour.week, hour.params.window), (1, friday_night));
        // Harm weighs the band's expected counts.
        let scores = CityScores::compute(city, at.week, &at.params);
        let weights = at.params.class_weights();
        for position in 0..city.cell_count() {
            let rates = city.window_rates(position, at.week, at.params.window);
            let harm: f64 = weights.iter().zip(rates).map(|(w, r)| w * r).sum();
            assert!((scores.harm(position) - harm).abs() < 1e-12);
            assert!(harm < CityScores::compute(city, 1, &ScoringParams::default()).harm(position));
        }
        // Night: every class at its severity, over the nights' expected counts.
        let night = scoring(r#"{"intent":"night"}"#).unwrap();
        assert_eq!(night.params.window, TimeWindow::Nights);
        assert_eq!(
            night.params.class_weights(),
            ScoringParams::default().class_weights()
        );
        let nights = city.window_rates(0, 0, TimeWindow::Nights);
        let week = city.rates(0, 0);
        assert!(nights.iter().zip(week).all(|(n, w)| *n > 0.0 && *n < w));
        // Errors name the field.
        for (json, code) in [
            (r#"{"modifiers":{"time":168}}"#, ErrorCode::InvalidRequest),
            (r#"{"modifiers":{"time":-1}}"#, ErrorCode::InvalidRequest),
            (
                r#"{"modifiers":{"time":"tonight"}}"#,
                ErrorCode::InvalidRequest,
            ),
            (
                r#"{"modifiers":{"time":"2030-01-04T23:00:00"}}"#,
                ErrorCode::DateOutOfRange,
            ),
            (
                r#"{"modifiers":{"time":"2021-12-31T23:00:00","week":"2021-12-29"}}"#,
                ErrorCode::InvalidRequest,
            ),
        ] {
            let err = scoring(json).unwrap_err();
            assert_eq!(
                (err.code, err.field.as_str()),
                (code, "modifiers.time"),
                "{json}"
            );
        }
    }

    #[test]
    fn the_default_week_is_clamped_into_the_forecasts() {
        let model = CityModel::from_artifact(CityFixture::default().build());
        assert_eq!(default_week(&model, NOW), 0);
        assert_eq!(default_week(&model, NOW + 8 * 86_400), 1);
        assert_eq!(default_week(&model, NOW + 400 * 86_400), 2);
        assert_eq!(default_week(&model, NOW - 400 * 86_400), 0);
    }

    fn route_json(json: &str) -> Result<serde_json::Value, QueryError> {
        let query: RouteQuery = serde_json::from_str(json).unwrap();
        route(&atlas(), &query, NOW).map(|r| serde_json::to_value(&r).unwrap())
    }

    #[test]
    fn routes_answer_in_the_api_shape_and_refuse_bad_points() {
        let ok = route_json(
            r#"{"origin":{"lat":43.6501,"lng":-79.3795},"destination":{"lat":43.6504,"lng":-79.3790},"intent":"walking"}"#,
        )
        .unwrap();
        assert_eq!(ok["city"], "city_ca_tor");
        assert_eq!(ok["weekOf"], "2021-12-20");
        assert_eq!(ok["network"], "roads");
        assert_eq!(ok["method"], "safest");
        assert_eq!(ok["best"]["geometry"]["type"], "LineString");
        assert_eq!(ok["hexPath"], ok["best"]["hexPath"]);
        assert!(
            !ok["best"]["hexPathWithTiers"]
                .as_array()
                .unwrap()
                .is_empty()
        );
        assert_eq!(ok["best"]["metrics"]["mode"], "walking");
        assert!(ok["alternatives"].as_array().unwrap().is_empty());

        let err = route_json(r#"{"origin":{"lat":95,"lng":0},"destination":{"lat":0,"lng":0}}"#)
            .unwrap_err();
        assert_eq!(
            (err.code, err.field.as_str()),
            (ErrorCode::InvalidCoordinates, "origin")
        );
        let err = route_json(
            r#"{"origin":{"lat":43.6501,"lng":-79.3795},"destination":{"lat":10,"lng":10}}"#,
        )
        .unwrap_err();
        assert_eq!(
            (err.code, err.field.as_str()),
            (ErrorCode::LocationNotCovered, "destination")
        );
        let err = route_json(r#"{"origin":{"lat":43.6501,"lng":-79.3795},"destination":{"lat":43.6504,"lng":-79.3790},"method":"fastest"}"#).unwrap_err();
        assert_eq!(err.field, "method");
        let err = route_json(r#"{"origin":{"lat":43.6501,"lng":-79.3795},"destination":{"lat":43.6504,"lng":-79.3790},"alternatives":4}"#).unwrap_err();
        assert_eq!(err.field, "alternatives");
        let err = route_json(r#"{"origin":{"lat":43.6501,"lng":-79.3795},"destination":{"lat":43.6504,"lng":-79.3790},"mode":"flying"}"#).unwrap_err();
        assert_eq!(err.field, "mode");
    }

    #[test]
    fn a_departure_time_is_echoed_with_its_bands_or_refused_by_name() {
        let trip = r#""origin":{"lat":43.6501,"lng":-79.3795},"destination":{"lat":43.6504,"lng":-79.3790}"#;
        let with = |extra: &str| route_json(&format!("{{{trip},{extra}}}"));
        let hour = with(r#""departAt":119"#).unwrap();
        assert_eq!(hour["departAt"]["hourOfWeek"], 119.0);
        assert_eq!(hour["departAt"]["speedKmh"], 5.0);
        let first = &hour["departAt"]["bands"][0];
        assert_eq!(first["weekOf"], "2021-12-20");
        assert_eq!(hour["timeWindow"], first["timeWindow"]);
        // The same moment as a local time: the same route and scores.
        let local = with(r#""departAt":"2021-12-24T23:00:00""#).unwrap();
        assert_eq!(local, hour);
        // An instant: 04:00 UTC is 23:00 in Toronto the evening before.
        let instant = with(r#""departAt":"2021-12-25T04:00:00Z""#).unwrap();
        assert_eq!(instant, hour);
        let minutes = with(r#""departAt":"2021-12-24T21:59:30""#).unwrap();
        let expected = 4.0 * 24.0 + 21.0 + 59.5 / 60.0;
        assert!((minutes["departAt"]["hourOfWeek"].as_f64().unwrap() - expected).abs() < 1e-9);
        // Without departAt the answer has no such member.
        assert!(
            with(r#""mode":"walking""#)
                .unwrap()
                .get("departAt")
                .is_none()
        );
        for (extra, code) in [
            (r#""departAt":168"#, ErrorCode::InvalidRequest),
            (r#""departAt":-1"#, ErrorCode::InvalidRequest),
            (r#""departAt":"soon""#, ErrorCode::InvalidRequest),
            (
                r#""departAt":"2030-01-04T23:00:00""#,
                ErrorCode::DateOutOfRange,
            ),
            (
                r#""departAt":119,"modifiers":{"time":119}"#,
                ErrorCode::InvalidRequest,
            ),
            (
                r#""departAt":"2021-12-24T23:00:00","modifiers":{"week":"2021-12-20"}"#,
                ErrorCode::InvalidRequest,
            ),
        ] {
            let err = with(extra).unwrap_err();
            assert_eq!(
                (err.code, err.field.as_str()),
                (code, "departAt"),
                "{extra}"
            );
        }
    }

    fn evaluate_json(json: &str) -> Result<serde_json::Value, QueryError> {
        let query: EvaluateQuery = serde_json::from_str(json).unwrap();
        evaluate(&atlas(), &query, NOW).map(|r| serde_json::to_value(&r).unwrap())
    }

    #[test]
    fn lines_are_checked_position_by_position() {
        let ok = evaluate_json(
            r#"{"geometry":{"type":"LineString","coordinates":[[-79.3795,43.6501],[-79.3790,43.6504,12.0]]}}"#,
        )
        .unwrap();
        assert!(ok["metrics"]["distanceM"].as_f64().unwrap() > 0.0);
        assert_eq!(
            ok["hexPath"].as_array().unwrap().len(),
            ok["metrics"]["cellCount"].as_u64().unwrap() as usize
        );
        let err = evaluate_json(r#"{"geometry":{"type":"Point","coordinates":[[0,0],[1,1]]}}"#)
            .unwrap_err();
        assert_eq!(err.field, "geometry");
        let err = evaluate_json(r#"{"geometry":{"type":"LineString","coordinates":[[0,0]]}}"#)
            .unwrap_err();
        assert!(err.message.contains("2 to"));
        let err = evaluate_json(
            r#"{"geometry":{"type":"LineString","coordinates":[[-79.3795,43.6501],[1]]}}"#,
        )
        .unwrap_err();
        assert_eq!(err.index, Some(1));
        let err = evaluate_json(
            r#"{"geometry":{"type":"LineString","coordinates":[[-79.3795,43.6501],[0,95]]}}"#,
        )
        .unwrap_err();
        assert_eq!(
            (err.code, err.index),
            (ErrorCode::InvalidCoordinates, Some(1))
        );
        let err = evaluate_json(
            r#"{"geometry":{"type":"LineString","coordinates":[[10,10],[10.1,10]]}}"#,
        )
        .unwrap_err();
        assert_eq!(err.code, ErrorCode::LocationNotCovered);
        let err = evaluate_json(
            r#"{"geometry":{"type":"LineString","coordinates":[[-79.38,43.65],[-76.0,43.65]]}}"#,
        )
        .unwrap_err();
        assert!(err.message.contains("200 km"));
    }

    #[test]
    fn hex_paths_are_checked_cell_by_cell() {
        let model = CityModel::from_artifact(CityFixture::default().build());
        let first = model.cell(0).unwrap();
        let next = crate::grid::disk(first, 1).unwrap()[1];
        let far = crate::grid::disk(first, 3).unwrap()[30];
        let run = |path: &[String]| {
            let query = HexPathQuery {
                hex_path: path.to_vec(),
                mode: None,
                scoring: ScoringQuery::default(),
            };
            evaluate_hex_path(&atlas(), &query, NOW)
        };
        let ok = run(&[first.to_string(), next.to_string()]).unwrap();
        assert_eq!(ok.evaluation.hex_path, [first, next]);
        let err = run(&[first.to_string(), "zz".into()]).unwrap_err();
        assert_eq!((err.field.as_str(), err.index), ("hexPath", Some(1)));
        let err = run(&[first.to_string(), next.to_string(), far.to_string()]).unwrap_err();
        assert_eq!(err.index, Some(2));
        assert!(err.message.contains("gap"));
        assert!(run(&[]).is_err());
        let outside = crate::grid::cell_at(10.0, 10.0).unwrap();
        assert_eq!(
            run(&[outside.to_string()]).unwrap_err().code,
            ErrorCode::LocationNotCovered
        );
    }
}
