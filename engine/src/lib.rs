//! # hexrisk-engine
//!
//! The scoring core of hexrisk: crime classes, risk levels, colour bands and the
//! H3 grid helpers that every surface (browser, edge, native) shares.
//!
//! The crate is `no_std` + `alloc` by default so the same code runs unchanged in a
//! Cloudflare Worker, in the browser through wasm-bindgen and natively.
//!
//! Features:
//! - `std` (default): `std::error::Error` impls and the standard library.
//! - `wasm`: the wasm-bindgen bindings that make up the npm package in `pkg/`.
//!
//! ```
//! use hexrisk_engine::{CrimeClass, RiskLevel, grid};
//!
//! let cell = grid::cell_at(43.6532, -79.3832).unwrap();
//! assert_eq!(cell.resolution(), grid::RESOLUTION);
//! assert_eq!(RiskLevel::from_no_crime_probability(0.3), Ok(RiskLevel::Moderate));
//! assert_eq!(CrimeClass::SeriousViolent.severity(), 5);
//! ```
#![cfg_attr(not(feature = "std"), no_std)]
// The wasm-bindgen macros expand to `unsafe` FFI glue; everywhere else unsafe is banned.
#![cfg_attr(not(feature = "wasm"), forbid(unsafe_code))]
// Tests compare exact values the code copies through unchanged.
#![cfg_attr(test, allow(clippy::float_cmp))]

extern crate alloc;

#[macro_use]
mod names;

pub mod artifact;
pub mod classes;
pub mod colour;
pub mod columns;
pub mod corridor;
pub mod forecast;
pub mod graph;
pub mod grid;
pub mod model;
pub mod predictions;
pub mod query;
pub mod risk;
pub mod routing;
pub mod scores;
pub mod service;

#[cfg(feature = "wasm")]
pub mod wasm;

pub use classes::CrimeClass;
pub use colour::{ColourIndex, PALETTE};
pub use grid::{CoordinateError, RingError};
/// H3 cell index, re-exported so users need no direct h3o dependency.
pub use h3o::CellIndex;
pub use risk::RiskLevel;

/// Version of the engine crate, reported by both APIs' health endpoints.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
