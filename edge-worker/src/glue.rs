//! The workerd entry point: converts requests and responses and supplies the clock.
//! Everything else lives in [`crate::api`].

use bytes::{Bytes, BytesMut};
use futures_util::StreamExt;
use http_body_util::Full;
use worker::{Context, Env, HttpRequest, event};

use crate::api::health::{Component, ServiceHealth};
use crate::api::{self, ApiError, ErrorCode, RequestContext, response};

/// Reads the body, refusing it once it grows past [`api::MAX_BODY_BYTES`].
async fn read_body(body: worker::Body) -> Result<Bytes, ApiError> {
    let mut stream = body;
    let mut collected = BytesMut::new();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|_| {
            ApiError::new(
                ErrorCode::InvalidRequest,
                "the request body could not be read",
            )
        })?;
        if collected.len() + chunk.len() > api::MAX_BODY_BYTES {
            return Err(
                ApiError::new(ErrorCode::InvalidRequest, "request body too large")
                    .with("limit", api::MAX_BODY_BYTES),
            );
        }
        collected.extend_from_slice(&chunk);
    }
    Ok(collected.freeze())
}

fn now() -> chrono::DateTime<chrono::Utc> {
    let millis = worker::Date::now().as_millis();
    chrono::DateTime::from_timestamp_millis(i64::try_from(millis).unwrap_or(i64::MAX))
        .unwrap_or_default()
}

#[event(start)]
fn start() {
    console_error_panic_hook::set_once();
}

#[event(fetch)]
async fn fetch(
    request: HttpRequest,
    _env: Env,
    _ctx: Context,
) -> worker::Result<http::Response<Full<Bytes>>> {
    let (parts, body) = request.into_parts();
    let answer = match read_body(body).await {
        Ok(bytes) => {
            let request = http::Request::from_parts(parts, bytes);
            let ctx = RequestContext {
                now: now(),
                health: ServiceHealth {
                    api: Component::Healthy,
                    models: Component::Healthy,
                    database: Component::Healthy,
                    cities: Vec::new(),
                },
            };
            api::handle(&request, &ctx)
        }
        Err(err) => response::error(&err),
    };
    Ok(answer.map(Full::new))
}
