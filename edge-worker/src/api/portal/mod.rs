//! The partner portal (docs/PORTAL.md): its page at `/portal` and its API under
//! `/portal/api/`, where partners apply and sign in with passkeys, hold sessions and
//! manage their keys. Plain functions over `http` types,
//! with what they keep behind [`crate::api::partners::store::PortalStore`].
//!
//! Every state-changing request must come from the portal's own origin (its
//! `Origin` header), so no other site can act with a partner's cookie even where
//! `SameSite` does not hold; every answer is JSON with the API's security headers
//! and `Cache-Control: no-store`.

// module-cycles: ordered. Each module uses only those declared above it.

// Randomness for ids and tokens.
pub mod random;
// What the portal accepts as text from a person.
pub mod text;
// Browser origins as partners type them.
pub mod origins;
// The page's static files.
pub mod page;
// The two WebAuthn ceremonies.
pub mod ceremonies;
// Rate limits of state-changing requests.
pub mod rate_limits;
// Sessions and their cookie.
pub mod sessions;
// What every handler takes and gives.
pub mod handler_io;
// Signing in and out, and the signed-in account.
pub mod accounts;
// An account's further passkeys, and enrolments.
pub mod passkeys;
// Applying.
pub mod applications;
// Partners' keys.
pub mod partner_keys;
// A key's usage.
pub mod usage;
// The operator's part.
pub mod operator;

use bytes::Bytes;
use chrono::{DateTime, Utc};
use http::header::{CONTENT_TYPE, COOKIE, HeaderValue, ORIGIN, SET_COOKIE};
use http::{Method, Request, Response};

use self::ceremonies::RelyingParty;
use self::handler_io::{Answer, Body, Caller};
use super::backend::Backend;
use super::backend_error::BackendError;
use super::routes::{self, Access, Answer as RouteAnswer, PortalOperation as Operation};
use crate::api::plumbing::error::{ApiError, ErrorCode};
use crate::api::plumbing::{input, response};

/// The portal's path prefix.
pub const PREFIX: &str = "/portal";

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
    // The page's files answer HEAD as GET; the API's routes do not.
    let table = routes::Table::SERVED;
    let found = match table.find(path, request.method()) {
        Err(allowed) if *request.method() == Method::HEAD => table
            .find(path, &Method::GET)
            .ok()
            .filter(|f| matches!(f.route.answer, RouteAnswer::PortalFile))
            .ok_or(allowed),
        found => found,
    };
    let (operation, access, id) = match found {
        Ok(found) => match found.route.answer {
            RouteAnswer::Portal(operation) => (operation, found.route.access, found.id),
            RouteAnswer::PortalFile => {
                return page::file(path)
                    .unwrap_or_else(|| response::error(&ApiError::not_found(path)));
            }
            RouteAnswer::Document(document) => {
                return response::json_bytes(
                    http::StatusCode::OK,
                    Bytes::from_static(document.as_bytes()),
                );
            }
            // The APIs' routes are not under the portal's prefix.
            _ => return response::error(&ApiError::not_found(path)),
        },
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
        config
            .client_address
            .of(header(http::HeaderName::from_static("cf-connecting-ip"))),
        sessions::id_in(header(COOKIE)),
    );
    if request.method() != Method::GET
        && let Err(err) = rate_limit(access, backend, &caller).await
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
    // The operator's routes, checked here once for all of them.
    let operator = match access {
        Access::OperatorSession => match operator::signed_in(backend, &caller).await {
            Ok(operator) => Some(operator),
            Err(err) => return response::error(&err),
        },
        _ => None,
    };
    let rp = RelyingParty::new(config);
    let answer = match run(
        (operation, id.unwrap_or_default()),
        request,
        backend,
        (&rp, config),
        (&caller, operator.as_ref()),
    )
    .await
    {
        Ok(answer) => answer,
        Err(err) => return response::error(&err),
    };
    respond(answer)
}

/// The response of a handler's answer: its JSON, or the file it offers, and the
/// session cookie it sets.
fn respond(answer: Answer) -> Response<Bytes> {
    let mut out = match answer.body {
        Body::Json(json) => response::json_bytes(answer.status, Bytes::from(json)),
        Body::File(file) => {
            let mut out = response::json_bytes(answer.status, Bytes::from(file.body));
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

/// Counts a state-changing request against the portal's limits ([`limits`]): the
/// public ceremonies (applying, signing in, enrolling) as sign-ins, the rest as
/// changes.
async fn rate_limit<B: Backend>(
    access: Access,
    backend: &B,
    caller: &Caller<'_>,
) -> Result<(), ApiError> {
    let counted = match access {
        Access::Public => rate_limits::Counted::SignIn,
        _ => rate_limits::Counted::Change,
    };
    // The account of a live session, for its own limit (a dead one is refused later).
    let account = match counted {
        rate_limits::Counted::Change => caller.live_session(backend).await?.map(|s| s.partner_id),
        rate_limits::Counted::SignIn => None,
    };
    rate_limits::check(
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
    (caller, operator): (&Caller<'_>, Option<&operator::Operator>),
) -> Result<Answer, ApiError> {
    // Present for exactly the routes the table marks `OperatorSession`.
    let operator = || {
        operator.ok_or_else(|| ApiError::new(ErrorCode::InternalError, "operator route unchecked"))
    };
    let body = || input::json_body(request);
    match operation {
        Operation::ApplicationOptions => {
            applications::application_options(backend, rp, &body()?, caller).await
        }
        Operation::Apply => applications::apply(backend, rp, &body()?, caller).await,
        Operation::SignInOptions => accounts::sign_in_options(backend, rp, caller).await,
        Operation::SignIn => accounts::sign_in(backend, rp, &body()?, caller).await,
        Operation::SessionState => accounts::session_state(backend, caller).await,
        Operation::Me => accounts::me(backend, caller).await,
        Operation::SignOut => accounts::sign_out(backend, caller).await,
        Operation::SignOutEverywhere => accounts::sign_out_everywhere(backend, caller).await,
        Operation::Keys => partner_keys::list(backend, caller).await,
        Operation::CreateKey => {
            partner_keys::create(backend, &body()?, caller, &config.origin).await
        }
        Operation::RollKey => {
            partner_keys::roll(backend, id, &body()?, caller, &config.origin).await
        }
        Operation::RevokeKey => {
            partner_keys::revoke(backend, id, caller, config.record_ttl_seconds).await
        }
        Operation::AddPasskeyOptions => passkeys::add_options(backend, rp, caller).await,
        Operation::AddPasskey => passkeys::add(backend, rp, &body()?, caller).await,
        Operation::RemovePasskey => passkeys::remove(backend, id, caller).await,
        Operation::EnrolmentOptions => {
            passkeys::enrolment_options(backend, rp, &body()?, caller).await
        }
        Operation::Enrol => passkeys::enrol(backend, rp, &body()?, caller).await,
        Operation::Usage => usage::usage(backend, id, request.uri().query(), caller).await,
        Operation::UsageCsv => usage::usage_csv(backend, id, request.uri().query(), caller).await,
        Operation::OperatorPartners => {
            operator::partners(backend, request.uri().query(), operator()?).await
        }
        Operation::OperatorDecide => {
            operator::decide(backend, id, &body()?, (operator()?, caller)).await
        }
        Operation::OperatorTier => {
            operator::set_tier(backend, id, &body()?, (operator()?, caller)).await
        }
        Operation::OperatorAudit => {
            operator::audit(backend, request.uri().query(), operator()?).await
        }
    }
}

#[cfg(test)]
mod tests;
