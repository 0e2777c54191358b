//! One sync of one source: a pull from its service into the city's incident
//! store, every page checked before it is trusted.
//!
//! A pull resumes where a stopped one left off (its committed pages stay; see
//! `store/pulls.rs`), else is changed-since where the protocol has a mark and a
//! pull has finished before, else full. Each page is mapped (a row without its
//! key, or a page none of whose rows has an offence, means the schema moved: the
//! pull fails naming the field; one row without an offence keeps an empty one),
//! refused whole if it repeats an id, and committed with the pull's progress.
//! At the end the rows received are checked against what the service says it
//! serves (the list of ids, or its count): a page that skipped rows fails the
//! pull rather than leave the store short. Where the service lists each row's
//! change mark, every row whose mark the store does not hold is fetched again by
//! key (the reconciliation: revisions a changed-since pull's lower bound missed,
//! counted in the pull's `reconciled`). Then deletions and re-keyed rows are
//! reconciled and the pull closes.
//!
//! A transport error (the service down, a 429 storm outlasting the retries)
//! leaves the pull running: the next sync resumes it. Every other error fails
//! it; the next sync begins a new one. Neither loses a stored row.

use std::collections::HashSet;

use chrono::{DateTime, Utc};
use chrono_tz::Tz;

use super::arcgis::Arcgis;
use super::ckan::Ckan;
use super::csv_url::CsvUrl;
use super::fields::{self, RowError};
use super::http::HttpClient;
use super::socrata::Socrata;
use super::{FeedError, FeedProtocol, IDS_PER_FETCH, Served};
use crate::inputs::feed_config::{FeedConfig, Protocol};
use crate::store::pulls::{PageFault, Pull, PullKind};
use crate::store::reconcile::{Close, MASS_DELETION_SHARE, ReconcileFault};
use crate::store::record::MarkedRecord;
use crate::store::{IncidentStore, StoreError};

/// The most rows one pull takes: far above any city's feed, it stops a service
/// that pages forever.
const MAX_ROWS_PER_PULL: u64 = 50_000_000;

/// A sync that did not finish. Each names the source.
#[derive(Debug, thiserror::Error)]
pub enum SyncError {
    /// The service could not be read, or refused.
    #[error("source {name}: {error}")]
    Feed {
        /// The source.
        name: String,
        /// What the service did.
        error: FeedError,
    },
    /// A row lacks its key, or no row of a page has an offence: the published
    /// schema moved.
    #[error("source {name}: a row at offset {offset} has no {field}: the published fields changed")]
    Row {
        /// The source.
        name: String,
        /// The row's offset in the pull.
        offset: u64,
        /// The field.
        field: String,
    },
    /// A page repeats rows.
    #[error("source {name}: the page at offset {offset} {fault}; nothing of it was stored")]
    Page {
        /// The source.
        name: String,
        /// The page's offset.
        offset: u64,
        /// What repeats.
        fault: String,
    },
    /// Fewer rows came than the service said a pull would return.
    #[error(
        "source {name}: the service counted {expected} rows for this pull; its pages held {received}: a page skipped rows"
    )]
    Short {
        /// The source.
        name: String,
        /// Rows counted.
        expected: u64,
        /// Rows received.
        received: u64,
    },
    /// The service lists rows the pull never received.
    #[error(
        "source {name}: the service lists {count} rows this pull never received (for example {example}): a page skipped them"
    )]
    Skipped {
        /// The source.
        name: String,
        /// How many.
        count: usize,
        /// One of them.
        example: String,
    },
    /// The pull would delete more of the source's records than one pull may.
    #[error("source {name}: the service no longer serves {count} of the {of} rows stored (more than {share} %); nothing was deleted: if the publisher really withdrew them, run update with --accept-deletions", share = MASS_DELETION_SHARE * 100.0)]
    MassDeletion {
        /// The source.
        name: String,
        /// Rows the pull would delete.
        count: u64,
        /// Rows stored before it.
        of: u64,
    },
    /// The service kept paging past any real feed's size.
    #[error("source {name}: more than {MAX_ROWS_PER_PULL} rows in one pull; stopped")]
    Endless {
        /// The source.
        name: String,
    },
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The test hook stopped the pull after some pages, as a crash would.
    #[error("source {name}: stopped after {pages} pages")]
    Stopped {
        /// The source.
        name: String,
        /// Pages committed.
        pages: usize,
    },
}

impl SyncError {
    /// Whether the pull stays running for the next sync to resume.
    #[must_use]
    pub const fn resumable(&self) -> bool {
        matches!(
            self,
            Self::Feed {
                error: FeedError::Http(_),
                ..
            } | Self::Stopped { .. }
                | Self::Store(_)
        )
    }
}

/// A finished sync.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Synced {
    /// The closed pull, with its counts.
    pub pull: Pull,
    /// Records the source serves now, as the store holds them.
    pub records: u64,
    /// Rows stored that the build will reject, worth an operator's look (a
    /// coordinate beyond ±90° or ±180°), one line each kind.
    pub warnings: Vec<String>,
}

/// How a sync runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SyncOptions {
    /// Stop after this many pages, leaving the pull running, as a crash would
    /// (tests).
    pub stop_after_pages: Option<usize>,
    /// Accept a pull that deletes more than [`MASS_DELETION_SHARE`] of the
    /// records (the operator's word that the publisher withdrew them).
    pub accept_mass_deletion: bool,
}

/// The protocol client of a feed.
///
/// # Errors
/// [`FeedError::Token`] when the feed names a token variable that is unset.
pub fn protocol_of(feed: &FeedConfig) -> Result<Box<dyn FeedProtocol>, FeedError> {
    let token = feed
        .token()
        .map_err(|variable| FeedError::Token { variable })?;
    Ok(match feed.protocol {
        Protocol::Socrata => Box::new(Socrata::new(
            &feed.url,
            &feed.fields.id,
            feed.page_size,
            feed.lookback_days,
            token,
        )),
        Protocol::Arcgis => Box::new(Arcgis::new(&feed.url, &feed.fields, feed.page_size, token)),
        Protocol::Ckan => Box::new(Ckan::new(&feed.url, feed.page_size, token)),
        Protocol::CsvUrl => Box::new(CsvUrl::new(&feed.url)),
    })
}

/// Syncs source `name` from its feed into `store`, at `now`.
///
/// # Errors
/// [`SyncError`], naming the source; see the module doc for which leave the pull
/// running.
pub fn sync_source(
    store: &mut IncidentStore,
    name: &str,
    feed: &FeedConfig,
    tz: Tz,
    client: &HttpClient,
    now: DateTime<Utc>,
    options: SyncOptions,
) -> Result<Synced, SyncError> {
    let feed_error = |error: FeedError| SyncError::Feed {
        name: name.to_owned(),
        error,
    };
    let mut protocol = protocol_of(feed).map_err(feed_error)?;
    let pull = if let Some(pull) = store.running_pull(name)? {
        pull
    } else {
        let mark = if protocol.changes_since() {
            store.last_done_pull(name)?.and_then(|p| p.mark)
        } else {
            None
        };
        let since = mark.as_deref().and_then(|mark| protocol.since(mark));
        let kind = if since.is_some() {
            PullKind::Changed
        } else {
            PullKind::Full
        };
        store.begin_pull(name, kind, since.as_deref(), mark.as_deref(), now)?
    };
    // The pull exists before the service is first asked, so a service that fails
    // at once (down, private) is recorded like one that fails midway.
    let outcome = protocol.prepare(client).map_err(feed_error).and_then(|()| {
        let source = Pulling {
            name,
            feed,
            tz,
            protocol: protocol.as_ref(),
            client,
        };
        run(store, &pull, &source, now, options)
    });
    match outcome {
        Ok(warnings) => {
            let pull = store
                .last_done_pull(name)?
                .ok_or_else(|| SyncError::Store(store_lost(store)))?;
            let records = store.freshness(name)?.records;
            Ok(Synced {
                pull,
                records,
                warnings,
            })
        }
        Err(error) => {
            if error.resumable() {
                store.note_pull_error(&pull, &error.to_string())?;
            } else {
                store.fail_pull(&pull, &error.to_string(), now)?;
            }
            Err(error)
        }
    }
}

fn store_lost(store: &IncidentStore) -> StoreError {
    StoreError::Corrupt {
        path: store.path().to_path_buf(),
        what: "a pull closed without error is not done".into(),
    }
}

/// Maps a page's rows, counting those with impossible coordinates.
fn map_page(
    rows: &[super::PublishedRow],
    offset: u64,
    name: &str,
    feed: &FeedConfig,
    tz: Tz,
    impossible: &mut (u64, Option<String>),
) -> Result<Vec<MarkedRecord>, SyncError> {
    let mut records: Vec<MarkedRecord> = Vec::with_capacity(rows.len());
    for (row_offset, row) in (offset..).zip(rows) {
        let record = fields::map_row(&row.attributes, row.point, &feed.fields, tz).map_err(
            |RowError::Missing { field }| SyncError::Row {
                name: name.to_owned(),
                offset: row_offset,
                field,
            },
        )?;
        let beyond = record.lat.is_some_and(|v| !(-90.0..=90.0).contains(&v))
            || record.lng.is_some_and(|v| !(-180.0..=180.0).contains(&v));
        if beyond {
            impossible.0 += 1;
            impossible.1.get_or_insert_with(|| record.id.clone());
        }
        records.push(MarkedRecord {
            record,
            mark: row.mark.clone(),
        });
    }
    Ok(records)
}

/// Refuses a page none of whose rows has an offence: one row without one is a
/// null the service left out, a whole page without any a field no longer
/// published. (Rows fetched again by key are few and chosen, so they say nothing
/// of the schema and are not checked.)
fn check_offences(
    records: &[MarkedRecord],
    offset: u64,
    name: &str,
    feed: &FeedConfig,
) -> Result<(), SyncError> {
    if !records.is_empty() && records.iter().all(|r| r.record.offence.is_empty()) {
        return Err(SyncError::Row {
            name: name.to_owned(),
            offset,
            field: feed.fields.offence.join(" or "),
        });
    }
    Ok(())
}

/// What a pull of one source talks to: the source's name, feed and time zone,
/// its protocol and the HTTP client.
struct Pulling<'a> {
    name: &'a str,
    feed: &'a FeedConfig,
    tz: Tz,
    protocol: &'a dyn FeedProtocol,
    client: &'a HttpClient,
}

impl Pulling<'_> {
    /// A service error, naming the source.
    fn feed_error(&self, error: FeedError) -> SyncError {
        SyncError::Feed {
            name: self.name.to_owned(),
            error,
        }
    }
}

/// The reconciliation: every row the service lists whose change mark the store
/// does not hold for it (a revision stamped below the pull's lower bound, a row
/// re-stamped, a new row that surfaced late), and for a changed-since pull every
/// listed row the store does not hold, is fetched again by key and applied.
/// A full pull's rows its pages never served are left to the close, which fails
/// the pull for them: its pages, not the publisher, skipped them. A key the
/// service no longer serves when fetched is dropped from `served`.
fn reconcile(
    store: &mut IncidentStore,
    pull: &Pull,
    source: &Pulling<'_>,
    served: &mut Served,
) -> Result<(), SyncError> {
    let Pulling {
        name,
        feed,
        tz,
        protocol,
        client,
    } = *source;
    let stored = store.live_marks(name)?;
    let seen = if pull.kind == PullKind::Full {
        Some(store.seen_in_pull(pull)?)
    } else {
        None
    };
    let mut stale: Vec<String> = served
        .iter()
        .filter(|(id, mark)| match stored.get(*id) {
            Some(held) => held != *mark,
            None => seen.is_none(),
        })
        .filter(|(id, _)| seen.as_ref().is_none_or(|seen| seen.contains(*id)))
        .map(|(id, _)| id.clone())
        .collect();
    stale.sort_unstable();
    for ids in stale.chunks(IDS_PER_FETCH) {
        let rows = protocol
            .rows_by_id(client, ids)
            .map_err(|e| source.feed_error(e))?;
        let records = map_page(&rows, 0, name, feed, tz, &mut (0, None))?;
        let returned: HashSet<&str> = records.iter().map(|r| r.record.id.as_str()).collect();
        for id in ids.iter().filter(|id| !returned.contains(id.as_str())) {
            served.remove(id);
        }
        store.apply_repairs(pull, &records)?;
    }
    Ok(())
}

/// The pages and the close of one pull.
fn run(
    store: &mut IncidentStore,
    pull: &Pull,
    source: &Pulling<'_>,
    now: DateTime<Utc>,
    options: SyncOptions,
) -> Result<Vec<String>, SyncError> {
    let Pulling {
        name,
        feed,
        tz,
        protocol,
        client,
    } = *source;
    let feed_error = |e| source.feed_error(e);
    let since = pull.since.as_deref();
    let expected = protocol
        .expected_rows(client, pull.kind, since)
        .map_err(feed_error)?;
    let mut offset = pull.next_offset;
    let mut received = pull.counts.fetched;
    let mut impossible = (0u64, None::<String>);
    let mut pages = 0usize;
    loop {
        if options.stop_after_pages.is_some_and(|n| pages >= n) {
            return Err(SyncError::Stopped {
                name: name.to_owned(),
                pages,
            });
        }
        let page = protocol
            .page(client, pull.kind, since, offset)
            .map_err(feed_error)?;
        if page.rows.is_empty() {
            break;
        }
        let records = map_page(&page.rows, offset, name, feed, tz, &mut impossible)?;
        check_offences(&records, offset, name, feed)?;
        // A page needs only the pull's id and source, which do not change.
        if let Err(fault) = store.apply_page(pull, &records)? {
            let fault = match fault {
                PageFault::RepeatsWithin(id) => format!("serves row {id} twice"),
                PageFault::RepeatsEarlierPage(id) => {
                    format!("serves row {id} again, unchanged since an earlier page")
                }
            };
            return Err(SyncError::Page {
                name: name.to_owned(),
                offset,
                fault,
            });
        }
        pages += 1;
        offset += records.len() as u64;
        received += records.len() as u64;
        if received > MAX_ROWS_PER_PULL {
            return Err(SyncError::Endless {
                name: name.to_owned(),
            });
        }
        if !page.more {
            break;
        }
    }
    if let Some(expected) = expected.filter(|&expected| received < expected) {
        return Err(SyncError::Short {
            name: name.to_owned(),
            expected,
            received,
        });
    }
    let mut served = protocol.served(client).map_err(feed_error)?;
    if let Some(served) = served.as_mut().filter(|_| protocol.fetches_by_id()) {
        reconcile(store, pull, source, served)?;
    }
    let served: Option<HashSet<String>> = served.map(|served| served.into_keys().collect());
    let current = store
        .running_pull(name)?
        .ok_or_else(|| SyncError::Store(store_lost(store)))?;
    let window_start = feed
        .window_days
        .map(|days| now.with_timezone(&tz).date_naive() - chrono::Days::new(u64::from(days)));
    let close = Close {
        served: served.as_ref(),
        aged_out_before: window_start,
        accept_mass_deletion: options.accept_mass_deletion,
    };
    match store.finish_pull(&current, close, now)? {
        Ok(_) => {}
        Err(ReconcileFault::Missing { count, example }) => {
            return Err(SyncError::Skipped {
                name: name.to_owned(),
                count,
                example,
            });
        }
        Err(ReconcileFault::MassDeletion { count, of }) => {
            return Err(SyncError::MassDeletion {
                name: name.to_owned(),
                count,
                of,
            });
        }
    }
    Ok(impossible_warning(name, impossible).into_iter().collect())
}

/// The warning for rows stored with coordinates no place has: how many, and one.
fn impossible_warning(name: &str, (n, example): (u64, Option<String>)) -> Option<String> {
    example.map(|example| {
        format!(
            "source {name}: {n} rows have coordinates beyond ±90°/±180° (for example row {example}); stored as published, the build rejects them"
        )
    })
}
