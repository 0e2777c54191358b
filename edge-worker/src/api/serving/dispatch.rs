//! Dispatch: a request to its row of the route table, authentication and quota
//! around what the row names as its answer, and the headers every answer carries.
//! Nothing here is particular to one endpoint: what differs between them is in their
//! rows (`crate::api::routes`) and their operations (`crate::api::endpoints`).

use bytes::Bytes;
use chrono::{DateTime, Utc};
use http::header::{
    ACCEPT_ENCODING, ALLOW, AUTHORIZATION, CONTENT_TYPE, HeaderValue, IF_NONE_MATCH, ORIGIN, VARY,
};
use http::{Method, Request, Response, StatusCode};

use hexrisk_engine::operations as engine;

use super::health::{self, ServiceHealth};
use crate::api::access::daily_quota;
use crate::api::access::gate::{Admission, GateRequest};
use crate::api::access::keys::{self, KeyApi, KeyKind, KeyRecord};
use crate::api::backend::Backend;
use crate::api::backend_error::BackendError;
use crate::api::endpoints::{self, Answered, Call};
use crate::api::models::needs;
use crate::api::partners::config::ClientAddress;
use crate::api::plumbing::caching::{self, CachePolicy};
use crate::api::plumbing::error::{ApiError, ErrorCode};
use crate::api::plumbing::success_body::SuccessBody;
use crate::api::plumbing::{clock, cors, input, response};
use crate::api::routes::{
    self, Access, Answer, Baseline, EngineOperation, HealthReport, Route, Table,
};

/// The header naming the model versions an answer comes from.
pub const MODEL_VERSION_HEADER: &str = "hexrisk-model-version";

/// What the Worker supplies with each request besides the request itself.
#[derive(Debug, Clone, Copy)]
pub struct RequestContext {
    /// The real current time: quotas, key expiry, timestamps.
    pub now: DateTime<Utc>,
    /// The forecasting clock: which week is "current". Equal to `now` unless pinned
    /// for replay (`HEXRISK_CLOCK`).
    pub forecast_now: DateTime<Utc>,
    /// Whether the forecasting clock follows the data instead (`HEXRISK_CLOCK =
    /// follow-data`, for replays that publish week after week): "now" is the day
    /// after the newest data-through date of the manifest in force.
    pub clock_follows_data: bool,
    /// Whether the benchmark routes `/__bench/noop` and `/__bench/gate` answer
    /// (benchmark runs only; `HEXRISK_BENCH_NOOP=1`).
    pub bench_noop: bool,
}

/// `INTERNAL_ERROR` for a failure of a dependency, which is logged here (once) with
/// its cause; clients get the code only.
fn internal<B: Backend>(backend: &B, err: &BackendError) -> ApiError {
    backend.log_failure(err);
    ApiError::new(
        ErrorCode::InternalError,
        "the service could not complete the request",
    )
}

async fn service_health<B: Backend>(backend: &B, now: DateTime<Utc>) -> ServiceHealth {
    // A component that fails is reported unhealthy; why goes to the log.
    let models = backend
        .models()
        .status(backend, now)
        .await
        .inspect_err(|e| backend.log_failure(e))
        .ok();
    let database = backend
        .check_database()
        .await
        .inspect_err(|e| backend.log_failure(e))
        .is_ok();
    ServiceHealth::new(models, database)
}

/// Checks the key (and, for the router, the browser origin) and counts the
/// request, with the isolate's block of the key's quota or else in one call to the
/// key's gate; returns the key and the quota state.
async fn authenticate<B: Backend>(
    request: &Request<Bytes>,
    api: KeyApi,
    backend: &B,
    now: DateTime<Utc>,
) -> Result<(KeyRecord, daily_quota::QuotaState), Response<Bytes>> {
    let header = |name: &str| request.headers().get(name).and_then(|v| v.to_str().ok());
    let presented = match api {
        KeyApi::Prediction => keys::bearer(header(AUTHORIZATION.as_str())),
        KeyApi::Router => keys::x_api_key(header(keys::X_API_KEY)),
    }
    .map_err(|e| response::error(&e))?;
    if presented.kind().is_none() {
        return Err(response::error(&keys::invalid_key(&presented)));
    }
    // Only router keys carry allowlists; a browser may not use another's key.
    let origin = header(ORIGIN.as_str()).filter(|_| api == KeyApi::Router);
    // The client's address as the platform gives it (none taken from a local run's
    // request: `ClientAddress`).
    let address = backend
        .portal()
        .map_or(ClientAddress::Platform, |c| c.client_address)
        .of(header("cf-connecting-ip"));
    let mut asked = GateRequest {
        digest: presented.digest(),
        now,
        origin: origin.map(str::to_owned),
        address: address.map(str::to_owned),
        api,
        returned: Vec::new(),
        want_block: false,
        record: None,
    };
    // A block of the key's quota decides most requests here, without the gate.
    let local = backend.held_blocks().borrow_mut().admit(&asked);
    let admission = if let Some(admission) = local {
        Ok(admission)
    } else {
        backend.held_blocks().borrow_mut().prepare(&mut asked);
        let answer = backend.admit(&asked).await;
        backend
            .held_blocks()
            .borrow_mut()
            .settle(&asked, answer.as_ref().ok());
        answer
    };
    match admission {
        Err(e) => Err(response::error(&internal(backend, &e))),
        Ok(Admission::UnknownKey) => Err(response::error(&keys::invalid_key(&presented))),
        Ok(Admission::KeyRefused { reason }) => {
            Err(response::error(&keys::refused_key(&presented, reason)))
        }
        Ok(Admission::ApiRefused) => Err(response::error(&keys::api_refused(api))),
        Ok(Admission::OriginRefused) => Err(response::error(&cors::origin_refused(
            origin.unwrap_or_default(),
        ))),
        Ok(Admission::AddressRefused) => Err(response::error(&keys::address_refused(
            address.unwrap_or_default(),
        ))),
        Ok(Admission::Counted { quota: state, .. }) if !state.allowed => {
            let mut answer = response::error(&daily_quota::rate_limited(state, now));
            add_headers(&mut answer, daily_quota::headers(state, now));
            Err(answer)
        }
        Ok(Admission::Counted { record, quota, .. }) => Ok((*record, quota)),
    }
}

fn add_headers(response: &mut Response<Bytes>, headers: Vec<(&'static str, HeaderValue)>) {
    for (name, value) in headers {
        response.headers_mut().insert(name, value);
    }
}

/// The `Hexrisk-Model-Version` header: `<code>=<version>` of each city the answer
/// was computed from, comma-separated (none when it read no city).
fn model_versions(versions: &[(String, String)]) -> Option<HeaderValue> {
    let text: Vec<String> = versions
        .iter()
        .map(|(code, version)| format!("{code}={version}"))
        .collect();
    (!text.is_empty())
        .then(|| HeaderValue::from_str(&text.join(", ")).ok())
        .flatten()
}

/// The newest data-through date of `manifest` when the clock follows the data
/// (only then is it needed).
fn followed_data(
    ctx: RequestContext,
    manifest: &hexrisk_engine::artifact::Manifest,
) -> Option<chrono::NaiveDate> {
    ctx.clock_follows_data
        .then(|| manifest.cities.iter().map(|c| c.data_through).max())
        .flatten()
}

/// The forecasting "now" of a request: the pinned or real clock, or, when the
/// clock follows the data, the day after the newest data-through date `newest`.
fn forecast_clock(ctx: RequestContext, newest: Option<chrono::NaiveDate>) -> DateTime<Utc> {
    match newest.filter(|_| ctx.clock_follows_data) {
        Some(newest) => clock::after_data(newest),
        None => ctx.forecast_now,
    }
}

/// The answer of an authenticated route: its fixed answer, or its engine operation
/// over a snapshot of the cities the request reaches. `versions` gets the
/// `Hexrisk-Model-Version` of the cities read.
async fn run<B: Backend>(
    found: routes::Found<'_>,
    request: &Request<Bytes>,
    backend: &B,
    ctx: RequestContext,
    versions: &mut Option<HeaderValue>,
) -> Answered {
    let (reach, operation) = match found.route.answer {
        Answer::Fixed(answer) => return Ok((answer().into(), None)),
        Answer::Engine(reach, operation) => (reach, operation),
        Answer::Document(_)
        | Answer::Health(_)
        | Answer::PortalFile
        | Answer::Portal(_)
        | Answer::Bench(_) => {
            return Err(ApiError::new(
                ErrorCode::InternalError,
                "route answered before authentication",
            ));
        }
    };
    let query = query_of(request, found);
    // Parsed once: the cities a request needs are found in the body its operation reads.
    let body = (request.method() == Method::POST).then(|| input::json_body(request));
    let mut newest_data = None;
    let snapshot = backend
        .models()
        .snapshot(
            backend,
            |manifest| {
                newest_data = followed_data(ctx, manifest);
                let body = body.as_ref().and_then(|b| b.as_ref().ok());
                needs::needs(reach, manifest, body, &query)
            },
            ctx.now,
        )
        .await
        .map_err(|e| internal(backend, &e))?;
    *versions = model_versions(&snapshot.versions);
    let call = Call {
        snapshot: &snapshot,
        seconds: forecast_clock(ctx, newest_data).timestamp(),
        request,
        query: &query,
        city: found.city(),
        tile: found.tile,
        body: body.unwrap_or_else(|| Ok(serde_json::Map::new())),
    };
    match operation {
        EngineOperation::Now(operation) => operation(&call),
        EngineOperation::CachedTile => endpoints::map_layers::tile(&call, backend).await,
    }
}

/// The query's pairs; a city named by the path (a tile's) as `city=` in place of
/// any in the query (the cities a request needs are found from it).
fn query_of(request: &Request<Bytes>, found: routes::Found<'_>) -> Vec<(String, String)> {
    let mut query = input::query_pairs(request.uri().query());
    if let Some(city) = found.city() {
        query.retain(|(name, _)| name != "city");
        query.push(("city".to_owned(), city.to_owned()));
    }
    query
}

/// A successful answer that may be cached, as `answer` marks it for `handle`.
#[derive(Debug, Clone, Copy)]
struct Cacheable {
    policy: CachePolicy,
    /// The header carrying the key, which the answer varies on (`None`: public).
    key_header: Option<&'static str>,
}

/// Answers one request: the endpoint's answer, compressed as the client's
/// `Accept-Encoding` allows, with `ETag` and `Cache-Control` (or `304`) for the
/// cacheable ones (`caching.rs`).
pub async fn handle<B: Backend>(
    request: &Request<Bytes>,
    ctx: RequestContext,
    backend: &B,
) -> Response<Bytes> {
    handle_with(Table::SERVED, request, ctx, backend).await
}

/// [`handle`] over the rows of `table` (a test's, for one): everything an endpoint
/// is answered with comes from its row.
pub async fn handle_with<B: Backend>(
    table: Table,
    request: &Request<Bytes>,
    ctx: RequestContext,
    backend: &B,
) -> Response<Bytes> {
    let table = table.with_baselines(ctx.bench_noop);
    let mut answer = answer(table, request, ctx, backend).await;
    let cacheable = answer.extensions_mut().remove::<Cacheable>();
    // `Bytes` clones share the buffer: the body before compression, for the ETag.
    let identity_body = cacheable.map(|_| answer.body().clone());
    let header = |name| request.headers().get(name).and_then(|v| v.to_str().ok());
    if request.method() != Method::HEAD {
        response::compress(&mut answer, header(ACCEPT_ENCODING));
    }
    if let (Some(cacheable), Some(identity_body)) = (cacheable, identity_body) {
        caching::apply(
            &mut answer,
            cacheable.policy,
            &identity_body,
            header(IF_NONE_MATCH),
            cacheable.key_header,
        );
    }
    answer
}

/// The answer of either health endpoint. Data ages are counted to the forecasting
/// clock: a replay's data is as old as its own "now" makes it.
async fn health_answer<B: Backend>(
    report: HealthReport,
    backend: &B,
    ctx: RequestContext,
) -> Response<Bytes> {
    let health = service_health(backend, ctx.now).await;
    let newest = health
        .model_status
        .as_ref()
        .and_then(|s| s.cities.iter().map(|c| c.data_through).max());
    let as_of = forecast_clock(ctx, newest);
    let (status, body) = match report {
        HealthReport::Prediction => health::prediction_health(&health, ctx.now, as_of),
        HealthReport::Router => health::router_health(&health, ctx.now, as_of),
    };
    response::json(status, &body)
}

async fn answer<B: Backend>(
    table: Table,
    request: &Request<Bytes>,
    ctx: RequestContext,
    backend: &B,
) -> Response<Bytes> {
    let path = request.uri().path();
    if crate::api::portal::is_portal_path(path) {
        return crate::api::portal::handle(request, ctx.now, backend).await;
    }
    let origin = request.headers().get(ORIGIN).and_then(|v| v.to_str().ok());
    if request.method() == Method::OPTIONS {
        return preflight(table, path, origin);
    }
    // HEAD is answered like GET (without a body, by the runtime).
    let method = if request.method() == Method::HEAD {
        &Method::GET
    } else {
        request.method()
    };
    let found = match table.find(path, method) {
        Ok(found) => found,
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
    let route = found.route;
    match route.answer {
        Answer::Document(document) => {
            let mut answer =
                response::json_bytes(StatusCode::OK, Bytes::from_static(document.as_bytes()));
            if let Some(policy) = route.cache {
                answer.extensions_mut().insert(Cacheable {
                    policy,
                    key_header: None,
                });
            }
            return answer;
        }
        Answer::Health(report) => return health_answer(report, backend, ctx).await,
        Answer::Bench(Baseline::Noop) => return bench_noop(request),
        // Answered by the glue, before dispatch, where the isolate's memory is known.
        Answer::Bench(Baseline::Memory) => return response::error(&ApiError::not_found(path)),
        Answer::Fixed(_) | Answer::Engine(..) | Answer::Bench(Baseline::Gate) => {}
        // The portal's routes are under its prefix, answered above.
        Answer::PortalFile | Answer::Portal(_) => {
            return response::error(&ApiError::not_found(path));
        }
    }
    let Access::Key(api) = route.access else {
        return response::error(&ApiError::not_found(path));
    };
    let (key, state) = match authenticate(request, api, backend, ctx.now).await {
        Ok(pair) => pair,
        Err(answer) => return answer,
    };
    let mut versions = None;
    let mut answer = if matches!(route.answer, Answer::Bench(Baseline::Gate)) {
        response::json_bytes(StatusCode::OK, Bytes::from_static(BENCH_SUCCESS))
    } else {
        match run(found, request, backend, ctx, &mut versions).await {
            Ok((SuccessBody::Tile { bytes, .. }, _)) if bytes.is_empty() => {
                // Nothing of the city in the tile: no content, and nothing to cache.
                response::empty(StatusCode::NO_CONTENT)
            }
            Ok((body, hex_count)) => success(route, &body, hex_count, api, key.kind),
            Err(err) => response::error(&err),
        }
    };
    add_headers(&mut answer, daily_quota::headers(state, ctx.now));
    if let Some(versions) = versions {
        answer.headers_mut().insert(MODEL_VERSION_HEADER, versions);
    }
    if let (KeyApi::Router, Some(origin)) = (api, origin) {
        // `authenticate` refused origins the key does not list.
        add_headers(&mut answer, cors::allow_headers(origin));
    }
    answer
}

/// A successful answer of `route` to a key of `api` and `kind`: the body with its
/// media type, `Vary: Accept` where the body's form follows it, the cache marking
/// and `X-Hex-Count`.
fn success(
    route: &Route,
    body: &SuccessBody,
    hex_count: Option<usize>,
    api: KeyApi,
    kind: KeyKind,
) -> Response<Bytes> {
    let mut answer = response::json_bytes(StatusCode::OK, body.to_json(kind == KeyKind::Sandbox));
    if let Some(media_type) = body.media_type() {
        answer
            .headers_mut()
            .insert(CONTENT_TYPE, HeaderValue::from_static(media_type));
    }
    if route.varies_on_accept {
        answer
            .headers_mut()
            .insert(VARY, HeaderValue::from_static("Accept"));
    }
    let policy = match body {
        // A tile asked for at its artifact's version may be kept without asking.
        SuccessBody::Tile { pinned: true, .. } => Some(CachePolicy::PrivatePinned),
        _ => route.cache,
    };
    if let Some(policy) = policy {
        answer.extensions_mut().insert(Cacheable {
            policy,
            key_header: Some(match api {
                KeyApi::Prediction => "Authorization",
                KeyApi::Router => "X-API-Key",
            }),
        });
    }
    if let Some(count) = hex_count {
        answer
            .headers_mut()
            .insert(engine::HEX_COUNT_HEADER, HeaderValue::from(count));
    }
    answer
}

/// Largest body `/__bench/noop?size=N` makes.
const BENCH_MAX_SIZE: usize = 1 << 20;

/// The body of the benchmark baselines.
const BENCH_SUCCESS: &[u8] = b"{\"status\":\"success\"}";

/// `/__bench/noop`, the cheapest answer the Worker can give, and with `?size=N` an
/// answer of N bytes (what the platform costs to carry an answer that large): the
/// baselines of the HTTP benchmarks, beside `/__bench/gate` (the key's gate, what
/// one authenticated request costs before any model work).
fn bench_noop(request: &Request<Bytes>) -> Response<Bytes> {
    let query = input::query_pairs(request.uri().query());
    let size = input::query_param(&query, "size")
        .and_then(|s| s.parse::<usize>().ok())
        .map_or(0, |s| s.min(BENCH_MAX_SIZE));
    if size <= BENCH_SUCCESS.len() + 10 {
        return response::json_bytes(StatusCode::OK, Bytes::from_static(BENCH_SUCCESS));
    }
    // {"status":"success","pad":"xx…x"}, exactly `size` bytes.
    let mut body = b"{\"status\":\"success\",\"pad\":\"".to_vec();
    body.resize(size - 2, b'x');
    body.extend_from_slice(b"\"}");
    response::json_bytes(StatusCode::OK, Bytes::from(body))
}

fn allow_list(methods: &[Method]) -> String {
    let mut names: Vec<&str> = methods.iter().map(Method::as_str).collect();
    names.push("OPTIONS");
    names.join(", ")
}

/// `OPTIONS`: a CORS preflight when the browser sends `Origin`, else the methods.
/// Answered from the route table alone (`cors.rs` says why).
fn preflight(table: Table, path: &str, origin: Option<&str>) -> Response<Bytes> {
    let methods = table.methods_at(path);
    if methods.is_empty() {
        return response::error(&ApiError::not_found(path));
    }
    let mut answer = response::empty(StatusCode::NO_CONTENT);
    if let Ok(value) = HeaderValue::from_str(&allow_list(&methods)) {
        answer.headers_mut().insert(ALLOW, value);
    }
    match origin {
        None => answer,
        Some(origin) if cors::is_browser_origin(origin) => {
            add_headers(&mut answer, cors::preflight_headers(origin, &methods));
            answer
        }
        Some(origin) => response::error(&cors::not_a_browser_origin(origin)),
    }
}

#[cfg(test)]
mod tests;
