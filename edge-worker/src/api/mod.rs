//! The HTTP API layer: request in, response out, no knowledge of workerd.
//!
//! module-cycles: ordered. The modules by concern, lowest first: each uses only those
//! declared above it (`scripts/module-cycles.py`).

// HTTP plumbing: errors, the clock, request input, response bodies, CORS, caching.
pub mod plumbing;
// The OpenAPI documents, as served.
pub mod openapi;
// The failures of the platform's storage and gates, as the handlers see them.
pub mod backend_error;
// Access: API keys, daily quotas, each account's gate and the quota blocks an isolate holds.
pub mod access;
// Models: the versions an isolate serves.
pub mod models;
// What the partner portal keeps, and the store it keeps it in.
pub mod partners;
// What the API needs from its environment.
pub mod backend;
// The engine operation behind each endpoint that reads the models.
pub mod endpoints;
// The one route table of both APIs, the portal and the benchmark baselines.
pub mod routes;
// The partner portal's page and API.
pub mod portal;
// The two APIs: health, and a request to its route's handler.
pub mod serving;
#[cfg(test)]
pub(crate) mod test_support;

pub use plumbing::error::{ApiError, ErrorCode};
pub use serving::dispatch::{RequestContext, handle};

/// Largest request body accepted, in bytes (1 MiB). Larger bodies are refused
/// with `INVALID_REQUEST` and `details.limit` before they are read in full.
pub const MAX_BODY_BYTES: usize = 1 << 20;
