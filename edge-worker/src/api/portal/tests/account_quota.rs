//! One quota an account: its keys of a kind draw on one day's count, however they
//! are rolled, revoked and made again (issue 45's roll walk and reset attacks).

use chrono::{DateTime, TimeDelta, Utc};
use http::Method;
use serde_json::{Value, json};

use super::partner_keys::{decide, keys_call, make, partner, predict_with};
use crate::api::access::keys::Tier;
use crate::api::partners::store::PartnerStatus;
use crate::api::test_support::{MemoryBackend, now};

/// The sandbox tier's daily limit, every sandbox key of an account together.
const SANDBOX_LIMIT: u32 = 100;

fn sandbox(label: &str) -> Value {
    json!({ "label": label, "kind": "sandbox", "apis": ["prediction"] })
}

/// `n` requests of `key` at `at`: how many were answered 200.
fn spend(backend: &MemoryBackend, key: &str, n: u32, at: DateTime<Utc>) -> u32 {
    (0..n)
        .map(|_| u32::from(predict_with(backend, key, at) == 200))
        .sum()
}

fn usage(backend: &MemoryBackend, session: &str, id: &str) -> Value {
    let path = format!("/portal/api/keys/{id}/usage?days=1");
    let (status, body, _) = keys_call(Method::GET, &path, None, session).send(backend);
    assert_eq!(status, 200, "{body}");
    body
}

#[test]
fn rolling_revoking_and_making_again_draw_on_the_one_day_of_the_account() {
    let backend = MemoryBackend::new();
    let (session, id) = partner(&backend, 3);
    decide(&backend, &id, PartnerStatus::Approved, Tier::Partner);
    let at = now() + TimeDelta::minutes(1);
    let (status, a) = make(&backend, &session, sandbox("a"));
    assert_eq!(status, 201, "{a}");
    let a_key = a["key"].as_str().unwrap().to_owned();
    assert_eq!(spend(&backend, &a_key, 40, at), 40);
    // The walk: A rolled to B with a day's grace, both spent.
    let path = format!("/portal/api/keys/{}/roll", a["id"].as_str().unwrap());
    let body = json!({ "grace_hours": 24 });
    let (status, b, _) = keys_call(Method::POST, &path, Some(body), &session).send(&backend);
    assert_eq!(status, 201, "{b}");
    let b_key = b["key"].as_str().unwrap().to_owned();
    assert_eq!(spend(&backend, &a_key, 30, at), 30);
    assert_eq!(
        spend(&backend, &b_key, 40, at),
        30,
        "the account's 100 are used"
    );
    let b_usage = usage(&backend, &session, b["id"].as_str().unwrap());
    assert_eq!(b_usage["today"]["used"], 30);
    assert_eq!(b_usage["today"]["remaining"], 0, "{b_usage}");
    assert_eq!(
        b_usage["account"],
        json!({ "kind": "sandbox", "daily_limit": SANDBOX_LIMIT, "used": SANDBOX_LIMIT, "remaining": 0 })
    );
    // The reset: B revoked and C made starts no new day.
    let revoke = format!("/portal/api/keys/{}", b["id"].as_str().unwrap());
    assert_eq!(
        keys_call(Method::DELETE, &revoke, None, &session)
            .send(&backend)
            .0,
        200
    );
    let (status, c) = make(&backend, &session, sandbox("c"));
    assert_eq!(status, 201, "{c}");
    let c_key = c["key"].as_str().unwrap().to_owned();
    assert_eq!(predict_with(&backend, &c_key, at), 429);
    // The next UTC day, the account's quota is whole again.
    let tomorrow = crate::api::access::daily_quota::reset_at(at);
    assert_eq!(spend(&backend, &c_key, 1, tomorrow), 1);
}

#[test]
fn live_and_sandbox_keys_of_an_account_keep_separate_quotas() {
    let backend = MemoryBackend::new();
    let (session, id) = partner(&backend, 4);
    decide(&backend, &id, PartnerStatus::Approved, Tier::Partner);
    let at = now() + TimeDelta::minutes(1);
    let (_, sandbox_key) = make(&backend, &session, sandbox("s"));
    let live = json!({ "label": "l", "kind": "live", "apis": ["prediction"] });
    let (status, live_key) = make(&backend, &session, live);
    assert_eq!(status, 201, "{live_key}");
    let sandbox_key = sandbox_key["key"].as_str().unwrap();
    assert_eq!(spend(&backend, sandbox_key, 101, at), SANDBOX_LIMIT);
    assert_eq!(spend(&backend, live_key["key"].as_str().unwrap(), 5, at), 5);
    let live_usage = usage(&backend, &session, live_key["id"].as_str().unwrap());
    assert_eq!(live_usage["account"]["kind"], "live");
    assert_eq!(live_usage["account"]["used"], 5);
    assert_eq!(
        live_usage["account"]["daily_limit"],
        Tier::Partner.default_limit().unwrap()
    );
}
