//! Deciding what a refresh takes in: which source each offered file belongs to, the
//! strict check, and what each file adds (new rows, rows already known, late
//! arrivals), all before anything is written.
//!
//! A file belongs to the source named as `SOURCE=FILE`; a bare `FILE` goes to the
//! one configured source that reads it cleanly. Toronto's homicide and shooting
//! files share most columns (a homicide file has every column the shootings layout
//! needs), so when several sources' columns fit, the strict check decides; when
//! several pass it, the file is refused as ambiguous.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use chrono_tz::Tz;
use sha2::{Digest, Sha256};

use super::identity::{self, Multiplicity};
use super::ledger::{self, LedgerEntry};
use super::strict::{self, CheckedFile};
use super::{CityIntake, IntakeError, Refusal, columns};
use crate::atomic;
use crate::inputs::config::{CityConfig, SourceConfig};
use crate::inputs::sources;

/// A file offered to refresh, with the source it was named for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Offered {
    /// The source named (`SOURCE=FILE`), if any.
    pub source: Option<String>,
    /// The file.
    pub path: PathBuf,
}

impl Offered {
    /// Reads `SOURCE=FILE` or `FILE`. An argument with `=` is `SOURCE=FILE` when
    /// `SOURCE` is one of the city's sources, or when no file has the whole argument
    /// as its name (so that a mistyped source is refused as unknown, naming the
    /// city's sources, rather than as a missing file).
    #[must_use]
    pub fn parse(arg: &str, city: &CityConfig) -> Self {
        match arg.split_once('=') {
            Some((name, path)) if city.sources.contains_key(name) || !Path::new(arg).exists() => {
                Self {
                    source: Some(name.to_owned()),
                    path: PathBuf::from(path),
                }
            }
            _ => Self {
                source: None,
                path: PathBuf::from(arg),
            },
        }
    }
}

/// What happened to one offered file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// Taken in now; its ledger entry.
    New(LedgerEntry),
    /// The ledger already has these bytes: nothing to do.
    AlreadyTakenIn(LedgerEntry),
    /// The same bytes were offered earlier in this refresh.
    Repeated,
}

/// One offered file and what happened to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileOutcome {
    /// The file as offered.
    pub path: PathBuf,
    /// SHA-256 of its bytes.
    pub sha256: String,
    /// What happened.
    pub status: Status,
}

/// The plan of a refresh's intake.
#[derive(Debug, Clone, Default)]
pub struct TakeIn {
    /// Every offered file, in order.
    pub files: Vec<FileOutcome>,
}

impl TakeIn {
    /// The entries of the files taken in now.
    pub fn new_entries(&self) -> impl Iterator<Item = (&Path, &LedgerEntry)> {
        self.files.iter().filter_map(|f| match &f.status {
            Status::New(entry) => Some((f.path.as_path(), entry)),
            _ => None,
        })
    }

    /// Copies the new files into the intake folder (each through a rename; a copy
    /// the ledger does not list yet is inert) and returns the ledger that lists
    /// them, not yet written.
    ///
    /// # Errors
    /// [`IntakeError::Io`].
    pub fn store(&self, intake: &CityIntake) -> Result<super::Ledger, IntakeError> {
        let mut ledger = intake.ledger.clone();
        for (path, entry) in self.new_entries() {
            let bytes = read(path)?;
            let target = ledger::stored_path(&intake.dir, entry);
            atomic::write(&target, &bytes).map_err(|source| IntakeError::Io {
                path: target.clone(),
                source,
            })?;
            ledger.files.push(entry.clone());
        }
        Ok(ledger)
    }
}

fn read(path: &Path) -> Result<Vec<u8>, IntakeError> {
    std::fs::read(path).map_err(|source| IntakeError::Io {
        path: path.to_owned(),
        source,
    })
}

/// The column set a content-identified source's new files must have: that of its
/// first configured file, else of its first file taken in.
fn reference_header(
    name: &str,
    source: &SourceConfig,
    data_dir: &Path,
    intake: &CityIntake,
) -> Result<Option<Vec<String>>, IntakeError> {
    let first = source
        .files
        .first()
        .map(|f| data_dir.join(f))
        .or_else(|| intake.files_of(name).next());
    let header = |path: PathBuf| {
        sources::CsvFile::open(&path).map(|file| {
            file.headers
                .iter()
                .map(|h| h.trim().to_owned())
                .collect::<Vec<_>>()
        })
    };
    Ok(first.map(header).transpose()?)
}

/// Which source a file is, and the file checked as that source.
fn identify(
    offered: &Offered,
    city: &CityConfig,
    data_dir: &Path,
    intake: &CityIntake,
    tz: Tz,
    today: Option<NaiveDate>,
) -> Result<(String, CheckedFile), IntakeError> {
    let check = |name: &str, source: &SourceConfig| {
        let reference = reference_header(name, source, data_dir, intake)?;
        strict::check(&offered.path, source, tz, reference.as_deref(), today)
    };
    if let Some(name) = &offered.source {
        let source = city
            .sources
            .get(name)
            .ok_or_else(|| IntakeError::UnknownSource {
                path: offered.path.clone(),
                name: name.clone(),
                known: city.sources.keys().cloned().collect::<Vec<_>>().join(", "),
            })?;
        return Ok((name.clone(), check(name, source)?));
    }
    let mut passed = Vec::new();
    let mut failed = Vec::new();
    let mut unfit = Vec::new();
    for (name, source) in &city.sources {
        match check(name, source) {
            Ok(file) => passed.push((name.clone(), file)),
            Err(
                err @ IntakeError::Refused {
                    line: 1,
                    reason: Refusal::MissingColumn,
                    ..
                },
            ) => unfit.push((name, err)),
            Err(other) => failed.push((name, other)),
        }
    }
    if passed.len() > 1 {
        let names: Vec<String> = passed.into_iter().map(|(n, _)| n).collect();
        return Err(IntakeError::Ambiguous {
            path: offered.path.clone(),
            candidates: names.join(", "),
        });
    }
    if let Some(found) = passed.pop() {
        return Ok(found);
    }
    // The columns fit exactly one source, or the city has one: its refusal is the
    // answer.
    if failed.len() == 1 {
        return Err(failed.remove(0).1);
    }
    if failed.is_empty() && unfit.len() == 1 {
        return Err(unfit.remove(0).1);
    }
    let details: Vec<String> = failed
        .into_iter()
        .chain(unfit)
        .map(|(name, err)| format!("as {name}: {err}"))
        .collect();
    Err(IntakeError::NoSource {
        path: offered.path.clone(),
        details: details.join("; "),
    })
}

/// What the sources of a city already hold, per key: the configured files, then the
/// files taken in.
fn known(
    name: &str,
    source: &SourceConfig,
    data_dir: &Path,
    intake: &CityIntake,
) -> Result<Multiplicity, IntakeError> {
    let layout = columns::of(source);
    let mut most = Multiplicity::default();
    let mut configured = Vec::new();
    for file in &source.files {
        let records = sources::read_records(&data_dir.join(file))?;
        configured.extend(identity::keys(&layout.identity, &records));
    }
    most.take(&configured);
    for path in intake.files_of(name) {
        most.take(&identity::keys(
            &layout.identity,
            &sources::read_records(&path)?,
        ));
    }
    Ok(most)
}

/// Checks every offered file and works out what it adds, writing nothing.
/// `data_through` is the current data-through date: new rows on or before it are
/// late arrivals. `now` (RFC 3339) is recorded as each new entry's `accepted_at`;
/// rows dated after its local date in the city are refused.
///
/// # Errors
/// The first file refused, or a read error.
pub fn plan(
    city: &CityConfig,
    intake: &CityIntake,
    data_dir: &Path,
    offered: &[Offered],
    data_through: NaiveDate,
    now: &str,
) -> Result<TakeIn, IntakeError> {
    let tz: Tz = city
        .timezone
        .parse()
        .map_err(|_| IntakeError::Config(format!("unknown time zone {}", city.timezone)))?;
    let today = chrono::DateTime::parse_from_rfc3339(now)
        .ok()
        .map(|t| t.with_timezone(&tz).date_naive());
    let mut plan = TakeIn::default();
    let mut known_by_source: BTreeMap<String, Multiplicity> = BTreeMap::new();
    for file in offered {
        let sha256 = hex::encode(Sha256::digest(read(&file.path)?));
        let status = if let Some(entry) = intake.ledger.find(&sha256) {
            Status::AlreadyTakenIn(entry.clone())
        } else if plan.files.iter().any(|f| f.sha256 == sha256) {
            Status::Repeated
        } else {
            let (name, checked) = identify(file, city, data_dir, intake, tz, today)?;
            if !known_by_source.contains_key(&name) {
                let most = known(&name, &city.sources[&name], data_dir, intake)?;
                known_by_source.insert(name.clone(), most);
            }
            let new = known_by_source
                .get_mut(&name)
                .map(|most| most.take(&checked.keys))
                .unwrap_or_default();
            let fresh = new.iter().filter(|&&n| n).count() as u64;
            let late = checked
                .rows
                .iter()
                .zip(&new)
                .filter(|&(row, &n)| {
                    n && row
                        .date
                        .is_some_and(|d| city.span.start <= d && d <= data_through)
                })
                .count() as u64;
            Status::New(LedgerEntry {
                stored: ledger::stored_name(&sha256, &file.path),
                sha256: sha256.clone(),
                source: name,
                original_name: file
                    .path
                    .file_name()
                    .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
                rows: checked.rows.len() as u64,
                new: fresh,
                duplicates: checked.rows.len() as u64 - fresh,
                late,
                first_date: checked.dates.0,
                last_date: checked.dates.1,
                accepted_at: now.to_owned(),
            })
        };
        plan.files.push(FileOutcome {
            path: file.path.clone(),
            sha256,
            status,
        });
    }
    Ok(plan)
}
