//! Feeds: a city's incidents pulled from the open-data service that publishes
//! them. [`http`] fetches with retries; [`fields`] maps a published row onto the
//! fields the build reads; [`socrata`], [`arcgis`], [`ckan`] and [`csv_url`]
//! speak each protocol behind [`FeedProtocol`]; [`sync`] runs a pull into the
//! city's incident store (`crate::store`) and checks every page before trusting
//! it. Operator's guide: docs/REFRESH.md.

pub mod arcgis;
pub mod ckan;
pub mod csv_url;
pub mod fields;
pub mod http;
pub mod socrata;
pub mod sync;

use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::store::pulls::PullKind;
use fields::Point;
use http::{Answer, HttpClient, HttpError};

/// One row as the service published it.
#[derive(Debug, Clone, PartialEq)]
pub struct PublishedRow {
    /// Its fields.
    pub attributes: Map<String, Value>,
    /// Its point, where the protocol sends geometry apart (ArcGIS).
    pub point: Option<Point>,
    /// Its change mark, where the protocol has one (Socrata `:updated_at`).
    pub mark: Option<String>,
}

/// Every row key a service serves now, each with its change mark where the
/// protocol has one (Socrata `:updated_at`; `None` for ArcGIS).
pub type Served = HashMap<String, Option<String>>;

/// A page of a pull.
#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    /// The rows, in the pull's order.
    pub rows: Vec<PublishedRow>,
    /// Whether the service says, or a full page suggests, that more follow.
    pub more: bool,
}

/// What went wrong talking to a service.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FeedError {
    /// No readable answer.
    #[error(transparent)]
    Http(#[from] HttpError),
    /// The service answered with an error in its protocol's shape.
    #[error("{url}: the service refused the query (HTTP {status}, {code}): {message}")]
    Service {
        /// The request.
        url: String,
        /// HTTP status (ArcGIS sends its errors with 200).
        status: u16,
        /// The protocol's error code.
        code: String,
        /// Its message.
        message: String,
    },
    /// The data set is no longer public (ArcGIS "Token Required", Socrata 403).
    #[error("{url}: the data set is not public any more ({message}); it may need a token")]
    Private {
        /// The request.
        url: String,
        /// The service's words.
        message: String,
    },
    /// The body is not what the protocol sends (a truncated page included).
    #[error("{url}: unreadable answer: {message}")]
    Body {
        /// The request.
        url: String,
        /// What is wrong.
        message: String,
    },
    /// A configured field is not among the service's fields.
    #[error("field {field} is not published (the service has: {available})")]
    Schema {
        /// The field (spellings joined with ` or `).
        field: String,
        /// The fields it has, comma-joined.
        available: String,
    },
    /// The environment variable naming the app token is unset.
    #[error("the app token variable {variable} is not set")]
    Token {
        /// The variable.
        variable: String,
    },
}

/// The most row keys one [`FeedProtocol::rows_by_id`] request names: a hundred
/// keys of a dozen characters keep the query near 3 KB once percent-encoded,
/// well inside the 8 KB request lines servers and proxies accept.
pub const IDS_PER_FETCH: usize = 100;

/// One protocol's side of a pull.
pub trait FeedProtocol {
    /// Whether it can ask for the rows changed since a mark (none by default).
    fn changes_since(&self) -> bool {
        false
    }

    /// Checks the service before the first page of a pull (an ArcGIS layer's
    /// fields and page limit); by default there is nothing to check.
    ///
    /// # Errors
    /// [`FeedError`] when the service cannot be read or lacks a configured field.
    fn prepare(&mut self, _client: &HttpClient) -> Result<(), FeedError> {
        Ok(())
    }

    /// Rows asked for a page.
    fn page_size(&self) -> u32;

    /// The page of a pull at `offset`.
    ///
    /// # Errors
    /// [`FeedError`] when the page cannot be fetched or read.
    fn page(
        &self,
        client: &HttpClient,
        kind: PullKind,
        since: Option<&str>,
        offset: u64,
    ) -> Result<Page, FeedError>;

    /// Where a changed-since pull after `mark` (the last pull's highest change
    /// mark) starts reading: the mark less the feed's lookback window. `None`
    /// when the mark cannot be read, and the pull is then full. By default the
    /// protocol has no marks.
    fn since(&self, _mark: &str) -> Option<String> {
        None
    }

    /// Every row key the service serves now, with its change mark, where it can
    /// list them (by default it cannot): the deletions of a changed-since pull,
    /// the rows a full pull's pages skipped and the rows whose mark the store
    /// does not hold (the reconciliation) are found from it.
    ///
    /// # Errors
    /// [`FeedError`] when the list cannot be fetched or read.
    fn served(&self, _client: &HttpClient) -> Result<Option<Served>, FeedError> {
        Ok(None)
    }

    /// Whether [`Self::rows_by_id`] can fetch rows by their keys (by default it
    /// cannot, and the reconciliation only reports).
    fn fetches_by_id(&self) -> bool {
        false
    }

    /// The rows with these keys, as the service serves them now; a key it no
    /// longer serves is absent from the answer. At most [`IDS_PER_FETCH`] keys.
    ///
    /// # Errors
    /// [`FeedError`] when the rows cannot be fetched or read.
    fn rows_by_id(
        &self,
        _client: &HttpClient,
        _ids: &[String],
    ) -> Result<Vec<PublishedRow>, FeedError> {
        Ok(Vec::new())
    }

    /// How many rows a pull should receive, where the service can say (by
    /// default it cannot).
    ///
    /// # Errors
    /// [`FeedError`] when the count cannot be fetched or read.
    fn expected_rows(
        &self,
        _client: &HttpClient,
        _kind: PullKind,
        _since: Option<&str>,
    ) -> Result<Option<u64>, FeedError> {
        Ok(None)
    }
}

/// Parses a JSON body, naming the request when it is not JSON.
pub(crate) fn json_body(url: &str, answer: &Answer) -> Result<Value, FeedError> {
    serde_json::from_slice(&answer.body).map_err(|e| FeedError::Body {
        url: url.to_owned(),
        message: format!("HTTP {}: {e}", answer.status),
    })
}

/// The error of an answer the service refused: the data set turned private
/// when `private` (the protocol's own sign) or the status is 401 or 403, else
/// the service's error with its code and message.
pub(crate) fn refused(
    url: &str,
    status: u16,
    private: bool,
    code: String,
    message: String,
) -> FeedError {
    if private || status == 401 || status == 403 {
        FeedError::Private {
            url: url.to_owned(),
            message,
        }
    } else {
        FeedError::Service {
            url: url.to_owned(),
            status,
            code,
            message,
        }
    }
}

/// The start of an answer's body as text, for an error that carries no message.
pub(crate) fn body_excerpt(answer: &Answer) -> String {
    String::from_utf8_lossy(&answer.body)
        .chars()
        .take(200)
        .collect()
}
