//! # hexrisk-engine
//!
//! The one engine of hexrisk: crime-risk forecasts on the H3 grid and safe routes,
//! the same code natively (tests, benchmarks, the offline build), in a Cloudflare
//! Worker (`hexrisk-edge`) and in the browser (the npm package, feature `wasm`).
//!
//! The modules, from the bottom up (each imports only those above it):
//!
//! | module | what |
//! |---|---|
//! | [`sorting`] | one stable sort for every caller, small in the wasm |
//! | [`grid`] | H3 cells, rings, the cells a line crosses, stored positions |
//! | [`forecast`] | crime classes, the outcome distribution of a cell-week, risk levels |
//! | [`roads`] | the road graph of a city (or a lattice over its cells) |
//! | [`routing`] | costs, snapping, landmark A* and alternatives on a graph |
//! | [`artifact`] | the per-city binary file and the manifest that lists them |
//! | [`city`] | a decoded city model and the [`Atlas`](city::Atlas) of cities |
//! | [`scoring`] | safety scores, colour bands, tiers, breakdowns, precincts |
//! | [`corridor`] | the cells a line or hex path passes and their metrics |
//! | [`directions`] | a route's named steps: maneuvers, distances, instructions |
//! | [`places`] | places by name: the street and intersection nearest a point |
//! | [`plan`] | a route for a city request: search, alternatives, evaluation |
//! | [`operations`] | both APIs' operations on JSON, with typed error codes |
//! | `wasm` | the npm package's bindings (feature `wasm`) |
//!
//! Without default features the crate is `no_std` + `alloc` (`make lint` builds it
//! for `thumbv7em-none-eabihf`, which has no standard library).
//!
//! Features:
//! - `std` (default): `std::error::Error` impls and the standard library.
//! - `wasm`: the wasm-bindgen bindings that make up the npm package in `pkg/`.
//! - `test-fixtures`: small hand-made artifacts and graphs for tests of this and
//!   the other crates.
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

// module-cycles: ordered. The modules in layers, lowest first: each uses only those
// declared above it (`scripts/module-cycles.py` checks). The blank lines keep
// rustfmt from sorting them.
#[macro_use]
mod api_names;

pub mod sorting;

pub mod grid;

pub mod forecast;

pub mod roads;

pub mod routing;

pub mod places;

pub mod artifact;

pub mod city;

pub mod scoring;

pub mod corridor;

pub mod directions;

pub mod plan;

// Mapbox Vector Tiles: the pyramid, clipping and the encoding.
pub mod tiles;

pub mod operations;

#[cfg(feature = "wasm")]
pub mod wasm;

pub use forecast::{CrimeClass, RiskLevel};
pub use grid::{CoordinateError, RingError};
/// H3 cell index, re-exported so users need no direct h3o dependency.
pub use h3o::CellIndex;
pub use scoring::{ColourIndex, PALETTE};

/// Version of the engine crate, reported by both APIs' health endpoints.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
