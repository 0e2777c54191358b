//! A software passkey authenticator for the portal's tests: one P-256 credential
//! (ES256), `none` attestation, user present and verified, answering the options
//! the portal sends as a browser's `navigator.credentials` would, in the JSON of
//! `PublicKeyCredential.toJSON()`.

use data_encoding::BASE64URL_NOPAD;
use p256::ecdsa::signature::Signer;
use p256::ecdsa::{Signature, SigningKey};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// User present, user verified.
const FLAGS_UP_UV: u8 = FLAG_UP | FLAG_UV;
/// ... and attested credential data included.
const FLAG_AT: u8 = 0x40;

/// One authenticator holding one credential once created.
pub(crate) struct SoftAuthenticator {
    key: SigningKey,
    credential_id: Vec<u8>,
    /// The account's user handle, learnt at creation.
    pub(crate) user_handle: Option<Vec<u8>>,
    /// The signature counter.
    pub(crate) counter: u32,
    /// The origin it reports in its client data (a browser's page origin).
    pub(crate) origin: String,
}

fn b64(bytes: &[u8]) -> String {
    BASE64URL_NOPAD.encode(bytes)
}

/// The CBOR head of a data item of major type `major` and argument `n`.
fn head(major: u8, n: u64) -> Vec<u8> {
    let major = major << 5;
    match n {
        0..=23 => vec![major | n as u8],
        24..=0xff => vec![major | 0x18, n as u8],
        0x100..=0xffff => [vec![major | 0x19], (n as u16).to_be_bytes().to_vec()].concat(),
        _ => [vec![major | 0x1a], (n as u32).to_be_bytes().to_vec()].concat(),
    }
}

fn cbor_int(n: i64) -> Vec<u8> {
    if n >= 0 {
        head(0, n as u64)
    } else {
        head(1, (-1 - n) as u64)
    }
}

fn cbor_bytes(b: &[u8]) -> Vec<u8> {
    [head(2, b.len() as u64), b.to_vec()].concat()
}

fn cbor_text(t: &str) -> Vec<u8> {
    [head(3, t.len() as u64), t.as_bytes().to_vec()].concat()
}

/// How an assertion departs from an honest one ([`SoftAuthenticator::get_forged`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Forgery {
    /// The authenticator data's flags (honest: user present and verified).
    pub(crate) flags: u8,
    /// The relying party id hashed into the authenticator data (honest: the
    /// options' own).
    pub(crate) rp_id: Option<&'static str>,
    /// The client data's `type` (honest: `webauthn.get`).
    pub(crate) kind: &'static str,
    /// The client data's `crossOrigin` (honest: false).
    pub(crate) cross_origin: bool,
}

impl Default for Forgery {
    fn default() -> Self {
        Self {
            flags: FLAGS_UP_UV,
            rp_id: None,
            kind: "webauthn.get",
            cross_origin: false,
        }
    }
}

/// The user-present flag of the authenticator data.
pub(crate) const FLAG_UP: u8 = 0x01;
/// The user-verified flag of the authenticator data.
pub(crate) const FLAG_UV: u8 = 0x04;

impl SoftAuthenticator {
    /// An authenticator whose key is made from `seed`, on a page of `origin`.
    pub(crate) fn new(seed: u8, origin: &str) -> Self {
        let mut secret = [seed; 32];
        secret[0] = 1;
        Self {
            key: SigningKey::from_slice(&secret).expect("a valid P-256 scalar"),
            credential_id: Sha256::digest([seed, b'c']).to_vec(),
            user_handle: None,
            counter: 0,
            origin: origin.to_owned(),
        }
    }

    fn client_data(&self, kind: &str, challenge: &str, cross_origin: bool) -> Vec<u8> {
        json!({ "type": kind, "challenge": challenge, "origin": self.origin, "crossOrigin": cross_origin })
            .to_string()
            .into_bytes()
    }

    fn auth_data(&self, rp_id: &str, flags: u8, attested: Option<&[u8]>) -> Vec<u8> {
        let mut data = Sha256::digest(rp_id.as_bytes()).to_vec();
        data.push(flags);
        data.extend(self.counter.to_be_bytes());
        if let Some(attested) = attested {
            data.extend(attested);
        }
        data
    }

    /// Answers `navigator.credentials.create({ publicKey: options })`.
    pub(crate) fn create(&mut self, options: &Value) -> Value {
        let rp_id = options["rp"]["id"].as_str().expect("rp.id");
        let user = BASE64URL_NOPAD
            .decode(options["user"]["id"].as_str().expect("user.id").as_bytes())
            .expect("a base64url user id");
        self.user_handle = Some(user);
        let point = self.key.verifying_key().to_sec1_point(false);
        let xy = &point.as_bytes()[1..];
        let cose_key = [
            head(5, 5),
            cbor_int(1),
            cbor_int(2),
            cbor_int(3),
            cbor_int(-7),
            cbor_int(-1),
            cbor_int(1),
            cbor_int(-2),
            cbor_bytes(&xy[..32]),
            cbor_int(-3),
            cbor_bytes(&xy[32..]),
        ]
        .concat();
        let attested = [
            vec![0; 16],
            (self.credential_id.len() as u16).to_be_bytes().to_vec(),
            self.credential_id.clone(),
            cose_key,
        ]
        .concat();
        let auth_data = self.auth_data(rp_id, FLAGS_UP_UV | FLAG_AT, Some(&attested));
        let attestation = [
            head(5, 3),
            cbor_text("fmt"),
            cbor_text("none"),
            cbor_text("attStmt"),
            head(5, 0),
            cbor_text("authData"),
            cbor_bytes(&auth_data),
        ]
        .concat();
        let client_data = self.client_data(
            "webauthn.create",
            options["challenge"].as_str().expect("challenge"),
            false,
        );
        json!({
            "id": b64(&self.credential_id),
            "rawId": b64(&self.credential_id),
            "type": "public-key",
            "authenticatorAttachment": "platform",
            "clientExtensionResults": {},
            "response": {
                "clientDataJSON": b64(&client_data),
                "attestationObject": b64(&attestation),
                "transports": ["internal"],
            },
        })
    }

    /// Answers `navigator.credentials.get({ publicKey: options })` with the
    /// credential it holds, the counter one higher.
    pub(crate) fn get(&mut self, options: &Value) -> Value {
        self.get_forged(options, &Forgery::default())
    }

    /// An assertion signed with the credential's own key, the counter one higher,
    /// but departing from an honest one as `forgery` says: what an attacker with a
    /// rogue client or authenticator could send.
    pub(crate) fn get_forged(&mut self, options: &Value, forgery: &Forgery) -> Value {
        self.counter += 1;
        let rp_id = forgery
            .rp_id
            .unwrap_or_else(|| options["rpId"].as_str().expect("rpId"));
        let auth_data = self.auth_data(rp_id, forgery.flags, None);
        let client_data = self.client_data(
            forgery.kind,
            options["challenge"].as_str().expect("challenge"),
            forgery.cross_origin,
        );
        let signed = [auth_data.clone(), Sha256::digest(&client_data).to_vec()].concat();
        let signature: Signature = self.key.sign(&signed);
        json!({
            "id": b64(&self.credential_id),
            "rawId": b64(&self.credential_id),
            "type": "public-key",
            "authenticatorAttachment": "platform",
            "clientExtensionResults": {},
            "response": {
                "clientDataJSON": b64(&client_data),
                "authenticatorData": b64(&auth_data),
                "signature": b64(signature.to_der().as_bytes()),
                "userHandle": self.user_handle.as_deref().map(b64),
            },
        })
    }
}
