//! # hexrisk-edge
//!
//! The two hexrisk HTTP APIs — the prediction API under `/v1` and the hex router at
//! the origin root — served from one Cloudflare Worker.
//!
//! Everything that decides what a request means and what goes back (routing,
//! validation, response bodies, errors) is plain Rust over the [`http`] crate's
//! types, in [`api`], so native `cargo test` covers it. The Worker entry point in
//! `glue` only converts between workerd and those types and supplies the clock.

pub mod api;

#[cfg(target_arch = "wasm32")]
mod glue;
