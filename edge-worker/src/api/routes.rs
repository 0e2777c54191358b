//! Dispatch: method and path to endpoint, authentication and quota around the
//! handlers, and the headers every answer carries.

use bytes::Bytes;
use chrono::{DateTime, Utc};
use http::header::{ACCEPT_ENCODING, ALLOW, AUTHORIZATION, CONTENT_TYPE, HeaderValue, ORIGIN};
use http::{Method, Request, Response, StatusCode};
use serde_json::{Value, json};

use hexrisk_engine::city::CityModel;

use super::backend::{Backend, BackendError};
use super::health::{self, Component, ServiceHealth};
use super::keys::{self, KeyKind, KeyRecord};
use super::{ApiError, ErrorCode, cors, input, prediction, quota, response, router};

/// The prediction API's OpenAPI 3.1 document, served at `GET /v1/openapi.json`.
pub const PREDICTION_OPENAPI: &str = include_str!("../../openapi/prediction-v1.json");

/// The router API's OpenAPI 3.1 document, served at `GET /openapi.json`.
pub const ROUTER_OPENAPI: &str = include_str!("../../openapi/router.json");

/// What the Worker supplies with each request besides the request itself.
#[derive(Debug, Clone, Copy)]
pub struct RequestContext {
    /// The real current time: quotas, key expiry, timestamps.
    pub now: DateTime<Utc>,
    /// The forecasting clock: which week is "current". Equal to `now` unless pinned
    /// for replay (`HEXRISK_CLOCK`).
    pub forecast_now: DateTime<Utc>,
    /// Whether `GET /__bench/noop` answers (benchmark runs only; `HEXRISK_BENCH_NOOP=1`).
    pub bench_noop: bool,
}

/// The endpoints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Endpoint {
    PredictionHealth,
    PredictionOpenApi,
    RouterHealth,
    Predict,
    PredictBatch,
    RouteRisk,
    Cities,
    Coverage,
    Classes,
    PredictionRange,
    RouterOpenApi,
    HexesConfig,
    HexesScore,
    HexesLookup,
    HexesBreakdown,
    HexesAll,
    RouteConfig,
    Route,
    Evaluate,
    EvaluateHexPath,
    PrecinctsStatus,
    PrecinctsAllScores,
    Precincts,
}

/// Which API an endpoint belongs to: they differ in how keys are presented.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Api {
    /// `/v1/…`: `Authorization: Bearer`.
    Prediction,
    /// Everything else: `X-API-Key`, with browser origin allowlists.
    Router,
}

impl Endpoint {
    const ALL: [(&'static str, Method, Self); 23] = [
        ("/v1/health", Method::GET, Self::PredictionHealth),
        ("/v1/openapi.json", Method::GET, Self::PredictionOpenApi),
        ("/health", Method::GET, Self::RouterHealth),
        ("/v1/predict", Method::POST, Self::Predict),
        ("/v1/predict/batch", Method::POST, Self::PredictBatch),
        ("/v1/route/risk", Method::POST, Self::RouteRisk),
        ("/v1/cities", Method::GET, Self::Cities),
        ("/v1/coverage", Method::GET, Self::Coverage),
        ("/v1/classes", Method::GET, Self::Classes),
        ("/v1/prediction/range", Method::GET, Self::PredictionRange),
        ("/openapi.json", Method::GET, Self::RouterOpenApi),
        ("/hexes/config", Method::GET, Self::HexesConfig),
        ("/hexes/score", Method::POST, Self::HexesScore),
        ("/hexes/lookup", Method::POST, Self::HexesLookup),
        ("/hexes/breakdown", Method::GET, Self::HexesBreakdown),
        ("/hexes/all", Method::GET, Self::HexesAll),
        ("/route/config", Method::GET, Self::RouteConfig),
        ("/route", Method::POST, Self::Route),
        ("/evaluate", Method::POST, Self::Evaluate),
        ("/evaluate-hex-path", Method::POST, Self::EvaluateHexPath),
        ("/precincts/status", Method::GET, Self::PrecinctsStatus),
        (
            "/precincts/all-scores",
            Method::GET,
            Self::PrecinctsAllScores,
        ),
        ("/precincts", Method::GET, Self::Precincts),
    ];

    /// The endpoint at a path for a method, or the methods the path does allow.
    fn find(path: &str, method: &Method) -> Result<Self, Vec<Method>> {
        let path = if path.len() > 1 {
            path.trim_end_matches('/')
        } else {
            path
        };
        let at_path: Vec<&(&str, Method, Self)> =
            Self::ALL.iter().filter(|(p, _, _)| *p == path).collect();
        // HEAD is answered like GET (without a body, by the runtime).
        let wanted = if *method == Method::HEAD {
            &Method::GET
        } else {
            method
        };
        at_path
            .iter()
            .find(|(_, m, _)| m == wanted)
            .map(|(_, _, e)| *e)
            .ok_or_else(|| at_path.iter().map(|(_, m, _)| m.clone()).collect())
    }

    const fn is_public(self) -> bool {
        matches!(
            self,
            Self::PredictionHealth
                | Self::RouterHealth
                | Self::PredictionOpenApi
                | Self::RouterOpenApi
        )
    }

    const fn api(self) -> Api {
        match self {
            Self::PredictionHealth
            | Self::PredictionOpenApi
            | Self::Predict
            | Self::PredictBatch
            | Self::RouteRisk
            | Self::Cities
            | Self::Coverage
            | Self::Classes
            | Self::PredictionRange => Api::Prediction,
            _ => Api::Router,
        }
    }

    /// The methods a path allows (empty for an unknown path).
    fn methods_at(path: &str) -> Vec<Method> {
        let path = if path.len() > 1 {
            path.trim_end_matches('/')
        } else {
            path
        };
        Self::ALL
            .iter()
            .filter(|(p, _, _)| *p == path)
            .map(|(_, m, _)| m.clone())
            .collect()
    }
}

fn internal(err: &BackendError) -> ApiError {
    // The reason stays in the Worker's logs; clients get the code only.
    let _ = err;
    ApiError::new(
        ErrorCode::InternalError,
        "the service could not complete the request",
    )
}

async fn service_health<B: Backend>(backend: &B) -> ServiceHealth {
    let atlas = backend.atlas().await.ok();
    let component = |ok: bool| {
        if ok {
            Component::Healthy
        } else {
            Component::Unhealthy
        }
    };
    ServiceHealth {
        api: Component::Healthy,
        models: component(atlas.is_some_and(|a| !a.cities().is_empty())),
        database: component(backend.database_ok().await),
        cities: atlas
            .map(|a| {
                a.cities()
                    .iter()
                    .map(|c| c.artifact().city.code.clone())
                    .collect()
            })
            .unwrap_or_default(),
        precincts: atlas.map_or(0, |a| {
            a.cities()
                .iter()
                .map(|c| c.artifact().precincts.len())
                .sum()
        }),
        cells: atlas.map_or(0, |a| a.cities().iter().map(CityModel::cell_count).sum()),
    }
}

/// Checks the key (and, for the router, the browser origin) and counts the
/// request; returns the key and the quota state.
async fn authenticate<B: Backend>(
    request: &Request<Bytes>,
    api: Api,
    backend: &B,
    now: DateTime<Utc>,
) -> Result<(KeyRecord, quota::QuotaState), Response<Bytes>> {
    let header = |name: &str| request.headers().get(name).and_then(|v| v.to_str().ok());
    let presented = match api {
        Api::Prediction => keys::bearer(header(AUTHORIZATION.as_str())),
        Api::Router => keys::x_api_key(header(keys::X_API_KEY)),
    }
    .map_err(|e| response::error(&e))?;
    if presented.kind().is_none() {
        return Err(response::error(&keys::invalid_key(&presented)));
    }
    let digest = presented.digest();
    let record = backend
        .key_by_digest(&digest)
        .await
        .map_err(|e| response::error(&internal(&e)))?
        .filter(|r| r.is_usable(now))
        .ok_or_else(|| response::error(&keys::invalid_key(&presented)))?;
    if let Some(origin) = header(ORIGIN.as_str()) {
        // Only router keys carry allowlists; a browser may not use another's key.
        if api == Api::Router && !cors::origin_listed(&record.origins, origin) {
            return Err(response::error(&cors::origin_refused(origin)));
        }
    }
    let state = backend
        .consume(&record, quota::day_of(now))
        .await
        .map_err(|e| response::error(&internal(&e)))?;
    if !state.allowed {
        let mut answer = response::error(&quota::rate_limited(state, now));
        add_headers(&mut answer, quota::headers(state, now));
        return Err(answer);
    }
    Ok((record, state))
}

fn add_headers(response: &mut Response<Bytes>, headers: Vec<(&'static str, HeaderValue)>) {
    for (name, value) in headers {
        response.headers_mut().insert(name, value);
    }
}

/// Runs the handler of an authenticated endpoint; `X-Hex-Count` goes in the
/// headers when the endpoint lists hexes.
async fn run<B: Backend>(
    endpoint: Endpoint,
    request: &Request<Bytes>,
    backend: &B,
    ctx: RequestContext,
) -> Result<(Value, Option<usize>), ApiError> {
    let query = input::query_pairs(request.uri().query());
    let now = ctx.forecast_now;
    let body = || -> Result<_, ApiError> {
        let content_type = request
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok());
        input::require_json(content_type)?;
        input::json_object(request.body())
    };
    match endpoint {
        Endpoint::Classes => return Ok((prediction::classes(), None)),
        Endpoint::HexesConfig => return Ok((router::hexes_config(), None)),
        Endpoint::RouteConfig => return Ok((router::route_config(), None)),
        _ => {}
    }
    let atlas = backend.atlas().await.map_err(|e| internal(&e))?;
    let body_of = |result: Result<Value, ApiError>| result.map(|v| (v, None));
    match endpoint {
        Endpoint::Predict => body_of(prediction::predict(atlas, &body()?, now)),
        Endpoint::PredictBatch => body_of(prediction::predict_batch(atlas, &body()?, now)),
        Endpoint::RouteRisk => body_of(prediction::route_risk(atlas, &body()?, now)),
        Endpoint::Cities => Ok((prediction::cities(atlas, now), None)),
        Endpoint::Coverage => body_of(prediction::coverage(
            atlas,
            input::query_param(&query, "city"),
        )),
        Endpoint::PredictionRange => body_of(prediction::prediction_range(atlas, &query, now)),
        Endpoint::HexesScore => router::hexes_score(atlas, &body()?, now).map(|v| {
            let count = v.as_array().map(Vec::len);
            (v, count)
        }),
        Endpoint::HexesLookup => router::hexes_lookup(atlas, &body()?, now).map(|v| {
            let count = v["count"].as_u64().map(|c| c as usize);
            (v, count)
        }),
        Endpoint::HexesBreakdown => body_of(router::hexes_breakdown(atlas, &query, now)),
        Endpoint::HexesAll => router::hexes_all(atlas, &query, now).map(|(v, n)| (v, Some(n))),
        Endpoint::Route => body_of(router::route(atlas, &body()?, now)),
        Endpoint::Evaluate => body_of(router::evaluate(atlas, &body()?, now)),
        Endpoint::EvaluateHexPath => body_of(router::evaluate_hex_path(atlas, &body()?, now)),
        Endpoint::PrecinctsStatus => Ok((router::precincts_status(atlas), None)),
        Endpoint::PrecinctsAllScores => body_of(router::precincts_all_scores(atlas, &query, now)),
        Endpoint::Precincts => body_of(router::precincts_geojson(atlas, &query, now)),
        Endpoint::Classes
        | Endpoint::HexesConfig
        | Endpoint::RouteConfig
        | Endpoint::PredictionHealth
        | Endpoint::RouterHealth
        | Endpoint::PredictionOpenApi
        | Endpoint::RouterOpenApi => Err(ApiError::new(
            ErrorCode::InternalError,
            "unreachable endpoint",
        )),
    }
}

/// Answers one request: the endpoint's answer, compressed with gzip when the
/// client accepts it and the body is large enough to gain.
pub async fn handle<B: Backend>(
    request: &Request<Bytes>,
    ctx: RequestContext,
    backend: &B,
) -> Response<Bytes> {
    let mut answer = answer(request, ctx, backend).await;
    let accept = request
        .headers()
        .get(ACCEPT_ENCODING)
        .and_then(|v| v.to_str().ok());
    if request.method() != Method::HEAD {
        response::compress(&mut answer, accept);
    }
    answer
}

async fn answer<B: Backend>(
    request: &Request<Bytes>,
    ctx: RequestContext,
    backend: &B,
) -> Response<Bytes> {
    let path = request.uri().path();
    if ctx.bench_noop && path == "/__bench/noop" {
        // The cheapest answer the Worker can give: the baseline of the HTTP benchmarks.
        return response::json_bytes(
            StatusCode::OK,
            Bytes::from_static(b"{\"status\":\"success\"}"),
        );
    }
    let origin = request.headers().get(ORIGIN).and_then(|v| v.to_str().ok());
    if request.method() == Method::OPTIONS {
        return preflight(path, origin, backend).await;
    }
    let endpoint = match Endpoint::find(path, request.method()) {
        Ok(endpoint) => endpoint,
        Err(allowed) if allowed.is_empty() => return response::error(&ApiError::not_found(path)),
        Err(allowed) => {
            let mut answer =
                response::error(&ApiError::method_not_allowed(request.method(), &allowed));
            if let Ok(value) = HeaderValue::from_str(&allow_list(&allowed)) {
                answer.headers_mut().insert(ALLOW, value);
            }
            return answer;
        }
    };
    match endpoint {
        Endpoint::PredictionOpenApi => {
            return response::json_bytes(
                StatusCode::OK,
                Bytes::from_static(PREDICTION_OPENAPI.as_bytes()),
            );
        }
        Endpoint::RouterOpenApi => {
            return response::json_bytes(
                StatusCode::OK,
                Bytes::from_static(ROUTER_OPENAPI.as_bytes()),
            );
        }
        _ => {}
    }
    if endpoint.is_public() {
        let health = service_health(backend).await;
        let (status, body) = if endpoint == Endpoint::PredictionHealth {
            health::prediction_health(&health, ctx.now)
        } else {
            health::router_health(&health, ctx.now)
        };
        return response::json(status, &body);
    }
    let api = endpoint.api();
    let (key, state) = match authenticate(request, api, backend, ctx.now).await {
        Ok(pair) => pair,
        Err(answer) => return answer,
    };
    let mut answer = match run(endpoint, request, backend, ctx).await {
        Ok((mut body, hex_count)) => {
            if key.kind == KeyKind::Sandbox
                && let Value::Object(map) = &mut body
            {
                map.insert("sandbox_mode".into(), json!(true));
            }
            let mut answer = response::json(StatusCode::OK, &body);
            if let Some(count) = hex_count {
                answer
                    .headers_mut()
                    .insert(router::HEX_COUNT_HEADER, HeaderValue::from(count));
            }
            answer
        }
        Err(err) => response::error(&err),
    };
    add_headers(&mut answer, quota::headers(state, ctx.now));
    if let (Api::Router, Some(origin)) = (api, origin) {
        // `authenticate` refused origins the key does not list.
        add_headers(&mut answer, cors::allow_headers(origin));
    }
    answer
}

fn allow_list(methods: &[Method]) -> String {
    let mut names: Vec<&str> = methods.iter().map(Method::as_str).collect();
    names.push("OPTIONS");
    names.join(", ")
}

/// `OPTIONS`: a CORS preflight when the browser sends `Origin`, else the methods.
async fn preflight<B: Backend>(path: &str, origin: Option<&str>, backend: &B) -> Response<Bytes> {
    let methods = Endpoint::methods_at(path);
    if methods.is_empty() {
        return response::error(&ApiError::not_found(path));
    }
    let mut answer = response::empty(StatusCode::NO_CONTENT);
    if let Ok(value) = HeaderValue::from_str(&allow_list(&methods)) {
        answer.headers_mut().insert(ALLOW, value);
    }
    let Some(origin) = origin else {
        return answer;
    };
    // The preflight carries no key, so an origin passes when some usable key lists it;
    // the real request is then checked against its own key's list.
    match backend.origin_listed(origin).await {
        Ok(true) => {
            add_headers(&mut answer, cors::preflight_headers(origin, &methods));
            answer
        }
        Ok(false) => response::error(&cors::origin_refused(origin)),
        Err(err) => response::error(&internal(&err)),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::api::keys::{PresentedKey, Tier};
    use crate::api::prediction::tests::{atlas, now};
    use hexrisk_engine::city::Atlas;
    use std::cell::RefCell;
    use std::collections::HashMap;

    pub(crate) const SANDBOX_KEY: &str = "hexrisk_sandbox_AbCdEfGhIjKlMnOpQrStUvWxYz012345";
    pub(crate) const LIVE_KEY: &str = "hexrisk_live_0123456789abcdefghijABCDEFGHIJKL";
    pub(crate) const DEMO_ORIGIN: &str = "http://127.0.0.1:8080";

    /// An in-memory backend.
    pub(crate) struct Memory {
        pub(crate) keys: HashMap<String, KeyRecord>,
        pub(crate) used: RefCell<HashMap<(String, chrono::NaiveDate), u32>>,
        pub(crate) atlas: Option<Atlas>,
        pub(crate) database_up: bool,
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
                used: RefCell::new(HashMap::new()),
                atlas: Some(atlas()),
                database_up: true,
            }
        }
    }

    impl Backend for Memory {
        async fn key_by_digest(&self, digest: &str) -> Result<Option<KeyRecord>, BackendError> {
            if !self.database_up {
                return Err(BackendError::new("database", "down"));
            }
            Ok(self.keys.get(digest).cloned())
        }

        async fn consume(
            &self,
            key: &KeyRecord,
            day: chrono::NaiveDate,
        ) -> Result<quota::QuotaState, BackendError> {
            let mut used = self.used.borrow_mut();
            let count = used.entry((key.id.clone(), day)).or_default();
            let state = quota::decide(*count, key.daily_limit);
            *count = state.used;
            Ok(state)
        }

        async fn atlas(&self) -> Result<&Atlas, BackendError> {
            self.atlas
                .as_ref()
                .ok_or_else(|| BackendError::new("models", "artifact missing"))
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

        async fn database_ok(&self) -> bool {
            self.database_up
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
    pub(crate) fn get(
        backend: &Memory,
        uri: &str,
        key: Option<&str>,
    ) -> (u16, Value, Response<Bytes>) {
        call(backend, Method::GET, uri, key, None)
    }

    #[test]
    fn health_needs_no_key_and_reports_components() {
        let mut backend = Memory::new();
        let (status, body, _) = get(&backend, "http://x/v1/health", None);
        assert_eq!((status, body["status"].as_str()), (200, Some("healthy")));
        let (_, body, _) = get(&backend, "http://x/health", None);
        assert_eq!(body["coverage"]["cities"], json!(["city_ca_tor"]));
        backend.atlas = None;
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
            assert_eq!(
                response.headers()["ratelimit-remaining"],
                remaining.to_string().as_str()
            );
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
        backend.keys.get_mut(&digest).unwrap().revoked_at =
            Some(now() - chrono::Duration::seconds(1));
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

    #[test]
    fn failures_of_dependencies_are_500_without_detail() {
        let mut backend = Memory::new();
        backend.database_up = false;
        let (status, body, _) = get(&backend, "http://x/v1/cities", Some(LIVE_KEY));
        assert_eq!(
            (status, body["code"].as_str()),
            (500, Some("INTERNAL_ERROR"))
        );
        assert_eq!(body["details"], json!({}));
        let mut backend = Memory::new();
        backend.atlas = None;
        let (status, _, _) = get(&backend, "http://x/v1/cities", Some(LIVE_KEY));
        assert_eq!(status, 500);
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
    fn the_benchmark_noop_exists_only_when_enabled() {
        let backend = Memory::new();
        let (status, _, _) = get(&backend, "http://x/__bench/noop", None);
        assert_eq!(status, 404);
        let request = Request::builder()
            .uri("http://x/__bench/noop")
            .body(Bytes::new())
            .unwrap();
        let enabled = RequestContext {
            bench_noop: true,
            ..ctx()
        };
        let response = futures_executor::block_on(handle(&request, enabled, &backend));
        assert_eq!(response.status(), StatusCode::OK);
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
        assert_eq!(head.headers()["ratelimit-remaining"], "2");
        // The runtime drops a HEAD body; compressing it would only waste the work.
        assert!(!head.headers().contains_key("content-encoding"));
        let (status, _, response) = get(&backend, "http://x/v1/classes", Some(SANDBOX_KEY));
        assert_eq!(status, 200);
        assert_eq!(response.headers()["ratelimit-remaining"], "1");
        // Preflights carry no key and do not count.
        let options = router_call(&backend, Method::OPTIONS, "http://x/v1/classes", &[], None);
        assert_eq!(options.status(), 204);
        let (_, _, response) = get(&backend, "http://x/v1/classes", Some(SANDBOX_KEY));
        assert_eq!(response.headers()["ratelimit-remaining"], "0");
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
}
