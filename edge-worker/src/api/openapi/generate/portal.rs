//! The partner portal API's document (`GET /portal/api/openapi.json`): its
//! operations, in the order of the route table, and what the document says around
//! them.

use http::Method;
use schemars::JsonSchema;
use serde_json::json;

use super::Spec;
use super::headers;
use super::operation::{Content, Operation, Success, openapi_document, parameters, schema};
use crate::api::portal::accounts::{Account, Me, SessionState, SignedOut, SignedOutEverywhere};
use crate::api::portal::applications::Application;
use crate::api::portal::handler_io::{CeremonyCredential, CeremonyOptions};
use crate::api::portal::operator::{
    AuditLog, AuditQuery, DecisionRequest, ListedAccount, PartnersPage, PartnersQuery, TierRequest,
};
use crate::api::portal::partner_keys::{KeySettings, Keys, Revoked, Roll, ShownKey};
use crate::api::portal::passkeys::{Added, Enrolment, Removed};
use crate::api::portal::usage::{CSV_HEADER, Usage, UsageQuery};
use crate::api::routes::{Access, Answer, Route};

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
/// session's operations need one (401); a state change is refused cross-site (403)
/// and limited (429); the operator's, the operator's (403). The document itself
/// is a constant.
fn common_errors(row: &Route) -> Vec<(u16, &'static str)> {
    if matches!(row.answer, Answer::Document(_)) {
        return Vec::new();
    }
    let changes = row.method != Method::GET;
    let mut errors = Vec::new();
    if matches!(row.access, Access::Session | Access::OperatorSession) {
        errors.push((401, "No live session: sign in first"));
    }
    if changes || row.access == Access::OperatorSession {
        errors.push((403, FORBIDDEN));
    }
    if changes {
        errors.push((429, "Too many requests from this address or account"));
    }
    errors.push((500, "Storage or randomness failed"));
    errors
}

const FORBIDDEN: &str =
    "Cross-site change (the Origin is not the portal's), or not allowed for this account";

/// A request refused, naming what is wrong.
const INVALID: (u16, &str) = (400, "Invalid request (details.field names the field)");

/// An id of the path that is not the account's.
const NOT_FOUND: (u16, &str) = (
    404,
    "No such key, passkey or account in this account's reach",
);

/// A passkey registered twice.
const CONFLICT: (u16, &str) = (
    409,
    "The passkey is registered already (to this or another account)",
);

/// What lasts (another passkey, a new or rolled key) needs a recent sign-in
/// (`accounts::signed_in_recently`, `sessions::STEP_UP_WINDOW`).
const STEP_UP: (u16, &str) = (
    403,
    "Cross-site change (the Origin is not the portal's), or not allowed for this account; or a session whose passkey sign-in is older than 5 minutes: `details.reason` `step_up` (sign in again, then retry)",
);

/// What the route table takes for an `{id}` of a path (`routes::is_id`).
const ID: &str = "^[A-Za-z0-9_-]{1,1400}$";

/// A key of the account, named in the path.
#[derive(JsonSchema)]
#[expect(
    dead_code,
    reason = "described, never built: the route table hands the handler its id"
)]
struct KeyPath {
    /// A key's id
    #[schemars(pattern(ID))]
    id: String,
}

/// A passkey of the account, named in the path.
#[derive(JsonSchema)]
#[expect(
    dead_code,
    reason = "described, never built: the route table hands the handler its id"
)]
struct PasskeyPath {
    /// A passkey's credential id
    #[schemars(pattern(ID))]
    id: String,
}

/// An account, named in the path.
#[derive(JsonSchema)]
#[expect(
    dead_code,
    reason = "described, never built: the route table hands the handler its id"
)]
struct AccountPath {
    /// An account's id
    #[schemars(pattern(ID))]
    id: String,
}

/// A key's usage: the key in the path, the days in the query.
#[derive(JsonSchema)]
#[expect(
    dead_code,
    reason = "described, never built: the route table hands the handler its id"
)]
struct UsageParameters {
    /// The key.
    #[schemars(flatten)]
    key: KeyPath,
    /// The days.
    #[schemars(flatten)]
    query: UsageQuery,
}

/// The session cookie an answer sets or clears.
const SET_COOKIE: &[&str] = &["Set-Cookie"];

/// `200` with a JSON body and the session cookie.
const fn with_cookie(description: &'static str, body: super::operation::SchemaOf) -> Success {
    Success {
        headers: SET_COOKIE,
        ..Success::json(description, body)
    }
}

/// `201` with a JSON body.
const fn created(body: super::operation::SchemaOf) -> Success {
    Success {
        status: 201,
        ..Success::json("Created", body)
    }
}

/// The schema of the CSV text.
fn csv(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({ "type": "string" })
}

static OPERATIONS: [Operation; 24] = [
    Operation {
        method: Method::GET,
        path: "/portal/api/openapi.json",
        id: "portalOpenApi",
        summary: "This document",
        description: None,
        parameters: None,
        body: None,
        success: Success::json("OK", openapi_document),
        errors: &[],
    },
    Operation {
        method: Method::POST,
        path: "/portal/api/applications/options",
        id: "applicationOptions",
        summary: "Start applying: options for navigator.credentials.create()",
        description: None,
        parameters: None,
        body: Some(schema::<Application>),
        success: Success::json("OK", schema::<CeremonyOptions>),
        errors: &[INVALID],
    },
    Operation {
        method: Method::POST,
        path: "/portal/api/applications",
        id: "apply",
        summary: "Apply: the new account (status applied), signed in",
        description: None,
        parameters: None,
        body: Some(schema::<CeremonyCredential>),
        success: Success {
            status: 201,
            ..with_cookie("Created", schema::<Account>)
        },
        errors: &[INVALID, CONFLICT],
    },
    Operation {
        method: Method::POST,
        path: "/portal/api/sessions/options",
        id: "signInOptions",
        summary: "Start signing in: options for navigator.credentials.get()",
        description: None,
        parameters: None,
        body: None,
        success: Success::json("OK", schema::<CeremonyOptions>),
        errors: &[],
    },
    Operation {
        method: Method::POST,
        path: "/portal/api/sessions",
        id: "signIn",
        summary: "Sign in with a passkey: a new session",
        description: None,
        parameters: None,
        body: Some(schema::<CeremonyCredential>),
        success: with_cookie("OK", schema::<Account>),
        errors: &[
            INVALID,
            (
                401,
                "Sign-in failed: an unknown, expired or used ceremony, or a passkey that does not verify; one answer for every cause (docs/PORTAL.md)",
            ),
            (
                403,
                "Cross-site change (the Origin is not the portal's), or an account that may not sign in: suspended or rejected (`details.reason` is `account_status`, `details.status` the account's status)",
            ),
        ],
    },
    Operation {
        method: Method::GET,
        path: "/portal/api/session",
        id: "sessionState",
        summary: "Whether the caller is signed in (200 either way)",
        description: None,
        parameters: None,
        body: None,
        success: Success::json("OK", schema::<SessionState>),
        errors: &[],
    },
    Operation {
        method: Method::GET,
        path: "/portal/api/me",
        id: "me",
        summary: "The signed-in account, its passkeys, its audit log and the tiers' limits",
        description: None,
        parameters: None,
        body: None,
        success: Success::json("OK", schema::<Me>),
        errors: &[],
    },
    Operation {
        method: Method::DELETE,
        path: "/portal/api/sessions",
        id: "signOutEverywhere",
        summary: "Sign out everywhere: every session of the account ends, this one included",
        description: None,
        parameters: None,
        body: None,
        success: with_cookie("OK", schema::<SignedOutEverywhere>),
        errors: &[],
    },
    Operation {
        method: Method::DELETE,
        path: "/portal/api/sessions/current",
        id: "signOut",
        summary: "Sign out: the session ends wherever it is used",
        description: None,
        parameters: None,
        body: None,
        success: with_cookie("OK", schema::<SignedOut>),
        errors: &[],
    },
    Operation {
        method: Method::GET,
        path: "/portal/api/keys",
        id: "keys",
        summary: "The account's keys, newest first",
        description: None,
        parameters: None,
        body: None,
        success: Success::json("OK", schema::<Keys>),
        errors: &[],
    },
    Operation {
        method: Method::POST,
        path: "/portal/api/keys",
        id: "createKey",
        summary: "Make a key, shown once",
        description: None,
        parameters: None,
        body: Some(schema::<KeySettings>),
        success: created(schema::<ShownKey>),
        errors: &[INVALID, STEP_UP],
    },
    Operation {
        method: Method::POST,
        path: "/portal/api/keys/{id}/roll",
        id: "rollKey",
        summary: "Roll a key: a new key, the old one working for the grace period",
        description: None,
        parameters: Some(parameters::<KeyPath>),
        body: Some(schema::<Roll>),
        success: created(schema::<ShownKey>),
        errors: &[INVALID, NOT_FOUND, STEP_UP],
    },
    Operation {
        method: Method::DELETE,
        path: "/portal/api/keys/{id}",
        id: "revokeKey",
        summary: "Revoke a key",
        description: None,
        parameters: Some(parameters::<KeyPath>),
        body: None,
        success: Success::json("OK", schema::<Revoked>),
        errors: &[NOT_FOUND],
    },
    Operation {
        method: Method::POST,
        path: "/portal/api/passkeys/options",
        id: "addPasskeyOptions",
        summary: "Start adding a passkey to the account",
        description: None,
        parameters: None,
        body: None,
        success: Success::json("OK", schema::<CeremonyOptions>),
        errors: &[STEP_UP],
    },
    Operation {
        method: Method::POST,
        path: "/portal/api/passkeys",
        id: "addPasskey",
        summary: "Add a passkey",
        description: None,
        parameters: None,
        body: Some(schema::<CeremonyCredential>),
        success: created(schema::<Added>),
        errors: &[INVALID, STEP_UP, CONFLICT],
    },
    Operation {
        method: Method::DELETE,
        path: "/portal/api/passkeys/{id}",
        id: "removePasskey",
        summary: "Remove a passkey while another remains",
        description: None,
        parameters: Some(parameters::<PasskeyPath>),
        body: None,
        success: with_cookie(
            "Removed; the sessions it started have ended (`signed_out`: this one among them, and the cookie is cleared)",
            schema::<Removed>,
        ),
        errors: &[INVALID, NOT_FOUND],
    },
    Operation {
        method: Method::POST,
        path: "/portal/api/enrolments/options",
        id: "enrolmentOptions",
        summary: "Start registering a passkey from the operator's one-time link",
        description: None,
        parameters: None,
        body: Some(schema::<Enrolment>),
        success: Success::json("OK", schema::<CeremonyOptions>),
        errors: &[INVALID],
    },
    Operation {
        method: Method::POST,
        path: "/portal/api/enrolments",
        id: "enrol",
        summary: "Register the link's passkey, signed in",
        description: None,
        parameters: None,
        body: Some(schema::<CeremonyCredential>),
        success: Success {
            status: 201,
            ..with_cookie("Created", schema::<Account>)
        },
        errors: &[INVALID, CONFLICT],
    },
    Operation {
        method: Method::GET,
        path: "/portal/api/keys/{id}/usage",
        id: "usage",
        summary: "A key's usage per UTC day and today's quota",
        description: None,
        parameters: Some(parameters::<UsageParameters>),
        body: None,
        success: Success::json("OK", schema::<Usage>),
        errors: &[INVALID, NOT_FOUND],
    },
    Operation {
        method: Method::GET,
        path: "/portal/api/keys/{id}/usage.csv",
        id: "usageCsv",
        summary: "The same days as CSV",
        description: None,
        parameters: Some(parameters::<UsageParameters>),
        body: None,
        success: Success {
            status: 200,
            description: CSV_HEADER,
            content: Content::Media(&[("text/csv", csv)]),
            headers: &[],
        },
        errors: &[INVALID, NOT_FOUND],
    },
    Operation {
        method: Method::GET,
        path: "/portal/api/operator/partners",
        id: "operatorPartners",
        summary: "Accounts, oldest first, a page at a time",
        description: None,
        parameters: Some(parameters::<PartnersQuery>),
        body: None,
        success: Success::json("OK", schema::<PartnersPage>),
        errors: &[(400, "A bad `limit` or `after` (`details.field`)")],
    },
    Operation {
        method: Method::POST,
        path: "/portal/api/operator/partners/{id}/decision",
        id: "operatorDecide",
        summary: "Approve, reject or suspend an account (operator only)",
        description: None,
        parameters: Some(parameters::<AccountPath>),
        body: Some(schema::<DecisionRequest>),
        success: Success::json("OK", schema::<ListedAccount>),
        errors: &[INVALID, NOT_FOUND],
    },
    Operation {
        method: Method::POST,
        path: "/portal/api/operator/partners/{id}/tier",
        id: "operatorTier",
        summary: "Set the tier of an account's live keys (operator only)",
        description: None,
        parameters: Some(parameters::<AccountPath>),
        body: Some(schema::<TierRequest>),
        success: Success::json("OK", schema::<ListedAccount>),
        errors: &[INVALID, NOT_FOUND],
    },
    Operation {
        method: Method::GET,
        path: "/portal/api/operator/audit",
        id: "operatorAudit",
        summary: "The whole audit log, newest first (operator only)",
        description: None,
        parameters: Some(parameters::<AuditQuery>),
        body: None,
        success: Success::json("OK", schema::<AuditLog>),
        errors: &[INVALID],
    },
];
