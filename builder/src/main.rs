//! `hexrisk-build`: the offline build CLI. It parses the command line and calls one of
//! `hexrisk_builder::commands`.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use hexrisk_builder::commands::build::{BuildPaths, build};
use hexrisk_builder::commands::checks::{place_check, verify, write_samples};
use hexrisk_builder::commands::holdout::{HoldoutRequest, holdout_routes};
use hexrisk_builder::commands::operate;
use hexrisk_builder::commands::refresh::refresh_city;
use hexrisk_builder::commands::score_served::{ScorePaths, ServedWeek, score_served};
use hexrisk_builder::commands::update::UpdatePaths;
use hexrisk_builder::commands::update::{UpdateOptions, merge_manifests, update};
use hexrisk_builder::inputs::{config, data};
use hexrisk_builder::outputs::prune;
use hexrisk_builder::references::samples;

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

/// The cities `update` and `operate` work on, and where they read and write.
#[derive(Debug, clap::Args)]
struct FedArgs {
    /// Only these city codes (default: every city with a feed).
    #[arg(long = "city")]
    cities: Vec<String>,
    /// City configuration directory.
    #[arg(long, default_value_os_t = config::default_config_dir())]
    config_dir: PathBuf,
    /// Where the artifacts and manifest go.
    #[arg(long, default_value = "build/artifacts")]
    out: PathBuf,
    /// Intake state folder.
    #[arg(long, default_value = "build/intake")]
    intake: PathBuf,
    /// Incident stores' folder: `<store>/<code>.sqlite`.
    #[arg(long, default_value = "build/store")]
    store: PathBuf,
    /// Tries of each request to a service (a 429 or 5xx is retried after its
    /// `Retry-After`, or a pause doubling from 2 s).
    #[arg(long, default_value_t = 6)]
    attempts: u32,
}

impl FedArgs {
    fn paths(&self) -> UpdatePaths<'_> {
        UpdatePaths {
            config_dir: &self.config_dir,
            out: &self.out,
            intake: &self.intake,
            store: &self.store,
        }
    }
}

/// Where `build` and `refresh` read and write.
#[derive(Debug, clap::Args)]
struct BuildArgs {
    /// City configuration directory.
    #[arg(long, default_value_os_t = config::default_config_dir())]
    config_dir: PathBuf,
    /// Where the artifacts and manifest go.
    #[arg(long, default_value = "build/artifacts")]
    out: PathBuf,
    /// Where the backtest exports go.
    #[arg(long, default_value = "build/backtest")]
    backtest_dir: PathBuf,
    /// Where the model card goes (skipped when empty). Writing it after a refresh
    /// rebuilds the other cities too, since the card describes them all.
    // clap's own path parser refuses an empty value, the documented way to skip.
    #[arg(
        long,
        default_value = "docs/MODEL.md",
        value_parser = clap::builder::TypedValueParser::map(clap::builder::OsStringValueParser::new(), PathBuf::from)
    )]
    model_card: PathBuf,
    /// Intake state folder: files taken in by `refresh` (`<intake>/<code>/ledger.json`
    /// and `files/`), read after the configured ones.
    #[arg(long, default_value = "build/intake")]
    intake: PathBuf,
    /// Incident stores' folder: fed sources synced by `update`.
    #[arg(long, default_value = "build/store")]
    store: PathBuf,
}

impl BuildArgs {
    fn paths(&self) -> BuildPaths<'_> {
        BuildPaths {
            config_dir: &self.config_dir,
            out: &self.out,
            backtest_dir: &self.backtest_dir,
            card: &self.model_card,
            intake: &self.intake,
            store: &self.store,
        }
    }
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Check that every input file is present with the bytes SHA256SUMS names.
    VerifyData,
    /// Fit, backtest and pack every configured city.
    Build {
        /// Build only these city codes (default: all).
        #[arg(long = "city")]
        cities: Vec<String>,
        #[command(flatten)]
        paths: BuildArgs,
    },
    /// Take new incident files of one city in (checked strictly, each incident
    /// counted once), refit, and publish a new version (see docs/REFRESH.md).
    Refresh {
        /// The city.
        #[arg(long = "city")]
        city: String,
        /// Files in the source's published format, each `FILE` (the source is found
        /// from the columns) or `SOURCE=FILE`.
        #[arg(required = true)]
        files: Vec<String>,
        #[command(flatten)]
        paths: BuildArgs,
    },
    /// Sync every fed source of every city (or those named) from its open-data
    /// service, rebuild the cities whose data changed, and publish each city's
    /// freshness (see docs/REFRESH.md). Fails when any source or rebuild failed;
    /// the other cities are updated all the same.
    Update {
        #[command(flatten)]
        fed: FedArgs,
        /// The time of the sync (RFC 3339), for a simulated clock; default now.
        #[arg(long)]
        now: Option<String>,
        /// Accept pulls that delete more than a fifth of a source's records (the
        /// publisher really withdrew them); refused otherwise.
        #[arg(long)]
        accept_deletions: bool,
    },
    /// Run `update` on a schedule, in a loop that keeps running (for a host
    /// without cron), with a publish command after each round.
    Operate {
        /// Time between the starts of two rounds: `7d`, `12h`, `30m`, `45s`.
        #[arg(long, default_value = "7d", value_parser = operate::parse_every)]
        every: std::time::Duration,
        /// Stop after this many rounds (default: run on).
        #[arg(long)]
        rounds: Option<u32>,
        /// Shell command run after each round, for example
        /// `make publish PUBLISH_ARGS=--remote`.
        #[arg(long)]
        publish: Option<String>,
        #[command(flatten)]
        fed: FedArgs,
    },
    /// Merge manifests written by jobs that updated cities side by side into the
    /// published one, for one publication (the scheduled workflow's last job).
    MergeManifests {
        /// The manifest published now.
        #[arg(long)]
        base: PathBuf,
        /// Where the merged `manifest.json` goes.
        #[arg(long, default_value = "build/artifacts")]
        out: PathBuf,
        /// The jobs' manifests; a later one wins for a city in several.
        #[arg(required = true)]
        updates: Vec<PathBuf>,
    },
    /// Remove artifact versions that none of the last N manifests names.
    Prune {
        /// The artifacts folder.
        #[arg(long, default_value = "build/artifacts")]
        out: PathBuf,
        /// Manifests to keep, the current one included.
        #[arg(long)]
        keep: usize,
    },
    /// Score the forecasts a live loop served, each week's artifact against the
    /// incidents known now, beside the same weeks of an offline build's backtest;
    /// prints JSON.
    ScoreServed {
        /// The city.
        #[arg(long = "city")]
        city: String,
        /// Each week served: `YYYY-MM-DD=FILE`, the week's Monday and its artifact.
        #[arg(required = true)]
        served: Vec<ServedWeek>,
        /// An artifact whose past weeks are the offline backtest to compare with.
        #[arg(long)]
        offline: Option<PathBuf>,
        /// City configuration directory.
        #[arg(long, default_value_os_t = config::default_config_dir())]
        config_dir: PathBuf,
        /// Intake state folder.
        #[arg(long, default_value = "build/intake")]
        intake: PathBuf,
        /// Incident stores' folder.
        #[arg(long, default_value = "build/store")]
        store: PathBuf,
    },
    /// Write native reference forecasts for random covered cells and weeks (JSON),
    /// to check other builds of the engine against.
    ForecastSamples {
        /// Directory holding the artifacts and their manifest.
        #[arg(long, default_value = "build/artifacts")]
        artifacts: PathBuf,
        /// Samples per city.
        #[arg(long, default_value_t = 500)]
        per_city: usize,
        /// Random seed.
        #[arg(long, default_value_t = 2022)]
        seed: u64,
        /// Output file.
        #[arg(long, default_value = "build/forecast-samples.json")]
        out: PathBuf,
    },
    /// Fit a city on its incidents up to a cut date, route random pairs by today's
    /// and the street-level costing, and count the incidents after the cut along
    /// each route (JSON, and the table in docs/ROUTING.md).
    HoldoutRoutes(HoldoutArgs),
    /// Write native reference route answers for random requests (JSON), to check
    /// other builds of the engine against.
    RouteSamples {
        /// Directory holding the artifacts and their manifest.
        #[arg(long, default_value = "build/artifacts")]
        artifacts: PathBuf,
        /// Requests per city.
        #[arg(long, default_value_t = 25)]
        per_city: usize,
        /// Random seed.
        #[arg(long, default_value_t = 2022)]
        seed: u64,
        /// Output file.
        #[arg(long, default_value = "build/route-samples.json")]
        out: PathBuf,
    },
    /// Look up every intersection of two named streets of an OpenStreetMap file in
    /// a city's place index, spelled as OpenStreetMap spells them (see
    /// docs/BENCHMARKS.md).
    PlaceCheck {
        /// Directory holding the artifacts and their manifest.
        #[arg(long, default_value = "build/artifacts")]
        artifacts: PathBuf,
        /// The city searched.
        #[arg(long, default_value = "city_ca_tor")]
        city: String,
        /// The OpenStreetMap XML file, relative to the data directory.
        #[arg(long, default_value = "toronto/uoft_campus.osm")]
        osm: PathBuf,
        /// Output file.
        #[arg(long, default_value = "build/bench/place-check.json")]
        out: PathBuf,
    },
}

/// What `holdout-routes` measures, and where it writes.
#[derive(Debug, clap::Args)]
struct HoldoutArgs {
    /// The city: its code or its name (any case).
    #[arg(long, default_value = "toronto")]
    city: String,
    /// The last date the fit may use.
    #[arg(long, default_value = "2019-12-31")]
    cut: chrono::NaiveDate,
    /// The last held-out date (default: the end of the city's configured span).
    #[arg(long)]
    until: Option<chrono::NaiveDate>,
    /// Origin–destination pairs.
    #[arg(long, default_value_t = 300)]
    pairs: usize,
    /// Random seed of the pairs.
    #[arg(long, default_value_t = 2020)]
    seed: u64,
    /// City configuration directory.
    #[arg(long, default_value_os_t = config::default_config_dir())]
    config_dir: PathBuf,
    /// Output file.
    #[arg(long, default_value = "build/bench/holdout-routes.json")]
    out: PathBuf,
    /// The document whose generated section gets the table (skipped when empty).
    #[arg(
        long,
        default_value = "docs/ROUTING.md",
        value_parser = clap::builder::TypedValueParser::map(clap::builder::OsStringValueParser::new(), PathBuf::from)
    )]
    doc: PathBuf,
}

/// `holdout-routes` with its arguments, and the command line for the report.
fn holdout(data_dir: &std::path::Path, args: &HoldoutArgs) -> anyhow::Result<()> {
    holdout_routes(
        data_dir,
        &HoldoutRequest {
            city: &args.city,
            cut: args.cut,
            until: args.until,
            pairs: args.pairs,
            seed: args.seed,
            config_dir: &args.config_dir,
            out: &args.out,
            doc: &args.doc,
            command: std::iter::once("hexrisk-build".to_owned())
                .chain(std::env::args().skip(1))
                .collect::<Vec<_>>()
                .join(" "),
        },
    )
}

/// `prune`, with a line for each removed file.
fn prune_versions(out: &std::path::Path, keep: usize) -> anyhow::Result<bool> {
    let pruned = prune::prune(out, keep)?;
    for file in &pruned.removed {
        println!("removed {}/{file}", out.display());
    }
    println!(
        "kept manifests {}; removed {} files",
        pruned.kept_manifests.join(", "),
        pruned.removed.len()
    );
    Ok(true)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::VerifyData => verify(&cli.data_dir),
        Command::Build { cities, paths } => {
            build(&cli.data_dir, &paths.paths(), cities).map(|()| true)
        }
        Command::Refresh { city, files, paths } => {
            refresh_city(&cli.data_dir, city, files, &paths.paths()).map(|()| true)
        }
        Command::Update {
            fed,
            now,
            accept_deletions,
        } => update(
            &cli.data_dir,
            &fed.paths(),
            &fed.cities,
            UpdateOptions {
                now: now.as_deref(),
                attempts: fed.attempts,
                accept_deletions: *accept_deletions,
            },
        ),
        Command::Operate {
            every,
            rounds,
            publish,
            fed,
        } => operate::operate(
            &cli.data_dir,
            &fed.paths(),
            &fed.cities,
            &operate::Schedule {
                every: *every,
                rounds: *rounds,
                publish: publish.clone(),
                attempts: fed.attempts,
            },
        ),
        Command::MergeManifests { base, out, updates } => merge_manifests(base, updates, out),
        Command::Prune { out, keep } => prune_versions(out, *keep),
        Command::ScoreServed {
            city,
            served,
            offline,
            config_dir,
            intake,
            store,
        } => {
            let paths = ScorePaths {
                config_dir,
                intake,
                store,
            };
            score_served(&cli.data_dir, &paths, city, served, offline.as_deref())
                .map(|scores| println!("{scores:#}"))
                .map(|()| true)
        }
        Command::ForecastSamples {
            artifacts,
            per_city,
            seed,
            out,
        } => write_samples(artifacts, out, "reference forecasts", |atlas| {
            samples::reference_forecasts(atlas, *per_city, *seed)
        }),
        Command::HoldoutRoutes(args) => holdout(&cli.data_dir, args).map(|()| true),
        Command::RouteSamples {
            artifacts,
            per_city,
            seed,
            out,
        } => write_samples(artifacts, out, "reference routes", |atlas| {
            samples::reference_routes(atlas, *per_city, *seed)
        }),
        Command::PlaceCheck {
            artifacts,
            city,
            osm,
            out,
        } => place_check(artifacts, city, osm, out),
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
