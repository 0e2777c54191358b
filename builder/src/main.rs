//! `hexrisk-build`: the offline build CLI.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, Subcommand};
use hexrisk_builder::{config, data, pipeline, report, samples};
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
}

fn verify(dir: &std::path::Path) -> anyhow::Result<bool> {
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

fn build(
    cli: &Cli,
    config_dir: &std::path::Path,
    out: &std::path::Path,
    backtest_dir: &std::path::Path,
    card: &std::path::Path,
    only: &[String],
) -> anyhow::Result<()> {
    let started = Instant::now();
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
    for city in &configs {
        let city_started = Instant::now();
        let built = pipeline::build_city(city, &cli.data_dir, &progress)?;
        let model = &built.backtest.metrics["model"];
        let line = format!(
            "{}: {} cells, {} incidents kept, backtest Brier {:.3} log loss {:.3} MAE (median) {:.3} ({:.1} s)",
            city.code,
            built.cells,
            built
                .sources
                .values()
                .map(hexrisk_builder::ingest::SourceReport::accepted_total)
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
        report::write_backtest_csv(backtest_dir, &built)?;
        builds.push(built);
    }
    progress.finish_and_clear();
    let manifest = report::write_artifacts(out, &builds)?;
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
        hexrisk_builder::atomic::write(card, report::model_card(&builds, &configs).as_bytes())?;
        println!("wrote {}", card.display());
    }
    println!(
        "built {} cities in {:.1} s",
        builds.len(),
        started.elapsed().as_secs_f64()
    );
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
        } => build(&cli, config_dir, out, backtest_dir, model_card, cities).map(|()| true),
        Command::ForecastSamples {
            artifacts,
            per_city,
            seed,
            out,
        } => samples::load_atlas(artifacts).and_then(|atlas| {
            let json = samples::reference_forecasts(&atlas, *per_city, *seed);
            std::fs::write(out, serde_json::to_vec(&json)?)?;
            println!(
                "wrote {} reference forecasts to {}",
                json.as_array().map_or(0, Vec::len),
                out.display()
            );
            Ok(true)
        }),
        Command::RouteSamples {
            artifacts,
            per_city,
            seed,
            out,
        } => samples::load_atlas(artifacts).and_then(|atlas| {
            let json = samples::reference_routes(&atlas, *per_city, *seed);
            std::fs::write(out, serde_json::to_vec(&json)?)?;
            println!(
                "wrote {} reference routes to {}",
                json.as_array().map_or(0, Vec::len),
                out.display()
            );
            Ok(true)
        }),
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
