//! A CSV file at a URL, fetched whole on every pull (no paging, no marks): the
//! last resort of publishers without a query API. Every value is text; the
//! header names the fields.

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::http::HttpClient;
use super::{FeedError, FeedProtocol, Page, PublishedRow};
use crate::store::pulls::PullKind;

/// A CSV file.
#[derive(Debug, Clone)]
pub struct CsvUrl {
    url: String,
}

impl CsvUrl {
    /// The file at `url`.
    #[must_use]
    pub fn new(url: &str) -> Self {
        Self {
            url: url.to_owned(),
        }
    }
}

impl FeedProtocol for CsvUrl {
    fn changes_since(&self) -> bool {
        false
    }

    fn prepare(&mut self, _client: &HttpClient) -> Result<(), FeedError> {
        Ok(())
    }

    fn page_size(&self) -> u32 {
        u32::MAX
    }

    fn page(
        &self,
        client: &HttpClient,
        _kind: PullKind,
        _since: Option<&str>,
        offset: u64,
    ) -> Result<Page, FeedError> {
        let answer = client.get(&self.url, &[], &[])?;
        if !(200..300).contains(&answer.status) {
            let message = String::from_utf8_lossy(&answer.body)
                .chars()
                .take(200)
                .collect();
            return Err(if answer.status == 401 || answer.status == 403 {
                FeedError::Private {
                    url: self.url.clone(),
                    message,
                }
            } else {
                FeedError::Service {
                    url: self.url.clone(),
                    status: answer.status,
                    code: String::new(),
                    message,
                }
            });
        }
        let bad = |message: String| FeedError::Body {
            url: self.url.clone(),
            message,
        };
        let mut reader = csv::ReaderBuilder::new().from_reader(answer.body.as_slice());
        let headers = reader.headers().map_err(|e| bad(e.to_string()))?.clone();
        let mut rows = Vec::new();
        for (line, record) in (2..).zip(reader.records()) {
            let record = record.map_err(|e| bad(format!("line {line}: {e}")))?;
            let attributes: Map<String, Value> = headers
                .iter()
                .zip(record.iter())
                .map(|(name, value)| (name.to_owned(), Value::String(value.to_owned())))
                .collect();
            rows.push(PublishedRow {
                attributes,
                point: None,
                mark: None,
            });
        }
        // A pull resumed after its one page was stored has nothing left.
        let skip = usize::try_from(offset)
            .unwrap_or(usize::MAX)
            .min(rows.len());
        rows.drain(..skip);
        Ok(Page { rows, more: false })
    }

    fn served_ids(&self, _client: &HttpClient) -> Result<Option<HashSet<String>>, FeedError> {
        Ok(None)
    }

    fn expected_rows(
        &self,
        _client: &HttpClient,
        _kind: PullKind,
        _since: Option<&str>,
    ) -> Result<Option<u64>, FeedError> {
        Ok(None)
    }
}
