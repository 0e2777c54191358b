//! Files that are either wholly the old bytes or wholly the new: each is written to a
//! temporary file beside its destination, flushed to disk and renamed over it, so a
//! crash or a kill mid-build never leaves a half-written output. The folder is
//! flushed after the rename too, so that writes made in order (artifact, ledger,
//! manifest) reach the disk in that order even across a power loss.

use std::fs::File;
use std::io::Write;
use std::path::Path;

/// Writes `bytes` to `path` through a temporary file and a rename.
///
/// # Errors
/// I/O errors; on failure the destination keeps its old content (the temporary file
/// is removed).
pub fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let name = path
        .file_name()
        .map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned());
    let temporary = path.with_file_name(format!(".{name}.tmp-{}", std::process::id()));
    let written = (|| {
        // The one place that creates output files (clippy.toml sends the rest here).
        #[allow(clippy::disallowed_methods)]
        let mut file = File::create(&temporary)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&temporary, path)?;
        sync_folder(path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    written
}

/// Flushes the folder holding `path` (its new directory entry). Unix only: other
/// systems cannot open a folder as a file, and the rename alone has to do there.
fn sync_folder(path: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    if let Some(folder) = path.parent() {
        File::open(folder)?.sync_all()?;
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}

#[cfg(test)]
mod tests;
