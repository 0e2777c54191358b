//! Fitting: weekly counts per cell and class, the weekly rate model and its
//! recent-level calibration, the time-of-day profiles, the backtests that score
//! them against the baselines, the hot-spot report (`hotspots`, with its kernel
//! density baseline, `kde`), and the street-level layer that spreads a cell's
//! forecast over its ways (`streets`).

pub mod backtest;
pub mod band_backtest;
pub mod baselines;
pub mod calibration;
pub mod city_build;
pub mod counts;
pub mod forecasting;
pub mod golden_section;
pub mod hotspots;
pub mod kde;
pub mod known_then;
pub mod leaks;
pub mod model;
pub mod profiles;
pub mod served_forecasts;
pub mod streets;
