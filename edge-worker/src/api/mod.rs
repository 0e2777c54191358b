//! The HTTP API layer: request in, response out, no knowledge of workerd.

pub mod backend;
pub mod backend_error;
pub mod caching;
pub mod clock;
pub mod cors;
pub mod dispatch;
pub mod error;
pub mod gate;
pub mod health;
pub mod input;
pub mod keys;
pub mod leases;
pub mod models;
pub mod partners;
pub mod portal;
pub mod quota;
pub mod response;
pub mod routes;
pub mod success_body;
#[cfg(test)]
pub(crate) mod test_support;

pub use dispatch::{RequestContext, handle};
pub use error::{ApiError, ErrorCode};

/// Largest request body accepted, in bytes (1 MiB). Larger bodies are refused
/// with `INVALID_REQUEST` and `details.limit` before they are read in full.
pub const MAX_BODY_BYTES: usize = 1 << 20;
