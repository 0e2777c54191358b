//! What the portal keeps, and the one trait through which it keeps it, in SQL
//! (`sql_store.rs`: D1 in the Worker, SQLite in the native tests). Secrets are
//! never stored: sessions by the SHA-256 digest of their id, passkeys by their public
//! keys.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::api::access::ip_ranges::IpRange;

use crate::api::access::keys::{KeyApi, KeyKind, Tier, in_force};
use crate::api::backend_error::BackendError;

/// Where an account stands with the operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PartnerStatus {
    /// Applied; waiting for the operator.
    Applied,
    /// Approved: may create keys.
    Approved,
    /// Rejected by the operator.
    Rejected,
    /// Suspended by the operator: every key stops.
    Suspended,
}

impl PartnerStatus {
    /// Every status, in the order an account may pass through them.
    pub const ALL: [Self; 4] = [
        Self::Applied,
        Self::Approved,
        Self::Rejected,
        Self::Suspended,
    ];

    /// The stored and wire name.
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            Self::Applied => "applied",
            Self::Approved => "approved",
            Self::Rejected => "rejected",
            Self::Suspended => "suspended",
        }
    }

    /// The status of a stored name.
    #[must_use]
    pub fn parse(code: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.code() == code)
    }
}

/// Its wire names, as an enum of strings.
#[cfg(test)]
impl schemars::JsonSchema for PartnerStatus {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> std::borrow::Cow<'static, str> {
        "PartnerStatus".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "string", "enum": Self::ALL.map(Self::code) })
    }
}

/// What an account may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// A partner: its own account, keys and usage.
    Partner,
    /// The operator: every application and account (granted by `scripts/operator.mjs`).
    Operator,
}

impl Role {
    /// Both roles.
    pub const ALL: [Self; 2] = [Self::Partner, Self::Operator];

    /// The stored and wire name.
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            Self::Partner => "partner",
            Self::Operator => "operator",
        }
    }

    /// The role of a stored name.
    #[must_use]
    pub fn parse(code: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.code() == code)
    }
}

/// Its wire names, as an enum of strings.
#[cfg(test)]
impl schemars::JsonSchema for Role {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Role".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "string", "enum": Self::ALL.map(Self::code) })
    }
}

/// An account: an organisation that applied, or the operator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Partner {
    /// Random id (32 hex digits).
    pub id: String,
    /// The `WebAuthn` user handle of its passkeys (32 random bytes).
    pub user_handle: Vec<u8>,
    /// Organisation name, as applied.
    pub organisation: String,
    /// Contact email, as applied.
    pub email: String,
    /// What it means to use the APIs for, as applied.
    pub intended_use: String,
    /// Where it stands.
    pub status: PartnerStatus,
    /// What it may do.
    pub role: Role,
    /// The tier of its live keys, set by the operator (`Sandbox`: no live keys).
    pub tier: Tier,
    /// An enterprise partner's agreed daily limit.
    pub daily_limit: Option<u32>,
    /// When it applied (or was made).
    pub created_at: DateTime<Utc>,
}

/// A key as its partner sees it (never the key itself, which only its digest
/// stands for in the store).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartnerKey {
    /// Id (32 hex digits; not secret).
    pub id: String,
    /// SHA-256 of the key text, lowercase hex: what its gate is named by.
    pub digest: String,
    /// The partner's name for it.
    pub label: String,
    /// Sandbox or live.
    pub kind: KeyKind,
    /// Its tier.
    pub tier: Tier,
    /// Requests a UTC day.
    pub daily_limit: u32,
    /// The APIs it may call.
    pub apis: Vec<KeyApi>,
    /// Browser origins allowed to use it (router API), normalised.
    pub origins: Vec<String>,
    /// Server address ranges it may be used from; empty: any.
    pub ip_ranges: Vec<IpRange>,
    /// When it was made.
    pub issued_at: DateTime<Utc>,
    /// When it stops, if it does.
    pub expires_at: Option<DateTime<Utc>>,
    /// When it was revoked, if it was.
    pub revoked_at: Option<DateTime<Utc>>,
    /// The key that replaced it, if it was rolled.
    pub rolled_to: Option<String>,
}

impl PartnerKey {
    /// Whether it is neither revoked nor expired at `now` (a suspension stops it at
    /// the gate, not here: the partner still sees and manages the key).
    #[must_use]
    pub fn is_in_force(&self, now: DateTime<Utc>) -> bool {
        in_force(self.revoked_at, self.expires_at, now)
    }
}

/// The most keys an account may hold in force (neither revoked nor expired, a rolled
/// key in its grace period included), checked at `now` with every write that adds
/// one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyCap {
    /// The cap.
    pub max: usize,
    /// The time keys are counted at.
    pub now: DateTime<Utc>,
}

impl KeyCap {
    /// The count of keys in force an account must be below to make one.
    #[must_use]
    pub fn below_for_create(self) -> usize {
        self.max
    }

    /// The count of keys in force an account must be below to roll one into a new
    /// key, the old one stopping at `old_stops_at`: one more when that is `now` (no
    /// grace), since the old key frees its place as the new one takes it.
    #[must_use]
    pub fn below_for_roll(self, old_stops_at: DateTime<Utc>) -> usize {
        self.max + usize::from(old_stops_at <= self.now)
    }
}

/// A key to store, and its partner.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewKey {
    /// The key's record.
    pub key: PartnerKey,
    /// Its partner.
    pub partner_id: String,
}

/// A registered passkey.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Passkey {
    /// The credential id, base64url.
    pub credential_id: String,
    /// Its account.
    pub partner_id: String,
    /// The relying party's record of it (`passki::StoredPasskey` as JSON: the public
    /// key, its algorithm and signature counter).
    pub stored: String,
    /// When it was registered.
    pub created_at: DateTime<Utc>,
    /// When it last signed in.
    pub last_used_at: Option<DateTime<Utc>>,
}

/// Which ceremony a pending challenge belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CeremonyKind {
    /// Registering the first passkey of an application.
    Application,
    /// Signing in.
    SignIn,
    /// Registering another passkey of a signed-in account.
    AddPasskey,
    /// Registering a passkey through an enrolment link.
    Enrolment,
}

impl CeremonyKind {
    /// The stored name.
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            Self::Application => "application",
            Self::SignIn => "sign_in",
            Self::AddPasskey => "add_passkey",
            Self::Enrolment => "enrolment",
        }
    }

    /// The kind of a stored name.
    #[must_use]
    pub fn parse(code: &str) -> Option<Self> {
        [
            Self::Application,
            Self::SignIn,
            Self::AddPasskey,
            Self::Enrolment,
        ]
        .into_iter()
        .find(|k| k.code() == code)
    }
}

/// A `WebAuthn` ceremony between its two requests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ceremony {
    /// Random id the client sends back (base64url).
    pub id: String,
    /// Which ceremony.
    pub kind: CeremonyKind,
    /// The relying party's state (passki's, as JSON: the challenge, the user).
    pub state: String,
    /// What the ceremony will create when it succeeds (an application's fields, as
    /// JSON), if anything.
    pub pending: Option<String>,
    /// After this the ceremony cannot be finished.
    pub expires_at: DateTime<Utc>,
}

/// A signed-in session, by the digest of its id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    /// SHA-256 of the session id, lowercase hex.
    pub digest: String,
    /// Its account.
    pub partner_id: String,
    /// The passkey whose ceremony started it (none for a session stored before
    /// sessions recorded it): removing the passkey ends the session.
    pub credential_id: Option<String>,
    /// When it began.
    pub created_at: DateTime<Utc>,
    /// When it was last used (to the minute: see `sessions.rs`).
    pub last_seen_at: DateTime<Utc>,
    /// When it was ended (sign-out, or the account's lifecycle), if it was.
    pub ended_at: Option<DateTime<Utc>>,
}

/// One line of the append-only audit log: the operator's log shows each as it is
/// stored, an account's own page with what the operator did said to be the
/// operator's (`actor` `operator`, no `address`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct AuditEntry {
    /// When.
    #[cfg_attr(test, schemars(with = "String", extend("format" = "date-time")))]
    pub at: DateTime<Utc>,
    /// The account the event concerns.
    pub partner_id: String,
    /// Who acted: an account id, or `operator-cli`; on an account's own page,
    /// `operator` for whatever the operator did.
    pub actor: String,
    /// What happened (`applied`, `signed_in`, `signed_out`, ...).
    pub action: String,
    /// What it happened to, if not the account itself (a key's id).
    pub subject: Option<String>,
    /// From which address (`CF-Connecting-IP`), if known (and, on an account's own
    /// page, its own).
    pub address: Option<String>,
}

/// The portal's storage.
#[allow(async_fn_in_trait)] // used single-threaded, on workerd and in tests
pub trait PortalStore {
    /// Keeps a ceremony until it is taken or expires, and drops those that expired
    /// before `now`.
    async fn put_ceremony(
        &self,
        ceremony: &Ceremony,
        now: DateTime<Utc>,
    ) -> Result<(), BackendError>;

    /// Removes and returns the ceremony `id`, if it exists: a ceremony is finished at
    /// most once, whatever its outcome.
    async fn take_ceremony(&self, id: &str) -> Result<Option<Ceremony>, BackendError>;

    /// Creates an account with its first passkey, with `audit`'s lines in the same
    /// transaction.
    async fn create_partner(
        &self,
        partner: &Partner,
        passkey: &Passkey,
        audit: &[AuditEntry],
    ) -> Result<(), BackendError>;

    /// The account `id`.
    async fn partner(&self, id: &str) -> Result<Option<Partner>, BackendError>;

    /// The passkey with this credential id.
    async fn passkey(&self, credential_id: &str) -> Result<Option<Passkey>, BackendError>;

    /// An account's passkeys, oldest first.
    async fn passkeys_of(&self, partner_id: &str) -> Result<Vec<Passkey>, BackendError>;

    /// Adds a passkey to an existing account, with `audit`'s lines in the same
    /// transaction.
    async fn add_passkey(
        &self,
        passkey: &Passkey,
        audit: &[AuditEntry],
    ) -> Result<(), BackendError>;

    /// Removes the account's passkey `credential_id` if the account keeps another,
    /// with `audit`'s lines in the same transaction; whether it was removed.
    async fn remove_passkey(
        &self,
        partner_id: &str,
        credential_id: &str,
        audit: &[AuditEntry],
    ) -> Result<bool, BackendError>;

    /// The account of an unused, unexpired enrolment link (by the digest of its
    /// secret).
    async fn enrolment(
        &self,
        digest: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<String>, BackendError>;

    /// Marks the enrolment link used, if it still is unused and unexpired: whether
    /// this call used it (a link registers one passkey).
    async fn use_enrolment(&self, digest: &str, now: DateTime<Utc>) -> Result<bool, BackendError>;

    /// Records a sign-in with a passkey: `states` is `(previous, new)`, its stored
    /// state as read and as it becomes (the signature counter), written with the
    /// time only if the stored state is still `previous` (compare and set: of two
    /// sign-ins that read the same counter, one wins); whether it was written.
    async fn passkey_used(
        &self,
        credential_id: &str,
        states: (&str, &str),
        at: DateTime<Utc>,
    ) -> Result<bool, BackendError>;

    /// Starts a session, with `audit`'s lines in the same transaction.
    async fn put_session(
        &self,
        session: &Session,
        audit: &[AuditEntry],
    ) -> Result<(), BackendError>;

    /// The session with this digest.
    async fn session(&self, digest: &str) -> Result<Option<Session>, BackendError>;

    /// Marks a session used at `at`.
    async fn touch_session(&self, digest: &str, at: DateTime<Utc>) -> Result<(), BackendError>;

    /// Ends a session at `at`, with `audit`'s lines in the same transaction if it
    /// was live.
    async fn end_session(
        &self,
        digest: &str,
        at: DateTime<Utc>,
        audit: &[AuditEntry],
    ) -> Result<(), BackendError>;

    /// Ends at `at` every session of the account not yet ended, or only those the
    /// passkey `started_by` started.
    /// `audit`'s lines are written in the same transaction if any session ended.
    async fn end_sessions(
        &self,
        partner_id: &str,
        started_by: Option<&str>,
        at: DateTime<Utc>,
        audit: &[AuditEntry],
    ) -> Result<(), BackendError>;

    /// Deletes what no request can use any more: sessions ended, or begun, before
    /// `sessions_before`, and keys revoked or expired before `keys_before`. Returns
    /// how many of each went.
    async fn sweep(
        &self,
        sessions_before: DateTime<Utc>,
        keys_before: DateTime<Utc>,
    ) -> Result<(u32, u32), BackendError>;

    /// A partner's keys, newest first.
    async fn keys_of(&self, partner_id: &str) -> Result<Vec<PartnerKey>, BackendError>;

    /// Stores a new key if its account holds fewer keys in force at `cap.now` than
    /// [`KeyCap::below_for_create`], counted in the statement that inserts it;
    /// whether it was stored.
    /// `audit`'s lines are written with it, in the same transaction, or not at all
    /// (so for every change below that takes them).
    async fn insert_key(
        &self,
        key: &NewKey,
        cap: KeyCap,
        audit: &[AuditEntry],
    ) -> Result<bool, BackendError>;

    /// Revokes the partner's key `id` at `at`; whether it was the partner's and not
    /// yet revoked.
    async fn revoke_key(
        &self,
        partner_id: &str,
        id: &str,
        at: DateTime<Utc>,
        audit: &[AuditEntry],
    ) -> Result<bool, BackendError>;

    /// Stores `new` as the replacement of the partner's key `old`, which stops at
    /// `old_expires_at`, in one transaction; whether `old` was the partner's, not
    /// revoked and not rolled before, and the account held fewer keys in force than
    /// [`KeyCap::below_for_roll`] (nothing is stored otherwise).
    async fn roll_key(
        &self,
        partner_id: &str,
        old: &str,
        new: &NewKey,
        old_expires_at: DateTime<Utc>,
        cap: KeyCap,
        audit: &[AuditEntry],
    ) -> Result<bool, BackendError>;

    /// Counts one request in `bucket`'s window starting at `window` and returns the
    /// window's count so far (this one included). Windows an hour old are dropped.
    async fn count_request(&self, bucket: &str, window: DateTime<Utc>)
    -> Result<u32, BackendError>;

    /// Appends to the audit log.
    async fn audit(&self, entry: &AuditEntry) -> Result<(), BackendError>;

    /// An account's audit log, newest first, at most `limit` lines.
    async fn audit_of(&self, partner_id: &str, limit: u32)
    -> Result<Vec<AuditEntry>, BackendError>;

    /// The whole audit log, newest first, at most `limit` lines.
    async fn audit_all(&self, limit: u32) -> Result<Vec<AuditEntry>, BackendError>;

    /// At most `limit` accounts, oldest first, after the account `after` names
    /// (its creation time and id), or from the first.
    async fn partners_page(
        &self,
        after: Option<(DateTime<Utc>, &str)>,
        limit: u32,
    ) -> Result<Vec<Partner>, BackendError>;

    /// Sets the status of the account `id` to `to` if it is one of `from`; whether
    /// it did.
    async fn set_partner_status(
        &self,
        id: &str,
        from: &[PartnerStatus],
        to: PartnerStatus,
        audit: &[AuditEntry],
    ) -> Result<bool, BackendError>;

    /// Sets the tier of the account `id`'s live keys made from now on, and an
    /// enterprise account's agreed daily limit (`None` for the other tiers).
    async fn set_partner_tier(
        &self,
        id: &str,
        tier: Tier,
        daily_limit: Option<u32>,
        audit: &[AuditEntry],
    ) -> Result<(), BackendError>;
}
