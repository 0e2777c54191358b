//! `POST /v1/predict/batch`: many point predictions in one request, each location's
//! failure reported in its place.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use serde_json::{Map, Value, json};

use super::{When, applies_at, coordinates, datetime, locate, probabilities, time_of_day, week};
use crate::city::Atlas;
use crate::operations::{QueryError, array, malformed};

/// Most locations in one batch request.
pub const MAX_BATCH_LOCATIONS: usize = 500;

/// One location's answer (without the point prediction's `grid_center`,
/// `datetime`, `week_of`, `confidence` and `model_info`).
fn batch_item(
    atlas: &Atlas,
    index: usize,
    item: &Value,
    when: Option<When>,
    now: i64,
) -> Result<Value, QueryError> {
    let prefix = format!("locations[{index}].");
    let map = item.as_object().ok_or_else(|| {
        malformed(
            &format!("locations[{index}]"),
            "an object with latitude and longitude",
        )
    })?;
    let (latitude, longitude) = coordinates(map, &prefix)?;
    let (city, cell, position) = locate(atlas, latitude, longitude)?;
    let week = week(city, when, now)?;
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

/// `POST /v1/predict/batch`: one result per location, in request order, failures in
/// place (`status: "error"` with the code, message and details a single request
/// would get), and a summary.
///
/// # Errors
/// `INVALID_REQUEST` for a missing, empty or oversize `locations` (more than
/// [`MAX_BATCH_LOCATIONS`]), or a bad `datetime`.
pub fn predict_batch(
    atlas: &Atlas,
    body: &Map<String, Value>,
    now: i64,
) -> Result<Value, QueryError> {
    let locations = array(body, "locations")?;
    if locations.is_empty() {
        return Err(QueryError::invalid(
            "locations",
            "locations must not be empty",
        ));
    }
    if locations.len() > MAX_BATCH_LOCATIONS {
        return Err(QueryError::invalid(
            "locations",
            format!("at most {MAX_BATCH_LOCATIONS} locations per request"),
        )
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
                    "details": err.details(),
                })
            })
        })
        .collect();
    let successful = results.iter().filter(|r| r["status"] == "success").count();
    Ok(json!({
        "status": "success",
        "timestamp": applies_at(None, when, now),
        "results": results,
        "summary": {
            "total": results.len(),
            "successful": successful,
            "failed": results.len() - successful,
        },
    }))
}
