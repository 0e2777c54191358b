//! The end of a pull: what the source no longer serves is marked deleted, rows a
//! wholesale replacement renumbered are matched back to their records, and the
//! pull is closed, all in one transaction.

use std::collections::{HashMap, HashSet};

use chrono::{DateTime, NaiveDate, Utc};
use rusqlite::params;

use super::pulls::{Pull, PullCounts, PullKind, instant};
use super::{IncidentStore, StoreError};

/// Why a pull cannot be closed: the store would not equal the source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReconcileFault {
    /// The pull would delete more than [`MASS_DELETION_SHARE`] of the records:
    /// a publisher's mistake (a truncated or emptied data set) more often than a
    /// week's withdrawals. Nothing is deleted until an operator accepts it.
    MassDeletion {
        /// Records the pull would delete.
        count: u64,
        /// Records held before the pull.
        of: u64,
    },
    /// The source lists ids the pull never received (a page skipped them).
    Missing {
        /// How many.
        count: usize,
        /// One of them.
        example: String,
    },
}

/// The share of a source's records one pull may delete without an operator's
/// word.
pub const MASS_DELETION_SHARE: f64 = 0.2;

/// How a pull is closed.
#[derive(Debug, Clone, Copy, Default)]
pub struct Close<'a> {
    /// Every id the service serves now, where the protocol can list them.
    pub served: Option<&'a HashSet<String>>,
    /// Rows that occurred before this date and are no longer served aged out of
    /// a rolling window: kept, not deleted.
    pub aged_out_before: Option<NaiveDate>,
    /// Whether the operator accepts deleting more than [`MASS_DELETION_SHARE`].
    pub accept_mass_deletion: bool,
}

/// Share of a data set that, changed at once with (nearly) no change of content,
/// marks a wholesale replacement rather than a week's revisions.
const REPLACEMENT_SHARE: f64 = 0.9;

impl IncidentStore {
    /// Closes a running pull. `served` is every id the source serves now, where
    /// the protocol can list them (a changed-since pull needs it); without it, the
    /// ids a full pull received are those served. Records not served are marked
    /// deleted; for a full pull, rows received under new ids with the content of
    /// records it would delete are the same records renumbered and keep their
    /// history. Returns the pull's final counts, or the fault that keeps it open.
    ///
    /// # Errors
    /// [`StoreError`] when the database cannot be read or written.
    pub fn finish_pull(
        &mut self,
        pull: &Pull,
        close: Close<'_>,
        now: DateTime<Utc>,
    ) -> Result<Result<Pull, ReconcileFault>, StoreError> {
        let Close {
            served,
            aged_out_before,
            accept_mass_deletion,
        } = close;
        let path = self.path.clone();
        let wrap = |source| StoreError::Sqlite {
            path: path.clone(),
            source,
        };
        let transaction = self.connection.transaction().map_err(wrap)?;
        let live: Vec<LiveRow> = {
            let mut statement = transaction
                .prepare(
                    "SELECT id, digest, first_pull, occurred_date FROM records
                     WHERE source = ?1 AND deleted_pull IS NULL",
                )
                .map_err(wrap)?;
            statement
                .query_map([&pull.source], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
                })
                .map_err(wrap)?
                .collect::<Result<_, _>>()
                .map_err(wrap)?
        };
        let seen: HashSet<String> = {
            let mut statement = transaction
                .prepare("SELECT id FROM pull_seen WHERE pull = ?1")
                .map_err(wrap)?;
            statement
                .query_map([pull.id], |r| r.get(0))
                .map_err(wrap)?
                .collect::<Result<_, _>>()
                .map_err(wrap)?
        };
        // Rows the source lists and this pull never received: a full pull's pages
        // skipped them, or a changed-since pull missed them. Either way the store
        // would not equal the source.
        if let Some(served) = served {
            let live_ids: HashSet<&str> = live.iter().map(|(id, ..)| id.as_str()).collect();
            let received = |id: &str| match pull.kind {
                PullKind::Full => seen.contains(id),
                PullKind::Changed => live_ids.contains(id),
            };
            let missing: Vec<&String> = served.iter().filter(|id| !received(id)).collect();
            if let Some(example) = missing.iter().min() {
                return Ok(Err(ReconcileFault::Missing {
                    count: missing.len(),
                    example: (*example).clone(),
                }));
            }
        }
        let served = served.unwrap_or(&seen);
        // A rolling layer no longer serves what aged out of its window: that is
        // not a deletion.
        let aged_out = |date: &Option<String>| {
            aged_out_before.is_some_and(|before| {
                date.as_deref()
                    .and_then(|d| d.parse::<NaiveDate>().ok())
                    .is_some_and(|d| d < before)
            })
        };
        let gone: Vec<&LiveRow> = live
            .iter()
            .filter(|(id, _, _, date)| !served.contains(id) && !aged_out(date))
            .collect();
        let (rekeyed, deleted) = retire(&transaction, pull, &live, &gone, served).map_err(wrap)?;
        // The records held before this pull: those live now, less the ones it added.
        let before = (live.len() as u64).saturating_sub(pull.counts.added);
        if !accept_mass_deletion && deleted as f64 > MASS_DELETION_SHARE * before as f64 {
            // Dropping the transaction rolls the deletions back.
            return Ok(Err(ReconcileFault::MassDeletion {
                count: deleted,
                of: before,
            }));
        }
        let counts = PullCounts {
            added: pull.counts.added.saturating_sub(rekeyed),
            deleted,
            rekeyed,
            ..pull.counts
        };
        let replacement = is_replacement(pull.kind, &counts, before);
        transaction
            .execute(
                "UPDATE pulls SET state = 'done', finished_at = ?2, added = ?3, deleted = ?4,
                        rekeyed = ?5, replacement = ?6
                 WHERE id = ?1",
                params![
                    pull.id,
                    instant(now),
                    counts.added,
                    counts.deleted,
                    counts.rekeyed,
                    replacement,
                ],
            )
            .and_then(|_| transaction.execute("DELETE FROM pull_seen WHERE pull = ?1", [pull.id]))
            .map_err(wrap)?;
        transaction.commit().map_err(wrap)?;
        let closed = self
            .last_done_pull(&pull.source)?
            .ok_or_else(|| self.corrupt("a pull just closed is not done"))?;
        Ok(Ok(closed))
    }
}

/// A row of `records` as `finish_pull` reads it: id, digest, first pull,
/// occurrence date.
type LiveRow = (String, Vec<u8>, i64, Option<String>);

/// Marks the records in `gone` deleted, except those a full pull received again
/// under a new id with the same content: those take the new id and keep their
/// history. Returns how many were re-keyed and how many deleted.
fn retire(
    transaction: &rusqlite::Transaction<'_>,
    pull: &Pull,
    live: &[LiveRow],
    gone: &[&LiveRow],
    served: &HashSet<String>,
) -> Result<(u64, u64), rusqlite::Error> {
    // Re-keyed rows: a full pull's new rows whose content equals a record it
    // would delete. Matched one to one by digest, in id order, so the result
    // does not depend on hash order.
    let mut rekeyed = 0u64;
    let mut deleted = 0u64;
    let mut by_digest: HashMap<&[u8], Vec<&str>> = HashMap::new();
    if pull.kind == PullKind::Full {
        let mut fresh: Vec<&LiveRow> = live
            .iter()
            .filter(|(id, _, first, _)| *first == pull.id && served.contains(id))
            .collect();
        fresh.sort_by(|a, b| b.0.cmp(&a.0));
        for (id, digest, ..) in fresh {
            by_digest.entry(digest).or_default().push(id);
        }
    }
    let mut gone_sorted = gone.to_vec();
    gone_sorted.sort_by(|a, b| a.0.cmp(&b.0));
    for (old_id, digest, ..) in gone_sorted {
        let new_id = by_digest.get_mut(digest.as_slice()).and_then(Vec::pop);
        if let Some(new_id) = new_id {
            // The fresh row goes; the old record takes its id and keeps its
            // first sighting, revisions and history.
            transaction
                .execute(
                    "DELETE FROM records WHERE source = ?1 AND id = ?2",
                    params![pull.source, new_id],
                )
                .and_then(|_| {
                    transaction.execute(
                        "UPDATE records SET id = ?3, changed_pull = ?4
                         WHERE source = ?1 AND id = ?2",
                        params![pull.source, old_id, new_id, pull.id],
                    )
                })
                .and_then(|_| {
                    transaction.execute(
                        "UPDATE revisions SET id = ?3 WHERE source = ?1 AND id = ?2",
                        params![pull.source, old_id, new_id],
                    )
                })?;
            rekeyed += 1;
        } else {
            transaction.execute(
                "UPDATE records SET deleted_pull = ?3 WHERE source = ?1 AND id = ?2",
                params![pull.source, old_id, pull.id],
            )?;
            deleted += 1;
        }
    }
    Ok((rekeyed, deleted))
}

/// A wholesale replacement: most of the data set served again as changed with
/// its content the same (a changed-since pull), or under new ids (a full pull,
/// which serves every row every time, so only new ids say anything).
fn is_replacement(kind: PullKind, counts: &PullCounts, live_before: u64) -> bool {
    if live_before == 0 {
        return false;
    }
    let share = |n: u64| n as f64 / live_before as f64;
    match kind {
        PullKind::Changed => share(counts.unchanged) >= REPLACEMENT_SHARE,
        PullKind::Full => share(counts.rekeyed) >= REPLACEMENT_SHARE,
    }
}
