//! An account's passkeys after the first: another one added while signed in, one
//! removed while another remains, and one registered through a one-time enrolment
//! link (the operator's first passkey; a partner who lost theirs). The link's secret
//! is in the page's URL fragment, so it reaches no server log; the store keeps its
//! digest, and the link registers one passkey.

use data_encoding::BASE64URL_NOPAD;
use passki::StoredPasskey;
use serde::Serialize;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::accounts;
use super::ceremonies::{CeremonyError, RelyingParty};
use super::handler_io::{self, Answer, Caller};
use super::random;
use crate::api::backend::Backend;
use crate::api::partners::store::{CeremonyKind, Partner, Passkey};
use crate::api::{ApiError, ErrorCode};

/// What an add or enrolment ceremony will change: whose passkey, and the link used.
#[derive(serde::Serialize, serde::Deserialize)]
struct Pending {
    partner_id: String,
    enrolment: Option<String>,
}

fn link_refused() -> ApiError {
    ApiError::new(
        ErrorCode::InvalidRequest,
        "this enrolment link is not valid: it was used, it expired, or it never existed",
    )
    .with("field", "token")
}

async fn stored_of<B: Backend>(
    backend: &B,
    partner: &Partner,
) -> Result<Vec<StoredPasskey>, ApiError> {
    let passkeys = backend
        .passkeys_of(&partner.id)
        .await
        .map_err(super::stored(backend))?;
    Ok(passkeys
        .iter()
        .filter_map(|p| serde_json::from_str(&p.stored).ok())
        .collect())
}

/// Starts registering another passkey of `partner` in a ceremony of `kind`.
async fn start<B: Backend>(
    backend: &B,
    rp: &RelyingParty,
    partner: &Partner,
    (kind, enrolment): (CeremonyKind, Option<String>),
    caller: &Caller<'_>,
) -> Result<Answer, ApiError> {
    let existing = stored_of(backend, partner).await?;
    let id = random::token::<16>().map_err(super::randomness(backend))?;
    let started = rp.start_registration(
        (id, kind),
        (&partner.user_handle, &existing),
        (&partner.email, &partner.organisation),
        caller.now,
    );
    let pending = serde_json::to_string(&Pending {
        partner_id: partner.id.clone(),
        enrolment,
    })
    .ok();
    handler_io::ceremony_started(backend, started, pending, caller.now).await
}

/// Verifies the new passkey of a ceremony of `kind`; returns it with what the
/// ceremony was for.
async fn finish<B: Backend>(
    backend: &B,
    rp: &RelyingParty,
    body: &Map<String, Value>,
    kind: CeremonyKind,
    caller: &Caller<'_>,
) -> Result<(Pending, Passkey), ApiError> {
    let handler_io::CeremonyCredential {
        ceremony: id,
        credential,
    } = handler_io::CeremonyCredential::parse(body)?;
    let ceremony = handler_io::take(backend, id, kind)
        .await?
        .ok_or_else(|| handler_io::registration_refused(&CeremonyError::Unknown))?;
    let pending: Pending = ceremony
        .pending
        .as_deref()
        .and_then(|p| serde_json::from_str(p).ok())
        .ok_or_else(|| handler_io::registration_refused(&CeremonyError::Unknown))?;
    let stored = rp
        .finish_registration(&ceremony, credential, caller.now)
        .map_err(|e| handler_io::registration_refused(&e))?;
    let passkey = Passkey {
        credential_id: BASE64URL_NOPAD.encode(&stored.credential_id),
        partner_id: pending.partner_id.clone(),
        stored: serde_json::to_string(&stored).unwrap_or_default(),
        created_at: caller.now,
        last_used_at: None,
    };
    Ok((pending, passkey))
}

/// `409 CONFLICT` when `passkey`'s credential is registered already, to any
/// account: the store's key would refuse it, which must not read as a failure of
/// the service.
pub(super) async fn not_registered<B: Backend>(
    backend: &B,
    passkey: &Passkey,
) -> Result<(), ApiError> {
    let known = backend
        .passkey(&passkey.credential_id)
        .await
        .map_err(super::stored(backend))?;
    match known {
        None => Ok(()),
        Some(_) => Err(ApiError::new(
            ErrorCode::Conflict,
            "this passkey is registered already; sign in with it, or make another",
        )
        .with("reason", "passkey_registered")),
    }
}

async fn add_and_audit<B: Backend>(
    backend: &B,
    passkey: &Passkey,
    how: &str,
    caller: &Caller<'_>,
) -> Result<(), ApiError> {
    not_registered(backend, passkey).await?;
    let line = accounts::own_entry(&passkey.partner_id, ("passkey_added", Some(how)), caller);
    backend
        .add_passkey(passkey, &[line])
        .await
        .map_err(super::stored(backend))
}

/// `POST /portal/api/passkeys/options`: starts registering another passkey of the
/// signed-in account.
///
/// # Errors
/// `UNAUTHORIZED` without a session; `INTERNAL_ERROR` when storage fails.
pub async fn add_options<B: Backend>(
    backend: &B,
    rp: &RelyingParty,
    caller: &Caller<'_>,
) -> Result<Answer, ApiError> {
    let (_, partner) = accounts::signed_in_recently(backend, caller).await?;
    start(
        backend,
        rp,
        &partner,
        (CeremonyKind::AddPasskey, None),
        caller,
    )
    .await
}

/// `POST /portal/api/passkeys`: adds the passkey to the signed-in account.
///
/// # Errors
/// `INVALID_REQUEST` when the ceremony is unknown, expired, another account's or
/// the passkey is refused; `UNAUTHORIZED` without a session.
pub async fn add<B: Backend>(
    backend: &B,
    rp: &RelyingParty,
    body: &Map<String, Value>,
    caller: &Caller<'_>,
) -> Result<Answer, ApiError> {
    let (_, partner) = accounts::signed_in_recently(backend, caller).await?;
    let (pending, passkey) = finish(backend, rp, body, CeremonyKind::AddPasskey, caller).await?;
    if pending.partner_id != partner.id {
        return Err(handler_io::registration_refused(&CeremonyError::Unknown));
    }
    add_and_audit(backend, &passkey, "signed_in", caller).await?;
    Ok(Answer::created(&Added {
        added: passkey.credential_id,
    }))
}

/// The passkey added.
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema), schemars(inline))]
pub struct Added {
    /// Its credential id (base64url).
    pub added: String,
}

/// The passkey removed, and whether this session ended with it.
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema), schemars(inline))]
pub struct Removed {
    /// Its credential id (base64url).
    pub removed: String,
    /// Whether this session was one it started: then it has ended too, and the
    /// cookie is cleared.
    pub signed_out: bool,
}

/// `DELETE /portal/api/passkeys/{id}`: removes one of the account's passkeys while
/// another remains.
///
/// # Errors
/// `NOT_FOUND` for a passkey that is not the account's; `INVALID_REQUEST` for the
/// last one; `UNAUTHORIZED` without a session.
pub async fn remove<B: Backend>(
    backend: &B,
    id: &str,
    caller: &Caller<'_>,
) -> Result<Answer, ApiError> {
    let (session, partner) = accounts::signed_in(backend, caller).await?;
    let held = backend
        .passkeys_of(&partner.id)
        .await
        .map_err(super::stored(backend))?;
    if !held.iter().any(|p| p.credential_id == id) {
        return Err(
            ApiError::new(ErrorCode::NotFound, "no such passkey in this account").with("id", id),
        );
    }
    if !backend
        .remove_passkey(
            &partner.id,
            id,
            &[accounts::entry(
                (&partner.id, &partner.id),
                ("passkey_removed", None),
                caller,
            )],
        )
        .await
        .map_err(super::stored(backend))?
    {
        return Err(ApiError::new(
            ErrorCode::InvalidRequest,
            "the last passkey of an account cannot be removed: add another first",
        )
        .with("reason", "last_passkey"));
    }
    // What the passkey started ends with it: a session a thief began with it too.
    backend
        .end_sessions(&partner.id, Some(id), caller.now, &[])
        .await
        .map_err(super::stored(backend))?;
    let own = session.credential_id.as_deref() == Some(id);
    let mut answer = Answer::ok(&Removed {
        removed: id.to_owned(),
        signed_out: own,
    });
    if own {
        answer.cookie = Some(super::sessions::clear_cookie());
    }
    Ok(answer)
}

/// The digest an enrolment link's secret is stored by.
#[must_use]
pub fn enrolment_digest(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

/// The start of an enrolment: the link's secret.
#[derive(Debug)]
#[cfg_attr(test, derive(schemars::JsonSchema), schemars(inline))]
pub struct Enrolment<'a> {
    /// The secret of the operator's one-time link (its URL's fragment).
    pub token: &'a str,
}

impl<'a> Enrolment<'a> {
    /// The token of a request's body; none, or one that is not text, is the empty
    /// token, which no link has (refused as an unknown link is).
    #[must_use]
    pub fn parse(body: &'a Map<String, Value>) -> Self {
        Self {
            token: body
                .get("token")
                .and_then(Value::as_str)
                .unwrap_or_default(),
        }
    }
}

/// `POST /portal/api/enrolments/options` `{token}`: starts registering a passkey
/// for the account of an enrolment link.
///
/// # Errors
/// `INVALID_REQUEST` for a link that is used, expired or unknown (the same answer).
pub async fn enrolment_options<B: Backend>(
    backend: &B,
    rp: &RelyingParty,
    body: &Map<String, Value>,
    caller: &Caller<'_>,
) -> Result<Answer, ApiError> {
    let Enrolment { token } = Enrolment::parse(body);
    let digest = enrolment_digest(token);
    let partner_id = backend
        .enrolment(&digest, caller.now)
        .await
        .map_err(super::stored(backend))?
        .ok_or_else(link_refused)?;
    let partner = backend
        .partner(&partner_id)
        .await
        .map_err(super::stored(backend))?
        .ok_or_else(link_refused)?;
    start(
        backend,
        rp,
        &partner,
        (CeremonyKind::Enrolment, Some(digest)),
        caller,
    )
    .await
}

/// `POST /portal/api/enrolments`: registers the passkey, uses the link up, and
/// signs the account in.
///
/// # Errors
/// `INVALID_REQUEST` when the ceremony or the link is no longer valid, or the
/// passkey is refused.
pub async fn enrol<B: Backend>(
    backend: &B,
    rp: &RelyingParty,
    body: &Map<String, Value>,
    caller: &Caller<'_>,
) -> Result<Answer, ApiError> {
    let (pending, passkey) = finish(backend, rp, body, CeremonyKind::Enrolment, caller).await?;
    let digest = pending.enrolment.as_deref().unwrap_or_default();
    let partner = backend
        .partner(&pending.partner_id)
        .await
        .map_err(super::stored(backend))?
        .ok_or_else(link_refused)?;
    // A link cannot bring back an account that may not sign in, nor register a
    // passkey twice; it stays unused.
    accounts::may_sign_in(&partner)?;
    not_registered(backend, &passkey).await?;
    if !backend
        .use_enrolment(digest, caller.now)
        .await
        .map_err(super::stored(backend))?
    {
        return Err(link_refused());
    }
    add_and_audit(backend, &passkey, "enrolment", caller).await?;
    let mut answer =
        accounts::start_session(backend, &partner, &passkey.credential_id, caller, &[]).await?;
    answer.status = http::StatusCode::CREATED;
    Ok(answer)
}
