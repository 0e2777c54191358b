//! A CSV file at a URL, fetched whole on every pull (no paging, no marks): the
//! last resort of publishers without a query API. Every value is text; the
//! header names the fields.

use serde_json::{Map, Value};

use super::http::HttpClient;
use super::{FeedError, FeedProtocol, Page, PublishedRow, body_excerpt, refused};
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
            let message = body_excerpt(&answer);
            return Err(refused(
                &self.url,
                answer.status,
                false,
                String::new(),
                message,
            ));
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
}
