//! `hexrisk-build score-served`: its arguments, and the forecasts a live loop served,
//! week by week, scored against the incidents known now, beside the same weeks of an
//! offline backtest (the past weeks of a later artifact) when one is given
//! (`fit/served_forecasts.rs`). The loop's stretch and soak call it; it prints JSON.

use std::path::{Path, PathBuf};

use anyhow::Context;
use chrono::NaiveDate;
use hexrisk_engine::city::CityModel;
use serde_json::{Value, json};

use crate::fit::backtest::{Metrics, Scoreboard};
use std::collections::BTreeSet;

use crate::fit::served_forecasts::{self, Cells};
use crate::inputs::cleaning;
use crate::inputs::config;
use crate::inputs::intake::{CityIntake, fed};
use crate::store::IncidentStore;

/// `score-served`'s arguments.
#[derive(Debug, clap::Args)]
pub struct ScoreServedArgs {
    /// The city.
    #[arg(long = "city")]
    pub city: String,
    /// Each week served: `YYYY-MM-DD=FILE`, the week's Monday and its artifact.
    #[arg(required = true)]
    pub served: Vec<ServedWeek>,
    /// An artifact whose past weeks are the offline backtest to compare with.
    #[arg(long)]
    pub offline: Option<PathBuf>,
    /// City configuration directory.
    #[arg(long, default_value_os_t = config::default_config_dir())]
    pub config_dir: PathBuf,
    /// Intake state folder.
    #[arg(long, default_value = "build/intake")]
    pub intake: PathBuf,
    /// Incident stores' folder.
    #[arg(long, default_value = "build/store")]
    pub store: PathBuf,
}

impl ScoreServedArgs {
    /// Runs `score-served`: prints the scores as JSON.
    ///
    /// # Errors
    /// As [`score_served`].
    pub fn run(&self, data_dir: &Path) -> anyhow::Result<bool> {
        let paths = ScorePaths {
            config_dir: &self.config_dir,
            intake: &self.intake,
            store: &self.store,
        };
        let scores = score_served(
            data_dir,
            &paths,
            &self.city,
            &self.served,
            self.offline.as_deref(),
        )?;
        println!("{scores:#}");
        Ok(true)
    }
}

/// One week a deployment served: the artifact it served and the week's Monday.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServedWeek {
    /// The artifact file served that week.
    pub artifact: PathBuf,
    /// Monday of the week.
    pub monday: NaiveDate,
}

impl std::str::FromStr for ServedWeek {
    type Err = String;

    /// `YYYY-MM-DD=FILE`: the week's Monday and the artifact served that week.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let (week, file) = text
            .split_once('=')
            .ok_or_else(|| format!("{text:?}: expected YYYY-MM-DD=FILE"))?;
        let monday = NaiveDate::parse_from_str(week, "%Y-%m-%d")
            .map_err(|e| format!("{week:?}: not a date ({e})"))?;
        if monday != hexrisk_engine::city::week_start(monday) {
            return Err(format!("{week}: not a Monday"));
        }
        Ok(Self {
            artifact: PathBuf::from(file),
            monday,
        })
    }
}

/// Where `score-served` reads the incidents known now.
pub struct ScorePaths<'a> {
    /// City configuration directory.
    pub config_dir: &'a Path,
    /// The intake state folder.
    pub intake: &'a Path,
    /// The incident stores' folder.
    pub store: &'a Path,
}

/// Scores each served week of `city`, and the same weeks of `offline` when given,
/// against the incidents its configuration, intake and store hold now. The answer:
/// `{ city, weeks, served, beside_offline: { weeks, served, offline }, by_week:
/// [{ week, cells, served, beside_offline: { cells, served, offline } }] }`:
/// `served` over every week on each artifact's own cells, `beside_offline` over the
/// weeks both forecast and the cells both have (null without `offline`), each score
/// the backtest's figures (`brier`, `log_loss`, `mae`, `pai_1`...).
///
/// # Errors
/// An unknown city, an unreadable input or artifact, or a week an artifact has no
/// forecast for.
pub fn score_served(
    data_dir: &Path,
    paths: &ScorePaths<'_>,
    city: &str,
    served: &[ServedWeek],
    offline: Option<&Path>,
) -> anyhow::Result<Value> {
    let config = config::load_all(paths.config_dir)?
        .into_iter()
        .find(|c| c.code == city)
        .with_context(|| format!("no configured city {city}"))?;
    let mut taken_in = CityIntake::load(paths.intake, &config.code)?;
    if let Some(store) = IncidentStore::open_existing(paths.store, &config.code)? {
        taken_in.fed = fed::load(&store, &config)?;
    }
    let config = taken_in.extend(&config);
    let incidents = cleaning::ingest_with(&config, data_dir, &taken_in)?.incidents;
    let offline = offline.map(load).transpose()?;

    // Every served week on its own grid; and the weeks the offline artifact
    // forecasts too (its backtest may start later), both on the cells they share.
    let offline_cells = offline.as_ref().map(served_forecasts::cells_of);
    let mut served_board = Scoreboard::default();
    let (mut both_served, mut both_offline) = (Scoreboard::default(), Scoreboard::default());
    let mut by_week = Vec::with_capacity(served.len());
    for week in served {
        let model = load(&week.artifact)?;
        let mut board = Scoreboard::default();
        for b in [&mut board, &mut served_board] {
            served_forecasts::score_week(&model, (week.monday, Cells::All), &incidents, b)
                .with_context(|| format!("{}", week.artifact.display()))?;
        }
        let mut beside = Value::Null;
        if let (Some(model_then), Some(cells)) = (&offline, &offline_cells) {
            let shared: BTreeSet<_> = served_forecasts::cells_of(&model)
                .intersection(cells)
                .copied()
                .collect();
            let scored = (week.monday, Cells::Shared(&shared));
            let (mut served_week, mut offline_week) =
                (Scoreboard::default(), Scoreboard::default());
            if served_forecasts::score_week(model_then, scored, &incidents, &mut offline_week)
                .is_ok()
            {
                served_forecasts::score_week(&model, scored, &incidents, &mut served_week)?;
                served_forecasts::score_week(model_then, scored, &incidents, &mut both_offline)?;
                served_forecasts::score_week(&model, scored, &incidents, &mut both_served)?;
                beside = json!({
                    "cells": shared.len(),
                    "served": figures(&served_week.metrics()),
                    "offline": figures(&offline_week.metrics()),
                });
            }
        }
        by_week.push(json!({
            "week": week.monday.to_string(),
            "cells": model.cell_count(),
            "served": figures(&board.metrics()),
            "beside_offline": beside,
        }));
    }
    let both = offline.as_ref().map(|_| {
        json!({
            "weeks": by_week.iter().filter(|w| !w["beside_offline"].is_null()).count(),
            "served": figures(&both_served.metrics()),
            "offline": figures(&both_offline.metrics()),
        })
    });
    Ok(json!({
        "city": config.code,
        "weeks": served.len(),
        "served": figures(&served_board.metrics()),
        "beside_offline": both,
        "by_week": by_week,
    }))
}

fn load(path: &Path) -> anyhow::Result<CityModel> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    CityModel::from_bytes(&bytes).with_context(|| format!("{}: not an artifact", path.display()))
}

fn figures(m: &Metrics) -> Value {
    json!({
        "brier": m.brier,
        "log_loss": m.log_loss,
        "no_crime_brier": m.no_crime_brier,
        "mae": m.mae,
        "mae_median": m.mae_median,
        "pai_1": m.pai[0],
        "pai_5": m.pai[1],
    })
}
