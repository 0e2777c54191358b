//! The HTTP API layer: request in, response out, no knowledge of workerd.
//!
//! module-cycles: ordered. The modules by concern, lowest first: each uses only those
//! declared above it (`scripts/module-cycles.py`).

// HTTP plumbing: errors, the clock, request input, response bodies, CORS, caching.
pub mod error;
// The failures of the platform's storage and gates, as the handlers see them.
pub mod backend_error;
// The forecasting clock of a request.
pub mod clock;
// Request bodies and query strings.
pub mod input;
// Responses: JSON, compression, the error body.
pub mod response;
// Success bodies, serialised once.
pub mod success_body;
// Browser origins and preflights.
pub mod cors;
// Server addresses a key may be used from.
pub mod ip_ranges;
// ETags and Cache-Control.
pub mod caching;
// Access: API keys, quotas, each account's gate and an isolate's leases of a quota.
pub mod keys;
// Daily quotas.
pub mod quota;
// What an account's Durable Object decides.
pub mod gate;
// An isolate's blocks of busy keys' quotas.
pub mod leases;
// Models: the versions an isolate serves.
pub mod models;
// What the partner portal keeps, and the store it keeps it in.
pub mod partners;
// What the API needs from its environment.
pub mod backend;
// The one route table of both APIs and the portal.
pub mod routes;
// The services' health records.
pub mod health;
// The partner portal's page and API.
pub mod portal;
// A request to its route's handler.
pub mod dispatch;
#[cfg(test)]
pub(crate) mod test_support;

pub use dispatch::{RequestContext, handle};
pub use error::{ApiError, ErrorCode};

/// Largest request body accepted, in bytes (1 MiB). Larger bodies are refused
/// with `INVALID_REQUEST` and `details.limit` before they are read in full.
pub const MAX_BODY_BYTES: usize = 1 << 20;
