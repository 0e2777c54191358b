//! The prediction API (`/v1`) on JSON, the same requests and answers for the HTTP
//! API (`edge-worker`) and the npm package: the point prediction (`POST /v1/predict`,
//! here), batches ([`predict_batch`]), route risk ([`route_risk()`]) and what the API
//! covers ([`cities`], [`coverage`], [`classes`], [`prediction_range`]), with the
//! field readers they share (coordinates, `datetime`, the forecast week, the instant a
//! prediction applies to). `now` is seconds since the epoch: the forecasting clock,
//! which picks the week when a request names none.

use alloc::borrow::ToOwned;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;

use chrono::{DateTime, NaiveDate, NaiveDateTime, SecondsFormat, Utc};
use serde_json::{Map, Value, json};

use super::{ErrorCode, QueryError, coordinate_error, dates, malformed, missing};
use crate::CellIndex;
use crate::city::{Atlas, CityModel, Forecast, LocateError};
use crate::grid;
use crate::operations::Success;

mod answers;
mod batch;
mod catalogue;
mod requests;
mod route_risk;

pub use answers::{
    BatchFailure, BatchForecast, BatchItem, BatchResult, BatchSuccess, BatchSummary, Bounds,
    CellLocation, Cities, City, CityName, ClassProfiles, Classes, Coordinate, Coverage,
    CoverageAnswer, CoverageList, CoverageRecord, ModelInfo, PointForecast, Prediction,
    PredictionLocation, PredictionRange, Probabilities, RangeLocation, Recommendations,
    RouteAnalysis, RouteSegment, RouteSummary, TimeOfDay, WeekRange, WeekSpan,
};
pub use batch::{MAX_BATCH_LOCATIONS, predict_batch};
pub use catalogue::{cities, classes, coverage, prediction_range};
pub use requests::{
    BatchRequest, CoverageQuery, Point, PredictRequest, RangeQuery, RouteRiskRequest,
};
pub use route_risk::{MAX_ROUTE_KM, MAX_WAYPOINTS, route_risk};

/// Suggestion sent with `LOCATION_NOT_COVERED`.
pub const COVERAGE_SUGGESTION: &str =
    "See GET /v1/cities for the covered cities and GET /v1/coverage for their bounds.";

/// A requested time: an instant, or a local time in the city of the location.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum When {
    /// ISO 8601 with `Z` or an offset.
    Instant(DateTime<Utc>),
    /// ISO 8601 without an offset (a date alone means its midnight): local time.
    Local(NaiveDateTime),
}

impl When {
    /// Parses ISO 8601: `2022-01-05T10:00:00Z`, `2022-01-05T10:00:00-05:00`,
    /// `2022-01-05T10:00:00` (local) or `2022-01-05` (local).
    #[must_use]
    pub fn parse(text: &str) -> Option<Self> {
        let text = text.trim();
        if let Ok(instant) = DateTime::parse_from_rfc3339(text) {
            return Some(Self::Instant(instant.with_timezone(&Utc)));
        }
        if let Some(local) = dates::parse_local(text) {
            return Some(Self::Local(local));
        }
        dates::parse_date(text)
            .and_then(|d| d.and_hms_opt(0, 0, 0))
            .map(Self::Local)
    }
}

impl When {
    /// The local time this stands for in `city` (an instant through the city's UTC
    /// offset; a local time as it is).
    #[must_use]
    pub fn local_in(self, city: &CityModel) -> Option<NaiveDateTime> {
        match self {
            Self::Local(local) => Some(local),
            Self::Instant(at) => city.local_time(at.timestamp()),
        }
    }
}

/// Reads the optional `datetime` field.
///
/// # Errors
/// `INVALID_REQUEST` with `field: "datetime"` when present but not ISO 8601.
pub fn datetime(map: &Map<String, Value>) -> Result<Option<When>, QueryError> {
    match map.get("datetime") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => When::parse(text).map(Some).ok_or_else(|| {
            malformed(
                "datetime",
                "an ISO 8601 datetime such as 2022-01-05T10:00:00Z",
            )
            .with("value", text.as_str())
        }),
        Some(_) => Err(malformed("datetime", "a string")),
    }
}

/// Reads a coordinate: missing is `INVALID_REQUEST`; present but not a number is
/// `INVALID_COORDINATES` (malformed coordinates, as the specification says).
fn number(map: &Map<String, Value>, key: &str, path: &str) -> Result<f64, QueryError> {
    match map.get(key) {
        None => Err(missing(path)),
        Some(Value::Number(n)) => n.as_f64().ok_or_else(|| malformed(path, "a number")),
        Some(other) => Err(QueryError::new(
            ErrorCode::InvalidCoordinates,
            path,
            format!("{path} must be a number"),
        )
        .with("value", other.clone())),
    }
}

/// Reads and validates `latitude` and `longitude` of an object; `prefix` is prepended
/// to field names in errors (for example `locations[3].`).
///
/// # Errors
/// As described for the fields; out-of-range values are `INVALID_COORDINATES` with
/// `field`, `value` and `valid_range`.
pub fn coordinates(map: &Map<String, Value>, prefix: &str) -> Result<(f64, f64), QueryError> {
    let lat_path = format!("{prefix}latitude");
    let lng_path = format!("{prefix}longitude");
    let latitude = number(map, "latitude", &lat_path)?;
    let longitude = number(map, "longitude", &lng_path)?;
    grid::validate(latitude, longitude).map_err(|err| {
        let (path, value) = match err.field() {
            grid::CoordinateField::Latitude => (&lat_path, latitude),
            grid::CoordinateField::Longitude => (&lng_path, longitude),
        };
        coordinate_error(&err, path, value)
    })?;
    Ok((latitude, longitude))
}

fn instant(seconds: i64) -> DateTime<Utc> {
    DateTime::from_timestamp(seconds, 0).unwrap_or_default()
}

fn iso(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// `LOCATION_NOT_COVERED` for a point.
#[must_use]
pub fn not_covered(latitude: f64, longitude: f64) -> QueryError {
    QueryError::new(
        ErrorCode::LocationNotCovered,
        "",
        "location is not covered by any city",
    )
    .with("latitude", latitude)
    .with("longitude", longitude)
    .with("suggestion", COVERAGE_SUGGESTION)
}

/// The city, cell and grid position of a point.
///
/// # Errors
/// `INVALID_COORDINATES` or `LOCATION_NOT_COVERED`.
pub fn locate(
    atlas: &Atlas,
    latitude: f64,
    longitude: f64,
) -> Result<(&CityModel, CellIndex, usize), QueryError> {
    atlas.locate(latitude, longitude).map_err(|err| match err {
        LocateError::Coordinates(e) => {
            let value = match e.field() {
                grid::CoordinateField::Latitude => latitude,
                grid::CoordinateField::Longitude => longitude,
            };
            coordinate_error(&e, e.field().name(), value)
        }
        LocateError::NotCovered => not_covered(latitude, longitude),
    })
}

/// The local date in `city` that a request's time (or the clock) stands for.
fn local_date(city: &CityModel, when: Option<When>, now: i64) -> Option<NaiveDate> {
    match when {
        Some(When::Local(local)) => Some(local.date()),
        Some(When::Instant(at)) => city.local_date(at.timestamp()),
        None => city.local_date(now),
    }
}

/// The forecast week of `city` for a request's time, or `DATE_OUT_OF_RANGE`.
///
/// # Errors
/// `DATE_OUT_OF_RANGE` with `field`, `value`, `valid_range` and `suggestion`.
pub fn week(city: &CityModel, when: Option<When>, now: i64) -> Result<usize, QueryError> {
    let range = city.prediction_range(now);
    let out_of_range = |value: String| {
        QueryError::new(
            ErrorCode::DateOutOfRange,
            "datetime",
            "requested date is not available for predictions",
        )
        .with("value", value)
        .with(
            "valid_range",
            vec![range.start.to_string(), range.end.to_string()],
        )
        .with(
            "suggestion",
            format!(
                "Send a datetime between {} and {} (see GET /v1/prediction/range).",
                range.start, range.end
            ),
        )
    };
    let date = local_date(city, when, now).ok_or_else(|| out_of_range(iso(instant(now))))?;
    city.week_index(date)
        .map_err(|_| out_of_range(date.to_string()))
}

/// The instant a prediction applies to, for `prediction.datetime` and `timestamp`.
#[must_use]
pub fn applies_at(city: Option<&CityModel>, when: Option<When>, now: i64) -> String {
    match (when, city) {
        (Some(When::Instant(at)), _) => iso(at),
        (Some(When::Local(local)), Some(city)) => {
            // Local wall time: find the instant through the city's UTC offset.
            let guess = local.and_utc().timestamp();
            let offset = i64::from(city.utc_offset(guess));
            DateTime::from_timestamp(guess - offset, 0).map_or_else(|| iso(instant(now)), iso)
        }
        (Some(When::Local(local)), None) => dates::local_text(local),
        (None, _) => iso(instant(now)),
    }
}

/// Outcome probabilities keyed by class code.
#[must_use]
pub fn probabilities(forecast: &Forecast) -> Probabilities {
    Probabilities::from(forecast)
}

/// The `model_info` record of a city.
#[must_use]
pub fn model_info(city: &CityModel) -> ModelInfo {
    let model = &city.artifact().model;
    ModelInfo {
        version: model.version.clone(),
        mae: model.mae,
        last_updated: model.last_updated.to_string(),
    }
}

/// A local time in the city written with its UTC offset, `2022-01-07T22:00:00-05:00`.
fn local_iso(city: &CityModel, local: NaiveDateTime) -> String {
    // The offset in force at that wall time (found as `applies_at` does).
    let offset = city.utc_offset(local.and_utc().timestamp());
    chrono::FixedOffset::east_opt(offset)
        .and_then(|zone| local.and_local_timezone(zone).single())
        .map_or_else(
            || dates::local_text(local),
            |at| at.to_rfc3339_opts(SecondsFormat::Secs, true),
        )
}

/// `prediction.time_of_day`: the forecast of the time band holding a requested time
/// (`None` without one), from the cell's time-of-day profile.
#[must_use]
pub fn time_of_day(
    city: &CityModel,
    position: usize,
    week: usize,
    when: Option<When>,
) -> Option<TimeOfDay> {
    let local = when?.local_in(city)?;
    let (band, forecast) = city.band_forecast(position, week, local);
    let dominant = forecast.dominant();
    let profiles = &city.artifact().profiles;
    let basis: Map<String, Value> = crate::forecast::CRIME_CLASSES
        .iter()
        .zip(profiles.basis)
        .map(|(class, basis)| (class.code().to_owned(), json!(basis.code())))
        .collect();
    Some(TimeOfDay {
        band: format!(
            "{} {}-{}",
            band.band.kind.code(),
            dates::hours_minutes(band.start.time()),
            dates::hours_minutes(band.end.time())
        ),
        day_type: band.band.kind.code(),
        start: local_iso(city, band.start),
        end: local_iso(city, band.end),
        probabilities: probabilities(&forecast),
        dominant_type: dominant,
        confidence: forecast.probabilities[dominant.index()],
        risk_level: forecast.risk_level(),
        profile: ClassProfiles(basis),
    })
}

/// `POST /v1/predict`.
///
/// # Errors
/// `INVALID_REQUEST`, `INVALID_COORDINATES`, `LOCATION_NOT_COVERED`, `DATE_OUT_OF_RANGE`.
pub fn predict(
    atlas: &Atlas,
    body: &Map<String, Value>,
    now: i64,
) -> Result<Prediction, QueryError> {
    let (latitude, longitude) = coordinates(body, "")?;
    let when = datetime(body)?;
    let (city, cell, position) = locate(atlas, latitude, longitude)?;
    let week = week(city, when, now)?;
    let forecast = city.forecast(position, week);
    let dominant = forecast.dominant();
    let (centre_lat, centre_lng) = grid::cell_centre(cell);
    let info = &city.artifact().city;
    Ok(Prediction {
        status: Success,
        city: CityName {
            code: info.code.clone(),
            name: info.name.clone(),
        },
        location: PredictionLocation {
            latitude,
            longitude,
            cell_id: cell.to_string(),
            grid_center: Coordinate {
                latitude: centre_lat,
                longitude: centre_lng,
            },
        },
        prediction: PointForecast {
            datetime: applies_at(Some(city), when, now),
            week_of: city.week_monday(week).to_string(),
            probabilities: probabilities(&forecast),
            dominant_type: dominant,
            confidence: forecast.probabilities[dominant.index()],
            risk_level: forecast.risk_level(),
            time_of_day: time_of_day(city, position, week, when),
        },
        model_info: model_info(city),
    })
}

#[cfg(test)]
mod tests;
