//! HTTP plumbing: errors, the clock of a request, request input, response bodies,
//! browser origins and caching. Nothing here knows keys, models or handlers.
//!
//! module-cycles: ordered. Each module uses only those declared above it.

// The error answer and its codes.
pub mod error;
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
// ETags and Cache-Control.
pub mod caching;
