//! The two `WebAuthn` ceremonies of the portal, over `passki` (a pure-Rust relying
//! party on `RustCrypto`: it checks the type, challenge and origin of the client
//! data, the relying party id hash, user presence and verification, the signature
//! counter and the signature). `passki` reads no clock: each ceremony's expiry is
//! kept beside its state in the store and checked here.
//!
//! Both ceremonies require user verification and a discoverable credential, so
//! that signing in needs no user name: the passkey names its account.

use chrono::{DateTime, TimeDelta, Utc};
use passki::{
    AuthenticationCredential, AuthenticationOptions, AuthenticationResult, AuthenticationState,
    Passki, RegistrationCredential, RegistrationOptions, RegistrationState, ResidentKeyRequirement,
    StoredPasskey, UserVerificationRequirement,
};
use serde_json::Value;

use crate::api::partners::config::{PortalConfig, RP_NAME};
use crate::api::partners::store::{Ceremony, CeremonyKind};

/// How long a client has to answer a ceremony (also the timeout the browser is
/// given).
pub const CEREMONY_LIFETIME: TimeDelta = TimeDelta::minutes(5);

/// Why a ceremony failed. The details stay in the server: a client learns only
/// that it failed.
#[derive(Debug, thiserror::Error)]
pub enum CeremonyError {
    /// No such ceremony, or a ceremony of another kind.
    #[error("no such ceremony")]
    Unknown,
    /// The ceremony expired.
    #[error("the ceremony expired")]
    Expired,
    /// The client's answer is not a credential of the expected shape.
    #[error("malformed credential: {0}")]
    Malformed(String),
    /// The relying party refused the credential.
    #[error("refused: {0}")]
    Refused(String),
    /// The stored state could not be read back.
    #[error("stored state: {0}")]
    Stored(String),
}

/// The relying party of one portal origin.
pub struct RelyingParty {
    passki: Passki,
}

impl RelyingParty {
    /// The relying party of `config`'s origin.
    #[must_use]
    pub fn new(config: &PortalConfig) -> Self {
        Self {
            passki: Passki::new(&config.rp_id, &[config.origin.as_str()], RP_NAME),
        }
    }

    /// Starts registering a discoverable, user-verified passkey for the account with
    /// user handle `user` (at least 16 bytes) and the passkeys `existing`: the options for
    /// `navigator.credentials.create()` and the ceremony to keep.
    ///
    /// # Errors
    /// [`CeremonyError::Refused`] for a short user handle.
    pub fn start_registration(
        &self,
        (id, kind): (String, CeremonyKind),
        (user, existing): (&[u8], &[StoredPasskey]),
        (name, display_name): (&str, &str),
        now: DateTime<Utc>,
    ) -> Result<(Value, Ceremony), CeremonyError> {
        let mut options = RegistrationOptions::default();
        // The authenticator refuses to make a second passkey where one of these is.
        options.exclude_credentials = Some(existing);
        options.timeout = CEREMONY_LIFETIME.num_milliseconds().unsigned_abs();
        options.resident_key = ResidentKeyRequirement::Required;
        options.user_verification = UserVerificationRequirement::Required;
        let (challenge, state) = self
            .passki
            .start_passkey_registration(user, name, display_name, options)
            .map_err(|e| CeremonyError::Refused(e.to_string()))?;
        started(&challenge, (id, kind), &state, now)
    }

    /// Verifies the credential `navigator.credentials.create()` made for
    /// `ceremony` (its `toJSON()`); returns the passkey to store.
    ///
    /// # Errors
    /// [`CeremonyError`]: expired, malformed or refused.
    pub fn finish_registration(
        &self,
        ceremony: &Ceremony,
        credential: &Value,
        now: DateTime<Utc>,
    ) -> Result<StoredPasskey, CeremonyError> {
        let state: RegistrationState = live_state(ceremony, now)?;
        let credential = RegistrationCredential::deserialize_from(credential)?;
        self.passki
            .finish_passkey_registration(&credential, &state)
            .map_err(|e| CeremonyError::Refused(e.to_string()))
    }

    /// Starts a sign-in with any discoverable passkey of this relying party.
    ///
    /// # Errors
    /// [`CeremonyError::Refused`] if the relying party cannot start one.
    pub fn start_sign_in(
        &self,
        id: String,
        now: DateTime<Utc>,
    ) -> Result<(Value, Ceremony), CeremonyError> {
        let mut options = AuthenticationOptions::default();
        options.timeout = CEREMONY_LIFETIME.num_milliseconds().unsigned_abs();
        options.user_verification = UserVerificationRequirement::Required;
        let (challenge, state) = self
            .passki
            .start_passkey_authentication(&[], options)
            .map_err(|e| CeremonyError::Refused(e.to_string()))?;
        started(&challenge, (id, CeremonyKind::SignIn), &state, now)
    }

    /// The credential id (base64url) of a sign-in answer, to find its passkey.
    ///
    /// # Errors
    /// [`CeremonyError::Malformed`] when the answer is not an assertion.
    pub fn credential_id(credential: &Value) -> Result<String, CeremonyError> {
        AuthenticationCredential::deserialize_from(credential).map(|c| c.raw_id)
    }

    /// Verifies the assertion `navigator.credentials.get()` made for `ceremony`
    /// with the passkey it names.
    ///
    /// # Errors
    /// [`CeremonyError`]: expired, malformed or refused (a wrong signature, a
    /// counter that went back, another origin...).
    pub fn finish_sign_in(
        &self,
        ceremony: &Ceremony,
        credential: &Value,
        passkey: &StoredPasskey,
        now: DateTime<Utc>,
    ) -> Result<AuthenticationResult, CeremonyError> {
        let state: AuthenticationState = live_state(ceremony, now)?;
        let credential = AuthenticationCredential::deserialize_from(credential)?;
        self.passki
            .finish_passkey_authentication(&credential, &state, passkey)
            .map_err(|e| CeremonyError::Refused(e.to_string()))
    }
}

/// Reads a client's JSON answer into one of passki's types.
trait FromClient: Sized {
    fn deserialize_from(value: &Value) -> Result<Self, CeremonyError>;
}

impl<T: serde::de::DeserializeOwned> FromClient for T {
    fn deserialize_from(value: &Value) -> Result<Self, CeremonyError> {
        serde_json::from_value(value.clone()).map_err(|e| CeremonyError::Malformed(e.to_string()))
    }
}

/// A ceremony started at `now`: the options the browser is sent (`challenge`) and
/// the ceremony to keep, holding the relying party's `state` until it ends.
fn started(
    challenge: &impl serde::Serialize,
    (id, kind): (String, CeremonyKind),
    state: &impl serde::Serialize,
    now: DateTime<Utc>,
) -> Result<(Value, Ceremony), CeremonyError> {
    let ceremony = Ceremony {
        id,
        kind,
        state: to_json(state)?,
        pending: None,
        expires_at: now + CEREMONY_LIFETIME,
    };
    Ok((
        serde_json::to_value(challenge).unwrap_or_default(),
        ceremony,
    ))
}

fn to_json<T: serde::Serialize>(state: &T) -> Result<String, CeremonyError> {
    serde_json::to_string(state).map_err(|e| CeremonyError::Stored(e.to_string()))
}

/// The state of a ceremony that has not expired.
fn live_state<T: serde::de::DeserializeOwned>(
    ceremony: &Ceremony,
    now: DateTime<Utc>,
) -> Result<T, CeremonyError> {
    if now >= ceremony.expires_at {
        return Err(CeremonyError::Expired);
    }
    serde_json::from_str(&ceremony.state).map_err(|e| CeremonyError::Stored(e.to_string()))
}
