//! `manifest.json`: which artifact version of each city is current. The builder
//! writes it, the Worker rereads it from its bucket to swap versions while serving,
//! and the npm tests and benchmarks read it to find the files.
//!
//! Artifact files are immutable and named by what they hold: `<code>/<version>.hxrk`
//! where the version is `<data-through date>.<first 12 hex digits of the file's
//! SHA-256>`. Beside it, `<code>/<version>.grid.hxrk` holds the same model without the
//! road network (see [`GridFile`]). Publishing a version uploads its files first and the manifest last, so
//! a reader that follows the manifest always finds complete files; rolling back is
//! writing an older manifest again.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write as _;

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use super::{Bounds, CityArtifact, FORMAT_VERSION};

/// Hex digits of the SHA-256 kept in a version label.
pub const VERSION_HASH_DIGITS: usize = 12;

/// The artifacts of one publication. Members are declared in alphabetical order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// One entry per city, by code.
    pub cities: Vec<ManifestCity>,
    /// The artifact format version ([`super::FORMAT_VERSION`]).
    pub format_version: u16,
    /// The model's version label (the method, not the data).
    pub model_version: String,
    /// Label of this publication: the newest data-through date and a hash of the
    /// cities' versions (see [`Manifest::label`]).
    pub version: String,
}

/// One city's current artifact.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ManifestCity {
    /// A box holding every grid cell whole, so a point can be matched to the
    /// cities that may cover it without decoding any artifact.
    pub bounds: Bounds,
    /// Size of the file in bytes.
    pub bytes: u64,
    /// Grid cells of the city.
    pub cells: u64,
    /// City code, for example `city_ca_tor`.
    pub code: String,
    /// The last date of the data the model was fitted on.
    pub data_through: NaiveDate,
    /// Path of the file relative to the manifest: `<code>/<version>.hxrk`.
    pub file: String,
    /// Display name.
    pub name: String,
    /// Precincts of the city.
    pub precincts: u64,
    /// SHA-256 of the file, lowercase hex.
    pub sha256: String,
    /// The artifact's version label, `<data_through>.<sha256 prefix>`.
    pub version: String,
    /// The same version without its road network, if the build wrote one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grid: Option<GridFile>,
    /// Who publishes the city's incident data, as maps credit it (the city
    /// configuration's `attribution`); none when the configuration names none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attribution: Option<String>,
    /// How the city's feeds stand, for a city fed from open-data services
    /// (`hexrisk-build update` writes it); none for a city built from files only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub freshness: Option<Freshness>,
}

/// How a fed city's data stands: when its feeds last synced, how old its data may
/// grow before health calls it stale, and which feeds fail. Members are declared
/// in alphabetical order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Freshness {
    /// Feeds whose reconciliation repaired rows in any of their recent syncs:
    /// their service published revisions their change marks did not announce.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub diverging: Vec<DivergingFeed>,
    /// Feeds whose last sync failed, by source name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failing: Vec<FailingFeed>,
    /// When every feed of the city had last synced successfully (the oldest of
    /// their last successes, RFC 3339 UTC); none before each has once.
    pub last_sync: Option<String>,
    /// The most days `data_through` may lie behind the present before the city is
    /// stale: the feeds' usual lag plus their allowance (the strictest feed's).
    pub stale_after_days: u32,
    /// Offence values the feeds serve that their mappings do not name, most rows
    /// first (at most [`MAX_UNMAPPED_LISTED`] a source): rows the build counts and
    /// does not use.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unmapped: Vec<UnmappedOffence>,
}

/// The most unmapped offence values [`Freshness::unmapped`] lists for one source:
/// a feed whose vocabulary changed wholesale would otherwise grow the manifest
/// every isolate rereads.
pub const MAX_UNMAPPED_LISTED: usize = 20;

/// An offence value a feed serves that its mapping does not name. Members are
/// declared in alphabetical order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnmappedOffence {
    /// Rows the feed serves with it.
    pub rows: u64,
    /// The source (`[sources.<name>]` of the city's configuration).
    pub source: String,
    /// The value, as published.
    pub value: String,
}

/// A feed whose service diverged from its store between syncs: rows whose change
/// mark the store did not hold, found and fetched again by the reconciliation.
/// Members are declared in alphabetical order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DivergingFeed {
    /// Rows the last sync's reconciliation repaired.
    pub last_sync: u64,
    /// Rows repaired over the recent syncs.
    pub repaired: u64,
    /// The source (`[sources.<name>]` of the city's configuration).
    pub source: String,
    /// Recent syncs looked at (at most eight).
    pub syncs: u32,
    /// How many of them repaired any row.
    pub syncs_repairing: u32,
}

/// A feed whose last sync failed. Members are declared in alphabetical order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailingFeed {
    /// What went wrong, naming the source.
    pub error: String,
    /// When it began to fail (the first failed sync since its last success).
    pub since: String,
    /// The source (`[sources.<name>]` of the city's configuration).
    pub source: String,
}

/// An artifact of a city's version without the road network: the grid, forecasts,
/// time-of-day profiles and precincts, every score and colour the full file gives,
/// but no routing. A third to a tenth of the full file, it lets a map draw its first
/// grid before it has fetched the network (the map app fetches the full file next).
/// Its name follows from the full file's version: `<code>/<version>.grid.hxrk`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GridFile {
    /// Size of the file in bytes.
    pub bytes: u64,
    /// Path of the file relative to the manifest.
    pub file: String,
    /// SHA-256 of the file, lowercase hex.
    pub sha256: String,
}

/// Why a manifest cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ManifestError {
    /// Written for another artifact format.
    #[error("manifest is for artifact format {found}, this engine reads {expected}")]
    WrongFormat {
        /// Format in the manifest.
        found: u16,
        /// Format this engine reads.
        expected: u16,
    },
    /// No city at all.
    #[error("manifest lists no city")]
    Empty,
    /// A city code appears twice.
    #[error("manifest lists {0} twice")]
    DuplicateCity(String),
    /// An entry's digest is not 64 lowercase hex digits.
    #[error("{0}: sha256 is not 64 lowercase hex digits")]
    BadDigest(String),
    /// An entry's version, file or grid file does not follow from its date and digest.
    #[error("{code}: expected version {expected} in file {file}")]
    BadName {
        /// The city.
        code: String,
        /// The version its date and digest give.
        expected: String,
        /// The file name that version gives.
        file: String,
    },
}

impl ManifestCity {
    /// The entry of an encoded artifact of `bytes` bytes whose SHA-256 is `sha256`
    /// (lowercase hex; the caller hashes, this crate has no hash function).
    #[must_use]
    pub fn describe(artifact: &CityArtifact, bytes: u64, sha256: String) -> Self {
        let data_through = artifact.model.last_updated;
        let version = Self::version_label(data_through, &sha256);
        Self {
            bounds: cell_bounds(&artifact.cells),
            bytes,
            cells: artifact.cells.len() as u64,
            code: artifact.city.code.clone(),
            data_through,
            file: Self::file_name(&artifact.city.code, &version),
            name: artifact.city.name.clone(),
            precincts: artifact.precincts.len() as u64,
            sha256,
            version,
            grid: None,
            attribution: None,
            freshness: None,
        }
    }

    /// The entry with `grid` (of `bytes` bytes and SHA-256 `sha256`) as its file
    /// without the road network.
    #[must_use]
    pub fn with_grid(mut self, bytes: u64, sha256: String) -> Self {
        self.grid = Some(GridFile {
            bytes,
            file: Self::grid_file_name(&self.code, &self.version),
            sha256,
        });
        self
    }

    /// The files of the entry, relative to the manifest: the artifact, then the
    /// grid file if there is one.
    pub fn files(&self) -> impl Iterator<Item = &str> {
        core::iter::once(self.file.as_str()).chain(self.grid.as_ref().map(|g| g.file.as_str()))
    }

    /// The version label of an artifact with this data-through date and digest.
    #[must_use]
    pub fn version_label(data_through: NaiveDate, sha256: &str) -> String {
        let digits = sha256.get(..VERSION_HASH_DIGITS).unwrap_or(sha256);
        format!("{data_through}.{digits}")
    }

    /// The file of a city's artifact version, relative to the manifest.
    #[must_use]
    pub fn file_name(code: &str, version: &str) -> String {
        format!("{code}/{version}.hxrk")
    }

    /// The file of a city's artifact version without its road network.
    #[must_use]
    pub fn grid_file_name(code: &str, version: &str) -> String {
        format!("{code}/{version}.grid.hxrk")
    }

    /// Whether `bytes` could be this entry's file: the same length (the digest is
    /// checked by the reader, which has a hash function).
    #[must_use]
    pub fn has_length(&self, bytes: &[u8]) -> bool {
        bytes.len() as u64 == self.bytes
    }

    /// Whether the point lies in the entry's bounds widened by `margin_deg`.
    #[must_use]
    pub fn may_cover(&self, latitude: f64, longitude: f64, margin_deg: f64) -> bool {
        let b = &self.bounds;
        latitude >= b.south - margin_deg
            && latitude <= b.north + margin_deg
            && longitude >= b.west - margin_deg
            && longitude <= b.east + margin_deg
    }

    fn check(&self) -> Result<(), ManifestError> {
        let digest_ok = |sha256: &str| {
            sha256.len() == 64
                && sha256
                    .bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        };
        if !digest_ok(&self.sha256) || !self.grid.as_ref().is_none_or(|g| digest_ok(&g.sha256)) {
            return Err(ManifestError::BadDigest(self.code.clone()));
        }
        let expected = Self::version_label(self.data_through, &self.sha256);
        let file = Self::file_name(&self.code, &expected);
        if self.version != expected || self.file != file {
            return Err(ManifestError::BadName {
                code: self.code.clone(),
                expected,
                file,
            });
        }
        let grid_file = Self::grid_file_name(&self.code, &expected);
        if self.grid.as_ref().is_some_and(|g| g.file != grid_file) {
            // The message names the grid file the version gives.
            return Err(ManifestError::BadName {
                code: self.code.clone(),
                expected,
                file: grid_file,
            });
        }
        Ok(())
    }
}

/// The box holding every cell of `cells` whole (their boundaries, not their
/// centres), so a point inside any cell lies inside it.
#[must_use]
pub fn cell_bounds(cells: &[u64]) -> Bounds {
    let mut bounds = Bounds {
        north: f64::NEG_INFINITY,
        south: f64::INFINITY,
        east: f64::NEG_INFINITY,
        west: f64::INFINITY,
    };
    for cell in cells
        .iter()
        .filter_map(|&c| h3o::CellIndex::try_from(c).ok())
    {
        for vertex in cell.boundary().iter() {
            bounds.north = bounds.north.max(vertex.lat());
            bounds.south = bounds.south.min(vertex.lat());
            bounds.east = bounds.east.max(vertex.lng());
            bounds.west = bounds.west.min(vertex.lng());
        }
    }
    bounds
}

impl Manifest {
    /// A manifest over `cities` (sorted here by code), labelled with `digest`, the
    /// caller's SHA-256 of [`Manifest::label_input`] of the same cities.
    #[must_use]
    pub fn over(mut cities: Vec<ManifestCity>, model_version: &str, digest: &str) -> Self {
        crate::sorting::sort_by(&mut cities, |a, b| a.code.cmp(&b.code));
        Self {
            version: Self::label(&cities, digest),
            cities,
            format_version: FORMAT_VERSION,
            model_version: model_version.into(),
        }
    }

    /// The name of the current manifest in an artifacts folder or bucket.
    pub const FILE_NAME: &'static str = "manifest.json";

    /// Folder of every published manifest, `<version>.json`, kept for rollback.
    pub const HISTORY_DIR: &'static str = "manifests";

    /// The entry of a city.
    #[must_use]
    pub fn city(&self, code: &str) -> Option<&ManifestCity> {
        self.cities.iter().find(|c| c.code == code)
    }

    /// Checks what can be checked without the files: the format, one entry per
    /// city, and names that follow from each entry's date and digest.
    ///
    /// # Errors
    /// The first [`ManifestError`] found.
    pub fn validate(&self) -> Result<(), ManifestError> {
        if self.format_version != FORMAT_VERSION {
            return Err(ManifestError::WrongFormat {
                found: self.format_version,
                expected: FORMAT_VERSION,
            });
        }
        if self.cities.is_empty() {
            return Err(ManifestError::Empty);
        }
        for (i, city) in self.cities.iter().enumerate() {
            if self.cities[..i].iter().any(|c| c.code == city.code) {
                return Err(ManifestError::DuplicateCity(city.code.clone()));
            }
            city.check()?;
        }
        Ok(())
    }

    /// The publication label of a set of cities: the newest data-through date and
    /// the first digits of `digest`, a hash the caller computes over
    /// [`Manifest::label_input`].
    #[must_use]
    pub fn label(cities: &[ManifestCity], digest: &str) -> String {
        let newest = cities.iter().map(|c| c.data_through).max();
        let digits = digest.get(..VERSION_HASH_DIGITS).unwrap_or(digest);
        match newest {
            Some(date) => format!("{date}.{digits}"),
            None => format!("empty.{digits}"),
        }
    }

    /// What the publication label hashes: one `<code>=<version>` line per city, in
    /// code order, with the city's freshness record and publisher where it has
    /// them, so the label changes exactly when some city's version, feed state or
    /// credit does (the Worker takes a manifest up when its label changes).
    #[must_use]
    pub fn label_input(cities: &[ManifestCity]) -> String {
        let mut lines: Vec<String> = cities
            .iter()
            .map(|c| {
                let mut line = format!("{}={}", c.code, c.version);
                if let Some(f) = &c.freshness {
                    // Writing to a String cannot fail.
                    let _ = write!(
                        line,
                        " synced={} stale_after={}",
                        f.last_sync.as_deref().unwrap_or("never"),
                        f.stale_after_days
                    );
                    for feed in &f.failing {
                        let _ = write!(line, " {}@{}:{}", feed.source, feed.since, feed.error);
                    }
                    for feed in &f.diverging {
                        let _ = write!(
                            line,
                            " {}~{}/{}:{}/{}",
                            feed.source,
                            feed.last_sync,
                            feed.repaired,
                            feed.syncs_repairing,
                            feed.syncs
                        );
                    }
                    for value in &f.unmapped {
                        let _ = write!(line, " {}?{}={}", value.source, value.value, value.rows);
                    }
                }
                if let Some(publisher) = &c.attribution {
                    let _ = write!(line, " attribution={publisher}");
                }
                line.push('\n');
                line
            })
            .collect();
        crate::sorting::sort(&mut lines);
        lines.concat()
    }
}

#[cfg(test)]
mod tests;
