//! Dispatch from method and path to the handlers of both APIs.

use bytes::Bytes;
use chrono::{DateTime, Utc};
use http::header::{ALLOW, HeaderValue};
use http::{Method, Request, Response};

use super::health::{self, ServiceHealth};
use super::{ApiError, response};

/// What the Worker supplies with each request besides the request itself.
#[derive(Debug, Clone)]
pub struct RequestContext {
    /// The current time (the Worker's clock).
    pub now: DateTime<Utc>,
    /// Health of the Worker's parts.
    pub health: ServiceHealth,
}

/// One endpoint: the methods it answers.
struct Endpoint {
    path: &'static str,
    methods: &'static [Method],
}

/// Every endpoint served, for 404 versus 405 decisions.
const ENDPOINTS: &[Endpoint] = &[
    Endpoint {
        path: "/v1/health",
        methods: &[Method::GET],
    },
    Endpoint {
        path: "/health",
        methods: &[Method::GET],
    },
];

/// Answers one request.
#[must_use]
pub fn handle(request: &Request<Bytes>, ctx: &RequestContext) -> Response<Bytes> {
    let path = request.uri().path();
    let method = request.method();
    let Some(endpoint) = ENDPOINTS.iter().find(|e| e.path == path) else {
        return response::error(&ApiError::not_found(path));
    };
    if !endpoint.methods.contains(method) {
        let mut answer = response::error(&ApiError::method_not_allowed(method, endpoint.methods));
        let allow = endpoint
            .methods
            .iter()
            .map(Method::as_str)
            .collect::<Vec<_>>()
            .join(", ");
        if let Ok(value) = HeaderValue::from_str(&allow) {
            answer.headers_mut().insert(ALLOW, value);
        }
        return answer;
    }
    let (status, body) = match endpoint.path {
        "/v1/health" => health::prediction_health(&ctx.health, ctx.now),
        _ => health::router_health(&ctx.health, ctx.now),
    };
    response::json(status, &body)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::health::Component;
    use serde_json::Value;

    fn ctx() -> RequestContext {
        RequestContext {
            now: DateTime::from_timestamp(1_767_225_600, 0).unwrap(),
            health: ServiceHealth {
                api: Component::Healthy,
                models: Component::Healthy,
                database: Component::Healthy,
                cities: Vec::new(),
            },
        }
    }

    fn call(method: Method, uri: &str) -> (u16, Value, Response<Bytes>) {
        let request = Request::builder()
            .method(method)
            .uri(uri)
            .body(Bytes::new())
            .unwrap();
        let response = handle(&request, &ctx());
        let body = serde_json::from_slice(response.body()).unwrap();
        (response.status().as_u16(), body, response)
    }

    #[test]
    fn both_health_endpoints_answer() {
        let (status, body, _) = call(Method::GET, "http://localhost/v1/health");
        assert_eq!(status, 200);
        assert!(body["services"].is_object());
        let (status, body, _) = call(Method::GET, "http://localhost/health?x=1");
        assert_eq!(status, 200);
        assert_eq!(body["service"], "hexrisk-router");
    }

    #[test]
    fn unknown_paths_are_404_in_the_error_shape() {
        let (status, body, _) = call(Method::GET, "http://localhost/v2/health");
        assert_eq!(status, 404);
        assert_eq!(body["status"], "error");
        assert_eq!(body["code"], "NOT_FOUND");
        assert_eq!(body["details"]["path"], "/v2/health");
    }

    #[test]
    fn wrong_method_is_405_with_allow() {
        let (status, body, response) = call(Method::POST, "http://localhost/v1/health");
        assert_eq!(status, 405);
        assert_eq!(body["code"], "METHOD_NOT_ALLOWED");
        assert_eq!(response.headers()["allow"], "GET");
    }
}
