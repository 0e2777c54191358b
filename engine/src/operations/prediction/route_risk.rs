//! `POST /v1/route/risk`: the risk of a route given as waypoints, segment by
//! segment, for a week (`datetime`) or, with `departure_time`, for the time band in
//! which a traveller at the travel mode's speed reaches each cell.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use serde_json::{Map, Value};

use super::{
    CellLocation, Recommendations, RouteAnalysis, RouteSegment, RouteSummary, When, coordinates,
    datetime, not_covered, week,
};
use crate::city::Atlas;
use crate::corridor::{self, TravelMode};
use crate::forecast::{CRIME_CLASSES, CrimeClass, RiskLevel, TimeWindow};
use crate::grid;
use crate::operations::{QueryError, Success, array, coordinate_error, malformed};
use crate::plan::line_exposure;
use crate::scoring::{CityScores, ScoringParams};

/// Most waypoints in one route request.
pub const MAX_WAYPOINTS: usize = 100;

/// Longest route accepted, in kilometres (sum of the segments).
pub const MAX_ROUTE_KM: f64 = 200.0;

/// The time of a route: a week for the whole route (`datetime`, or the clock), or a
/// departure from which each cell's time is found at the mode's speed.
#[derive(Debug, Clone, Copy)]
enum RouteTime {
    Week(Option<When>),
    Departure { at: When, mode: TravelMode },
}

impl RouteTime {
    /// The time at which a traveller `metres` along the route is there.
    fn after(self, metres: f64) -> Option<When> {
        match self {
            Self::Week(when) => when,
            Self::Departure { at, mode } => {
                let seconds = libm::round(metres / mode.speed_m_per_s()) as i64;
                let delta = chrono::Duration::seconds(seconds);
                Some(match at {
                    When::Instant(instant) => When::Instant(instant + delta),
                    When::Local(local) => When::Local(local + delta),
                })
            }
        }
    }
}

/// Reads `departure_time` and `travel_mode` (with `datetime`, the route's time).
fn route_time(body: &Map<String, Value>) -> Result<RouteTime, QueryError> {
    let week_of = datetime(body)?;
    let departure = match body.get("departure_time") {
        None | Some(Value::Null) => None,
        Some(Value::String(text)) => Some(When::parse(text).ok_or_else(|| {
            malformed(
                "departure_time",
                "an ISO 8601 datetime such as 2022-01-07T22:30:00-05:00",
            )
        })?),
        Some(_) => return Err(malformed("departure_time", "a string")),
    };
    let mode = match body.get("travel_mode") {
        None | Some(Value::Null) => TravelMode::Walking,
        Some(value) => value
            .as_str()
            .and_then(|text| text.parse::<TravelMode>().ok())
            .ok_or_else(|| {
                QueryError::invalid(
                    "travel_mode",
                    "travel_mode must be walking, cycling or driving",
                )
                .with("value", value.clone())
            })?,
    };
    match (departure, week_of) {
        (Some(_), Some(_)) => Err(QueryError::invalid(
            "departure_time",
            "give either datetime (a week) or departure_time (the hour each cell is reached), not both",
        )),
        (Some(at), None) => Ok(RouteTime::Departure { at, mode }),
        (None, week_of) => Ok(RouteTime::Week(week_of)),
    }
}

/// Expected incidents passed along a segment: matched to the streets of the city
/// holding its first covered cell, scored in the week of `when` (every class counted
/// once), and in the time-of-day band holding `when` when the route has a departure.
fn expected_incidents(
    atlas: &Atlas,
    (a, b): (h3o::LatLng, h3o::LatLng),
    middle: (f64, f64),
    (time, when): (RouteTime, Option<When>),
    now: i64,
) -> Result<f64, QueryError> {
    let Some((city, _)) = grid::cells_crossed(&[a, b], grid::RESOLUTION)
        .iter()
        .find_map(|&(cell, _)| atlas.locate_cell(cell))
        .or_else(|| {
            grid::cell_at(middle.0, middle.1)
                .ok()
                .and_then(|c| atlas.locate_cell(c))
        })
    else {
        return Ok(0.0);
    };
    let week = week(city, when, now)?;
    let mut params = ScoringParams::default();
    if let RouteTime::Departure { .. } = time
        && let Some(local) = when.and_then(|w| w.local_in(city))
    {
        params.window = TimeWindow::Band(city.artifact().profiles.bands.instance(local).band);
    }
    let scores = CityScores::kept(city, week, &params);
    Ok(match line_exposure(city, &scores, &[a, b]) {
        Some(on_streets) => on_streets.incidents,
        None => {
            corridor::evaluate_line(city, &scores, &[a, b], TravelMode::Walking)
                .metrics
                .exposure
        }
    })
}

/// Risk of one route segment: the length-weighted mean over the cells it crosses.
struct SegmentRisk {
    distance_km: f64,
    /// Expected incidents passed on the streets the segment follows
    /// ([`crate::plan::line_exposure`]), in the week (or the band of the
    /// week) of the segment's middle, every class counted once.
    expected_incidents: f64,
    /// Length-weighted mean of `P(at least one incident)` = `1 − P(NO_CRIME)`.
    risk_score: f64,
    /// Length-weighted mean outcome probabilities.
    mean_probabilities: [f64; 6],
    worst_cell: crate::CellIndex,
}

fn segment_risk(
    atlas: &Atlas,
    (from, to): ((f64, f64), (f64, f64)),
    time: RouteTime,
    metres_before: f64,
    now: i64,
) -> Result<SegmentRisk, QueryError> {
    let a = grid::validate(from.0, from.1)
        .map_err(|e| coordinate_error(&e, e.field().name(), from.0))?;
    let b = grid::validate(to.0, to.1).map_err(|e| coordinate_error(&e, e.field().name(), to.0))?;
    // Every cell the segment passes, exactly, with the metres inside each.
    let cells = grid::cells_crossed(&[a, b], grid::RESOLUTION);
    let mut weight = 0.0;
    let mut mean = [0.0; 6];
    let mut worst = (f64::NEG_INFINITY, cells[0].0);
    let mut along = metres_before;
    for &(cell, metres) in &cells {
        // The traveller is at the cell's middle this far along the route.
        let here = along + metres / 2.0;
        along += metres;
        // Cells outside every city (a route leaving coverage) carry no forecast.
        let Some((city, position)) = atlas.locate_cell(cell) else {
            continue;
        };
        let when = time.after(here);
        let week = week(city, when, now).map_err(|e| {
            if matches!(time, RouteTime::Departure { .. }) {
                e.on("departure_time")
            } else {
                e
            }
        })?;
        let forecast = match (time, when) {
            (RouteTime::Departure { .. }, Some(when)) => match when.local_in(city) {
                Some(local) => city.band_forecast(position, week, local).1,
                None => city.forecast(position, week),
            },
            _ => city.forecast(position, week),
        };
        // Zero-length segments weigh their one cell fully.
        let w = metres.max(1e-9);
        weight += w;
        for (m, p) in mean.iter_mut().zip(forecast.probabilities) {
            *m += w * p;
        }
        let risk = 1.0 - forecast.probabilities[CrimeClass::NoCrime.index()];
        if risk > worst.0 {
            worst = (risk, cell);
        }
    }
    if weight == 0.0 {
        return Err(not_covered(to.0, to.1));
    }
    let mean_probabilities = mean.map(|m| m / weight);
    let distance_m = grid::distance_m(a, b);
    let middle = (
        f64::midpoint(a.lat(), b.lat()),
        f64::midpoint(a.lng(), b.lng()),
    );
    let expected_incidents = expected_incidents(
        atlas,
        (a, b),
        middle,
        (time, time.after(metres_before + distance_m / 2.0)),
        now,
    )?;
    Ok(SegmentRisk {
        distance_km: distance_m / 1000.0,
        expected_incidents,
        risk_score: 1.0 - mean_probabilities[CrimeClass::NoCrime.index()],
        mean_probabilities,
        worst_cell: worst.1,
    })
}

/// One segment's JSON, and a caution line when its level is high or very high.
fn segment_json(
    index: usize,
    risk: &SegmentRisk,
    start: (f64, f64),
    end: (f64, f64),
) -> (RouteSegment, Option<String>) {
    let cell = |p: (f64, f64)| {
        grid::cell_at(p.0, p.1)
            .map(|c| c.to_string())
            .unwrap_or_default()
    };
    let level = level_of_risk(risk.risk_score);
    let dominant = dominant_crime(&risk.mean_probabilities);
    let caution = matches!(level, RiskLevel::High | RiskLevel::VeryHigh).then(|| {
        let degree = if level == RiskLevel::High {
            "high"
        } else {
            "very high"
        };
        format!(
            "Segment {index}: {degree} risk, mostly {} (riskiest cell {}).",
            dominant.name(),
            risk.worst_cell
        )
    });
    let location = |p: (f64, f64)| CellLocation {
        latitude: p.0,
        longitude: p.1,
        cell_id: cell(p),
    };
    let segment = RouteSegment {
        segment_index: index,
        start: location(start),
        end: location(end),
        distance_km: risk.distance_km,
        expected_incidents: risk.expected_incidents,
        risk_score: risk.risk_score,
        risk_level: level,
        dominant_risk: dominant,
    };
    (segment, caution)
}

fn level_of_risk(risk_score: f64) -> RiskLevel {
    RiskLevel::from_no_crime_probability((1.0 - risk_score).clamp(0.0, 1.0))
        .unwrap_or(RiskLevel::VeryHigh)
}

fn dominant_crime(probabilities: &[f64; 6]) -> CrimeClass {
    let mut best = CRIME_CLASSES[0];
    for class in CRIME_CLASSES {
        if probabilities[class.index()] > probabilities[best.index()] {
            best = class;
        }
    }
    best
}

fn point(value: &Value, index: usize) -> Result<(f64, f64), QueryError> {
    let map = value.as_object().ok_or_else(|| {
        malformed(
            &format!("waypoints[{index}]"),
            "an object with latitude and longitude",
        )
    })?;
    coordinates(map, &format!("waypoints[{index}]."))
}

/// The waypoints of a route request, within the count and length limits.
fn waypoints(body: &Map<String, Value>) -> Result<Vec<(f64, f64)>, QueryError> {
    let waypoints = array(body, "waypoints")?;
    if waypoints.len() < 2 {
        return Err(
            QueryError::invalid("waypoints", "at least 2 waypoints are required")
                .with("value", waypoints.len()),
        );
    }
    if waypoints.len() > MAX_WAYPOINTS {
        return Err(QueryError::invalid(
            "waypoints",
            format!("at most {MAX_WAYPOINTS} waypoints per route"),
        )
        .with("limit", MAX_WAYPOINTS)
        .with("value", waypoints.len()));
    }
    let points = waypoints
        .iter()
        .enumerate()
        .map(|(i, w)| point(w, i))
        .collect::<Result<Vec<_>, _>>()?;
    let total_km: f64 = points
        .windows(2)
        .filter_map(|w| {
            Some(grid::distance_m(
                grid::validate(w[0].0, w[0].1).ok()?,
                grid::validate(w[1].0, w[1].1).ok()?,
            ))
        })
        .sum::<f64>()
        / 1000.0;
    if total_km > MAX_ROUTE_KM {
        return Err(QueryError::invalid(
            "waypoints",
            format!("routes may be at most {MAX_ROUTE_KM} km long"),
        )
        .with("limit", MAX_ROUTE_KM)
        .with("value", total_km));
    }
    Ok(points)
}

/// `POST /v1/route/risk`.
///
/// Each segment's `risk_score` is the length-weighted mean over the cells it
/// crosses of the probability of at least one incident that week
/// (`1 − P(NO_CRIME)`), and its level is the risk level of `1 − risk_score` as a
/// `NO_CRIME` probability. The route's score and level are the distance-weighted
/// means of its segments'. With `departure_time` each cell is scored in the time
/// band in which a traveller at the `travel_mode`'s speed reaches it instead.
///
/// # Errors
/// `INVALID_REQUEST` (fewer than 2 or more than [`MAX_WAYPOINTS`] waypoints, a route
/// longer than [`MAX_ROUTE_KM`]), `INVALID_COORDINATES`, `LOCATION_NOT_COVERED` (a
/// segment entirely outside coverage), `DATE_OUT_OF_RANGE`; `INVALID_REQUEST` for a
/// malformed `departure_time` or `travel_mode`, or both `datetime` and
/// `departure_time`.
pub fn route_risk(
    atlas: &Atlas,
    body: &Map<String, Value>,
    now: i64,
) -> Result<RouteAnalysis, QueryError> {
    let points = waypoints(body)?;
    let time = route_time(body)?;
    let mut metres_before = 0.0;
    let mut risks = Vec::with_capacity(points.len() - 1);
    for w in points.windows(2) {
        let risk = segment_risk(atlas, (w[0], w[1]), time, metres_before, now)?;
        metres_before += risk.distance_km * 1000.0;
        risks.push(risk);
    }

    let (segments, cautions): (Vec<RouteSegment>, Vec<Option<String>>) = risks
        .iter()
        .enumerate()
        .map(|(i, risk)| segment_json(i, risk, points[i], points[i + 1]))
        .unzip();
    let cautions: Vec<String> = cautions.into_iter().flatten().collect();
    let distance: f64 = risks.iter().map(|r| r.distance_km).sum();
    let overall = if distance > 0.0 {
        risks
            .iter()
            .map(|r| r.risk_score * r.distance_km)
            .sum::<f64>()
            / distance
    } else {
        risks.iter().map(|r| r.risk_score).sum::<f64>() / risks.len() as f64
    };
    let by_score = |pick_max: bool| {
        let mut best = 0;
        for (i, r) in risks.iter().enumerate() {
            let better = if pick_max {
                r.risk_score > risks[best].risk_score
            } else {
                r.risk_score < risks[best].risk_score
            };
            if better {
                best = i;
            }
        }
        best
    };
    let departure = match time {
        RouteTime::Departure { mode, .. } => Some(mode),
        RouteTime::Week(_) => None,
    };
    let route = RouteSummary {
        total_waypoints: points.len(),
        total_segments: risks.len(),
        total_distance_km: distance,
        total_expected_incidents: risks.iter().map(|r| r.expected_incidents).sum::<f64>(),
        overall_risk_score: overall,
        overall_risk_level: level_of_risk(overall),
        travel_mode: departure,
        speed_kmh: departure.map(TravelMode::speed_kmh),
        duration_minutes: departure.map(|mode| distance / mode.speed_kmh() * 60.0),
    };
    Ok(RouteAnalysis {
        status: Success,
        route,
        segments,
        recommendations: Recommendations {
            highest_risk_segment: by_score(true),
            safest_segment: by_score(false),
            caution_areas: cautions,
        },
    })
}
