//! One incident as a feed publishes it, mapped onto the fields the build reads,
//! and the digest that tells a revision from a row served again unchanged.

use chrono::NaiveDate;
use rusqlite::params;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// One row of a source, by the fields the build reads. Every value is what the
/// source published, converted only in representation (a local date from epoch
/// milliseconds, a number from a string): nothing is judged here; the build
/// rejects what it cannot use with a reason, as it does for file rows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FeedRecord {
    /// The source's row key (Socrata `row_id` or `:id`, ArcGIS `OBJECTID`).
    pub id: String,
    /// The event the row belongs to, where the source publishes one (one event
    /// can have several rows: Toronto's `EVENT_UNIQUE_ID`).
    pub event: Option<String>,
    /// Local calendar date of the occurrence; `None` when missing or unreadable.
    pub occurred_date: Option<NaiveDate>,
    /// Local hour of the occurrence, where published.
    pub occurred_hour: Option<u8>,
    /// When the report was made, as an RFC 3339 UTC instant, where published.
    pub reported: Option<String>,
    /// The offence value, in the source's vocabulary.
    pub offence: String,
    /// A free-text description, where published.
    pub description: Option<String>,
    /// The premises value, where the source's configuration names a column.
    pub premises: Option<String>,
    /// Latitude, WGS84 degrees.
    pub lat: Option<f64>,
    /// Longitude, WGS84 degrees.
    pub lng: Option<f64>,
}

/// A record with the source's change mark (Socrata `:updated_at`), which orders
/// changed-since pulls but is not part of the content.
#[derive(Debug, Clone, PartialEq)]
pub struct MarkedRecord {
    /// The content.
    pub record: FeedRecord,
    /// The change mark, where the protocol has one.
    pub mark: Option<String>,
}

/// Bytes of a record's digest: 128 bits tell revisions apart far beyond any
/// feed's size and keep Toronto's eight years of rows small.
pub const DIGEST_BYTES: usize = 16;

impl FeedRecord {
    /// The digest of everything but the id: equal digests are the same content,
    /// so a row served again (or re-keyed by a wholesale replacement) is not a
    /// revision.
    #[must_use]
    pub fn digest(&self) -> [u8; DIGEST_BYTES] {
        let mut hasher = Sha256::new();
        let field = |hasher: &mut Sha256, value: Option<&str>| {
            // A tag byte keeps `None` apart from an empty text, and the length keeps
            // adjacent fields from running together.
            match value {
                None => hasher.update([0]),
                Some(text) => {
                    hasher.update([1]);
                    hasher.update((text.len() as u64).to_le_bytes());
                    hasher.update(text.as_bytes());
                }
            }
        };
        field(&mut hasher, self.event.as_deref());
        field(
            &mut hasher,
            self.occurred_date.map(|d| d.to_string()).as_deref(),
        );
        field(
            &mut hasher,
            self.occurred_hour.map(|h| h.to_string()).as_deref(),
        );
        field(&mut hasher, self.reported.as_deref());
        field(&mut hasher, Some(&self.offence));
        field(&mut hasher, self.description.as_deref());
        field(&mut hasher, self.premises.as_deref());
        for coordinate in [self.lat, self.lng] {
            match coordinate {
                None => hasher.update([0]),
                Some(value) => {
                    hasher.update([1]);
                    hasher.update(value.to_bits().to_le_bytes());
                }
            }
        }
        let full = hasher.finalize();
        let mut digest = [0; DIGEST_BYTES];
        digest.copy_from_slice(&full[..DIGEST_BYTES]);
        digest
    }
}

/// The columns of a record, in the order [`from_row`] reads them.
pub(crate) const RECORD_COLUMNS: &str =
    "id, event, occurred_date, occurred_hour, reported, offence, description, premises, lat, lng";

/// Reads a record from a row of [`RECORD_COLUMNS`]; a date the store did not
/// write reads as missing (the build then rejects the row as undated).
pub(crate) fn from_row(row: &rusqlite::Row<'_>) -> Result<FeedRecord, rusqlite::Error> {
    let date: Option<String> = row.get(2)?;
    Ok(FeedRecord {
        id: row.get(0)?,
        event: row.get(1)?,
        occurred_date: date.and_then(|d| d.parse::<NaiveDate>().ok()),
        occurred_hour: row.get(3)?,
        reported: row.get(4)?,
        offence: row.get(5)?,
        description: row.get(6)?,
        premises: row.get(7)?,
        lat: row.get(8)?,
        lng: row.get(9)?,
    })
}

/// One stored record, deleted or not.
pub(crate) fn record_row(
    connection: &rusqlite::Connection,
    source: &str,
    id: &str,
) -> Result<FeedRecord, rusqlite::Error> {
    connection
        .prepare_cached(&format!(
            "SELECT {RECORD_COLUMNS} FROM records WHERE source = ?1 AND id = ?2"
        ))?
        .query_row(params![source, id], from_row)
}

#[cfg(test)]
mod tests;
