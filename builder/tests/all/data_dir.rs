//! The real input data directory checks out against its `SHA256SUMS`.
//!
//! Reads `HEXRISK_DATA_DIR`, or `../shared/data` beside the repository.

use std::path::PathBuf;

use hexrisk_builder::inputs::data;

fn data_dir() -> PathBuf {
    data::workspace_data_dir()
}

#[test]
fn every_listed_input_file_has_its_published_bytes() {
    let dir = data_dir();
    let checks = data::verify(&dir)
        .unwrap_or_else(|err| panic!("data directory {} unusable: {err}", dir.display()));
    assert!(
        checks.len() >= 10,
        "SHA256SUMS lists {} files",
        checks.len()
    );
    let bad: Vec<&str> = checks
        .iter()
        .filter(|c| !c.is_ok())
        .map(|c| c.path.as_str())
        .collect();
    assert!(bad.is_empty(), "files missing or changed: {bad:?}");
}
