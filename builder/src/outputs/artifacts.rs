//! Artifact files and their manifest: each city's versioned artifact (and its grid
//! file) written beside the old ones, then the manifest that makes them current.

use std::path::Path;

use hexrisk_engine::artifact::{self, CityArtifact, Manifest, ManifestCity};
use sha2::{Digest, Sha256};

use crate::atomic;
use crate::fit::city_build::{self, CityBuild};

/// The manifest entry of an encoded artifact.
#[must_use]
pub fn manifest_entry(artifact: &CityArtifact, bytes: &[u8]) -> ManifestCity {
    ManifestCity::describe(
        artifact,
        bytes.len() as u64,
        hex::encode(Sha256::digest(bytes)),
    )
}

/// A manifest over `cities`, labelled from their versions.
#[must_use]
pub fn manifest_of(cities: Vec<ManifestCity>) -> Manifest {
    let digest = hex::encode(Sha256::digest(Manifest::label_input(&cities)));
    Manifest::over(cities, city_build::MODEL_VERSION, &digest)
}

/// The current manifest of an artifacts folder, if it has a usable one.
#[must_use]
pub fn current_manifest(dir: &Path) -> Option<Manifest> {
    let text = std::fs::read(dir.join(Manifest::FILE_NAME)).ok()?;
    serde_json::from_slice::<Manifest>(&text)
        .ok()
        .filter(|m| m.validate().is_ok())
}

/// The entries of the current manifest that a new one keeps: all of them when it is
/// usable, none when there is none, and none when it is of another format (or
/// fails validation) but every city it names is being rebuilt.
///
/// # Errors
/// A manifest that cannot be read or parsed, or one that cannot be used while some
/// of its cities are not rebuilt: dropping them silently would unpublish them.
fn carried_over(dir: &Path, builds: &[CityBuild]) -> anyhow::Result<Vec<ManifestCity>> {
    let path = dir.join(Manifest::FILE_NAME);
    let text = match std::fs::read(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(anyhow::anyhow!("cannot read {}: {e}", path.display())),
    };
    let manifest: Manifest = serde_json::from_slice(&text).map_err(|e| {
        anyhow::anyhow!(
            "{} is not a manifest ({e}); move it away to start a new one",
            path.display()
        )
    })?;
    match manifest.validate() {
        Ok(()) => Ok(manifest.cities),
        Err(_)
            if manifest
                .cities
                .iter()
                .all(|c| builds.iter().any(|b| b.artifact.city.code == c.code)) =>
        {
            Ok(Vec::new())
        }
        Err(e) => Err(anyhow::anyhow!(
            "{} cannot be used ({e}) and names cities not being rebuilt; rebuild them all \
             (hexrisk-build build) or move it away",
            path.display()
        )),
    }
}

/// A new version whose files are written but which is not yet current.
#[derive(Debug, Clone)]
pub struct Staged {
    /// The manifest that [`publish`] makes current.
    pub manifest: Manifest,
    text: String,
}

/// Writes `bytes` to `path` through a rename, unless the file holds them already:
/// artifact files are immutable.
fn write_unless_unchanged(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    if !std::fs::read(path).is_ok_and(|old| old == bytes) {
        atomic::write(path, bytes)?;
    }
    Ok(())
}

/// The first half of writing a version: each city's artifact as
/// `<code>/<version>.hxrk`, with its grid file `<code>/<version>.grid.hxrk` (the
/// same version without the road network, for maps that draw before they route)
/// when it has a network (files are immutable; an existing one is not rewritten)
/// and the manifest, which keeps the current entries of the cities not built, as
/// `manifests/<version>.json`. Nothing a reader follows changes yet.
///
/// # Errors
/// I/O errors, or an artifact that cannot be encoded.
pub fn stage_artifacts(dir: &Path, builds: &[CityBuild]) -> anyhow::Result<Staged> {
    let mut cities = carried_over(dir, builds)?;
    for build in builds {
        let bytes = artifact::encode(&build.artifact)?;
        let mut entry = ManifestCity {
            attribution: build.attribution.clone(),
            ..manifest_entry(&build.artifact, &bytes)
        };
        write_unless_unchanged(&dir.join(&entry.file), &bytes)?;
        if build.artifact.road_graph.is_some() {
            let grid = artifact::encode(&CityArtifact {
                road_graph: None,
                street_shares: None,
                places: None,
                ..build.artifact.clone()
            })?;
            entry = entry.with_grid(grid.len() as u64, hex::encode(Sha256::digest(&grid)));
            if let Some(file) = &entry.grid {
                write_unless_unchanged(&dir.join(&file.file), &grid)?;
            }
        }
        cities.retain(|c| c.code != entry.code);
        cities.push(entry);
    }
    let manifest = manifest_of(cities);
    let text = stage_manifest(dir, &manifest)?;
    Ok(Staged { manifest, text })
}

/// Writes `manifest` as `manifests/<version>.json` (nothing a reader follows);
/// returns its text.
fn stage_manifest(dir: &Path, manifest: &Manifest) -> anyhow::Result<String> {
    let text = serde_json::to_string_pretty(manifest)? + "\n";
    atomic::write(
        &dir.join(Manifest::HISTORY_DIR)
            .join(format!("{}.json", manifest.version)),
        text.as_bytes(),
    )?;
    Ok(text)
}

/// Makes `manifest` current: its copy under `manifests/` first, then
/// `manifest.json`, each through a rename.
///
/// # Errors
/// I/O errors.
pub fn write_manifest(dir: &Path, manifest: &Manifest) -> anyhow::Result<()> {
    let text = stage_manifest(dir, manifest)?;
    atomic::write(&dir.join(Manifest::FILE_NAME), text.as_bytes())?;
    Ok(())
}

/// The second half: `manifest.json` written last, through a rename, which makes
/// the staged version current.
///
/// # Errors
/// I/O errors.
pub fn publish(dir: &Path, staged: &Staged) -> anyhow::Result<Manifest> {
    atomic::write(&dir.join(Manifest::FILE_NAME), staged.text.as_bytes())?;
    Ok(staged.manifest.clone())
}

/// Publishes the current manifest again with city `code`'s freshness record set
/// to `freshness` (a new label, so the Worker takes it up), unless it holds that
/// record already. Returns the new manifest, or `None` when nothing changed or
/// the manifest does not name the city.
///
/// # Errors
/// A manifest that cannot be read, or I/O errors.
pub fn publish_freshness(
    dir: &Path,
    code: &str,
    freshness: Option<artifact::Freshness>,
) -> anyhow::Result<Option<Manifest>> {
    let Some(current) = current_manifest(dir) else {
        return Ok(None);
    };
    let mut cities = current.cities;
    let Some(entry) = cities.iter_mut().find(|c| c.code == code) else {
        return Ok(None);
    };
    if entry.freshness == freshness {
        return Ok(None);
    }
    entry.freshness = freshness;
    let manifest = manifest_of(cities);
    write_manifest(dir, &manifest)?;
    Ok(Some(manifest))
}

/// One manifest from several: `base` (the one published) with each city of
/// `updates` (manifests that jobs building cities side by side wrote) replacing
/// its entry, in the order given (a later update wins). The label follows from
/// the result.
///
/// # Errors
/// An update of another artifact format than the base.
pub fn merge(base: Manifest, updates: &[Manifest]) -> anyhow::Result<Manifest> {
    let mut cities = base.cities;
    for update in updates {
        anyhow::ensure!(
            update.format_version == base.format_version,
            "manifest {} is for artifact format {}, the published one for {}",
            update.version,
            update.format_version,
            base.format_version
        );
        for entry in &update.cities {
            cities.retain(|c| c.code != entry.code);
            cities.push(entry.clone());
        }
    }
    Ok(manifest_of(cities))
}

/// Writes one new version: [`stage_artifacts`] then [`publish`]. Every file is
/// written through a rename, and the manifest last, so a build stopped at any point
/// leaves the previous version whole and current. Older versions stay until pruned.
/// Returns the new manifest.
///
/// # Errors
/// I/O errors, or an artifact that cannot be encoded.
pub fn write_artifacts(dir: &Path, builds: &[CityBuild]) -> anyhow::Result<Manifest> {
    publish(dir, &stage_artifacts(dir, builds)?)
}

#[cfg(test)]
mod tests;
