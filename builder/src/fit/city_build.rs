//! What fitting one city produces, for the outputs to write: the artifact, each
//! source's accounting, the clean incidents, the backtest's scores and rows, and the
//! street-level figures ([`CityBuild`]); the model's version label.

use std::collections::BTreeMap;

use chrono::NaiveDate;
use hexrisk_engine::artifact::CityArtifact;

use super::backtest::{BacktestRow, Metrics};
use super::band_backtest::BandBacktest;
use super::calibration::{LevelChoice, PastWeek};
use super::leaks;
use super::profiles;
use super::streets::backtest::StreetBacktest;
use super::streets::hours::StreetHours;
use crate::inputs::cleaning::{self, SourceReport};

/// Model version label written into every artifact.
pub const MODEL_VERSION: &str = "hexrisk-glm-1";

/// Scores of the model and the baselines over the backtest.
#[derive(Debug, Clone, PartialEq)]
pub struct BacktestSummary {
    /// First and last backtest week.
    pub weeks: (NaiveDate, NaiveDate),
    /// Number of backtest weeks.
    pub week_count: usize,
    /// Figures per forecaster: `model`, `mean52`, `ewma`.
    pub metrics: BTreeMap<&'static str, Metrics>,
    /// The model's figures as known then (`fit/known_then.rs`): each week forecast
    /// from the incidents reported before it; `None` when no source of the city
    /// publishes a report time.
    pub known_then: Option<Metrics>,
    /// How the time-of-day profiles were chosen.
    pub profile_choice: profiles::Choice,
    /// The band backtest of the profiles fitted before the backtest weeks.
    pub bands: BandBacktest,
    /// The recent-level factor of each backtest week (`fit/calibration.rs`).
    pub levels: Vec<f64>,
    /// The recent-level factor of the served forecasts.
    pub served_level: f64,
    /// The recent level's setting, chosen on the backtest's validation weeks.
    pub level_choice: LevelChoice,
    /// The run-in: the model's uncalibrated forecasts of the weeks just before the
    /// backtest (unscored; they feed the first weeks' factors), in week order.
    pub run_in: Vec<PastWeek>,
    /// The kernel density baseline's bandwidths (m) and their hit rates at 5 % of the
    /// area on the validation weeks; the highest is the one used.
    pub kde_validation: Vec<(f64, f64)>,
    /// Each source's default-hour weights from all rows and from those before the
    /// backtest.
    pub default_hour_leaks: Vec<leaks::DefaultHourLeak>,
    /// What a grid derived from incidents took from the backtest's weeks; `None`
    /// for a grid of precinct polygons.
    pub grid_leak: Option<leaks::GridLeak>,
}

/// What building one city produces.
#[derive(Debug, Clone)]
pub struct CityBuild {
    /// The artifact.
    pub artifact: CityArtifact,
    /// Who publishes the city's incident data (the configuration's `attribution`),
    /// for the manifest.
    pub attribution: Option<String>,
    /// Per-source accounting.
    pub sources: BTreeMap<String, SourceReport>,
    /// The clean incidents (the sources' ledgers point into them), for the exports.
    pub incidents: Vec<cleaning::Incident>,
    /// Backtest scores.
    pub backtest: BacktestSummary,
    /// Backtest export rows.
    pub rows: Vec<BacktestRow>,
    /// Cells in the grid.
    pub cells: usize,
    /// Modelled data weeks.
    pub data_weeks: (NaiveDate, usize),
    /// The street-level backtest; `None` without a street network (a city
    /// routed over the hex lattice).
    pub streets: Option<StreetBacktest>,
    /// The street hour profiles against the city-wide profile; `None` without a
    /// street network.
    pub street_hours: Option<StreetHours>,
}
