//! The input data directory: where it is, and whether its files are the exact
//! bytes `SHA256SUMS` names.

use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::progress;

/// Default data directory, relative to the project root.
pub const DEFAULT_DATA_DIR: &str = "../shared/data";

/// Environment variable that overrides the data directory.
pub const DATA_DIR_ENV: &str = "HEXRISK_DATA_DIR";

/// The data directory for tests and tools run from the workspace: `HEXRISK_DATA_DIR`
/// if set, else `../shared/data` beside the repository.
#[must_use]
pub fn workspace_data_dir() -> PathBuf {
    std::env::var_os(DATA_DIR_ENV).map_or_else(
        || {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("..")
                .join(DEFAULT_DATA_DIR)
        },
        PathBuf::from,
    )
}

/// A problem with the data directory.
#[derive(Debug, thiserror::Error)]
pub enum DataError {
    /// Reading a file failed.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// A line of `SHA256SUMS` is not `<64 hex digits>  <path>`.
    #[error("SHA256SUMS line {line} is malformed")]
    MalformedSums {
        /// 1-based line number.
        line: usize,
    },
}

/// One `SHA256SUMS` entry and what was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileCheck {
    /// Path relative to the data directory.
    pub path: String,
    /// Expected digest, lower-case hex.
    pub expected: String,
    /// Actual digest, `None` when the file is missing.
    pub actual: Option<String>,
}

impl FileCheck {
    /// Whether the file is present with the expected bytes.
    #[must_use]
    pub fn is_ok(&self) -> bool {
        self.actual.as_deref() == Some(self.expected.as_str())
    }
}

/// Parses `SHA256SUMS` text (`<digest>  <path>` or `<digest> *<path>` per line).
///
/// # Errors
/// [`DataError::MalformedSums`] for a line that does not fit.
pub fn parse_sums(text: &str) -> Result<Vec<(String, String)>, DataError> {
    let mut entries = Vec::new();
    for (number, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let malformed = || DataError::MalformedSums { line: number + 1 };
        let (digest, rest) = line.split_once(' ').ok_or_else(malformed)?;
        let path = rest.trim_start_matches([' ', '*']);
        if digest.len() != 64 || !digest.bytes().all(|b| b.is_ascii_hexdigit()) || path.is_empty() {
            return Err(malformed());
        }
        entries.push((digest.to_ascii_lowercase(), path.to_owned()));
    }
    Ok(entries)
}

fn io_error(path: &Path) -> impl FnOnce(io::Error) -> DataError + '_ {
    move |source| DataError::Io {
        path: path.to_owned(),
        source,
    }
}

/// SHA-256 of a file as lower-case hex, advancing `on_bytes` as it reads.
///
/// # Errors
/// [`DataError::Io`] when the file cannot be read.
pub fn sha256_file(path: &Path, mut on_bytes: impl FnMut(u64)) -> Result<String, DataError> {
    let mut reader = BufReader::new(File::open(path).map_err(io_error(path))?);
    let mut hasher = Sha256::new();
    let mut buffer = vec![0; 1 << 16];
    loop {
        let read = reader.read(&mut buffer).map_err(io_error(path))?;
        if read == 0 {
            break;
        }
        hasher.update(&buffer[..read]);
        on_bytes(read as u64);
    }
    Ok(hex::encode(hasher.finalize()))
}

/// Checks every file `SHA256SUMS` lists in `dir`, with a progress bar over bytes.
///
/// # Errors
/// [`DataError`] when `SHA256SUMS` is missing or malformed; missing data files
/// are reported in the result instead.
pub fn verify(dir: &Path) -> Result<Vec<FileCheck>, DataError> {
    let sums_path = dir.join("SHA256SUMS");
    let mut text = String::new();
    BufReader::new(File::open(&sums_path).map_err(io_error(&sums_path))?)
        .read_to_string(&mut text)
        .map_err(io_error(&sums_path))?;
    let entries = parse_sums(&text)?;
    let total: u64 = entries
        .iter()
        .filter_map(|(_, path)| dir.join(path).metadata().ok())
        .map(|meta| meta.len())
        .sum();
    let bar = progress::bytes_bar(total, "verifying");
    let mut checks = Vec::with_capacity(entries.len());
    for (expected, path) in entries {
        let full = dir.join(&path);
        let actual = if full.is_file() {
            Some(sha256_file(&full, |n| bar.inc(n))?)
        } else {
            None
        };
        checks.push(FileCheck {
            path,
            expected,
            actual,
        });
    }
    bar.finish_and_clear();
    Ok(checks)
}

#[cfg(test)]
mod tests;
