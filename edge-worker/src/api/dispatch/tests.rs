//! The dispatcher through `handle`, with an in-memory backend: keys, quotas, origins,
//! methods, health, compression, and the backend and test helpers other tests share.

use super::*;
use crate::api::gate::DailyCount;
use crate::api::keys::{PresentedKey, Tier};
use crate::api::models::{ModelStore, StoreSettings};
use crate::api::prediction::tests::{atlas, now};
use hexrisk_engine::artifact::{self, Manifest, ManifestCity};
use hexrisk_engine::city::Atlas;
use serde_json::json;
use sha2::{Digest, Sha256};
use std::cell::RefCell;
use std::collections::HashMap;

pub(crate) const SANDBOX_KEY: &str = "hexrisk_sandbox_AbCdEfGhIjKlMnOpQrStUvWxYz012345";
pub(crate) const LIVE_KEY: &str = "hexrisk_live_0123456789abcdefghijABCDEFGHIJKL";
pub(crate) const DEMO_ORIGIN: &str = "http://127.0.0.1:8080";

/// An in-memory backend that keeps the failures it is asked to log.
pub(crate) struct Memory {
    pub(crate) keys: HashMap<String, KeyRecord>,
    /// Each key's daily count, by digest, as its gate keeps it.
    pub(crate) counts: RefCell<HashMap<String, DailyCount>>,
    /// The model bucket: file name to bytes.
    pub(crate) files: RefCell<HashMap<String, Vec<u8>>>,
    /// The bucket files read, in order.
    pub(crate) reads: RefCell<Vec<String>>,
    pub(crate) store: ModelStore,
    /// The key store (keys, origins) answers.
    pub(crate) database_up: bool,
    /// The key gates answer.
    pub(crate) gates_up: bool,
    /// The failures passed to `log_failure`, in order.
    pub(crate) logged: RefCell<Vec<BackendError>>,
    /// Bucket reads wait once, as a network read would, so that concurrent requests
    /// interleave.
    pub(crate) slow_reads: bool,
    /// The pauses requests took on their own timers.
    pub(crate) pauses: std::cell::Cell<usize>,
}

/// A future that is pending once, then ready.
struct YieldOnce(bool);

impl std::future::Future for YieldOnce {
    type Output = ();
    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<()> {
        if self.0 {
            std::task::Poll::Ready(())
        } else {
            self.0 = true;
            cx.waker().wake_by_ref();
            std::task::Poll::Pending
        }
    }
}

fn record(id: &str, kind: KeyKind, tier: Tier, limit: u32) -> KeyRecord {
    KeyRecord {
        id: id.into(),
        kind,
        tier,
        daily_limit: limit,
        issued_at: now() - chrono::Duration::days(1),
        expires_at: (kind == KeyKind::Sandbox).then(|| now() + chrono::Duration::days(29)),
        revoked_at: None,
        origins: Vec::new(),
    }
}

impl Memory {
    pub(crate) fn new() -> Self {
        let mut keys = HashMap::new();
        keys.insert(
            PresentedKey::new(SANDBOX_KEY).digest(),
            record("sandbox-1", KeyKind::Sandbox, Tier::Sandbox, 3),
        );
        keys.insert(
            PresentedKey::new(LIVE_KEY).digest(),
            KeyRecord {
                origins: vec![DEMO_ORIGIN.to_owned()],
                ..record("live-1", KeyKind::Live, Tier::Partner, 10_000)
            },
        );
        Self {
            keys,
            counts: RefCell::new(HashMap::new()),
            files: RefCell::new(bucket(&atlas())),
            reads: RefCell::new(Vec::new()),
            store: ModelStore::new(StoreSettings::default()),
            database_up: true,
            gates_up: true,
            logged: RefCell::new(Vec::new()),
            slow_reads: false,
            pauses: std::cell::Cell::new(0),
        }
    }

    /// Removes every model file (the bucket is empty).
    pub(crate) fn without_models(self) -> Self {
        self.files.borrow_mut().clear();
        self
    }

    /// The failures logged so far.
    pub(crate) fn logged(&self) -> Vec<BackendError> {
        self.logged.borrow().clone()
    }
}

impl Backend for Memory {
    async fn admit(&self, request: &GateRequest) -> Result<Admission, BackendError> {
        if !self.gates_up {
            return Err(BackendError::new("keys", "gate unreachable"));
        }
        // A gate reading a key record from a failing store.
        if !self.database_up {
            return Err(BackendError::new("database", "down"));
        }
        let mut counts = self.counts.borrow_mut();
        let count = counts.entry(request.digest.clone()).or_default();
        Ok(crate::api::gate::admit(self.keys.get(&request.digest), count, request).0)
    }

    async fn read_model_file(
        &self,
        key: &str,
        limit: u64,
    ) -> Result<Option<Vec<u8>>, BackendError> {
        self.reads.borrow_mut().push(key.to_owned());
        if self.slow_reads {
            YieldOnce(false).await;
        }
        match self.files.borrow().get(key) {
            Some(bytes) if bytes.len() as u64 > limit => Err(BackendError::new(
                "models",
                format!("{key} has {} bytes, more than {limit}", bytes.len()),
            )),
            found => Ok(found.cloned()),
        }
    }

    async fn inflate_zlib(&self, compressed: &[u8], limit: usize) -> Result<Vec<u8>, BackendError> {
        artifact::inflate(compressed)
            .ok()
            .filter(|plain| plain.len() <= limit)
            .ok_or_else(|| BackendError::new("models", "artifact body cannot be decompressed"))
    }

    async fn sha256_hex(&self, bytes: &[u8]) -> Result<String, BackendError> {
        Ok(hex::encode(Sha256::digest(bytes)))
    }

    async fn pause(&self, _ms: u32) {
        // Another task runs meanwhile, as another request would.
        self.pauses.set(self.pauses.get() + 1);
        YieldOnce(false).await;
    }

    fn models(&self) -> &ModelStore {
        &self.store
    }

    async fn origin_listed(&self, origin: &str) -> Result<bool, BackendError> {
        if !self.database_up {
            return Err(BackendError::new("database", "down"));
        }
        Ok(self
            .keys
            .values()
            .any(|k| crate::api::cors::origin_listed(&k.origins, origin)))
    }

    async fn check_database(&self) -> Result<(), BackendError> {
        if self.database_up {
            Ok(())
        } else {
            Err(BackendError::new("database", "down"))
        }
    }

    fn log_failure(&self, err: &BackendError) {
        self.logged.borrow_mut().push(err.clone());
    }
}

pub(crate) fn ctx() -> RequestContext {
    RequestContext {
        now: now(),
        forecast_now: now(),
        bench_noop: false,
    }
}

pub(crate) fn call(
    backend: &Memory,
    method: Method,
    uri: &str,
    key: Option<&str>,
    body: Option<Value>,
) -> (u16, Value, Response<Bytes>) {
    let mut builder = Request::builder().method(method).uri(uri);
    if let Some(key) = key {
        builder = builder.header("authorization", format!("Bearer {key}"));
    }
    if body.is_some() {
        builder = builder.header("content-type", "application/json");
    }
    let bytes = body.map(|b| Bytes::from(b.to_string())).unwrap_or_default();
    let request = builder.body(bytes).unwrap();
    let response = futures_executor::block_on(handle(&request, ctx(), backend));
    let value = serde_json::from_slice(response.body()).unwrap();
    (response.status().as_u16(), value, response)
}

/// A GET without a body.
pub(crate) fn get(backend: &Memory, uri: &str, key: Option<&str>) -> (u16, Value, Response<Bytes>) {
    call(backend, Method::GET, uri, key, None)
}

#[test]
fn health_needs_no_key_and_reports_components() {
    let backend = Memory::new();
    let (status, body, _) = get(&backend, "http://x/v1/health", None);
    assert_eq!((status, body["status"].as_str()), (200, Some("healthy")));
    let (_, body, _) = get(&backend, "http://x/health", None);
    assert_eq!(body["coverage"]["cities"], json!(["city_ca_tor"]));
    let backend = Memory::new().without_models();
    let (status, body, _) = get(&backend, "http://x/v1/health", None);
    assert_eq!(
        (status, body["services"]["models"].as_str()),
        (503, Some("unhealthy"))
    );
}

#[test]
fn missing_wrong_and_malformed_keys_are_401_as_specified() {
    let backend = Memory::new();
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
    let backend = Memory::new();
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
    let mut backend = Memory::new();
    let digest = PresentedKey::new(LIVE_KEY).digest();
    backend.keys.get_mut(&digest).unwrap().revoked_at = Some(now() - chrono::Duration::seconds(1));
    let (status, body, _) = get(&backend, "http://x/v1/classes", Some(LIVE_KEY));
    assert_eq!(
        (status, body["message"].as_str()),
        (401, Some("API key is invalid"))
    );
    let digest = PresentedKey::new(SANDBOX_KEY).digest();
    backend.keys.get_mut(&digest).unwrap().expires_at = Some(now());
    let (status, _, _) = get(&backend, "http://x/v1/classes", Some(SANDBOX_KEY));
    assert_eq!(status, 401);
}

#[test]
fn posts_need_json_and_answer_predictions() {
    let backend = Memory::new();
    let body = json!({"latitude": 43.6534, "longitude": -79.3841});
    let (status, out, _) = call(
        &backend,
        Method::POST,
        "http://x/v1/predict",
        Some(LIVE_KEY),
        Some(body.clone()),
    );
    assert_eq!((status, out["status"].as_str()), (200, Some("success")));
    let request = Request::builder()
        .method(Method::POST)
        .uri("http://x/v1/predict")
        .header("authorization", format!("Bearer {LIVE_KEY}"))
        .header("content-type", "text/plain")
        .body(Bytes::from(body.to_string()))
        .unwrap();
    let response = futures_executor::block_on(handle(&request, ctx(), &backend));
    let out: Value = serde_json::from_slice(response.body()).unwrap();
    assert_eq!(
        (response.status().as_u16(), out["details"]["field"].as_str()),
        (400, Some("Content-Type"))
    );
}

/// A backend with one dependency broken: `database`, `keys` (the gates) or `models`.
fn broken(component: &str) -> Memory {
    let mut backend = Memory::new();
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
                let answer =
                    router_call(&backend, Method::GET, uri, &[("x-api-key", LIVE_KEY)], None);
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
fn a_preflight_logs_a_failing_key_store() {
    let backend = broken("database");
    let answer = router_call(
        &backend,
        Method::OPTIONS,
        "http://x/hexes/score",
        &[("origin", DEMO_ORIGIN)],
        None,
    );
    assert_eq!(answer.status(), 500);
    assert_eq!(backend.logged(), [BackendError::new("database", "down")]);
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
    let backend = Memory::new();
    for (uri, key) in [
        ("http://x/v1/health", None),
        ("http://x/v1/cities", Some(LIVE_KEY)),
        ("http://x/v1/cities", None),
        ("http://x/v1/cities", Some("hexrisk_live_nope")),
        ("http://x/v1/predict", Some(LIVE_KEY)),
        ("http://x/nowhere", None),
    ] {
        get(&backend, uri, key);
    }
    for _ in 0..4 {
        get(&backend, "http://x/v1/classes", Some(SANDBOX_KEY));
    }
    assert!(backend.logged().is_empty(), "{:?}", backend.logged());
}

#[test]
fn the_openapi_document_is_served_without_a_key_and_covers_every_endpoint() {
    let backend = Memory::new();
    let (status, doc, _) = get(&backend, "http://x/v1/openapi.json", None);
    assert_eq!(status, 200);
    assert_eq!(doc["openapi"], "3.1.0");
    for (path, method, _) in Endpoint::ALL
        .iter()
        .filter(|(p, _, _)| p.starts_with("/v1/"))
    {
        let template = &path["/v1".len()..];
        let operation = &doc["paths"][template][method.as_str().to_ascii_lowercase()];
        assert!(operation.is_object(), "{method} {path} is not documented");
    }
}

#[test]
fn the_benchmark_routes_exist_only_when_enabled() {
    let backend = Memory::new();
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
    let backend = Memory::new();
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
    let backend = Memory::new();
    let head = router_call(
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
    let options = router_call(&backend, Method::OPTIONS, "http://x/v1/classes", &[], None);
    assert_eq!(options.status(), 204);
    let (_, _, response) = get(&backend, "http://x/v1/classes", Some(SANDBOX_KEY));
    assert_eq!(remaining_of(&response), 0);
    // A HEAD to a POST-only path is refused like a GET.
    let head = router_call(
        &backend,
        Method::HEAD,
        "http://x/v1/predict",
        &[("authorization", &format!("Bearer {LIVE_KEY}"))],
        None,
    );
    assert_eq!(head.status(), 405);
}

/// A router request with `X-API-Key`, optional `Origin` and `Accept-Encoding`.
fn router_call(
    backend: &Memory,
    method: Method,
    uri: &str,
    headers: &[(&str, &str)],
    body: Option<Value>,
) -> Response<Bytes> {
    let mut builder = Request::builder().method(method).uri(uri);
    for (name, value) in headers {
        builder = builder.header(*name, *value);
    }
    if body.is_some() {
        builder = builder.header("content-type", "application/json");
    }
    let bytes = body.map(|b| Bytes::from(b.to_string())).unwrap_or_default();
    futures_executor::block_on(handle(&builder.body(bytes).unwrap(), ctx(), backend))
}

fn json_of(response: &Response<Bytes>) -> Value {
    serde_json::from_slice(response.body()).unwrap()
}

#[test]
fn router_keys_go_in_x_api_key_and_origins_must_be_listed() {
    let backend = Memory::new();
    let uri = "http://x/hexes/config";
    let none = router_call(&backend, Method::GET, uri, &[], None);
    assert_eq!(none.status(), 401);
    assert!(
        json_of(&none)["details"]["suggestion"]
            .as_str()
            .unwrap()
            .contains("X-API-Key")
    );
    // A Bearer header is the prediction API's, not the router's.
    let bearer = format!("Bearer {LIVE_KEY}");
    let wrong = router_call(
        &backend,
        Method::GET,
        uri,
        &[("authorization", &bearer)],
        None,
    );
    assert_eq!(wrong.status(), 401);
    let bad = router_call(
        &backend,
        Method::GET,
        uri,
        &[("x-api-key", "hexrisk_live_nope")],
        None,
    );
    assert_eq!(json_of(&bad)["code"], "UNAUTHORIZED");
    // Servers: no Origin, the key alone.
    let server = router_call(&backend, Method::GET, uri, &[("x-api-key", LIVE_KEY)], None);
    assert_eq!(server.status(), 200);
    assert!(!server.headers().contains_key("access-control-allow-origin"));
    // Browsers: the origin must be on the key's list and is echoed exactly.
    let browser = router_call(
        &backend,
        Method::GET,
        uri,
        &[("x-api-key", LIVE_KEY), ("origin", DEMO_ORIGIN)],
        None,
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
    let evil = router_call(
        &backend,
        Method::GET,
        uri,
        &[("x-api-key", LIVE_KEY), ("origin", "https://evil.example")],
        None,
    );
    assert_eq!(evil.status(), 403);
    assert_eq!(json_of(&evil)["code"], "FORBIDDEN");
    assert!(!evil.headers().contains_key("access-control-allow-origin"));
    // The sandbox key lists no origin at all.
    let sandbox = router_call(
        &backend,
        Method::GET,
        uri,
        &[("x-api-key", SANDBOX_KEY), ("origin", DEMO_ORIGIN)],
        None,
    );
    assert_eq!(sandbox.status(), 403);
}

#[test]
fn preflights_allow_exactly_listed_origins() {
    let backend = Memory::new();
    let ask = |origin: &str| {
        router_call(
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
    let refused = ask("https://evil.example");
    assert_eq!(refused.status(), 403);
    assert!(
        !refused
            .headers()
            .contains_key("access-control-allow-origin")
    );
    let unknown = router_call(
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
    let backend = Memory::new();
    let headers = [("x-api-key", LIVE_KEY), ("accept-encoding", "gzip")];
    let lookup = router_call(
        &backend,
        Method::POST,
        "http://x/hexes/lookup",
        &headers,
        Some(json!({"lat": 43.6534, "lng": -79.3841, "ring": 41, "detail": true})),
    );
    assert_eq!(lookup.status(), 200);
    assert_eq!(lookup.headers()["content-encoding"], "gzip");
    assert_eq!(lookup.headers()["x-hex-count"], "5167");
    let all = router_call(
        &backend,
        Method::GET,
        "http://x/hexes/all?west=-79.5&south=43.6&east=-79.3&north=43.7",
        &[("x-api-key", LIVE_KEY)],
        None,
    );
    assert_eq!(all.headers()["x-hex-count"], "37");
    assert!(
        !all.headers().contains_key("content-encoding"),
        "not accepted, not compressed"
    );
    assert_eq!(json_of(&all).as_array().unwrap().len(), 37);
}

/// The files a bucket holds for `atlas`: each city's artifact under its versioned
/// name and the manifest, as the builder writes them.
pub(crate) fn bucket(atlas: &Atlas) -> HashMap<String, Vec<u8>> {
    let mut files = HashMap::new();
    let mut cities = Vec::new();
    for city in atlas.cities() {
        let bytes = artifact::encode(city.artifact()).unwrap();
        let entry = ManifestCity::describe(
            city.artifact(),
            bytes.len() as u64,
            hex::encode(Sha256::digest(&bytes)),
        );
        files.insert(entry.file.clone(), bytes);
        cities.push(entry);
    }
    let digest = hex::encode(Sha256::digest(Manifest::label_input(&cities)));
    let manifest = Manifest::over(cities, "test", &digest);
    files.insert(
        Manifest::FILE_NAME.to_owned(),
        serde_json::to_vec(&manifest).unwrap(),
    );
    files
}

#[test]
fn answers_name_the_published_version_and_its_data_through_date() {
    let backend = Memory::new();
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
