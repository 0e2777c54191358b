//! The cities' models for tests: the shipped artifacts in `build/artifacts` (`make
//! test` builds them first; `HEXRISK_ARTIFACT_DIR` points elsewhere), built from the
//! data only when a city's artifact is missing, which is much slower in a test build.

use std::path::PathBuf;

use hexrisk_builder::inputs::config::CityConfig;
use hexrisk_builder::inputs::data;
use hexrisk_builder::pipeline;
use hexrisk_builder::references::samples;
use hexrisk_engine::city::CityModel;
use indicatif::ProgressBar;

/// The directory the shipped artifacts are read from.
pub(crate) fn artifact_dir() -> PathBuf {
    std::env::var_os("HEXRISK_ARTIFACT_DIR").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../build/artifacts"),
        PathBuf::from,
    )
}

/// A city's model from its shipped artifact, or built from the data when there is
/// none.
pub(crate) fn city_model(city: &CityConfig) -> CityModel {
    if let Ok(bytes) = std::fs::read(samples::current_file(&artifact_dir(), &city.code)) {
        return CityModel::from_bytes(&bytes).unwrap();
    }
    let build =
        pipeline::build_city(city, &data::workspace_data_dir(), &ProgressBar::hidden()).unwrap();
    CityModel::from_artifact(build.artifact)
}
