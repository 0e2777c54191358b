//! ArcGIS REST FeatureServer and MapServer layers (Esri's "Query (Feature
//! Service/Layer)"): the layer's description (`<layer>?f=json`) gives its fields,
//! object-id field and `maxRecordCount`; `<layer>/query` pages with
//! `resultOffset`/`resultRecordCount`, ordered by the object id for stable pages,
//! and sets `exceededTransferLimit` while more remain (a short page is the other
//! end signal: some layers omit the flag). `returnIdsOnly=true` lists every
//! object id, not subject to `maxRecordCount`. Dates are UTC epoch milliseconds.
//! Errors come with HTTP 200 as `{"error": {"code", "message", "details"}}`; 498
//! and 499 ("Token Required") mean the layer turned private. A layer has no
//! changed-since mark the protocol guarantees, so every pull is full: each sync
//! compares every row's content with the store, which is the reconciliation a
//! changed-since protocol needs its marks for.

use serde_json::{Map, Value};

use super::fields::{EVERY_ROW, GEOMETRY, Point, text};
use super::http::{Answer, HttpClient};
use super::{
    FeedError, FeedProtocol, Page, PublishedRow, Served, body_excerpt, json_body, refused,
};
use crate::inputs::feed_config::FeedFields;
use crate::store::pulls::PullKind;

/// The page when neither the config nor the layer says (ArcGIS Online's usual
/// `maxRecordCount`).
const DEFAULT_PAGE: u32 = 2000;

/// An ArcGIS layer.
#[derive(Debug, Clone)]
pub struct Arcgis {
    url: String,
    fields: FeedFields,
    asked_page: Option<u32>,
    page_size: u32,
    object_id_field: String,
    token: Option<String>,
}

impl Arcgis {
    /// The layer at `url` (`.../FeatureServer/0`).
    #[must_use]
    pub fn new(
        url: &str,
        fields: &FeedFields,
        page_size: Option<u32>,
        token: Option<String>,
    ) -> Self {
        Self {
            url: url.trim_end_matches('/').to_owned(),
            fields: fields.clone(),
            asked_page: page_size,
            page_size: page_size.unwrap_or(DEFAULT_PAGE).max(1),
            object_id_field: "OBJECTID".to_owned(),
            token,
        }
    }

    /// GETs `<layer><path>` with `query` (and `f=json`, the token) and reads the
    /// body, turning an error body into its error.
    fn get(
        &self,
        client: &HttpClient,
        path: &str,
        query: &[(&str, String)],
    ) -> Result<(String, Value), FeedError> {
        let base = format!("{}{path}", self.url);
        let mut query = query.to_vec();
        query.push(("f", "json".to_owned()));
        if let Some(token) = &self.token {
            query.push(("token", token.clone()));
        }
        let url = super::http::with_query(&base, &query);
        let answer = client.get(&base, &query, &[])?;
        let body = checked(&url, &answer)?;
        Ok((url, body))
    }
}

/// The body of an answer, or the error its status or `error` member says.
fn checked(url: &str, answer: &Answer) -> Result<Value, FeedError> {
    let body = json_body(url, answer);
    let error = body.as_ref().ok().and_then(|b| b.get("error")).cloned();
    if let Some(error) = error {
        let code = error.get("code").and_then(Value::as_i64).unwrap_or(0);
        let mut message = error
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        if let Some(details) = error.get("details").and_then(Value::as_array) {
            for detail in details.iter().filter_map(Value::as_str) {
                message.push_str("; ");
                message.push_str(detail);
            }
        }
        let private = code == 498 || code == 499;
        return Err(refused(
            url,
            answer.status,
            private,
            code.to_string(),
            message,
        ));
    }
    if !(200..300).contains(&answer.status) {
        return Err(refused(
            url,
            answer.status,
            false,
            String::new(),
            body_excerpt(answer),
        ));
    }
    body
}

/// The point of an Esri JSON feature, where it has one.
fn point_of(feature: &Map<String, Value>) -> Option<Point> {
    let geometry = feature.get("geometry")?;
    Some(Point {
        x: geometry.get("x")?.as_f64()?,
        y: geometry.get("y")?.as_f64()?,
    })
}

impl FeedProtocol for Arcgis {
    fn prepare(&mut self, client: &HttpClient) -> Result<(), FeedError> {
        let (url, layer) = self.get(client, "", &[])?;
        if let Some(oid) = layer.get("objectIdField").and_then(Value::as_str) {
            oid.clone_into(&mut self.object_id_field);
        }
        let max = layer
            .get("maxRecordCount")
            .and_then(Value::as_u64)
            .map(|m| m.clamp(1, u64::from(u32::MAX)) as u32);
        self.page_size = match (self.asked_page, max) {
            (Some(asked), Some(max)) => asked.min(max),
            (Some(asked), None) => asked,
            (None, Some(max)) => max,
            (None, None) => DEFAULT_PAGE,
        };
        let names: Vec<&str> = layer
            .get("fields")
            .and_then(Value::as_array)
            .ok_or_else(|| FeedError::Body {
                url: url.clone(),
                message: "the layer lists no fields".into(),
            })?
            .iter()
            .filter_map(|f| f.get("name").and_then(Value::as_str))
            .collect();
        let has = |name: &str| name == GEOMETRY || name == EVERY_ROW || names.contains(&name);
        let f = &self.fields;
        let mut needed: Vec<Vec<&str>> = vec![vec![f.id.as_str()], vec![f.occurred.as_str()]];
        needed.push(f.offence.iter().map(String::as_str).collect());
        needed.push(vec![f.latitude.as_str()]);
        needed.push(vec![f.longitude.as_str()]);
        for name in [&f.event, &f.hour, &f.reported, &f.description, &f.premises]
            .into_iter()
            .flatten()
        {
            needed.push(vec![name.as_str()]);
        }
        for spellings in needed {
            if !spellings.iter().any(|name| has(name)) {
                return Err(FeedError::Schema {
                    field: spellings.join(" or "),
                    available: names.join(", "),
                });
            }
        }
        Ok(())
    }

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
            ("where", "1=1".to_owned()),
            ("outFields", "*".to_owned()),
            ("orderByFields", format!("{} ASC", self.object_id_field)),
            ("returnGeometry", "true".to_owned()),
            ("outSR", "4326".to_owned()),
            ("resultOffset", offset.to_string()),
            ("resultRecordCount", self.page_size.to_string()),
        ];
        let (url, body) = self.get(client, "/query", &query)?;
        let features = body
            .get("features")
            .and_then(Value::as_array)
            .ok_or_else(|| FeedError::Body {
                url: url.clone(),
                message: "no features array".into(),
            })?;
        let flagged = body
            .get("exceededTransferLimit")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let rows = features
            .iter()
            .map(|feature| {
                let feature = feature.as_object().ok_or_else(|| FeedError::Body {
                    url: url.clone(),
                    message: "a feature is not an object".into(),
                })?;
                let attributes = feature
                    .get("attributes")
                    .and_then(Value::as_object)
                    .cloned()
                    .ok_or_else(|| FeedError::Body {
                        url: url.clone(),
                        message: "a feature has no attributes".into(),
                    })?;
                Ok(PublishedRow {
                    attributes,
                    point: point_of(feature),
                    mark: None,
                })
            })
            .collect::<Result<Vec<_>, FeedError>>()?;
        let more = flagged || rows.len() as u64 >= u64::from(self.page_size);
        Ok(Page { rows, more })
    }

    fn served(&self, client: &HttpClient) -> Result<Option<Served>, FeedError> {
        let query = [
            ("where", "1=1".to_owned()),
            ("returnIdsOnly", "true".to_owned()),
        ];
        let (url, body) = self.get(client, "/query", &query)?;
        let ids = body
            .get("objectIds")
            .and_then(Value::as_array)
            .ok_or_else(|| FeedError::Body {
                url,
                message: "no objectIds array".into(),
            })?;
        Ok(Some(
            ids.iter()
                .filter_map(|id| text(Some(id)).map(|id| (id, None)))
                .collect(),
        ))
    }
}
