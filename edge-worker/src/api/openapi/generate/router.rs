//! The router API's document (`GET /openapi.json`): its operations, in the order of
//! the route table, and what the document says around them.

use serde_json::json;

use super::Spec;
use super::headers;
use super::operation::Operation;
use crate::api::access::keys::KeyApi;
use crate::api::routes::{Access, Route};

/// Answers to a wrong key, origin or quota, on every keyed operation.
const KEYED_ERRORS: [(u16, &str); 6] = [
    (401, "Missing or invalid X-API-Key"),
    (403, "Origin not on the key's allowlist"),
    (404, "Not covered"),
    (429, "Daily quota exceeded"),
    (500, "Internal error"),
    (503, "Models unavailable"),
];

pub(super) fn spec() -> Spec {
    Spec {
        info: json!({
            "title": "hexrisk hex risk and safest-route API",
            "version": "1.0.0",
            "description": "H3 cell scores, viewports, ring lookups, breakdowns, safest routes with hex corridors, path evaluation and precinct GeoJSON. Decisions the specification leaves open are in docs/API.md; routing rules in docs/ROUTING.md.",
        }),
        servers: json!([{ "url": "http://127.0.0.1:8787", "description": "make run" }]),
        security: (
            "apiKey",
            json!({ "type": "apiKey", "in": "header", "name": "X-API-Key" }),
        ),
        secured: true,
        serves: |row| {
            !row.path.starts_with("/v1/") && !row.path.starts_with("/portal") && !row.is_baseline()
        },
        base: "",
        operations: &OPERATIONS,
        common_errors: |row: &Route| match row.access {
            Access::Key(KeyApi::Router) => KEYED_ERRORS.to_vec(),
            _ => Vec::new(),
        },
        headers: headers::keyed_api(),
    }
}

// Filled from the router's request and answer types (issue 56).
static OPERATIONS: [Operation; 0] = [];
