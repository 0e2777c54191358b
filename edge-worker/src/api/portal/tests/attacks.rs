//! The attacker's tests of signing in (issue 45's review, the verification steps
//! of Web Authentication Level 3): assertions signed with the passkey's own key but with the
//! user's presence or verification cleared, another relying party's hash, the
//! wrong ceremony type, a cross-origin frame, a replayed challenge or a counter
//! that went back. Each is refused with the one sign-in failure, starts no
//! session, leaves the passkey's counter as it was and is in the audit log.

use http::Method;
use serde_json::{Value, json};

use super::{Call, apply};
use crate::api::test_support::{
    FLAG_UP, FLAG_UV, Forgery, MemoryBackend, PORTAL_ORIGIN, SoftAuthenticator,
};

/// Asks for sign-in options, answers with `assertion(options)`: the status and body,
/// and whether a session cookie was set.
fn sign_in_with(
    backend: &MemoryBackend,
    assertion: impl FnOnce(&Value) -> Value,
) -> (u16, Value, bool) {
    let (status, options, _) =
        Call::new(Method::POST, "/portal/api/sessions/options", None).send(backend);
    assert_eq!(status, 200);
    let credential = assertion(&options["publicKey"]);
    let body = json!({ "ceremony": options["ceremony"], "credential": credential });
    let (status, answer, response) =
        Call::new(Method::POST, "/portal/api/sessions", Some(body)).send(backend);
    (
        status,
        answer,
        response.headers().contains_key("set-cookie"),
    )
}

fn failures(backend: &MemoryBackend, partner_id: &str) -> Vec<Option<String>> {
    backend
        .tables()
        .audit
        .iter()
        .filter(|e| e.partner_id == partner_id && e.action == "sign_in_failed")
        .map(|e| e.subject.clone())
        .collect()
}

fn stored(backend: &MemoryBackend) -> String {
    backend.tables().passkeys[0].stored.clone()
}

#[test]
fn forged_assertions_are_refused_alike_and_each_is_in_the_audit_log() {
    let backend = MemoryBackend::new();
    let mut device = SoftAuthenticator::new(1, PORTAL_ORIGIN);
    let (_, partner_id) = super::apply_as(&backend, &mut device);
    let forgeries = [
        (
            "user verification cleared",
            Forgery {
                flags: FLAG_UP,
                ..Forgery::default()
            },
        ),
        (
            "user presence cleared",
            Forgery {
                flags: FLAG_UV,
                ..Forgery::default()
            },
        ),
        (
            "another relying party",
            Forgery {
                rp_id: Some("evil.example"),
                ..Forgery::default()
            },
        ),
        (
            "a registration's type",
            Forgery {
                kind: "webauthn.create",
                ..Forgery::default()
            },
        ),
        (
            "a cross-origin frame",
            Forgery {
                cross_origin: true,
                ..Forgery::default()
            },
        ),
    ];
    for (i, (what, forgery)) in forgeries.iter().enumerate() {
        let before = stored(&backend);
        let (status, answer, cookie) = sign_in_with(&backend, |o| device.get_forged(o, forgery));
        assert_eq!(status, 401, "{what}: {answer}");
        assert_eq!(answer["message"], "sign-in failed", "{what}");
        assert!(!cookie, "{what}");
        assert_eq!(stored(&backend), before, "{what}: the counter is unchanged");
        assert_eq!(failures(&backend, &partner_id).len(), i + 1, "{what}");
    }
    // The honest assertion still signs in: nothing above locked the passkey.
    assert_eq!(sign_in_with(&backend, |o| device.get(o)).0, 200);
}

#[test]
fn a_replayed_assertion_and_a_counter_that_went_back_are_refused() {
    let backend = MemoryBackend::new();
    let mut device = SoftAuthenticator::new(1, PORTAL_ORIGIN);
    let (_, partner_id) = super::apply_as(&backend, &mut device);

    // The same answer sent twice: its ceremony was taken by the first.
    let (status, options, _) =
        Call::new(Method::POST, "/portal/api/sessions/options", None).send(&backend);
    assert_eq!(status, 200);
    let body =
        json!({ "ceremony": options["ceremony"], "credential": device.get(&options["publicKey"]) });
    let first = Call::new(Method::POST, "/portal/api/sessions", Some(body.clone())).send(&backend);
    assert_eq!(first.0, 200);
    let replay = Call::new(Method::POST, "/portal/api/sessions", Some(body)).send(&backend);
    assert_eq!(
        (replay.0, replay.1["message"].as_str()),
        (401, Some("sign-in failed"))
    );
    assert!(!replay.2.headers().contains_key("set-cookie"));
    assert_eq!(
        failures(&backend, "").len(),
        1,
        "an unknown ceremony is logged under no account"
    );

    // A clone of the authenticator whose counter is behind.
    for _ in 0..3 {
        assert_eq!(sign_in_with(&backend, |o| device.get(o)).0, 200);
    }
    let before = stored(&backend);
    device.counter -= 2;
    let (status, _, cookie) = sign_in_with(&backend, |o| device.get(o));
    assert_eq!((status, cookie), (401, false));
    assert_eq!(stored(&backend), before);
    assert_eq!(
        failures(&backend, &partner_id),
        [Some("assertion".to_owned())]
    );
}

#[test]
fn names_that_hide_characters_are_refused_before_anything_is_made() {
    let backend = MemoryBackend::new();
    for (field, value) in [
        ("organisation", "Transit\u{202E}oC"),
        ("organisation", "Transit\u{200B} Co"),
        ("intended_use", "routes\u{2066}"),
        ("email", "ops\u{200D}@transit.example"),
    ] {
        let mut body = super::application();
        body[field] = json!(value);
        let (status, answer, _) =
            Call::new(Method::POST, "/portal/api/applications/options", Some(body)).send(&backend);
        assert_eq!(
            (status, answer["details"]["field"].as_str()),
            (400, Some(field)),
            "{field}: {answer}"
        );
    }
    assert!(backend.tables().partners.is_empty());
}

#[test]
fn a_passkey_registered_twice_is_a_conflict_not_a_failure_of_the_service() {
    let backend = MemoryBackend::new();
    let mut device = SoftAuthenticator::new(1, PORTAL_ORIGIN);
    apply(&backend, &mut device);
    // The same authenticator, the same credential, a second application.
    let (status, options, _) = Call::new(
        Method::POST,
        "/portal/api/applications/options",
        Some(super::application()),
    )
    .send(&backend);
    assert_eq!(status, 200);
    let body = json!({ "ceremony": options["ceremony"], "credential": device.create(&options["publicKey"]) });
    let (status, answer, _) =
        Call::new(Method::POST, "/portal/api/applications", Some(body)).send(&backend);
    assert_eq!(
        (status, answer["code"].as_str()),
        (409, Some("CONFLICT")),
        "{answer}"
    );
    assert_eq!(answer["details"]["reason"], "passkey_registered");
    let tables = backend.tables();
    assert_eq!((tables.partners.len(), tables.passkeys.len()), (1, 1));
}

#[test]
fn guesses_at_one_passkey_from_many_addresses_are_limited_alike_whether_it_exists_or_not() {
    use super::super::rate_limits::SIGN_IN_PER_PASSKEY;
    let backend = MemoryBackend::new();
    let mut device = SoftAuthenticator::new(1, PORTAL_ORIGIN);
    let (_, partner_id) = super::apply_as(&backend, &mut device);
    let forged = Forgery {
        flags: FLAG_UP,
        ..Forgery::default()
    };
    // The same answers, each from an address of its own, for the real passkey and
    // for one no account has.
    let attempt = |device: &mut SoftAuthenticator, n: u32| {
        let mut asked = Call::new(Method::POST, "/portal/api/sessions/options", None);
        asked.address = Some(format!("198.51.100.{n}"));
        let (_, options, _) = asked.send(&backend);
        let credential = device.get_forged(&options["publicKey"], &forged);
        let body = json!({ "ceremony": options["ceremony"], "credential": credential });
        let mut call = Call::new(Method::POST, "/portal/api/sessions", Some(body));
        call.address = Some(format!("198.51.100.{n}"));
        let (status, answer, _) = call.send(&backend);
        (status, answer)
    };
    let mut unknown_device = SoftAuthenticator::new(2, PORTAL_ORIGIN);
    let mut answers = Vec::new();
    for n in 0..=SIGN_IN_PER_PASSKEY {
        answers.push((
            attempt(&mut device, n),
            attempt(&mut unknown_device, n + 100),
        ));
    }
    for (real, unknown) in &answers[..SIGN_IN_PER_PASSKEY as usize] {
        assert_eq!((real.0, unknown.0), (401, 401));
    }
    let (real, unknown) = &answers[SIGN_IN_PER_PASSKEY as usize];
    assert_eq!((real.0, unknown.0), (429, 429), "{real:?} {unknown:?}");
    assert_eq!(
        real.1, unknown.1,
        "nothing tells the real passkey from the made-up one"
    );
    assert_eq!(real.1["details"]["scope"], "passkey");
    // Even the honest passkey waits out the window: the guesses cannot go on.
    assert_eq!(
        failures(&backend, &partner_id).len(),
        SIGN_IN_PER_PASSKEY as usize
    );
}
