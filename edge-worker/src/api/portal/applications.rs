//! Applying: an application's fields checked, its passkey registered, the account
//! made (waiting for the operator) and signed in.
//!
//! An application is accepted the same way whoever sends it: answers do not tell
//! whether an email is known (the operator sees duplicates).

use serde_json::{Map, Value};

use super::accounts::{own_entry, start_session};
use super::ceremonies::{CeremonyError, RelyingParty};
use super::handler_io::{
    Answer, Caller, CeremonyCredential, ceremony_started, registration_refused, take,
};
use super::random;
use crate::api::access::keys::Tier;
use crate::api::backend::Backend as PortalBackend;
use crate::api::partners::store::{CeremonyKind, Partner, PartnerStatus, Passkey, Role};
use crate::api::{ApiError, ErrorCode};

/// Longest organisation name accepted, in characters.
pub const MAX_ORGANISATION: usize = 200;
/// Longest email address accepted, in characters (RFC 5321's path limit).
pub const MAX_EMAIL: usize = 254;
/// Longest description of the intended use, in characters.
pub const MAX_INTENDED_USE: usize = 2_000;

/// The fields of an application, checked (each trimmed, without control or format
/// characters such as direction overrides and zero-width characters).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema), schemars(inline))]
pub struct Application {
    /// Organisation name.
    #[cfg_attr(test, schemars(length(min = 1, max = MAX_ORGANISATION)))]
    pub organisation: String,
    /// Contact email: an address with a domain that has a dot.
    #[cfg_attr(test, schemars(length(min = 1, max = MAX_EMAIL)))]
    pub email: String,
    /// What the organisation means to use the APIs for.
    #[cfg_attr(test, schemars(length(min = 1, max = MAX_INTENDED_USE)))]
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
    if value.chars().count() > max || super::text::has_hidden(value) {
        return Err(ApiError::new(
            ErrorCode::InvalidRequest,
            format!(
                "`{name}` must be at most {max} characters, without control or format \
                 characters (direction overrides, zero-width characters)"
            ),
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
    let started = rp.start_registration(
        (id, CeremonyKind::Application),
        (&user, &[]),
        (&application.email, &application.organisation),
        caller.now,
    );
    let pending = serde_json::to_string(&application).ok();
    ceremony_started(backend, started, pending, caller.now).await
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
    let CeremonyCredential {
        ceremony: id,
        credential,
    } = CeremonyCredential::parse(body)?;
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
            backend.log_refusal("portal", &format!("application refused: {e}"));
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
    super::passkeys::not_registered(backend, &passkey).await?;
    let applied = own_entry(&partner.id, ("applied", None), caller);
    backend
        .create_partner(&partner, &passkey, &[applied])
        .await
        .map_err(super::stored(backend))?;
    let mut answer = start_session(backend, &partner, &passkey.credential_id, caller, &[]).await?;
    answer.status = http::StatusCode::CREATED;
    Ok(answer)
}
