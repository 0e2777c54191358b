//! The committed seeds of the `requests` fuzz target (`fuzz/seeds/requests`: one
//! valid body per operation) each get an answer, not an error, from the operation
//! the fuzz target runs them through, against the same San Francisco artifact; so
//! the fuzzer starts from requests that reach past the parsers (docs/HARDENING.md).

use std::path::{Path, PathBuf};

use hexrisk_builder::inputs::config;
use hexrisk_engine::city::Atlas;

use crate::support::city_models;

#[path = "../../../fuzz/operations/requests.rs"]
mod operations;

fn seed_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fuzz/seeds/requests")
}

fn san_francisco() -> Atlas {
    let configs = config::load_all(&config::default_config_dir()).unwrap();
    let city = configs.iter().find(|c| c.code == "city_us_sfo").unwrap();
    Atlas::new(vec![city_models::city_model(city)])
}

/// Every seed file in `dir` with what its operation answered, by file name.
fn run_seeds(atlas: &Atlas, dir: &Path) -> Vec<(String, u8, Result<(), String>)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .collect();
    files.sort();
    files
        .iter()
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let bytes = std::fs::read(path).unwrap();
            match operations::parse(&bytes) {
                Some((which, body)) => (
                    name,
                    which,
                    operations::run(atlas, which, &body).map_err(|e| format!("{e:?}")),
                ),
                None => (
                    name,
                    bytes.first().copied().unwrap_or(0),
                    Err("not an operation byte and a JSON object".to_owned()),
                ),
            }
        })
        .collect()
}

#[test]
fn every_requests_seed_is_answered_and_every_operation_has_one() {
    let results = run_seeds(&san_francisco(), &seed_dir());
    let refused: Vec<String> = results
        .iter()
        .filter_map(|(name, which, result)| {
            result
                .as_ref()
                .err()
                .map(|e| format!("{name} (operation {which}): {e}"))
        })
        .collect();
    assert!(refused.is_empty(), "seeds refused: {refused:#?}");
    let mut covered: Vec<u8> = results.iter().map(|(_, which, _)| *which).collect();
    covered.sort_unstable();
    covered.dedup();
    assert_eq!(
        covered,
        (0..operations::OPERATIONS).collect::<Vec<u8>>(),
        "one seed per operation"
    );
}
