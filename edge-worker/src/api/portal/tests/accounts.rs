//! The account flows: apply, sign in, the session, sign out, and every refusal.

use chrono::TimeDelta;
use http::Method;
use serde_json::{Value, json};

use super::super::sessions;
use super::{Call, application, apply, me, session_of, sign_in};
use crate::api::test_support::{MemoryBackend, PORTAL_ORIGIN, SoftAuthenticator, now};

#[test]
fn a_partner_applies_signs_in_and_out_with_a_passkey() {
    let backend = MemoryBackend::new();
    let mut device = SoftAuthenticator::new(7, PORTAL_ORIGIN);
    let applied = apply(&backend, &mut device);
    let (status, account) = me(&backend, &applied, now());
    assert_eq!(status, 200, "{account}");
    assert_eq!(account["organisation"], "Transit Co");
    assert_eq!(account["status"], "applied");
    assert_eq!(account["passkeys"].as_array().unwrap().len(), 1);

    let later = now() + TimeDelta::hours(1);
    let (status, body, answer) = sign_in(&backend, &mut device, later);
    assert_eq!(status, 200, "{body}");
    let cookie = answer.headers()["set-cookie"].to_str().unwrap();
    for attribute in [
        "__Host-hexrisk-session=",
        "Secure",
        "HttpOnly",
        "SameSite=Strict",
        "Path=/",
    ] {
        assert!(cookie.contains(attribute), "{cookie}");
    }
    let session = session_of(&answer);
    assert_ne!(session, applied);
    // Only the digest is stored.
    let tables = backend.tables();
    assert!(tables.sessions.contains_key(&sessions::digest(&session)));
    assert!(!tables.sessions.contains_key(&session));
    let stored: Value = serde_json::from_str(&tables.passkeys[0].stored).unwrap();
    assert_eq!(stored["counter"], 1, "the signature counter is kept");
    drop(tables);

    let (status, account) = me(&backend, &session, later);
    assert_eq!(status, 200);
    let actions: Vec<&str> = account["audit"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["action"].as_str().unwrap())
        .collect();
    assert_eq!(actions, ["signed_in", "applied"]);
    assert_eq!(account["audit"][0]["address"], "203.0.113.9");

    let mut out = Call::new(Method::DELETE, "/portal/api/sessions/current", None);
    out.session = Some(&session);
    out.at = later;
    let (status, _, answer) = out.send(&backend);
    assert_eq!(status, 200);
    assert!(
        answer.headers()["set-cookie"]
            .to_str()
            .unwrap()
            .contains("Max-Age=0")
    );
    // The id no longer works, wherever it is presented.
    assert_eq!(me(&backend, &session, later).0, 401);
}

#[test]
fn every_failed_sign_in_gets_the_same_answer() {
    let backend = MemoryBackend::new();
    let mut device = SoftAuthenticator::new(7, PORTAL_ORIGIN);
    apply(&backend, &mut device);
    let mut failures = Vec::new();
    // An unknown passkey.
    let mut stranger = SoftAuthenticator::new(8, PORTAL_ORIGIN);
    stranger.user_handle = Some(vec![0; 32]);
    failures.push(sign_in(&backend, &mut stranger, now()));
    // A page of another origin.
    let mut phished = SoftAuthenticator::new(7, "http://localhost:9999");
    phished.user_handle.clone_from(&device.user_handle);
    phished.counter = 10;
    failures.push(sign_in(&backend, &mut phished, now()));
    // A clone whose counter went back.
    assert_eq!(sign_in(&backend, &mut device, now()).0, 200);
    let mut clone = SoftAuthenticator::new(7, PORTAL_ORIGIN);
    clone.user_handle.clone_from(&device.user_handle);
    failures.push(sign_in(&backend, &mut clone, now()));
    // A ceremony answered too late.
    let (_, options, _) =
        Call::new(Method::POST, "/portal/api/sessions/options", None).send(&backend);
    let assertion = device.get(&options["publicKey"]);
    let mut late = Call::new(
        Method::POST,
        "/portal/api/sessions",
        Some(json!({ "ceremony": options["ceremony"], "credential": assertion })),
    );
    late.at = now() + super::super::ceremonies::CEREMONY_LIFETIME;
    failures.push(late.send(&backend));
    for (status, body, answer) in &failures {
        assert_eq!(*status, 401, "{body}");
        assert_eq!(body["code"], "UNAUTHORIZED");
        assert_eq!(body["message"], "sign-in failed");
        assert!(!answer.headers().contains_key("set-cookie"));
    }
    assert_eq!(
        backend.tables().sessions.len(),
        2,
        "the application's and one sign-in's"
    );
}

#[test]
fn a_ceremony_is_finished_at_most_once() {
    let backend = MemoryBackend::new();
    let mut device = SoftAuthenticator::new(7, PORTAL_ORIGIN);
    let (_, options, _) = Call::new(
        Method::POST,
        "/portal/api/applications/options",
        Some(application()),
    )
    .send(&backend);
    let credential = device.create(&options["publicKey"]);
    let finish = Call::new(
        Method::POST,
        "/portal/api/applications",
        Some(json!({ "ceremony": options["ceremony"], "credential": credential })),
    );
    assert_eq!(finish.send(&backend).0, 201);
    let (status, body, _) = finish.send(&backend);
    assert_eq!(status, 400, "{body}");
    assert_eq!(backend.tables().partners.len(), 1);
}

#[test]
fn a_new_sign_in_ends_the_session_it_replaces_and_idle_sessions_end() {
    let backend = MemoryBackend::new();
    let mut device = SoftAuthenticator::new(7, PORTAL_ORIGIN);
    let first = apply(&backend, &mut device);
    let mut start = Call::new(Method::POST, "/portal/api/sessions/options", None);
    start.session = Some(&first);
    let (_, options, _) = start.send(&backend);
    let assertion = device.get(&options["publicKey"]);
    let mut finish = Call::new(
        Method::POST,
        "/portal/api/sessions",
        Some(json!({ "ceremony": options["ceremony"], "credential": assertion })),
    );
    finish.session = Some(&first);
    let (status, _, answer) = finish.send(&backend);
    assert_eq!(status, 200);
    let second = session_of(&answer);
    assert_eq!(
        me(&backend, &first, now()).0,
        401,
        "the replaced session ended"
    );
    assert_eq!(me(&backend, &second, now()).0, 200);
    // Used within the idle timeout, it lives; idle past it, it ends.
    let minute = TimeDelta::minutes(1);
    assert_eq!(
        me(&backend, &second, now() + sessions::IDLE_TIMEOUT - minute).0,
        200
    );
    assert_eq!(
        me(
            &backend,
            &second,
            now() + sessions::IDLE_TIMEOUT * 2 - minute * 2
        )
        .0,
        200
    );
    assert_eq!(
        me(&backend, &second, now() + sessions::IDLE_TIMEOUT * 3).0,
        401
    );
}

#[test]
fn changes_from_another_origin_are_refused_and_change_nothing() {
    let backend = MemoryBackend::new();
    for origin in [
        None,
        Some("https://evil.example"),
        Some("http://localhost:8788"),
    ] {
        let mut call = Call::new(
            Method::POST,
            "/portal/api/applications/options",
            Some(application()),
        );
        call.origin = origin;
        let (status, body, _) = call.send(&backend);
        assert_eq!(status, 403, "{origin:?}: {body}");
        assert_eq!(body["code"], "FORBIDDEN");
    }
    assert!(backend.tables().ceremonies.is_empty());
}

#[test]
fn applications_are_checked_field_by_field() {
    let backend = MemoryBackend::new();
    let long = "x".repeat(super::super::applications::MAX_ORGANISATION + 1);
    for (body, field) in [
        (
            json!({ "email": "a@b.example", "intended_use": "x" }),
            "organisation",
        ),
        (
            json!({ "organisation": long, "email": "a@b.example", "intended_use": "x" }),
            "organisation",
        ),
        (
            json!({ "organisation": "A", "email": "not an address", "intended_use": "x" }),
            "email",
        ),
        (
            json!({ "organisation": "A", "email": "a@b.example" }),
            "intended_use",
        ),
        (
            json!({ "organisation": "A\u{7}", "email": "a@b.example", "intended_use": "x" }),
            "organisation",
        ),
    ] {
        let (status, answer, _) =
            Call::new(Method::POST, "/portal/api/applications/options", Some(body)).send(&backend);
        assert_eq!(status, 400, "{answer}");
        assert_eq!(answer["details"]["field"], field, "{answer}");
    }
}

#[test]
fn without_a_session_the_account_is_unauthorised_and_unknown_paths_are_not_found() {
    let backend = MemoryBackend::new();
    assert_eq!(me(&backend, &"A".repeat(43), now()).0, 401);
    let (status, _, _) = Call::new(Method::GET, "/portal/api/me", None).send(&backend);
    assert_eq!(status, 401);
    let (status, _, _) = Call::new(Method::GET, "/portal/api/nothing", None).send(&backend);
    assert_eq!(status, 404);
    let (status, _, answer) = Call::new(Method::GET, "/portal/api/sessions", None).send(&backend);
    assert_eq!(status, 405);
    assert_eq!(answer.headers()["allow"], "POST, DELETE");
    let unconfigured = MemoryBackend {
        portal: None,
        ..MemoryBackend::new()
    };
    assert_eq!(
        Call::new(Method::GET, "/portal/api/me", None)
            .send(&unconfigured)
            .0,
        404
    );
}

#[test]
fn a_failing_store_is_an_internal_error_logged_once() {
    let backend = MemoryBackend {
        database_up: false,
        ..MemoryBackend::new()
    };
    let (status, body, _) =
        Call::new(Method::POST, "/portal/api/sessions/options", None).send(&backend);
    assert_eq!(status, 500, "{body}");
    assert_eq!(body["code"], "INTERNAL_ERROR");
    assert_eq!(backend.logged().len(), 1);
}
