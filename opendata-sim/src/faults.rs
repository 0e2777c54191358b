//! Injectable faults, per dataset, and the request log.
//!
//! Each dataset has a first-in-first-out queue of faults; only the fault at the head of
//! the queue can fire, and it is consumed by the next request(s) it matches:
//!
//! * [`Fault::Down`] and [`Fault::TooManyRequests`] match any request to the dataset
//!   (metadata, counts, ids or data pages), one request each, `requests` times;
//! * the page faults ([`Fault::TruncatedPage`], [`Fault::RepeatedRows`],
//!   [`Fault::SkippedRows`]) match only data pages (a Socrata `/resource` query, an
//!   ArcGIS `query` returning features); the two offset faults only pages at offset > 0;
//! * [`Fault::Private`] is not queued: it makes the dataset private until cleared.
//!
//! Requests that do not match the head pass through untouched.

use std::collections::{HashMap, HashSet, VecDeque};

/// A fault to inject into a dataset's answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The next `requests` requests get a 503 with an HTML body (a proxy's error page).
    Down {
        /// How many requests fail.
        requests: u32,
    },
    /// The next `requests` requests get a 429 with `Retry-After` and the protocol's error
    /// body. Requests carrying an app token (`X-App-Token` header or `$$app_token`) are
    /// spared, and do not consume the fault, unless `hits_app_token` is set.
    TooManyRequests {
        /// How many requests are refused.
        requests: u32,
        /// The `Retry-After` value, in seconds.
        retry_after_secs: u32,
        /// Whether requests with an app token are refused too.
        hits_app_token: bool,
    },
    /// The next data page's body is cut in half (still a complete HTTP response whose
    /// `Content-Length` matches the cut body).
    TruncatedPage,
    /// The next data page at offset `o > 0` starts at `o - pagesize/2`, overlapping the
    /// previous page.
    RepeatedRows,
    /// The next data page at offset `o > 0` starts at `o + pagesize/2`, leaving a gap.
    SkippedRows,
    /// The dataset turns private until cleared: ArcGIS answers `499 Token Required`,
    /// Socrata a 403 `permission_denied`.
    Private,
}

impl Fault {
    /// A short name for logs and the control surface.
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            Fault::Down { .. } => "down",
            Fault::TooManyRequests { .. } => "too_many_requests",
            Fault::TruncatedPage => "truncated_page",
            Fault::RepeatedRows => "repeated_rows",
            Fault::SkippedRows => "skipped_rows",
            Fault::Private => "private",
        }
    }
}

/// One answered request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogEntry {
    /// The path and raw query (`/resource/x.json?$limit=10`).
    pub target: String,
    /// The status sent.
    pub status: u16,
    /// The dataset addressed, if any.
    pub dataset: Option<String>,
    /// The fault that shaped the answer, if any.
    pub fault: Option<&'static str>,
}

/// What a blocking fault does to a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Block {
    /// 503 with HTML.
    Down,
    /// 429 with `Retry-After`.
    TooMany(u32),
}

/// What a page fault does to a data page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PageFault {
    /// Cut the body in half.
    Truncate,
    /// Start half a page earlier.
    Repeat,
    /// Start half a page later.
    Skip,
}

impl PageFault {
    /// The offset actually served for a requested `offset` and page size.
    pub(crate) fn shift(self, offset: usize, page: usize) -> usize {
        match self {
            PageFault::Truncate => offset,
            PageFault::Repeat => offset.saturating_sub(page / 2),
            PageFault::Skip => offset + page / 2,
        }
    }
}

/// All datasets' fault queues, private flags, and the request log.
#[derive(Clone, Debug, Default)]
pub struct Faults {
    queues: HashMap<String, VecDeque<Fault>>,
    private: HashSet<String>,
    log: Vec<LogEntry>,
    pub(crate) applied: Option<&'static str>,
}

impl Faults {
    /// Queues `fault` for `dataset` (or, for [`Fault::Private`], makes it private).
    pub fn inject(&mut self, dataset: &str, fault: Fault) {
        if fault == Fault::Private {
            self.private.insert(dataset.to_owned());
        } else {
            self.queues
                .entry(dataset.to_owned())
                .or_default()
                .push_back(fault);
        }
    }

    /// Empties `dataset`'s queue and makes it public again.
    pub fn clear(&mut self, dataset: &str) {
        self.queues.remove(dataset);
        self.private.remove(dataset);
    }

    /// The faults still queued for `dataset`, head first.
    #[must_use]
    pub fn pending(&self, dataset: &str) -> Vec<Fault> {
        self.queues
            .get(dataset)
            .map(|q| q.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// Whether `dataset` is private.
    #[must_use]
    pub fn is_private(&self, dataset: &str) -> bool {
        self.private.contains(dataset)
    }

    /// Every request answered so far (control requests excepted), oldest first.
    #[must_use]
    pub fn log(&self) -> &[LogEntry] {
        &self.log
    }

    /// Forgets the request log.
    pub fn clear_log(&mut self) {
        self.log.clear();
    }

    pub(crate) fn record(&mut self, entry: LogEntry) {
        self.log.push(entry);
    }

    /// Consumes a blocking fault at the head of `dataset`'s queue, if one matches.
    pub(crate) fn take_block(&mut self, dataset: &str, has_app_token: bool) -> Option<Block> {
        let queue = self.queues.get_mut(dataset)?;
        let (block, left) = match queue.front_mut()? {
            Fault::Down { requests } => {
                *requests = requests.saturating_sub(1);
                (Block::Down, *requests)
            }
            Fault::TooManyRequests {
                requests,
                retry_after_secs,
                hits_app_token,
            } => {
                if has_app_token && !*hits_app_token {
                    return None;
                }
                *requests = requests.saturating_sub(1);
                (Block::TooMany(*retry_after_secs), *requests)
            }
            _ => return None,
        };
        if left == 0 {
            queue.pop_front();
        }
        self.applied = Some(match block {
            Block::Down => "down",
            Block::TooMany(_) => "too_many_requests",
        });
        Some(block)
    }

    /// Consumes a page fault at the head of `dataset`'s queue if it matches a data page
    /// at `offset`.
    pub(crate) fn take_page_fault(&mut self, dataset: &str, offset: usize) -> Option<PageFault> {
        let queue = self.queues.get_mut(dataset)?;
        let fault = match queue.front()? {
            Fault::TruncatedPage => PageFault::Truncate,
            Fault::RepeatedRows if offset > 0 => PageFault::Repeat,
            Fault::SkippedRows if offset > 0 => PageFault::Skip,
            _ => return None,
        };
        self.applied = queue.pop_front().map(|f| f.name());
        Some(fault)
    }
}
