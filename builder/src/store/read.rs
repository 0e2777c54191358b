//! What the build and health read from the store: the records a source serves
//! now, and how fresh they are.

use std::collections::HashMap;

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

/// How often a source's reconciliation had to repair the store: a feed that
/// keeps diverging is a publisher's problem an operator should see.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Divergence {
    /// Rows the last finished pull's reconciliation repaired.
    pub last: u64,
    /// Rows repaired over the recent finished pulls.
    pub recent: u64,
    /// How many of the recent finished pulls repaired any.
    pub pulls_repairing: u32,
    /// How many finished pulls were looked at (at most [`DIVERGENCE_PULLS`]).
    pub pulls: u32,
}

/// The finished pulls [`IncidentStore::divergence`] looks back over: two months
/// of weekly syncs.
pub const DIVERGENCE_PULLS: u32 = 8;

impl IncidentStore {
    /// Each record `source` serves now with the change mark it was last served
    /// with, by id: what the reconciliation compares the service's list with.
    ///
    /// # Errors
    /// [`StoreError`] when the database cannot be read.
    pub fn live_marks(&self, source: &str) -> Result<HashMap<String, Option<String>>, StoreError> {
        let mut statement = self
            .connection
            .prepare("SELECT id, mark FROM records WHERE source = ?1 AND deleted_pull IS NULL")
            .map_err(|e| self.sqlite(e))?;
        let rows = statement
            .query_map([source], |row| Ok((row.get(0)?, row.get(1)?)))
            .map_err(|e| self.sqlite(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.sqlite(e))
    }

    /// What `source`'s reconciliation repaired over its last
    /// [`DIVERGENCE_PULLS`] finished pulls.
    ///
    /// # Errors
    /// [`StoreError`] when the database cannot be read.
    pub fn divergence(&self, source: &str) -> Result<Divergence, StoreError> {
        let mut statement = self
            .connection
            .prepare(
                "SELECT reconciled FROM pulls WHERE source = ?1 AND state = 'done'
                 ORDER BY id DESC LIMIT ?2",
            )
            .map_err(|e| self.sqlite(e))?;
        let repaired: Vec<i64> = statement
            .query_map(params![source, DIVERGENCE_PULLS], |row| row.get(0))
            .map_err(|e| self.sqlite(e))?
            .collect::<Result<_, _>>()
            .map_err(|e| self.sqlite(e))?;
        let count = |n: &i64| n.max(&0).unsigned_abs();
        Ok(Divergence {
            last: repaired.first().map_or(0, count),
            recent: repaired.iter().map(count).sum(),
            pulls_repairing: repaired.iter().filter(|&&n| n > 0).count() as u32,
            pulls: repaired.len() as u32,
        })
    }

    /// How many live records of `source` carry each offence value and
    /// description: what the mapping is checked against without reading every
    /// record.
    ///
    /// # Errors
    /// [`StoreError`] when the database cannot be read.
    pub fn offence_counts(
        &self,
        source: &str,
    ) -> Result<Vec<(String, Option<String>, u64)>, StoreError> {
        let mut statement = self
            .connection
            .prepare(
                "SELECT offence, description, COUNT(*) FROM records
                 WHERE source = ?1 AND deleted_pull IS NULL
                 GROUP BY offence, description ORDER BY offence, description",
            )
            .map_err(|e| self.sqlite(e))?;
        let rows = statement
            .query_map([source], |row| {
                Ok((
                    row.get(0)?,
                    row.get(1)?,
                    row.get::<_, i64>(2)?.unsigned_abs(),
                ))
            })
            .map_err(|e| self.sqlite(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.sqlite(e))
    }

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
