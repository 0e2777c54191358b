//! The three OpenAPI 3.1 documents, as served (each is its route's answer in the
//! route table).

/// The prediction API's, served at `GET /v1/openapi.json`.
pub const PREDICTION_OPENAPI: &str = include_str!("../../../openapi/prediction-v1.json");

/// The router API's, served at `GET /openapi.json`.
pub const ROUTER_OPENAPI: &str = include_str!("../../../openapi/router.json");

/// The partner portal API's, served at `GET /portal/api/openapi.json`.
pub const PORTAL_OPENAPI: &str = include_str!("../../../openapi/portal.json");

#[cfg(test)]
mod generate;
