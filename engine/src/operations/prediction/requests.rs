//! The prediction API's requests as types: what each operation reads from its body
//! or query. The operations read the JSON by hand, so that each fault gets its own
//! code and field (`INVALID_COORDINATES` for a coordinate that is not a number,
//! `details.field` naming `locations[3].latitude`); these types say what they
//! accept, for the generated OpenAPI document, and the tests send each one to its
//! operation.

use alloc::string::String;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

#[cfg(feature = "schema")]
use super::{MAX_BATCH_LOCATIONS, MAX_WAYPOINTS};
use crate::corridor::TravelMode;

#[cfg(feature = "schema")]
use schemars::JsonSchema;

/// A point, as a request gives it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema), schemars(inline))]
pub struct Point {
    /// Degrees north, -90 to 90.
    pub latitude: f64,
    /// Degrees east, -180 to 180.
    pub longitude: f64,
}

/// `POST /v1/predict`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema), schemars(inline))]
pub struct PredictRequest {
    /// Degrees north, -90 to 90.
    pub latitude: f64,
    /// Degrees east, -180 to 180.
    pub longitude: f64,
    /// ISO 8601; with Z or an offset an instant, without one local time in the city,
    /// a date alone its midnight. Default: the current week.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub datetime: Option<String>,
}

/// `POST /v1/predict/batch`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema), schemars(inline))]
pub struct BatchRequest {
    /// The points, each answered in its place.
    #[cfg_attr(feature = "schema", schemars(length(min = 1, max = MAX_BATCH_LOCATIONS)))]
    pub locations: Vec<Point>,
    /// ISO 8601; with Z or an offset an instant, without one local time in the city,
    /// a date alone its midnight. Default: the current week.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub datetime: Option<String>,
}

/// `POST /v1/route/risk`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema), schemars(inline))]
pub struct RouteRiskRequest {
    /// The route's waypoints, in order; at most 200 km in all.
    #[cfg_attr(feature = "schema", schemars(length(min = 2, max = MAX_WAYPOINTS)))]
    pub waypoints: Vec<Point>,
    /// ISO 8601; with Z or an offset an instant, without one local time in the city,
    /// a date alone its midnight. Default: the current week.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub datetime: Option<String>,
    /// ISO 8601 departure (instant or local time). Each cell is scored in the time
    /// band in which a traveller at the `travel_mode`'s speed reaches it (docs/API.md,
    /// "Route risk by departure time"). Not together with `datetime`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub departure_time: Option<String>,
    /// 5, 15 or 30 km/h; used with `departure_time`. Default: walking.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub travel_mode: Option<TravelMode>,
}

/// `GET /v1/coverage`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct CoverageQuery {
    /// A city's code: that city's record only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub city: Option<String>,
}

/// `GET /v1/prediction/range`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct RangeQuery {
    /// Degrees north, -90 to 90.
    pub latitude: f64,
    /// Degrees east, -180 to 180.
    pub longitude: f64,
}
