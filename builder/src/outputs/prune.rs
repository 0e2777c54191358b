//! Pruning the artifacts folder: the artifact versions that none of the last N
//! published manifests names removed, and the manifests older than those N. The
//! current manifest is always kept, with every file it names. `hexrisk-build prune`
//! runs it (`commands/manifests.rs`).
//!
//! Publication order comes from `history.json`; a manifest in `manifests/` that
//! the history does not list (one staged by a refresh that stopped before
//! publishing) counts as older than every listed one.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use hexrisk_engine::artifact::{Manifest, ManifestCity};

use super::artifacts;
use super::history::History;

/// A prune that cannot go ahead.
#[derive(Debug, thiserror::Error)]
pub enum PruneError {
    /// `--keep 0` would drop the current manifest.
    #[error("keep at least one manifest")]
    KeepNone,
    /// Without a current manifest nothing is known to be in use.
    #[error("{0}: no usable manifest.json; nothing pruned")]
    NoManifest(PathBuf),
    /// Reading or removing failed.
    #[error("{path}: {source}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// `history.json` or a kept manifest cannot be read.
    #[error("{0:#}")]
    Read(anyhow::Error),
    /// Another build, refresh or prune is writing the folder.
    #[error(transparent)]
    Locked(#[from] super::lock::LockError),
}

/// What a prune removed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pruned {
    /// Manifests kept, newest last.
    pub kept_manifests: Vec<String>,
    /// Files removed, relative to the artifacts folder.
    pub removed: Vec<String>,
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> PruneError + '_ {
    move |source| PruneError::Io {
        path: path.to_owned(),
        source,
    }
}

fn list(dir: &Path) -> Result<Vec<PathBuf>, PruneError> {
    match std::fs::read_dir(dir) {
        Ok(entries) => {
            let mut paths: Vec<PathBuf> =
                entries.filter_map(Result::ok).map(|e| e.path()).collect();
            paths.sort();
            Ok(paths)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(io(dir)(e)),
    }
}

/// Removes what the last `keep` manifests do not need.
///
/// # Errors
/// [`PruneError`]; nothing is removed when the kept manifests cannot all be read.
pub fn prune(dir: &Path, keep: usize) -> Result<Pruned, PruneError> {
    if keep == 0 {
        return Err(PruneError::KeepNone);
    }
    let _lock = super::lock::exclusive(dir)?;
    let current =
        artifacts::current_manifest(dir).ok_or_else(|| PruneError::NoManifest(dir.to_owned()))?;
    let history = History::load(dir).map_err(PruneError::Read)?;
    let history_dir = dir.join(Manifest::HISTORY_DIR);
    let stored: Vec<String> = list(&history_dir)?
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .filter_map(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .collect();
    // Oldest first: unlisted ones, then the history's order; the current one last.
    let mut order: Vec<String> = stored
        .iter()
        .filter(|v| !history.manifests.contains(v))
        .cloned()
        .collect();
    order.extend(
        history
            .manifests
            .iter()
            .filter(|v| stored.contains(v))
            .cloned(),
    );
    order.retain(|v| v != &current.version);
    order.push(current.version.clone());
    let kept: Vec<String> = order[order.len().saturating_sub(keep)..].to_vec();

    let mut needed: BTreeSet<String> = current
        .cities
        .iter()
        .flat_map(ManifestCity::files)
        .map(str::to_owned)
        .collect();
    for version in &kept {
        let path = history_dir.join(format!("{version}.json"));
        if !path.exists() {
            continue;
        }
        let text = std::fs::read(&path).map_err(io(&path))?;
        let manifest: Manifest = serde_json::from_slice(&text)
            .map_err(|e| PruneError::Read(anyhow::anyhow!("{}: {e}", path.display())))?;
        needed.extend(
            manifest
                .cities
                .iter()
                .flat_map(ManifestCity::files)
                .map(str::to_owned),
        );
    }

    let mut removed = Vec::new();
    for version in stored.iter().filter(|v| !kept.contains(v)) {
        let path = history_dir.join(format!("{version}.json"));
        std::fs::remove_file(&path).map_err(io(&path))?;
        removed.push(format!("{}/{version}.json", Manifest::HISTORY_DIR));
    }
    for city_dir in list(dir)?.into_iter().filter(|p| p.is_dir()) {
        let Some(code) = city_dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
        else {
            continue;
        };
        for file in list(&city_dir)? {
            let Some(name) = file.file_name().map(|n| n.to_string_lossy().into_owned()) else {
                continue;
            };
            // Only finished artifacts: a temporary file may be another build's.
            if file.extension().is_none_or(|e| e != "hxrk") || name.starts_with('.') {
                continue;
            }
            let relative = format!("{code}/{name}");
            if !needed.contains(&relative) {
                std::fs::remove_file(&file).map_err(io(&file))?;
                removed.push(relative);
            }
        }
    }
    Ok(Pruned {
        kept_manifests: kept,
        removed,
    })
}
