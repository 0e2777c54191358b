//! A published table: its schema, its rows, and the system fields each protocol adds.
//!
//! A [`Dataset`] holds what one open-data endpoint publishes right now. Rows carry the
//! published fields (in schema order) plus the protocol's system fields:
//! Socrata `:id` (`row-xxxx-xxxx-xxxx`, derived from the dataset name and row sequence, so
//! deterministic), `:created_at`, `:updated_at` (fixed timestamps taken from the simulated
//! clock) and `:version`; ArcGIS `OBJECTID` (a unique integer, never reused).
//!
//! Stored values are JSON values in the form the ArcGIS layer would send them (numbers as
//! numbers, dates as epoch milliseconds, Socrata floating timestamps as their text); the
//! protocol modules render them (e.g. Socrata numbers as strings, nulls omitted), and
//! [`Dataset::current_rows`] (in `snapshot`, above them) renders every row at once.

use std::collections::{BTreeMap, HashMap};

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

use crate::rng::{code, hash_str, mix};
use crate::schema::{Field, FieldType, NewRow, Point, Protocol, Row};

/// A named table of rows served with one protocol.
#[derive(Clone, Debug)]
pub struct Dataset {
    name: String,
    title: String,
    path: String,
    protocol: Protocol,
    fields: Vec<Field>,
    /// Each field's name when the dataset was made: the publisher's script keeps
    /// writing rows under it after a rename, as a real publisher's pipeline writes
    /// the same values under the field's new name.
    first_names: Vec<String>,
    max_record_count: usize,
    display_field: Option<String>,
    rows: BTreeMap<u64, Row>,
    index: HashMap<String, u64>,
    next_seq: u64,
    next_objectid: i64,
    revisions: u64,
}

impl Dataset {
    /// A Socrata dataset served at `/resource/<name>.json`.
    #[must_use]
    pub fn socrata(name: &str, title: &str, fields: Vec<Field>) -> Dataset {
        Dataset::new(
            name,
            title,
            &format!("/resource/{name}.json"),
            Protocol::Socrata,
            fields,
        )
    }

    /// An ArcGIS layer served at `path` (ending in `/FeatureServer/<n>` or `/MapServer/<n>`).
    #[must_use]
    pub fn arcgis(
        name: &str,
        title: &str,
        path: &str,
        fields: Vec<Field>,
        geometry: bool,
    ) -> Dataset {
        Dataset::new(name, title, path, Protocol::ArcGis { geometry }, fields)
    }

    fn new(name: &str, title: &str, path: &str, protocol: Protocol, fields: Vec<Field>) -> Dataset {
        Dataset {
            name: name.to_owned(),
            title: title.to_owned(),
            path: path.trim_end_matches('/').to_owned(),
            protocol,
            first_names: fields.iter().map(|f| f.name.clone()).collect(),
            fields,
            max_record_count: 2000,
            display_field: None,
            rows: BTreeMap::new(),
            index: HashMap::new(),
            next_seq: 0,
            next_objectid: 1,
            revisions: 0,
        }
    }

    /// Sets the ArcGIS `maxRecordCount` (2000 by default, as ArcGIS Online layers).
    #[must_use]
    pub fn with_max_record_count(mut self, n: usize) -> Dataset {
        self.max_record_count = n.max(1);
        self
    }

    /// Sets the ArcGIS display field (by default the first text field).
    #[must_use]
    pub fn with_display_field(mut self, name: &str) -> Dataset {
        self.display_field = Some(name.to_owned());
        self
    }

    /// The ArcGIS display field: the one set, else the first text field, else `OBJECTID`.
    #[must_use]
    pub fn display_field(&self) -> &str {
        self.display_field
            .as_deref()
            .or_else(|| {
                self.fields
                    .iter()
                    .find(|f| f.kind == FieldType::Text)
                    .map(|f| f.name.as_str())
            })
            .unwrap_or("OBJECTID")
    }

    /// The dataset's name (the Socrata id, or the name faults and the control surface use).
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }
    /// The human title (ArcGIS layer `name`).
    #[must_use]
    pub fn title(&self) -> &str {
        &self.title
    }
    /// The URL path the dataset is served at.
    #[must_use]
    pub fn path(&self) -> &str {
        &self.path
    }
    /// The protocol.
    #[must_use]
    pub fn protocol(&self) -> Protocol {
        self.protocol
    }
    /// The schema, in published order.
    #[must_use]
    pub fn fields(&self) -> &[Field] {
        &self.fields
    }
    /// The position of a field in the schema.
    #[must_use]
    pub fn field_index(&self, name: &str) -> Option<usize> {
        self.fields.iter().position(|f| f.name == name)
    }
    /// The position of the field a published or revised value names: by its
    /// name now, or by the name it had when the dataset was made.
    fn written_index(&self, name: &str) -> Option<usize> {
        self.field_index(name)
            .or_else(|| self.first_names.iter().position(|n| n == name))
    }
    /// The ArcGIS `maxRecordCount`.
    #[must_use]
    pub fn max_record_count(&self) -> usize {
        self.max_record_count
    }
    /// How many rows are published.
    #[must_use]
    pub fn len(&self) -> usize {
        self.rows.len()
    }
    /// Whether no row is published.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }
    /// The published rows, oldest first.
    pub fn rows(&self) -> impl Iterator<Item = &Row> {
        self.rows.values()
    }
    /// The row with this key.
    #[must_use]
    pub fn get(&self, key: &str) -> Option<&Row> {
        self.index.get(key).and_then(|seq| self.rows.get(seq))
    }

    fn version_for(&mut self, id: &str) -> String {
        self.revisions += 1;
        format!(
            "rv-{}",
            code(mix(hash_str(id) ^ mix(self.revisions)), &['~', '_'])
        )
    }

    /// Publishes rows at instant `at`; a key already published is revised instead.
    /// Returns how many rows were new.
    pub fn publish(&mut self, rows: impl IntoIterator<Item = NewRow>, at: DateTime<Utc>) -> usize {
        let ms = at.timestamp_millis();
        let mut added = 0;
        for row in rows {
            if self.index.contains_key(&row.key) {
                self.revise(&row.key, &row.fields, row.point, at);
                continue;
            }
            let values = self
                .fields
                .iter()
                .zip(&self.first_names)
                .map(|(f, first)| {
                    row.fields
                        .get(&f.name)
                        .or_else(|| row.fields.get(first))
                        .cloned()
                        .unwrap_or(Value::Null)
                })
                .collect();
            let seq = self.next_seq;
            self.next_seq += 1;
            let id = format!("row-{}", code(mix(hash_str(&self.name) ^ mix(seq)), &['-']));
            let version = self.version_for(&id);
            let objectid = self.next_objectid;
            self.next_objectid += 1;
            self.index.insert(row.key.clone(), seq);
            self.rows.insert(
                seq,
                Row {
                    key: row.key,
                    values,
                    point: row.point,
                    id,
                    created_at: ms,
                    updated_at: ms,
                    version,
                    objectid,
                    revision: 0,
                },
            );
            added += 1;
        }
        added
    }

    /// Changes some fields (and the point, if given) of the row with `key` at instant
    /// `at`: Socrata `:updated_at` and `:version` move, the ArcGIS `OBJECTID` stays.
    /// Returns false if there is no such row.
    pub fn revise(
        &mut self,
        key: &str,
        changes: &Map<String, Value>,
        point: Option<Point>,
        at: DateTime<Utc>,
    ) -> bool {
        let Some(&seq) = self.index.get(key) else {
            return false;
        };
        let Some(id) = self.rows.get(&seq).map(|r| r.id.clone()) else {
            return false;
        };
        let version = self.version_for(&id);
        let positions: Vec<(usize, Value)> = changes
            .iter()
            .filter_map(|(name, v)| self.written_index(name).map(|i| (i, v.clone())))
            .collect();
        let Some(row) = self.rows.get_mut(&seq) else {
            return false;
        };
        for (i, v) in positions {
            row.values[i] = v;
        }
        if point.is_some() {
            row.point = point;
        }
        row.updated_at = at.timestamp_millis();
        row.version = version;
        row.revision += 1;
        true
    }

    /// Stamps the row with `key` changed at `at` without changing a value, as a
    /// publisher's job that rewrites rows it did not change: `:updated_at` and
    /// `:version` move. Returns false if there is no such row.
    pub fn restamp(&mut self, key: &str, at: DateTime<Utc>) -> bool {
        self.revise(key, &Map::new(), None, at)
    }

    /// Sets the row's `:created_at` to `created_ms`, as a writer whose clock runs
    /// apart from the one stamping `:updated_at` does. Returns false if there is no
    /// such row.
    pub fn set_created_at(&mut self, key: &str, created_ms: i64) -> bool {
        let Some(row) = self.index.get(key).and_then(|seq| self.rows.get_mut(seq)) else {
            return false;
        };
        row.created_at = created_ms;
        true
    }

    /// Removes the row with `key` (e.g. a sealed report). Returns false if there is none.
    pub fn delete(&mut self, key: &str) -> bool {
        match self.index.remove(key) {
            Some(seq) => self.rows.remove(&seq).is_some(),
            None => false,
        }
    }

    /// Replaces the whole table with the same content at instant `at`, as publishers'
    /// full reloads do: Socrata rows keep `:id` but `:updated_at` (and `:version`) move to
    /// `at`; ArcGIS rows are truncated and appended, so every row gets a new `OBJECTID`.
    pub fn replace_wholesale(&mut self, at: DateTime<Utc>) {
        let ms = at.timestamp_millis();
        let seqs: Vec<u64> = self.rows.keys().copied().collect();
        for seq in seqs {
            let Some(id) = self.rows.get(&seq).map(|r| r.id.clone()) else {
                continue;
            };
            let version = self.version_for(&id);
            let objectid = self.next_objectid;
            self.next_objectid += 1;
            if let Some(row) = self.rows.get_mut(&seq) {
                row.updated_at = ms;
                row.version = version;
                if matches!(self.protocol, Protocol::ArcGis { .. }) {
                    row.objectid = objectid;
                }
            }
        }
    }

    /// Renames a field (a schema change such as Toronto's `MCI_CATEGORY` to
    /// `CSI_CATEGORY`); row timestamps do not move. Returns false if `old` is unknown or
    /// `new` is taken.
    pub fn rename_field(&mut self, old: &str, new: &str) -> bool {
        if self.field_index(new).is_some() {
            return false;
        }
        if self.display_field.as_deref() == Some(old) {
            self.display_field = Some(new.to_owned());
        }
        match self.fields.iter_mut().find(|f| f.name == old) {
            Some(f) => {
                new.clone_into(&mut f.name);
                if f.alias == old {
                    new.clone_into(&mut f.alias);
                }
                true
            }
            None => false,
        }
    }
}
