//! One writer at a time per artifacts folder: `build`, `refresh` and `prune` each hold
//! an exclusive lock on `<folder>/.lock` while they work, so that two refreshes of
//! different cities cannot each publish a manifest that drops the other's new
//! version, and `prune` cannot remove a version a running refresh has staged but not
//! yet published. The lock is the operating system's (released when the process
//! ends, even by a kill), so a crash never leaves the folder locked.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};

/// The lock file's name inside the folder (prune leaves dot files alone).
pub const LOCK_FILE: &str = ".lock";

/// Why a folder could not be locked.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Another process holds the lock.
    #[error(
        "{0}: another hexrisk-build (build, refresh or prune) is writing here; try again when it ends"
    )]
    Busy(PathBuf),
    /// The lock file cannot be opened or locked.
    #[error("{path}: cannot lock: {source}")]
    Io {
        /// The lock file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
}

/// An exclusive lock on a folder, held until dropped.
#[derive(Debug)]
pub struct FolderLock {
    _file: File,
}

/// Locks `dir` (created if missing) for this process, or fails at once when another
/// holds it.
///
/// # Errors
/// [`LockError::Busy`] while another process holds it, [`LockError::Io`] otherwise.
pub fn exclusive(dir: &Path) -> Result<FolderLock, LockError> {
    let path = dir.join(LOCK_FILE);
    let io = |source| LockError::Io {
        path: path.clone(),
        source,
    };
    std::fs::create_dir_all(dir).map_err(io)?;
    // A lock file, never written: nothing in it can be half-written.
    #[allow(clippy::disallowed_methods)]
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(io)?;
    match file.try_lock() {
        Ok(()) => Ok(FolderLock { _file: file }),
        Err(TryLockError::WouldBlock) => Err(LockError::Busy(dir.to_owned())),
        Err(TryLockError::Error(source)) => Err(io(source)),
    }
}

#[cfg(test)]
mod tests;
