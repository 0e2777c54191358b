//! Applying, signing in and out, and the signed-in account: the portal's account
//! handlers. Each takes the parsed request and answers JSON or an [`ApiError`];
//! routing and the cross-site check are in [`super`].
//!
//! Answers do not tell whether an email, an account or a passkey exists: an
//! application is accepted the same way whoever sends it (the operator sees
//! duplicates), and every failed sign-in is the same `UNAUTHORIZED`.

use chrono::{DateTime, Utc};
use passki::StoredPasskey;
use serde_json::{Map, Value, json};

use super::ceremonies::{CeremonyError, RelyingParty};
use super::{random, sessions};
use crate::api::backend::Backend as PortalBackend;
use crate::api::keys::Tier;
use crate::api::partners::store::{
    AuditEntry, CeremonyKind, Partner, PartnerStatus, Passkey, Role, Session,
};
use crate::api::{ApiError, ErrorCode};

/// Longest organisation name accepted, in characters.
pub const MAX_ORGANISATION: usize = 200;
/// Longest email address accepted, in characters (RFC 5321's path limit).
pub const MAX_EMAIL: usize = 254;
/// Longest description of the intended use, in characters.
pub const MAX_INTENDED_USE: usize = 2_000;

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

/// The fields of an application, checked.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Application {
    /// Organisation name.
    pub organisation: String,
    /// Contact email.
    pub email: String,
    /// Intended use.
    pub intended_use: String,
}

fn text_field(body: &Map<String, Value>, name: &str, max: usize) -> Result<String, ApiError> {
    let value = body
        .get(name)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .ok_or_else(|| {
            ApiError::new(ErrorCode::InvalidRequest, format!("`{name}` is required"))
                .with("field", name)
        })?;
    if value.chars().count() > max || value.chars().any(char::is_control) {
        return Err(ApiError::new(
            ErrorCode::InvalidRequest,
            format!("`{name}` must be at most {max} characters, without control characters"),
        )
        .with("field", name)
        .with("limit", max));
    }
    Ok(value.to_owned())
}

impl Application {
    /// Reads and checks an application's fields.
    ///
    /// # Errors
    /// `INVALID_REQUEST` naming the field that is missing, too long or, for the
    /// email, not an address.
    pub fn parse(body: &Map<String, Value>) -> Result<Self, ApiError> {
        let organisation = text_field(body, "organisation", MAX_ORGANISATION)?;
        let email = text_field(body, "email", MAX_EMAIL)?;
        let plausible = email.split_once('@').is_some_and(|(local, domain)| {
            !local.is_empty()
                && domain.contains('.')
                && !domain.starts_with('.')
                && !email.contains(char::is_whitespace)
        });
        if !plausible {
            return Err(ApiError::new(
                ErrorCode::InvalidRequest,
                "`email` is not an email address",
            )
            .with("field", "email"));
        }
        let intended_use = text_field(body, "intended_use", MAX_INTENDED_USE)?;
        Ok(Self {
            organisation,
            email,
            intended_use,
        })
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

/// `POST /portal/api/applications/options`: checks an application and starts
/// registering its passkey.
///
/// # Errors
/// `INVALID_REQUEST` for a bad field; `INTERNAL_ERROR` when storage fails.
pub async fn application_options<B: PortalBackend>(
    backend: &B,
    rp: &RelyingParty,
    body: &Map<String, Value>,
    caller: &Caller<'_>,
) -> Result<Answer, ApiError> {
    let application = Application::parse(body)?;
    let user = random::bytes::<32>().map_err(super::randomness(backend))?;
    let id = random::token::<16>().map_err(super::randomness(backend))?;
    let (options, mut ceremony) = rp
        .start_registration(
            (id, CeremonyKind::Application),
            (&user, &[]),
            (&application.email, &application.organisation),
            caller.now,
        )
        .map_err(|e| super::internal(backend, "passkeys", &e))?;
    ceremony.pending = serde_json::to_string(&application).ok();
    backend
        .put_ceremony(&ceremony)
        .await
        .map_err(super::stored(backend))?;
    Ok(Answer::ok(
        json!({ "ceremony": ceremony.id, "publicKey": options }),
    ))
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

/// `POST /portal/api/applications`: verifies the new passkey, creates the
/// account (waiting for the operator) and signs it in.
///
/// # Errors
/// `INVALID_REQUEST` when the ceremony is unknown, expired or the passkey is
/// refused; `INTERNAL_ERROR` when storage fails.
pub async fn apply<B: PortalBackend>(
    backend: &B,
    rp: &RelyingParty,
    body: &Map<String, Value>,
    caller: &Caller<'_>,
) -> Result<Answer, ApiError> {
    let (id, credential) = ceremony_field(body)?;
    let ceremony = take(backend, id, CeremonyKind::Application)
        .await?
        .ok_or_else(|| registration_refused(&CeremonyError::Unknown))?;
    let application: Application = ceremony
        .pending
        .as_deref()
        .and_then(|p| serde_json::from_str(p).ok())
        .ok_or_else(|| registration_refused(&CeremonyError::Unknown))?;
    let stored = rp
        .finish_registration(&ceremony, credential, caller.now)
        .map_err(|e| {
            backend.log_failure(&crate::api::backend_error::BackendError::new(
                "portal",
                format!("application refused: {e}"),
            ));
            registration_refused(&e)
        })?;
    let state: Value = serde_json::from_str(&ceremony.state).unwrap_or_default();
    let user_handle = state["user"]["id"]
        .as_str()
        .and_then(|id| data_encoding::BASE64URL_NOPAD.decode(id.as_bytes()).ok())
        .ok_or_else(|| registration_refused(&CeremonyError::Unknown))?;
    let partner = Partner {
        id: hex::encode(random::bytes::<16>().map_err(super::randomness(backend))?),
        user_handle,
        organisation: application.organisation,
        email: application.email,
        intended_use: application.intended_use,
        status: PartnerStatus::Applied,
        role: Role::Partner,
        tier: Tier::Sandbox,
        daily_limit: None,
        created_at: caller.now,
    };
    let passkey = Passkey {
        credential_id: data_encoding::BASE64URL_NOPAD.encode(&stored.credential_id),
        partner_id: partner.id.clone(),
        stored: serde_json::to_string(&stored).unwrap_or_default(),
        created_at: caller.now,
        last_used_at: None,
    };
    backend
        .create_partner(&partner, &passkey)
        .await
        .map_err(super::stored(backend))?;
    audit(
        backend,
        (&partner.id, &partner.id),
        ("applied", None),
        caller,
    )
    .await?;
    let mut answer = start_session(backend, &partner, caller).await?;
    answer.status = http::StatusCode::CREATED;
    Ok(answer)
}

/// `POST /portal/api/sessions/options`: starts a sign-in with any passkey.
///
/// # Errors
/// `INTERNAL_ERROR` when storage fails.
pub async fn sign_in_options<B: PortalBackend>(
    backend: &B,
    rp: &RelyingParty,
    caller: &Caller<'_>,
) -> Result<Answer, ApiError> {
    let id = random::token::<16>().map_err(super::randomness(backend))?;
    let (options, ceremony) = rp
        .start_sign_in(id, caller.now)
        .map_err(|e| super::internal(backend, "passkeys", &e))?;
    backend
        .put_ceremony(&ceremony)
        .await
        .map_err(super::stored(backend))?;
    Ok(Answer::ok(
        json!({ "ceremony": ceremony.id, "publicKey": options }),
    ))
}

/// The one answer to every failed sign-in.
fn sign_in_failed() -> ApiError {
    ApiError::new(ErrorCode::Unauthorized, "sign-in failed")
}

/// `POST /portal/api/sessions`: verifies a passkey's assertion and starts a
/// session (ending the one presented, if any).
///
/// # Errors
/// `UNAUTHORIZED`, the same for every failure; `INTERNAL_ERROR` when storage
/// fails.
pub async fn sign_in<B: PortalBackend>(
    backend: &B,
    rp: &RelyingParty,
    body: &Map<String, Value>,
    caller: &Caller<'_>,
) -> Result<Answer, ApiError> {
    let (id, credential) = ceremony_field(body).map_err(|_| sign_in_failed())?;
    let refused = |why: String| {
        backend.log_failure(&crate::api::backend_error::BackendError::new(
            "portal",
            format!("sign-in refused: {why}"),
        ));
        sign_in_failed()
    };
    let ceremony = take(backend, id, CeremonyKind::SignIn)
        .await?
        .ok_or_else(|| refused("no such ceremony".to_owned()))?;
    let credential_id =
        RelyingParty::credential_id(credential).map_err(|e| refused(e.to_string()))?;
    let passkey = backend
        .passkey(&credential_id)
        .await
        .map_err(super::stored(backend))?
        .ok_or_else(|| refused("unknown passkey".to_owned()))?;
    let stored: StoredPasskey =
        serde_json::from_str(&passkey.stored).map_err(|e| refused(e.to_string()))?;
    let partner = backend
        .partner(&passkey.partner_id)
        .await
        .map_err(super::stored(backend))?
        .ok_or_else(|| refused("passkey without an account".to_owned()))?;
    let result = rp
        .finish_sign_in(&ceremony, credential, &stored, caller.now)
        .map_err(|e| refused(e.to_string()))?;
    // A discoverable passkey names its account: it must be the one it was
    // registered to.
    if result.user_handle.as_deref() != Some(partner.user_handle.as_slice()) {
        return Err(refused("user handle of another account".to_owned()));
    }
    let mut updated = stored;
    updated.counter = result.counter;
    backend
        .passkey_used(
            &passkey.credential_id,
            &serde_json::to_string(&updated).unwrap_or_default(),
            caller.now,
        )
        .await
        .map_err(super::stored(backend))?;
    audit(
        backend,
        (&partner.id, &partner.id),
        ("signed_in", None),
        caller,
    )
    .await?;
    start_session(backend, &partner, caller).await
}

/// A new session for `partner`, ending the caller's previous one.
pub(super) async fn start_session<B: PortalBackend>(
    backend: &B,
    partner: &Partner,
    caller: &Caller<'_>,
) -> Result<Answer, ApiError> {
    if let Some(previous) = caller.session_id {
        backend
            .end_session(&sessions::digest(previous), caller.now)
            .await
            .map_err(super::stored(backend))?;
    }
    let (id, digest) = sessions::new_id().map_err(super::randomness(backend))?;
    backend
        .put_session(&Session {
            digest,
            partner_id: partner.id.clone(),
            created_at: caller.now,
            last_seen_at: caller.now,
            ended_at: None,
        })
        .await
        .map_err(super::stored(backend))?;
    let mut answer = Answer::ok(account_json(partner));
    answer.cookie = Some(sessions::set_cookie(&id));
    Ok(answer)
}

/// The account a live session belongs to, marking the session used.
///
/// # Errors
/// `UNAUTHORIZED` without a live session; `INTERNAL_ERROR` when storage fails.
pub async fn signed_in<B: PortalBackend>(
    backend: &B,
    caller: &Caller<'_>,
) -> Result<(Session, Partner), ApiError> {
    let unauthorized = || ApiError::new(ErrorCode::Unauthorized, "sign in first");
    let id = caller.session_id.ok_or_else(unauthorized)?;
    let session = backend
        .session(&sessions::digest(id))
        .await
        .map_err(super::stored(backend))?
        .filter(|s| s.is_live(caller.now))
        .ok_or_else(unauthorized)?;
    let partner = backend
        .partner(&session.partner_id)
        .await
        .map_err(super::stored(backend))?
        .ok_or_else(unauthorized)?;
    if session.needs_touch(caller.now) {
        backend
            .touch_session(&session.digest, caller.now)
            .await
            .map_err(super::stored(backend))?;
    }
    Ok((session, partner))
}

/// `GET /portal/api/me`: the signed-in account, its passkeys and its audit log.
///
/// # Errors
/// `UNAUTHORIZED` without a live session; `INTERNAL_ERROR` when storage fails.
pub async fn me<B: PortalBackend>(backend: &B, caller: &Caller<'_>) -> Result<Answer, ApiError> {
    let (_, partner) = signed_in(backend, caller).await?;
    let passkeys = backend
        .passkeys_of(&partner.id)
        .await
        .map_err(super::stored(backend))?;
    let audit = backend
        .audit_of(&partner.id, 100)
        .await
        .map_err(super::stored(backend))?;
    let mut body = account_json(&partner);
    body["passkeys"] = passkeys
        .iter()
        .map(|p| json!({ "id": p.credential_id, "created_at": p.created_at, "last_used_at": p.last_used_at }))
        .collect();
    body["audit"] = serde_json::to_value(&audit).unwrap_or_default();
    // What the page states: each tier's daily limit, and how soon a key change
    // reaches the keys' gates.
    body["limits"] = json!({
        "sandbox": Tier::Sandbox.default_limit(),
        "partner": Tier::Partner.default_limit(),
        "enterprise": partner.daily_limit.filter(|_| partner.tier == Tier::Enterprise),
    });
    if let Some(config) = backend.portal() {
        body["record_ttl_seconds"] = config.record_ttl_seconds.into();
    }
    Ok(Answer::ok(body))
}

/// `DELETE /portal/api/sessions/current`: ends the session wherever its id is
/// used, and clears the cookie.
///
/// # Errors
/// `UNAUTHORIZED` without a live session; `INTERNAL_ERROR` when storage fails.
pub async fn sign_out<B: PortalBackend>(
    backend: &B,
    caller: &Caller<'_>,
) -> Result<Answer, ApiError> {
    let (session, partner) = signed_in(backend, caller).await?;
    backend
        .end_session(&session.digest, caller.now)
        .await
        .map_err(super::stored(backend))?;
    audit(
        backend,
        (&partner.id, &partner.id),
        ("signed_out", None),
        caller,
    )
    .await?;
    let mut answer = Answer::ok(json!({ "signed_out": true }));
    answer.cookie = Some(sessions::clear_cookie());
    Ok(answer)
}

/// An account as its own page and the operator's show it.
pub(super) fn account_json(partner: &Partner) -> Value {
    json!({
        "id": partner.id,
        "organisation": partner.organisation,
        "email": partner.email,
        "status": partner.status.code(),
        "role": partner.role.code(),
        "tier": partner.tier.code(),
        "created_at": partner.created_at,
    })
}

/// Appends an event of `partner_id`'s account to the audit log.
///
/// # Errors
/// `INTERNAL_ERROR` when storage fails.
pub(super) async fn audit<B: PortalBackend>(
    backend: &B,
    (partner_id, actor): (&str, &str),
    (action, subject): (&str, Option<&str>),
    caller: &Caller<'_>,
) -> Result<(), ApiError> {
    backend
        .audit(&AuditEntry {
            at: caller.now,
            partner_id: partner_id.to_owned(),
            actor: actor.to_owned(),
            action: action.to_owned(),
            subject: subject.map(str::to_owned),
            address: caller.address.map(str::to_owned),
        })
        .await
        .map_err(super::stored(backend))
}
