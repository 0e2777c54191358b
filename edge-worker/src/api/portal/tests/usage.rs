//! A key's usage as its partner reads it: the quota's own count and the refusals by
//! reason, today's remaining quota, as JSON and as CSV, never another partner's.

use bytes::Bytes;
use chrono::TimeDelta;
use http::{Method, Request};
use serde_json::json;

use super::partner_keys::{decide, keys_call, make, partner, predict_with};
use crate::api::access::keys::Tier;
use crate::api::partners::store::PartnerStatus;
use crate::api::serving::dispatch::{RequestContext, handle};
use crate::api::test_support::{MemoryBackend, now};

/// The status of `GET /route/config` with `key` (a router API call).
fn route_config(backend: &MemoryBackend, key: &str) -> u16 {
    let request = Request::builder()
        .uri("/route/config")
        .header("x-api-key", key)
        .body(Bytes::new())
        .unwrap();
    let ctx = RequestContext {
        now: now(),
        forecast_now: now(),
        clock_follows_data: false,
        bench_noop: false,
    };
    futures_executor::block_on(handle(&request, ctx, backend))
        .status()
        .as_u16()
}

#[test]
fn usage_counts_what_the_quota_counts_and_each_refusal_by_reason() {
    let backend = MemoryBackend::new();
    let (session, id) = partner(&backend, 1);
    decide(&backend, &id, PartnerStatus::Approved, Tier::Enterprise);
    backend.portal_db.exec(
        "UPDATE partners SET daily_limit = 2 WHERE id = ?1",
        &[id.into()],
    );
    let (_, made) = make(
        &backend,
        &session,
        json!({ "kind": "live", "apis": ["prediction"] }),
    );
    let key = made["key"].as_str().unwrap();
    let statuses: Vec<u16> = (0..3).map(|_| predict_with(&backend, key, now())).collect();
    assert_eq!(statuses, [200, 200, 429]);
    assert_eq!(route_config(&backend, key), 403, "not a router key");
    let path = format!("/portal/api/keys/{}/usage", made["id"].as_str().unwrap());
    let (status, usage, _) = keys_call(Method::GET, &path, None, &session).send(&backend);
    assert_eq!(status, 200, "{usage}");
    assert_eq!(usage["days"].as_array().unwrap().len(), 30);
    let today = &usage["days"][29];
    assert_eq!(today["day"], now().date_naive().to_string());
    assert_eq!(
        [
            &today["used"],
            &today["refused_quota"],
            &today["refused_api"],
            &today["refused_origin"],
            &today["refused_key"]
        ],
        [&json!(2), &json!(1), &json!(1), &json!(0), &json!(0)]
    );
    assert_eq!(usage["today"]["remaining"], 0);
    assert_eq!(usage["today"]["resets_at"], "2022-01-06T00:00:00Z");
    assert_eq!(usage["days"][0]["used"], 0, "a day without requests");
    // Revoked, it is refused and counted so.
    let revoke = format!("/portal/api/keys/{}", made["id"].as_str().unwrap());
    keys_call(Method::DELETE, &revoke, None, &session).send(&backend);
    assert_eq!(
        predict_with(&backend, key, now() + TimeDelta::seconds(1)),
        401
    );
    let csv_path = format!("{path}.csv?days=7");
    let (status, _, answer) = keys_call(Method::GET, &csv_path, None, &session).send(&backend);
    assert_eq!(status, 200);
    assert_eq!(answer.headers()["content-type"], "text/csv; charset=utf-8");
    assert!(
        answer.headers()["content-disposition"]
            .to_str()
            .unwrap()
            .starts_with("attachment; filename=\"hexrisk-usage-")
    );
    let text = String::from_utf8(answer.body().to_vec()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 8);
    assert_eq!(lines[0], super::super::usage::CSV_HEADER);
    assert_eq!(lines[7], format!("{},2,1,0,1,1,0", now().date_naive()));
}

#[test]
fn usage_is_the_partners_own_and_asked_for_a_bounded_number_of_days() {
    let backend = MemoryBackend::new();
    let (alice, alice_id) = partner(&backend, 1);
    let (bob, _) = partner(&backend, 2);
    decide(&backend, &alice_id, PartnerStatus::Approved, Tier::Sandbox);
    let (_, made) = make(
        &backend,
        &alice,
        json!({ "kind": "sandbox", "apis": ["prediction"] }),
    );
    let path = format!("/portal/api/keys/{}/usage", made["id"].as_str().unwrap());
    assert_eq!(
        keys_call(Method::GET, &path, None, &bob).send(&backend).0,
        404
    );
    assert_eq!(
        keys_call(Method::GET, &format!("{path}.csv"), None, &bob)
            .send(&backend)
            .0,
        404
    );
    for days in ["0", "91", "x", "-3"] {
        let asked = format!("{path}?days={days}");
        assert_eq!(
            keys_call(Method::GET, &asked, None, &alice)
                .send(&backend)
                .0,
            400,
            "{days}"
        );
    }
    let (status, usage, _) =
        keys_call(Method::GET, &format!("{path}?days=90"), None, &alice).send(&backend);
    assert_eq!((status, usage["days"].as_array().unwrap().len()), (200, 90));
}
