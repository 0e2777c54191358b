//! The refit-and-publish procedure: a city's offered files taken in, the city refitted
//! on all it holds, and the new version published. `refresh` runs it on new
//! files, `update` after each sync; the CLI's half of `refresh` (its arguments and
//! lines) is `commands/refresh.rs`. See docs/REFRESH.md for the policies.
//!
//! The order of the writes is what makes a stop at any point harmless:
//!
//! 1. every offered file is checked (strict.rs) and its rows matched against what
//!    the city already holds; a refused file stops the refresh before any write;
//! 2. the new files are copied into the intake folder under their digests (inert
//!    until the ledger lists them);
//! 3. the city is rebuilt from its configured files and the intake, and its artifact
//!    written as a new immutable file, with `manifests/<version>.json`;
//! 4. the ledger is written, naming the files and the version built from them;
//! 5. `manifest.json` is written: the new version is current;
//! 6. `history.json` records it.
//!
//! A stop before 4 leaves the intake and the current version as they were (the
//! stray files of 2 and 3 are never read). A stop between 4 and 5 leaves the ledger
//! ahead of the manifest; the next refresh sees the ledger's version is not the
//! current one and rebuilds even when offered nothing new.

use std::path::Path;

use chrono::{Days, NaiveDate};
use hexrisk_engine::artifact::{Manifest, ManifestCity};
use indicatif::ProgressBar;

use crate::fit::city_build::CityBuild;
use crate::inputs::cleaning::Weeks;
use crate::inputs::config::CityConfig;
use crate::inputs::intake::take_in::{self, Offered, TakeIn};
use crate::inputs::intake::{CityIntake, IntakeError, fed};
use crate::outputs::artifacts;
use crate::outputs::history::{Built, History};
use crate::pipeline::{self, BuildError};
use crate::store::IncidentStore;

/// Points of a refresh at which the test hook may stop it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Every file checked; nothing written.
    Checked,
    /// New files copied into the intake folder.
    FilesStored,
    /// The new artifact and `manifests/<version>.json` written.
    ArtifactsStaged,
    /// The ledger written.
    LedgerWritten,
    /// `manifest.json` written.
    Published,
}

/// A refresh that failed.
#[derive(Debug, thiserror::Error)]
pub enum RefreshError {
    /// A file was refused or could not be read, or the intake is unusable.
    #[error(transparent)]
    Intake(#[from] IntakeError),
    /// The rebuild failed.
    #[error(transparent)]
    Build(#[from] BuildError),
    /// Writing the artifacts, manifest or history failed.
    #[error("writing the outputs: {0:#}")]
    Output(anyhow::Error),
    /// The hook stopped the refresh (tests).
    #[error("stopped at {0:?}")]
    Stopped(Stage),
    /// The incident store cannot be read.
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
    /// Another build, refresh or prune is writing the artifacts folder.
    #[error(transparent)]
    Locked(#[from] crate::outputs::lock::LockError),
}

/// Where a refresh reads and writes.
#[derive(Debug, Clone, Copy)]
pub struct Paths<'a> {
    /// The input data directory (the configured files).
    pub data_dir: &'a Path,
    /// The intake state folder (`<intake>/<code>/...`).
    pub intake_dir: &'a Path,
    /// The artifacts folder.
    pub out: &'a Path,
    /// The incident stores' folder, when the city's fed sources are to be read
    /// (`update`); `None` reads files only.
    pub store_dir: Option<&'a Path>,
}

/// What a refresh did.
#[derive(Debug, Clone)]
pub struct Refreshed {
    /// Every offered file and what happened to it.
    pub take_in: TakeIn,
    /// The city's current entry before.
    pub previous: Option<ManifestCity>,
    /// The city's current entry after.
    pub current: Option<ManifestCity>,
    /// The manifest published, when one was.
    pub manifest: Option<Manifest>,
    /// The rebuild, when there was one.
    pub build: Option<CityBuild>,
    /// New rows dated on or before the previous data-through date.
    pub late_arrivals: u64,
    /// A source that holds the data-through date below what the others cover.
    pub held_by: Option<String>,
}

/// The data-through date of a span: the Sunday ending its last full week.
#[must_use]
pub fn data_through(start: NaiveDate, end: NaiveDate) -> Option<NaiveDate> {
    let weeks = Weeks::within(start, end);
    (weeks.count > 0).then(|| weeks.start_of(weeks.count - 1) + Days::new(6))
}

/// The current time as RFC 3339 UTC, for the ledger's `accepted_at`.
#[must_use]
pub fn now_utc() -> String {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .ok()
        .and_then(|d| i64::try_from(d.as_secs()).ok())
        .and_then(|secs| chrono::DateTime::from_timestamp(secs, 0))
        .map_or_else(String::new, |t| t.to_rfc3339())
}

fn output(err: anyhow::Error) -> RefreshError {
    RefreshError::Output(err)
}

/// Takes the offered files of `city` in and publishes the version they give.
/// `hook` is called at each [`Stage`]; an error from it stops the refresh there
/// (the CLI passes one that does nothing).
///
/// # Errors
/// [`RefreshError`]; a refused file writes nothing.
pub fn refresh(
    city: &CityConfig,
    paths: Paths<'_>,
    offered: &[Offered],
    hook: &mut dyn FnMut(Stage) -> Result<(), RefreshError>,
    progress: &ProgressBar,
) -> Result<Refreshed, RefreshError> {
    let _lock = crate::outputs::lock::exclusive(paths.out)?;
    let mut intake = CityIntake::load(paths.intake_dir, &city.code)?;
    if let Some(store) = paths
        .store_dir
        .map(|dir| IncidentStore::open_existing(dir, &city.code))
        .transpose()?
        .flatten()
    {
        intake.fed = fed::load(&store, city)?;
    }
    let previous = artifacts::current_manifest(paths.out).and_then(|m| m.city(&city.code).cloned());
    let before = intake.extend(city);
    let through = data_through(before.span.start, before.span.end).unwrap_or(before.span.end);
    let plan = take_in::plan(city, &intake, paths.data_dir, offered, through, &now_utc())?;
    hook(Stage::Checked)?;
    let fresh = plan.new_entries().count();
    let published = previous
        .as_ref()
        .is_some_and(|p| intake.ledger.version.as_deref() == Some(p.version.as_str()));
    // A stop after the manifest but before the history (the last write) left the
    // version current but unrecorded: rebuild (the same bytes) and finish the steps.
    let recorded = previous.as_ref().is_some_and(|p| {
        History::load(paths.out).is_ok_and(|h| {
            h.versions
                .iter()
                .any(|v| v.code == city.code && v.version == p.version)
        })
    });
    let fed_unchanged = intake.ledger.fed == intake.fed_state();
    if fresh == 0 && recorded && fed_unchanged && (published || intake.ledger.files.is_empty()) {
        return Ok(Refreshed {
            take_in: plan,
            current: previous.clone(),
            previous,
            manifest: None,
            build: None,
            late_arrivals: 0,
            held_by: intake.span_end(city).1,
        });
    }
    let mut next = CityIntake {
        ledger: plan.store(&intake)?,
        dir: intake.dir.clone(),
        fed: intake.fed.clone(),
    };
    next.ledger.fed = intake.fed_state();
    hook(Stage::FilesStored)?;
    let build = pipeline::build_city_with(city, paths.data_dir, &next, progress)?;
    let staged =
        artifacts::stage_artifacts(paths.out, std::slice::from_ref(&build)).map_err(output)?;
    hook(Stage::ArtifactsStaged)?;
    let current = staged.manifest.city(&city.code).cloned();
    next.ledger.version = current.as_ref().map(|c| c.version.clone());
    next.ledger.save(&next.ledger_path())?;
    hook(Stage::LedgerWritten)?;
    let manifest = artifacts::publish(paths.out, &staged).map_err(output)?;
    hook(Stage::Published)?;
    let late_arrivals = plan.new_entries().map(|(_, e)| e.late).sum();
    History::record(
        paths.out,
        &manifest,
        &[Built {
            build: &build,
            late_arrivals,
            files_taken_in: next.ledger.files.len(),
        }],
    )
    .map_err(output)?;
    Ok(Refreshed {
        take_in: plan,
        previous,
        current,
        manifest: Some(manifest),
        build: Some(build),
        late_arrivals,
        held_by: next.span_end(city).1,
    })
}
