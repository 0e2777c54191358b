//! The partner portal API's document (`GET /portal/api/openapi.json`): its
//! operations, in the order of the route table, and what the document says around
//! them.

use http::Method;
use serde_json::json;

use super::Spec;
use super::headers;
use super::operation::Operation;
use crate::api::routes::{Access, Route};

pub(super) fn spec() -> Spec {
    Spec {
        info: json!({
            "title": "hexrisk partner portal API",
            "version": "1.0.0",
            "description": "The JSON endpoints of the partner portal's page (docs/PORTAL.md): applying and signing in with passkeys, keys, usage, and the operator's decisions. Same origin only: a state-changing request must carry the portal's own Origin, and the session is the __Host-hexrisk-session cookie.",
        }),
        servers: json!([{ "url": "http://localhost:8787", "description": "make run" }]),
        security: (
            "session",
            json!({ "type": "apiKey", "in": "cookie", "name": "__Host-hexrisk-session" }),
        ),
        secured: true,
        serves: |row| row.path.starts_with("/portal/api/"),
        base: "",
        operations: &OPERATIONS,
        common_errors,
        headers: headers::portal(),
    }
}

/// The answers every portal operation of a row's access and method may give: a
/// state change is refused cross-site (403) and limited (429); a session's
/// operations need one (401); the operator's, the operator's (403).
fn common_errors(row: &Route) -> Vec<(u16, &'static str)> {
    let changes = row.method != Method::GET;
    let mut errors = Vec::new();
    if matches!(row.access, Access::Session | Access::OperatorSession) {
        errors.push((401, "Not signed in"));
    }
    if changes || row.access == Access::OperatorSession {
        errors.push((
            403,
            "Cross-site change (the Origin is not the portal's), or not allowed for this account",
        ));
    }
    if changes {
        errors.push((429, "Too many requests from this address or account"));
    }
    errors.push((500, "Storage or randomness failed"));
    errors
}

// Filled from the portal's request and answer types (issue 56).
static OPERATIONS: [Operation; 0] = [];
