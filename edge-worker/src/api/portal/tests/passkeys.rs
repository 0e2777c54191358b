//! An account's passkeys after the first: added while signed in, removed while
//! another remains, and registered once through an enrolment link.

use chrono::{DateTime, TimeDelta, Utc};
use http::Method;
use serde_json::{Value, json};

use super::super::passkeys::enrolment_digest;
use super::{Call, apply, session_of, sign_in};
use crate::api::partners::rows::time;
use crate::api::test_support::{MemoryBackend, PORTAL_ORIGIN, SoftAuthenticator, now};

fn signed_in<'a>(method: Method, path: &'a str, body: Option<Value>, session: &'a str) -> Call<'a> {
    let mut call = Call::new(method, path, body);
    call.session = Some(session);
    call
}

fn partner_of(backend: &MemoryBackend, session: &str) -> String {
    let (_, me, _) = signed_in(Method::GET, "/portal/api/me", None, session).send(backend);
    me["id"].as_str().unwrap().to_owned()
}

/// An enrolment link of `token` for `partner`, as `scripts/operator.mjs` makes one.
fn enrolment_link(backend: &MemoryBackend, token: &str, partner: &str, expires_at: DateTime<Utc>) {
    backend.portal_db.exec(
        "INSERT INTO enrolments (digest, partner_id, expires_at, used_at) \
         VALUES (?1, ?2, ?3, NULL)",
        &[
            enrolment_digest(token).into(),
            partner.into(),
            time(expires_at),
        ],
    );
}

/// Registers `device` as another passkey of the signed-in account.
fn add(backend: &MemoryBackend, session: &str, device: &mut SoftAuthenticator) -> (u16, Value) {
    let (status, options, _) =
        signed_in(Method::POST, "/portal/api/passkeys/options", None, session).send(backend);
    assert_eq!(status, 200, "{options}");
    // The account's passkeys are excluded, so an authenticator holding one makes none.
    assert_eq!(
        options["publicKey"]["excludeCredentials"]
            .as_array()
            .unwrap()
            .len(),
        backend.tables().passkeys.len()
    );
    let credential = device.create(&options["publicKey"]);
    let body = json!({ "ceremony": options["ceremony"], "credential": credential });
    let (status, answer, _) =
        signed_in(Method::POST, "/portal/api/passkeys", Some(body), session).send(backend);
    (status, answer)
}

#[test]
fn a_partner_adds_a_passkey_signs_in_with_it_and_removes_the_first_but_never_the_last() {
    let backend = MemoryBackend::new();
    let mut laptop = SoftAuthenticator::new(1, PORTAL_ORIGIN);
    let session = apply(&backend, &mut laptop);
    let mut phone = SoftAuthenticator::new(2, PORTAL_ORIGIN);
    assert_eq!(add(&backend, &session, &mut phone).0, 201);
    let (status, _, answer) = sign_in(&backend, &mut phone, now());
    assert_eq!(status, 200);
    let phone_session = session_of(&answer);
    let (_, me, _) = signed_in(Method::GET, "/portal/api/me", None, &phone_session).send(&backend);
    let ids: Vec<String> = me["passkeys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(ids.len(), 2);
    // Another account cannot remove them.
    let mut other = SoftAuthenticator::new(3, PORTAL_ORIGIN);
    let stranger = apply(&backend, &mut other);
    assert_eq!(
        signed_in(
            Method::DELETE,
            &format!("/portal/api/passkeys/{}", ids[0]),
            None,
            &stranger
        )
        .send(&backend)
        .0,
        404
    );
    let (status, _, _) = signed_in(
        Method::DELETE,
        &format!("/portal/api/passkeys/{}", ids[0]),
        None,
        &phone_session,
    )
    .send(&backend);
    assert_eq!(status, 200);
    let (status, last, _) = signed_in(
        Method::DELETE,
        &format!("/portal/api/passkeys/{}", ids[1]),
        None,
        &phone_session,
    )
    .send(&backend);
    assert_eq!(
        (status, last["details"]["reason"].as_str()),
        (400, Some("last_passkey"))
    );
    // The removed passkey no longer signs in; the kept one does.
    assert_eq!(sign_in(&backend, &mut laptop, now()).0, 401);
    assert_eq!(sign_in(&backend, &mut phone, now()).0, 200);
}

#[test]
fn an_enrolment_link_registers_one_passkey_once_before_it_expires() {
    let backend = MemoryBackend::new();
    let mut lost = SoftAuthenticator::new(1, PORTAL_ORIGIN);
    let session = apply(&backend, &mut lost);
    let partner = partner_of(&backend, &session);
    let token = "a-secret-the-operator-printed";
    enrolment_link(&backend, token, &partner, now() + TimeDelta::hours(24));
    let enrol = |device: &mut SoftAuthenticator, token: &str| {
        let (status, options, _) = Call::new(
            Method::POST,
            "/portal/api/enrolments/options",
            Some(json!({ "token": token })),
        )
        .send(&backend);
        if status != 200 {
            return (status, options);
        }
        let credential = device.create(&options["publicKey"]);
        let body = json!({ "ceremony": options["ceremony"], "credential": credential });
        let (status, answer, _) =
            Call::new(Method::POST, "/portal/api/enrolments", Some(body)).send(&backend);
        (status, answer)
    };
    let mut new_device = SoftAuthenticator::new(4, PORTAL_ORIGIN);
    assert_eq!(enrol(&mut new_device, "not-the-secret").0, 400);
    let (status, account) = enrol(&mut new_device, token);
    assert_eq!(status, 201, "{account}");
    assert_eq!(account["id"], partner.as_str());
    assert_eq!(sign_in(&backend, &mut new_device, now()).0, 200);
    // Used once: asked again, refused.
    let mut another = SoftAuthenticator::new(5, PORTAL_ORIGIN);
    assert_eq!(enrol(&mut another, token).0, 400);
    // An expired link.
    enrolment_link(&backend, "expired", &partner, now() - TimeDelta::seconds(1));
    assert_eq!(enrol(&mut another, "expired").0, 400);
    let audit: Vec<(String, Option<String>)> = backend
        .tables()
        .audit
        .iter()
        .map(|e| (e.action.clone(), e.subject.clone()))
        .collect();
    assert!(audit.contains(&("passkey_added".to_owned(), Some("enrolment".to_owned()))));
}

#[test]
fn two_ceremonies_started_from_one_link_register_one_passkey() {
    let backend = MemoryBackend::new();
    let mut first = SoftAuthenticator::new(1, PORTAL_ORIGIN);
    let session = apply(&backend, &mut first);
    let partner = partner_of(&backend, &session);
    let token = "one-link";
    enrolment_link(&backend, token, &partner, now() + TimeDelta::hours(1));
    let start = || {
        let (status, options, _) = Call::new(
            Method::POST,
            "/portal/api/enrolments/options",
            Some(json!({ "token": token })),
        )
        .send(&backend);
        assert_eq!(status, 200);
        options
    };
    let (a, b) = (start(), start());
    let finish = |options: &Value, seed: u8| {
        let credential = SoftAuthenticator::new(seed, PORTAL_ORIGIN).create(&options["publicKey"]);
        let body = json!({ "ceremony": options["ceremony"], "credential": credential });
        Call::new(Method::POST, "/portal/api/enrolments", Some(body))
            .send(&backend)
            .0
    };
    assert_eq!(finish(&a, 6), 201);
    assert_eq!(finish(&b, 7), 400);
    assert_eq!(
        backend.tables().passkeys.len(),
        2,
        "the application's and one enrolled"
    );
}
