//! The workerd entry point and the [`Backend`] over workerd's services: a Durable
//! Object per account and key kind (`ACCOUNT_GATE`, [`gate_object`]) that checks
//! and counts each metered request, D1 (`KEYS`) for the key store behind it and for browser origins,
//! the R2 bucket (`MODELS`) for the model files, D1 again for the partner portal's
//! accounts and sessions (its SQL in `api/partners/`, run through [`d1`]), Web Crypto and
//! `DecompressionStream` to check and inflate them in native code ([`runtime`]), and
//! the Workers console (`console_error!`) for the failures the API layer logs through
//! [`ModelEnvironment::log_failure`]. Everything else lives in [`crate::api`].

mod block_returns;
mod d1;
mod gate_object;
mod runtime;

use std::cell::{OnceCell, RefCell};
use std::rc::Rc;

use bytes::{Bytes, BytesMut};
use futures_util::StreamExt;
use http_body_util::Full;
use worker::{Context, Env, HttpRequest, Request, event, worker_sys::web_sys};

use crate::api::access::gate::directory::GateDirectory;
use crate::api::access::gate::{Admission, GateRequest, KeyUsage};
use crate::api::access::held_blocks::HeldBlocks;
use crate::api::backend::{Backend, CACHED_ANSWER_SECONDS};
use crate::api::backend_error::BackendError;
use crate::api::models::{ModelEnvironment, ModelStore, StoreSettings};
use crate::api::partners::config::PortalConfig;
use crate::api::plumbing::{clock, response};
use crate::api::{self, ApiError, ErrorCode, RequestContext};

thread_local! {
    /// The isolate's model versions, kept across requests (workerd runs one
    /// request at a time per thread, interleaved only at awaits).
    static STORE: OnceCell<Rc<ModelStore>> = const { OnceCell::new() };
    /// The isolate's blocks of keys' quotas, kept across requests likewise.
    static HELD_BLOCKS: Rc<RefCell<HeldBlocks>> = Rc::new(RefCell::new(HeldBlocks::default()));
    /// The isolate's map of key digests to their account's gate, likewise.
    static DIRECTORY: Rc<RefCell<GateDirectory>> =
        Rc::new(RefCell::new(GateDirectory::default()));
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
    /// The request's context: work that may finish after the answer is sent.
    context: Context,
    store: Rc<ModelStore>,
    held_blocks: Rc<RefCell<HeldBlocks>>,
    directory: Rc<RefCell<GateDirectory>>,
    portal: Option<PortalConfig>,
}

impl ModelEnvironment for WorkerBackend {
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
        runtime::web_crypto_sha256(bytes)
            .await
            .map(hex::encode)
            .map_err(|e| BackendError::new("models", format!("SHA-256: {e:?}")))
    }

    async fn inflate_zlib(&self, compressed: &[u8], limit: usize) -> Result<Vec<u8>, BackendError> {
        match runtime::web_inflate_zlib(compressed, limit).await {
            Ok(Some(plain)) => Ok(plain),
            Ok(None) => Err(BackendError::new(
                "models",
                format!("inflates to more than {limit} bytes"),
            )),
            Err(e) => Err(BackendError::new("models", format!("inflate: {e:?}"))),
        }
    }

    async fn pause(&self, ms: u32) {
        // `setTimeout`: a timer of this request's own, which the runtime waits for.
        worker::Delay::from(std::time::Duration::from_millis(u64::from(ms))).await;
    }

    fn log_failure(&self, err: &BackendError) {
        worker::console_error!("{err}");
    }
}

impl Backend for WorkerBackend {
    async fn admit(&self, request: &GateRequest) -> Result<Admission, BackendError> {
        let fail = |e: worker::Error| BackendError::new("keys", e.to_string());
        let Some((gate, read)) =
            gate_object::gate_of(&self.env, &self.directory, &request.digest, request.now)
                .await
                .map_err(fail)?
        else {
            return Ok(Admission::UnknownKey);
        };
        let body = if read.is_some() {
            let asked = GateRequest {
                record: read,
                ..request.clone()
            };
            serde_json::to_string(&asked)
        } else {
            serde_json::to_string(request)
        }
        .map_err(|e| BackendError::new("keys", e.to_string()))?;
        let mut init = worker::RequestInit::new();
        init.with_method(worker::Method::Post)
            .with_body(Some(body.into()));
        let asked =
            Request::new_with_init(&gate_object::url(gate_object::ADMIT), &init).map_err(fail)?;
        let answer = gate_object::stub(&self.env, &gate)
            .map_err(fail)?
            .fetch_with_request(asked)
            .await
            .map_err(fail)?;
        gate_object::answer_of(answer).await
    }

    async fn usage(&self, digest: &str) -> Result<KeyUsage, BackendError> {
        let fail = |e: worker::Error| BackendError::new("keys", e.to_string());
        let Some((gate, _)) = gate_object::gate_of(&self.env, &self.directory, digest, now())
            .await
            .map_err(fail)?
        else {
            return Ok(KeyUsage::default());
        };
        let address = format!("{}?digest={digest}", gate_object::url(gate_object::USAGE));
        let answer = gate_object::stub(&self.env, &gate)
            .map_err(fail)?
            .fetch_with_str(&address)
            .await
            .map_err(fail)?;
        gate_object::answer_of(answer).await
    }

    fn held_blocks(&self) -> &RefCell<HeldBlocks> {
        &self.held_blocks
    }

    fn models(&self) -> &ModelStore {
        &self.store
    }

    fn portal(&self) -> Option<&PortalConfig> {
        self.portal.as_ref()
    }

    async fn cached_answer(&self, key: &str) -> Option<Bytes> {
        let kept = match worker::Cache::default().get(key, false).await {
            Ok(Some(mut kept)) => kept.bytes().await,
            Ok(None) => return None,
            Err(e) => Err(e),
        };
        kept.map(Bytes::from)
            .inspect_err(|e| worker::console_warn!("answer cache: read {key}: {e}"))
            .ok()
    }

    async fn keep_answer(&self, key: &str, bytes: &Bytes) {
        // After the answer: the client does not wait for the cache's write.
        let (key, bytes) = (key.to_owned(), bytes.to_vec());
        self.context.wait_until(async move {
            let kept = async {
                let headers = worker::Headers::new();
                headers.set(
                    "Cache-Control",
                    &format!("public, max-age={CACHED_ANSWER_SECONDS}"),
                )?;
                let response = worker::Response::from_bytes(bytes)?.with_headers(headers);
                worker::Cache::default().put(key.as_str(), response).await
            };
            if let Err(e) = kept.await {
                worker::console_warn!("answer cache: keep {key}: {e}");
            }
        });
    }

    fn log_refusal(&self, area: &str, why: &str) {
        worker::console_warn!("{area}: {why}");
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
    worker_ctx: Context,
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
        clock_follows_data: clock::follows_data(pin.as_deref()),
        bench_noop: env
            .var("HEXRISK_BENCH_NOOP")
            .is_ok_and(|v| v.to_string() == "1"),
    };
    // The one row of the route table answered here: only the glue knows the memory.
    let baseline = api::routes::Table::WITH_BASELINES
        .find(request.uri().path(), &http::Method::GET)
        .is_ok_and(|found| {
            matches!(
                found.route.answer,
                api::routes::Answer::Bench(api::routes::Baseline::Memory)
            )
        });
    if ctx.bench_noop && baseline {
        return Ok(wasm_memory());
    }
    let (parts, body) = request.into_parts();
    let answer = match read_body(body, api::MAX_BODY_BYTES).await {
        Ok(bytes) => {
            let request = http::Request::from_parts(parts, bytes);
            let store = model_store(&env);
            let var = |name: &str| env.var(name).ok().map(|v| v.to_string());
            let portal = PortalConfig::from_var(var("HEXRISK_PORTAL_ORIGIN").as_deref())
                .map(|c| c.with_record_ttl(var("HEXRISK_KEY_RECORD_TTL_SECONDS").as_deref()));
            let backend = WorkerBackend {
                env,
                context: worker_ctx,
                store,
                held_blocks: HELD_BLOCKS.with(Rc::clone),
                directory: DIRECTORY.with(Rc::clone),
                portal,
            };
            let answer = api::handle(&request, ctx, &backend).await;
            block_returns::schedule(
                &backend.context,
                &backend.env,
                &backend.held_blocks,
                &backend.directory,
            );
            answer
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
