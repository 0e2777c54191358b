//! The intake: incident files handed to `hexrisk-build refresh` after the configured
//! ones, kept per city under a state folder (`build/intake` by default):
//!
//! ```text
//! <intake>/<code>/ledger.json          what was taken in, in order (ledger.rs)
//! <intake>/<code>/files/<sha256>.csv   each file, named by the digest of its bytes
//! ```
//!
//! Every build of the city (`build` and `refresh` alike) reads the configured files
//! and then the ledger's files, merged so that each incident counts once
//! (identity.rs), and models up to the date the sources together cover
//! ([`CityIntake::span_end`]). A file is taken in only after the strict check of
//! strict.rs; `take_in.rs` decides which source a file belongs to and what it adds.
//! See docs/REFRESH.md.

mod columns;
pub mod fed;
mod identity;
pub mod ledger;
mod strict;
pub mod take_in;

use std::fmt;
use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use chrono_tz::Tz;

use crate::inputs::config::{CityConfig, SourceConfig};
use crate::inputs::sources::{self, RawRow, SourceError};
use identity::Multiplicity;
pub use ledger::{Ledger, LedgerEntry};

/// Why a row of a refresh file makes the file unusable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The layout needs this column, or the source's other files have it.
    MissingColumn,
    /// The source's other files do not have this column.
    UnexpectedColumn,
    /// The row has another number of fields than the header.
    FieldCount {
        /// Fields in the row.
        found: usize,
        /// Fields in the header.
        expected: usize,
    },
    /// The date does not parse.
    BadDate(String),
    /// The date lies after the day of the refresh (in the city's time zone): a
    /// mistyped year would otherwise carry the data-through date years ahead.
    FutureDate(String),
    /// The coordinate does not parse.
    BadCoordinate(String),
    /// The coordinate is outside the valid range.
    OutOfRange(String),
    /// The file has no rows.
    NoRows,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::MissingColumn => f.write_str("missing column"),
            Self::UnexpectedColumn => f.write_str("column not in the source's other files"),
            Self::FieldCount { found, expected } => {
                write!(f, "{found} fields where the header has {expected}")
            }
            Self::BadDate(text) => write!(f, "unparseable date {text:?}"),
            Self::FutureDate(text) => write!(f, "date {text:?} is after today"),
            Self::BadCoordinate(text) => write!(f, "unparseable coordinate {text:?}"),
            Self::OutOfRange(text) => write!(f, "coordinate out of range {text:?}"),
            Self::NoRows => f.write_str("no rows"),
        }
    }
}

/// A failure of the intake.
#[derive(Debug, thiserror::Error)]
pub enum IntakeError {
    /// A file could not be read or written.
    #[error("cannot access {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A source reader failed.
    #[error(transparent)]
    Source(#[from] SourceError),
    /// A ledger that exists but cannot be used.
    #[error("ledger {path}: {source}")]
    Ledger {
        /// The ledger file.
        path: PathBuf,
        /// The cause.
        source: serde_json::Error,
    },
    /// A refresh file failed the strict check.
    #[error("{path}: line {line}, column {column}: {reason}")]
    Refused {
        /// The file.
        path: PathBuf,
        /// 1-based line, the header being line 1.
        line: u64,
        /// The column's name.
        column: String,
        /// What is wrong.
        reason: Refusal,
    },
    /// `--source`-style name that the city does not configure.
    #[error("{path}: the city has no source {name} (it has {known})")]
    UnknownSource {
        /// The file.
        path: PathBuf,
        /// The name given.
        name: String,
        /// The configured names.
        known: String,
    },
    /// No configured source reads the file.
    #[error("{path}: no source of the city fits this file: {details}")]
    NoSource {
        /// The file.
        path: PathBuf,
        /// Why each source does not fit.
        details: String,
    },
    /// Several sources read the file cleanly.
    #[error("{path}: the file fits the sources {candidates}; name one as SOURCE=FILE")]
    Ambiguous {
        /// The file.
        path: PathBuf,
        /// The sources that fit.
        candidates: String,
    },
    /// The configuration is unusable.
    #[error("{0}")]
    Config(String),
}

/// What a city's intake holds: its folder and ledger.
#[derive(Debug, Clone, Default)]
pub struct CityIntake {
    /// `<intake>/<code>`.
    pub dir: PathBuf,
    /// The ledger.
    pub ledger: Ledger,
    /// The sources fed from the incident store ([`fed`]), by name.
    pub fed: std::collections::BTreeMap<String, fed::FedRows>,
}

impl CityIntake {
    /// An intake with nothing taken in.
    #[must_use]
    pub fn none() -> Self {
        Self::default()
    }

    /// The intake of `code` under the state folder `root`; empty when the city has
    /// none yet.
    ///
    /// # Errors
    /// [`IntakeError`] for a ledger that exists but cannot be read.
    pub fn load(root: &Path, code: &str) -> Result<Self, IntakeError> {
        let dir = root.join(code);
        let ledger = Ledger::load(&dir.join(ledger::LEDGER_FILE), code)?;
        Ok(Self {
            dir,
            ledger,
            fed: std::collections::BTreeMap::new(),
        })
    }

    /// The fed state: each fed source's last changing pull. A build records it
    /// in the ledger; a refresh whose state equals the ledger's has nothing new.
    #[must_use]
    pub fn fed_state(&self) -> std::collections::BTreeMap<String, i64> {
        self.fed
            .iter()
            .map(|(name, rows)| (name.clone(), rows.state))
            .collect()
    }

    /// The ledger file.
    #[must_use]
    pub fn ledger_path(&self) -> PathBuf {
        self.dir.join(ledger::LEDGER_FILE)
    }

    /// The stored files of one source, in ledger order.
    fn files_of<'a>(&'a self, source: &'a str) -> impl Iterator<Item = PathBuf> + 'a {
        self.ledger
            .files
            .iter()
            .filter(move |f| f.source == source)
            .map(|f| ledger::stored_path(&self.dir, f))
    }

    /// The last date the city's data covers: per source, the later of the
    /// configured span end (which caps the configured files: Toronto's homicide and
    /// shooting files run years past its MCI) and the latest row date of the files
    /// taken in; then the earliest of these over the sources, since a week is
    /// modelled only when every source covers it. Returns the date and, when a
    /// source holds it below what another covers, that source's name.
    #[must_use]
    pub fn span_end(&self, city: &CityConfig) -> (NaiveDate, Option<String>) {
        let covered: Vec<(NaiveDate, &String)> = city
            .sources
            .keys()
            .map(|name| {
                // A fed source covers what its feed does, whatever the files did.
                if let Some(fed) = self.fed.get(name) {
                    return (fed.data_through.unwrap_or(city.span.start), name);
                }
                let latest = self
                    .ledger
                    .files
                    .iter()
                    .filter(|f| &f.source == name)
                    .map(|f| f.last_date)
                    .max();
                (latest.map_or(city.span.end, |d| d.max(city.span.end)), name)
            })
            .collect();
        let end = covered
            .iter()
            .map(|&(d, _)| d)
            .min()
            .unwrap_or(city.span.end);
        let furthest = covered.iter().map(|&(d, _)| d).max().unwrap_or(end);
        let holding = (furthest > end)
            .then(|| covered.iter().find(|&&(d, _)| d == end))
            .flatten()
            .map(|(_, name)| (*name).clone());
        (end, holding)
    }

    /// The city's configuration with its span extended to [`Self::span_end`].
    #[must_use]
    pub fn extend(&self, city: &CityConfig) -> CityConfig {
        let mut city = city.clone();
        city.span.end = self.span_end(&city).0;
        city
    }
}

/// The rows of a source for the build.
#[derive(Debug, Clone, Default)]
pub struct SourceRows {
    /// Rows to classify: the configured files' rows, then the new rows of each file
    /// taken in, each with its position among the rows read.
    pub rows: Vec<(u64, RawRow)>,
    /// Rows read in all.
    pub read: u64,
    /// The positions of the rows of files taken in that were already known.
    pub duplicates: Vec<u64>,
}

/// The configured files of a source, as one set, with their keys when asked for.
fn configured(
    source: &SourceConfig,
    data_dir: &Path,
    tz: Tz,
    with_keys: bool,
) -> Result<(Vec<RawRow>, Vec<identity::Key>), IntakeError> {
    let layout = columns::of(source);
    let mut rows = Vec::new();
    let mut keys = Vec::new();
    for file in &source.files {
        let path = data_dir.join(file);
        let read = sources::read_source(source, &path, tz)?;
        if with_keys {
            let records = sources::read_records(&path)?;
            keys.extend(identity::keys(&layout.identity, &records));
        }
        rows.extend(read);
    }
    Ok((rows, keys))
}

/// The rows of source `name`: its fed rows where it has them ([`fed`]); else its
/// configured files, then the new rows of the files taken in (see identity.rs).
/// Without files taken in, exactly the configured files' rows.
///
/// # Errors
/// [`IntakeError`] when a file cannot be read.
pub fn source_rows(
    name: &str,
    source: &SourceConfig,
    data_dir: &Path,
    intake: &CityIntake,
    tz: Tz,
) -> Result<SourceRows, IntakeError> {
    if let Some(fed) = intake.fed.get(name) {
        let rows = fed.raw_rows(tz);
        return Ok(SourceRows {
            read: rows.len() as u64,
            rows: (0..).zip(rows).collect(),
            duplicates: Vec::new(),
        });
    }
    let taken: Vec<PathBuf> = intake.files_of(name).collect();
    let (rows, keys) = configured(source, data_dir, tz, !taken.is_empty())?;
    let mut out = SourceRows {
        read: rows.len() as u64,
        rows: (0..).zip(rows).collect(),
        ..SourceRows::default()
    };
    let mut most = Multiplicity::default();
    most.take(&keys);
    let layout = columns::of(source);
    for path in taken {
        let file_rows = sources::read_source(source, &path, tz)?;
        let file_keys = identity::keys(&layout.identity, &sources::read_records(&path)?);
        let first = out.read;
        out.read += file_rows.len() as u64;
        for ((position, row), new) in (first..).zip(file_rows).zip(most.take(&file_keys)) {
            if new {
                out.rows.push((position, row));
            } else {
                out.duplicates.push(position);
            }
        }
    }
    Ok(out)
}
