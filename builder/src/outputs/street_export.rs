//! The street-level export `build/backtest/streets_<code>.csv.gz`, from which, with
//! the weekly export's `e_*` columns, every street-level figure of the model card
//! recomputes (the shares of each refit origin follow from the counts before it
//! and the group's `k`).
//!
//! One CSV of tagged records, columns `record,group,week_start,way,cell,value`:
//! - `way`: an assigned way (`way` its index in the artifact's road graph, `cell`
//!   its H3 cell, `value` its length in metres);
//! - `k`: a group's chosen shrinkage (`value`);
//! - `count`: a group's attributed incidents on a way in a week (`value`, a sum of
//!   fractions of incidents), for every modelled week, non-zero counts only.
//!
//! With it, the street hour profiles' figures recompute from two more files:
//! `street_hours_<code>_pieces.csv.gz`, each group's incidents with an hour piece
//! by piece on their ways, and `street_hours_<code>_profiles.csv.gz`, the cell
//! profiles (and their city-wide profiles) learnt before the validation weeks and
//! before each refit origin.

use std::path::Path;

use flate2::write::GzEncoder;

use crate::atomic;
use crate::fit::city_build::CityBuild;
use crate::outputs::backtest_export::{
    EXPORT_COMPRESSION, cell_rows, cell_share_header, city_rows, write_gz_csv,
};

/// The export's header.
pub const HEADER: [&str; 6] = ["record", "group", "week_start", "way", "cell", "value"];

/// Up to six decimals, without trailing zeros (`1`, `0.5`, `0.333333`).
fn decimal(value: f64) -> String {
    let text = format!("{value:.6}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" {
        "0".to_owned()
    } else {
        text.to_owned()
    }
}

/// Writes `streets_<code>.csv.gz` when the city has a street-level backtest.
///
/// # Errors
/// I/O errors.
pub fn write_streets_csv(dir: &Path, build: &CityBuild) -> anyhow::Result<()> {
    let Some(streets) = &build.streets else {
        return Ok(());
    };
    let path = dir.join(format!("streets_{}.csv.gz", build.artifact.city.code));
    let gzip = GzEncoder::new(Vec::new(), EXPORT_COMPRESSION);
    let mut out = csv::Writer::from_writer(gzip);
    out.write_record(HEADER)?;
    for (way, cell) in streets.network.assigned() {
        let h3 = build
            .artifact
            .cells
            .get(cell)
            .and_then(|&c| h3o::CellIndex::try_from(c).ok())
            .map(|c| c.to_string())
            .unwrap_or_default();
        out.write_record([
            "way",
            "",
            "",
            &way.to_string(),
            &h3,
            &format!("{:.3}", streets.network.way_length_m[way]),
        ])?;
    }
    for group in &streets.groups {
        let code = group.group.code();
        out.write_record(["k", code, "", "", "", &decimal(group.shrinkage.k)])?;
    }
    let (first_week, weeks) = build.data_weeks;
    for group in &streets.groups {
        let code = group.group.code();
        for (week, counts) in group.counts.weeks.iter().enumerate().take(weeks) {
            let monday = (first_week + chrono::Days::new(7 * week as u64)).to_string();
            for &(way, n) in counts {
                out.write_record(["count", code, &monday, &way.to_string(), "", &decimal(n)])?;
            }
        }
    }
    let bytes = out.into_inner()?.finish()?;
    atomic::write(&path, &bytes)?;
    Ok(())
}

/// Writes `street_hours_<code>_pieces.csv.gz` (columns `group,way,class,date_week,
/// band_day,band_start_hour,fraction,hour_weight`: `date_week` the Monday of the
/// incident's date's week, which decides what profiles learn from; `band_day` the
/// band day, whose week decides where it is observed; either empty outside the
/// modelled weeks) and `street_hours_<code>_profiles.csv.gz` (the `bands_*`
/// profile columns after `fitted_before`, the Monday of the first week not learnt
/// from; the city-wide profile's rows have no cell) when the city has street hour
/// profiles.
///
/// # Errors
/// I/O errors.
pub fn write_street_hours_csvs(dir: &Path, build: &CityBuild) -> anyhow::Result<()> {
    let Some(hours) = &build.street_hours else {
        return Ok(());
    };
    let code = &build.artifact.city.code;
    let monday = |week: usize| build.data_weeks.0 + chrono::Days::new(7 * week as u64);
    let header = [
        "group",
        "way",
        "class",
        "date_week",
        "band_day",
        "band_start_hour",
        "fraction",
        "hour_weight",
    ]
    .map(str::to_owned);
    let bands = hours.bands;
    write_gz_csv(
        &dir.join(format!("street_hours_{code}_pieces.csv.gz")),
        &header,
        &mut hours.groups.iter().flat_map(|group| {
            group.pieces.iter().map(move |piece| {
                let band = bands.band(usize::from(piece.band));
                let start = (u32::from(bands.day_start_hour)
                    + u32::from(band.position) * u32::from(bands.band_hours))
                    % 24;
                vec![
                    group.group.code().to_owned(),
                    piece.way.to_string(),
                    hexrisk_engine::forecast::CRIME_CLASSES[usize::from(piece.class)]
                        .code()
                        .to_owned(),
                    piece
                        .date_week
                        .map(|w| monday(w).to_string())
                        .unwrap_or_default(),
                    piece
                        .band_week
                        .map(|w| {
                            (monday(w) + chrono::Days::new(u64::from(piece.weekday))).to_string()
                        })
                        .unwrap_or_default(),
                    start.to_string(),
                    decimal(piece.fraction),
                    format!("{:.6}", piece.hour_weight),
                ]
            })
        }),
    )?;
    let mut header = vec!["fitted_before".to_owned()];
    header.extend(cell_share_header());
    let cells = &build.artifact.cells;
    write_gz_csv(
        &dir.join(format!("street_hours_{code}_profiles.csv.gz")),
        &header,
        &mut hours.fits.iter().flat_map(|(before, profiles)| {
            let before = monday(*before).to_string();
            let city = city_rows(profiles).map(|row| [vec![String::new()], row].concat());
            city.chain(cell_rows(profiles, cells))
                .map(move |row| [vec![before.clone()], row].concat())
        }),
    )
}

#[cfg(test)]
mod tests;
