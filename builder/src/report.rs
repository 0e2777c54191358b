//! Outputs of a build: artifact files with their manifest, the backtest export, and
//! the model card `docs/MODEL.md`.

use std::fmt::Write as _;

use chrono::Datelike;
use std::path::Path;

use flate2::Compression;
use flate2::write::GzEncoder;
use hexrisk_engine::CrimeClass;
use hexrisk_engine::artifact::{self, CityArtifact, Manifest, ManifestCity};
use hexrisk_engine::forecast::CRIME_CLASSES;
use sha2::{Digest, Sha256};

use crate::atomic;
use crate::backtest::{CALIBRATION_AIM, CALIBRATION_MIN_CELL_WEEKS, RELIABILITY_BINS, largest_gap};
use crate::history::History;
use crate::pipeline::{self, CityBuild};

/// The manifest entry of an encoded artifact.
#[must_use]
pub fn manifest_entry(artifact: &CityArtifact, bytes: &[u8]) -> ManifestCity {
    ManifestCity::describe(
        artifact,
        bytes.len() as u64,
        hex::encode(Sha256::digest(bytes)),
    )
}

/// A manifest over `cities`, labelled from their versions.
#[must_use]
pub fn manifest_of(cities: Vec<ManifestCity>) -> Manifest {
    let digest = hex::encode(Sha256::digest(Manifest::label_input(&cities)));
    Manifest::over(cities, pipeline::MODEL_VERSION, &digest)
}

/// The current manifest of an artifacts folder, if it has a usable one.
#[must_use]
pub fn current_manifest(dir: &Path) -> Option<Manifest> {
    let text = std::fs::read(dir.join(Manifest::FILE_NAME)).ok()?;
    serde_json::from_slice::<Manifest>(&text)
        .ok()
        .filter(|m| m.validate().is_ok())
}

/// The entries of the current manifest that a new one keeps: all of them when it is
/// usable, none when there is none, and none when it is of another format (or
/// fails validation) but every city it names is being rebuilt.
///
/// # Errors
/// A manifest that cannot be read or parsed, or one that cannot be used while some
/// of its cities are not rebuilt: dropping them silently would unpublish them.
fn carried_over(dir: &Path, builds: &[CityBuild]) -> anyhow::Result<Vec<ManifestCity>> {
    let path = dir.join(Manifest::FILE_NAME);
    let text = match std::fs::read(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(anyhow::anyhow!("cannot read {}: {e}", path.display())),
    };
    let manifest: Manifest = serde_json::from_slice(&text).map_err(|e| {
        anyhow::anyhow!(
            "{} is not a manifest ({e}); move it away to start a new one",
            path.display()
        )
    })?;
    match manifest.validate() {
        Ok(()) => Ok(manifest.cities),
        Err(_)
            if manifest
                .cities
                .iter()
                .all(|c| builds.iter().any(|b| b.artifact.city.code == c.code)) =>
        {
            Ok(Vec::new())
        }
        Err(e) => Err(anyhow::anyhow!(
            "{} cannot be used ({e}) and names cities not being rebuilt; rebuild them all \
             (hexrisk-build build) or move it away",
            path.display()
        )),
    }
}

/// A new version whose files are written but which is not yet current.
#[derive(Debug, Clone)]
pub struct Staged {
    /// The manifest that [`publish`] makes current.
    pub manifest: Manifest,
    text: String,
}

/// Writes `bytes` to `path` through a rename, unless the file holds them already:
/// artifact files are immutable.
fn write_unless_unchanged(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    if !std::fs::read(path).is_ok_and(|old| old == bytes) {
        atomic::write(path, bytes)?;
    }
    Ok(())
}

/// The first half of writing a version: each city's artifact as
/// `<code>/<version>.hxrk`, with its grid file `<code>/<version>.grid.hxrk` (the
/// same version without the road network, for maps that draw before they route)
/// when it has a network (files are immutable; an existing one is not rewritten)
/// and the manifest, which keeps the current entries of the cities not built, as
/// `manifests/<version>.json`. Nothing a reader follows changes yet.
///
/// # Errors
/// I/O errors, or an artifact that cannot be encoded.
pub fn stage_artifacts(dir: &Path, builds: &[CityBuild]) -> anyhow::Result<Staged> {
    let mut cities = carried_over(dir, builds)?;
    for build in builds {
        let bytes = artifact::encode(&build.artifact)?;
        let mut entry = manifest_entry(&build.artifact, &bytes);
        write_unless_unchanged(&dir.join(&entry.file), &bytes)?;
        if build.artifact.road_graph.is_some() {
            let grid = artifact::encode(&CityArtifact {
                road_graph: None,
                ..build.artifact.clone()
            })?;
            entry = entry.with_grid(grid.len() as u64, hex::encode(Sha256::digest(&grid)));
            if let Some(file) = &entry.grid {
                write_unless_unchanged(&dir.join(&file.file), &grid)?;
            }
        }
        cities.retain(|c| c.code != entry.code);
        cities.push(entry);
    }
    let manifest = manifest_of(cities);
    let text = serde_json::to_string_pretty(&manifest)? + "\n";
    atomic::write(
        &dir.join(Manifest::HISTORY_DIR)
            .join(format!("{}.json", manifest.version)),
        text.as_bytes(),
    )?;
    Ok(Staged { manifest, text })
}

/// The second half: `manifest.json` written last, through a rename, which makes
/// the staged version current.
///
/// # Errors
/// I/O errors.
pub fn publish(dir: &Path, staged: &Staged) -> anyhow::Result<Manifest> {
    atomic::write(&dir.join(Manifest::FILE_NAME), staged.text.as_bytes())?;
    Ok(staged.manifest.clone())
}

/// Writes one new version: [`stage_artifacts`] then [`publish`]. Every file is
/// written through a rename, and the manifest last, so a build stopped at any point
/// leaves the previous version whole and current. Older versions stay until pruned.
/// Returns the new manifest.
///
/// # Errors
/// I/O errors, or an artifact that cannot be encoded.
pub fn write_artifacts(dir: &Path, builds: &[CityBuild]) -> anyhow::Result<Manifest> {
    publish(dir, &stage_artifacts(dir, builds)?)
}

/// Writes `backtest_<code>.csv.gz`: one row per backtest cell-week.
///
/// # Errors
/// I/O errors.
pub fn write_backtest_csv(dir: &Path, build: &CityBuild) -> anyhow::Result<()> {
    let path = dir.join(format!("backtest_{}.csv.gz", build.artifact.city.code));
    let gzip = GzEncoder::new(Vec::new(), Compression::default());
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
    out.write_record(&header)?;
    for row in &build.rows {
        let mut record = vec![
            row.week.to_string(),
            build.artifact.city.code.clone(),
            row.cell.to_string(),
        ];
        record.extend(row.probabilities.iter().map(|p| format!("{p:.6}")));
        record.extend(row.rates.iter().map(|e| format!("{e:.6}")));
        record.extend(row.dispersion.iter().map(|r| format!("{r:.6}")));
        record.push(format!("{:.6}", row.level));
        record.push(pipeline::row_outcome(row).code().to_owned());
        record.extend(row.counts.iter().map(ToString::to_string));
        out.write_record(&record)?;
    }
    let bytes = out.into_inner()?.finish()?;
    atomic::write(&path, &bytes)?;
    Ok(())
}

/// Writes the band backtest's inputs, so that its figures can be recomputed with
/// the weekly export: `bands_<code>_profiles.csv.gz` (each cell's and class's share
/// per band, fitted before the backtest weeks) and `bands_<code>_observed.csv.gz`
/// (incidents per class in every band of a backtest week that had any).
///
/// # Errors
/// I/O errors.
pub fn write_band_csvs(dir: &Path, build: &CityBuild) -> anyhow::Result<()> {
    let code = &build.artifact.city.code;
    let bands = &build.backtest.bands;
    let layout = bands.learnt.bands;
    let write = |name: String, header: Vec<String>, rows: &mut dyn Iterator<Item = Vec<String>>| {
        let mut out = csv::Writer::from_writer(GzEncoder::new(Vec::new(), Compression::default()));
        out.write_record(&header)?;
        for row in rows {
            out.write_record(&row)?;
        }
        atomic::write(&dir.join(name), &out.into_inner()?.finish()?)?;
        anyhow::Ok(())
    };
    let band_label = |index: usize| {
        let band = layout.band(index);
        let start = (u32::from(layout.day_start_hour)
            + u32::from(band.position) * u32::from(layout.band_hours))
            % 24;
        (band.kind.code(), start)
    };
    let cells = &build.artifact.cells;
    write(
        format!("bands_{code}_profiles.csv.gz"),
        [
            "cell",
            "class",
            "day_type",
            "band_start_hour",
            "band_hours",
            "share",
        ]
        .map(str::to_owned)
        .to_vec(),
        &mut (0..cells.len()).flat_map(|cell| {
            CRIME_CLASSES
                .iter()
                .enumerate()
                .flat_map(move |(class, c)| {
                    bands
                        .learnt
                        .of(cell, class)
                        .iter()
                        .enumerate()
                        .map(move |(index, share)| {
                            let (kind, start) = band_label(index);
                            vec![
                                h3o::CellIndex::try_from(cells[cell])
                                    .map_or_else(|_| String::new(), |c| c.to_string()),
                                c.code().to_owned(),
                                kind.to_owned(),
                                start.to_string(),
                                layout.band_hours.to_string(),
                                format!("{share:.6}"),
                            ]
                        })
                })
        }),
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
    write(
        format!("bands_{code}_observed.csv.gz"),
        header,
        &mut bands.observed.iter().map(|o| {
            let (kind, start) = band_label(layout.index(hexrisk_engine::forecast::Band {
                kind: hexrisk_engine::forecast::DayKind::of(o.day),
                position: o.position,
            }));
            let mut row = vec![
                (o.day - chrono::Days::new(u64::from(o.day.weekday().num_days_from_monday())))
                    .to_string(),
                h3o::CellIndex::try_from(cells[o.cell])
                    .map_or_else(|_| String::new(), |c| c.to_string()),
                o.day.to_string(),
                kind.to_owned(),
                start.to_string(),
            ];
            row.extend(o.counts.iter().map(ToString::to_string));
            row
        }),
    )
}

fn metric(value: f64) -> String {
    if value.is_nan() {
        "–".to_owned()
    } else {
        format!("{value:.3}")
    }
}

/// The model card as Markdown. The version history comes from `history` (the
/// artifacts folder's `history.json`), so the card follows from files alone.
#[must_use]
pub fn model_card(
    builds: &[CityBuild],
    configs: &[crate::config::CityConfig],
    history: &History,
) -> String {
    let mut md = String::new();
    md.push_str(include_str!("../templates/model_card_intro.md"));
    crate::method_card::section(&mut md);
    md.push_str("\n## Data and cleaning (generated by the build)\n\n");
    for build in builds {
        data_section(&mut md, build, configs);
    }
    md.push_str("## Backtest (generated by the build)\n\n");
    md.push_str(
        "Rolling origin, refit every 13 weeks; every forecast for week t uses only data before t. \
         Lower is better for Brier, log loss and MAE; higher is better for PAI and PEI. \
         MAE is given for two point forecasts of the weekly total: the forecast distribution's \
         median (the point forecast absolute error rewards) and its mean (the expected count).\n\n",
    );
    for build in builds {
        backtest_section(&mut md, build);
    }
    crate::time_of_day_card::section(&mut md, builds);
    let codes: Vec<&str> = builds
        .iter()
        .map(|b| b.artifact.city.code.as_str())
        .collect();
    history.card_section(&mut md, &codes);
    md.push_str(include_str!("../templates/model_card_outro.md"));
    md
}

fn data_section(md: &mut String, build: &CityBuild, configs: &[crate::config::CityConfig]) {
    {
        let city = &build.artifact.city;
        let _ = writeln!(
            *md,
            "### {} (`{}`)\n\nGrid: {} H3 resolution-8 cells; modelled weeks: {} weeks from {}.\n",
            city.name, city.code, build.cells, build.data_weeks.1, build.data_weeks.0
        );
        md.push_str("| source | rows | kept | rejected, by reason |\n|---|---|---|---|\n");
        for (name, report) in &build.sources {
            let reasons: Vec<String> = report
                .rejected
                .iter()
                .map(|(r, n)| format!("{r}: {n}"))
                .collect();
            let _ = writeln!(
                *md,
                "| {name} | {} | {} | {} |",
                report.rows,
                report.accepted_total(),
                if reasons.is_empty() {
                    "none".to_owned()
                } else {
                    reasons.join("; ")
                }
            );
        }
        md.push_str("\nKept incidents by class:\n\n| class | incidents |\n|---|---|\n");
        for class in CRIME_CLASSES {
            let n: u64 = build
                .sources
                .values()
                .map(|r| r.accepted.get(&class).copied().unwrap_or(0))
                .sum();
            let _ = writeln!(*md, "| {} | {n} |", class.code());
        }
        if let Some(note) = configs
            .iter()
            .find(|c| c.code == city.code)
            .and_then(|c| c.sample_note.as_ref())
        {
            let _ = writeln!(*md, "\n**Note:** {note}");
        }
        md.push('\n');
    }
}

fn backtest_section(md: &mut String, build: &CityBuild) {
    {
        let b = &build.backtest;
        let _ = writeln!(
            *md,
            "### {}: {} weeks, {} to {} ({} cell-weeks)\n",
            build.artifact.city.name,
            b.week_count,
            b.weeks.0,
            b.weeks.1,
            b.week_count * build.cells
        );
        md.push_str("| forecaster | multi-class Brier | log loss | P(NO_CRIME) Brier | MAE, median forecast | MAE, mean forecast | PAI 1% | PAI 5% | PEI 1% | PEI 5% |\n|---|---|---|---|---|---|---|---|---|---|\n");
        for (name, label) in [
            ("model", "hexrisk model"),
            ("mean52", "mean of previous 52 weeks"),
            ("ewma", "EWMA (α = 0.03)"),
        ] {
            if let Some(m) = b.metrics.get(name) {
                let _ = writeln!(
                    *md,
                    "| {label} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                    metric(m.brier),
                    metric(m.log_loss),
                    metric(m.no_crime_brier),
                    metric(m.mae_median),
                    metric(m.mae),
                    metric(m.pai[0]),
                    metric(m.pai[1]),
                    metric(m.pei[0]),
                    metric(m.pei[1])
                );
            }
        }
        md.push_str("\nReliability of the model's P(NO_CRIME):\n\n| bin | cell-weeks | mean predicted | observed frequency | observed − predicted |\n|---|---|---|---|---|\n");
        for (i, bin) in b.reliability.iter().enumerate() {
            if bin.count == 0 {
                continue;
            }
            let _ = writeln!(
                *md,
                "| {:.1}–{:.1} | {} | {:.3} | {:.3} | {:+.4} |",
                i as f64 / RELIABILITY_BINS as f64,
                (i + 1) as f64 / RELIABILITY_BINS as f64,
                bin.count,
                bin.predicted / bin.count as f64,
                bin.observed as f64 / bin.count as f64,
                bin.gap()
            );
        }
        if let Some(gap) = largest_gap(&b.reliability) {
            let _ = writeln!(
                *md,
                "\nLargest gap in a bin of at least {CALIBRATION_MIN_CELL_WEEKS} cell-weeks: {gap:.4} \
                 (aim: at most {CALIBRATION_AIM})."
            );
        }
        let (low, high) = b
            .levels
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &x| {
                (l.min(x), h.max(x))
            });
        let _ = writeln!(
            *md,
            "\nRecent-level factor over the backtest weeks: {low:.3} to {high:.3}; served: {:.3}.",
            b.served_level
        );
        md.push('\n');
    }
}
