//! Keys made by partners: approval and tiers first, keys shown once and working
//! on the APIs they name, origins checked, rolling with a grace period, revoking,
//! suspension, and one partner never reaching another's keys.

use bytes::Bytes;
use chrono::{DateTime, TimeDelta, Utc};
use http::{Method, Request};
use serde_json::{Value, json};

use super::Call;
use crate::api::access::keys::Tier;
use crate::api::partners::store::PartnerStatus;
use crate::api::serving::dispatch::{RequestContext, handle};
use crate::api::test_support::{MemoryBackend, PORTAL_ORIGIN, SoftAuthenticator, now};

/// A partner that applied with its own device: its session and id.
pub(super) fn partner(backend: &MemoryBackend, seed: u8) -> (String, String) {
    super::apply_as(backend, &mut SoftAuthenticator::new(seed, PORTAL_ORIGIN))
}

/// What the operator does with `scripts/operator.mjs`: sets status and tier.
pub(super) fn decide(backend: &MemoryBackend, id: &str, status: PartnerStatus, tier: Tier) {
    backend.portal_db.exec(
        "UPDATE partners SET status = ?2, tier = ?3 WHERE id = ?1",
        &[id.into(), status.code().into(), tier.code().into()],
    );
}

pub(super) fn keys_call<'a>(
    method: Method,
    path: &'a str,
    body: Option<Value>,
    session: &'a str,
) -> Call<'a> {
    let mut call = Call::new(method, path, body);
    call.session = Some(session);
    call
}

pub(super) fn make(backend: &MemoryBackend, session: &str, body: Value) -> (u16, Value) {
    let (status, body, _) =
        keys_call(Method::POST, "/portal/api/keys", Some(body), session).send(backend);
    (status, body)
}

/// The status of `GET /v1/cities` with `key` at `at`.
pub(super) fn predict_with(backend: &MemoryBackend, key: &str, at: DateTime<Utc>) -> u16 {
    let request = Request::builder()
        .uri("/v1/cities")
        .header("authorization", format!("Bearer {key}"))
        .body(Bytes::new())
        .unwrap();
    let ctx = RequestContext {
        now: at,
        forecast_now: at,
        clock_follows_data: false,
        bench_noop: false,
    };
    futures_executor::block_on(handle(&request, ctx, backend))
        .status()
        .as_u16()
}

fn sandbox(label: &str) -> Value {
    json!({ "label": label, "kind": "sandbox", "apis": ["prediction", "router"] })
}

#[test]
fn an_approved_partner_makes_a_key_that_is_shown_once_and_works() {
    let backend = MemoryBackend::new();
    let (session, id) = partner(&backend, 1);
    let (status, refused) = make(&backend, &session, sandbox("first"));
    assert_eq!(status, 403, "waiting for approval: {refused}");
    decide(&backend, &id, PartnerStatus::Approved, Tier::Sandbox);
    let session_reads = || {
        let ran = backend.portal_db.ran.borrow();
        ran.iter()
            .filter(|sql| sql.contains("FROM sessions WHERE digest"))
            .count()
    };
    let reads = session_reads();
    let (status, made) = make(&backend, &session, sandbox("first"));
    assert_eq!(status, 201, "{made}");
    // The rate limit and the handler share one read of the session.
    assert_eq!(session_reads(), reads + 1);
    let key = made["key"].as_str().unwrap();
    assert!(key.starts_with("hexrisk_sandbox_") && key.len() == "hexrisk_sandbox_".len() + 32);
    assert_eq!(made["daily_limit"], 100);
    assert_eq!(made["expires_at"], json!(now() + TimeDelta::days(30)));
    assert!(
        made["curl"][0]
            .as_str()
            .unwrap()
            .contains(&format!("Bearer {key}"))
    );
    assert_eq!(predict_with(&backend, key, now()), 200);
    // Listed without the key; stored as its digest only.
    let (_, listed, _) = keys_call(Method::GET, "/portal/api/keys", None, &session).send(&backend);
    assert_eq!(listed["keys"].as_array().unwrap().len(), 1);
    assert!(!listed.to_string().contains(key));
    assert!(!format!("{:?}", backend.tables().keys).contains(key));
    // Live keys wait for a tier.
    let live = json!({ "kind": "live", "apis": ["prediction"] });
    assert_eq!(make(&backend, &session, live.clone()).0, 403);
    decide(&backend, &id, PartnerStatus::Approved, Tier::Partner);
    let (status, made) = make(&backend, &session, live);
    assert_eq!((status, made["daily_limit"].as_u64()), (201, Some(10_000)));
    assert_eq!(made["expires_at"], Value::Null);
}

#[test]
fn a_key_calls_only_the_apis_it_names_and_its_origins_are_checked() {
    let backend = MemoryBackend::new();
    let (session, id) = partner(&backend, 1);
    decide(&backend, &id, PartnerStatus::Approved, Tier::Sandbox);
    let (status, refused) = make(
        &backend,
        &session,
        json!({ "kind": "sandbox", "apis": ["router"],
                "origins": ["https://maps.example.org/", "http://maps.example.org", "https://*.example.org"] }),
    );
    assert_eq!(status, 400, "{refused}");
    let reasons: Vec<&str> = refused["details"]["refused_origins"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["reason"].as_str().unwrap())
        .collect();
    assert_eq!(reasons, ["insecure", "host"]);
    assert!(backend.tables().keys.is_empty(), "nothing made");
    let (status, made) = make(
        &backend,
        &session,
        json!({ "kind": "sandbox", "apis": ["router"], "origins": ["https://Maps.Example.org/"] }),
    );
    assert_eq!(status, 201, "{made}");
    assert_eq!(made["origins"], json!(["https://maps.example.org"]));
    let key = made["key"].as_str().unwrap();
    assert_eq!(predict_with(&backend, key, now()), 403, "a router-only key");
    for bad in [
        json!({ "kind": "sandbox", "apis": [] }),
        json!({ "kind": "sandbox", "apis": ["maps"] }),
        json!({ "kind": "gold", "apis": ["router"] }),
        json!({ "kind": "sandbox", "apis": ["router"], "expires_at": "2000-01-01T00:00:00Z" }),
        json!({ "kind": "sandbox", "apis": ["router"], "label": "x".repeat(101) }),
    ] {
        assert_eq!(make(&backend, &session, bad.clone()).0, 400, "{bad}");
    }
}

#[test]
fn a_rolled_key_works_through_its_grace_period_and_a_revoked_one_stops() {
    let backend = MemoryBackend::new();
    let (session, id) = partner(&backend, 1);
    decide(&backend, &id, PartnerStatus::Approved, Tier::Sandbox);
    let (_, old) = make(&backend, &session, sandbox("rolled"));
    let old_key = old["key"].as_str().unwrap().to_owned();
    let path = format!("/portal/api/keys/{}/roll", old["id"].as_str().unwrap());
    let (status, bad, _) = keys_call(
        Method::POST,
        &path,
        Some(json!({ "grace_hours": 169 })),
        &session,
    )
    .send(&backend);
    assert_eq!(status, 400, "{bad}");
    let (status, new, _) = keys_call(
        Method::POST,
        &path,
        Some(json!({ "grace_hours": 24 })),
        &session,
    )
    .send(&backend);
    assert_eq!(status, 201, "{new}");
    let new_key = new["key"].as_str().unwrap();
    assert_eq!(new["label"], "rolled");
    assert_eq!(
        new["replaces"]["expires_at"],
        json!(now() + TimeDelta::hours(24))
    );
    let hour = TimeDelta::hours(1);
    assert_eq!(
        predict_with(&backend, &old_key, now() + hour),
        200,
        "old, in its grace"
    );
    assert_eq!(predict_with(&backend, new_key, now() + hour), 200, "new");
    assert_eq!(
        predict_with(&backend, &old_key, now() + hour * 25),
        401,
        "old, after it"
    );
    assert_eq!(predict_with(&backend, new_key, now() + hour * 25), 200);
    // A key is rolled once.
    assert_eq!(
        keys_call(
            Method::POST,
            &path,
            Some(json!({ "grace_hours": 0 })),
            &session
        )
        .send(&backend)
        .0,
        404
    );
    let revoke = format!("/portal/api/keys/{}", new["id"].as_str().unwrap());
    let (status, revoked, _) = keys_call(Method::DELETE, &revoke, None, &session).send(&backend);
    assert_eq!(status, 200, "{revoked}");
    assert_eq!(revoked["refused_within_seconds"], 60);
    assert_eq!(predict_with(&backend, new_key, now() + hour), 401);
    assert_eq!(
        keys_call(Method::DELETE, &revoke, None, &session)
            .send(&backend)
            .0,
        404
    );
    let (_, account, _) = keys_call(Method::GET, "/portal/api/me", None, &session).send(&backend);
    let actions: Vec<&str> = account["audit"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["action"].as_str().unwrap())
        .collect();
    assert_eq!(
        actions[..4],
        ["key_revoked", "key_created", "key_rolled", "key_created"]
    );
}

#[test]
fn a_partner_never_reaches_another_partners_keys_and_suspension_stops_them_all() {
    let backend = MemoryBackend::new();
    let (alice, alice_id) = partner(&backend, 1);
    let (bob, bob_id) = partner(&backend, 2);
    for id in [&alice_id, &bob_id] {
        decide(&backend, id, PartnerStatus::Approved, Tier::Sandbox);
    }
    let (_, made) = make(&backend, &alice, sandbox("alice's"));
    let key = made["key"].as_str().unwrap();
    let key_path = format!("/portal/api/keys/{}", made["id"].as_str().unwrap());
    let roll_path = format!("{key_path}/roll");
    let (_, listed, _) = keys_call(Method::GET, "/portal/api/keys", None, &bob).send(&backend);
    assert_eq!(listed["keys"], json!([]));
    assert_eq!(
        keys_call(Method::DELETE, &key_path, None, &bob)
            .send(&backend)
            .0,
        404
    );
    assert_eq!(
        keys_call(
            Method::POST,
            &roll_path,
            Some(json!({ "grace_hours": 0 })),
            &bob
        )
        .send(&backend)
        .0,
        404
    );
    let (_, bobs_account, _) = keys_call(Method::GET, "/portal/api/me", None, &bob).send(&backend);
    assert!(
        !bobs_account
            .to_string()
            .contains(made["id"].as_str().unwrap()),
        "no audit line of alice's"
    );
    assert_eq!(predict_with(&backend, key, now()), 200, "untouched");
    // Suspending alice stops her keys; approving her again starts them.
    decide(&backend, &alice_id, PartnerStatus::Suspended, Tier::Sandbox);
    assert_eq!(
        predict_with(&backend, key, now()),
        403,
        "the account is suspended"
    );
    assert_eq!(make(&backend, &alice, sandbox("more")).0, 403);
    decide(&backend, &alice_id, PartnerStatus::Approved, Tier::Sandbox);
    assert_eq!(predict_with(&backend, key, now()), 200);
    // Without a session, nothing.
    for (method, path) in [
        (Method::GET, "/portal/api/keys"),
        (Method::DELETE, key_path.as_str()),
    ] {
        assert_eq!(Call::new(method, path, None).send(&backend).0, 401);
    }
}

fn roll(backend: &MemoryBackend, session: &str, id: &str, hours: u32) -> (u16, Value) {
    let path = format!("/portal/api/keys/{id}/roll");
    let body = json!({ "grace_hours": hours });
    let (status, body, _) = keys_call(Method::POST, &path, Some(body), session).send(backend);
    (status, body)
}

#[test]
fn the_cap_counts_rolled_keys_in_their_grace_and_a_roll_past_it_stores_nothing() {
    use super::super::partner_keys::MAX_KEYS;
    let backend = MemoryBackend::new();
    let (session, id) = partner(&backend, 1);
    decide(&backend, &id, PartnerStatus::Approved, Tier::Partner);
    let (status, first) = make(&backend, &session, sandbox("walk"));
    assert_eq!(status, 201, "{first}");
    // The review's walk: each new key rolled with the longest grace.
    let mut current = first["id"].as_str().unwrap().to_owned();
    for _ in 1..MAX_KEYS {
        let (status, rolled) = roll(&backend, &session, &current, 168);
        assert_eq!(status, 201, "{rolled}");
        current = rolled["id"].as_str().unwrap().to_owned();
    }
    let stored = || backend.tables().keys.clone();
    let before = stored();
    assert_eq!(
        before.iter().filter(|k| k.is_in_force(now())).count(),
        MAX_KEYS
    );
    let (status, refused) = roll(&backend, &session, &current, 168);
    assert_eq!(
        (status, &refused["details"]["reason"]),
        (400, &json!("key_cap")),
        "{refused}"
    );
    assert_eq!(refused["details"]["limit"], MAX_KEYS);
    assert_eq!(stored(), before, "a refused roll stores nothing");
    let (status, refused) = make(&backend, &session, sandbox("one more"));
    assert_eq!(
        (status, &refused["details"]["reason"]),
        (400, &json!("key_cap"))
    );
    assert_eq!(stored(), before);
    // A roll with no grace stops the old key as it makes the new: allowed at the cap.
    let (status, rolled) = roll(&backend, &session, &current, 0);
    assert_eq!(status, 201, "{rolled}");
    let in_force = stored().iter().filter(|k| k.is_in_force(now())).count();
    assert_eq!(in_force, MAX_KEYS);
}

#[test]
fn a_sandbox_key_rolled_keeps_the_expiry_of_the_first_of_its_line() {
    let backend = MemoryBackend::new();
    let mut device = SoftAuthenticator::new(9, PORTAL_ORIGIN);
    let (_, id) = super::apply_as(&backend, &mut device);
    decide(&backend, &id, PartnerStatus::Approved, Tier::Sandbox);
    let mut current: Option<(String, Value)> = None;
    // Three rolls, ten days apart, each from a fresh sign-in.
    for days in [0, 10, 20, 29] {
        let at = now() + chrono::TimeDelta::days(days);
        let (status, _, answer) = super::sign_in(&backend, &mut device, at);
        assert_eq!(status, 200);
        let session = super::session_of(&answer);
        let (status, key) = match &current {
            None => {
                let mut call = keys_call(
                    Method::POST,
                    "/portal/api/keys",
                    Some(sandbox("s")),
                    &session,
                );
                call.at = at;
                let (status, body, _) = call.send(&backend);
                (status, body)
            }
            Some((id, _)) => {
                let path = format!("/portal/api/keys/{id}/roll");
                let mut call = keys_call(
                    Method::POST,
                    &path,
                    Some(json!({ "grace_hours": 0 })),
                    &session,
                );
                call.at = at;
                let (status, body, _) = call.send(&backend);
                (status, body)
            }
        };
        assert_eq!(status, 201, "day {days}: {key}");
        if let Some((_, first)) = &current {
            assert_eq!(key["expires_at"], first["expires_at"], "day {days}");
        }
        let first = current.map_or(key.clone(), |(_, f)| f);
        current = Some((key["id"].as_str().unwrap().to_owned(), first));
    }
    let (_, first) = current.unwrap();
    let expires: chrono::DateTime<chrono::Utc> =
        first["expires_at"].as_str().unwrap().parse().unwrap();
    assert_eq!(
        expires,
        now() + super::super::partner_keys::SANDBOX_LIFETIME
    );
}

/// The status and body of `GET /v1/cities` with `key` from the client `address`.
fn predict_from(backend: &MemoryBackend, key: &str, address: Option<&str>) -> (u16, Value) {
    let mut request = Request::builder()
        .uri("/v1/cities")
        .header("authorization", format!("Bearer {key}"));
    if let Some(address) = address {
        request = request.header("cf-connecting-ip", address);
    }
    let ctx = RequestContext {
        now: now(),
        forecast_now: now(),
        clock_follows_data: false,
        bench_noop: false,
    };
    let answer =
        futures_executor::block_on(handle(&request.body(Bytes::new()).unwrap(), ctx, backend));
    let body = serde_json::from_slice(answer.body()).unwrap_or(Value::Null);
    (answer.status().as_u16(), body)
}

#[test]
fn a_server_key_is_used_from_its_listed_addresses_only_and_the_page_labels_restrictions() {
    let backend = MemoryBackend::new();
    let (session, id) = partner(&backend, 1);
    decide(&backend, &id, PartnerStatus::Approved, Tier::Partner);
    // Refused ranges, each with its reason; nothing made.
    let (status, refused) = make(
        &backend,
        &session,
        json!({ "kind": "sandbox", "apis": ["prediction"], "ip_ranges": ["203.0.113.5/24", "nope", "10.0.0.0/8"] }),
    );
    assert_eq!(
        (status, &refused["details"]["field"]),
        (400, &json!("ip_ranges")),
        "{refused}"
    );
    let reasons: Vec<&str> = refused["details"]["refused_ranges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["reason"].as_str().unwrap())
        .collect();
    assert_eq!(reasons, ["host_bits", "address"]);
    assert_eq!(
        refused["details"]["refused_ranges"][0]["range"],
        "203.0.113.5/24"
    );
    assert!(backend.tables().keys.is_empty());

    let (status, server) = make(
        &backend,
        &session,
        json!({ "label": "server", "kind": "sandbox", "apis": ["prediction"], "ip_ranges": ["203.0.113.0/24", "2001:db8::/32"] }),
    );
    assert_eq!(status, 201, "{server}");
    assert_eq!(
        server["ip_ranges"],
        json!(["203.0.113.0/24", "2001:db8::/32"])
    );
    assert_eq!(server["restriction"], "server_addresses");
    let key = server["key"].as_str().unwrap();
    assert_eq!(predict_from(&backend, key, Some("203.0.113.77")).0, 200);
    assert_eq!(predict_from(&backend, key, Some("2001:db8:5::1")).0, 200);
    for address in [Some("198.51.100.1"), None] {
        let (status, body) = predict_from(&backend, key, address);
        assert_eq!(status, 403, "{address:?}");
        assert_eq!(body["details"]["reason"], "address_not_allowed");
    }
    let (_, open) = make(&backend, &session, sandbox("anywhere"));
    assert_eq!(open["restriction"], "unrestricted");
    assert_eq!(
        predict_from(&backend, open["key"].as_str().unwrap(), None).0,
        200
    );
    // The usage counts the refusals by their reason.
    let path = format!(
        "/portal/api/keys/{}/usage?days=1",
        server["id"].as_str().unwrap()
    );
    let (_, usage, _) = keys_call(Method::GET, &path, None, &session).send(&backend);
    assert_eq!(usage["days"][0]["refused_address"], 2, "{usage}");
    assert_eq!(usage["days"][0]["used"], 2);
}
