//! Signing in and out, and the signed-in account: the portal's account handlers.
//! Each takes the parsed request and answers JSON or an [`ApiError`]; routing and
//! the cross-site check are in [`super`], applying in [`super::applications`].
//!
//! Every failed sign-in is the same `UNAUTHORIZED`: answers do not tell whether an
//! account or a passkey exists.

use passki::StoredPasskey;
use serde_json::{Map, Value, json};

use super::ceremonies::RelyingParty;
use super::handler_io::{Answer, Caller, ceremony_field, ceremony_started, take};
use super::{random, sessions};
use crate::api::access::keys::Tier;
use crate::api::backend::Backend as PortalBackend;
use crate::api::partners::store::{AuditEntry, CeremonyKind, Partner, PartnerStatus, Session};
use crate::api::{ApiError, ErrorCode};

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
    let started = rp.start_sign_in(id, caller.now);
    ceremony_started(backend, started, None, caller.now).await
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
    // Each refusal is logged and written to the audit log: under the passkey's
    // account once the passkey is known (its holder sees the attempt), else under
    // no account (the operator's log). The answer is the same for all.
    let refused = async |account: Option<&str>, why: &str, detail: String| {
        backend.log_refusal("portal", &format!("sign-in refused: {why}: {detail}"));
        match audit(
            backend,
            (account.unwrap_or(""), account.unwrap_or("")),
            ("sign_in_failed", Some(why)),
            caller,
        )
        .await
        {
            Ok(()) => sign_in_failed(),
            Err(err) => err,
        }
    };
    let Ok((id, credential)) = ceremony_field(body) else {
        return Err(refused(None, "malformed", "no ceremony or credential".to_owned()).await);
    };
    let Some(ceremony) = take(backend, id, CeremonyKind::SignIn).await? else {
        return Err(refused(None, "ceremony", "no such ceremony".to_owned()).await);
    };
    let credential_id = match RelyingParty::credential_id(credential) {
        Ok(id) => id,
        Err(e) => return Err(refused(None, "malformed", e.to_string()).await),
    };
    if let Err(over) = super::rate_limits::check_passkey(backend, &credential_id, caller.now).await
    {
        backend.log_refusal(
            "portal",
            &format!("sign-in refused: over the passkey's limit: {credential_id}"),
        );
        return Err(over);
    }
    let Some(passkey) = backend
        .passkey(&credential_id)
        .await
        .map_err(super::stored(backend))?
    else {
        return Err(refused(None, "unknown_passkey", credential_id).await);
    };
    let account = Some(passkey.partner_id.as_str());
    let stored: StoredPasskey = match serde_json::from_str(&passkey.stored) {
        Ok(stored) => stored,
        Err(e) => return Err(refused(account, "stored", e.to_string()).await),
    };
    let Some(partner) = backend
        .partner(&passkey.partner_id)
        .await
        .map_err(super::stored(backend))?
    else {
        return Err(refused(account, "no_account", passkey.partner_id.clone()).await);
    };
    let result = match rp.finish_sign_in(&ceremony, credential, &stored, caller.now) {
        Ok(result) => result,
        Err(e) => return Err(refused(account, "assertion", e.to_string()).await),
    };
    // A discoverable passkey names its account: it must be the one it was
    // registered to.
    if result.user_handle.as_deref() != Some(partner.user_handle.as_slice()) {
        return Err(refused(account, "user_handle", "of another account".to_owned()).await);
    }
    let mut updated = stored;
    updated.counter = result.counter;
    // Compare and set: of two sign-ins that read the same counter, only one counts.
    if !backend
        .passkey_used(
            &passkey.credential_id,
            (
                &passkey.stored,
                &serde_json::to_string(&updated).unwrap_or_default(),
            ),
            caller.now,
        )
        .await
        .map_err(super::stored(backend))?
    {
        return Err(refused(account, "counter_raced", "used at the same time".to_owned()).await);
    }
    // Only the passkey's holder learns the account's status.
    if let Err(err) = may_sign_in(&partner) {
        audit(
            backend,
            (&partner.id, &partner.id),
            ("sign_in_refused", None),
            caller,
        )
        .await?;
        return Err(err);
    }
    let signed_in = own_entry(&partner.id, ("signed_in", None), caller);
    start_session(
        backend,
        &partner,
        &passkey.credential_id,
        caller,
        &[signed_in],
    )
    .await
}

/// Whether `partner` may hold a session: not while suspended or rejected, with the
/// reason the portal's page shows.
///
/// # Errors
/// `FORBIDDEN` naming the account's status.
pub(super) fn may_sign_in(partner: &Partner) -> Result<(), ApiError> {
    let message = match partner.status {
        PartnerStatus::Applied | PartnerStatus::Approved => return Ok(()),
        PartnerStatus::Suspended => {
            "this account is suspended: its keys are stopped and it cannot sign in; \
             contact the operator"
        }
        PartnerStatus::Rejected => {
            "this account's application was rejected: it cannot sign in; contact the operator"
        }
    };
    Err(ApiError::new(ErrorCode::Forbidden, message)
        .with("reason", "account_status")
        .with("status", partner.status.code()))
}

/// A new session for `partner`, started by its passkey `credential_id`, ending the
/// caller's previous one.
///
/// # Errors
/// `FORBIDDEN` for an account that may not sign in ([`may_sign_in`]);
/// `INTERNAL_ERROR` when storage fails.
pub(super) async fn start_session<B: PortalBackend>(
    backend: &B,
    partner: &Partner,
    credential_id: &str,
    caller: &Caller<'_>,
    audit: &[AuditEntry],
) -> Result<Answer, ApiError> {
    may_sign_in(partner)?;
    if let Some(previous) = caller.session_id {
        backend
            .end_session(&sessions::digest(previous), caller.now, &[])
            .await
            .map_err(super::stored(backend))?;
    }
    // What no request can use any more goes as sessions start: dead sessions, and
    // keys that stopped long ago (so no table only grows).
    backend
        .sweep(
            caller.now - sessions::ABSOLUTE_TIMEOUT,
            caller.now - sessions::KEYS_KEPT,
        )
        .await
        .map_err(super::stored(backend))?;
    let (id, digest) = sessions::new_id().map_err(super::randomness(backend))?;
    let session = Session {
        digest,
        partner_id: partner.id.clone(),
        credential_id: Some(credential_id.to_owned()),
        created_at: caller.now,
        last_seen_at: caller.now,
        ended_at: None,
    };
    backend
        .put_session(&session, audit)
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
    let session = caller
        .live_session(backend)
        .await?
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

/// [`signed_in`], for what lasts (another passkey, a new or rolled key): the session
/// must have begun with a passkey within [`sessions::STEP_UP_WINDOW`]; older, the
/// page asks for the passkey again (a sign-in) and retries.
///
/// # Errors
/// As [`signed_in`]; `FORBIDDEN` with `details.reason` `step_up` for an older
/// session.
pub async fn signed_in_recently<B: PortalBackend>(
    backend: &B,
    caller: &Caller<'_>,
) -> Result<(Session, Partner), ApiError> {
    let (session, partner) = signed_in(backend, caller).await?;
    if !session.is_recently_verified(caller.now) {
        let window = sessions::STEP_UP_WINDOW.num_seconds();
        return Err(ApiError::new(
            ErrorCode::Forbidden,
            format!(
                "confirm with your passkey: this change needs a sign-in within the last {} minutes",
                window / 60
            ),
        )
        .with("reason", "step_up")
        .with("window_seconds", window));
    }
    Ok((session, partner))
}

/// `GET /portal/api/session`: whether the caller's cookie names a live session, as
/// `200` either way, so that a signed-out page asks nothing that fails (a browser
/// logs every failed request).
///
/// # Errors
/// `INTERNAL_ERROR` when storage fails.
pub async fn session_state<B: PortalBackend>(
    backend: &B,
    caller: &Caller<'_>,
) -> Result<Answer, ApiError> {
    let live = caller.live_session(backend).await?;
    Ok(Answer::ok(json!({
        "signed_in": live.is_some(),
        "recently_verified": live.is_some_and(|s| s.is_recently_verified(caller.now)),
    })))
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
    body["audit"] = audit
        .iter()
        .map(|entry| partner_view(entry, &partner.id))
        .collect();
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
    let signed_out = own_entry(&partner.id, ("signed_out", None), caller);
    backend
        .end_session(&session.digest, caller.now, &[signed_out])
        .await
        .map_err(super::stored(backend))?;
    let mut answer = Answer::ok(json!({ "signed_out": true }));
    answer.cookie = Some(sessions::clear_cookie());
    Ok(answer)
}

/// `DELETE /portal/api/sessions`: ends every session of the account, this one
/// included, wherever they are used ("sign out everywhere"), and clears the cookie.
///
/// # Errors
/// `UNAUTHORIZED` without a live session; `INTERNAL_ERROR` when storage fails.
pub async fn sign_out_everywhere<B: PortalBackend>(
    backend: &B,
    caller: &Caller<'_>,
) -> Result<Answer, ApiError> {
    let (_, partner) = signed_in(backend, caller).await?;
    let line = entry(
        (&partner.id, &partner.id),
        ("signed_out_everywhere", None),
        caller,
    );
    backend
        .end_sessions(&partner.id, None, caller.now, &[line])
        .await
        .map_err(super::stored(backend))?;
    let mut answer = Answer::ok(json!({ "signed_out": true, "everywhere": true }));
    answer.cookie = Some(sessions::clear_cookie());
    Ok(answer)
}

/// An audit line as the account's own page shows it: what the operator did is
/// said to be the operator's, without the operator's account or address, which
/// stay in the operator's log.
fn partner_view(entry: &AuditEntry, partner_id: &str) -> Value {
    let own = entry.actor == partner_id;
    json!({
        "at": entry.at,
        "partner_id": entry.partner_id,
        "actor": if own { entry.actor.as_str() } else { "operator" },
        "action": entry.action,
        "subject": entry.subject,
        "address": if own { entry.address.as_deref() } else { None },
    })
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
    who: (&str, &str),
    what: (&str, Option<&str>),
    caller: &Caller<'_>,
) -> Result<(), ApiError> {
    backend
        .audit(&entry(who, what, caller))
        .await
        .map_err(super::stored(backend))
}

/// An audit line of `partner_id`'s account by its own holder (see [`entry`]).
#[must_use]
pub(super) fn own_entry(
    partner_id: &str,
    what: (&str, Option<&str>),
    caller: &Caller<'_>,
) -> AuditEntry {
    entry((partner_id, partner_id), what, caller)
}

/// An audit line of `partner_id`'s account by `actor`: `action` on `subject`, at
/// the caller's time and from its address. The changes that take their lines write
/// them in the same transaction ([`crate::api::partners::store::PortalStore`]).
#[must_use]
pub(super) fn entry(
    (partner_id, actor): (&str, &str),
    (action, subject): (&str, Option<&str>),
    caller: &Caller<'_>,
) -> AuditEntry {
    AuditEntry {
        at: caller.now,
        partner_id: partner_id.to_owned(),
        actor: actor.to_owned(),
        action: action.to_owned(),
        subject: subject.map(str::to_owned),
        address: caller.address.map(str::to_owned),
    }
}
