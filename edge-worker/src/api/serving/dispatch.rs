//! Dispatch: method and path to endpoint, authentication and quota around the
//! handlers, and the headers every answer carries. The handlers are the engine's
//! operations (`hexrisk_engine::api`), the same the npm package answers offline.

use bytes::Bytes;
use chrono::{DateTime, Utc};
use http::header::{
    ACCEPT_ENCODING, ALLOW, AUTHORIZATION, CONTENT_TYPE, HeaderValue, IF_NONE_MATCH, ORIGIN, VARY,
};
use http::{Method, Request, Response, StatusCode};
use serde_json::Value;

use hexrisk_engine::api as engine;

use super::health::{self, ServiceHealth};
use crate::api::access::gate::{Admission, GateRequest};
use crate::api::access::keys::{self, KeyApi, KeyKind, KeyRecord};
use crate::api::access::quota;
use crate::api::backend::Backend;
use crate::api::backend_error::BackendError;
use crate::api::models::needs::{self, Reach};
use crate::api::partners::config::ClientAddress;
use crate::api::plumbing::caching::{self, CachePolicy};
use crate::api::plumbing::error::{ApiError, ErrorCode};
use crate::api::plumbing::success_body::SuccessBody;
use crate::api::plumbing::{clock, cors, input, response};
use crate::api::routes::{self, Access, Endpoint};

/// The prediction API's OpenAPI 3.1 document, served at `GET /v1/openapi.json`.
pub const PREDICTION_OPENAPI: &str = include_str!("../../../openapi/prediction-v1.json");

/// The router API's OpenAPI 3.1 document, served at `GET /openapi.json`.
pub const ROUTER_OPENAPI: &str = include_str!("../../../openapi/router.json");

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

/// What dispatch needs of each endpoint besides its row in [`ROUTES`].
impl Endpoint {
    /// How the endpoint's successful answer `body` may be cached (`None`:
    /// `no-store`).
    const fn cache_policy(self, body: &SuccessBody) -> Option<CachePolicy> {
        if let SuccessBody::Tile { pinned: true, .. } = body {
            return Some(CachePolicy::PrivatePinned);
        }
        match self {
            Self::PredictionOpenApi | Self::RouterOpenApi => Some(CachePolicy::Public),
            Self::HexesConfig
            | Self::RouteConfig
            | Self::Classes
            | Self::Cities
            | Self::Coverage
            | Self::Precincts
            | Self::Tile
            | Self::TileJson
            | Self::TileStyle => Some(CachePolicy::PrivateRevalidate),
            _ => None,
        }
    }

    /// Where the places of the endpoint's requests are, to load only the cities
    /// they need (`None` for endpoints that read no model).
    const fn reach(self) -> Option<Reach> {
        match self {
            Self::Cities | Self::PrecinctsStatus | Self::PrecinctsAllScores | Self::Precincts => {
                Some(Reach::Everywhere)
            }
            Self::Coverage | Self::Places | Self::Tile | Self::TileJson | Self::TileStyle => {
                Some(Reach::NamedCity)
            }
            Self::HexesAll | Self::Streets => Some(Reach::Viewport),
            Self::RouteRisk => Some(Reach::Lines),
            Self::Predict
            | Self::PredictBatch
            | Self::PredictionRange
            | Self::HexesScore
            | Self::HexesLookup
            | Self::HexesBreakdown
            | Self::PlacesReverse
            | Self::Route
            | Self::SafeReach
            | Self::Evaluate
            | Self::EvaluateHexPath => Some(Reach::Places),
            Self::PredictionHealth
            | Self::PredictionOpenApi
            | Self::RouterHealth
            | Self::Classes
            | Self::RouterOpenApi
            | Self::HexesConfig
            | Self::RouteConfig => None,
        }
    }
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
) -> Result<(KeyRecord, quota::QuotaState), Response<Bytes>> {
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
    let local = backend.leases().borrow_mut().admit(&asked);
    let admission = if let Some(admission) = local {
        Ok(admission)
    } else {
        backend.leases().borrow_mut().prepare(&mut asked);
        let answer = backend.admit(&asked).await;
        backend
            .leases()
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
            let mut answer = response::error(&quota::rate_limited(state, now));
            add_headers(&mut answer, quota::headers(state, now));
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

/// An answer that lists no hexes (so no `X-Hex-Count`), from the Worker's handlers
/// or the engine's operations.
fn uncounted<E: Into<ApiError>>(
    result: Result<Value, E>,
) -> Result<(SuccessBody, Option<usize>), ApiError> {
    result.map(|body| (body.into(), None)).map_err(Into::into)
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

/// Runs the handler of an authenticated endpoint; `X-Hex-Count` goes in the
/// headers when the endpoint lists hexes.
/// The answer of an endpoint that reads no model.
fn fixed_answer(endpoint: Endpoint) -> Option<SuccessBody> {
    match endpoint {
        Endpoint::Classes => Some(engine::classes().into()),
        Endpoint::HexesConfig => Some(engine::hexes_config().into()),
        Endpoint::RouteConfig => Some(engine::route_config().into()),
        _ => None,
    }
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

async fn run<B: Backend>(
    (endpoint, found): (Endpoint, routes::Found<'_>),
    request: &Request<Bytes>,
    backend: &B,
    ctx: RequestContext,
    versions: &mut Option<HeaderValue>,
) -> Result<(SuccessBody, Option<usize>), ApiError> {
    let query = query_of(request, endpoint, found);
    let read_body = || input::json_body(request);
    // Parsed once: the cities a request needs are found in the body its handler reads.
    let mut parsed = (request.method() == Method::POST).then(read_body);
    if let Some(answer) = fixed_answer(endpoint) {
        return Ok((answer, None));
    }
    let Some(reach) = endpoint.reach() else {
        return Err(ApiError::new(
            ErrorCode::InternalError,
            "unreachable endpoint",
        ));
    };
    let mut newest_data = None;
    let snapshot = backend
        .models()
        .snapshot(
            backend,
            |manifest| {
                newest_data = followed_data(ctx, manifest);
                let body = parsed.as_ref().and_then(|b| b.as_ref().ok());
                needs::needs(reach, manifest, body, &query)
            },
            ctx.now,
        )
        .await
        .map_err(|e| internal(backend, &e))?;
    let now = forecast_clock(ctx, newest_data);
    *versions = model_versions(&snapshot.versions);
    let atlas = &snapshot.atlas;
    let mut body = || parsed.take().unwrap_or_else(read_body);
    let seconds = now.timestamp();
    let params = || input::query_object(&query);
    match endpoint {
        Endpoint::Predict => uncounted(engine::predict(atlas, &body()?, seconds)),
        Endpoint::PredictBatch => uncounted(engine::predict_batch(atlas, &body()?, seconds)),
        Endpoint::RouteRisk => uncounted(engine::route_risk(atlas, &body()?, seconds)),
        Endpoint::Cities => Ok((engine::cities(atlas, seconds).into(), None)),
        Endpoint::Coverage => uncounted(engine::coverage(atlas, &params())),
        Endpoint::PredictionRange => uncounted(engine::prediction_range(atlas, &params(), seconds)),
        Endpoint::HexesScore => {
            let rows = engine::hexes_score(atlas, &body()?, seconds)?;
            let count = rows.len();
            Ok((SuccessBody::ScoreRows(rows), Some(count)))
        }
        Endpoint::HexesLookup => {
            let ring = engine::hexes_lookup(atlas, &body()?, seconds)?;
            let count = ring.count();
            Ok((SuccessBody::RingLookup(ring), Some(count)))
        }
        Endpoint::HexesBreakdown => uncounted(engine::hexes_breakdown(atlas, &params(), seconds)),
        Endpoint::HexesAll | Endpoint::Streets => map_layers::list_answer(
            endpoint,
            &map_layers::list_params(request, &query),
            atlas,
            seconds,
        ),
        Endpoint::Places => {
            let answer = engine::search_places(atlas, &params())?;
            Ok((
                engine::with_status(&answer).into(),
                Some(answer.places.len()),
            ))
        }
        Endpoint::PlacesReverse => Ok((
            engine::with_status(&engine::reverse_place(atlas, &params())?).into(),
            None,
        )),
        Endpoint::Route => uncounted(engine::route(atlas, &body()?, seconds)),
        Endpoint::SafeReach => uncounted(engine::reach(atlas, &body()?, seconds)),
        Endpoint::Evaluate => uncounted(engine::evaluate(atlas, &body()?, seconds)),
        Endpoint::EvaluateHexPath => uncounted(engine::evaluate_hex_path(atlas, &body()?, seconds)),
        Endpoint::PrecinctsStatus => Ok((engine::precincts_status(atlas).into(), None)),
        Endpoint::PrecinctsAllScores => {
            uncounted(engine::precincts_all_scores(atlas, &params(), seconds))
        }
        Endpoint::Precincts => uncounted(engine::precincts_geojson(atlas, &params(), seconds)),
        Endpoint::Tile => {
            let place = map_layers::TilePlace::of(found, request, &query);
            map_layers::tile(place, backend, &snapshot, seconds).await
        }
        Endpoint::TileJson | Endpoint::TileStyle => {
            let place = map_layers::TilePlace::of(found, request, &query);
            map_layers::tile_description(endpoint, place, &snapshot, seconds)
        }
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

/// The query's pairs; a tile's city, which is in its path, as `city=` (the cities
/// a request needs are found from it).
fn query_of(
    request: &Request<Bytes>,
    endpoint: Endpoint,
    found: routes::Found<'_>,
) -> Vec<(String, String)> {
    let mut query = input::query_pairs(request.uri().query());
    if let (Endpoint::Tile | Endpoint::TileJson | Endpoint::TileStyle, Some(city)) =
        (endpoint, found.id)
    {
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
    let mut answer = answer(request, ctx, backend).await;
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
    endpoint: Endpoint,
    backend: &B,
    ctx: RequestContext,
) -> Response<Bytes> {
    let health = service_health(backend, ctx.now).await;
    let newest = health
        .model_status
        .as_ref()
        .and_then(|s| s.cities.iter().map(|c| c.data_through).max());
    let as_of = forecast_clock(ctx, newest);
    let (status, body) = if endpoint == Endpoint::PredictionHealth {
        health::prediction_health(&health, ctx.now, as_of)
    } else {
        health::router_health(&health, ctx.now, as_of)
    };
    response::json(status, &body)
}

async fn answer<B: Backend>(
    request: &Request<Bytes>,
    ctx: RequestContext,
    backend: &B,
) -> Response<Bytes> {
    let path = request.uri().path();
    if ctx.bench_noop && path.starts_with("/__bench/") {
        return bench_answer(request, backend, ctx.now).await;
    }
    if crate::api::portal::is_portal_path(path) {
        return crate::api::portal::handle(request, ctx.now, backend).await;
    }
    let origin = request.headers().get(ORIGIN).and_then(|v| v.to_str().ok());
    if request.method() == Method::OPTIONS {
        return preflight(path, origin);
    }
    // HEAD is answered like GET (without a body, by the runtime).
    let method = if request.method() == Method::HEAD {
        &Method::GET
    } else {
        request.method()
    };
    let (endpoint, access, found) = match routes::find(path, method) {
        Ok(found) => match found.route.handler {
            routes::Handler::Api(endpoint) => (endpoint, found.route.access, found),
            routes::Handler::Portal(_) => return response::error(&ApiError::not_found(path)),
        },
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
    let document = match endpoint {
        Endpoint::PredictionOpenApi => Some(PREDICTION_OPENAPI),
        Endpoint::RouterOpenApi => Some(ROUTER_OPENAPI),
        _ => None,
    };
    if let Some(document) = document {
        let mut answer =
            response::json_bytes(StatusCode::OK, Bytes::from_static(document.as_bytes()));
        answer.extensions_mut().insert(Cacheable {
            policy: CachePolicy::Public,
            key_header: None,
        });
        return answer;
    }
    let api = match access {
        Access::Key(api) => api,
        // No API endpoint is behind a portal session.
        Access::Session | Access::OperatorSession => {
            return response::error(&ApiError::not_found(path));
        }
        Access::Public => return health_answer(endpoint, backend, ctx).await,
    };
    let (key, state) = match authenticate(request, api, backend, ctx.now).await {
        Ok(pair) => pair,
        Err(answer) => return answer,
    };
    let mut versions = None;
    let mut answer = match run((endpoint, found), request, backend, ctx, &mut versions).await {
        Ok((SuccessBody::Tile { bytes, .. }, _)) if bytes.is_empty() => {
            // Nothing of the city in the tile: no content, and nothing to cache.
            response::empty(StatusCode::NO_CONTENT)
        }
        Ok((body, hex_count)) => success(endpoint, &body, hex_count, api, key.kind),
        Err(err) => response::error(&err),
    };
    add_headers(&mut answer, quota::headers(state, ctx.now));
    if let Some(versions) = versions {
        answer.headers_mut().insert(MODEL_VERSION_HEADER, versions);
    }
    if let (KeyApi::Router, Some(origin)) = (api, origin) {
        // `authenticate` refused origins the key does not list.
        add_headers(&mut answer, cors::allow_headers(origin));
    }
    answer
}

/// A successful answer of `endpoint` to a key of `api` and `kind`: the body with its
/// media type, `Vary: Accept` where the body's form follows it, the cache marking
/// and `X-Hex-Count`.
fn success(
    endpoint: Endpoint,
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
    if matches!(endpoint, Endpoint::HexesAll | Endpoint::Streets) {
        // The same URL answers JSON or GeoJSON by `Accept`.
        answer
            .headers_mut()
            .insert(VARY, HeaderValue::from_static("Accept"));
    }
    if let Some(policy) = endpoint.cache_policy(body) {
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

/// The benchmark routes (`HEXRISK_BENCH_NOOP=1` only), the baselines of the HTTP
/// benchmarks: `/__bench/noop` is the cheapest answer the Worker can give, and with
/// `?size=N` an answer of N bytes (what the platform costs to carry an answer that
/// large); `/__bench/gate` adds the key's gate (what one authenticated request costs
/// before any model work).
async fn bench_answer<B: Backend>(
    request: &Request<Bytes>,
    backend: &B,
    now: DateTime<Utc>,
) -> Response<Bytes> {
    const SUCCESS: &[u8] = b"{\"status\":\"success\"}";
    match request.uri().path() {
        "/__bench/noop" => {
            let query = input::query_pairs(request.uri().query());
            let size = input::query_param(&query, "size")
                .and_then(|s| s.parse::<usize>().ok())
                .map_or(0, |s| s.min(BENCH_MAX_SIZE));
            if size <= SUCCESS.len() + 10 {
                return response::json_bytes(StatusCode::OK, Bytes::from_static(SUCCESS));
            }
            // {"status":"success","pad":"xx…x"}, exactly `size` bytes.
            let mut body = b"{\"status\":\"success\",\"pad\":\"".to_vec();
            body.resize(size - 2, b'x');
            body.extend_from_slice(b"\"}");
            response::json_bytes(StatusCode::OK, Bytes::from(body))
        }
        "/__bench/gate" => match authenticate(request, KeyApi::Prediction, backend, now).await {
            Ok((_, state)) => {
                let mut answer = response::json_bytes(StatusCode::OK, Bytes::from_static(SUCCESS));
                add_headers(&mut answer, quota::headers(state, now));
                answer
            }
            Err(answer) => answer,
        },
        path => response::error(&ApiError::not_found(path)),
    }
}

fn allow_list(methods: &[Method]) -> String {
    let mut names: Vec<&str> = methods.iter().map(Method::as_str).collect();
    names.push("OPTIONS");
    names.join(", ")
}

/// `OPTIONS`: a CORS preflight when the browser sends `Origin`, else the methods.
/// Answered from the route table alone (`cors.rs` says why).
fn preflight(path: &str, origin: Option<&str>) -> Response<Bytes> {
    let methods = routes::methods_at(path);
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

mod map_layers;

#[cfg(test)]
mod tests;
