//! The commands that check inputs and outputs: the data's checksums, place search on
//! OpenStreetMap's names, and the native reference answers other builds are compared
//! with.

use std::path::Path;

use hexrisk_engine::city::Atlas;

use crate::inputs::data;
use crate::references::{place_check, samples};

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
