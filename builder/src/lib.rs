//! # hexrisk-builder
//!
//! The offline half of hexrisk: reads the real incident, road and boundary data
//! (by default from `../shared/data`, configurable), checks it, fits the weekly
//! forecast model, backtests it and writes the per-city artifacts the engine loads.

// Tests compare exact values the code copies through unchanged.
#![cfg_attr(test, allow(clippy::float_cmp))]

pub mod atomic;
pub mod backtest;
pub mod band_backtest;
pub mod boundary;
pub mod config;
pub mod counts;
pub mod data;
pub mod generic_csv;
pub mod golden;
pub mod history;
pub mod hours;
pub mod ingest;
pub mod intake;
pub mod level;
pub mod locality;
pub mod lock;
pub mod method_card;
pub mod model;
pub mod osm;
pub mod pipeline;
pub mod profiles;
pub mod progress;
pub mod prune;
pub mod reference;
pub mod refresh;
pub mod report;
pub mod road_lines;
pub mod roads;
pub mod samples;
pub mod sources;
pub mod time_of_day_card;
