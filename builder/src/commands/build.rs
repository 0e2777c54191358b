//! `hexrisk-build build`: its arguments, and every configured city through the
//! pipeline, then the artifacts, manifest, exports, history and model card, with a
//! line per city.

use std::path::{Path, PathBuf};
use std::time::Instant;

use hexrisk_engine::artifact::Manifest;
use indicatif::{ProgressBar, ProgressStyle};

use crate::fit::city_build::CityBuild;
use crate::inputs::config;
use crate::inputs::intake::{CityIntake, fed};
use crate::outputs::history::{Built, History};
use crate::outputs::{self, artifacts, model_card};
use crate::pipeline;
use crate::store::IncidentStore;

/// `build`'s arguments.
#[derive(Debug, clap::Args)]
pub struct BuildArgs {
    /// Build only these city codes (default: all).
    #[arg(long = "city")]
    pub cities: Vec<String>,
    /// Where it reads and writes.
    #[command(flatten)]
    pub paths: BuildPathArgs,
}

impl BuildArgs {
    /// Runs `build`.
    ///
    /// # Errors
    /// As [`build`].
    pub fn run(&self, data_dir: &Path) -> anyhow::Result<bool> {
        build(data_dir, &self.paths.paths(), &self.cities).map(|()| true)
    }
}

/// Where `build` and `refresh` read and write, as arguments.
#[derive(Debug, clap::Args)]
pub struct BuildPathArgs {
    /// City configuration directory.
    #[arg(long, default_value_os_t = config::default_config_dir())]
    pub config_dir: PathBuf,
    /// Where the artifacts and manifest go.
    #[arg(long, default_value = "build/artifacts")]
    pub out: PathBuf,
    /// Where the backtest exports go.
    #[arg(long, default_value = "build/backtest")]
    pub backtest_dir: PathBuf,
    /// Where the model card goes (skipped when empty). Writing it after a refresh
    /// rebuilds the other cities too, since the card describes them all.
    // clap's own path parser refuses an empty value, the documented way to skip.
    #[arg(
        long,
        default_value = "docs/MODEL.md",
        value_parser = clap::builder::TypedValueParser::map(clap::builder::OsStringValueParser::new(), PathBuf::from)
    )]
    pub model_card: PathBuf,
    /// Intake state folder: files taken in by `refresh` (`<intake>/<code>/ledger.json`
    /// and `files/`), read after the configured ones.
    #[arg(long, default_value = "build/intake")]
    pub intake: PathBuf,
    /// Incident stores' folder: fed sources synced by `update`.
    #[arg(long, default_value = "build/store")]
    pub store: PathBuf,
}

impl BuildPathArgs {
    /// The paths, borrowed.
    #[must_use]
    pub fn paths(&self) -> BuildPaths<'_> {
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

/// Where `build` reads and writes.
pub struct BuildPaths<'a> {
    /// City configuration directory.
    pub config_dir: &'a Path,
    /// Where the artifacts and manifest go.
    pub out: &'a Path,
    /// Where the backtest exports go.
    pub backtest_dir: &'a Path,
    /// Where the model card goes (none when empty).
    pub card: &'a Path,
    /// The intake state folder.
    pub intake: &'a Path,
    /// The incident stores' folder (`<store>/<code>.sqlite`): a city's fed
    /// sources are read from it once `update` has synced them.
    pub store: &'a Path,
}

/// `hexrisk-build build`: fits, backtests and packs every configured city (or those
/// in `only`), then writes the artifacts, the manifest, the exports, the history and
/// the model card.
///
/// # Errors
/// A city that cannot be built, or an output that cannot be written.
pub fn build(data_dir: &Path, paths: &BuildPaths<'_>, only: &[String]) -> anyhow::Result<()> {
    let BuildPaths {
        config_dir,
        out,
        backtest_dir,
        card,
        intake,
        store,
    } = *paths;
    let started = Instant::now();
    let _lock = crate::outputs::lock::exclusive(out)?;
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
        let mut taken_in = CityIntake::load(intake, &city.code)?;
        if let Some(fed_store) = IncidentStore::open_existing(store, &city.code)? {
            taken_in.fed = fed::load(&fed_store, city)?;
        }
        let built = pipeline::build_city_with(city, data_dir, &taken_in, &progress)?;
        let model = &built.backtest.metrics["model"];
        let line = format!(
            "{}: {} cells, {} incidents kept, backtest Brier {:.3} log loss {:.3} MAE (median) {:.3} ({:.1} s)",
            city.code,
            built.cells,
            built
                .sources
                .values()
                .map(crate::inputs::cleaning::SourceReport::accepted_total)
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
            if let Some(values) = r.unmapped_summary() {
                let line = format!("  {source}: offence values not in the mapping: {values}");
                progress.suspend(|| println!("{line}"));
            }
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
        crate::atomic::write(
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

/// Records a build's versions in the history, and in each city's ledger the version
/// built from its files, so that a later refresh offered nothing new knows the
/// current version already holds them.
fn record_build(
    out: &Path,
    manifest: &Manifest,
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
