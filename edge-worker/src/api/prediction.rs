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
    When, applies_at, coordinates, datetime, locate, probabilities, time_of_day, week,
};
use hexrisk_engine::api::{array, malformed};
use hexrisk_engine::city::{Atlas, CityModel};
use hexrisk_engine::forecast::{ClassRecord, CrimeClass};
use hexrisk_engine::grid::RESOLUTION;

use super::input;
use super::{ApiError, ErrorCode};

mod route_risk;

pub use route_risk::{MAX_ROUTE_KM, MAX_WAYPOINTS, TravelMode, route_risk};

/// Most locations in one batch request.
pub const MAX_BATCH_LOCATIONS: usize = 500;

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
    let mut answer = json!({
        "index": index,
        "status": "success",
        "city": city.artifact().city.code,
        "location": { "latitude": latitude, "longitude": longitude, "cell_id": cell.to_string() },
        "prediction": {
            "probabilities": probabilities(&forecast),
            "dominant_type": forecast.dominant().code(),
            "risk_level": forecast.risk_level().code(),
        },
    });
    if let Some(record) = time_of_day(city, position, week, when) {
        answer["prediction"]["time_of_day"] = record;
    }
    Ok(answer)
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
    // `status` first, as the specification's coverage record shows it.
    let mut answer = serde_json::Map::new();
    answer.insert("status".into(), json!("success"));
    if let Value::Object(record) = coverage_record(model) {
        answer.extend(record);
    }
    Ok(Value::Object(answer))
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
mod tests;
