//! Socrata SODA 2.x (dev.socrata.com): rows of `<domain>/resource/<id>.json`
//! paged with `$limit`/`$offset`, which is only stable with an `$order`
//! (`:id` for a full pull; `:updated_at, :id` for a changed-since pull, since
//! ordering by `:updated_at` alone lets pages overlap). `$select=:*, *` brings
//! the system field `:updated_at`, the change mark; `$where=:updated_at >= '...'`
//! asks for the rows changed since, starting a lookback window behind the last
//! pull's mark (`since`): `:updated_at` is stamped when a publisher's batch is
//! written, not when it becomes visible, so a slow batch can surface after a
//! faster one with later stamps. The list of row keys with their marks
//! (`$select=<id>, :updated_at`) finds deletions and the rows whose mark the store
//! does not hold, which are fetched again by key (`$where=<id> IN (...)`); the
//! rows a pull should receive come from `count(*)`. An app
//! token goes in `X-App-Token`. Errors come as `{"code", "error": true,
//! "message"}` with a 4xx status; 403 means the data set turned private.

use chrono::{Duration, NaiveDateTime};
use serde_json::Value;

use super::fields::text;
use super::http::{Answer, HttpClient};
use super::{
    FeedError, FeedProtocol, Page, PublishedRow, Served, body_excerpt, json_body, refused,
};
use crate::store::pulls::PullKind;

/// SODA's default page (`$limit` when not given).
const DEFAULT_PAGE: u32 = 1000;
/// The largest `$limit` a 2.0 endpoint accepts.
const MAX_PAGE: u32 = 50_000;
/// The change-mark system field.
const UPDATED_AT: &str = ":updated_at";

/// A Socrata data set.
#[derive(Debug, Clone)]
pub struct Socrata {
    url: String,
    id_field: String,
    page_size: u32,
    lookback: Duration,
    token: Option<String>,
}

impl Socrata {
    /// The resource at `url` (`https://data.sfgov.org/resource/wg3w-h783.json`),
    /// keyed by `id_field`; a changed-since pull re-reads `lookback_days` behind
    /// the last pull's mark.
    #[must_use]
    pub fn new(
        url: &str,
        id_field: &str,
        page_size: Option<u32>,
        lookback_days: u32,
        token: Option<String>,
    ) -> Self {
        Self {
            url: url.to_owned(),
            id_field: id_field.to_owned(),
            page_size: page_size.unwrap_or(DEFAULT_PAGE).clamp(1, MAX_PAGE),
            lookback: Duration::days(i64::from(lookback_days)),
            token,
        }
    }

    fn headers(&self) -> Vec<(&'static str, String)> {
        self.token
            .iter()
            .map(|token| ("X-App-Token", token.clone()))
            .collect()
    }

    /// GETs the resource with `query` and reads a JSON array of rows.
    fn rows(&self, client: &HttpClient, query: &[(&str, String)]) -> Result<Vec<Value>, FeedError> {
        let url = super::http::with_query(&self.url, query);
        let answer = client.get(&self.url, query, &self.headers())?;
        let body = checked(&url, &answer)?;
        match body {
            Value::Array(rows) => Ok(rows),
            other => Err(FeedError::Body {
                url,
                message: format!("expected an array of rows, got {}", kind_of(&other)),
            }),
        }
    }

    /// A `SoQL` text literal: quoted, a quote inside doubled.
    fn literal(text: &str) -> String {
        format!("'{}'", text.replace('\'', "''"))
    }

    fn since_clause(since: &str) -> String {
        // A mark is the service's own timestamp text; a quote in it would end the
        // literal early, so it is doubled as SoQL escapes it.
        format!("{UPDATED_AT} >= {}", Self::literal(since))
    }
}

/// The body of a 2xx answer, or the error its status and body say.
fn checked(url: &str, answer: &Answer) -> Result<Value, FeedError> {
    if (200..300).contains(&answer.status) {
        return json_body(url, answer);
    }
    let body: Value = serde_json::from_slice(&answer.body).unwrap_or(Value::Null);
    let field = |name: &str| {
        body.get(name)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned()
    };
    let message = if field("message").is_empty() {
        body_excerpt(answer)
    } else {
        field("message")
    };
    Err(refused(url, answer.status, false, field("code"), message))
}

/// A row of an answer as published, its change mark read.
fn published(url: &str, row: Value) -> Result<PublishedRow, FeedError> {
    match row {
        Value::Object(attributes) => Ok(PublishedRow {
            mark: attributes
                .get(UPDATED_AT)
                .and_then(Value::as_str)
                .map(str::to_owned),
            attributes,
            point: None,
        }),
        other => Err(FeedError::Body {
            url: url.to_owned(),
            message: format!("a row is {}, not an object", kind_of(&other)),
        }),
    }
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

impl FeedProtocol for Socrata {
    fn changes_since(&self) -> bool {
        true
    }

    fn page_size(&self) -> u32 {
        self.page_size
    }

    fn page(
        &self,
        client: &HttpClient,
        kind: PullKind,
        since: Option<&str>,
        offset: u64,
    ) -> Result<Page, FeedError> {
        let mut query = vec![("$select", ":*, *".to_owned())];
        match (kind, since) {
            (PullKind::Changed, Some(since)) => {
                query.push(("$where", Self::since_clause(since)));
                query.push(("$order", format!("{UPDATED_AT}, :id")));
            }
            _ => query.push(("$order", ":id".to_owned())),
        }
        query.push(("$limit", self.page_size.to_string()));
        query.push(("$offset", offset.to_string()));
        let url = super::http::with_query(&self.url, &query);
        let rows = self.rows(client, &query)?;
        let more = rows.len() as u64 >= u64::from(self.page_size);
        let rows = rows
            .into_iter()
            .map(|row| published(&url, row))
            .collect::<Result<_, _>>()?;
        Ok(Page { rows, more })
    }

    fn since(&self, mark: &str) -> Option<String> {
        // A mark is a fixed (`...Z`) or floating timestamp; the start is written
        // in the same form, to the millisecond.
        let (text, zone) = match mark.strip_suffix('Z') {
            Some(text) => (text, "Z"),
            None => (mark, ""),
        };
        let at = NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%S%.f").ok()?;
        let start = at.checked_sub_signed(self.lookback)?;
        Some(format!("{}{zone}", start.format("%Y-%m-%dT%H:%M:%S%.3f")))
    }

    fn served(&self, client: &HttpClient) -> Result<Option<Served>, FeedError> {
        let mut served = Served::new();
        let mut offset = 0u64;
        loop {
            let query = [
                ("$select", format!("{}, {UPDATED_AT}", self.id_field)),
                ("$order", self.id_field.clone()),
                ("$limit", MAX_PAGE.to_string()),
                ("$offset", offset.to_string()),
            ];
            let rows = self.rows(client, &query)?;
            let n = rows.len() as u64;
            served.extend(rows.iter().filter_map(|row| {
                let id = text(row.get(&self.id_field))?;
                let mark = row
                    .get(UPDATED_AT)
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                Some((id, mark))
            }));
            if n < u64::from(MAX_PAGE) {
                return Ok(Some(served));
            }
            offset += n;
        }
    }

    fn fetches_by_id(&self) -> bool {
        true
    }

    fn rows_by_id(
        &self,
        client: &HttpClient,
        ids: &[String],
    ) -> Result<Vec<PublishedRow>, FeedError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let list: Vec<String> = ids.iter().map(|id| Self::literal(id)).collect();
        let query = vec![
            ("$select", ":*, *".to_owned()),
            (
                "$where",
                format!("{} IN ({})", self.id_field, list.join(", ")),
            ),
            ("$order", self.id_field.clone()),
            ("$limit", ids.len().to_string()),
        ];
        let url = super::http::with_query(&self.url, &query);
        self.rows(client, &query)?
            .into_iter()
            .map(|row| published(&url, row))
            .collect()
    }

    fn expected_rows(
        &self,
        client: &HttpClient,
        kind: PullKind,
        since: Option<&str>,
    ) -> Result<Option<u64>, FeedError> {
        let mut query = vec![("$select", "count(*)".to_owned())];
        if let (PullKind::Changed, Some(since)) = (kind, since) {
            query.push(("$where", Self::since_clause(since)));
        }
        let url = super::http::with_query(&self.url, &query);
        let rows = self.rows(client, &query)?;
        // The count's key differs between SODA versions (`count`, `count_1`);
        // the one value of the one row is the count.
        let count = rows
            .first()
            .and_then(Value::as_object)
            .and_then(|row| row.values().next())
            .and_then(|v| match v {
                Value::String(s) => s.parse().ok(),
                Value::Number(n) => n.as_u64(),
                _ => None,
            });
        count.map(Some).ok_or_else(|| FeedError::Body {
            url,
            message: "count(*) did not answer one number".into(),
        })
    }
}
