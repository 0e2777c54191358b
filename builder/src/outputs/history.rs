//! `history.json` in the artifacts folder: every city version that was made current,
//! with its figures, and the order in which manifests were published. The model
//! card's version history table is generated from it (so regenerating the card
//! needs no wall clock and no memory of past runs beyond this file), and `prune`
//! reads the publication order from it.
//!
//! A build from scratch into an empty folder records one version per city, so its
//! card is the same on every machine; builds and refreshes into the same folder
//! append (a version already recorded is not recorded twice).

use std::fmt::Write as _;
use std::path::Path;

use chrono::NaiveDate;
use hexrisk_engine::artifact::Manifest;
use serde::{Deserialize, Serialize};

use crate::atomic;
use crate::fit::city_build::CityBuild;

/// File name of the history in the artifacts folder.
pub const HISTORY_FILE: &str = "history.json";

/// One city version made current.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VersionRecord {
    /// City code.
    pub code: String,
    /// Version label, `<data-through>.<sha12>`.
    pub version: String,
    /// Last date of the modelled data.
    pub data_through: NaiveDate,
    /// Incidents kept.
    pub incidents: u64,
    /// Rows of the files taken in by the refresh that made this version, dated on
    /// or before the data-through date before it (0 for a build).
    pub late_arrivals: u64,
    /// Files the city's intake held (0 without refreshes).
    pub files_taken_in: usize,
    /// Backtest weeks, first and last.
    pub backtest_weeks: (NaiveDate, NaiveDate),
    /// The model's backtest multi-class Brier score (`None` when undefined).
    pub brier: Option<f64>,
    /// The model's backtest log loss.
    pub log_loss: Option<f64>,
    /// The model's backtest MAE of the median forecast.
    pub mae_median: Option<f64>,
}

/// The history of an artifacts folder.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct History {
    /// Manifest versions in the order they were last made current.
    pub manifests: Vec<String>,
    /// City versions in the order they were first made current.
    pub versions: Vec<VersionRecord>,
}

/// What to record of one city built into a published manifest.
#[derive(Debug, Clone, Copy)]
pub struct Built<'a> {
    /// The build.
    pub build: &'a CityBuild,
    /// Late arrivals taken in for it.
    pub late_arrivals: u64,
    /// Files its intake held.
    pub files_taken_in: usize,
}

fn finite(value: f64) -> Option<f64> {
    value.is_finite().then_some(value)
}

impl History {
    /// Reads the history of an artifacts folder; none yet is an empty history.
    ///
    /// # Errors
    /// A history file that exists but cannot be read or parsed.
    pub fn load(dir: &Path) -> anyhow::Result<Self> {
        match std::fs::read(dir.join(HISTORY_FILE)) {
            Ok(bytes) => Ok(serde_json::from_slice(&bytes)?),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Self::default()),
            Err(e) => Err(e.into()),
        }
    }

    /// Records a published manifest and the cities built for it, and writes the
    /// history (through a rename). Returns the history written.
    ///
    /// # Errors
    /// I/O errors.
    pub fn record(dir: &Path, manifest: &Manifest, built: &[Built<'_>]) -> anyhow::Result<Self> {
        let mut history = Self::load(dir)?;
        history.manifests.retain(|v| v != &manifest.version);
        history.manifests.push(manifest.version.clone());
        for b in built {
            let code = &b.build.artifact.city.code;
            let Some(entry) = manifest.city(code) else {
                continue;
            };
            let known = history
                .versions
                .iter()
                .any(|v| &v.code == code && v.version == entry.version);
            if known {
                continue;
            }
            let model = b.build.backtest.metrics.get("model");
            history.versions.push(VersionRecord {
                code: code.clone(),
                version: entry.version.clone(),
                data_through: entry.data_through,
                incidents: b
                    .build
                    .sources
                    .values()
                    .map(crate::inputs::cleaning::SourceReport::accepted_total)
                    .sum(),
                late_arrivals: b.late_arrivals,
                files_taken_in: b.files_taken_in,
                backtest_weeks: b.build.backtest.weeks,
                brier: model.and_then(|m| finite(m.brier)),
                log_loss: model.and_then(|m| finite(m.log_loss)),
                mae_median: model.and_then(|m| finite(m.mae_median)),
            });
        }
        let text = serde_json::to_string_pretty(&history)? + "\n";
        atomic::write(&dir.join(HISTORY_FILE), text.as_bytes())?;
        Ok(history)
    }

    /// The model card's version history of the cities `codes`.
    pub fn card_section(&self, md: &mut String, codes: &[&str]) {
        md.push_str("## Version history (generated by the build)\n\n");
        md.push_str(
            "Every version made current in this artifacts folder, oldest first, from its \
             `history.json`: a build from scratch has one per city; each `hexrisk-build \
             refresh` that changes a city adds one (see docs/REFRESH.md). Late arrivals are \
             rows of the refresh's files dated on or before the previous data-through date; \
             they are counted in their own weeks.\n\n",
        );
        let figure = |v: Option<f64>| v.map_or_else(|| "–".to_owned(), |v| format!("{v:.3}"));
        for code in codes {
            let _ = writeln!(
                *md,
                "### `{code}`\n\n| version | data through | incidents | late arrivals | files taken in | backtest weeks | Brier | log loss | MAE, median |\n|---|---|---|---|---|---|---|---|---|"
            );
            for v in self.versions.iter().filter(|v| v.code == *code) {
                let _ = writeln!(
                    *md,
                    "| `{}` | {} | {} | {} | {} | {} to {} | {} | {} | {} |",
                    v.version,
                    v.data_through,
                    v.incidents,
                    v.late_arrivals,
                    v.files_taken_in,
                    v.backtest_weeks.0,
                    v.backtest_weeks.1,
                    figure(v.brier),
                    figure(v.log_loss),
                    figure(v.mae_median)
                );
            }
            md.push('\n');
        }
    }
}
