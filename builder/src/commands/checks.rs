//! The commands that check inputs and outputs, with their arguments: the data's
//! checksums (`verify-data`), place search on OpenStreetMap's names (`place-check`),
//! and the native reference answers other builds are compared with
//! (`forecast-samples`, `route-samples`).

use std::path::{Path, PathBuf};

use hexrisk_engine::city::Atlas;

use crate::inputs::data;
use crate::references::{place_check, samples};

/// `forecast-samples`' arguments.
#[derive(Debug, clap::Args)]
pub struct ForecastSamplesArgs {
    /// Directory holding the artifacts and their manifest.
    #[arg(long, default_value = "build/artifacts")]
    pub artifacts: PathBuf,
    /// Samples per city.
    #[arg(long, default_value_t = 500)]
    pub per_city: usize,
    /// Random seed.
    #[arg(long, default_value_t = 2022)]
    pub seed: u64,
    /// Output file.
    #[arg(long, default_value = "build/forecast-samples.json")]
    pub out: PathBuf,
}

impl ForecastSamplesArgs {
    /// Runs `forecast-samples`.
    ///
    /// # Errors
    /// As [`write_samples`].
    pub fn run(&self) -> anyhow::Result<bool> {
        write_samples(&self.artifacts, &self.out, "reference forecasts", |atlas| {
            samples::reference_forecasts(atlas, self.per_city, self.seed)
        })
    }
}

/// `route-samples`' arguments.
#[derive(Debug, clap::Args)]
pub struct RouteSamplesArgs {
    /// Directory holding the artifacts and their manifest.
    #[arg(long, default_value = "build/artifacts")]
    pub artifacts: PathBuf,
    /// Requests per city.
    #[arg(long, default_value_t = 25)]
    pub per_city: usize,
    /// Random seed.
    #[arg(long, default_value_t = 2022)]
    pub seed: u64,
    /// Output file.
    #[arg(long, default_value = "build/route-samples.json")]
    pub out: PathBuf,
}

impl RouteSamplesArgs {
    /// Runs `route-samples`.
    ///
    /// # Errors
    /// As [`write_samples`].
    pub fn run(&self) -> anyhow::Result<bool> {
        write_samples(&self.artifacts, &self.out, "reference routes", |atlas| {
            samples::reference_routes(atlas, self.per_city, self.seed)
        })
    }
}

/// `place-check`'s arguments.
#[derive(Debug, clap::Args)]
pub struct PlaceCheckArgs {
    /// Directory holding the artifacts and their manifest.
    #[arg(long, default_value = "build/artifacts")]
    pub artifacts: PathBuf,
    /// The city searched.
    #[arg(long, default_value = "city_ca_tor")]
    pub city: String,
    /// The OpenStreetMap XML file, relative to the data directory.
    #[arg(long, default_value = "toronto/uoft_campus.osm")]
    pub osm: PathBuf,
    /// Output file.
    #[arg(long, default_value = "build/bench/place-check.json")]
    pub out: PathBuf,
}

impl PlaceCheckArgs {
    /// Runs `place-check`.
    ///
    /// # Errors
    /// As [`place_check`].
    pub fn run(&self) -> anyhow::Result<bool> {
        place_check(&self.artifacts, &self.city, &self.osm, &self.out)
    }
}

/// `hexrisk-build verify-data`: whether every input file has the bytes
/// `SHA256SUMS` names, with a line for each that has not.
///
/// # Errors
/// The data folder or its `SHA256SUMS` cannot be read.
pub fn verify(dir: &Path) -> anyhow::Result<bool> {
    let checks = data::verify(dir)?;
    let bad: Vec<_> = checks.iter().filter(|c| !c.is_ok()).collect();
    for check in &bad {
        let state = if check.actual.is_some() {
            "changed"
        } else {
            "missing"
        };
        eprintln!("{state}: {}", check.path);
    }
    println!(
        "{} of {} data files verified in {}",
        checks.len() - bad.len(),
        checks.len(),
        dir.display()
    );
    Ok(bad.is_empty())
}

/// `hexrisk-build place-check`: every intersection of an OpenStreetMap file's named
/// streets looked up in a city's place index, with the index's sizes, written to
/// `out` as JSON.
///
/// # Errors
/// No artifact of the city, an unreadable OpenStreetMap file or an unwritable `out`.
pub fn place_check(artifacts: &Path, city: &str, osm: &Path, out: &Path) -> anyhow::Result<bool> {
    let atlas = samples::load_atlas(artifacts)?;
    let model = atlas
        .city(city)
        .ok_or_else(|| anyhow::anyhow!("no artifact of {city} in {}", artifacts.display()))?;
    let osm = crate::roads::osm::read_xml(&data::workspace_data_dir().join(osm))?;
    let report = place_check::PlaceReport {
        check: place_check::check(&osm, model),
        sizes: place_check::Sizes::of(model.artifact())?,
        prefixes: place_check::three_letter_prefixes(model),
    };
    crate::atomic::write(out, &serde_json::to_vec_pretty(&report)?)?;
    let (check, sizes) = (&report.check, &report.sizes);
    println!(
        "{} of {} intersections found first within {} m ({:.1} %); of the {} whose names the network has, {}",
        check.found,
        check.intersections,
        place_check::FOUND_WITHIN_M,
        100.0 * check.share,
        check.with_both_names,
        check.found_with_both_names,
    );
    println!(
        "{city}: full file {} bytes, {} without its place index, {} without street names either; grid file {}; wrote {}",
        sizes.full,
        sizes.without_index,
        sizes.without_names_or_index,
        sizes.grid,
        out.display()
    );
    Ok(true)
}

/// Writes the reference samples `sample` draws from the artifacts in `artifacts` to
/// `out` as JSON, and says how many there are.
///
/// # Errors
/// The artifacts cannot be loaded or `out` cannot be written.
pub fn write_samples(
    artifacts: &Path,
    out: &Path,
    what: &str,
    sample: impl FnOnce(&Atlas) -> serde_json::Value,
) -> anyhow::Result<bool> {
    let json = sample(&samples::load_atlas(artifacts)?);
    crate::atomic::write(out, &serde_json::to_vec(&json)?)?;
    println!(
        "wrote {} {what} to {}",
        json.as_array().map_or(0, Vec::len),
        out.display()
    );
    Ok(true)
}
