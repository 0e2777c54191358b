//! `hexrisk-build update` on the command line: its arguments (shared with
//! `operate`), the sync and refit of each city they name (`sync_refit.rs`), and a
//! line for each source (docs/REFRESH.md).

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

use crate::feeds::http::{HttpClient, Patience};
use crate::feeds::sync::SyncOptions;
use crate::inputs::config;
use crate::refit::Paths;
use crate::sync_refit::{self, CityUpdate};

/// `update`'s arguments.
#[derive(Debug, clap::Args)]
pub struct UpdateArgs {
    /// The cities and where they are read and written.
    #[command(flatten)]
    pub fed: FedArgs,
    /// The time of the sync (RFC 3339), for a simulated clock; default now.
    #[arg(long)]
    pub now: Option<String>,
    /// Accept pulls that delete more than a fifth of a source's records (the
    /// publisher really withdrew them); refused otherwise.
    #[arg(long)]
    pub accept_deletions: bool,
}

impl UpdateArgs {
    /// Runs `update`.
    ///
    /// # Errors
    /// As [`update`].
    pub fn run(&self, data_dir: &Path) -> anyhow::Result<bool> {
        update(
            data_dir,
            &self.fed.paths(),
            &self.fed.cities,
            UpdateOptions {
                now: self.now.as_deref(),
                attempts: self.fed.attempts,
                accept_deletions: self.accept_deletions,
            },
        )
    }
}

/// The cities `update` and `operate` work on, and where they read and write.
#[derive(Debug, clap::Args)]
pub struct FedArgs {
    /// Only these city codes (default: every city with a feed).
    #[arg(long = "city")]
    pub cities: Vec<String>,
    /// City configuration directory.
    #[arg(long, default_value_os_t = config::default_config_dir())]
    pub config_dir: PathBuf,
    /// Where the artifacts and manifest go.
    #[arg(long, default_value = "build/artifacts")]
    pub out: PathBuf,
    /// Intake state folder.
    #[arg(long, default_value = "build/intake")]
    pub intake: PathBuf,
    /// Incident stores' folder: `<store>/<code>.sqlite`.
    #[arg(long, default_value = "build/store")]
    pub store: PathBuf,
    /// Tries of each request to a service (a 429 or 5xx is retried after its
    /// `Retry-After`, or a pause doubling from 2 s).
    #[arg(long, default_value_t = 6)]
    pub attempts: u32,
}

impl FedArgs {
    /// The paths, borrowed.
    #[must_use]
    pub fn paths(&self) -> UpdatePaths<'_> {
        UpdatePaths {
            config_dir: &self.config_dir,
            out: &self.out,
            intake: &self.intake,
            store: &self.store,
        }
    }
}

/// Where an update reads and writes.
#[derive(Debug, Clone, Copy)]
pub struct UpdatePaths<'a> {
    /// City configuration directory.
    pub config_dir: &'a Path,
    /// The artifacts folder.
    pub out: &'a Path,
    /// The intake state folder.
    pub intake: &'a Path,
    /// The incident stores' folder.
    pub store: &'a Path,
}

/// How an update runs.
#[derive(Debug, Clone, Copy)]
pub struct UpdateOptions<'a> {
    /// The time of the sync (RFC 3339); the wall clock when `None`.
    pub now: Option<&'a str>,
    /// Tries of each request to a service.
    pub attempts: u32,
    /// Accept pulls that delete more than a fifth of a source's records.
    pub accept_deletions: bool,
}

/// `hexrisk-build update`: the cities in `only` (default: every city with a
/// feed). Returns whether every source synced and every rebuild succeeded; each
/// city is tried whatever the others did.
///
/// # Errors
/// A configuration that cannot be read, an unknown city, or a bad `now`.
pub fn update(
    data_dir: &Path,
    paths: &UpdatePaths<'_>,
    only: &[String],
    options: UpdateOptions<'_>,
) -> anyhow::Result<bool> {
    let UpdateOptions {
        now,
        attempts,
        accept_deletions,
    } = options;
    let now = match now {
        Some(text) => DateTime::parse_from_rfc3339(text)
            .map_err(|e| anyhow::anyhow!("--now {text:?}: {e}"))?
            .with_timezone(&Utc),
        None => DateTime::<Utc>::from(std::time::SystemTime::now()),
    };
    let mut cities = config::load_all(paths.config_dir)?;
    cities.retain(|c| c.sources.values().any(|s| s.feed.is_some()));
    if !only.is_empty() {
        cities.retain(|c| only.contains(&c.code));
        anyhow::ensure!(
            cities.len() == only.len(),
            "no configured city with a feed for some of {only:?}"
        );
    }
    anyhow::ensure!(!cities.is_empty(), "no configured city has a feed");
    let client = HttpClient::new(Patience {
        attempts: attempts.max(1),
        ..Patience::default()
    });
    let mut all_good = true;
    for city in &cities {
        let refresh_paths = Paths {
            data_dir,
            intake_dir: paths.intake,
            out: paths.out,
            store_dir: Some(paths.store),
        };
        let sync = SyncOptions {
            accept_mass_deletion: accept_deletions,
            ..SyncOptions::default()
        };
        match sync_refit::update_city(city, refresh_paths, &client, now, sync) {
            Ok(done) => all_good &= report(&city.code, &done),
            Err(err) => {
                eprintln!("{}: not updated: {err}", city.code);
                all_good = false;
            }
        }
    }
    Ok(all_good)
}

/// Prints what an update did for one city; whether all of it succeeded.
fn report(code: &str, done: &CityUpdate) -> bool {
    let mut good = true;
    for (source, result) in &done.syncs {
        match result {
            Ok(synced) => {
                let p = &synced.pull;
                let c = &p.counts;
                println!(
                    "{code} {source}: {kind} pull, {} rows: {} added, {} revised, {} deleted, {} restored, {} re-keyed{}; the store holds {} records",
                    c.fetched,
                    c.added,
                    c.revised,
                    c.deleted,
                    c.restored,
                    c.rekeyed,
                    if p.replacement {
                        " (a wholesale replacement: history kept)"
                    } else {
                        ""
                    },
                    synced.records,
                    kind = match p.kind {
                        crate::store::pulls::PullKind::Full => "full",
                        crate::store::pulls::PullKind::Changed => "changed-since",
                    },
                );
                if p.kind == crate::store::pulls::PullKind::Changed || c.reconciled > 0 {
                    println!(
                        "{code} {source}: revisions found by reconciliation: {}",
                        c.reconciled
                    );
                }
                for warning in &synced.warnings {
                    println!("{code} warning: {warning}");
                }
            }
            Err(err) => {
                good = false;
                let next = if err.resumable() {
                    "the next update resumes this pull"
                } else {
                    "the next update begins a new pull"
                };
                eprintln!("{code} {source}: sync failed: {err} ({next})");
            }
        }
    }
    match &done.refreshed {
        Ok(refreshed) => match (&refreshed.manifest, &refreshed.current) {
            (Some(manifest), Some(current)) => {
                println!(
                    "{code}: published version {} (data through {}); manifest {}",
                    current.version, current.data_through, manifest.version
                );
                if let Some(build) = &refreshed.build {
                    for (source, r) in &build.sources {
                        if let Some(values) = r.unmapped_summary() {
                            println!(
                                "{code} {source}: offence values not in the mapping: {values}"
                            );
                        }
                    }
                    let b = &build.backtest;
                    if let (Some(known), Some(complete)) = (&b.known_then, b.metrics.get("model")) {
                        println!(
                            "{code}: backtest as known then: Brier {:.4} (as if complete {:.4}), log loss {:.4} ({:.4})",
                            known.brier, complete.brier, known.log_loss, complete.log_loss
                        );
                    }
                }
            }
            _ => println!("{code}: data unchanged; the current version stays"),
        },
        Err(err) => {
            good = false;
            eprintln!("{code}: rebuild failed, the current version stays: {err}");
        }
    }
    if done.freshness_published {
        println!("{code}: freshness record published");
    }
    good
}
