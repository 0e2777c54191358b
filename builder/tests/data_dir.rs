//! The real input data directory checks out against its `SHA256SUMS`.
//!
//! Reads `HEXRISK_DATA_DIR`, or `../shared/data` beside the repository.

use std::path::PathBuf;

use hexrisk_builder::data;

fn data_dir() -> PathBuf {
    std::env::var_os(data::DATA_DIR_ENV).map_or_else(
        || {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../")
                .join(data::DEFAULT_DATA_DIR)
        },
        PathBuf::from,
    )
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
