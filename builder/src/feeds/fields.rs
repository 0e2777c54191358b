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
mod tests {
    use serde_json::json;

    use super::*;

    fn toronto_fields() -> FeedFields {
        FeedFields {
            id: "OBJECTID".into(),
            event: Some("EVENT_UNIQUE_ID".into()),
            occurred: "OCC_DATE".into(),
            occurred_as: OccurredAs::Instant,
            hour: Some("OCC_HOUR".into()),
            reported: Some("REPORT_DATE".into()),
            offence: vec!["CSI_CATEGORY".into(), "MCI_CATEGORY".into()],
            description: None,
            premises: Some("PREMISES_TYPE".into()),
            latitude: "LAT_WGS84".into(),
            longitude: "LONG_WGS84".into(),
        }
    }

    #[test]
    fn toronto_layer_rows_map_in_both_spellings() {
        // 1388552400000 is 2014-01-01 05:00 UTC: midnight in Toronto, as the
        // City's CSV export renders it ("1/1/2014 5:00:00 AM").
        let row = json!({"OBJECTID": 7, "EVENT_UNIQUE_ID": "GO-1", "OCC_DATE": 1_388_552_400_000_i64,
            "OCC_HOUR": "23", "REPORT_DATE": 1_388_638_800_000_i64, "MCI_CATEGORY": "Assault",
            "PREMISES_TYPE": "Outside", "LAT_WGS84": 43.65, "LONG_WGS84": -79.38});
        let tz: Tz = "America/Toronto".parse().unwrap();
        let record = map_row(row.as_object().unwrap(), None, &toronto_fields(), tz).unwrap();
        assert_eq!(record.id, "7");
        assert_eq!(record.occurred_date, NaiveDate::from_ymd_opt(2014, 1, 1));
        assert_eq!(record.occurred_hour, Some(23));
        assert_eq!(record.reported.as_deref(), Some("2014-01-02T05:00:00Z"));
        assert_eq!(record.offence, "Assault");
        let mut renamed = row.as_object().unwrap().clone();
        let value = renamed.remove("MCI_CATEGORY").unwrap();
        renamed.insert("CSI_CATEGORY".into(), value);
        assert_eq!(
            map_row(&renamed, None, &toronto_fields(), tz).unwrap(),
            record
        );
        // A null offence (left out of the row) is kept as an empty value; a
        // missing key is an error.
        renamed.remove("CSI_CATEGORY");
        assert_eq!(
            map_row(&renamed, None, &toronto_fields(), tz)
                .unwrap()
                .offence,
            ""
        );
        renamed.remove("OBJECTID");
        assert_eq!(
            map_row(&renamed, None, &toronto_fields(), tz),
            Err(RowError::Missing {
                field: "OBJECTID".into()
            })
        );
    }

    #[test]
    fn socrata_floating_timestamps_are_local_and_strings_are_numbers() {
        let fields = FeedFields {
            id: "row_id".into(),
            event: Some("incident_id".into()),
            occurred: "incident_datetime".into(),
            occurred_as: OccurredAs::Instant,
            hour: None,
            reported: Some("report_datetime".into()),
            offence: vec!["incident_category".into()],
            description: Some("incident_description".into()),
            premises: None,
            latitude: "latitude".into(),
            longitude: "longitude".into(),
        };
        // The verbatim wg3w-h783 row of shared/api-samples/2-sf-wg3w-h783, cut.
        let row = json!({"incident_datetime":"2024-02-15T00:00:00.000","report_datetime":"2024-02-15T07:09:00.000",
            "row_id":"136484905151","incident_id":"1364849","incident_category":"Burglary",
            "incident_description":"Burglary, Non-residential, Forcible Entry",
            "latitude":"37.796897888183594","longitude":"-122.42195892333984"});
        let tz: Tz = "America/Los_Angeles".parse().unwrap();
        let record = map_row(row.as_object().unwrap(), None, &fields, tz).unwrap();
        assert_eq!(record.occurred_date, NaiveDate::from_ymd_opt(2024, 2, 15));
        assert_eq!(record.occurred_hour, Some(0));
        assert_eq!(record.reported.as_deref(), Some("2024-02-15T15:09:00Z"));
        assert_eq!(record.lat, Some(37.796_897_888_183_594));
        assert_eq!(record.event.as_deref(), Some("1364849"));
    }

    #[test]
    fn houston_dates_are_utc_midnight_and_points_come_from_geometry() {
        let fields = FeedFields {
            id: "OBJECTID".into(),
            event: Some("USER_Incident".into()),
            occurred: "USER_RMSOccurrenceDate".into(),
            occurred_as: OccurredAs::UtcMidnightDate,
            hour: Some("USER_RMSOccurrenceHour".into()),
            reported: None,
            offence: vec!["USER_NIBRSClass".into()],
            description: None,
            premises: Some("USER_Premise".into()),
            latitude: GEOMETRY.into(),
            longitude: GEOMETRY.into(),
        };
        // 1686873600000 is 2023-06-16T00:00Z, the sample's date of 2023-06-16.
        let row = json!({"OBJECTID": 1, "USER_RMSOccurrenceDate": 1_686_873_600_000_i64,
            "USER_RMSOccurrenceHour": "00", "USER_NIBRSClass": "Simple assault", "USER_Premise": ""});
        let tz: Tz = "America/Chicago".parse().unwrap();
        let point = Point { x: -95.3, y: 29.7 };
        let record = map_row(row.as_object().unwrap(), Some(point), &fields, tz).unwrap();
        assert_eq!(record.occurred_date, NaiveDate::from_ymd_opt(2023, 6, 16));
        assert_eq!(record.occurred_hour, Some(0));
        assert_eq!((record.lat, record.lng), (Some(29.7), Some(-95.3)));
        assert_eq!(record.premises, None);
    }

    #[test]
    fn toronto_homicides_have_a_date_without_an_hour_and_shootings_one_offence() {
        let mut fields = FeedFields {
            id: "OBJECTID".into(),
            event: Some("EVENT_UNIQUE_ID".into()),
            occurred: "OCC_DATE".into(),
            occurred_as: OccurredAs::LocalDate,
            hour: None,
            reported: None,
            offence: vec!["HOMICIDE_TYPE".into()],
            description: None,
            premises: None,
            latitude: "LAT_WGS84".into(),
            longitude: "LONG_WGS84".into(),
        };
        // 1073106000000 is 2004-01-03T05:00Z, midnight in Toronto (the first row
        // of the shared homicides file).
        let row = json!({"OBJECTID": 7, "EVENT_UNIQUE_ID": "GO-2004111878",
            "OCC_DATE": 1_073_106_000_000_i64, "HOMICIDE_TYPE": "Other",
            "LAT_WGS84": 43.685, "LONG_WGS84": -79.393});
        let tz: Tz = "America/Toronto".parse().unwrap();
        let record = map_row(row.as_object().unwrap(), None, &fields, tz).unwrap();
        assert_eq!(record.occurred_date, NaiveDate::from_ymd_opt(2004, 1, 3));
        assert_eq!(record.occurred_hour, None, "midnight is no hour");
        assert_eq!(record.offence, "Other");
        fields.offence = vec![EVERY_ROW.into()];
        let record = map_row(row.as_object().unwrap(), None, &fields, tz).unwrap();
        assert_eq!(record.offence, "*");
    }
}
