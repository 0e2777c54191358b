//! Requests sent through [`handle`] at the tests' clock.

use bytes::Bytes;
use http::{Method, Request, Response};
use serde_json::Value;

use super::fixtures::now;
use super::memory_backend::MemoryBackend;
use crate::api::serving::dispatch::{RequestContext, handle};

/// Both clocks at [`now`], the benchmark routes off.
pub(crate) fn ctx() -> RequestContext {
    RequestContext {
        now: now(),
        forecast_now: now(),
        clock_follows_data: false,
        bench_noop: false,
    }
}

/// The answer to `method uri` with `headers` and a body of `bytes`.
pub(crate) fn send_bytes(
    backend: &MemoryBackend,
    method: Method,
    uri: &str,
    headers: &[(&str, &str)],
    bytes: Bytes,
) -> Response<Bytes> {
    let mut builder = Request::builder().method(method).uri(uri);
    for (name, value) in headers {
        builder = builder.header(*name, *value);
    }
    futures_executor::block_on(handle(&builder.body(bytes).unwrap(), ctx(), backend))
}

/// The answer to `method uri` with `headers` and, when given, a JSON body (with its
/// `Content-Type`).
pub(crate) fn send(
    backend: &MemoryBackend,
    method: Method,
    uri: &str,
    headers: &[(&str, &str)],
    body: Option<Value>,
) -> Response<Bytes> {
    let Some(body) = body else {
        return send_bytes(backend, method, uri, headers, Bytes::new());
    };
    let mut headers = headers.to_vec();
    headers.push(("content-type", "application/json"));
    send_bytes(
        backend,
        method,
        uri,
        &headers,
        Bytes::from(body.to_string()),
    )
}

/// A GET with `headers` (the key among them, if any) and no body.
pub(crate) fn get_with(
    backend: &MemoryBackend,
    uri: &str,
    headers: &[(&str, &str)],
) -> Response<Bytes> {
    send(backend, Method::GET, uri, headers, None)
}

/// A prediction API request, with `Authorization: Bearer <key>` when a key is given:
/// the status, the JSON body and the whole answer.
pub(crate) fn call(
    backend: &MemoryBackend,
    method: Method,
    uri: &str,
    key: Option<&str>,
    body: Option<Value>,
) -> (u16, Value, Response<Bytes>) {
    let bearer = key.map(|key| format!("Bearer {key}"));
    let headers: Vec<(&str, &str)> = bearer
        .iter()
        .map(|value| ("authorization", value.as_str()))
        .collect();
    let response = send(backend, method, uri, &headers, body);
    (response.status().as_u16(), json_of(&response), response)
}

/// A GET without a body (see [`call`]).
pub(crate) fn get(
    backend: &MemoryBackend,
    uri: &str,
    key: Option<&str>,
) -> (u16, Value, Response<Bytes>) {
    call(backend, Method::GET, uri, key, None)
}

/// The answer's body as JSON.
pub(crate) fn json_of(response: &Response<Bytes>) -> Value {
    serde_json::from_slice(response.body()).unwrap()
}
