//! The prediction API's answers as types: what `POST /v1/predict`, the batch, route
//! risk and the catalogue operations return, serialised member for member in the
//! order the specification shows. Their schemas (feature `schema`) are the
//! components of the generated OpenAPI document (`edge-worker/openapi/prediction-v1.json`).

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;

use serde::Serialize;

use crate::city::Forecast;
use crate::corridor::TravelMode;
use crate::forecast::{ClassRecord, CrimeClass, RiskLevel};
use crate::operations::Success;

#[cfg(feature = "schema")]
use schemars::{JsonSchema, SchemaGenerator, json_schema};

/// Outcome probabilities keyed by class code, every class present, summing to 1.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Probabilities(pub [f64; 6]);

impl From<&Forecast> for Probabilities {
    fn from(forecast: &Forecast) -> Self {
        Self(forecast.probabilities)
    }
}

impl Serialize for Probabilities {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(CrimeClass::ALL.len()))?;
        for class in CrimeClass::ALL {
            map.serialize_entry(class.code(), &self.0[class.index()])?;
        }
        map.end()
    }
}

#[cfg(feature = "schema")]
impl JsonSchema for Probabilities {
    fn schema_name() -> alloc::borrow::Cow<'static, str> {
        "Probabilities".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> schemars::Schema {
        let probability = serde_json::json!({ "type": "number", "minimum": 0, "maximum": 1 });
        let properties: serde_json::Map<String, serde_json::Value> = CrimeClass::ALL
            .iter()
            .map(|class| (class.code().into(), probability.clone()))
            .collect();
        let required: Vec<&str> = CrimeClass::ALL.iter().map(|c| c.code()).collect();
        json_schema!({
            "description": "Outcome probabilities keyed by class code, every class present, summing to 1.",
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": false,
        })
    }
}

/// A point on the map.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Coordinate {
    /// Degrees north.
    #[cfg_attr(feature = "schema", schemars(range(min = -90, max = 90)))]
    pub latitude: f64,
    /// Degrees east.
    #[cfg_attr(feature = "schema", schemars(range(min = -180, max = 180)))]
    pub longitude: f64,
}

/// A requested point and the H3 cell (resolution 8) holding it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct CellLocation {
    /// Degrees north, as requested.
    pub latitude: f64,
    /// Degrees east, as requested.
    pub longitude: f64,
    /// The H3 cell, as 15 hexadecimal digits.
    #[cfg_attr(feature = "schema", schemars(regex(pattern = r"^8[0-9a-f]{14}$")))]
    pub cell_id: String,
}

/// A city by code and name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema), schemars(inline))]
#[serde(deny_unknown_fields)]
pub struct CityName {
    /// The city's code, for example `city_ca_tor`.
    pub code: String,
    /// Its display name.
    pub name: String,
}

/// `location` of a point prediction: the request's point, its cell and the cell's
/// centre.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema), schemars(inline))]
#[serde(deny_unknown_fields)]
pub struct PredictionLocation {
    /// Degrees north, as requested.
    pub latitude: f64,
    /// Degrees east, as requested.
    pub longitude: f64,
    /// The H3 cell (resolution 8) holding the point.
    #[cfg_attr(feature = "schema", schemars(regex(pattern = r"^8[0-9a-f]{14}$")))]
    pub cell_id: String,
    /// The cell's centre.
    pub grid_center: Coordinate,
}

/// The forecast of the time band of the week holding the request's datetime in the
/// city's local time (present only when the request has a datetime). See
/// docs/API.md, "Time of day".
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct TimeOfDay {
    /// Day type and local hours, e.g. "weekend 22:00-02:00".
    pub band: String,
    /// `weekday` or `weekend`.
    #[cfg_attr(feature = "schema", schemars(extend("enum" = ["weekday", "weekend"])))]
    pub day_type: &'static str,
    /// Local start with the city's UTC offset.
    #[cfg_attr(feature = "schema", schemars(extend("format" = "date-time")))]
    pub start: String,
    /// Local end (exclusive) with the city's UTC offset.
    #[cfg_attr(feature = "schema", schemars(extend("format" = "date-time")))]
    pub end: String,
    /// The band's outcome probabilities.
    pub probabilities: Probabilities,
    /// The most likely outcome in the band.
    pub dominant_type: CrimeClass,
    /// The probability of `dominant_type`.
    #[cfg_attr(feature = "schema", schemars(range(min = 0, max = 1)))]
    pub confidence: f64,
    /// The band's risk level.
    pub risk_level: RiskLevel,
    /// Per class with rates: what the band's share is learnt from.
    pub profile: ClassProfiles,
}

/// What each class's time-of-day profile was learnt from, keyed by class code.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema), schemars(inline))]
#[serde(transparent)]
pub struct ClassProfiles(
    #[cfg_attr(feature = "schema", schemars(schema_with = "profile_bases"))]
    pub  serde_json::Map<String, serde_json::Value>,
);

/// The forecast of a point prediction.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema), schemars(inline))]
#[serde(deny_unknown_fields)]
pub struct PointForecast {
    /// The instant the prediction applies to.
    #[cfg_attr(feature = "schema", schemars(extend("format" = "date-time")))]
    pub datetime: String,
    /// The Monday of the forecast week, in the city's local calendar.
    #[cfg_attr(feature = "schema", schemars(extend("format" = "date")))]
    pub week_of: String,
    /// The week's outcome probabilities.
    pub probabilities: Probabilities,
    /// The most likely outcome.
    pub dominant_type: CrimeClass,
    /// The probability of `dominant_type`.
    #[cfg_attr(feature = "schema", schemars(range(min = 0, max = 1)))]
    pub confidence: f64,
    /// The week's risk level, from the `NO_CRIME` probability.
    pub risk_level: RiskLevel,
    /// The forecast of the requested time's band (only with a `datetime`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_of_day: Option<TimeOfDay>,
}

/// The model an answer comes from.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema), schemars(inline))]
#[serde(deny_unknown_fields)]
pub struct ModelInfo {
    /// The model version: its data-through date and the first 12 hex digits of its
    /// artifact's SHA-256.
    pub version: String,
    /// The model's mean absolute error on held-out weeks.
    pub mae: f64,
    /// The last date of the data it was fitted to.
    #[cfg_attr(feature = "schema", schemars(extend("format" = "date")))]
    pub last_updated: String,
}

/// `POST /v1/predict`: the forecast of one location.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Prediction {
    /// `success`.
    pub status: Success,
    /// The city holding the location.
    pub city: CityName,
    /// The location and its cell.
    pub location: PredictionLocation,
    /// The forecast.
    pub prediction: PointForecast,
    /// The model it comes from.
    pub model_info: ModelInfo,
}

/// The forecast of one batch location (without the point prediction's `datetime`,
/// `week_of` and `confidence`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema), schemars(inline))]
#[serde(deny_unknown_fields)]
pub struct BatchForecast {
    /// The week's outcome probabilities.
    pub probabilities: Probabilities,
    /// The most likely outcome.
    pub dominant_type: CrimeClass,
    /// The week's risk level.
    pub risk_level: RiskLevel,
    /// The forecast of the requested time's band (only with a `datetime`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_of_day: Option<TimeOfDay>,
}

/// One location's result in a batch: its forecast, or the error a single request
/// for it would get.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(untagged)]
pub enum BatchItem {
    /// The location's forecast.
    Forecast(Box<BatchSuccess>),
    /// Why the location has none.
    Failed(BatchFailure),
}

/// A batch location with a forecast.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema), schemars(inline))]
#[serde(deny_unknown_fields)]
pub struct BatchSuccess {
    /// The location's place in the request's `locations`.
    pub index: usize,
    /// `success`.
    pub status: Success,
    /// The code of the city holding it.
    pub city: String,
    /// The location and its cell.
    pub location: CellLocation,
    /// The forecast.
    pub prediction: BatchForecast,
}

/// A batch location without a forecast.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema), schemars(inline))]
#[serde(deny_unknown_fields)]
pub struct BatchFailure {
    /// The location's place in the request's `locations`.
    pub index: usize,
    /// `error`.
    #[cfg_attr(feature = "schema", schemars(extend("const" = "error")))]
    pub status: &'static str,
    /// The error code a single request for the location would get.
    pub code: &'static str,
    /// What is wrong.
    pub message: String,
    /// The error's details, as a single request would get them.
    pub details: serde_json::Map<String, serde_json::Value>,
}

/// Counts of a batch's results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema), schemars(inline))]
#[serde(deny_unknown_fields)]
pub struct BatchSummary {
    /// Locations asked for.
    pub total: usize,
    /// Locations with a forecast.
    pub successful: usize,
    /// Locations without one.
    pub failed: usize,
}

/// `POST /v1/predict/batch`: one result per location, in request order.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct BatchResult {
    /// `success`.
    pub status: Success,
    /// The instant the predictions apply to.
    pub timestamp: String,
    /// One result per location, in request order.
    pub results: Vec<BatchItem>,
    /// Counts of the results.
    pub summary: BatchSummary,
}

/// The whole route of a route-risk answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema), schemars(inline))]
#[serde(deny_unknown_fields)]
pub struct RouteSummary {
    /// Waypoints given.
    pub total_waypoints: usize,
    /// Segments between them.
    pub total_segments: usize,
    /// The segments' straight-line lengths summed.
    pub total_distance_km: f64,
    /// The segments' expected incidents summed.
    #[cfg_attr(feature = "schema", schemars(range(min = 0)))]
    pub total_expected_incidents: f64,
    /// The segments' risk scores weighted by length.
    #[cfg_attr(feature = "schema", schemars(range(min = 0, max = 1)))]
    pub overall_risk_score: f64,
    /// The level of `overall_risk_score`.
    pub overall_risk_level: RiskLevel,
    /// How the route is travelled (present with `departure_time`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub travel_mode: Option<TravelMode>,
    /// The mode's speed (present with `departure_time`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub speed_kmh: Option<f64>,
    /// The total distance at `speed_kmh` (present with `departure_time`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_minutes: Option<f64>,
}

/// One segment between consecutive waypoints.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema), schemars(inline))]
#[serde(deny_unknown_fields)]
pub struct RouteSegment {
    /// The segment's place along the route, from 0.
    pub segment_index: usize,
    /// Its first waypoint.
    pub start: CellLocation,
    /// Its last waypoint.
    pub end: CellLocation,
    /// Its straight-line length.
    pub distance_km: f64,
    /// Expected incidents passed on the streets the segment follows: matched to the
    /// streets in pieces of at most 20 m (a piece within 15 m of a street counts that
    /// street's expected incidents per metre, any other its cell's), every class
    /// counted once, in the week of the segment's middle, or with `departure_time` in
    /// the time-of-day band the traveller is there.
    #[cfg_attr(feature = "schema", schemars(range(min = 0)))]
    pub expected_incidents: f64,
    /// The probability of any incident in the segment's cells, by length.
    #[cfg_attr(feature = "schema", schemars(range(min = 0, max = 1)))]
    pub risk_score: f64,
    /// The level of `risk_score`.
    pub risk_level: RiskLevel,
    /// The most likely class of crime along it (never `NO_CRIME`).
    #[cfg_attr(feature = "schema", schemars(schema_with = "crime_class_code"))]
    pub dominant_risk: CrimeClass,
}

/// Where a route's risk lies.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema), schemars(inline))]
#[serde(deny_unknown_fields)]
pub struct Recommendations {
    /// The index of the riskiest segment.
    pub highest_risk_segment: usize,
    /// The index of the safest segment.
    pub safest_segment: usize,
    /// A sentence for each segment of high or very high risk.
    pub caution_areas: Vec<String>,
}

/// `POST /v1/route/risk`: segment and route scores.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RouteAnalysis {
    /// `success`.
    pub status: Success,
    /// The whole route.
    pub route: RouteSummary,
    /// One per pair of consecutive waypoints.
    pub segments: Vec<RouteSegment>,
    /// Where the risk lies.
    pub recommendations: Recommendations,
}

/// A city's forecast weeks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema), schemars(inline))]
#[serde(deny_unknown_fields)]
pub struct WeekSpan {
    /// The first day with a forecast.
    #[cfg_attr(feature = "schema", schemars(extend("format" = "date")))]
    pub start: String,
    /// The last day with a forecast.
    #[cfg_attr(feature = "schema", schemars(extend("format" = "date")))]
    pub end: String,
}

/// A served city.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct City {
    /// The city's code.
    #[cfg_attr(
        feature = "schema",
        schemars(regex(pattern = r"^city_[a-z]{2}_[a-z]+$"))
    )]
    pub code: String,
    /// Its display name.
    pub name: String,
    /// Its country.
    pub country: String,
    /// Its IANA time zone.
    pub timezone: String,
    /// `active`.
    #[cfg_attr(feature = "schema", schemars(extend("const" = "active")))]
    pub status: &'static str,
    /// The last date of the data its model was fitted to.
    #[cfg_attr(feature = "schema", schemars(extend("format" = "date")))]
    pub last_updated: String,
    /// Its forecast weeks.
    pub prediction_range: WeekSpan,
    /// Cells of its grid.
    pub grid_cells: usize,
    /// Its model's mean absolute error on held-out weeks.
    pub model_mae: f64,
    /// The model version the city's answers come from: its data-through date and the
    /// first 12 hex digits of its artifact's SHA-256.
    #[cfg_attr(
        feature = "schema",
        schemars(regex(pattern = r"^\d{4}-\d{2}-\d{2}\.[0-9a-f]{12}$"))
    )]
    pub model_version: String,
}

/// `GET /v1/cities`: every served city, by code.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Cities {
    /// `success`.
    pub status: Success,
    /// How many cities.
    pub total: usize,
    /// The cities, by code.
    pub cities: Vec<City>,
}

/// A city's bounding box, in degrees.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema), schemars(inline))]
#[serde(deny_unknown_fields)]
pub struct Bounds {
    /// Northern edge.
    pub north: f64,
    /// Southern edge.
    pub south: f64,
    /// Eastern edge.
    pub east: f64,
    /// Western edge.
    pub west: f64,
}

/// A city's bounds and grid.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct CoverageRecord {
    /// The city's code.
    pub city: String,
    /// Its bounding box.
    pub bounds: Bounds,
    /// Cells of its grid.
    pub grid_cells: usize,
    /// The area of one cell.
    pub cell_size_km2: f64,
    /// `H3`.
    #[cfg_attr(feature = "schema", schemars(extend("const" = "H3")))]
    pub spatial_system: &'static str,
    /// `8`.
    #[cfg_attr(feature = "schema", schemars(extend("const" = 8)))]
    pub h3_resolution: u8,
}

/// `GET /v1/coverage?city=…`: one city's record.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct Coverage {
    /// `success`.
    pub status: Success,
    /// The record.
    #[serde(flatten)]
    pub record: CoverageRecord,
}

/// `GET /v1/coverage` without `city`: every city's record.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct CoverageList {
    /// `success`.
    pub status: Success,
    /// How many cities.
    pub total: usize,
    /// Each city's record, by code.
    pub coverage: Vec<CoverageRecord>,
}

/// `GET /v1/coverage`: one city's record with `city`, every city's without.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(untagged)]
pub enum CoverageAnswer {
    /// One city's record (`city` given).
    City(Coverage),
    /// Every city's (no `city`).
    Every(CoverageList),
}

/// `GET /v1/classes`: the crime classes, in the order of every answer's
/// probabilities.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Classes {
    /// `success`.
    pub status: Success,
    /// The six classes.
    #[cfg_attr(feature = "schema", schemars(length(min = 6, max = 6)))]
    pub classes: Vec<ClassRecord>,
}

/// The point of a prediction-range request and its city.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema), schemars(inline))]
#[serde(deny_unknown_fields)]
pub struct RangeLocation {
    /// Degrees north, as requested.
    pub latitude: f64,
    /// Degrees east, as requested.
    pub longitude: f64,
    /// The code of the city holding it.
    pub city: String,
}

/// A city's forecast weeks and how many there are.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema), schemars(inline))]
#[serde(deny_unknown_fields)]
pub struct WeekRange {
    /// The first day with a forecast.
    #[cfg_attr(feature = "schema", schemars(extend("format" = "date")))]
    pub start: String,
    /// The last day with a forecast.
    #[cfg_attr(feature = "schema", schemars(extend("format" = "date")))]
    pub end: String,
    /// Forecast weeks.
    pub weeks_available: usize,
}

/// `GET /v1/prediction/range`: the forecast weeks of the city holding a point.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct PredictionRange {
    /// `success`.
    pub status: Success,
    /// The point and its city.
    pub location: RangeLocation,
    /// The city's forecast weeks.
    pub range: WeekRange,
    /// The Monday of the week the clock falls in, if it has a forecast.
    #[cfg_attr(feature = "schema", schemars(extend("format" = "date")))]
    pub current_week: Option<String>,
}

/// The schema of a crime class other than `NO_CRIME`.
#[cfg(feature = "schema")]
fn crime_class_code(_: &mut SchemaGenerator) -> schemars::Schema {
    let codes: Vec<&str> = crate::forecast::CRIME_CLASSES
        .iter()
        .map(|c| c.code())
        .collect();
    json_schema!({ "type": "string", "enum": codes })
}

/// The schema of a time-of-day profile's bases: `cells`, `city` or `flat` per class.
#[cfg(feature = "schema")]
fn profile_bases(_: &mut SchemaGenerator) -> schemars::Schema {
    use crate::forecast::ProfileBasis;
    let codes: Vec<&str> = [ProfileBasis::Cells, ProfileBasis::City, ProfileBasis::Flat]
        .iter()
        .map(|basis| basis.code())
        .collect();
    json_schema!({ "type": "object", "additionalProperties": { "enum": codes } })
}
