//! The ledger of a city's intake folder: every file `refresh` has taken in, in
//! order, with what it held. The build reads the files it lists after the configured
//! ones, so a refresh and a later from-scratch build see the same data.

use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use super::IntakeError;
use crate::atomic;

/// File name of the ledger inside a city's intake folder.
pub const LEDGER_FILE: &str = "ledger.json";

/// Folder of the taken-in files inside a city's intake folder.
pub const FILES_DIR: &str = "files";

/// One file taken in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LedgerEntry {
    /// SHA-256 of the file's bytes, lowercase hex: the same file twice is one entry.
    pub sha256: String,
    /// The configured source it belongs to.
    pub source: String,
    /// Its name when offered.
    pub original_name: String,
    /// Its name in the `files` folder: `<sha256>.csv` or `<sha256>.csv.gz`.
    pub stored: String,
    /// Rows in the file.
    pub rows: u64,
    /// Rows not already known when it was taken in.
    pub new: u64,
    /// Rows already known (from the configured files or earlier intake).
    pub duplicates: u64,
    /// New rows dated on or before the data-through date current when it was taken
    /// in.
    pub late: u64,
    /// Earliest row date.
    pub first_date: NaiveDate,
    /// Latest row date: how far the file covers its source.
    pub last_date: NaiveDate,
    /// When it was taken in (UTC, RFC 3339). Not used by any build.
    pub accepted_at: String,
}

/// A city's ledger.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ledger {
    /// City code.
    pub city: String,
    /// The artifact version last built from exactly these files, written before the
    /// manifest names it: a refresh that finds the manifest naming another version
    /// rebuilds (a previous refresh stopped between the two).
    pub version: Option<String>,
    /// Files in the order they were taken in.
    pub files: Vec<LedgerEntry>,
    /// The fed state `version` was built from: each fed source's last changing
    /// pull in the incident store.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub fed: std::collections::BTreeMap<String, i64>,
}

impl Ledger {
    /// Reads a ledger; an absent file is an empty ledger.
    ///
    /// # Errors
    /// [`IntakeError::Io`] or [`IntakeError::Ledger`] for a ledger that exists but
    /// cannot be read: a build must not silently drop files taken in.
    pub fn load(path: &Path, city: &str) -> Result<Self, IntakeError> {
        match std::fs::read(path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|source| IntakeError::Ledger {
                path: path.to_owned(),
                source,
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Self {
                city: city.to_owned(),
                ..Self::default()
            }),
            Err(source) => Err(IntakeError::Io {
                path: path.to_owned(),
                source,
            }),
        }
    }

    /// Writes the ledger through a rename.
    ///
    /// # Errors
    /// [`IntakeError::Io`].
    pub fn save(&self, path: &Path) -> Result<(), IntakeError> {
        let text = serde_json::to_string_pretty(self).map_err(|source| IntakeError::Ledger {
            path: path.to_owned(),
            source,
        })? + "\n";
        atomic::write(path, text.as_bytes()).map_err(|source| IntakeError::Io {
            path: path.to_owned(),
            source,
        })
    }

    /// The entry of a digest.
    #[must_use]
    pub fn find(&self, sha256: &str) -> Option<&LedgerEntry> {
        self.files.iter().find(|f| f.sha256 == sha256)
    }
}

/// The stored name of a file taken in: its digest, keeping a `.gz` ending so the
/// readers decompress it.
#[must_use]
pub fn stored_name(sha256: &str, original: &Path) -> String {
    if original.extension().is_some_and(|e| e == "gz") {
        format!("{sha256}.csv.gz")
    } else {
        format!("{sha256}.csv")
    }
}

/// Where a ledger entry's file lies.
#[must_use]
pub fn stored_path(city_dir: &Path, entry: &LedgerEntry) -> PathBuf {
    city_dir.join(FILES_DIR).join(&entry.stored)
}
