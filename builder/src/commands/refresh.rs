//! `hexrisk-build refresh` on the command line: its arguments, the refit they ask of
//! `refit.rs`, and a line for what became of each file (docs/REFRESH.md).

use std::path::Path;
use std::time::Instant;

use indicatif::ProgressBar;

use super::build::{BuildPathArgs, BuildPaths};
use crate::inputs::config;
use crate::inputs::intake::CityIntake;
use crate::inputs::intake::take_in::{Offered, Status};
use crate::outputs::history::History;
use crate::outputs::{self, model_card};
use crate::{pipeline, refit};

/// `refresh`'s arguments.
#[derive(Debug, clap::Args)]
pub struct RefreshArgs {
    /// The city.
    #[arg(long = "city")]
    pub city: String,
    /// Files in the source's published format, each `FILE` (the source is found
    /// from the columns) or `SOURCE=FILE`.
    #[arg(required = true)]
    pub files: Vec<String>,
    /// Where it reads and writes.
    #[command(flatten)]
    pub paths: BuildPathArgs,
}

impl RefreshArgs {
    /// Runs `refresh`.
    ///
    /// # Errors
    /// As [`refresh_city`].
    pub fn run(&self, data_dir: &Path) -> anyhow::Result<bool> {
        refresh_city(data_dir, &self.city, &self.files, &self.paths.paths()).map(|()| true)
    }
}

/// `hexrisk-build refresh`: takes new files of city `code` in, refits and publishes a
/// new version when they bring anything, and says what happened to each file.
///
/// # Errors
/// An unknown city, a file that cannot be taken in, or an output that cannot be
/// written.
pub fn refresh_city(
    data_dir: &Path,
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
    let done = refit::refresh(
        city,
        refit::Paths {
            data_dir,
            intake_dir: paths.intake,
            out: paths.out,
            store_dir: Some(paths.store),
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
                    other, data_dir, &taken_in, &progress,
                )?);
            }
        }
        let history = History::load(paths.out)?;
        crate::atomic::write(
            paths.card,
            model_card::markdown(&builds, &configs, &history).as_bytes(),
        )?;
        println!("wrote {}", paths.card.display());
    }
    println!("refreshed in {:.1} s", started.elapsed().as_secs_f64());
    Ok(())
}
