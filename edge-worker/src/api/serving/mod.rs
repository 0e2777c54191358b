//! Serving the two APIs: the services' health records, and dispatch, which takes a
//! request through the route table, access and the engine's operations to its answer.
//!
//! module-cycles: ordered. Each module uses only those declared above it.

// The services' health records.
pub mod health;
// A request to its route's handler.
pub mod dispatch;
