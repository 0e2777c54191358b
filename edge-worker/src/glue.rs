//! The workerd entry point and the [`Backend`] over workerd's services:
//! D1 (`KEYS`) for keys, a Durable Object per key (`QUOTA`) for daily counts, the R2
//! bucket (`MODELS`) for the model files, Web Crypto and `DecompressionStream` to
//! check and inflate them in native code, and the Workers console
//! (`console_error!`) for the failures the API layer logs through
//! [`Backend::log_failure`]. Everything else lives in [`crate::api`].

use std::cell::{OnceCell, RefCell};
use std::rc::Rc;

use bytes::{Bytes, BytesMut};
use chrono::NaiveDate;
use futures_util::StreamExt;
use http_body_util::Full;
use serde::{Deserialize, Serialize};
use worker::{
    Context, DurableObject, Env, HttpRequest, Request, Response, State, durable_object, event,
    worker_sys::web_sys,
};

use crate::api::backend::{Backend, BackendError};
use crate::api::keys::{KeyRecord, KeyRow};
use crate::api::models::{ModelStore, StoreSettings};
use crate::api::quota::{self, QuotaState};
use crate::api::{self, ApiError, ErrorCode, RequestContext, clock, response};

thread_local! {
    /// The isolate's model versions, kept across requests (workerd runs one
    /// request at a time per thread, interleaved only at awaits).
    static STORE: OnceCell<Rc<ModelStore>> = const { OnceCell::new() };
}

/// The isolate's store, made on first use with the Worker's settings.
fn model_store(env: &Env) -> Rc<ModelStore> {
    STORE.with(|cell| {
        Rc::clone(cell.get_or_init(|| {
            let var = |name: &str| env.var(name).ok().map(|v| v.to_string());
            Rc::new(ModelStore::new(StoreSettings::from_vars(
                var("HEXRISK_MANIFEST_TTL_SECONDS").as_deref(),
                var("HEXRISK_MAX_CITIES").as_deref(),
            )))
        }))
    })
}

struct WorkerBackend {
    env: Env,
    store: Rc<ModelStore>,
}

impl Backend for WorkerBackend {
    async fn key_by_digest(&self, digest: &str) -> Result<Option<KeyRecord>, BackendError> {
        let fail = |e: worker::Error| BackendError::new("database", e.to_string());
        let statement = self
            .env
            .d1("KEYS")
            .map_err(fail)?
            .prepare(
                "SELECT id, digest, kind, tier, daily_limit, issued_at, expires_at, revoked_at, origins \
                 FROM api_keys WHERE digest = ?1",
            )
            .bind(&[digest.into()])
            .map_err(fail)?;
        let row: Option<KeyRow> = statement.first(None).await.map_err(fail)?;
        Ok(row.and_then(|r| r.into_record(digest)))
    }

    async fn consume(&self, key: &KeyRecord, day: NaiveDate) -> Result<QuotaState, BackendError> {
        let fail = |e: worker::Error| BackendError::new("quota", e.to_string());
        let stub = self
            .env
            .durable_object("QUOTA")
            .map_err(fail)?
            .get_by_name(&key.id)
            .map_err(fail)?;
        let url = format!(
            "https://quota.invalid/consume?day={day}&limit={}",
            key.daily_limit
        );
        let mut answer = stub.fetch_with_str(&url).await.map_err(fail)?;
        if answer.status_code() != 200 {
            // The counter's own failure, with its cause (see `QuotaCounter::fetch`).
            let status = answer.status_code();
            let text = answer.text().await.unwrap_or_default();
            return Err(BackendError::new(
                "quota",
                format!("counter answered HTTP {status}: {text}"),
            ));
        }
        answer.json::<QuotaState>().await.map_err(fail)
    }

    async fn read_model_file(
        &self,
        key: &str,
        limit: u64,
    ) -> Result<Option<Vec<u8>>, BackendError> {
        let fail = |e: worker::Error| BackendError::new("models", format!("{key}: {e}"));
        let bucket = self.env.bucket("MODELS").map_err(fail)?;
        let Some(object) = bucket.get(key).execute().await.map_err(fail)? else {
            return Ok(None);
        };
        if object.size() > limit {
            return Err(BackendError::new(
                "models",
                format!("{key} has {} bytes, more than {limit}", object.size()),
            ));
        }
        match object.body() {
            Some(body) => body.bytes().await.map(Some).map_err(fail),
            None => Err(BackendError::new("models", format!("{key}: no body"))),
        }
    }

    async fn sha256_hex(&self, bytes: &[u8]) -> Result<String, BackendError> {
        web_crypto_sha256(bytes)
            .await
            .map(hex::encode)
            .map_err(|e| BackendError::new("models", format!("SHA-256: {e:?}")))
    }

    async fn inflate_zlib(&self, compressed: &[u8], limit: usize) -> Result<Vec<u8>, BackendError> {
        match web_inflate_zlib(compressed, limit).await {
            Ok(Some(plain)) => Ok(plain),
            Ok(None) => Err(BackendError::new(
                "models",
                format!("inflates to more than {limit} bytes"),
            )),
            Err(e) => Err(BackendError::new("models", format!("inflate: {e:?}"))),
        }
    }

    fn models(&self) -> &ModelStore {
        &self.store
    }

    async fn origin_listed(&self, origin: &str) -> Result<bool, BackendError> {
        let fail = |e: worker::Error| BackendError::new("database", e.to_string());
        // Candidate keys by a text match, then the exact rule of `cors::origin_listed`.
        let rows: Vec<KeyRow> = self
            .env
            .d1("KEYS")
            .map_err(fail)?
            .prepare(
                "SELECT id, digest, kind, tier, daily_limit, issued_at, expires_at, revoked_at, origins \
                 FROM api_keys WHERE revoked_at IS NULL AND instr(lower(origins), ?1) > 0",
            )
            .bind(&[origin.trim().trim_end_matches('/').to_ascii_lowercase().into()])
            .map_err(fail)?
            .all()
            .await
            .map_err(fail)?
            .results()
            .map_err(fail)?;
        let now = now();
        Ok(rows.into_iter().any(|row| {
            let digest = row.digest.clone();
            row.into_record(&digest)
                .is_some_and(|r| r.is_usable(now) && api::cors::origin_listed(&r.origins, origin))
        }))
    }

    async fn check_database(&self) -> Result<(), BackendError> {
        let fail = |e: worker::Error| BackendError::new("database", e.to_string());
        self.env
            .d1("KEYS")
            .map_err(fail)?
            .prepare("SELECT COUNT(*) AS n FROM api_keys")
            .first::<serde_json::Value>(None)
            .await
            .map_err(fail)?;
        Ok(())
    }

    fn log_failure(&self, err: &BackendError) {
        worker::console_error!("{err}");
    }
}

/// `crypto.subtle.digest("SHA-256", bytes)`: the runtime's native hash.
async fn web_crypto_sha256(bytes: &[u8]) -> Result<Vec<u8>, worker::wasm_bindgen::JsValue> {
    use worker::js_sys::{Function, Promise, Reflect, Uint8Array, global};
    use worker::wasm_bindgen::JsCast;
    let crypto = Reflect::get(&global(), &"crypto".into())?;
    let subtle = Reflect::get(&crypto, &"subtle".into())?;
    let digest: Function = Reflect::get(&subtle, &"digest".into())?.dyn_into()?;
    let promise: Promise = digest
        .call2(&subtle, &"SHA-256".into(), &Uint8Array::from(bytes))?
        .dyn_into()?;
    let buffer = worker::wasm_bindgen_futures::JsFuture::from(promise).await?;
    Ok(Uint8Array::new(&buffer).to_vec())
}

/// Inflates a zlib stream with the runtime's `DecompressionStream("deflate")` (which
/// checks the Adler-32), stopping past `limit` bytes (`Ok(None)`).
async fn web_inflate_zlib(
    compressed: &[u8],
    limit: usize,
) -> Result<Option<Vec<u8>>, worker::wasm_bindgen::JsValue> {
    use worker::js_sys::{Array, Function, Object, Promise, Reflect, Uint8Array, global};
    use worker::wasm_bindgen::JsCast;
    use worker::wasm_bindgen_futures::JsFuture;
    const STEP: u32 = 1 << 20;
    let method = |target: &worker::wasm_bindgen::JsValue, name: &str| -> Result<Function, _> {
        Reflect::get(target, &name.into())?.dyn_into::<Function>()
    };
    let construct = |name: &str, argument: &worker::wasm_bindgen::JsValue| {
        let class: Function = Reflect::get(&global(), &name.into())?.dyn_into()?;
        Reflect::construct(&class, &Array::of1(argument))
    };
    let input = construct("Response", &Uint8Array::from(compressed).into())?;
    let stream = Reflect::get(&input, &"body".into())?;
    let inflating = construct("DecompressionStream", &"deflate".into())?;
    let inflated = method(&stream, "pipeThrough")?.call1(&stream, &inflating)?;
    // Read through a byte reader a megabyte at a time (workerd's `readAtLeast`): four
    // round trips for Toronto instead of one per 4 KiB chunk (725), which cost more than
    // the inflating itself; never more than `limit` plus one step is held.
    let collected = construct("Response", &inflated)?;
    let body = Reflect::get(&collected, &"body".into())?;
    let options = Object::new();
    Reflect::set(&options, &"mode".into(), &"byob".into())?;
    let reader = method(&body, "getReader")?.call1(&body, &options)?;
    let read_at_least = method(&reader, "readAtLeast")?;
    let mut out = Vec::new();
    loop {
        let view = Uint8Array::new_with_length(STEP);
        let next: Promise = read_at_least
            .call2(&reader, &STEP.into(), &view)?
            .dyn_into()?;
        let result = JsFuture::from(next).await?;
        let value = Reflect::get(&result, &"value".into())?;
        if !value.is_undefined() {
            let chunk = Uint8Array::new(&value);
            let start = out.len();
            let end = start + chunk.length() as usize;
            if end > limit {
                let _ = method(&reader, "cancel")?.call0(&reader);
                return Ok(None);
            }
            out.resize(end, 0);
            chunk.copy_to(&mut out[start..]);
        }
        if Reflect::get(&result, &"done".into())?.as_bool() == Some(true) {
            return Ok(Some(out));
        }
    }
}

/// Reads a body, refusing it once it grows past `limit` bytes.
async fn read_body(body: worker::Body, limit: usize) -> Result<Bytes, ApiError> {
    // Past the limit the rest is read and dropped, up to this much: answering before
    // the client has finished sending makes the runtime's proxy drop the connection,
    // and the client would get a bare network error instead of the JSON refusal.
    const DRAIN_LIMIT: usize = 64 << 20;
    let mut stream = body;
    let mut collected = BytesMut::new();
    let mut seen = 0_usize;
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|_| {
            ApiError::new(
                ErrorCode::InvalidRequest,
                "the request body could not be read",
            )
        })?;
        seen += chunk.len();
        if seen > DRAIN_LIMIT {
            break;
        }
        if seen <= limit {
            collected.extend_from_slice(&chunk);
        }
    }
    if seen > limit {
        return Err(
            ApiError::new(ErrorCode::InvalidRequest, "request body too large").with("limit", limit),
        );
    }
    Ok(collected.freeze())
}

fn now() -> chrono::DateTime<chrono::Utc> {
    let millis = worker::Date::now().as_millis();
    chrono::DateTime::from_timestamp_millis(i64::try_from(millis).unwrap_or(i64::MAX))
        .unwrap_or_default()
}

/// `GET /__bench/memory` (benchmark runs only, with `/__bench/noop`): the isolate's
/// wasm linear memory in bytes and the cities it keeps decoded, for
/// `bench/http/cold.mjs`. Linear memory never shrinks; freed space is reused.
fn wasm_memory() -> http::Response<Full<Bytes>> {
    let bytes = core::arch::wasm32::memory_size::<0>() * 65_536;
    let cached: Vec<String> = STORE.with(|cell| {
        cell.get()
            .map(|store| store.cached().into_iter().map(|(code, _)| code).collect())
            .unwrap_or_default()
    });
    let body = serde_json::json!({ "wasm_memory_bytes": bytes, "cached": cached });
    let mut answer = http::Response::new(Full::new(Bytes::from(body.to_string())));
    answer.headers_mut().insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("application/json"),
    );
    answer
}

#[event(start)]
fn start() {
    console_error_panic_hook::set_once();
}

/// What the client itself sent as `Accept-Encoding`.
enum ClientEncoding {
    /// Not behind the platform (no `cf` object): the header the Worker sees stands.
    Unknown,
    /// The client sent none.
    Absent,
    /// The client's value.
    Sent(String),
}

/// The client's own `Accept-Encoding`: the platform (and `wrangler dev`) replaces the
/// header a Worker sees with `br, gzip` and keeps the client's value in
/// `request.cf.clientAcceptEncoding`, absent when the client sent none.
fn client_accept_encoding(request: &web_sys::Request) -> ClientEncoding {
    use worker::js_sys::Reflect;
    let Some(cf) = Reflect::get(request, &"cf".into())
        .ok()
        .filter(worker::wasm_bindgen::JsValue::is_object)
    else {
        return ClientEncoding::Unknown;
    };
    match Reflect::get(&cf, &"clientAcceptEncoding".into())
        .ok()
        .and_then(|v| v.as_string())
    {
        Some(value) if !value.trim().is_empty() => ClientEncoding::Sent(value),
        _ => ClientEncoding::Absent,
    }
}

#[event(fetch)]
async fn fetch(
    request: web_sys::Request,
    env: Env,
    _ctx: Context,
) -> worker::Result<http::Response<Full<Bytes>>> {
    let client_encoding = client_accept_encoding(&request);
    let mut request: HttpRequest = worker::request_from_wasm(request)?;
    let headers = request.headers_mut();
    match client_encoding {
        ClientEncoding::Unknown => {}
        ClientEncoding::Absent => {
            headers.remove(http::header::ACCEPT_ENCODING);
        }
        ClientEncoding::Sent(value) => match http::HeaderValue::from_str(&value) {
            Ok(value) => {
                headers.insert(http::header::ACCEPT_ENCODING, value);
            }
            Err(_) => {
                headers.remove(http::header::ACCEPT_ENCODING);
            }
        },
    }
    let now = now();
    let pin = env.var(clock::CLOCK_VAR).ok().map(|v| v.to_string());
    let ctx = RequestContext {
        now,
        forecast_now: clock::forecast_now(pin.as_deref(), now),
        bench_noop: env
            .var("HEXRISK_BENCH_NOOP")
            .is_ok_and(|v| v.to_string() == "1"),
    };
    if ctx.bench_noop && request.uri().path() == "/__bench/memory" {
        return Ok(wasm_memory());
    }
    let (parts, body) = request.into_parts();
    let answer = match read_body(body, api::MAX_BODY_BYTES).await {
        Ok(bytes) => {
            let request = http::Request::from_parts(parts, bytes);
            let store = model_store(&env);
            api::handle(&request, ctx, &WorkerBackend { env, store }).await
        }
        Err(err) => response::error(&err),
    };
    let mut answer = answer.map(Full::new);
    if answer
        .headers()
        .contains_key(http::header::CONTENT_ENCODING)
    {
        // The API layer compressed the body itself: the runtime must send it as is.
        answer.extensions_mut().insert(worker::EncodeBody::Manual);
    }
    Ok(answer)
}

/// What a counter stores.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Count {
    day: NaiveDate,
    used: u32,
}

/// The daily request counter of one key. Requests to one object are serialised by
/// workerd, and the count is updated in memory before the write is awaited, so
/// concurrent requests are counted exactly.
#[durable_object]
pub struct QuotaCounter {
    state: State,
    cached: RefCell<Option<Count>>,
}

impl DurableObject for QuotaCounter {
    fn new(state: State, _env: Env) -> Self {
        Self {
            state,
            cached: RefCell::new(None),
        }
    }

    async fn fetch(&self, request: Request) -> worker::Result<Response> {
        let url = request.url()?;
        let param = |name: &str| {
            url.query_pairs()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.into_owned())
        };
        let (Some(day), Some(limit)) = (
            param("day").and_then(|d| d.parse::<NaiveDate>().ok()),
            param("limit").and_then(|l| l.parse::<u32>().ok()),
        ) else {
            return Response::error("bad counter request", 400);
        };
        match self.count(day, limit).await {
            Ok(decision) => Response::from_json(&decision),
            // Answered, not thrown: `WorkerBackend::consume` logs it once, with the cause.
            Err(err) => Response::error(format!("counter storage: {err}"), 500),
        }
    }
}

impl QuotaCounter {
    /// Counts one request on `day` against `limit`, in memory and in storage.
    async fn count(&self, day: NaiveDate, limit: u32) -> worker::Result<QuotaState> {
        if self.cached.borrow().is_none() {
            let stored: Option<Count> = self.state.storage().get("count").await?;
            let mut cached = self.cached.borrow_mut();
            if cached.is_none() {
                *cached = stored;
            }
        }
        let (decision, to_store) = {
            let mut cached = self.cached.borrow_mut();
            let used = cached
                .as_ref()
                .filter(|c| c.day == day)
                .map_or(0, |c| c.used);
            let decision = quota::decide(used, limit);
            let count = Count {
                day,
                used: decision.used,
            };
            *cached = Some(count.clone());
            (decision, decision.allowed.then_some(count))
        };
        if let Some(count) = to_store {
            self.state.storage().put("count", count).await?;
        }
        Ok(decision)
    }
}
