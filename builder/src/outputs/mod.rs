//! Outputs of a build: the artifact files and the manifest that makes them current,
//! the exports under `build/backtest` (backtest, the validation choices, street
//! level, source rows), the model card, the version history, and the pruning of
//! old versions, all written under one lock per artifacts folder.

use std::path::Path;

use crate::fit::city_build::CityBuild;

pub mod artifacts;
pub mod backtest_export;
pub mod choice_export;
pub mod history;
pub mod hour_totals;
pub mod lock;
pub mod model_card;
pub mod prune;
pub mod source_export;
pub mod street_export;

/// Writes every export of `build` into `dir`, each file atomically.
///
/// # Errors
/// I/O errors.
pub fn write_exports(dir: &Path, build: &CityBuild) -> anyhow::Result<()> {
    backtest_export::write_backtest_csv(dir, build)?;
    backtest_export::write_band_csvs(dir, build)?;
    backtest_export::write_layout_csvs(dir, build)?;
    choice_export::write_choice_csvs(dir, build)?;
    street_export::write_streets_csv(dir, build)?;
    street_export::write_street_hours_csvs(dir, build)?;
    source_export::write_rows_csv(dir, build)
}
