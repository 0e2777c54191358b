//! `hexrisk-build`: the offline build CLI.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, Subcommand};
use hexrisk_builder::fit::city_build::CityBuild;
use hexrisk_builder::inputs::intake::CityIntake;
use hexrisk_builder::inputs::intake::take_in::{Offered, Status};
use hexrisk_builder::inputs::{config, data};
use hexrisk_builder::outputs::history::{Built, History};
use hexrisk_builder::outputs::{self, artifacts, model_card, prune};
use hexrisk_builder::references::{place_check, samples};
use hexrisk_builder::{holdout, pipeline, refresh};
use hexrisk_engine::city::Atlas;
use indicatif::{ProgressBar, ProgressStyle};

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

#[derive(Debug, Subcommand)]
enum Command {
    /// Check that every input file is present with the bytes SHA256SUMS names.
    VerifyData,
    /// Fit, backtest and pack every configured city.
    Build {
        /// City configuration directory.
        #[arg(long, default_value_os_t = config::default_config_dir())]
        config_dir: PathBuf,
        /// Where the artifacts and manifest go.
        #[arg(long, default_value = "build/artifacts")]
        out: PathBuf,
        /// Where the backtest exports go.
        #[arg(long, default_value = "build/backtest")]
        backtest_dir: PathBuf,
        /// Where the model card goes (skipped when empty).
        // clap's own path parser refuses an empty value, the documented way to skip.
        #[arg(
            long,
            default_value = "docs/MODEL.md",
            value_parser = clap::builder::TypedValueParser::map(clap::builder::OsStringValueParser::new(), PathBuf::from)
        )]
        model_card: PathBuf,
        /// Build only these city codes (default: all).
        #[arg(long = "city")]
        cities: Vec<String>,
        /// Intake state folder: files taken in by `refresh`, read after the configured ones.
        #[arg(long, default_value = "build/intake")]
        intake: PathBuf,
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
        /// City configuration directory.
        #[arg(long, default_value_os_t = config::default_config_dir())]
        config_dir: PathBuf,
        /// Where the artifacts and manifest go.
        #[arg(long, default_value = "build/artifacts")]
        out: PathBuf,
        /// Intake state folder: `<intake>/<code>/ledger.json` and `files/`.
        #[arg(long, default_value = "build/intake")]
        intake: PathBuf,
        /// Where the backtest exports go.
        #[arg(long, default_value = "build/backtest")]
        backtest_dir: PathBuf,
        /// Where the model card goes (skipped when empty). Writing it rebuilds the
        /// other cities too, since the card describes them all.
        #[arg(long, default_value = "docs/MODEL.md")]
        model_card: PathBuf,
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

fn verify(dir: &Path) -> anyhow::Result<bool> {
    let checks = data::verify(dir)?;
    let bad: Vec<_> = checks.iter().filter(|c| !c.is_ok()).collect();
    for check in &bad {
        let state = if check.actual.is_some() {
            "changed"
        } else {
            "missing"
        };
        eprintln!("{state}: {}", check.path);
    }
    println!(
        "{} of {} data files verified in {}",
        checks.len() - bad.len(),
        checks.len(),
        dir.display()
    );
    Ok(bad.is_empty())
}

/// Records a build's versions in the history, and in each city's ledger the version
/// built from its files, so that a later refresh offered nothing new knows the
/// current version already holds them.
fn record_build(
    out: &Path,
    manifest: &hexrisk_engine::artifact::Manifest,
    builds: &[CityBuild],
    intakes: &mut [CityIntake],
) -> anyhow::Result<History> {
    let recorded: Vec<Built<'_>> = builds
        .iter()
        .zip(intakes.iter())
        .map(|(build, taken_in)| Built {
            build,
            late_arrivals: 0,
            files_taken_in: taken_in.ledger.files.len(),
        })
        .collect();
    let history = History::record(out, manifest, &recorded)?;
    for taken_in in intakes.iter_mut().filter(|t| !t.ledger.files.is_empty()) {
        let version = manifest
            .city(&taken_in.ledger.city)
            .map(|c| c.version.clone());
        if taken_in.ledger.version != version {
            taken_in.ledger.version = version;
            taken_in.ledger.save(&taken_in.ledger_path())?;
        }
    }
    Ok(history)
}

/// Where `build` reads and writes.
struct BuildPaths<'a> {
    config_dir: &'a Path,
    out: &'a Path,
    backtest_dir: &'a Path,
    card: &'a Path,
    intake: &'a Path,
}

fn build(cli: &Cli, paths: &BuildPaths<'_>, only: &[String]) -> anyhow::Result<()> {
    let BuildPaths {
        config_dir,
        out,
        backtest_dir,
        card,
        intake,
    } = *paths;
    let started = Instant::now();
    let _lock = hexrisk_builder::outputs::lock::exclusive(out)?;
    let mut configs = config::load_all(config_dir)?;
    if !only.is_empty() {
        configs.retain(|c| only.contains(&c.code));
        anyhow::ensure!(!configs.is_empty(), "no configured city matches {only:?}");
    }
    let progress = ProgressBar::new(0);
    progress.set_style(
        ProgressStyle::with_template("{elapsed:>4} [{bar:30}] {pos}/{len} {msg}")?
            .progress_chars("=> "),
    );
    let mut builds = Vec::new();
    let mut intakes = Vec::new();
    for city in &configs {
        let city_started = Instant::now();
        let taken_in = CityIntake::load(intake, &city.code)?;
        let built = pipeline::build_city_with(city, &cli.data_dir, &taken_in, &progress)?;
        let model = &built.backtest.metrics["model"];
        let line = format!(
            "{}: {} cells, {} incidents kept, backtest Brier {:.3} log loss {:.3} MAE (median) {:.3} ({:.1} s)",
            city.code,
            built.cells,
            built
                .sources
                .values()
                .map(hexrisk_builder::inputs::ingest::SourceReport::accepted_total)
                .sum::<u64>(),
            model.brier,
            model.log_loss,
            model.mae_median,
            city_started.elapsed().as_secs_f64()
        );
        // Printed above the bar on a terminal, plainly in logs.
        progress.suspend(|| println!("{line}"));
        for (source, r) in &built.sources {
            let reasons: Vec<String> = r
                .rejected
                .iter()
                .map(|(k, n)| format!("{k}: {n}"))
                .collect();
            let line = format!(
                "  {source}: {} rows, {} kept, rejected {{{}}}",
                r.rows,
                r.accepted_total(),
                reasons.join(", ")
            );
            progress.suspend(|| println!("{line}"));
        }
        if let Some(line) = streets_line(&built) {
            progress.suspend(|| println!("{line}"));
        }
        outputs::write_exports(backtest_dir, &built)?;
        builds.push(built);
        intakes.push(taken_in);
    }
    progress.finish_and_clear();
    let manifest = artifacts::write_artifacts(out, &builds)?;
    let history = record_build(out, &manifest, &builds, &mut intakes)?;
    for city in &manifest.cities {
        println!(
            "{}: version {} in {}/{} ({} bytes)",
            city.code,
            city.version,
            out.display(),
            city.file,
            city.bytes
        );
    }
    println!("manifest {} written", manifest.version);
    if !card.as_os_str().is_empty() {
        hexrisk_builder::atomic::write(
            card,
            model_card::markdown(&builds, &configs, &history).as_bytes(),
        )?;
        println!("wrote {}", card.display());
    }
    println!(
        "built {} cities in {:.1} s",
        builds.len(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// The log line of a city's street-level backtest: per group, the incidents off
/// the network, the chosen `k` and the hit rates of both forecasts at 1 % of the
/// length.
fn streets_line(built: &CityBuild) -> Option<String> {
    let streets = built.streets.as_ref()?;
    let groups: Vec<String> = streets
        .groups
        .iter()
        .map(|g| {
            format!(
                "{}: {} of {} off the network, k = {}, hit rate at 1 %: {:.3} uniform, {:.3} street-level",
                g.group.label(),
                g.placements.off_network,
                g.placements.total(),
                g.shrinkage.k,
                g.uniform[0].hit_rate(),
                g.street[0].hit_rate()
            )
        })
        .collect();
    Some(format!("  streets: {}", groups.join("; ")))
}

fn refresh_city(
    cli: &Cli,
    code: &str,
    files: &[String],
    paths: &BuildPaths<'_>,
) -> anyhow::Result<()> {
    let started = Instant::now();
    let configs = config::load_all(paths.config_dir)?;
    let city = configs
        .iter()
        .find(|c| c.code == code)
        .ok_or_else(|| anyhow::anyhow!("no configured city {code}"))?;
    let offered: Vec<Offered> = files.iter().map(|f| Offered::parse(f, city)).collect();
    let progress = ProgressBar::hidden();
    let done = refresh::refresh(
        city,
        refresh::Paths {
            data_dir: &cli.data_dir,
            intake_dir: paths.intake,
            out: paths.out,
        },
        &offered,
        &mut |_| Ok(()),
        &progress,
    )?;
    for file in &done.take_in.files {
        match &file.status {
            Status::New(e) => println!(
                "taken in {} as {}: {} rows, {} new, {} duplicates, {} late; dates {} to {}",
                file.path.display(),
                e.source,
                e.rows,
                e.new,
                e.duplicates,
                e.late,
                e.first_date,
                e.last_date
            ),
            Status::AlreadyTakenIn(e) => println!(
                "already taken in {} as {} on {}: nothing to do",
                file.path.display(),
                e.source,
                e.accepted_at
            ),
            Status::Repeated => println!("{} repeats an earlier file", file.path.display()),
        }
    }
    if let Some(source) = &done.held_by {
        println!("data-through held back by source {source}, which covers no further");
    }
    let Some(build) = &done.build else {
        match &done.current {
            Some(c) => println!("unchanged: {code} stays at version {}", c.version),
            None => println!("unchanged: {code} has no version"),
        }
        return Ok(());
    };
    if let Some(current) = &done.current {
        let was = done
            .previous
            .as_ref()
            .map_or("none", |p| p.version.as_str());
        println!(
            "{code}: version {} (data through {}, {} late arrivals) in {}/{}, was {was}",
            current.version,
            current.data_through,
            done.late_arrivals,
            paths.out.display(),
            current.file
        );
    }
    if let Some(manifest) = &done.manifest {
        println!("manifest {} written", manifest.version);
    }
    outputs::write_exports(paths.backtest_dir, build)?;
    if !paths.card.as_os_str().is_empty() {
        // The card describes every city: rebuild the others (deterministic, so
        // their versions and files stay as they are).
        let mut builds = Vec::new();
        for other in &configs {
            if other.code == code {
                builds.push(build.clone());
            } else {
                let taken_in = CityIntake::load(paths.intake, &other.code)?;
                builds.push(pipeline::build_city_with(
                    other,
                    &cli.data_dir,
                    &taken_in,
                    &progress,
                )?);
            }
        }
        let history = History::load(paths.out)?;
        hexrisk_builder::atomic::write(
            paths.card,
            model_card::markdown(&builds, &configs, &history).as_bytes(),
        )?;
        println!("wrote {}", paths.card.display());
    }
    println!("refreshed in {:.1} s", started.elapsed().as_secs_f64());
    Ok(())
}

/// Writes the reference samples `sample` draws from the artifacts in `artifacts` to
/// `out` as JSON, and says how many there are.
fn place_check(artifacts: &Path, city: &str, osm: &Path, out: &Path) -> anyhow::Result<bool> {
    let atlas = samples::load_atlas(artifacts)?;
    let model = atlas
        .city(city)
        .ok_or_else(|| anyhow::anyhow!("no artifact of {city} in {}", artifacts.display()))?;
    let osm = hexrisk_builder::roads::osm::read_xml(&data::workspace_data_dir().join(osm))?;
    let report = place_check::PlaceReport {
        check: place_check::check(&osm, model),
        sizes: place_check::Sizes::of(model.artifact())?,
        prefixes: place_check::three_letter_prefixes(model),
    };
    hexrisk_builder::atomic::write(out, &serde_json::to_vec_pretty(&report)?)?;
    let (check, sizes) = (&report.check, &report.sizes);
    println!(
        "{} of {} intersections found first within {} m ({:.1} %); of the {} whose names the network has, {}",
        check.found,
        check.intersections,
        place_check::FOUND_WITHIN_M,
        100.0 * check.share,
        check.with_both_names,
        check.found_with_both_names,
    );
    println!(
        "{city}: full file {} bytes, {} without its place index, {} without street names either; grid file {}; wrote {}",
        sizes.full,
        sizes.without_index,
        sizes.without_names_or_index,
        sizes.grid,
        out.display()
    );
    Ok(true)
}

fn write_samples(
    artifacts: &Path,
    out: &Path,
    what: &str,
    sample: impl FnOnce(&Atlas) -> serde_json::Value,
) -> anyhow::Result<bool> {
    let json = sample(&samples::load_atlas(artifacts)?);
    hexrisk_builder::atomic::write(out, &serde_json::to_vec(&json)?)?;
    println!(
        "wrote {} {what} to {}",
        json.as_array().map_or(0, Vec::len),
        out.display()
    );
    Ok(true)
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

fn holdout_routes(cli: &Cli, args: &HoldoutArgs) -> anyhow::Result<()> {
    let configs = config::load_all(&args.config_dir)?;
    let city = configs
        .iter()
        .find(|c| c.code == args.city || c.name.eq_ignore_ascii_case(&args.city))
        .ok_or_else(|| anyhow::anyhow!("no configured city {}", args.city))?;
    let command = std::iter::once("hexrisk-build".to_owned())
        .chain(std::env::args().skip(1))
        .collect::<Vec<_>>()
        .join(" ");
    let report = holdout::run(
        &holdout::Options {
            city,
            data_dir: &cli.data_dir,
            cut: args.cut,
            until: args.until.unwrap_or(city.span.end),
            pairs: args.pairs,
            seed: args.seed,
            command,
        },
        &|line| println!("{line}"),
    )?;
    hexrisk_builder::atomic::write(&args.out, &serde_json::to_vec_pretty(&report)?)?;
    println!("wrote {}", args.out.display());
    let section = holdout::markdown::section(&report);
    println!("{section}");
    if !args.doc.as_os_str().is_empty() {
        let doc = std::fs::read_to_string(&args.doc)?;
        let doc = holdout::markdown::splice(&doc, &section)
            .map_err(|e| anyhow::anyhow!("{}: {e}", args.doc.display()))?;
        hexrisk_builder::atomic::write(&args.doc, doc.as_bytes())?;
        println!("wrote the held-out section of {}", args.doc.display());
    }
    Ok(())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::VerifyData => verify(&cli.data_dir),
        Command::Build {
            config_dir,
            out,
            backtest_dir,
            model_card,
            cities,
            intake,
        } => build(
            &cli,
            &BuildPaths {
                config_dir,
                out,
                backtest_dir,
                card: model_card,
                intake,
            },
            cities,
        )
        .map(|()| true),
        Command::Refresh {
            city,
            files,
            config_dir,
            out,
            intake,
            backtest_dir,
            model_card,
        } => refresh_city(
            &cli,
            city,
            files,
            &BuildPaths {
                config_dir,
                out,
                backtest_dir,
                card: model_card,
                intake,
            },
        )
        .map(|()| true),
        Command::Prune { out, keep } => prune::prune(out, *keep)
            .map(|pruned| {
                for file in &pruned.removed {
                    println!("removed {}/{file}", out.display());
                }
                println!(
                    "kept manifests {}; removed {} files",
                    pruned.kept_manifests.join(", "),
                    pruned.removed.len()
                );
                true
            })
            .map_err(Into::into),
        Command::ForecastSamples {
            artifacts,
            per_city,
            seed,
            out,
        } => write_samples(artifacts, out, "reference forecasts", |atlas| {
            samples::reference_forecasts(atlas, *per_city, *seed)
        }),
        Command::HoldoutRoutes(args) => holdout_routes(&cli, args).map(|()| true),
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
