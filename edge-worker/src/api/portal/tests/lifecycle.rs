//! The account's lifecycle over its sessions: a suspended or rejected account
//! cannot sign in and its sessions end with the decision, a reapproved one starts
//! signed out, "sign out everywhere" ends them all, and removing a passkey ends
//! the sessions it started.

use http::Method;
use serde_json::json;

use super::operator::decide;
use super::partner_keys::{keys_call, partner};
use super::{Call, apply, me, session_of, sign_in};
use crate::api::access::keys::Tier;
use crate::api::partners::store::PartnerStatus;
use crate::api::test_support::{MemoryBackend, PORTAL_ORIGIN, SoftAuthenticator, now};

/// An applicant with its device, its session and id, and an operator's session.
fn applicant_and_operator(backend: &MemoryBackend) -> (SoftAuthenticator, String, String, String) {
    let mut device = SoftAuthenticator::new(1, PORTAL_ORIGIN);
    let (session, id) = super::apply_as(backend, &mut device);
    let (operator, operator_id) = partner(backend, 2);
    super::make_operator(backend, &operator_id);
    (device, session, id, operator)
}

fn actions(backend: &MemoryBackend, partner_id: &str) -> Vec<String> {
    backend
        .tables()
        .audit
        .iter()
        .filter(|e| e.partner_id == partner_id)
        .map(|e| e.action.clone())
        .collect()
}

fn live_sessions(backend: &MemoryBackend, partner_id: &str) -> usize {
    backend
        .tables()
        .sessions
        .values()
        .filter(|s| s.partner_id == partner_id && s.is_live(now()))
        .count()
}

#[test]
fn a_suspended_account_is_signed_out_at_once_and_cannot_sign_in_again_until_reapproved() {
    let backend = MemoryBackend::new();
    let (mut device, session, id, operator) = applicant_and_operator(&backend);
    assert_eq!(decide(&backend, &id, "approve", &operator).0, 200);
    // A second session, as on another device.
    let (status, _, answer) = sign_in(&backend, &mut device, now());
    assert_eq!(status, 200);
    let second = session_of(&answer);
    assert_eq!(live_sessions(&backend, &id), 2);

    assert_eq!(decide(&backend, &id, "suspend", &operator).0, 200);
    assert_eq!(live_sessions(&backend, &id), 0);
    for s in [&session, &second] {
        assert_eq!(me(&backend, s, now()).0, 401);
        // Nor can it change anything: revoking, adding a passkey.
        let (status, _, _) =
            keys_call(Method::POST, "/portal/api/passkeys/options", None, s).send(&backend);
        assert_eq!(status, 401);
    }
    // Signing in is refused with the reason, to the passkey's holder only, and
    // logged; no session starts.
    let (status, refused, answer) = sign_in(&backend, &mut device, now());
    assert_eq!(status, 403, "{refused}");
    assert_eq!(refused["details"]["reason"], "account_status");
    assert_eq!(refused["details"]["status"], "suspended");
    assert!(refused["message"].as_str().unwrap().contains("suspended"));
    assert!(answer.headers().get("set-cookie").is_none());
    assert_eq!(live_sessions(&backend, &id), 0);
    assert_eq!(actions(&backend, &id).last().unwrap(), "sign_in_refused");

    // Reapproved: the old sessions stay ended; a new sign-in works.
    assert_eq!(decide(&backend, &id, "approve", &operator).0, 200);
    assert_eq!(me(&backend, &second, now()).0, 401);
    assert_eq!(sign_in(&backend, &mut device, now()).0, 200);
}

#[test]
fn a_rejected_applicant_is_signed_out_and_told_why_it_cannot_sign_in() {
    let backend = MemoryBackend::new();
    let (mut device, session, id, operator) = applicant_and_operator(&backend);
    assert_eq!(decide(&backend, &id, "reject", &operator).0, 200);
    assert_eq!(me(&backend, &session, now()).0, 401);
    let (status, refused, _) = sign_in(&backend, &mut device, now());
    assert_eq!(
        (status, &refused["details"]["status"]),
        (403, &json!("rejected"))
    );
}

#[test]
fn sign_out_everywhere_ends_every_session_of_the_account_and_no_other() {
    let backend = MemoryBackend::new();
    let mut laptop = SoftAuthenticator::new(1, PORTAL_ORIGIN);
    let first = apply(&backend, &mut laptop);
    let (_, _, answer) = sign_in(&backend, &mut laptop, now());
    let second = session_of(&answer);
    let mut other = SoftAuthenticator::new(2, PORTAL_ORIGIN);
    let stranger = apply(&backend, &mut other);

    let (status, body, answer) =
        keys_call(Method::DELETE, "/portal/api/sessions", None, &second).send(&backend);
    assert_eq!(status, 200, "{body}");
    assert_eq!(body, json!({ "signed_out": true, "everywhere": true }));
    assert!(
        answer.headers()["set-cookie"]
            .to_str()
            .unwrap()
            .contains("Max-Age=0")
    );
    assert_eq!(me(&backend, &first, now()).0, 401);
    assert_eq!(me(&backend, &second, now()).0, 401);
    assert_eq!(me(&backend, &stranger, now()).0, 200);
    // Only from a live session, and from the portal's own page.
    let (status, _, _) =
        keys_call(Method::DELETE, "/portal/api/sessions", None, &second).send(&backend);
    assert_eq!(status, 401);
    let mut cross = keys_call(Method::DELETE, "/portal/api/sessions", None, &stranger);
    cross.origin = Some("https://evil.example");
    assert_eq!(cross.send(&backend).0, 403);
    assert_eq!(me(&backend, &stranger, now()).0, 200);
}

#[test]
fn removing_a_passkey_ends_the_sessions_it_started_and_keeps_the_others() {
    let backend = MemoryBackend::new();
    let mut laptop = SoftAuthenticator::new(1, PORTAL_ORIGIN);
    let laptop_session = apply(&backend, &mut laptop);
    // A second passkey, then a session started by each.
    let (status, options, _) = keys_call(
        Method::POST,
        "/portal/api/passkeys/options",
        None,
        &laptop_session,
    )
    .send(&backend);
    assert_eq!(status, 200);
    let mut phone = SoftAuthenticator::new(2, PORTAL_ORIGIN);
    let credential = phone.create(&options["publicKey"]);
    let body = json!({ "ceremony": options["ceremony"], "credential": credential });
    let (status, added, _) = keys_call(
        Method::POST,
        "/portal/api/passkeys",
        Some(body),
        &laptop_session,
    )
    .send(&backend);
    assert_eq!(status, 201, "{added}");
    let (_, _, answer) = sign_in(&backend, &mut phone, now());
    let phone_session = session_of(&answer);
    let (_, _, answer) = sign_in(&backend, &mut laptop, now());
    let laptop_again = session_of(&answer);
    let phone_id = backend
        .tables()
        .sessions
        .values()
        .find(|s| s.digest == super::super::sessions::digest(&phone_session))
        .and_then(|s| s.credential_id.clone())
        .unwrap();

    // Removed from the laptop: the phone's session ends, the laptop's stay.
    let path = format!("/portal/api/passkeys/{phone_id}");
    let (status, body, answer) =
        keys_call(Method::DELETE, &path, None, &laptop_again).send(&backend);
    assert_eq!(
        (status, &body["signed_out"]),
        (200, &json!(false)),
        "{body}"
    );
    assert!(answer.headers().get("set-cookie").is_none());
    assert_eq!(me(&backend, &phone_session, now()).0, 401);
    assert_eq!(me(&backend, &laptop_again, now()).0, 200);
    assert_eq!(me(&backend, &laptop_session, now()).0, 200);
    // Its line is written with it; the refused removal of the last passkey writes none.
    let removed_lines = || {
        let tables = backend.tables();
        tables
            .audit
            .iter()
            .filter(|e| e.action == "passkey_removed")
            .count()
    };
    assert_eq!(removed_lines(), 1);
    let laptop_id = backend.tables().passkeys[0].credential_id.clone();
    let path = format!("/portal/api/passkeys/{laptop_id}");
    let (status, _, _) = keys_call(Method::DELETE, &path, None, &laptop_again).send(&backend);
    assert_eq!(status, 400, "the last passkey");
    assert_eq!(removed_lines(), 1);
}

#[test]
fn what_lasts_needs_a_passkey_within_five_minutes_so_a_stolen_session_cannot_take_over() {
    let backend = MemoryBackend::new();
    let (mut device, session, id, _) = applicant_and_operator(&backend);
    super::partner_keys::decide(&backend, &id, PartnerStatus::Approved, Tier::Sandbox);
    let later = now() + chrono::TimeDelta::minutes(6);
    let at = |method, path, body, session| {
        let mut call = keys_call(method, path, body, session);
        call.at = later;
        call.send(&backend)
    };
    let key = json!({ "kind": "sandbox", "apis": ["prediction"] });
    // Six minutes after the sign-in, the session still reads the account...
    assert_eq!(me(&backend, &session, later).0, 200);
    // ...but adds no passkey (the review's takeover) and makes or rolls no key.
    for (method, path, body) in [
        (Method::POST, "/portal/api/passkeys/options", None),
        (Method::POST, "/portal/api/keys", Some(key.clone())),
    ] {
        let (status, refused, _) = at(method, path, body, &session);
        assert_eq!(status, 403, "{path}: {refused}");
        assert_eq!(refused["details"]["reason"], "step_up", "{path}");
        assert_eq!(refused["details"]["window_seconds"], 300);
    }
    assert!(backend.tables().keys.is_empty());
    // A fresh sign-in is the step-up: then it works.
    let (status, _, answer) = sign_in(&backend, &mut device, later);
    assert_eq!(status, 200);
    let fresh = session_of(&answer);
    let (status, made, _) = at(Method::POST, "/portal/api/keys", Some(key), &fresh);
    assert_eq!(status, 201, "{made}");
    let path = format!("/portal/api/keys/{}/roll", made["id"].as_str().unwrap());
    let (status, _, _) = at(
        Method::POST,
        &path,
        Some(json!({ "grace_hours": 0 })),
        &session,
    );
    assert_eq!(status, 403, "the old session rolls nothing");
}

#[test]
fn the_session_state_is_answered_200_signed_in_or_not() {
    let backend = MemoryBackend::new();
    let state = |session: Option<&str>, at| {
        let mut call = Call::new(Method::GET, "/portal/api/session", None);
        call.session = session;
        call.at = at;
        let (status, body, _) = call.send(&backend);
        (status, body)
    };
    assert_eq!(
        state(None, now()),
        (
            200,
            json!({ "signed_in": false, "recently_verified": false })
        )
    );
    let session = apply(&backend, &mut SoftAuthenticator::new(1, PORTAL_ORIGIN));
    assert_eq!(
        state(Some(&session), now()),
        (200, json!({ "signed_in": true, "recently_verified": true }))
    );
    let later = now() + chrono::TimeDelta::minutes(6);
    assert_eq!(
        state(Some(&session), later),
        (
            200,
            json!({ "signed_in": true, "recently_verified": false })
        )
    );
}

#[test]
fn a_sign_in_sweeps_dead_sessions_and_keys_that_stopped_long_ago() {
    let backend = MemoryBackend::new();
    let (mut device, first, id, _) = applicant_and_operator(&backend);
    super::partner_keys::decide(&backend, &id, PartnerStatus::Approved, Tier::Sandbox);
    let (status, old) = super::partner_keys::make(
        &backend,
        &first,
        json!({ "kind": "sandbox", "apis": ["prediction"] }),
    );
    assert_eq!(status, 201, "{old}");
    // A day later the first session is dead; 131 days later the sandbox key stopped
    // more than 100 days ago.
    let day = now() + chrono::TimeDelta::days(1);
    assert_eq!(sign_in(&backend, &mut device, day).0, 200);
    let digest = super::super::sessions::digest(&first);
    assert!(!backend.tables().sessions.contains_key(&digest));
    assert_eq!(backend.tables().keys.len(), 1, "not yet");
    let later = now() + chrono::TimeDelta::days(131);
    assert_eq!(sign_in(&backend, &mut device, later).0, 200);
    assert!(backend.tables().keys.is_empty());
    // The live session just started stays.
    assert_eq!(live_sessions_at(&backend, &id, later), 1);
}

fn live_sessions_at(
    backend: &MemoryBackend,
    partner_id: &str,
    at: chrono::DateTime<chrono::Utc>,
) -> usize {
    backend
        .tables()
        .sessions
        .values()
        .filter(|s| s.partner_id == partner_id && s.is_live(at))
        .count()
}
