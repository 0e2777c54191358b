//! Requests through `handle`: keys, quotas, origins, methods, health, compression,
//! and the failures logged.

use bytes::Bytes;
use http::{Method, Request, Response};
use serde_json::{Value, json};

use crate::api::access::keys::PresentedKey;
use crate::api::backend_error::BackendError;
use crate::api::routes::ROUTES;
use crate::api::serving::dispatch::{BENCH_MAX_SIZE, MODEL_VERSION_HEADER, RequestContext, handle};
use crate::api::test_support::{
    DEMO_ORIGIN, LIVE_KEY, MemoryBackend, SANDBOX_KEY, call, ctx, get, get_with, json_of, now,
    send, send_bytes,
};
use hexrisk_engine::artifact::Manifest;

#[test]
fn health_needs_no_key_and_reports_components() {
    let backend = MemoryBackend::new();
    let (status, body, _) = get(&backend, "http://x/v1/health", None);
    assert_eq!((status, body["status"].as_str()), (200, Some("healthy")));
    let (_, body, _) = get(&backend, "http://x/health", None);
    assert_eq!(body["coverage"]["cities"], json!(["city_ca_tor"]));
    let backend = MemoryBackend::new().without_models();
    let (status, body, _) = get(&backend, "http://x/v1/health", None);
    assert_eq!(
        (status, body["services"]["models"].as_str()),
        (503, Some("unhealthy"))
    );
}

#[test]
fn missing_wrong_and_malformed_keys_are_401_as_specified() {
    let backend = MemoryBackend::new();
    let (status, body, _) = get(&backend, "http://x/v1/cities", None);
    assert_eq!(status, 401);
    assert_eq!(body["message"], "API key is required");
    assert!(body["details"]["suggestion"].is_string());
    let wrong = "hexrisk_live_ZZZZ456789abcdefghijABCDEFGHIJKL";
    let (status, body, _) = get(&backend, "http://x/v1/cities", Some(wrong));
    assert_eq!(status, 401);
    assert_eq!(body["message"], "API key is invalid");
    assert_eq!(body["details"]["key_prefix"], "hexrisk_live_ZZZZ...");
    let (status, _, _) = get(&backend, "http://x/v1/cities", Some("garbage"));
    assert_eq!(status, 401);
}

#[test]
fn sandbox_keys_are_marked_counted_and_limited() {
    let backend = MemoryBackend::new();
    for remaining in [2, 1, 0] {
        let (status, body, response) = get(&backend, "http://x/v1/classes", Some(SANDBOX_KEY));
        assert_eq!(status, 200);
        assert_eq!(body["sandbox_mode"], true);
        assert_eq!(remaining_of(&response), remaining);
    }
    let (status, body, response) = get(&backend, "http://x/v1/classes", Some(SANDBOX_KEY));
    assert_eq!(status, 429);
    assert_eq!(body["code"], "RATE_LIMITED");
    assert_eq!(
        (
            body["details"]["limit"].clone(),
            body["details"]["used"].clone()
        ),
        (json!(3), json!(3))
    );
    assert_eq!(body["details"]["reset_at"], "2022-01-06T00:00:00Z");
    assert!(response.headers().contains_key("retry-after"));
    // Live keys carry no sandbox marker.
    let (_, body, _) = get(&backend, "http://x/v1/classes", Some(LIVE_KEY));
    assert!(body.get("sandbox_mode").is_none());
}

#[test]
fn expired_and_revoked_keys_are_refused() {
    let mut backend = MemoryBackend::new();
    let digest = PresentedKey::new(LIVE_KEY).digest();
    backend.keys.get_mut(&digest).unwrap().revoked_at = Some(now() - chrono::Duration::seconds(1));
    let (status, body, _) = get(&backend, "http://x/v1/classes", Some(LIVE_KEY));
    assert_eq!(
        (
            status,
            body["message"].as_str(),
            body["details"]["reason"].as_str()
        ),
        (401, Some("API key was revoked"), Some("revoked"))
    );
    let digest = PresentedKey::new(SANDBOX_KEY).digest();
    backend.keys.get_mut(&digest).unwrap().expires_at = Some(now());
    let (status, body, _) = get(&backend, "http://x/v1/classes", Some(SANDBOX_KEY));
    assert_eq!(
        (status, body["details"]["reason"].as_str()),
        (401, Some("expired"))
    );
    backend.keys.get_mut(&digest).unwrap().expires_at = None;
    backend.keys.get_mut(&digest).unwrap().suspended = true;
    let (status, body, _) = get(&backend, "http://x/v1/classes", Some(SANDBOX_KEY));
    assert_eq!(
        (
            status,
            body["code"].as_str(),
            body["details"]["reason"].as_str()
        ),
        (403, Some("FORBIDDEN"), Some("account_suspended"))
    );
    // A key no one holds is answered as before, whatever its text.
    let (status, body, _) = get(
        &backend,
        "http://x/v1/classes",
        Some("hexrisk_live_ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ"),
    );
    assert_eq!(
        (status, body["message"].as_str()),
        (401, Some("API key is invalid"))
    );
    assert!(body["details"].get("reason").is_none());
}

#[test]
fn posts_need_json_and_answer_predictions() {
    let backend = MemoryBackend::new();
    let body = json!({"latitude": 43.6534, "longitude": -79.3841});
    let (status, out, _) = call(
        &backend,
        Method::POST,
        "http://x/v1/predict",
        Some(LIVE_KEY),
        Some(body.clone()),
    );
    assert_eq!((status, out["status"].as_str()), (200, Some("success")));
    let bearer = format!("Bearer {LIVE_KEY}");
    let response = send_bytes(
        &backend,
        Method::POST,
        "http://x/v1/predict",
        &[("authorization", &bearer), ("content-type", "text/plain")],
        Bytes::from(body.to_string()),
    );
    assert_eq!(
        (
            response.status().as_u16(),
            json_of(&response)["details"]["field"].as_str()
        ),
        (400, Some("Content-Type"))
    );
}

/// A backend with one dependency broken: `database`, `keys` (the gates) or `models`.
fn broken(component: &str) -> MemoryBackend {
    let mut backend = MemoryBackend::new();
    match component {
        "database" => backend.database_up = false,
        "keys" => backend.gates_up = false,
        "models" => backend = backend.without_models(),
        other => panic!("no component {other}"),
    }
    backend
}

#[test]
fn failures_of_dependencies_are_500_without_detail_and_logged_once_with_the_cause() {
    for (component, reason) in [
        ("database", "down"),
        ("keys", "gate unreachable"),
        ("models", "manifest.json is missing"),
    ] {
        for (uri, key) in [
            ("http://x/v1/cities", Some(LIVE_KEY)),
            ("http://x/hexes/config", None),
        ] {
            let backend = broken(component);
            let (status, body) = if let Some(key) = key {
                let (status, body, _) = get(&backend, uri, Some(key));
                (status, body)
            } else {
                let answer = get_with(&backend, uri, &[("x-api-key", LIVE_KEY)]);
                (answer.status().as_u16(), json_of(&answer))
            };
            // The router's configuration needs no model.
            if component == "models" && key.is_none() {
                assert_eq!(status, 200, "{uri}");
                assert!(backend.logged().is_empty(), "{uri}");
                continue;
            }
            assert_eq!(
                (status, body["code"].as_str()),
                (500, Some("INTERNAL_ERROR")),
                "{component} {uri}"
            );
            assert_eq!(body["details"], json!({}));
            assert_eq!(
                backend.logged(),
                [BackendError::new(component, reason)],
                "{component} {uri}"
            );
        }
    }
}

#[test]
fn a_preflight_never_reads_the_key_store() {
    // With the key store down, a preflight is answered all the same: it never asked.
    let backend = broken("database");
    let answer = send(
        &backend,
        Method::OPTIONS,
        "http://x/hexes/score",
        &[("origin", DEMO_ORIGIN)],
        None,
    );
    assert_eq!(answer.status(), 204);
    assert!(backend.logged().is_empty());
}

#[test]
fn health_logs_each_unhealthy_component_once() {
    for path in ["http://x/v1/health", "http://x/health"] {
        let mut backend = broken("models");
        backend.database_up = false;
        let (status, body, _) = get(&backend, path, None);
        assert_eq!((status, body["status"].as_str()), (503, Some("unhealthy")));
        assert_eq!(
            backend.logged(),
            [
                BackendError::new("models", "manifest.json is missing"),
                BackendError::new("database", "down"),
            ],
            "{path}"
        );
    }
}

#[test]
fn answers_without_a_failing_dependency_log_nothing() {
    // Answers of every kind but a dependency's failure: success, refused keys, a
    // wrong method, an unknown path, and a spent quota.
    let backend = MemoryBackend::new();
    for (uri, key, expected) in [
        ("http://x/v1/health", None, 200),
        ("http://x/v1/cities", Some(LIVE_KEY), 200),
        ("http://x/v1/cities", None, 401),
        ("http://x/v1/cities", Some("hexrisk_live_nope"), 401),
        ("http://x/v1/predict", Some(LIVE_KEY), 405),
        ("http://x/nowhere", None, 404),
    ] {
        let (status, body, _) = get(&backend, uri, key);
        assert_eq!(status, expected, "{uri} {key:?}: {body}");
    }
    for expected in [200, 200, 200, 429] {
        let (status, _, _) = get(&backend, "http://x/v1/classes", Some(SANDBOX_KEY));
        assert_eq!(status, expected);
    }
    assert!(backend.logged().is_empty(), "{:?}", backend.logged());
}

#[test]
fn the_openapi_documents_are_served_without_a_key_and_cover_every_endpoint() {
    let backend = MemoryBackend::new();
    let (status, prediction, _) = get(&backend, "http://x/v1/openapi.json", None);
    assert_eq!(status, 200);
    let (status, router, _) = get(&backend, "http://x/openapi.json", None);
    assert_eq!(status, 200);
    for doc in [&prediction, &router] {
        assert_eq!(doc["openapi"], "3.1.0");
    }
    // The prediction document's paths are relative to its server's `/v1`.
    for route in &ROUTES {
        let (path, method) = (route.path, &route.method);
        if route.path.starts_with("/portal") || route.is_baseline() {
            continue; // the portal's document is checked in the portal's tests
        }
        let (doc, template) = match path.strip_prefix("/v1") {
            Some(rest) => (&prediction, rest),
            None => (&router, path),
        };
        let operation = &doc["paths"][template][method.as_str().to_ascii_lowercase()];
        assert!(operation.is_object(), "{method} {path} is not documented");
    }
}

#[test]
fn every_documented_operation_is_a_row_that_takes_the_documented_key() {
    let backend = MemoryBackend::new();
    let (_, prediction, _) = get(&backend, "http://x/v1/openapi.json", None);
    let (_, router, _) = get(&backend, "http://x/openapi.json", None);
    let mut documented = 0;
    for (doc, prefix) in [(&prediction, "/v1"), (&router, "")] {
        for (template, operations) in doc["paths"].as_object().unwrap() {
            for (method, operation) in operations.as_object().unwrap() {
                if !operation.is_object() || method == "parameters" {
                    continue;
                }
                documented += 1;
                let path = format!("{prefix}{template}");
                let route = ROUTES
                    .iter()
                    .find(|r| r.path == path && r.method.as_str().eq_ignore_ascii_case(method))
                    .unwrap_or_else(|| panic!("{method} {path} is documented but no row"));
                // No security listed, or an empty list: callable without a key.
                let open = operation["security"].as_array().is_some_and(Vec::is_empty)
                    || (operation.get("security").is_none() && doc.get("security").is_none());
                assert_eq!(
                    open,
                    route.access == crate::api::routes::Access::Public,
                    "{method} {path}: documented security {}",
                    operation["security"]
                );
            }
        }
    }
    assert!(documented >= 30, "{documented} operations documented");
}

#[test]
fn the_benchmark_routes_exist_only_when_enabled() {
    let backend = MemoryBackend::new();
    let enabled = RequestContext {
        bench_noop: true,
        ..ctx()
    };
    let call = |uri: &str, ctx: RequestContext, key: Option<&str>| {
        let mut request = Request::builder().uri(uri);
        if let Some(key) = key {
            request = request.header("authorization", format!("Bearer {key}"));
        }
        let request = request.body(Bytes::new()).unwrap();
        futures_executor::block_on(handle(&request, ctx, &backend))
    };
    for uri in ["http://x/__bench/noop", "http://x/__bench/gate"] {
        assert_eq!(call(uri, ctx(), Some(LIVE_KEY)).status(), 404, "{uri}");
    }
    assert_eq!(call("http://x/__bench/noop", enabled, None).status(), 200);
    // An answer of the size asked for, valid JSON, up to the limit.
    for (size, expected) in [(5_000, 5_000), (2 << 20, BENCH_MAX_SIZE)] {
        let answer = call(&format!("http://x/__bench/noop?size={size}"), enabled, None);
        let body: Value = serde_json::from_slice(answer.body()).unwrap();
        assert_eq!(
            (answer.body().len(), &body["status"]),
            (expected, &json!("success"))
        );
    }
    // The gate route asks the key's gate, as every authenticated request does.
    assert_eq!(call("http://x/__bench/gate", enabled, None).status(), 401);
    let counted = call("http://x/__bench/gate", enabled, Some(LIVE_KEY));
    assert_eq!(counted.status(), 200);
    assert!(
        counted.headers()["ratelimit"]
            .to_str()
            .unwrap()
            .contains(";r=9999;")
    );
    assert_eq!(call("http://x/__bench/other", enabled, None).status(), 404);
}

#[test]
fn unknown_paths_and_wrong_methods() {
    let backend = MemoryBackend::new();
    let (status, body, _) = get(&backend, "http://x/v2/health", None);
    assert_eq!((status, body["code"].as_str()), (404, Some("NOT_FOUND")));
    let (status, body, response) = get(&backend, "http://x/v1/predict", Some(LIVE_KEY));
    assert_eq!(
        (status, body["code"].as_str()),
        (405, Some("METHOD_NOT_ALLOWED"))
    );
    assert_eq!(response.headers()["allow"], "POST, OPTIONS");
    let (status, _, _) = get(&backend, "http://x/v1/cities/", Some(LIVE_KEY));
    assert_eq!(status, 200);
}

#[test]
fn head_is_answered_like_get_and_counts() {
    let backend = MemoryBackend::new();
    let head = send(
        &backend,
        Method::HEAD,
        "http://x/v1/classes",
        &[
            ("authorization", &format!("Bearer {SANDBOX_KEY}")),
            ("accept-encoding", "gzip"),
        ],
        None,
    );
    assert_eq!(head.status(), 200);
    assert_eq!(remaining_of(&head), 2);
    // The runtime drops a HEAD body; compressing it would only waste the work.
    assert!(!head.headers().contains_key("content-encoding"));
    let (status, _, response) = get(&backend, "http://x/v1/classes", Some(SANDBOX_KEY));
    assert_eq!(status, 200);
    assert_eq!(remaining_of(&response), 1);
    // Preflights carry no key and do not count.
    let options = send(&backend, Method::OPTIONS, "http://x/v1/classes", &[], None);
    assert_eq!(options.status(), 204);
    let (_, _, response) = get(&backend, "http://x/v1/classes", Some(SANDBOX_KEY));
    assert_eq!(remaining_of(&response), 0);
    // A HEAD to a POST-only path is refused like a GET.
    let head = send(
        &backend,
        Method::HEAD,
        "http://x/v1/predict",
        &[("authorization", &format!("Bearer {LIVE_KEY}"))],
        None,
    );
    assert_eq!(head.status(), 405);
}

#[test]
fn router_keys_go_in_x_api_key_and_origins_must_be_listed() {
    let backend = MemoryBackend::new();
    let uri = "http://x/hexes/config";
    let none = get_with(&backend, uri, &[]);
    assert_eq!(none.status(), 401);
    assert!(
        json_of(&none)["details"]["suggestion"]
            .as_str()
            .unwrap()
            .contains("X-API-Key")
    );
    // A Bearer header is the prediction API's, not the router's.
    let bearer = format!("Bearer {LIVE_KEY}");
    let wrong = get_with(&backend, uri, &[("authorization", &bearer)]);
    assert_eq!(wrong.status(), 401);
    let bad = get_with(&backend, uri, &[("x-api-key", "hexrisk_live_nope")]);
    assert_eq!(json_of(&bad)["code"], "UNAUTHORIZED");
    // Servers: no Origin, the key alone.
    let server = get_with(&backend, uri, &[("x-api-key", LIVE_KEY)]);
    assert_eq!(server.status(), 200);
    assert!(!server.headers().contains_key("access-control-allow-origin"));
    // Browsers: the origin must be on the key's list and is echoed exactly.
    let browser = get_with(
        &backend,
        uri,
        &[("x-api-key", LIVE_KEY), ("origin", DEMO_ORIGIN)],
    );
    assert_eq!(browser.status(), 200);
    assert_eq!(
        browser.headers()["access-control-allow-origin"],
        DEMO_ORIGIN
    );
    assert!(
        browser.headers()["vary"]
            .to_str()
            .unwrap()
            .contains("Origin")
    );
    let evil = get_with(
        &backend,
        uri,
        &[("x-api-key", LIVE_KEY), ("origin", "https://evil.example")],
    );
    assert_eq!(evil.status(), 403);
    assert_eq!(json_of(&evil)["code"], "FORBIDDEN");
    assert!(!evil.headers().contains_key("access-control-allow-origin"));
    // The sandbox key lists no origin at all.
    let sandbox = get_with(
        &backend,
        uri,
        &[("x-api-key", SANDBOX_KEY), ("origin", DEMO_ORIGIN)],
    );
    assert_eq!(sandbox.status(), 403);
}

#[test]
fn preflights_answer_every_browser_origin_alike_and_the_key_decides() {
    let backend = MemoryBackend::new();
    let ask = |origin: &str| {
        send(
            &backend,
            Method::OPTIONS,
            "http://x/hexes/score",
            &[
                ("origin", origin),
                ("access-control-request-method", "POST"),
                ("access-control-request-headers", "x-api-key, content-type"),
            ],
            None,
        )
    };
    let ok = ask(DEMO_ORIGIN);
    assert_eq!(ok.status(), 204);
    assert_eq!(ok.headers()["access-control-allow-origin"], DEMO_ORIGIN);
    assert_eq!(
        ok.headers()["access-control-allow-methods"],
        "POST, OPTIONS"
    );
    assert!(
        ok.headers()["access-control-allow-headers"]
            .to_str()
            .unwrap()
            .contains("X-API-Key")
    );
    assert!(ok.body().is_empty());
    // An origin no key lists gets the same answer: a preflight reveals nothing about
    // any key's list. Its real request, with a key, is refused.
    let unlisted = ask("https://evil.example");
    assert_eq!(unlisted.status(), 204);
    let strip = |r: &Response<Bytes>| {
        let mut h = r.headers().clone();
        h.remove("access-control-allow-origin");
        h
    };
    assert_eq!(strip(&unlisted), strip(&ok));
    assert_eq!(
        unlisted.headers()["access-control-allow-origin"],
        "https://evil.example"
    );
    let real = send(
        &backend,
        Method::POST,
        "http://x/hexes/score",
        &[("origin", "https://evil.example"), ("x-api-key", LIVE_KEY)],
        Some(json!({"hexes": []})),
    );
    assert_eq!(real.status(), 403);
    assert!(!real.headers().contains_key("access-control-allow-origin"));
    // Not a browser origin: refused, saying so.
    for origin in ["null", "h", "https://maps.example/path"] {
        let refused = ask(origin);
        assert_eq!(refused.status(), 403, "{origin}");
        assert!(
            !refused
                .headers()
                .contains_key("access-control-allow-origin")
        );
    }
    let unknown = send(
        &backend,
        Method::OPTIONS,
        "http://x/nowhere",
        &[("origin", DEMO_ORIGIN)],
        None,
    );
    assert_eq!(unknown.status(), 404);
}

#[test]
fn large_answers_are_gzipped_and_lists_count_their_hexes() {
    let backend = MemoryBackend::new();
    let headers = [("x-api-key", LIVE_KEY), ("accept-encoding", "gzip")];
    let lookup = send(
        &backend,
        Method::POST,
        "http://x/hexes/lookup",
        &headers,
        Some(json!({"lat": 43.6534, "lng": -79.3841, "ring": 41, "detail": true})),
    );
    assert_eq!(lookup.status(), 200);
    assert_eq!(lookup.headers()["content-encoding"], "gzip");
    assert_eq!(lookup.headers()["x-hex-count"], "5167");
    let all = get_with(
        &backend,
        "http://x/hexes/all?west=-79.5&south=43.6&east=-79.3&north=43.7",
        &[("x-api-key", LIVE_KEY)],
    );
    assert_eq!(all.headers()["x-hex-count"], "37");
    assert!(
        !all.headers().contains_key("content-encoding"),
        "not accepted, not compressed"
    );
    assert_eq!(json_of(&all).as_array().unwrap().len(), 37);
}

#[test]
fn answers_name_the_published_version_and_its_data_through_date() {
    let backend = MemoryBackend::new();
    let manifest: Manifest =
        serde_json::from_slice(&backend.files.borrow()[Manifest::FILE_NAME]).unwrap();
    let toronto = manifest.city("city_ca_tor").unwrap().clone();
    let (status, out, response) = call(
        &backend,
        Method::POST,
        "http://x/v1/predict",
        Some(LIVE_KEY),
        Some(json!({"latitude": 43.6534, "longitude": -79.3841})),
    );
    assert_eq!(status, 200);
    assert_eq!(out["model_info"]["version"], json!(toronto.version));
    assert_eq!(
        out["model_info"]["last_updated"],
        json!(toronto.data_through.to_string())
    );
    assert_eq!(
        response.headers()[MODEL_VERSION_HEADER],
        format!("city_ca_tor={}", toronto.version).as_str()
    );
    let (_, cities, _) = get(&backend, "http://x/v1/cities", Some(LIVE_KEY));
    assert_eq!(cities["cities"][0]["model_version"], json!(toronto.version));
    assert_eq!(
        cities["cities"][0]["last_updated"],
        json!(toronto.data_through.to_string())
    );
    let (_, health, _) = get(&backend, "http://x/health", None);
    assert_eq!(health["models"]["version"], json!(manifest.version));
    assert_eq!(
        health["models"]["cities"][0]["version"],
        json!(toronto.version)
    );
    // An answer that reads no city names none.
    let (_, _, response) = get(&backend, "http://x/v1/classes", Some(LIVE_KEY));
    assert!(!response.headers().contains_key(MODEL_VERSION_HEADER));
}

/// The `r` (remaining) parameter of a response's `RateLimit` field.
fn remaining_of(response: &Response<Bytes>) -> u32 {
    let field = response.headers()["ratelimit"].to_str().unwrap();
    let r = field
        .split(';')
        .find_map(|p| p.strip_prefix("r="))
        .unwrap_or_else(|| panic!("no r in {field}"));
    r.parse().unwrap()
}

#[test]
fn a_clock_that_follows_the_data_makes_the_week_after_it_current() {
    let backend = MemoryBackend::new();
    let ask = |ctx: RequestContext| {
        let request = Request::builder()
            .uri("http://x/v1/prediction/range?latitude=43.6534&longitude=-79.3841")
            .header("authorization", format!("Bearer {LIVE_KEY}"))
            .body(Bytes::new())
            .unwrap();
        json_of(&futures_executor::block_on(handle(&request, ctx, &backend)))
    };
    // The fixture's data runs to Sunday 2021-12-26; the tests' clock is 2022-01-05.
    let pinned = ask(ctx());
    assert_eq!(pinned["current_week"], "2022-01-03", "{pinned}");
    let following = ask(RequestContext {
        clock_follows_data: true,
        ..ctx()
    });
    assert_eq!(following["current_week"], "2021-12-27");
}
