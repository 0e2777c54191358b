//! A pull: one pass over a feed, page by page. Each page commits with the pull's
//! progress in one transaction, so a pull stopped anywhere resumes at the page
//! after the last one committed, and a page applied twice changes nothing.

use std::collections::HashSet;

use chrono::{DateTime, SecondsFormat, Utc};
use rusqlite::{OptionalExtension, params};

use super::record::MarkedRecord;
use super::{IncidentStore, StoreError};

/// What a pull asks the source for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PullKind {
    /// Every row the source serves; what it no longer serves is deleted.
    Full,
    /// The rows changed since the last pull's change mark; deletions are found
    /// from the source's list of ids.
    Changed,
}

impl PullKind {
    const fn as_str(self) -> &'static str {
        match self {
            Self::Full => "full",
            Self::Changed => "changed",
        }
    }
}

/// A pull's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PullState {
    /// Begun and not finished: the next sync resumes it.
    Running,
    /// Finished: the store equals what the source served.
    Done,
    /// Stopped by an error the next sync does not resume past (it begins anew).
    Failed,
}

/// What a pull changed, so far or in all.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PullCounts {
    /// Rows the source served.
    pub fetched: u64,
    /// Rows never seen before.
    pub added: u64,
    /// Rows whose content changed.
    pub revised: u64,
    /// Rows served again unchanged.
    pub unchanged: u64,
    /// Rows the source no longer serves.
    pub deleted: u64,
    /// Deleted rows the source serves again.
    pub restored: u64,
    /// Rows served under a new key with unchanged content (a wholesale
    /// replacement that renumbered them): kept as the same records.
    pub rekeyed: u64,
    /// Rows the reconciliation at the end of the pull found the store did not
    /// hold as served (new, revised or restored; counted in those too), and
    /// fetched again: what the pull's own pages missed.
    pub reconciled: u64,
}

/// One pull, as the store records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pull {
    /// Its number, increasing over the store's life.
    pub id: i64,
    /// The source (`[sources.<name>]`).
    pub source: String,
    /// Full or changed-since.
    pub kind: PullKind,
    /// The change mark a changed-since pull asks after.
    pub since: Option<String>,
    /// When it began.
    pub started_at: String,
    /// When it finished or failed.
    pub finished_at: Option<String>,
    /// Running, done or failed.
    pub state: PullState,
    /// The offset of the next page to fetch.
    pub next_offset: u64,
    /// The highest change mark seen.
    pub mark: Option<String>,
    /// What it changed.
    pub counts: PullCounts,
    /// Whether it found a wholesale replacement of the data set.
    pub replacement: bool,
    /// Why it failed.
    pub error: Option<String>,
}

/// A page that cannot be trusted: nothing of it is applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PageFault {
    /// The page serves an id twice.
    RepeatsWithin(String),
    /// The page serves again an id an earlier page of this pull served, with the
    /// same change mark: the pages overlap.
    RepeatsEarlierPage(String),
}

/// How rows reach the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Arrival {
    /// A page of the pull, in order.
    Page,
    /// Fetched again by key by the reconciliation.
    Repair,
}

/// An RFC 3339 instant as the store writes it.
pub(crate) fn instant(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Secs, true)
}

impl IncidentStore {
    /// The pull of `source` that was begun and not finished, if any.
    ///
    /// # Errors
    /// [`StoreError`] when the database cannot be read.
    pub fn running_pull(&self, source: &str) -> Result<Option<Pull>, StoreError> {
        self.pull_where("source = ?1 AND state = 'running'", source)
    }

    /// The last finished pull of `source`, if any.
    ///
    /// # Errors
    /// [`StoreError`] when the database cannot be read.
    pub fn last_done_pull(&self, source: &str) -> Result<Option<Pull>, StoreError> {
        self.pull_where("source = ?1 AND state = 'done'", source)
    }

    /// The last pull of `source` in any state, if any.
    ///
    /// # Errors
    /// [`StoreError`] when the database cannot be read.
    pub fn last_pull(&self, source: &str) -> Result<Option<Pull>, StoreError> {
        self.pull_where("source = ?1", source)
    }

    fn pull_where(&self, condition: &str, source: &str) -> Result<Option<Pull>, StoreError> {
        let sql = format!(
            "SELECT id, source, kind, since, started_at, finished_at, state, next_offset,
                    mark, fetched, added, revised, unchanged, deleted, restored, rekeyed,
                    replacement, error, reconciled
             FROM pulls WHERE {condition} ORDER BY id DESC LIMIT 1"
        );
        let row = self
            .connection
            .query_row(&sql, [source], |row| {
                Ok((
                    row.get::<_, i64>(0)?,
                    row.get::<_, String>(1)?,
                    row.get::<_, String>(2)?,
                    row.get::<_, Option<String>>(3)?,
                    row.get::<_, String>(4)?,
                    row.get::<_, Option<String>>(5)?,
                    row.get::<_, String>(6)?,
                    row.get::<_, i64>(7)?,
                    row.get::<_, Option<String>>(8)?,
                    [
                        row.get::<_, i64>(9)?,
                        row.get::<_, i64>(10)?,
                        row.get::<_, i64>(11)?,
                        row.get::<_, i64>(12)?,
                        row.get::<_, i64>(13)?,
                        row.get::<_, i64>(14)?,
                        row.get::<_, i64>(15)?,
                    ],
                    row.get::<_, bool>(16)?,
                    row.get::<_, Option<String>>(17)?,
                    row.get::<_, i64>(18)?,
                ))
            })
            .optional()
            .map_err(|e| self.sqlite(e))?;
        let Some((
            id,
            source,
            kind,
            since,
            started_at,
            finished_at,
            state,
            next,
            mark,
            n,
            r,
            e,
            rc,
        )) = row
        else {
            return Ok(None);
        };
        let kind = match kind.as_str() {
            "full" => PullKind::Full,
            "changed" => PullKind::Changed,
            other => return Err(self.corrupt(format!("pull {id} has kind {other:?}"))),
        };
        let state = match state.as_str() {
            "running" => PullState::Running,
            "done" => PullState::Done,
            "failed" => PullState::Failed,
            other => return Err(self.corrupt(format!("pull {id} has state {other:?}"))),
        };
        let count = |i: usize| n[i].max(0) as u64;
        Ok(Some(Pull {
            id,
            source,
            kind,
            since,
            started_at,
            finished_at,
            state,
            next_offset: next.max(0) as u64,
            mark,
            counts: PullCounts {
                fetched: count(0),
                added: count(1),
                revised: count(2),
                unchanged: count(3),
                deleted: count(4),
                restored: count(5),
                rekeyed: count(6),
                reconciled: rc.max(0) as u64,
            },
            replacement: r,
            error: e,
        }))
    }

    /// Begins a pull of `source` reading from `since`, its highest change mark
    /// starting at `mark` (the last pull's, so that a pull that sees no row keeps
    /// the high-water mark rather than losing it).
    ///
    /// # Errors
    /// [`StoreError`] when the database cannot be written.
    pub fn begin_pull(
        &mut self,
        source: &str,
        kind: PullKind,
        since: Option<&str>,
        mark: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<Pull, StoreError> {
        self.connection
            .execute(
                "INSERT INTO pulls (source, kind, since, mark, started_at, state)
                 VALUES (?1, ?2, ?3, ?4, ?5, 'running')",
                params![source, kind.as_str(), since, mark, instant(now)],
            )
            .map_err(|e| self.sqlite(e))?;
        self.running_pull(source)?
            .ok_or_else(|| self.corrupt("a pull just begun is not running"))
    }

    /// Applies one page of a running pull and moves its offset past it, in one
    /// transaction. A page that repeats an id (within itself, or from an earlier
    /// page with the same change mark) is refused whole: `Ok(Err(fault))`, with
    /// nothing written.
    ///
    /// # Errors
    /// [`StoreError`] when the database cannot be read or written.
    pub fn apply_page(
        &mut self,
        pull: &Pull,
        rows: &[MarkedRecord],
    ) -> Result<Result<PullCounts, PageFault>, StoreError> {
        self.apply_rows(pull, rows, Arrival::Page)
    }

    /// Applies rows the reconciliation fetched again by key, in one transaction:
    /// as a page's rows, but a row served earlier in the pull is no fault (it
    /// changed since) and the pull's offset stays. Returns their counts, with
    /// `reconciled` those whose content the store did not hold.
    ///
    /// # Errors
    /// [`StoreError`] when the database cannot be read or written.
    pub fn apply_repairs(
        &mut self,
        pull: &Pull,
        rows: &[MarkedRecord],
    ) -> Result<PullCounts, StoreError> {
        match self.apply_rows(pull, rows, Arrival::Repair)? {
            Ok(counts) => Ok(counts),
            Err(fault) => Err(self.corrupt(format!("a repair was refused as a page: {fault:?}"))),
        }
    }

    fn apply_rows(
        &mut self,
        pull: &Pull,
        rows: &[MarkedRecord],
        arrival: Arrival,
    ) -> Result<Result<PullCounts, PageFault>, StoreError> {
        let path = self.path.clone();
        let wrap = |source| StoreError::Sqlite {
            path: path.clone(),
            source,
        };
        let transaction = self.connection.transaction().map_err(wrap)?;
        let mut within = HashSet::with_capacity(rows.len());
        {
            let mut seen = transaction
                .prepare_cached("SELECT mark FROM pull_seen WHERE pull = ?1 AND id = ?2")
                .map_err(wrap)?;
            for row in rows {
                if !within.insert(row.record.id.as_str()) {
                    return Ok(Err(PageFault::RepeatsWithin(row.record.id.clone())));
                }
                let earlier: Option<Option<String>> = seen
                    .query_row(params![pull.id, row.record.id], |r| r.get(0))
                    .optional()
                    .map_err(wrap)?;
                // The same id with a newer mark is a row changed while the pull
                // ran (it moved to the end of the order): a later version, not a
                // repeat.
                if arrival == Arrival::Page && earlier.is_some_and(|mark| mark == row.mark) {
                    return Ok(Err(PageFault::RepeatsEarlierPage(row.record.id.clone())));
                }
            }
        }
        let mut counts = PullCounts::default();
        for row in rows {
            upsert(&transaction, pull, row, &mut counts).map_err(wrap)?;
            transaction
                .execute(
                    "INSERT OR REPLACE INTO pull_seen (pull, id, mark) VALUES (?1, ?2, ?3)",
                    params![pull.id, row.record.id, row.mark],
                )
                .map_err(wrap)?;
        }
        match arrival {
            Arrival::Page => counts.fetched = rows.len() as u64,
            // A restored record is new or revised too: count it once.
            Arrival::Repair => counts.reconciled = rows.len() as u64 - counts.unchanged,
        }
        let advance = if arrival == Arrival::Page {
            rows.len() as u64
        } else {
            0
        };
        let page_mark = rows.iter().filter_map(|r| r.mark.as_deref()).max();
        transaction
            .execute(
                "UPDATE pulls SET next_offset = next_offset + ?2,
                        mark = CASE WHEN ?3 IS NULL THEN mark
                                    WHEN mark IS NULL OR ?3 > mark THEN ?3 ELSE mark END,
                        fetched = fetched + ?4, added = added + ?5, revised = revised + ?6,
                        unchanged = unchanged + ?7, restored = restored + ?8,
                        reconciled = reconciled + ?9
                 WHERE id = ?1",
                params![
                    pull.id,
                    advance,
                    page_mark,
                    counts.fetched,
                    counts.added,
                    counts.revised,
                    counts.unchanged,
                    counts.restored,
                    counts.reconciled,
                ],
            )
            .map_err(wrap)?;
        transaction.commit().map_err(wrap)?;
        Ok(Ok(counts))
    }

    /// The ids the pages of running pull `pull` served so far.
    ///
    /// # Errors
    /// [`StoreError`] when the database cannot be read.
    pub fn seen_in_pull(&self, pull: &Pull) -> Result<HashSet<String>, StoreError> {
        let mut statement = self
            .connection
            .prepare("SELECT id FROM pull_seen WHERE pull = ?1")
            .map_err(|e| self.sqlite(e))?;
        let rows = statement
            .query_map([pull.id], |row| row.get(0))
            .map_err(|e| self.sqlite(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.sqlite(e))
    }

    /// Notes the error that stopped a running pull that the next sync resumes
    /// (the service down, a 429 storm): health reports it until a pull finishes.
    ///
    /// # Errors
    /// [`StoreError`] when the database cannot be written.
    pub fn note_pull_error(&mut self, pull: &Pull, error: &str) -> Result<(), StoreError> {
        self.connection
            .execute(
                "UPDATE pulls SET error = ?2 WHERE id = ?1",
                params![pull.id, error],
            )
            .map(|_| ())
            .map_err(|e| self.sqlite(e))
    }

    /// Marks a running pull failed with its error; what its committed pages
    /// stored stays (every row is the source's own, and the next pull sees it
    /// again).
    ///
    /// # Errors
    /// [`StoreError`] when the database cannot be written.
    pub fn fail_pull(
        &mut self,
        pull: &Pull,
        error: &str,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let path = self.path.clone();
        let transaction = self
            .connection
            .transaction()
            .map_err(|source| StoreError::Sqlite {
                path: path.clone(),
                source,
            })?;
        let result = transaction
            .execute(
                "UPDATE pulls SET state = 'failed', error = ?2, finished_at = ?3 WHERE id = ?1",
                params![pull.id, error, instant(now)],
            )
            .and_then(|_| transaction.execute("DELETE FROM pull_seen WHERE pull = ?1", [pull.id]))
            .and_then(|_| transaction.commit());
        result.map_err(|source| StoreError::Sqlite { path, source })
    }
}

/// Inserts a new record, or updates a stored one whose content changed (keeping
/// the old content in `revisions`), or only notes its change mark.
fn upsert(
    transaction: &rusqlite::Transaction<'_>,
    pull: &Pull,
    row: &MarkedRecord,
    counts: &mut PullCounts,
) -> Result<(), rusqlite::Error> {
    let record = &row.record;
    let digest = record.digest();
    let stored: Option<(Vec<u8>, Option<i64>)> = transaction
        .prepare_cached("SELECT digest, deleted_pull FROM records WHERE source = ?1 AND id = ?2")?
        .query_row(params![pull.source, record.id], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .optional()?;
    if let Some((_, Some(_))) = &stored {
        counts.restored += 1;
    }
    match stored {
        Some((old_digest, deleted)) if old_digest == digest => {
            transaction
                .prepare_cached(
                    "UPDATE records SET mark = ?3, deleted_pull = NULL
                     WHERE source = ?1 AND id = ?2",
                )?
                .execute(params![pull.source, record.id, row.mark])?;
            if deleted.is_none() {
                counts.unchanged += 1;
            }
            return Ok(());
        }
        Some(_) => {
            keep_revision(transaction, &pull.source, &record.id, pull.id)?;
            counts.revised += 1;
        }
        None => counts.added += 1,
    }
    // New or changed: one statement writes the content; a new record's first
    // pull is this one, a changed record keeps its own and counts a revision.
    transaction
        .prepare_cached(
            "INSERT INTO records (source, id, event, occurred_date, occurred_hour,
                reported, offence, description, premises, lat, lng, mark, digest,
                first_pull, changed_pull)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?14)
             ON CONFLICT (source, id) DO UPDATE SET event = excluded.event,
                occurred_date = excluded.occurred_date,
                occurred_hour = excluded.occurred_hour, reported = excluded.reported,
                offence = excluded.offence, description = excluded.description,
                premises = excluded.premises, lat = excluded.lat, lng = excluded.lng,
                mark = excluded.mark, digest = excluded.digest,
                changed_pull = excluded.changed_pull, revisions = revisions + 1,
                deleted_pull = NULL",
        )?
        .execute(params![
            pull.source,
            record.id,
            record.event,
            record.occurred_date.map(|d| d.to_string()),
            record.occurred_hour,
            record.reported,
            record.offence,
            record.description,
            record.premises,
            record.lat,
            record.lng,
            row.mark,
            digest.as_slice(),
            pull.id,
        ])?;
    Ok(())
}

/// Copies a record's current content into `revisions` before it changes.
fn keep_revision(
    transaction: &rusqlite::Transaction<'_>,
    source: &str,
    id: &str,
    pull: i64,
) -> Result<(), rusqlite::Error> {
    let before = super::record::record_row(transaction, source, id)?;
    let json = serde_json::to_string(&before).unwrap_or_default();
    transaction
        .prepare_cached(
            "INSERT OR REPLACE INTO revisions (source, id, pull, before) VALUES (?1, ?2, ?3, ?4)",
        )?
        .execute(params![source, id, pull, json])?;
    Ok(())
}
