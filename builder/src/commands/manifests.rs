//! `hexrisk-build merge-manifests` and `prune`, the commands over the published
//! manifests: their arguments, the manifests of side-by-side jobs merged into one
//! publication, and the versions none of the last N manifests names removed
//! (`outputs/prune.rs`), with a line for what each did.

use std::path::{Path, PathBuf};

use crate::outputs::prune;

/// `merge-manifests`' arguments.
#[derive(Debug, clap::Args)]
pub struct MergeManifestsArgs {
    /// The manifest published now.
    #[arg(long)]
    pub base: PathBuf,
    /// Where the merged `manifest.json` goes.
    #[arg(long, default_value = "build/artifacts")]
    pub out: PathBuf,
    /// The jobs' manifests; a later one wins for a city in several.
    #[arg(required = true)]
    pub updates: Vec<PathBuf>,
}

impl MergeManifestsArgs {
    /// Runs `merge-manifests`.
    ///
    /// # Errors
    /// As [`merge_manifests`].
    pub fn run(&self) -> anyhow::Result<bool> {
        merge_manifests(&self.base, &self.updates, &self.out)
    }
}

/// `hexrisk-build merge-manifests`: the published manifest `base` with the
/// cities of `updates` (manifests written by jobs that updated cities side by
/// side) written as `<out>/manifest.json` and `<out>/manifests/<version>.json`,
/// for `scripts/publish.sh --partial` to publish once.
///
/// # Errors
/// A manifest that cannot be read or parsed, one of another format, or a write
/// that fails.
pub fn merge_manifests(base: &Path, updates: &[PathBuf], out: &Path) -> anyhow::Result<bool> {
    let read = |path: &Path| -> anyhow::Result<hexrisk_engine::artifact::Manifest> {
        let text = std::fs::read(path)
            .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
        let manifest: hexrisk_engine::artifact::Manifest = serde_json::from_slice(&text)
            .map_err(|e| anyhow::anyhow!("{} is not a manifest: {e}", path.display()))?;
        manifest
            .validate()
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        Ok(manifest)
    };
    let updates = updates
        .iter()
        .map(|p| read(p))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let merged = crate::outputs::artifacts::merge(read(base)?, &updates)?;
    crate::outputs::artifacts::write_manifest(out, &merged)?;
    println!(
        "manifest {} of {} cities written to {}",
        merged.version,
        merged.cities.len(),
        out.display()
    );
    Ok(true)
}

/// `prune`'s arguments.
#[derive(Debug, clap::Args)]
pub struct PruneArgs {
    /// The artifacts folder.
    #[arg(long, default_value = "build/artifacts")]
    pub out: PathBuf,
    /// Manifests to keep, the current one included.
    #[arg(long)]
    pub keep: usize,
}

impl PruneArgs {
    /// Runs `prune`.
    ///
    /// # Errors
    /// As [`prune_versions`].
    pub fn run(&self) -> anyhow::Result<bool> {
        prune_versions(&self.out, self.keep)
    }
}

/// `hexrisk-build prune`: the versions none of the last `keep` manifests names
/// removed from `out`, with a line for each removed file.
///
/// # Errors
/// As [`prune::prune`].
pub fn prune_versions(out: &Path, keep: usize) -> anyhow::Result<bool> {
    let pruned = prune::prune(out, keep)?;
    for file in &pruned.removed {
        println!("removed {}/{file}", out.display());
    }
    println!(
        "kept manifests {}; removed {} files",
        pruned.kept_manifests.join(", "),
        pruned.removed.len()
    );
    Ok(true)
}
