//! CKAN `datastore_search` (docs.ckan.org, DataStore API): records paged with
//! `limit`/`offset` and sorted by the DataStore's own `_id` for stable pages;
//! `result.total` is the rows a pull should receive. Answers are
//! `{"success": true, "result": {...}}`, errors `{"success": false, "error":
//! {"message", "__type"}}`; an API token goes in `Authorization`. No changed-since
//! mark, so every pull is full.

use serde_json::Value;

use super::http::HttpClient;
use super::{FeedError, FeedProtocol, Page, PublishedRow, json_body, refused};
use crate::store::pulls::PullKind;

/// CKAN's default `limit`.
const DEFAULT_PAGE: u32 = 1000;

/// A CKAN DataStore resource: `url` is `datastore_search` with its `resource_id`.
#[derive(Debug, Clone)]
pub struct Ckan {
    url: String,
    page_size: u32,
    token: Option<String>,
}

impl Ckan {
    /// The resource searched at `url`.
    #[must_use]
    pub fn new(url: &str, page_size: Option<u32>, token: Option<String>) -> Self {
        Self {
            url: url.to_owned(),
            page_size: page_size.unwrap_or(DEFAULT_PAGE).max(1),
            token,
        }
    }

    fn search(
        &self,
        client: &HttpClient,
        query: &[(&str, String)],
    ) -> Result<(String, Value), FeedError> {
        let headers: Vec<(&str, String)> = self
            .token
            .iter()
            .map(|t| ("Authorization", t.clone()))
            .collect();
        let url = super::http::with_query(&self.url, query);
        let answer = client.get(&self.url, query, &headers)?;
        let body = json_body(&url, &answer)?;
        if body.get("success").and_then(Value::as_bool) == Some(true) {
            let result = body.get("result").cloned().unwrap_or(Value::Null);
            return Ok((url, result));
        }
        let error = body.get("error");
        let text = |name: &str| {
            error
                .and_then(|e| e.get(name))
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned()
        };
        let private = text("__type") == "Authorization Error";
        Err(refused(
            &url,
            answer.status,
            private,
            text("__type"),
            text("message"),
        ))
    }
}

impl FeedProtocol for Ckan {
    fn page_size(&self) -> u32 {
        self.page_size
    }

    fn page(
        &self,
        client: &HttpClient,
        _kind: PullKind,
        _since: Option<&str>,
        offset: u64,
    ) -> Result<Page, FeedError> {
        let query = [
            ("limit", self.page_size.to_string()),
            ("offset", offset.to_string()),
            ("sort", "_id asc".to_owned()),
        ];
        let (url, result) = self.search(client, &query)?;
        let records = result
            .get("records")
            .and_then(Value::as_array)
            .ok_or_else(|| FeedError::Body {
                url: url.clone(),
                message: "no result.records array".into(),
            })?;
        let rows = records
            .iter()
            .map(|record| {
                record
                    .as_object()
                    .map(|attributes| PublishedRow {
                        attributes: attributes.clone(),
                        point: None,
                        mark: None,
                    })
                    .ok_or_else(|| FeedError::Body {
                        url: url.clone(),
                        message: "a record is not an object".into(),
                    })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let more = rows.len() as u64 >= u64::from(self.page_size);
        Ok(Page { rows, more })
    }

    fn expected_rows(
        &self,
        client: &HttpClient,
        _kind: PullKind,
        _since: Option<&str>,
    ) -> Result<Option<u64>, FeedError> {
        let (url, result) = self.search(client, &[("limit", "0".to_owned())])?;
        result
            .get("total")
            .and_then(Value::as_u64)
            .map(Some)
            .ok_or_else(|| FeedError::Body {
                url,
                message: "no result.total".into(),
            })
    }
}
