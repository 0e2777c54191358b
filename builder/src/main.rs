//! `hexrisk-build`: the offline build CLI, as a table of its commands. Each command's
//! arguments live beside its code in `hexrisk_builder::commands`; this file names the
//! commands, with the help line each shows, and runs the one asked for.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use hexrisk_builder::commands::{
    build, checks, holdout_routes, manifests, operate, refresh, score_served, update,
};
use hexrisk_builder::inputs::data;

/// Build hexrisk artifacts from real police data.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Cli {
    /// Directory of the input data (the layout of `../shared/data`).
    #[arg(long, global = true, env = data::DATA_DIR_ENV, default_value = data::DEFAULT_DATA_DIR)]
    data_dir: PathBuf,
    #[command(subcommand)]
    command: Command,
}

// The commands in the order `--help` lists them; each one's doc comment is its help.
#[derive(Debug, Subcommand)]
enum Command {
    /// Check that every input file is present with the bytes SHA256SUMS names.
    VerifyData,
    /// Fit, backtest and pack every configured city.
    Build(build::BuildArgs),
    /// Take new incident files of one city in (checked strictly, each incident
    /// counted once), refit, and publish a new version (see docs/REFRESH.md).
    Refresh(refresh::RefreshArgs),
    /// Sync every fed source of every city (or those named) from its open-data
    /// service, rebuild the cities whose data changed, and publish each city's
    /// freshness (see docs/REFRESH.md). Fails when any source or rebuild failed;
    /// the other cities are updated all the same.
    Update(update::UpdateArgs),
    /// Run `update` on a schedule, in a loop that keeps running (for a host
    /// without cron), with a publish command after each round.
    Operate(operate::OperateArgs),
    /// Merge manifests written by jobs that updated cities side by side into the
    /// published one, for one publication (the scheduled workflow's last job).
    MergeManifests(manifests::MergeManifestsArgs),
    /// Remove artifact versions that none of the last N manifests names.
    Prune(manifests::PruneArgs),
    /// Score the forecasts a live loop served, each week's artifact against the
    /// incidents known now, beside the same weeks of an offline build's backtest;
    /// prints JSON.
    ScoreServed(score_served::ScoreServedArgs),
    /// Write native reference forecasts for random covered cells and weeks (JSON),
    /// to check other builds of the engine against.
    ForecastSamples(checks::ForecastSamplesArgs),
    /// Fit a city on its incidents up to a cut date, route random pairs by today's
    /// and the street-level costing, and count the incidents after the cut along
    /// each route (JSON, and the table in docs/ROUTING.md).
    HoldoutRoutes(holdout_routes::HoldoutRoutesArgs),
    /// Write native reference route answers for random requests (JSON), to check
    /// other builds of the engine against.
    RouteSamples(checks::RouteSamplesArgs),
    /// Look up every intersection of two named streets of an OpenStreetMap file in
    /// a city's place index, spelled as OpenStreetMap spells them (see
    /// docs/BENCHMARKS.md).
    PlaceCheck(checks::PlaceCheckArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let data_dir = &cli.data_dir;
    let result = match &cli.command {
        Command::VerifyData => checks::verify(data_dir),
        Command::Build(args) => args.run(data_dir),
        Command::Refresh(args) => args.run(data_dir),
        Command::Update(args) => args.run(data_dir),
        Command::Operate(args) => args.run(data_dir),
        Command::MergeManifests(args) => args.run(),
        Command::Prune(args) => args.run(),
        Command::ScoreServed(args) => args.run(data_dir),
        Command::ForecastSamples(args) => args.run(),
        Command::HoldoutRoutes(args) => args.run(data_dir),
        Command::RouteSamples(args) => args.run(),
        Command::PlaceCheck(args) => args.run(),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::FAILURE
        }
    }
}
