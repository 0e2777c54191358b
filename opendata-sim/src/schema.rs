//! The vocabulary of a dataset: its protocol, field types, fields, points, rows to
//! publish and published rows (with their system fields); the order of stored values;
//! and the Socrata fixed-timestamp format.

use std::cmp::Ordering;

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

/// Which protocol a dataset is served with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// Socrata SODA 2.x, at `/resource/<name>.json`.
    Socrata,
    /// An ArcGIS REST FeatureServer or MapServer layer.
    ArcGis {
        /// Whether features carry a point geometry.
        geometry: bool,
    },
}

/// The type of a published field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldType {
    /// Text: Socrata `text`, Esri `esriFieldTypeString`.
    Text,
    /// A real number: Socrata `number` (sent as a string), Esri `esriFieldTypeDouble`.
    Double,
    /// An integer: Socrata `number` (sent as a string), Esri `esriFieldTypeInteger`.
    Integer,
    /// A date: Socrata `floating_timestamp` (stored as `2012-01-01T00:00:00.000`), Esri
    /// `esriFieldTypeDate` (stored as UTC epoch milliseconds).
    Date,
}

impl FieldType {
    /// The name Socrata's `X-SODA2-Types` header uses.
    #[must_use]
    pub fn soda_type(self) -> &'static str {
        match self {
            FieldType::Text => "text",
            FieldType::Double | FieldType::Integer => "number",
            FieldType::Date => "floating_timestamp",
        }
    }

    /// The Esri field type name.
    #[must_use]
    pub fn esri_type(self) -> &'static str {
        match self {
            FieldType::Text => "esriFieldTypeString",
            FieldType::Double => "esriFieldTypeDouble",
            FieldType::Integer => "esriFieldTypeInteger",
            FieldType::Date => "esriFieldTypeDate",
        }
    }
}

/// One column of a dataset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    /// The published name.
    pub name: String,
    /// Its type.
    pub kind: FieldType,
    /// The ArcGIS alias (the name itself unless set otherwise).
    pub alias: String,
}

impl Field {
    /// A field whose alias is its name.
    #[must_use]
    pub fn new(name: &str, kind: FieldType) -> Field {
        Field {
            name: name.to_owned(),
            kind,
            alias: name.to_owned(),
        }
    }
}

/// A point geometry in WGS84: `x` longitude, `y` latitude.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    /// Longitude.
    pub x: f64,
    /// Latitude.
    pub y: f64,
}

/// A row to publish: a stable key (never published by itself), fields by name, a point.
#[derive(Clone, Debug, PartialEq)]
pub struct NewRow {
    /// The row's identity across revisions and deletions.
    pub key: String,
    /// Field values by name; names not in the schema are ignored, missing ones are null.
    pub fields: Map<String, Value>,
    /// The geometry (ArcGIS layers with geometry only).
    pub point: Option<Point>,
}

/// A published row with its system fields.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub(crate) key: String,
    pub(crate) values: Vec<Value>,
    pub(crate) point: Option<Point>,
    pub(crate) id: String,
    pub(crate) created_at: i64,
    pub(crate) updated_at: i64,
    pub(crate) version: String,
    pub(crate) objectid: i64,
    pub(crate) revision: u64,
}

impl Row {
    /// The row's key.
    #[must_use]
    pub fn key(&self) -> &str {
        &self.key
    }
    /// The value of field `index` of the schema.
    #[must_use]
    pub fn value(&self, index: usize) -> &Value {
        self.values.get(index).unwrap_or(&Value::Null)
    }
    /// The geometry.
    #[must_use]
    pub fn point(&self) -> Option<Point> {
        self.point
    }
    /// Socrata `:id`.
    #[must_use]
    pub fn socrata_id(&self) -> &str {
        &self.id
    }
    /// Socrata `:created_at`, epoch milliseconds.
    #[must_use]
    pub fn created_at(&self) -> i64 {
        self.created_at
    }
    /// Socrata `:updated_at`, epoch milliseconds.
    #[must_use]
    pub fn updated_at(&self) -> i64 {
        self.updated_at
    }
    /// Socrata `:version`.
    #[must_use]
    pub fn version(&self) -> &str {
        &self.version
    }
    /// ArcGIS `OBJECTID`.
    #[must_use]
    pub fn objectid(&self) -> i64 {
        self.objectid
    }
}

/// Orders stored JSON values: numbers numerically, strings as text, nulls last.
pub(crate) fn compare_values(a: &Value, b: &Value) -> Ordering {
    match (a, b) {
        (Value::Null, Value::Null) => Ordering::Equal,
        (Value::Null, _) => Ordering::Greater,
        (_, Value::Null) => Ordering::Less,
        (Value::Number(x), Value::Number(y)) => x
            .as_f64()
            .unwrap_or(0.0)
            .total_cmp(&y.as_f64().unwrap_or(0.0)),
        (Value::String(x), Value::String(y)) => x.cmp(y),
        _ => a.to_string().cmp(&b.to_string()),
    }
}

/// Formats epoch milliseconds as a Socrata fixed timestamp (`2021-01-05T10:00:00.000Z`).
#[must_use]
pub fn fixed_timestamp(ms: i64) -> String {
    DateTime::<Utc>::from_timestamp_millis(ms)
        .unwrap_or_default()
        .format("%Y-%m-%dT%H:%M:%S%.3fZ")
        .to_string()
}
