//! The portal against its store's SQL on SQLite and a software authenticator: what
//! the suites share (requests at a chosen time, applying, signing in).

mod account_quota;
mod accounts;
mod attacks;
mod hostile;
mod lifecycle;
mod openapi;
mod operator;
mod page;
mod partner_keys;
mod passkeys;
mod rate_limits;
mod requests;
mod usage;

use bytes::Bytes;
use chrono::{DateTime, Utc};
use http::{Method, Request, Response};
use serde_json::{Value, json};

use super::sessions;
use crate::api::test_support::{MemoryBackend, PORTAL_ORIGIN, SoftAuthenticator, now};

/// A portal request at `at`, from the portal's own page unless `origin` says
/// otherwise, with the session cookie `session` if given.
pub(super) struct Call<'a> {
    pub(super) method: Method,
    pub(super) path: &'a str,
    pub(super) body: Option<Value>,
    pub(super) at: DateTime<Utc>,
    pub(super) origin: Option<&'a str>,
    pub(super) session: Option<&'a str>,
    /// The client's address (`CF-Connecting-IP`).
    pub(super) address: Option<String>,
}

impl<'a> Call<'a> {
    pub(super) fn new(method: Method, path: &'a str, body: Option<Value>) -> Self {
        Self {
            method,
            path,
            body,
            at: now(),
            origin: Some(PORTAL_ORIGIN),
            session: None,
            address: Some("203.0.113.9".to_owned()),
        }
    }

    pub(super) fn send(&self, backend: &MemoryBackend) -> (u16, Value, Response<Bytes>) {
        let mut builder = Request::builder()
            .method(self.method.clone())
            .uri(self.path);
        if let Some(address) = &self.address {
            builder = builder.header("cf-connecting-ip", address.as_str());
        }
        if let Some(origin) = self.origin {
            builder = builder.header("origin", origin);
        }
        if let Some(id) = self.session {
            builder = builder.header("cookie", format!("{}={id}", sessions::COOKIE));
        }
        let body = match &self.body {
            Some(b) => {
                builder = builder.header("content-type", "application/json");
                Bytes::from(b.to_string())
            }
            None => Bytes::new(),
        };
        let answer = futures_executor::block_on(super::handle(
            &builder.body(body).unwrap(),
            self.at,
            backend,
        ));
        let value = serde_json::from_slice(answer.body()).unwrap_or(Value::Null);
        (answer.status().as_u16(), value, answer)
    }
}

pub(super) fn application() -> Value {
    json!({ "organisation": "Transit Co", "email": "ops@transit.example", "intended_use": "night routes" })
}

/// The session id a response's `Set-Cookie` hands out.
pub(super) fn session_of(response: &Response<Bytes>) -> String {
    let cookie = response.headers()["set-cookie"].to_str().unwrap();
    let value = cookie.split(';').next().unwrap();
    value.split_once('=').unwrap().1.to_owned()
}

/// Applies with `device`; returns the session id.
pub(super) fn apply(backend: &MemoryBackend, device: &mut SoftAuthenticator) -> String {
    let (status, options, _) = Call::new(
        Method::POST,
        "/portal/api/applications/options",
        Some(application()),
    )
    .send(backend);
    assert_eq!(status, 200, "{options}");
    let credential = device.create(&options["publicKey"]);
    let (status, account, answer) = Call::new(
        Method::POST,
        "/portal/api/applications",
        Some(json!({ "ceremony": options["ceremony"], "credential": credential })),
    )
    .send(backend);
    assert_eq!(status, 201, "{account}");
    assert_eq!(account["status"], "applied");
    session_of(&answer)
}

/// Applies with `device`; returns the session id and the new account's id.
pub(super) fn apply_as(
    backend: &MemoryBackend,
    device: &mut SoftAuthenticator,
) -> (String, String) {
    let session = apply(backend, device);
    let digest = sessions::digest(&session);
    let id = backend.tables().sessions[&digest].partner_id.clone();
    (session, id)
}

/// Makes the account `id` the operator, approved, as `scripts/operator.mjs operator`
/// makes one.
pub(super) fn make_operator(backend: &MemoryBackend, id: &str) {
    backend.portal_db.exec(
        "UPDATE partners SET role = 'operator', status = 'approved' WHERE id = ?1",
        &[id.into()],
    );
}

/// Signs in with `device`: the status, body and answer.
pub(super) fn sign_in(
    backend: &MemoryBackend,
    device: &mut SoftAuthenticator,
    at: DateTime<Utc>,
) -> (u16, Value, Response<Bytes>) {
    let mut start = Call::new(Method::POST, "/portal/api/sessions/options", None);
    start.at = at;
    let (status, options, _) = start.send(backend);
    assert_eq!(status, 200, "{options}");
    let assertion = device.get(&options["publicKey"]);
    let mut finish = Call::new(
        Method::POST,
        "/portal/api/sessions",
        Some(json!({ "ceremony": options["ceremony"], "credential": assertion })),
    );
    finish.at = at;
    finish.send(backend)
}

pub(super) fn me(backend: &MemoryBackend, session: &str, at: DateTime<Utc>) -> (u16, Value) {
    let mut call = Call::new(Method::GET, "/portal/api/me", None);
    call.session = Some(session);
    call.at = at;
    let (status, body, _) = call.send(backend);
    (status, body)
}
