//! What every portal handler takes and gives: the caller ([`Caller`]) and the
//! answer ([`Answer`]), and the parts of a passkey ceremony's request they share
//! (its body's fields, taking the stored ceremony, a refused registration).

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

use super::ceremonies::CeremonyError;
use crate::api::backend::Backend as PortalBackend;
use crate::api::partners::store::CeremonyKind;
use crate::api::{ApiError, ErrorCode};

/// Who is asking and when: what every handler needs besides its body.
pub struct Caller<'a> {
    /// The request's time.
    pub now: DateTime<Utc>,
    /// The client's address (`CF-Connecting-IP`), for the audit log.
    pub address: Option<&'a str>,
    /// The session id of the request's cookie, if any.
    pub session_id: Option<&'a str>,
}

/// A handler's answer: the body, and the session cookie to set, if any.
pub struct Answer {
    /// Status code.
    pub status: http::StatusCode,
    /// JSON body.
    pub body: Value,
    /// `Set-Cookie` value.
    pub cookie: Option<String>,
    /// A file to download instead of the JSON body.
    pub file: Option<File>,
}

/// A file an answer hands over (`Content-Disposition: attachment`).
pub struct File {
    /// Its content type.
    pub content_type: &'static str,
    /// Its name.
    pub name: String,
    /// Its text.
    pub body: String,
}

impl Answer {
    /// A `201` with `body` and no cookie.
    pub(super) fn created(body: Value) -> Self {
        Self {
            status: http::StatusCode::CREATED,
            ..Self::ok(body)
        }
    }

    /// A `200` with `body` and no cookie.
    pub(super) fn ok(body: Value) -> Self {
        Self {
            status: http::StatusCode::OK,
            body,
            cookie: None,
            file: None,
        }
    }
}

pub(super) fn ceremony_field(body: &Map<String, Value>) -> Result<(&str, &Value), ApiError> {
    let id = body
        .get("ceremony")
        .and_then(Value::as_str)
        .ok_or_else(|| {
            ApiError::new(ErrorCode::InvalidRequest, "`ceremony` is required")
                .with("field", "ceremony")
        })?;
    let credential = body
        .get("credential")
        .filter(|c| c.is_object())
        .ok_or_else(|| {
            ApiError::new(
                ErrorCode::InvalidRequest,
                "`credential` must be the passkey's JSON",
            )
            .with("field", "credential")
        })?;
    Ok((id, credential))
}

/// Takes a ceremony of `kind`; any other answer is `UNAUTHORIZED` (or, for a
/// registration, `INVALID_REQUEST`), the same whatever went wrong.
pub(super) async fn take<B: PortalBackend>(
    backend: &B,
    id: &str,
    kind: CeremonyKind,
) -> Result<Option<crate::api::partners::store::Ceremony>, ApiError> {
    let ceremony = backend
        .take_ceremony(id)
        .await
        .map_err(super::stored(backend))?;
    Ok(ceremony.filter(|c| c.kind == kind))
}

pub(super) fn registration_refused(err: &CeremonyError) -> ApiError {
    ApiError::new(
        ErrorCode::InvalidRequest,
        "the passkey could not be registered; start again",
    )
    .with(
        "reason",
        if matches!(err, CeremonyError::Expired) {
            "expired"
        } else {
            "refused"
        },
    )
}
