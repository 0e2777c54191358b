//! The prediction API's resources (`/v1`): batch and route predictions, cities,
//! coverage, classes and prediction ranges, built from the engine's models.
//!
//! Handlers take parsed input and the [`Atlas`] and return the JSON body, or an
//! [`ApiError`]; authentication and quotas are applied around them in `dispatch`.
//! The point prediction (`POST /v1/predict`) is the engine's
//! [`hexrisk_engine::api::predict`], shared with the npm package, like the field
//! readers and the forecast week used here.

use chrono::{DateTime, Utc};
use serde_json::{Map, Value, json};

use hexrisk_engine::api::prediction::{
    When, applies_at, coordinates, datetime, locate, not_covered, probabilities, week,
};
use hexrisk_engine::api::{array, coordinate_error, malformed};
use hexrisk_engine::city::{Atlas, CityModel};
use hexrisk_engine::forecast::{CRIME_CLASSES, ClassRecord, CrimeClass, RiskLevel};
use hexrisk_engine::grid::{self, RESOLUTION};

use super::input;
use super::{ApiError, ErrorCode};

/// Most locations in one batch request.
pub const MAX_BATCH_LOCATIONS: usize = 500;

/// Most waypoints in one route request.
pub const MAX_WAYPOINTS: usize = 100;

/// Longest route accepted, in kilometres (sum of the segments).
pub const MAX_ROUTE_KM: f64 = 200.0;

fn batch_item(
    atlas: &Atlas,
    index: usize,
    item: &Value,
    when: Option<When>,
    now: DateTime<Utc>,
) -> Result<Value, ApiError> {
    let prefix = format!("locations[{index}].");
    let map = item.as_object().ok_or_else(|| {
        malformed(
            &format!("locations[{index}]"),
            "an object with latitude and longitude",
        )
    })?;
    let (latitude, longitude) = coordinates(map, &prefix)?;
    let (city, cell, position) = locate(atlas, latitude, longitude)?;
    let week = week(city, when, now.timestamp())?;
    let forecast = city.forecast(position, week);
    Ok(json!({
        "index": index,
        "status": "success",
        "city": city.artifact().city.code,
        "location": { "latitude": latitude, "longitude": longitude, "cell_id": cell.to_string() },
        "prediction": {
            "probabilities": probabilities(&forecast),
            "dominant_type": forecast.dominant().code(),
            "risk_level": forecast.risk_level().code(),
        },
    }))
}

/// `POST /v1/predict/batch`: one result per location, failures in place.
///
/// # Errors
/// `INVALID_REQUEST` for a missing, empty or oversize `locations`, or a bad `datetime`.
pub fn predict_batch(
    atlas: &Atlas,
    body: &Map<String, Value>,
    now: DateTime<Utc>,
) -> Result<Value, ApiError> {
    let locations = array(body, "locations")?;
    if locations.is_empty() {
        return Err(
            ApiError::new(ErrorCode::InvalidRequest, "locations must not be empty")
                .with("field", "locations"),
        );
    }
    if locations.len() > MAX_BATCH_LOCATIONS {
        return Err(ApiError::new(
            ErrorCode::InvalidRequest,
            format!("at most {MAX_BATCH_LOCATIONS} locations per request"),
        )
        .with("field", "locations")
        .with("limit", MAX_BATCH_LOCATIONS)
        .with("value", locations.len()));
    }
    let when = datetime(body)?;
    let results: Vec<Value> = locations
        .iter()
        .enumerate()
        .map(|(index, item)| {
            batch_item(atlas, index, item, when, now).unwrap_or_else(|err| {
                json!({
                    "index": index,
                    "status": "error",
                    "code": err.code.as_str(),
                    "message": err.message,
                    "details": err.details,
                })
            })
        })
        .collect();
    let successful = results.iter().filter(|r| r["status"] == "success").count();
    Ok(json!({
        "status": "success",
        "timestamp": applies_at(None, when, now.timestamp()),
        "results": results,
        "summary": {
            "total": results.len(),
            "successful": successful,
            "failed": results.len() - successful,
        },
    }))
}

/// Risk of one route segment: the length-weighted mean over the cells it crosses.
struct SegmentRisk {
    distance_km: f64,
    /// Length-weighted mean of `P(at least one incident)` = `1 − P(NO_CRIME)`.
    risk_score: f64,
    /// Length-weighted mean outcome probabilities.
    mean_probabilities: [f64; 6],
    worst_cell: hexrisk_engine::CellIndex,
}

fn segment_risk(
    atlas: &Atlas,
    from: (f64, f64),
    to: (f64, f64),
    when: Option<When>,
    now: DateTime<Utc>,
) -> Result<SegmentRisk, ApiError> {
    let a = grid::validate(from.0, from.1)
        .map_err(|e| coordinate_error(&e, e.field().name(), from.0))?;
    let b = grid::validate(to.0, to.1).map_err(|e| coordinate_error(&e, e.field().name(), to.0))?;
    // Every cell the segment passes, exactly, with the metres inside each.
    let cells = grid::cells_crossed(&[a, b], grid::RESOLUTION);
    let mut weight = 0.0;
    let mut mean = [0.0; 6];
    let mut worst = (f64::NEG_INFINITY, cells[0].0);
    for &(cell, metres) in &cells {
        // Cells outside every city (a route leaving coverage) carry no forecast.
        let Some((city, position)) = atlas.locate_cell(cell) else {
            continue;
        };
        let forecast = city.forecast(position, week(city, when, now.timestamp())?);
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
        return Err(not_covered(to.0, to.1).into());
    }
    let mean_probabilities = mean.map(|m| m / weight);
    Ok(SegmentRisk {
        distance_km: grid::distance_m(a, b) / 1000.0,
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
) -> (Value, Option<String>) {
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
    let json = json!({
        "segment_index": index,
        "start": { "latitude": start.0, "longitude": start.1, "cell_id": cell(start) },
        "end": { "latitude": end.0, "longitude": end.1, "cell_id": cell(end) },
        "distance_km": risk.distance_km,
        "risk_score": risk.risk_score,
        "risk_level": level.code(),
        "dominant_risk": dominant.code(),
    });
    (json, caution)
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

fn point(value: &Value, index: usize) -> Result<(f64, f64), ApiError> {
    let map = value.as_object().ok_or_else(|| {
        malformed(
            &format!("waypoints[{index}]"),
            "an object with latitude and longitude",
        )
    })?;
    Ok(coordinates(map, &format!("waypoints[{index}]."))?)
}

/// `POST /v1/route/risk`.
///
/// Each segment's `risk_score` is the length-weighted mean over the cells it
/// crosses of the probability of at least one incident that week
/// (`1 − P(NO_CRIME)`), and its level is the risk level of `1 − risk_score` as a
/// `NO_CRIME` probability. The route's score and level are the distance-weighted
/// means of its segments'.
///
/// # Errors
/// `INVALID_REQUEST` (fewer than 2 or more than [`MAX_WAYPOINTS`] waypoints, a route
/// longer than [`MAX_ROUTE_KM`]), `INVALID_COORDINATES`, `LOCATION_NOT_COVERED` (a
/// segment entirely outside coverage), `DATE_OUT_OF_RANGE`.
pub fn route_risk(
    atlas: &Atlas,
    body: &Map<String, Value>,
    now: DateTime<Utc>,
) -> Result<Value, ApiError> {
    let waypoints = array(body, "waypoints")?;
    if waypoints.len() < 2 {
        return Err(ApiError::new(
            ErrorCode::InvalidRequest,
            "at least 2 waypoints are required",
        )
        .with("field", "waypoints")
        .with("value", waypoints.len()));
    }
    if waypoints.len() > MAX_WAYPOINTS {
        return Err(ApiError::new(
            ErrorCode::InvalidRequest,
            format!("at most {MAX_WAYPOINTS} waypoints per route"),
        )
        .with("field", "waypoints")
        .with("limit", MAX_WAYPOINTS)
        .with("value", waypoints.len()));
    }
    let when = datetime(body)?;
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
        return Err(ApiError::new(
            ErrorCode::InvalidRequest,
            format!("routes may be at most {MAX_ROUTE_KM} km long"),
        )
        .with("field", "waypoints")
        .with("limit", MAX_ROUTE_KM)
        .with("value", total_km));
    }
    let risks = points
        .windows(2)
        .map(|w| segment_risk(atlas, w[0], w[1], when, now))
        .collect::<Result<Vec<_>, _>>()?;

    let (segments, cautions): (Vec<Value>, Vec<Option<String>>) = risks
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
    Ok(json!({
        "status": "success",
        "route": {
            "total_waypoints": points.len(),
            "total_segments": risks.len(),
            "total_distance_km": distance,
            "overall_risk_score": overall,
            "overall_risk_level": level_of_risk(overall).code(),
        },
        "segments": segments,
        "recommendations": {
            "highest_risk_segment": by_score(true),
            "safest_segment": by_score(false),
            "caution_areas": cautions,
        },
    }))
}

fn city_record(city: &CityModel, now: DateTime<Utc>) -> Value {
    let info = &city.artifact().city;
    let range = city.prediction_range(now.timestamp());
    json!({
        "code": info.code,
        "name": info.name,
        "country": info.country,
        "timezone": info.timezone,
        "status": "active",
        "last_updated": city.artifact().model.last_updated.to_string(),
        "prediction_range": { "start": range.start.to_string(), "end": range.end.to_string() },
        "grid_cells": city.cell_count(),
        "model_mae": city.artifact().model.mae,
        "model_version": city.artifact().model.version,
    })
}

fn sorted_cities(atlas: &Atlas) -> Vec<&CityModel> {
    let mut cities: Vec<&CityModel> = atlas.cities().iter().map(AsRef::as_ref).collect();
    cities.sort_by(|a, b| a.artifact().city.code.cmp(&b.artifact().city.code));
    cities
}

/// `GET /v1/cities`.
#[must_use]
pub fn cities(atlas: &Atlas, now: DateTime<Utc>) -> Value {
    let records: Vec<Value> = sorted_cities(atlas)
        .into_iter()
        .map(|c| city_record(c, now))
        .collect();
    json!({ "status": "success", "total": records.len(), "cities": records })
}

fn coverage_record(city: &CityModel) -> Value {
    let b = city.artifact().bounds;
    json!({
        "city": city.artifact().city.code,
        "bounds": { "north": b.north, "south": b.south, "east": b.east, "west": b.west },
        "grid_cells": city.cell_count(),
        "cell_size_km2": RESOLUTION.area_km2(),
        "spatial_system": "H3",
        "h3_resolution": u8::from(RESOLUTION),
    })
}

/// `GET /v1/coverage[?city=…]`: one city's record, or every city's in `coverage`.
///
/// # Errors
/// `INVALID_REQUEST` for an unknown city code, listing the known ones.
pub fn coverage(atlas: &Atlas, city: Option<&str>) -> Result<Value, ApiError> {
    let Some(code) = city else {
        let records: Vec<Value> = sorted_cities(atlas)
            .into_iter()
            .map(coverage_record)
            .collect();
        return Ok(json!({ "status": "success", "total": records.len(), "coverage": records }));
    };
    let model = atlas.city(code).ok_or_else(|| {
        let known: Vec<Value> = sorted_cities(atlas)
            .iter()
            .map(|c| json!(c.artifact().city.code))
            .collect();
        ApiError::new(ErrorCode::InvalidRequest, "unknown city code")
            .with("field", "city")
            .with("value", code)
            .with("valid_values", known)
            .with("suggestion", "See GET /v1/cities for the covered cities.")
    })?;
    let mut record = coverage_record(model);
    record["status"] = json!("success");
    Ok(record)
}

/// `GET /v1/classes`.
#[must_use]
pub fn classes() -> Value {
    let records: Vec<ClassRecord> = CrimeClass::ALL.into_iter().map(ClassRecord::from).collect();
    json!({ "status": "success", "classes": records })
}

/// `GET /v1/prediction/range?latitude=…&longitude=…`.
///
/// # Errors
/// The same codes as `POST /v1/predict` for the coordinates.
pub fn prediction_range(
    atlas: &Atlas,
    query: &[(String, String)],
    now: DateTime<Utc>,
) -> Result<Value, ApiError> {
    let (latitude, longitude) = input::query_coordinates(query)?;
    let (city, _, _) = locate(atlas, latitude, longitude)?;
    let range = city.prediction_range(now.timestamp());
    Ok(json!({
        "status": "success",
        "location": { "latitude": latitude, "longitude": longitude, "city": city.artifact().city.code },
        "range": {
            "start": range.start.to_string(),
            "end": range.end.to_string(),
            "weeks_available": range.weeks_available,
        },
        "current_week": range.current_week.map(|d| d.to_string()),
    }))
}

#[cfg(test)]
pub(crate) mod tests;
