//! The prediction API's document (`GET /v1/openapi.json`): its operations, in the
//! order of the route table, and what the document says around them.

use http::Method;
use serde_json::json;

use super::Spec;
use super::headers;
use super::operation::{Operation, Success, openapi_document, parameters, schema};
use crate::api::access::keys::KeyApi;
use crate::api::routes::{Access, Route};
use crate::api::serving::health::PredictionHealth;
use hexrisk_engine::operations::prediction as types;

/// Answers to a wrong key, method or quota, on every keyed operation.
const KEYED_ERRORS: [(u16, &str); 6] = [
    (400, "Invalid request, coordinates or date"),
    (401, "Missing or invalid key"),
    (404, "Location not covered or no such path"),
    (405, "Wrong method"),
    (429, "Daily limit exceeded"),
    (500, "Server error"),
];

pub(super) fn spec() -> Spec {
    Spec {
        info: json!({
            "title": "hexrisk Crime Risk Prediction API",
            "version": "1.0.0",
            "description": "Weekly crime-risk forecasts on the H3 grid. See docs/API.md for the decisions beyond the specification.",
        }),
        servers: json!([{ "url": "http://127.0.0.1:8787/v1", "description": "make run" }]),
        security: (
            "bearer",
            json!({
                "type": "http",
                "scheme": "bearer",
                "description": "hexrisk_sandbox_… or hexrisk_live_… key",
            }),
        ),
        secured: true,
        serves: |row| row.path.starts_with("/v1/"),
        base: "/v1",
        operations: &OPERATIONS,
        common_errors: |row: &Route| match row.access {
            Access::Key(KeyApi::Prediction) => KEYED_ERRORS.to_vec(),
            _ => Vec::new(),
        },
        headers: headers::keyed_api(),
    }
}

static OPERATIONS: [Operation; 9] = [
    Operation {
        method: Method::GET,
        path: "/v1/health",
        id: "health",
        summary: "Service health (no key)",
        description: None,
        parameters: None,
        body: None,
        success: Success::json("Healthy", schema::<PredictionHealth>),
        errors: &[(503, "A component is unhealthy")],
    },
    Operation {
        method: Method::GET,
        path: "/v1/openapi.json",
        id: "openapi",
        summary: "This document (no key)",
        description: None,
        parameters: None,
        body: None,
        success: Success::json("OpenAPI 3.1 document", openapi_document),
        errors: &[],
    },
    Operation {
        method: Method::POST,
        path: "/v1/predict",
        id: "predict",
        summary: "Prediction for one location",
        description: None,
        parameters: None,
        body: Some(schema::<types::PredictRequest>),
        success: Success::json("The prediction", schema::<types::Prediction>),
        errors: &[],
    },
    Operation {
        method: Method::POST,
        path: "/v1/predict/batch",
        id: "predictBatch",
        summary: "Predictions for up to 500 locations",
        description: None,
        parameters: None,
        body: Some(schema::<types::BatchRequest>),
        success: Success::json(
            "One result per location, in request order",
            schema::<types::BatchResult>,
        ),
        errors: &[],
    },
    Operation {
        method: Method::POST,
        path: "/v1/route/risk",
        id: "routeRisk",
        summary: "Risk along a waypoint route (2 to 100 waypoints, at most 200 km)",
        description: None,
        parameters: None,
        body: Some(schema::<types::RouteRiskRequest>),
        success: Success::json("Segment and route scores", schema::<types::RouteAnalysis>),
        errors: &[],
    },
    Operation {
        method: Method::GET,
        path: "/v1/cities",
        id: "cities",
        summary: "Covered cities",
        description: None,
        parameters: None,
        body: None,
        success: Success::json("The cities", schema::<types::Cities>),
        errors: &[],
    },
    Operation {
        method: Method::GET,
        path: "/v1/coverage",
        id: "coverage",
        summary: "Coverage of one city, or of every city without `city`",
        description: None,
        parameters: Some(parameters::<types::CoverageQuery>),
        body: None,
        success: Success::json(
            "One city's record, or every city's",
            schema::<types::CoverageAnswer>,
        ),
        errors: &[],
    },
    Operation {
        method: Method::GET,
        path: "/v1/classes",
        id: "classes",
        summary: "Crime class definitions",
        description: None,
        parameters: None,
        body: None,
        success: Success::json("The six classes", schema::<types::Classes>),
        errors: &[],
    },
    Operation {
        method: Method::GET,
        path: "/v1/prediction/range",
        id: "predictionRange",
        summary: "Prediction date range for a location",
        description: None,
        parameters: Some(parameters::<types::RangeQuery>),
        body: None,
        success: Success::json("The range", schema::<types::PredictionRange>),
        errors: &[],
    },
];
