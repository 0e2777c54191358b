//! Signing in and out, and the signed-in account: the portal's account handlers.
//! Each takes the parsed request and answers JSON or an [`ApiError`]; routing and
//! the cross-site check are in [`super`], applying in [`super::applications`].
//!
//! Every failed sign-in is the same `UNAUTHORIZED`: answers do not tell whether an
//! account or a passkey exists.

use chrono::{DateTime, Utc};
use passki::StoredPasskey;
use serde::Serialize;
use serde_json::{Map, Value};

use super::ceremonies::RelyingParty;
use super::handler_io::{Answer, Caller, CeremonyCredential, ceremony_started, take};
use super::{random, sessions};
use crate::api::access::keys::Tier;
use crate::api::backend::Backend as PortalBackend;
use crate::api::partners::store::{
    AuditEntry, CeremonyKind, Partner, PartnerStatus, Passkey, Role, Session,
};
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
    let Ok(CeremonyCredential {
        ceremony: id,
        credential,
    }) = CeremonyCredential::parse(body)
    else {
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
    let mut answer = Answer::ok(&Account::of(partner));
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
    Ok(Answer::ok(&SessionState {
        signed_in: live.is_some(),
        recently_verified: live.is_some_and(|s| s.is_recently_verified(caller.now)),
    }))
}

/// Whether the caller is signed in.
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[cfg_attr(test, schemars(inline, deny_unknown_fields))]
pub struct SessionState {
    /// Whether the request's cookie names a live session.
    pub signed_in: bool,
    /// Whether that session's passkey sign-in is recent enough for what lasts
    /// (another passkey, a new or rolled key) without signing in again.
    pub recently_verified: bool,
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
    let config = backend.portal();
    Ok(Answer::ok(&Me {
        account: Account::of(&partner),
        passkeys: passkeys.iter().map(PasskeySummary::of).collect(),
        audit: audit
            .iter()
            .map(|entry| partner_view(entry, &partner.id))
            .collect(),
        limits: Limits::of(&partner),
        record_ttl_seconds: config.map(|c| c.record_ttl_seconds),
    }))
}

/// The signed-in account, its passkeys, its audit log and what the page states of
/// the tiers and of key changes.
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Me {
    /// The account.
    #[serde(flatten)]
    pub account: Account,
    /// Its passkeys, oldest first.
    pub passkeys: Vec<PasskeySummary>,
    /// Its audit log, newest first, at most 100 lines.
    pub audit: Vec<AuditEntry>,
    /// Each tier's daily limit.
    pub limits: Limits,
    /// How soon a key's change (revoked, rolled, suspended) reaches the keys'
    /// gates, in seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, schemars(with = "i64"))]
    pub record_ttl_seconds: Option<i64>,
}

/// A passkey of the account, as its page lists it.
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema), schemars(inline))]
pub struct PasskeySummary {
    /// Its credential id (base64url).
    pub id: String,
    /// When it was registered.
    #[cfg_attr(test, schemars(with = "String", extend("format" = "date-time")))]
    pub created_at: DateTime<Utc>,
    /// When it last signed in, if it has.
    #[cfg_attr(test, schemars(with = "Option<String>", extend("format" = "date-time")))]
    pub last_used_at: Option<DateTime<Utc>>,
}

impl PasskeySummary {
    fn of(passkey: &Passkey) -> Self {
        Self {
            id: passkey.credential_id.clone(),
            created_at: passkey.created_at,
            last_used_at: passkey.last_used_at,
        }
    }
}

/// Each tier's daily limit, as the page states them.
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema), schemars(inline))]
pub struct Limits {
    /// Requests a UTC day of the sandbox tier's keys.
    pub sandbox: u32,
    /// Requests a UTC day of the partner tier's keys.
    pub partner: u32,
    /// This account's agreed limit when its tier is enterprise; otherwise null.
    pub enterprise: Option<u32>,
}

impl Limits {
    fn of(partner: &Partner) -> Self {
        Self {
            sandbox: Tier::Sandbox.default_limit().unwrap_or_default(),
            partner: Tier::Partner.default_limit().unwrap_or_default(),
            enterprise: partner
                .daily_limit
                .filter(|_| partner.tier == Tier::Enterprise),
        }
    }
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
    let mut answer = Answer::ok(&SignedOut { signed_out: true });
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
    let mut answer = Answer::ok(&SignedOutEverywhere {
        signed_out: true,
        everywhere: true,
    });
    answer.cookie = Some(sessions::clear_cookie());
    Ok(answer)
}

/// The session ended.
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema), schemars(inline))]
pub struct SignedOut {
    /// Always true.
    #[cfg_attr(test, schemars(extend("const" = true)))]
    pub signed_out: bool,
}

/// Every session of the account ended, this one included.
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema), schemars(inline))]
pub struct SignedOutEverywhere {
    /// Always true.
    #[cfg_attr(test, schemars(extend("const" = true)))]
    pub signed_out: bool,
    /// Always true: every session, not only this one.
    #[cfg_attr(test, schemars(extend("const" = true)))]
    pub everywhere: bool,
}

/// An audit line as the account's own page shows it: what the operator did is
/// said to be the operator's, without the operator's account or address, which
/// stay in the operator's log.
fn partner_view(entry: &AuditEntry, partner_id: &str) -> AuditEntry {
    let own = entry.actor == partner_id;
    AuditEntry {
        at: entry.at,
        partner_id: entry.partner_id.clone(),
        actor: if own {
            entry.actor.clone()
        } else {
            "operator".to_owned()
        },
        action: entry.action.clone(),
        subject: entry.subject.clone(),
        address: entry.address.clone().filter(|_| own),
    }
}

/// An account as its own page and the operator's show it.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Account {
    /// Its id (32 hex digits).
    pub id: String,
    /// Organisation name, as applied.
    pub organisation: String,
    /// Contact email, as applied.
    pub email: String,
    /// Where it stands with the operator.
    pub status: PartnerStatus,
    /// What it may do.
    pub role: Role,
    /// The tier of its live keys, set by the operator (`sandbox`: no live keys).
    pub tier: Tier,
    /// When it applied (or was made).
    #[cfg_attr(test, schemars(with = "String", extend("format" = "date-time")))]
    pub created_at: DateTime<Utc>,
}

impl Account {
    /// The account `partner` as it is shown.
    #[must_use]
    pub fn of(partner: &Partner) -> Self {
        Self {
            id: partner.id.clone(),
            organisation: partner.organisation.clone(),
            email: partner.email.clone(),
            status: partner.status,
            role: partner.role,
            tier: partner.tier,
            created_at: partner.created_at,
        }
    }
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
