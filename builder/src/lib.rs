//! # hexrisk-builder
//!
//! The offline half of hexrisk: reads the real incident, road and boundary data
//! (by default from `../shared/data`, configurable), checks it, and builds the
//! per-city artifacts the engine loads.

pub mod data;
pub mod progress;
