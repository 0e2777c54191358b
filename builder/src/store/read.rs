//! What the build and health read from the store: the records a source serves
//! now, and how fresh they are.

use chrono::NaiveDate;
use rusqlite::{OptionalExtension, params};

use super::record::{FeedRecord, RECORD_COLUMNS, from_row};
use super::{IncidentStore, StoreError};

/// A source's data, as of its last finished pull.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceFreshness {
    /// The source.
    pub source: String,
    /// The latest occurrence date among the records it serves.
    pub data_through: Option<NaiveDate>,
    /// When its last pull finished.
    pub last_success: Option<String>,
    /// Records it serves now.
    pub records: u64,
}

impl IncidentStore {
    /// The records `source` serves now (not deleted), by id.
    ///
    /// # Errors
    /// [`StoreError`] when the database cannot be read.
    pub fn live_records(&self, source: &str) -> Result<Vec<FeedRecord>, StoreError> {
        let mut statement = self
            .connection
            .prepare(&format!(
                "SELECT {RECORD_COLUMNS} FROM records
                 WHERE source = ?1 AND deleted_pull IS NULL ORDER BY id"
            ))
            .map_err(|e| self.sqlite(e))?;
        let rows = statement
            .query_map([source], from_row)
            .map_err(|e| self.sqlite(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.sqlite(e))
    }

    /// Every record of `source` with its deletion state, by id: the whole history
    /// the store keeps.
    ///
    /// # Errors
    /// [`StoreError`] when the database cannot be read.
    pub fn all_records(&self, source: &str) -> Result<Vec<(FeedRecord, bool)>, StoreError> {
        let mut statement = self
            .connection
            .prepare(&format!(
                "SELECT {RECORD_COLUMNS}, deleted_pull IS NOT NULL FROM records
                 WHERE source = ?1 ORDER BY id"
            ))
            .map_err(|e| self.sqlite(e))?;
        let rows = statement
            .query_map([source], |row| Ok((from_row(row)?, row.get(10)?)))
            .map_err(|e| self.sqlite(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.sqlite(e))
    }

    /// Revisions kept for one record, oldest first.
    ///
    /// # Errors
    /// [`StoreError`] when the database cannot be read.
    pub fn revisions_of(&self, source: &str, id: &str) -> Result<Vec<FeedRecord>, StoreError> {
        let mut statement = self
            .connection
            .prepare("SELECT before FROM revisions WHERE source = ?1 AND id = ?2 ORDER BY pull")
            .map_err(|e| self.sqlite(e))?;
        let texts = statement
            .query_map(params![source, id], |row| row.get::<_, String>(0))
            .map_err(|e| self.sqlite(e))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| self.sqlite(e))?;
        texts
            .iter()
            .map(|text| {
                serde_json::from_str(text)
                    .map_err(|e| self.corrupt(format!("revision of {source} {id}: {e}")))
            })
            .collect()
    }

    /// The last finished pull of `source` that changed anything: a build from
    /// the same one would be the same build. `None` before the first.
    ///
    /// # Errors
    /// [`StoreError`] when the database cannot be read.
    pub fn last_changing_pull(&self, source: &str) -> Result<Option<i64>, StoreError> {
        self.connection
            .query_row(
                "SELECT MAX(id) FROM pulls WHERE source = ?1 AND state = 'done'
                 AND (added + revised + deleted + restored + rekeyed > 0 OR id = (
                     SELECT MIN(id) FROM pulls WHERE source = ?1 AND state = 'done'))",
                [source],
                |row| row.get(0),
            )
            .map_err(|e| self.sqlite(e))
    }

    /// Why `source` is failing and since when: the error of its last pull and
    /// the start of the first pull after its last finished one, when its last
    /// pull did not finish and has an error. `None` while it is not failing.
    ///
    /// # Errors
    /// [`StoreError`] when the database cannot be read.
    pub fn failure(&self, source: &str) -> Result<Option<(String, String)>, StoreError> {
        let last = self.last_pull(source)?;
        let Some(error) = last
            .filter(|p| p.state != super::pulls::PullState::Done)
            .and_then(|p| p.error)
        else {
            return Ok(None);
        };
        let since: String = self
            .connection
            .query_row(
                "SELECT MIN(started_at) FROM pulls WHERE source = ?1 AND id > COALESCE(
                     (SELECT MAX(id) FROM pulls WHERE source = ?1 AND state = 'done'), 0)",
                [source],
                |row| row.get(0),
            )
            .map_err(|e| self.sqlite(e))?;
        Ok(Some((error, since)))
    }

    /// How fresh `source`'s data is.
    ///
    /// # Errors
    /// [`StoreError`] when the database cannot be read.
    pub fn freshness(&self, source: &str) -> Result<SourceFreshness, StoreError> {
        let last_success = self
            .connection
            .query_row(
                "SELECT finished_at FROM pulls WHERE source = ?1 AND state = 'done'
                 ORDER BY id DESC LIMIT 1",
                [source],
                |row| row.get::<_, Option<String>>(0),
            )
            .optional()
            .map_err(|e| self.sqlite(e))?
            .flatten();
        // A date after the last pull is a typo of the source's (2102 for 2012): it
        // must not carry the data-through date ahead.
        let cap = last_success
            .as_deref()
            .map_or("9999-12-31", |at| &at[..10.min(at.len())]);
        let (through, records): (Option<String>, i64) = self
            .connection
            .query_row(
                "SELECT MAX(CASE WHEN occurred_date <= ?2 THEN occurred_date END), COUNT(*)
                 FROM records WHERE source = ?1 AND deleted_pull IS NULL",
                params![source, cap],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .map_err(|e| self.sqlite(e))?;
        Ok(SourceFreshness {
            source: source.to_owned(),
            data_through: through.and_then(|d| d.parse().ok()),
            last_success,
            records: records.max(0) as u64,
        })
    }
}
