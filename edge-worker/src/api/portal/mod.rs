//! The partner portal (docs/PORTAL.md): its page at `/portal` and its API under
//! `/portal/api/`, where partners apply and sign in with passkeys, hold sessions and
//! manage their keys. Plain functions over `http` types,
//! with what they keep behind [`crate::api::partners::store::PortalStore`].
//!
//! Every state-changing request must come from the portal's own origin (its
//! `Origin` header), so no other site can act with a partner's cookie even where
//! `SameSite` does not hold; every answer is JSON with the API's security headers
//! and `Cache-Control: no-store`.

pub mod accounts;
pub mod applications;
pub mod ceremonies;
pub mod handler;
pub mod keys;
pub mod limits;
pub mod operator;
pub mod origins;
pub mod page;
pub mod passkeys;
pub mod random;
pub mod sessions;
pub mod usage;

use bytes::Bytes;
use chrono::{DateTime, Utc};
use http::header::{CONTENT_TYPE, COOKIE, HeaderValue, ORIGIN, SET_COOKIE};
use http::{Method, Request, Response};

use self::ceremonies::RelyingParty;
use self::handler::{Answer, Caller};
use super::backend::Backend;
use super::backend_error::BackendError;
use super::{ApiError, ErrorCode, input, response};

/// The portal's path prefix.
pub const PREFIX: &str = "/portal";

/// The portal API's OpenAPI 3.1 document, served at `GET /portal/api/openapi.json`.
pub const PORTAL_OPENAPI: &str = include_str!("../../../openapi/portal.json");

/// Where [`PORTAL_OPENAPI`] is served.
const OPENAPI_PATH: &str = "/portal/api/openapi.json";

/// The portal's API operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Operation {
    ApplicationOptions,
    Apply,
    SignInOptions,
    SignIn,
    Me,
    SignOut,
    Keys,
    CreateKey,
    RollKey,
    RevokeKey,
    AddPasskeyOptions,
    AddPasskey,
    RemovePasskey,
    EnrolmentOptions,
    Enrol,
    Usage,
    UsageCsv,
    OperatorPartners,
    OperatorDecide,
    OperatorTier,
    OperatorAudit,
}

/// The routing table: path (`{id}` stands for a key's, a passkey's or an account's id), method,
/// operation.
pub(crate) static ROUTES: [(&str, Method, Operation); 21] = [
    (
        "/portal/api/applications/options",
        Method::POST,
        Operation::ApplicationOptions,
    ),
    ("/portal/api/applications", Method::POST, Operation::Apply),
    (
        "/portal/api/sessions/options",
        Method::POST,
        Operation::SignInOptions,
    ),
    ("/portal/api/sessions", Method::POST, Operation::SignIn),
    ("/portal/api/me", Method::GET, Operation::Me),
    (
        "/portal/api/sessions/current",
        Method::DELETE,
        Operation::SignOut,
    ),
    ("/portal/api/keys", Method::GET, Operation::Keys),
    ("/portal/api/keys", Method::POST, Operation::CreateKey),
    (
        "/portal/api/keys/{id}/roll",
        Method::POST,
        Operation::RollKey,
    ),
    (
        "/portal/api/keys/{id}",
        Method::DELETE,
        Operation::RevokeKey,
    ),
    (
        "/portal/api/passkeys/options",
        Method::POST,
        Operation::AddPasskeyOptions,
    ),
    ("/portal/api/passkeys", Method::POST, Operation::AddPasskey),
    (
        "/portal/api/passkeys/{id}",
        Method::DELETE,
        Operation::RemovePasskey,
    ),
    (
        "/portal/api/enrolments/options",
        Method::POST,
        Operation::EnrolmentOptions,
    ),
    ("/portal/api/enrolments", Method::POST, Operation::Enrol),
    ("/portal/api/keys/{id}/usage", Method::GET, Operation::Usage),
    (
        "/portal/api/keys/{id}/usage.csv",
        Method::GET,
        Operation::UsageCsv,
    ),
    (
        "/portal/api/operator/partners",
        Method::GET,
        Operation::OperatorPartners,
    ),
    (
        "/portal/api/operator/partners/{id}/decision",
        Method::POST,
        Operation::OperatorDecide,
    ),
    (
        "/portal/api/operator/partners/{id}/tier",
        Method::POST,
        Operation::OperatorTier,
    ),
    (
        "/portal/api/operator/audit",
        Method::GET,
        Operation::OperatorAudit,
    ),
];

/// A path that matched a route: the segment in place of `{id}`, if the route has one.
struct Matched<'a> {
    id: Option<&'a str>,
}

/// Whether `path` matches `pattern`, and how.
fn matches<'a>(pattern: &str, path: &'a str) -> Option<Matched<'a>> {
    let (mut pattern, mut path) = (pattern.split('/'), path.split('/'));
    let mut id = None;
    loop {
        match (pattern.next(), path.next()) {
            (None, None) => return Some(Matched { id }),
            // Key ids are hex; passkey ids base64url, up to 1,023 bytes.
            (Some("{id}"), Some(segment))
                if (1..=1_400).contains(&segment.len())
                    && segment
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_') =>
            {
                id = Some(segment);
            }
            (Some(a), Some(b)) if a == b => {}
            _ => return None,
        }
    }
}

/// Whether a path is the portal's.
#[must_use]
pub fn is_portal_path(path: &str) -> bool {
    path == PREFIX || path.starts_with("/portal/")
}

/// Logs a failure of a dependency with its cause and answers `INTERNAL_ERROR`.
pub(crate) fn internal<B: Backend>(
    backend: &B,
    what: &'static str,
    err: &dyn std::fmt::Display,
) -> ApiError {
    backend.log_failure(&BackendError::new(what, format!("portal: {err}")));
    ApiError::new(
        ErrorCode::InternalError,
        "the service could not complete the request",
    )
}

/// The `map_err` of a failing store call: logged, answered `INTERNAL_ERROR`.
pub(crate) fn stored<B: Backend>(backend: &B) -> impl FnOnce(BackendError) -> ApiError + '_ {
    move |e| internal(backend, "store", &e)
}

/// The `map_err` of the platform's randomness failing: logged, answered
/// `INTERNAL_ERROR`.
pub(crate) fn randomness<B: Backend>(
    backend: &B,
) -> impl FnOnce(getrandom::Error) -> ApiError + '_ {
    move |e| internal(backend, "random", &e)
}

/// Answers a request under [`PREFIX`].
pub async fn handle<B: Backend>(
    request: &Request<Bytes>,
    now: DateTime<Utc>,
    backend: &B,
) -> Response<Bytes> {
    let path = request.uri().path();
    let Some(config) = backend.portal() else {
        return response::error(&ApiError::not_found(path));
    };
    if matches!(*request.method(), Method::GET | Method::HEAD)
        && let Some(file) = page::file(path)
    {
        return file;
    }
    if *request.method() == Method::GET && path == OPENAPI_PATH {
        return response::json_bytes(
            http::StatusCode::OK,
            Bytes::from_static(PORTAL_OPENAPI.as_bytes()),
        );
    }
    let (operation, id) = match find(path, request.method()) {
        Ok(found) => found,
        Err(allowed) if allowed.is_empty() => return response::error(&ApiError::not_found(path)),
        Err(allowed) => {
            // Same-origin only: no CORS preflight, so no OPTIONS among the methods.
            let mut answer =
                response::error(&ApiError::method_not_allowed(request.method(), &allowed));
            let names: Vec<&str> = allowed.iter().map(Method::as_str).collect();
            if let Ok(value) = HeaderValue::from_str(&names.join(", ")) {
                answer.headers_mut().insert(http::header::ALLOW, value);
            }
            return answer;
        }
    };
    let header = |name| request.headers().get(name).and_then(|v| v.to_str().ok());
    if request.method() != Method::GET && header(ORIGIN) != Some(config.origin.as_str()) {
        return response::error(
            &ApiError::new(
                ErrorCode::Forbidden,
                "cross-site request refused: the portal accepts changes from its own origin only",
            )
            .with("origin", header(ORIGIN).unwrap_or("")),
        );
    }
    let caller = Caller::new(
        now,
        header(http::HeaderName::from_static("cf-connecting-ip")),
        sessions::id_in(header(COOKIE)),
    );
    if request.method() != Method::GET
        && let Err(err) = rate_limit(operation, backend, &caller).await
    {
        let mut answer = response::error(&err);
        if let Some(retry) = err
            .details
            .get("retry_after_seconds")
            .and_then(|v| HeaderValue::from_str(&v.to_string()).ok())
        {
            answer
                .headers_mut()
                .insert(http::header::RETRY_AFTER, retry);
        }
        return answer;
    }
    let rp = RelyingParty::new(config);
    let answer = match run(
        (operation, id.unwrap_or_default()),
        request,
        backend,
        (&rp, config),
        &caller,
    )
    .await
    {
        Ok(answer) => answer,
        Err(err) => return response::error(&err),
    };
    let mut out = match &answer.file {
        None => response::json(answer.status, &answer.body),
        Some(file) => {
            let mut out = response::json_bytes(answer.status, Bytes::from(file.body.clone()));
            out.headers_mut()
                .insert(CONTENT_TYPE, HeaderValue::from_static(file.content_type));
            if let Ok(value) =
                HeaderValue::from_str(&format!("attachment; filename=\"{}\"", file.name))
            {
                out.headers_mut()
                    .insert(http::header::CONTENT_DISPOSITION, value);
            }
            out
        }
    };
    if let Some(cookie) = answer.cookie.and_then(|c| HeaderValue::from_str(&c).ok()) {
        out.headers_mut().insert(SET_COOKIE, cookie);
    }
    out
}

/// Counts a state-changing request against the portal's limits ([`limits`]).
async fn rate_limit<B: Backend>(
    operation: Operation,
    backend: &B,
    caller: &Caller<'_>,
) -> Result<(), ApiError> {
    let counted = match operation {
        Operation::ApplicationOptions
        | Operation::Apply
        | Operation::SignInOptions
        | Operation::SignIn
        | Operation::EnrolmentOptions
        | Operation::Enrol => limits::Counted::SignIn,
        _ => limits::Counted::Change,
    };
    // The account of a live session, for its own limit (a dead one is refused later).
    let account = match counted {
        limits::Counted::Change => caller.live_session(backend).await?.map(|s| s.partner_id),
        limits::Counted::SignIn => None,
    };
    limits::check(
        backend,
        counted,
        (caller.address, account.as_deref()),
        caller.now,
    )
    .await
}

async fn run<B: Backend>(
    (operation, id): (Operation, &str),
    request: &Request<Bytes>,
    backend: &B,
    (rp, config): (&RelyingParty, &crate::api::partners::config::PortalConfig),
    caller: &Caller<'_>,
) -> Result<Answer, ApiError> {
    let body = || -> Result<_, ApiError> {
        let content_type = request
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok());
        input::require_json(content_type)?;
        input::json_object(request.body())
    };
    match operation {
        Operation::ApplicationOptions => {
            applications::application_options(backend, rp, &body()?, caller).await
        }
        Operation::Apply => applications::apply(backend, rp, &body()?, caller).await,
        Operation::SignInOptions => accounts::sign_in_options(backend, rp, caller).await,
        Operation::SignIn => accounts::sign_in(backend, rp, &body()?, caller).await,
        Operation::Me => accounts::me(backend, caller).await,
        Operation::SignOut => accounts::sign_out(backend, caller).await,
        Operation::Keys => keys::list(backend, caller).await,
        Operation::CreateKey => keys::create(backend, &body()?, caller, &config.origin).await,
        Operation::RollKey => keys::roll(backend, id, &body()?, caller, &config.origin).await,
        Operation::RevokeKey => keys::revoke(backend, id, caller, config.record_ttl_seconds).await,
        Operation::AddPasskeyOptions => passkeys::add_options(backend, rp, caller).await,
        Operation::AddPasskey => passkeys::add(backend, rp, &body()?, caller).await,
        Operation::RemovePasskey => passkeys::remove(backend, id, caller).await,
        Operation::EnrolmentOptions => {
            passkeys::enrolment_options(backend, rp, &body()?, caller).await
        }
        Operation::Enrol => passkeys::enrol(backend, rp, &body()?, caller).await,
        Operation::Usage => usage::usage(backend, id, request.uri().query(), caller).await,
        Operation::UsageCsv => usage::usage_csv(backend, id, request.uri().query(), caller).await,
        Operation::OperatorPartners => operator::partners(backend, caller).await,
        Operation::OperatorDecide => operator::decide(backend, id, &body()?, caller).await,
        Operation::OperatorTier => operator::set_tier(backend, id, &body()?, caller).await,
        Operation::OperatorAudit => operator::audit(backend, request.uri().query(), caller).await,
    }
}

/// The operation at a path for a method and the key id in the path, or the
/// methods the path does allow.
fn find<'a>(path: &'a str, method: &Method) -> Result<(Operation, Option<&'a str>), Vec<Method>> {
    let path = path.trim_end_matches('/');
    let mut at: Vec<(&Method, Operation, Option<&str>)> = ROUTES
        .iter()
        .filter_map(|(pattern, m, o)| matches(pattern, path).map(|found| (m, *o, found.id)))
        .collect();
    // A path spelled out by a route is that route's alone (`/portal/api/passkeys/options`
    // is no passkey's id).
    if at.iter().any(|(_, _, id)| id.is_none()) {
        at.retain(|(_, _, id)| id.is_none());
    }
    at.iter()
        .find(|(m, _, _)| *m == method)
        .map(|(_, o, id)| (*o, *id))
        .ok_or_else(|| at.iter().map(|(m, _, _)| (*m).clone()).collect())
}

#[cfg(test)]
mod tests;
