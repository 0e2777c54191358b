//! The backtest exports in `build/backtest`: each backtest cell-week's forecast and
//! outcome, and the band backtest's profiles and observed band counts, so that the
//! model card's figures can be recomputed outside the build.

use std::path::Path;

use chrono::Datelike;
use flate2::Compression;
use flate2::write::GzEncoder;
use hexrisk_engine::CrimeClass;
use hexrisk_engine::forecast::{CRIME_CLASSES, TimeBands};

use crate::atomic;
use crate::fit::backtest::BASELINES;
use crate::fit::city_build::CityBuild;
use crate::fit::forecasting::row_outcome;
use crate::fit::profiles::Profiles;

/// How hard the exports are compressed: level 2 of 9. Every build writes them and only
/// tests and analyses read them back, so speed matters more than size here (at the
/// default level, compressing was about a sixth of Houston's build).
pub(crate) const EXPORT_COMPRESSION: Compression = Compression::new(2);

/// Writes `backtest_<code>.csv.gz`: one row per backtest cell-week. Its last
/// column, `in_grid_before_backtest`, is 0 for a cell that a grid derived from the
/// incidents before the backtest would lack (in a city whose grid comes from its
/// incidents, `fit/leaks.rs`), 1 otherwise.
///
/// # Errors
/// I/O errors.
pub fn write_backtest_csv(dir: &Path, build: &CityBuild) -> anyhow::Result<()> {
    let path = dir.join(format!("backtest_{}.csv.gz", build.artifact.city.code));
    let gzip = GzEncoder::new(Vec::new(), EXPORT_COMPRESSION);
    let mut out = csv::Writer::from_writer(gzip);
    let mut header = vec![
        "week_start".to_owned(),
        "city".to_owned(),
        "cell".to_owned(),
    ];
    header.extend(CrimeClass::ALL.iter().map(|c| format!("p_{}", c.code())));
    header.extend(CRIME_CLASSES.iter().map(|c| format!("e_{}", c.code())));
    header.extend(CRIME_CLASSES.iter().map(|c| format!("size_{}", c.code())));
    header.push("level".to_owned());
    header.push("observed".to_owned());
    header.extend(CRIME_CLASSES.iter().map(|c| format!("n_{}", c.code())));
    header.extend(BASELINES.iter().map(|name| format!("total_{name}")));
    for name in &BASELINES[..2] {
        header.extend(CRIME_CLASSES.iter().map(|c| format!("{name}_{}", c.code())));
    }
    header.push("in_grid_before_backtest".to_owned());
    out.write_record(&header)?;
    let missing = build.backtest.grid_leak.as_ref().map(|g| &g.missing_cells);
    for (at, row) in build.rows.iter().enumerate() {
        let mut record = vec![
            row.week.to_string(),
            build.artifact.city.code.clone(),
            row.cell.to_string(),
        ];
        record.extend(row.probabilities.iter().map(|p| format!("{p:.6}")));
        record.extend(row.rates.iter().map(|e| format!("{e:.6}")));
        record.extend(row.dispersion.iter().map(|r| format!("{r:.6}")));
        record.push(format!("{:.6}", row.level));
        record.push(row_outcome(row).code().to_owned());
        record.extend(row.counts.iter().map(ToString::to_string));
        // Whole: ranking hot spots turns on differences in the last bits.
        record.extend(row.baselines.iter().map(ToString::to_string));
        record.extend(row.baseline_rates.iter().flatten().map(ToString::to_string));
        // Rows are week by week, each week's cells in grid order.
        let lacked = missing.is_some_and(|m| m[at % m.len().max(1)]);
        record.push(u8::from(!lacked).to_string());
        out.write_record(&record)?;
    }
    let bytes = out.into_inner()?.finish()?;
    atomic::write(&path, &bytes)?;
    Ok(())
}

/// Writes the band backtest's inputs, so that its figures can be recomputed with
/// the weekly export: `bands_<code>_profiles.csv.gz` (each cell's and class's share
/// per band, fitted before the backtest weeks), `bands_<code>_city.csv.gz` (the
/// city-wide profile of each class, from the same fit) and
/// `bands_<code>_observed.csv.gz` (incidents per class in every band of a backtest
/// week that had any).
///
/// # Errors
/// I/O errors.
pub fn write_band_csvs(dir: &Path, build: &CityBuild) -> anyhow::Result<()> {
    let code = &build.artifact.city.code;
    let bands = &build.backtest.bands;
    let layout = bands.learnt.bands;
    let cells = &build.artifact.cells;
    write_gz_csv(
        &dir.join(format!("bands_{code}_city.csv.gz")),
        &SHARE_HEADER.map(str::to_owned),
        &mut city_rows(&bands.learnt),
    )?;
    write_gz_csv(
        &dir.join(format!("bands_{code}_profiles.csv.gz")),
        &cell_share_header(),
        &mut cell_rows(&bands.learnt, cells),
    )?;
    let mut header = [
        "week_start",
        "cell",
        "band_day",
        "day_type",
        "band_start_hour",
    ]
    .map(str::to_owned)
    .to_vec();
    header.extend(CRIME_CLASSES.iter().map(|c| format!("n_{}", c.code())));
    write_gz_csv(
        &dir.join(format!("bands_{code}_observed.csv.gz")),
        &header,
        &mut bands.observed.iter().map(|o| {
            let (kind, start) = band_label(
                layout,
                layout.index(hexrisk_engine::forecast::Band {
                    kind: hexrisk_engine::forecast::DayKind::of(o.day),
                    position: o.position,
                }),
            );
            let mut row = vec![
                (o.day - chrono::Days::new(u64::from(o.day.weekday().num_days_from_monday())))
                    .to_string(),
                cell_name(cells, o.cell),
                o.day.to_string(),
                kind.to_owned(),
                start.to_string(),
            ];
            row.extend(o.counts.iter().map(ToString::to_string));
            row
        }),
    )
}

/// Writes `layouts_<code>_profiles.csv.gz` and `layouts_<code>_city.csv.gz`: for
/// every band layout tried on the validation weeks before the backtest, the
/// learnt profiles of its best shrinkage and their city-wide profile, in the
/// `bands_*` exports' columns (`band_hours` tells the layouts apart).
///
/// # Errors
/// I/O errors.
pub fn write_layout_csvs(dir: &Path, build: &CityBuild) -> anyhow::Result<()> {
    let code = &build.artifact.city.code;
    let layouts = &build.backtest.profile_choice.layouts;
    write_gz_csv(
        &dir.join(format!("layouts_{code}_city.csv.gz")),
        &SHARE_HEADER.map(str::to_owned),
        &mut layouts.iter().flat_map(|l| city_rows(&l.learnt)),
    )?;
    write_gz_csv(
        &dir.join(format!("layouts_{code}_profiles.csv.gz")),
        &cell_share_header(),
        &mut layouts
            .iter()
            .flat_map(|l| cell_rows(&l.learnt, &build.artifact.cells)),
    )
}

/// The columns of a class's share of a band.
const SHARE_HEADER: [&str; 5] = [
    "class",
    "day_type",
    "band_start_hour",
    "band_hours",
    "share",
];

/// [`SHARE_HEADER`] after a `cell` column.
pub(crate) fn cell_share_header() -> Vec<String> {
    let mut header = vec!["cell".to_owned()];
    header.extend(SHARE_HEADER.map(str::to_owned));
    header
}

/// The city-wide profile of each class of `profiles`.
pub(crate) fn city_rows(profiles: &Profiles) -> impl Iterator<Item = Vec<String>> + '_ {
    let layout = profiles.bands;
    let n = layout.count();
    CRIME_CLASSES
        .iter()
        .enumerate()
        .flat_map(move |(class, c)| {
            let shares = &profiles.city[class * n..(class + 1) * n];
            (0..n).map(move |index| share_row(layout, c.code(), index, shares[index]))
        })
}

/// Every cell's profile of each class of `profiles`, cells named from `cells`.
pub(crate) fn cell_rows<'a>(
    profiles: &'a Profiles,
    cells: &'a [u64],
) -> impl Iterator<Item = Vec<String>> + 'a {
    let layout = profiles.bands;
    let n = layout.count();
    (0..cells.len()).flat_map(move |cell| {
        CRIME_CLASSES
            .iter()
            .enumerate()
            .flat_map(move |(class, c)| {
                let shares = profiles.of(cell, class);
                (0..n).map(move |index| {
                    let mut row = vec![cell_name(cells, cell)];
                    row.extend(share_row(layout, c.code(), index, shares[index]));
                    row
                })
            })
    })
}

/// A cell position's H3 name.
fn cell_name(cells: &[u64], cell: usize) -> String {
    h3o::CellIndex::try_from(cells[cell]).map_or_else(|_| String::new(), |c| c.to_string())
}

/// Writes `rows` under `header` as a gzipped CSV file at `path`, atomically.
pub(crate) fn write_gz_csv(
    path: &Path,
    header: &[String],
    rows: &mut dyn Iterator<Item = Vec<String>>,
) -> anyhow::Result<()> {
    let mut out = csv::Writer::from_writer(GzEncoder::new(Vec::new(), EXPORT_COMPRESSION));
    out.write_record(header)?;
    for row in rows {
        out.write_record(&row)?;
    }
    atomic::write(path, &out.into_inner()?.finish()?)?;
    Ok(())
}

/// A band of `layout` as the exports name it: its day type and local start hour.
fn band_label(layout: TimeBands, index: usize) -> (&'static str, u32) {
    let band = layout.band(index);
    let start = (u32::from(layout.day_start_hour)
        + u32::from(band.position) * u32::from(layout.band_hours))
        % 24;
    (band.kind.code(), start)
}

/// One share of a class's profile: class, day type, start hour, band hours, share.
fn share_row(layout: TimeBands, class: &str, index: usize, share: f64) -> Vec<String> {
    let (kind, start) = band_label(layout, index);
    vec![
        class.to_owned(),
        kind.to_owned(),
        start.to_string(),
        layout.band_hours.to_string(),
        format!("{share:.6}"),
    ]
}
