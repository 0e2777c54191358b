//! # hexrisk-edge
//!
//! The two hexrisk HTTP APIs — the prediction API under `/v1` and the hex router at
//! the origin root — served from one Cloudflare Worker.
//!
//! Everything that decides what a request means and what goes back (routing,
//! validation, response bodies, errors) is plain Rust over the [`http`] crate's
//! types, in [`api`], so native `cargo test` covers it. The Worker entry point in
//! `glue` only converts between workerd and those types and supplies the clock.
//!
//! The Worker serves; it does not forecast. Every answer is computed by the
//! engine's JSON operations, the same the npm package runs offline, and this crate
//! reads the engine through those and the artifact types alone
//! (`scripts/module-cycles.py` checks the list below in `make lint`).

// module-cycles: uses hexrisk_engine::{operations, artifact, city::Atlas, city::CityModel, VERSION}

pub mod api;

#[cfg(target_arch = "wasm32")]
mod glue;
