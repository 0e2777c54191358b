//! # hexrisk-builder
//!
//! The offline half of hexrisk: reads the real incident, road and boundary data
//! (by default from `../shared/data`, configurable), checks it, fits the weekly
//! forecast model, backtests it and writes the per-city artifacts the engine loads.
//!
//! The modules are the build's stages, each using only those declared above it:
//! [`store`] (each city's incident store), [`inputs`] (configuration, data files,
//! intake, cleaning), [`feeds`] (pulls from open-data services into the store), [`fit`] (counts, model,
//! calibration, profiles, forecasts and backtests, and what a city's fit produces),
//! [`roads`] (road files to routable graphs), [`pipeline`] (one city built from the
//! three), [`outputs`] (artifacts, manifest, exports, model card, history, all from
//! what [`fit`] produces), [`refit`] (a city refitted on new files and published),
//! [`sync_refit`] (fed sources synced, refitted when changed, freshness published),
//! [`references`] (native answers to check other builds against) and [`holdout`]
//! (street-level routing judged on incidents after a cut), over two helpers,
//! [`atomic`] writes and [`progress`] bars.

// Tests compare exact values the code copies through unchanged.
#![cfg_attr(test, allow(clippy::float_cmp))]
// Unit tests write fixtures straight into temporary folders; the crate itself
// writes through `atomic` (clippy.toml).
#![cfg_attr(test, allow(clippy::disallowed_methods))]

// module-cycles: ordered. The modules in layers, lowest first: each uses only those
// declared above it (`scripts/module-cycles.py` checks). The blank lines keep
// rustfmt from sorting them.
pub mod atomic;

pub mod progress;

pub mod store;

pub mod inputs;

pub mod feeds;

pub mod fit;

pub mod roads;

pub mod places;

pub mod pipeline;

pub mod outputs;

pub mod refit;

pub mod sync_refit;

pub mod references;

pub mod holdout;

pub mod commands;
