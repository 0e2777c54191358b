//! What every portal handler takes and gives: the caller ([`Caller`]) and the
//! answer ([`Answer`]), and the parts of a passkey ceremony's request they share
//! (its body's fields, taking the stored ceremony, a refused registration).

use std::cell::OnceCell;

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::{Map, Value};

use super::ceremonies::CeremonyError;
use super::sessions;
use crate::api::backend::Backend as PortalBackend;
use crate::api::partners::store::{Ceremony, CeremonyKind, Session};
use crate::api::{ApiError, ErrorCode};

/// Who is asking and when: what every handler needs besides its body.
pub struct Caller<'a> {
    /// The request's time.
    pub now: DateTime<Utc>,
    /// The client's address (`CF-Connecting-IP`), for the audit log.
    pub address: Option<&'a str>,
    /// The session id of the request's cookie, if any.
    pub session_id: Option<&'a str>,
    /// The live session `session_id` names, once read ([`Caller::live_session`]).
    session: OnceCell<Option<Session>>,
}

impl<'a> Caller<'a> {
    /// A caller at `now` from `address` with the cookie's `session_id`.
    #[must_use]
    pub fn new(now: DateTime<Utc>, address: Option<&'a str>, session_id: Option<&'a str>) -> Self {
        Self {
            now,
            address,
            session_id,
            session: OnceCell::new(),
        }
    }

    /// The live session of the cookie, if any: read from the store once per request,
    /// however many steps ask (the rate limit, then the handler).
    ///
    /// # Errors
    /// `INTERNAL_ERROR` when storage fails.
    pub async fn live_session<B: PortalBackend>(
        &self,
        backend: &B,
    ) -> Result<Option<Session>, ApiError> {
        if let Some(read) = self.session.get() {
            return Ok(read.clone());
        }
        let Some(id) = self.session_id else {
            return Ok(None);
        };
        let live = backend
            .session(&sessions::digest(id))
            .await
            .map_err(super::stored(backend))?
            .filter(|s| s.is_live(self.now));
        Ok(self.session.get_or_init(|| live).clone())
    }
}

/// A handler's answer: the body, and the session cookie to set, if any.
pub struct Answer {
    /// Status code.
    pub status: http::StatusCode,
    /// The body: JSON, or a file.
    pub body: Body,
    /// `Set-Cookie` value.
    pub cookie: Option<String>,
}

/// What an answer carries.
pub enum Body {
    /// A JSON body, serialised from the handler's answer type.
    Json(Vec<u8>),
    /// A file to download (`Content-Disposition: attachment`).
    File(File),
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
    pub(super) fn created(body: &impl Serialize) -> Self {
        Self {
            status: http::StatusCode::CREATED,
            ..Self::ok(body)
        }
    }

    /// A `200` with `body` and no cookie.
    pub(super) fn ok(body: &impl Serialize) -> Self {
        // The answer types are structs of strings, numbers and lists: serialising
        // them cannot fail.
        Self {
            status: http::StatusCode::OK,
            body: Body::Json(serde_json::to_vec(body).unwrap_or_default()),
            cookie: None,
        }
    }

    /// A `200` that hands over `file`.
    pub(super) fn file(file: File) -> Self {
        Self {
            status: http::StatusCode::OK,
            body: Body::File(file),
            cookie: None,
        }
    }
}

/// What `navigator.credentials.create()` or `.get()` needs, and the ceremony it
/// belongs to: the answer of every `.../options` route.
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct CeremonyOptions {
    /// The ceremony's id, to send back with its credential.
    pub ceremony: String,
    /// The options of the browser's `WebAuthn` call, to pass to it as they are.
    #[serde(rename = "publicKey")]
    #[cfg_attr(test, schemars(schema_with = "any_object"))]
    pub public_key: Value,
}

/// A ceremony's end: the ceremony's id and the credential the browser made or
/// signed with for it.
#[derive(Debug)]
#[cfg_attr(test, derive(schemars::JsonSchema), schemars(inline))]
pub struct CeremonyCredential<'a> {
    /// The `ceremony` of the options the browser was given.
    pub ceremony: &'a str,
    /// `PublicKeyCredential.toJSON()`
    #[cfg_attr(test, schemars(schema_with = "any_object"))]
    pub credential: &'a Value,
}

/// The schema of a JSON object the portal passes on as it is (`WebAuthn`'s).
#[cfg(test)]
fn any_object(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({ "type": "object" })
}

impl<'a> CeremonyCredential<'a> {
    /// The ceremony and credential of a request's body.
    ///
    /// # Errors
    /// `INVALID_REQUEST` naming `ceremony` when it is not text, or `credential`
    /// when it is not an object.
    pub(super) fn parse(body: &'a Map<String, Value>) -> Result<Self, ApiError> {
        let ceremony = body
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
        Ok(Self {
            ceremony,
            credential,
        })
    }
}

/// Keeps a passkey ceremony just started at `now` (`started`, from
/// [`super::ceremonies`]), with what it is for (`pending`), and answers what the
/// browser goes on with: the ceremony's id and the `WebAuthn` options. Every
/// `.../options` route ends here.
///
/// # Errors
/// `INTERNAL_ERROR` when the relying party cannot start one or storage fails.
pub(super) async fn ceremony_started<B: PortalBackend>(
    backend: &B,
    started: Result<(Value, Ceremony), CeremonyError>,
    pending: Option<String>,
    now: DateTime<Utc>,
) -> Result<Answer, ApiError> {
    let (options, mut ceremony) = started.map_err(|e| super::internal(backend, "passkeys", &e))?;
    ceremony.pending = pending;
    backend
        .put_ceremony(&ceremony, now)
        .await
        .map_err(super::stored(backend))?;
    Ok(Answer::ok(&CeremonyOptions {
        ceremony: ceremony.id,
        public_key: options,
    }))
}

/// Takes a ceremony of `kind`; any other answer is `UNAUTHORIZED` (or, for a
/// registration, `INVALID_REQUEST`), the same whatever went wrong.
pub(super) async fn take<B: PortalBackend>(
    backend: &B,
    id: &str,
    kind: CeremonyKind,
) -> Result<Option<Ceremony>, ApiError> {
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
