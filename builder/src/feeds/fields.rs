//! One published row to a [`FeedRecord`], by the feed's field mapping: the row
//! key and the offence must be there (without them the row cannot be kept or
//! classified, and their absence on a page means the schema moved); every other
//! value is read where present and left empty where not, for the build to reject
//! with its reason as it does for file rows.

use chrono::{DateTime, NaiveDate, NaiveDateTime, TimeZone, Timelike, Utc};
use chrono_tz::Tz;
use serde_json::{Map, Value};

use crate::inputs::feed_config::{FeedFields, OccurredAs};
use crate::store::record::FeedRecord;

/// The name that reads a feature's point instead of an attribute.
pub const GEOMETRY: &str = "geometry";

/// The offence "field" of a source whose every row is the same offence.
pub const EVERY_ROW: &str = "*";

/// A row that cannot be mapped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RowError {
    /// A field every row must have is absent: the row key.
    Missing {
        /// The field (spellings joined with ` or `).
        field: String,
    },
}

/// A published point, where the protocol sends geometry apart from attributes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    /// Longitude (ArcGIS `x`).
    pub x: f64,
    /// Latitude (ArcGIS `y`).
    pub y: f64,
}

/// Maps one row.
///
/// # Errors
/// [`RowError::Missing`] when the row key is absent.
pub fn map_row(
    row: &Map<String, Value>,
    point: Option<Point>,
    fields: &FeedFields,
    tz: Tz,
) -> Result<FeedRecord, RowError> {
    let id = text(row.get(&fields.id)).ok_or_else(|| RowError::Missing {
        field: fields.id.clone(),
    })?;
    // A row without an offence value (Socrata leaves a null out of the row) keeps
    // an empty one: the build counts it as unmapped. A page none of whose rows has
    // one is a schema that moved (`feeds/sync.rs`).
    let offence = if fields.offence == [EVERY_ROW] {
        EVERY_ROW.to_owned()
    } else {
        fields
            .offence
            .iter()
            .find_map(|name| row.get(name).filter(|v| !v.is_null()))
            .and_then(|v| text(Some(v)))
            .unwrap_or_default()
    };
    let occurred = row.get(&fields.occurred);
    let (occurred_date, hour_of_time) = match fields.occurred_as {
        OccurredAs::Instant => local_time(occurred, tz)
            .map_or((None, None), |t| (Some(t.date()), Some(t.hour() as u8))),
        OccurredAs::UtcMidnightDate => (utc_date(occurred), None),
        OccurredAs::LocalDate => (local_time(occurred, tz).map(|t| t.date()), None),
    };
    let occurred_hour = match &fields.hour {
        Some(name) => hour(row.get(name)),
        None => hour_of_time,
    };
    let reported = fields
        .reported
        .as_ref()
        .and_then(|name| local_time(row.get(name), tz))
        .and_then(|local| tz.from_local_datetime(&local).earliest())
        .map(|at| {
            at.with_timezone(&Utc)
                .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
        });
    let coordinate = |name: &str, of_point: fn(Point) -> f64| {
        if name == GEOMETRY {
            point.map(of_point)
        } else {
            number(row.get(name))
        }
    };
    Ok(FeedRecord {
        id,
        event: fields.event.as_ref().and_then(|name| text(row.get(name))),
        occurred_date,
        occurred_hour,
        reported,
        offence,
        description: fields
            .description
            .as_ref()
            .and_then(|name| text(row.get(name))),
        premises: fields
            .premises
            .as_ref()
            .and_then(|name| text(row.get(name))),
        lat: coordinate(&fields.latitude, |p| p.y),
        lng: coordinate(&fields.longitude, |p| p.x),
    })
}

/// A value as text: strings as they are (trimmed: Toronto pads `REPORT_DOW`),
/// numbers in their JSON form; empty and null are absent.
#[must_use]
pub fn text(value: Option<&Value>) -> Option<String> {
    match value? {
        Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_owned()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// A number from a JSON number or a numeric string (Socrata sends numbers as
/// strings).
fn number(value: Option<&Value>) -> Option<f64> {
    match value? {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
    .filter(|v: &f64| v.is_finite())
}

/// An hour 0..=23 from a number or a string (`"05"`, `5`).
fn hour(value: Option<&Value>) -> Option<u8> {
    let n = number(value)?;
    (n.fract() == 0.0 && (0.0..24.0).contains(&n)).then_some(n as u8)
}

/// A local date-time from epoch milliseconds (a UTC instant), an ISO 8601 text
/// with an offset (an instant), or one without (already local: Socrata's
/// floating timestamps).
fn local_time(value: Option<&Value>, tz: Tz) -> Option<NaiveDateTime> {
    match value? {
        Value::Number(n) => {
            let millis = n.as_i64().or_else(|| n.as_f64().map(|f| f as i64))?;
            let utc = DateTime::<Utc>::from_timestamp_millis(millis)?;
            Some(utc.with_timezone(&tz).naive_local())
        }
        Value::String(s) => {
            let s = s.trim();
            if let Ok(at) = DateTime::parse_from_rfc3339(s) {
                return Some(at.with_timezone(&tz).naive_local());
            }
            NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M:%S%.f")
                .or_else(|_| NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S%.f"))
                .ok()
                .or_else(|| {
                    NaiveDate::parse_from_str(s, "%Y-%m-%d")
                        .ok()
                        .and_then(|d| d.and_hms_opt(0, 0, 0))
                })
        }
        _ => None,
    }
}

/// The UTC calendar date of epoch milliseconds.
fn utc_date(value: Option<&Value>) -> Option<NaiveDate> {
    let millis = value?.as_i64()?;
    Some(DateTime::<Utc>::from_timestamp_millis(millis)?.date_naive())
}

#[cfg(test)]
mod tests;
