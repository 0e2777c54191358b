//! `POST /v1/predict/batch`: many point predictions in one request, each location's
//! failure reported in its place.

use alloc::boxed::Box;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use serde_json::{Map, Value};

use super::{
    BatchFailure, BatchForecast, BatchItem, BatchResult, BatchSuccess, BatchSummary, CellLocation,
    When, applies_at, coordinates, datetime, locate, probabilities, time_of_day, week,
};
use crate::city::Atlas;
use crate::operations::{QueryError, Success, array, malformed};

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
) -> Result<BatchSuccess, QueryError> {
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
    Ok(BatchSuccess {
        index,
        status: Success,
        city: city.artifact().city.code.clone(),
        location: CellLocation {
            latitude,
            longitude,
            cell_id: cell.to_string(),
        },
        prediction: BatchForecast {
            probabilities: probabilities(&forecast),
            dominant_type: forecast.dominant(),
            risk_level: forecast.risk_level(),
            time_of_day: time_of_day(city, position, week, when),
        },
    })
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
) -> Result<BatchResult, QueryError> {
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
    let results: Vec<BatchItem> = locations
        .iter()
        .enumerate()
        .map(
            |(index, item)| match batch_item(atlas, index, item, when, now) {
                Ok(forecast) => BatchItem::Forecast(Box::new(forecast)),
                Err(err) => BatchItem::Failed(BatchFailure {
                    index,
                    status: "error",
                    code: err.code.as_str(),
                    message: err.message.clone(),
                    details: err.details(),
                }),
            },
        )
        .collect();
    let successful = results
        .iter()
        .filter(|r| matches!(r, BatchItem::Forecast(_)))
        .count();
    Ok(BatchResult {
        status: Success,
        timestamp: applies_at(None, when, now),
        summary: BatchSummary {
            total: results.len(),
            successful,
            failed: results.len() - successful,
        },
        results,
    })
}
