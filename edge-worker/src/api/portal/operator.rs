//! The operator's part of the portal: every account and application, the decisions
//! on them, their tiers, and the whole audit log. Only a signed-in account with the
//! operator role (granted by `scripts/operator.mjs`, never here) reaches it; the same
//! decisions and tiers are open to `scripts/operator.mjs` (`DECISIONS`, `TIER_LIMITS`),
//! and `tests/api/portal.test.mjs` checks that the two agree.

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::{Map, Value};

use super::accounts::{self, Account};
use super::handler_io::{Answer, Caller};
use crate::api::access::keys::Tier;
use crate::api::backend::Backend;
use crate::api::partners::store::{AuditEntry, Partner, PartnerStatus, Role};
use crate::api::plumbing::input;
use crate::api::{ApiError, ErrorCode};

/// Largest enterprise daily limit the operator may set.
pub const MAX_DAILY_LIMIT: u32 = 100_000_000;

/// Audit lines a request may ask for at most (`?limit=`), and by default.
pub const MAX_AUDIT_LINES: u32 = 500;
const DEFAULT_AUDIT_LINES: u32 = 100;

/// An operator's decision on an account.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Approve an application, or reinstate a suspended account.
    Approve,
    /// Reject an application.
    Reject,
    /// Suspend an approved account: every key of it stops within the record TTL.
    Suspend,
}

impl Decision {
    /// Every decision, in the order the page offers them.
    pub const ALL: [Self; 3] = [Self::Approve, Self::Reject, Self::Suspend];

    /// The wire name.
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            Self::Approve => "approve",
            Self::Reject => "reject",
            Self::Suspend => "suspend",
        }
    }

    /// The status it leaves the account in.
    #[must_use]
    pub const fn to(self) -> PartnerStatus {
        match self {
            Self::Approve => PartnerStatus::Approved,
            Self::Reject => PartnerStatus::Rejected,
            Self::Suspend => PartnerStatus::Suspended,
        }
    }

    /// The statuses it applies to.
    #[must_use]
    pub const fn from(self) -> &'static [PartnerStatus] {
        match self {
            Self::Approve => &[PartnerStatus::Applied, PartnerStatus::Suspended],
            Self::Reject => &[PartnerStatus::Applied],
            Self::Suspend => &[PartnerStatus::Approved],
        }
    }
}

/// Its wire names, as an enum of strings.
#[cfg(test)]
impl schemars::JsonSchema for Decision {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Decision".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "string", "enum": Self::ALL.map(Self::code) })
    }
}

/// The operator's decision on an account.
#[derive(Debug)]
#[cfg_attr(test, derive(schemars::JsonSchema), schemars(inline))]
pub struct DecisionRequest {
    /// Approve an application (or reinstate a suspended account), reject an
    /// application, or suspend an approved account.
    pub decision: Decision,
}

impl DecisionRequest {
    /// The decision of a request's body.
    ///
    /// # Errors
    /// `INVALID_REQUEST` naming `decision` for anything but a decision's name.
    pub fn parse(body: &Map<String, Value>) -> Result<Self, ApiError> {
        let named = body.get("decision").and_then(Value::as_str).unwrap_or("");
        Decision::ALL
            .into_iter()
            .find(|d| d.code() == named)
            .map(|decision| Self { decision })
            .ok_or_else(|| {
                ApiError::new(
                    ErrorCode::InvalidRequest,
                    "decision must be approve, reject or suspend",
                )
                .with("field", "decision")
            })
    }
}

/// The tier the operator sets for an account's live keys.
#[derive(Debug)]
#[cfg_attr(test, derive(schemars::JsonSchema), schemars(inline))]
pub struct TierRequest {
    /// The tier of the account's live keys made from now on.
    pub tier: Tier,
    /// The enterprise tier's agreed daily limit: required with `enterprise`, absent
    /// or null with the other tiers, which have their own.
    #[cfg_attr(test, schemars(range(min = 1, max = MAX_DAILY_LIMIT)))]
    pub daily_limit: Option<u32>,
}

impl TierRequest {
    /// The tier and limit of a request's body.
    ///
    /// # Errors
    /// `INVALID_REQUEST` naming `tier` for an unknown tier, or `daily_limit` when it
    /// is missing or out of range for an enterprise account, or given for another
    /// tier.
    pub fn parse(body: &Map<String, Value>) -> Result<Self, ApiError> {
        let tier = body
            .get("tier")
            .and_then(Value::as_str)
            .and_then(Tier::parse)
            .ok_or_else(|| {
                ApiError::new(
                    ErrorCode::InvalidRequest,
                    "tier must be sandbox, partner or enterprise",
                )
                .with("field", "tier")
            })?;
        let limit = body.get("daily_limit").filter(|v| !v.is_null());
        let daily_limit = match (tier, limit) {
            (Tier::Enterprise, Some(value)) => Some(
                value
                    .as_u64()
                    .and_then(|n| u32::try_from(n).ok())
                    .filter(|n| (1..=MAX_DAILY_LIMIT).contains(n))
                    .ok_or_else(|| {
                        bad_limit("daily_limit must be a whole number from 1 to 100000000")
                    })?,
            ),
            (Tier::Enterprise, None) => {
                return Err(bad_limit(
                    "the enterprise tier needs its agreed daily_limit",
                ));
            }
            (_, Some(_)) => {
                return Err(bad_limit(
                    "only the enterprise tier takes a daily_limit; the others have their own",
                ));
            }
            (_, None) => None,
        };
        Ok(Self { tier, daily_limit })
    }
}

/// The operator's signed-in account: made only by `signed_in`, which the portal
/// calls for every route the route table marks `OperatorSession`, so an operator
/// handler cannot be reached without it.
#[derive(Debug)]
pub struct Operator(Partner);

/// The signed-in account, if it is the operator's.
///
/// # Errors
/// `UNAUTHORIZED` without a live session, `FORBIDDEN` for a partner's,
/// `INTERNAL_ERROR` when storage fails.
pub(crate) async fn signed_in<B: Backend>(
    backend: &B,
    caller: &Caller<'_>,
) -> Result<Operator, ApiError> {
    let (_, account) = accounts::signed_in(backend, caller).await?;
    if account.role == Role::Operator {
        Ok(Operator(account))
    } else {
        Err(ApiError::new(
            ErrorCode::Forbidden,
            "only the operator may do this",
        ))
    }
}

fn no_such_account(id: &str) -> ApiError {
    ApiError::new(ErrorCode::NotFound, "no such account").with("id", id)
}

/// A partner's account by id: an operator's own account is not decided here.
async fn partner_account<B: Backend>(backend: &B, id: &str) -> Result<Partner, ApiError> {
    backend
        .partner(id)
        .await
        .map_err(super::stored(backend))?
        .filter(|p| p.role == Role::Partner)
        .ok_or_else(|| no_such_account(id))
}

/// An account as the operator sees it: also what it applied for, and its agreed
/// limit.
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct ListedAccount {
    /// The account.
    #[serde(flatten)]
    pub account: Account,
    /// What it means to use the APIs for, as applied.
    pub intended_use: String,
    /// An enterprise account's agreed daily limit; null otherwise.
    pub daily_limit: Option<u32>,
}

impl ListedAccount {
    fn of(partner: &Partner) -> Self {
        Self {
            account: Account::of(partner),
            intended_use: partner.intended_use.clone(),
            daily_limit: partner.daily_limit,
        }
    }
}

/// A page of the operator's list of accounts.
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema), schemars(inline))]
pub struct PartnersPage {
    /// Accounts, oldest first.
    pub partners: Vec<ListedAccount>,
    /// The cursor of the following page; null after the last
    pub next: Option<String>,
}

/// The whole audit log, newest first.
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema), schemars(inline))]
pub struct AuditLog {
    /// Its lines, as stored.
    pub audit: Vec<AuditEntry>,
}

/// Accounts a page of the operator's list holds, by default.
pub const DEFAULT_PAGE: u32 = 100;

/// Most accounts a page holds.
pub const MAX_PAGE: u32 = 500;

/// The cursor of the page after `partner`: its creation time and id, as text.
fn cursor_of(partner: &Partner) -> String {
    format!("{}_{}", partner.created_at.timestamp_millis(), partner.id)
}

/// What a cursor is written as: the creation time of the last account of a page,
/// in milliseconds since 1970, and its id ([`parse_cursor`]).
pub const CURSOR_PATTERN: &str = "^[+-]?[0-9]+_[0-9A-Fa-f]{1,64}$";

/// The account a cursor names (its creation time and id), or why it is not one.
fn parse_cursor(text: &str) -> Option<(DateTime<Utc>, &str)> {
    let (millis, id) = text.split_once('_')?;
    let at = DateTime::from_timestamp_millis(millis.parse().ok()?)?;
    (!id.is_empty() && id.len() <= 64 && id.bytes().all(|b| b.is_ascii_hexdigit()))
        .then_some((at, id))
}

/// `GET /portal/api/operator/partners?limit=N&after=CURSOR`: accounts, oldest
/// first, `N` a page (1 to [`MAX_PAGE`], [`DEFAULT_PAGE`] by default); `next` is the
/// cursor of the following page, `null` after the last.
///
/// # Errors
/// `UNAUTHORIZED` without a session, `FORBIDDEN` for a partner's, `INVALID_REQUEST`
/// naming `limit` or `after`, `INTERNAL_ERROR` when storage fails.
pub async fn partners<B: Backend>(
    backend: &B,
    query: Option<&str>,
    _: &Operator,
) -> Result<Answer, ApiError> {
    let PartnersQuery { limit, after } = PartnersQuery::parse(query)?;
    let after = after.as_deref().and_then(parse_cursor);
    // One more than the page, to know whether another follows.
    let mut page = backend
        .partners_page(after, limit + 1)
        .await
        .map_err(super::stored(backend))?;
    let more = page.len() > limit as usize;
    page.truncate(limit as usize);
    let next = page.last().filter(|_| more).map(cursor_of);
    Ok(Answer::ok(&PartnersPage {
        partners: page.iter().map(ListedAccount::of).collect(),
        next,
    }))
}

/// What the operator's list of accounts asks for.
#[derive(Debug)]
#[cfg_attr(test, derive(schemars::JsonSchema), schemars(inline))]
pub struct PartnersQuery {
    /// Accounts a page holds.
    #[cfg_attr(test, schemars(default = "default_page", range(min = 1, max = MAX_PAGE)))]
    pub limit: u32,
    /// The `next` of the page before
    #[cfg_attr(test, schemars(pattern(CURSOR_PATTERN), extend("type" = "string")))]
    pub after: Option<String>,
}

#[cfg(test)]
const fn default_page() -> u32 {
    DEFAULT_PAGE
}

impl PartnersQuery {
    /// The page a query string asks for: [`DEFAULT_PAGE`] accounts from the first
    /// unless it says otherwise.
    ///
    /// # Errors
    /// `INVALID_REQUEST` naming `limit` when it is not a whole number from 1 to
    /// [`MAX_PAGE`], or `after` when it is not a cursor.
    pub fn parse(query: Option<&str>) -> Result<Self, ApiError> {
        let pairs = input::query_pairs(query);
        let limit = input::query_count(&pairs, "limit", (DEFAULT_PAGE, MAX_PAGE))?;
        let after = match input::query_param(&pairs, "after") {
            None => None,
            Some(text) if parse_cursor(text).is_some() => Some(text.to_owned()),
            Some(_) => {
                return Err(ApiError::new(
                    ErrorCode::InvalidRequest,
                    "`after` must be the `next` of the page before",
                )
                .with("field", "after"));
            }
        };
        Ok(Self { limit, after })
    }
}

/// `POST /portal/api/operator/partners/{id}/decision` `{decision}`: approves,
/// rejects or suspends an account, with its audit line.
///
/// # Errors
/// As [`partners`]; `NOT_FOUND` for no such partner account; `INVALID_REQUEST` for
/// an unknown decision or one that does not apply to the account's status.
pub async fn decide<B: Backend>(
    backend: &B,
    id: &str,
    body: &Map<String, Value>,
    (Operator(operator), caller): (&Operator, &Caller<'_>),
) -> Result<Answer, ApiError> {
    let DecisionRequest { decision } = DecisionRequest::parse(body)?;
    let mut account = partner_account(backend, id).await?;
    let line = accounts::entry((id, &operator.id), (decision.to().code(), None), caller);
    let changed = backend
        .set_partner_status(id, decision.from(), decision.to(), &[line])
        .await
        .map_err(super::stored(backend))?;
    if !changed {
        return Err(ApiError::new(
            ErrorCode::InvalidRequest,
            format!(
                "an account that is {} cannot be given that decision",
                account.status.code()
            ),
        )
        .with("field", "decision")
        .with("status", account.status.code()));
    }
    // A suspended or rejected account is signed out at once, everywhere.
    if accounts::may_sign_in(&Partner {
        status: decision.to(),
        ..account.clone()
    })
    .is_err()
    {
        backend
            .end_sessions(id, None, caller.now, &[])
            .await
            .map_err(super::stored(backend))?;
    }
    account.status = decision.to();
    Ok(Answer::ok(&ListedAccount::of(&account)))
}

/// `POST /portal/api/operator/partners/{id}/tier` `{tier, daily_limit}`: the tier
/// of the account's live keys made from now on, an enterprise one with its agreed
/// daily limit (1 to [`MAX_DAILY_LIMIT`]; no limit for the other tiers).
///
/// # Errors
/// As [`decide`], `INVALID_REQUEST` naming `tier` or `daily_limit`.
pub async fn set_tier<B: Backend>(
    backend: &B,
    id: &str,
    body: &Map<String, Value>,
    (Operator(operator), caller): (&Operator, &Caller<'_>),
) -> Result<Answer, ApiError> {
    let TierRequest { tier, daily_limit } = TierRequest::parse(body)?;
    let mut account = partner_account(backend, id).await?;
    let line = accounts::entry((id, &operator.id), ("tier_set", Some(tier.code())), caller);
    backend
        .set_partner_tier(id, tier, daily_limit, &[line])
        .await
        .map_err(super::stored(backend))?;
    account.tier = tier;
    account.daily_limit = daily_limit;
    Ok(Answer::ok(&ListedAccount::of(&account)))
}

fn bad_limit(message: &str) -> ApiError {
    ApiError::new(ErrorCode::InvalidRequest, message).with("field", "daily_limit")
}

/// `GET /portal/api/operator/audit?limit=N`: the whole audit log, newest first,
/// `N` lines (1 to [`MAX_AUDIT_LINES`], 100 by default).
///
/// # Errors
/// As [`partners`]; `INVALID_REQUEST` naming `limit`.
pub async fn audit<B: Backend>(
    backend: &B,
    query: Option<&str>,
    _: &Operator,
) -> Result<Answer, ApiError> {
    let AuditQuery { limit } = AuditQuery::parse(query)?;
    let audit = backend
        .audit_all(limit)
        .await
        .map_err(super::stored(backend))?;
    Ok(Answer::ok(&AuditLog { audit }))
}

/// What the operator's audit log asks for.
#[derive(Debug)]
#[cfg_attr(test, derive(schemars::JsonSchema), schemars(inline))]
pub struct AuditQuery {
    /// Lines, newest first.
    #[cfg_attr(
        test,
        schemars(default = "default_audit_lines", range(min = 1, max = MAX_AUDIT_LINES))
    )]
    pub limit: u32,
}

#[cfg(test)]
const fn default_audit_lines() -> u32 {
    DEFAULT_AUDIT_LINES
}

impl AuditQuery {
    /// The lines a query string asks for, 100 when it names none.
    ///
    /// # Errors
    /// `INVALID_REQUEST` naming `limit` when it is not a whole number from 1 to
    /// [`MAX_AUDIT_LINES`].
    pub fn parse(query: Option<&str>) -> Result<Self, ApiError> {
        let pairs = input::query_pairs(query);
        let limit = input::query_count(&pairs, "limit", (DEFAULT_AUDIT_LINES, MAX_AUDIT_LINES))?;
        Ok(Self { limit })
    }
}
