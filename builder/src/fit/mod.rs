//! Fitting: weekly counts per cell and class, the weekly rate model and its
//! recent-level calibration, the time-of-day profiles, and the backtests that score
//! them against the baselines.

pub mod backtest;
pub mod band_backtest;
pub mod calibration;
pub mod counts;
pub mod golden;
pub mod model;
pub mod profiles;
