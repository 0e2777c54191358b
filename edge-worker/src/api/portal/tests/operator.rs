//! The operator's endpoints: only the operator's session reaches them; decisions
//! follow the account's status, tiers their rules, and each lands in the audit log.

use http::Method;
use serde_json::{Value, json};

use super::partner_keys::{keys_call, make, partner, predict_with};
use crate::api::access::keys::Tier;
use crate::api::partners::store::PartnerStatus;
use crate::api::test_support::{MemoryBackend, now};

/// A partner that applied, and an operator (made as `scripts/operator.mjs operator`
/// makes one): each one's session and id.
fn partner_and_operator(backend: &MemoryBackend) -> ((String, String), (String, String)) {
    let applicant = partner(backend, 1);
    let operator = partner(backend, 2);
    super::make_operator(backend, &operator.1);
    (applicant, operator)
}

fn send(
    backend: &MemoryBackend,
    method: Method,
    path: &str,
    body: Option<Value>,
    session: &str,
) -> (u16, Value) {
    let (status, body, _) = keys_call(method, path, body, session).send(backend);
    (status, body)
}

pub(super) fn decide(
    backend: &MemoryBackend,
    id: &str,
    decision: &str,
    session: &str,
) -> (u16, Value) {
    let path = format!("/portal/api/operator/partners/{id}/decision");
    send(
        backend,
        Method::POST,
        &path,
        Some(json!({ "decision": decision })),
        session,
    )
}

#[test]
fn only_the_operator_reaches_the_operator_endpoints() {
    let backend = MemoryBackend::new();
    let ((applicant, applicant_id), _) = partner_and_operator(&backend);
    for (method, path) in [
        (Method::GET, "/portal/api/operator/partners".to_owned()),
        (Method::GET, "/portal/api/operator/audit".to_owned()),
        (
            Method::POST,
            format!("/portal/api/operator/partners/{applicant_id}/decision"),
        ),
        (
            Method::POST,
            format!("/portal/api/operator/partners/{applicant_id}/tier"),
        ),
    ] {
        let body =
            (method == Method::POST).then(|| json!({ "decision": "approve", "tier": "partner" }));
        let (status, answer) = send(&backend, method.clone(), &path, body.clone(), &applicant);
        assert_eq!(status, 403, "{path}: {answer}");
        assert_eq!(answer["code"], "FORBIDDEN");
        let mut call = super::Call::new(method, &path, body);
        call.session = None;
        assert_eq!(call.send(&backend).0, 401, "{path} without a session");
    }
    // The applicant decided nothing.
    let status = backend.tables().partners[&applicant_id].status;
    assert_eq!(status, PartnerStatus::Applied);
}

#[test]
fn decisions_follow_the_status_and_the_operators_own_account_is_not_decided() {
    let backend = MemoryBackend::new();
    let ((_, applicant_id), (operator, operator_id)) = partner_and_operator(&backend);

    let (status, listed) = send(
        &backend,
        Method::GET,
        "/portal/api/operator/partners",
        None,
        &operator,
    );
    assert_eq!(status, 200, "{listed}");
    let accounts = listed["partners"].as_array().unwrap();
    assert_eq!(accounts.len(), 2);
    let applied = accounts
        .iter()
        .find(|a| a["id"] == applicant_id.as_str())
        .unwrap();
    assert_eq!(applied["status"], "applied");
    assert_eq!(applied["intended_use"], "night routes");

    let (status, account) = decide(&backend, &applicant_id, "approve", &operator);
    assert_eq!(status, 200, "{account}");
    assert_eq!(account["status"], "approved");
    // A decision that does not apply to the status is refused, naming it.
    let (status, refused) = decide(&backend, &applicant_id, "reject", &operator);
    assert_eq!(status, 400, "{refused}");
    assert_eq!(refused["details"]["status"], "approved");
    let (status, refused) = decide(&backend, &applicant_id, "promote", &operator);
    assert_eq!(
        (status, refused["details"]["field"].clone()),
        (400, json!("decision"))
    );
    // The operator's own account is not decided here.
    assert_eq!(decide(&backend, &operator_id, "suspend", &operator).0, 404);
}

#[test]
fn tiers_follow_their_rules_suspension_stops_keys_and_the_log_has_it_all() {
    let backend = MemoryBackend::new();
    let ((applicant, applicant_id), (operator, operator_id)) = partner_and_operator(&backend);
    assert_eq!(decide(&backend, &applicant_id, "approve", &operator).0, 200);
    let tier = format!("/portal/api/operator/partners/{applicant_id}/tier");
    for (body, field) in [
        (json!({ "tier": "enterprise" }), "daily_limit"),
        (
            json!({ "tier": "enterprise", "daily_limit": 0 }),
            "daily_limit",
        ),
        (
            json!({ "tier": "partner", "daily_limit": 5 }),
            "daily_limit",
        ),
        (json!({ "tier": "gold" }), "tier"),
    ] {
        let (status, refused) = send(&backend, Method::POST, &tier, Some(body.clone()), &operator);
        assert_eq!(status, 400, "{body}: {refused}");
        assert_eq!(refused["details"]["field"], field, "{body}");
    }
    let (status, account) = send(
        &backend,
        Method::POST,
        &tier,
        Some(json!({ "tier": "enterprise", "daily_limit": 50_000 })),
        &operator,
    );
    assert_eq!(status, 200, "{account}");
    assert_eq!(
        (account["tier"].clone(), account["daily_limit"].clone()),
        (json!("enterprise"), json!(50_000))
    );
    let stored = backend.tables().partners[&applicant_id].clone();
    assert_eq!(
        (stored.tier, stored.daily_limit),
        (Tier::Enterprise, Some(50_000))
    );

    // The partner's live key works until the operator suspends the account.
    let (status, key) = make(
        &backend,
        &applicant,
        json!({ "label": "live", "kind": "live", "apis": ["prediction", "router"] }),
    );
    assert_eq!(status, 201, "{key}");
    let key = key["key"].as_str().unwrap().to_owned();
    assert_eq!(predict_with(&backend, &key, now()), 200);
    // The partner's own log says the operator decided, never who or from where.
    let (_, own) = super::me(&backend, &applicant, now());
    let decided: Vec<&Value> = own["audit"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["action"] == "approved" || e["action"] == "tier_set")
        .collect();
    assert_eq!(decided.len(), 2, "{own}");
    for line in decided {
        assert_eq!(
            (&line["actor"], &line["address"]),
            (&json!("operator"), &Value::Null)
        );
    }
    assert!(!own.to_string().contains(operator_id.as_str()), "{own}");
    let (status, account) = decide(&backend, &applicant_id, "suspend", &operator);
    assert_eq!(
        (status, account["status"].clone()),
        (200, json!("suspended"))
    );
    // Within the record TTL the key stops (the memory gate reads the record afresh),
    // saying why.
    assert_eq!(predict_with(&backend, &key, now()), 403);

    // The whole log, newest first, the operator as the actor; the partner sees its own.
    let (status, log) = send(
        &backend,
        Method::GET,
        "/portal/api/operator/audit?limit=3",
        None,
        &operator,
    );
    assert_eq!(status, 200, "{log}");
    let actions: Vec<&str> = log["audit"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["action"].as_str().unwrap())
        .collect();
    assert_eq!(actions, ["suspended", "key_created", "tier_set"]);
    assert_eq!(log["audit"][0]["actor"], operator_id.as_str());
    assert_eq!(log["audit"][2]["subject"], "enterprise");
    // Suspended: the partner's session ended with the decision.
    assert_eq!(super::me(&backend, &applicant, now()).0, 401);
    for query in ["limit=0", "limit=501", "limit=many"] {
        let path = format!("/portal/api/operator/audit?{query}");
        let (status, refused) = send(&backend, Method::GET, &path, None, &operator);
        assert_eq!(
            (status, refused["details"]["field"].clone()),
            (400, json!("limit")),
            "{query}"
        );
    }
}

#[test]
fn the_operator_reads_the_accounts_a_page_at_a_time_each_once() {
    let backend = MemoryBackend::new();
    let (_, (operator, _)) = partner_and_operator(&backend);
    for seed in 3..8 {
        partner(&backend, seed);
    }
    let total = backend.tables().partners.len();
    assert_eq!(total, 7);
    let mut seen = Vec::new();
    let mut path = "/portal/api/operator/partners?limit=2".to_owned();
    loop {
        let (status, page) = send(&backend, Method::GET, &path, None, &operator);
        assert_eq!(status, 200, "{page}");
        let ids: Vec<String> = page["partners"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["id"].as_str().unwrap().to_owned())
            .collect();
        assert!(ids.len() <= 2);
        seen.extend(ids);
        match page["next"].as_str() {
            Some(next) => path = format!("/portal/api/operator/partners?limit=2&after={next}"),
            None => break,
        }
    }
    let mut unique = seen.clone();
    unique.dedup();
    assert_eq!(
        (seen.len(), unique.len()),
        (total, total),
        "each account once"
    );
    // The default page holds them all here; bad pages are refused naming the field.
    let (_, all) = send(
        &backend,
        Method::GET,
        "/portal/api/operator/partners",
        None,
        &operator,
    );
    assert_eq!(
        (all["partners"].as_array().unwrap().len(), &all["next"]),
        (total, &Value::Null)
    );
    for (query, field) in [
        ("limit=0", "limit"),
        ("limit=501", "limit"),
        ("after=nope", "after"),
        ("after=1_xyz", "after"),
    ] {
        let path = format!("/portal/api/operator/partners?{query}");
        let (status, refused) = send(&backend, Method::GET, &path, None, &operator);
        assert_eq!(
            (status, refused["details"]["field"].as_str()),
            (400, Some(field)),
            "{query}"
        );
    }
}
