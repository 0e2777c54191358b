//! `manifest.json`: the list of a build's artifacts, written by the builder and read
//! by the Worker, the npm tests and the benchmarks.

use alloc::string::String;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

/// The artifacts of one build. Members are declared in alphabetical order, the
/// order the file has always had.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// One entry per city.
    pub cities: Vec<ManifestCity>,
    /// The artifact format version ([`super::FORMAT_VERSION`]).
    pub format_version: u16,
    /// The model's version label.
    pub model_version: String,
}

/// One city's artifact.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ManifestCity {
    /// Size of the file in bytes.
    pub bytes: u64,
    /// City code, for example `city_ca_tor`.
    pub code: String,
    /// File name beside the manifest.
    pub file: String,
    /// Display name.
    pub name: String,
    /// SHA-256 of the file, lowercase hex.
    pub sha256: String,
}

impl Manifest {
    /// The name of the file in an artifacts folder.
    pub const FILE_NAME: &'static str = "manifest.json";
}
