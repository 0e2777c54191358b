//! Each cell's expected incidents over the whole week and over the nights in the
//! first forecast week after the data, from the served artifact: what the model
//! card's "What the hour changes" ranks, and what `hour_totals_<code>.csv.gz`
//! exports so that its correlation recomputes outside the build.

use hexrisk_engine::city::CityModel;
use hexrisk_engine::forecast::TimeWindow;

use crate::fit::city_build::CityBuild;

/// One cell's expected incidents of all classes in the first forecast week.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HourTotals {
    /// Over the whole week.
    pub week: f64,
    /// Over the nights ([`TimeWindow::Nights`]).
    pub nights: f64,
}

/// The artifact's week index of the first forecast week after the data: the
/// artifact holds the backtest's weeks first.
#[must_use]
pub fn first_forecast_week(build: &CityBuild) -> usize {
    build.backtest.week_count
}

/// Every cell's [`HourTotals`] in [`first_forecast_week`], in grid order.
#[must_use]
pub fn hour_totals(build: &CityBuild) -> Vec<HourTotals> {
    let model = CityModel::from_artifact(build.artifact.clone());
    let week = first_forecast_week(build);
    let total =
        |cell: usize, window: TimeWindow| model.window_rates(cell, week, window).iter().sum();
    (0..model.cell_count())
        .map(|cell| HourTotals {
            week: total(cell, TimeWindow::Week),
            nights: total(cell, TimeWindow::Nights),
        })
        .collect()
}
