//! The source rows' ledger in `build/backtest`: what became of every row of every
//! source and, for the rows kept, the incident they became, so that the model
//! card's data and cleaning counts and its layouts' validation can be recomputed
//! outside the build and any row's fate looked up.

use std::path::Path;

use crate::fit::city_build::CityBuild;
use crate::inputs::cleaning::RowFate;
use crate::outputs::backtest_export::write_gz_csv;

/// Writes `rows_<code>.csv.gz`, one line per row read:
/// `source,row,fate,date,hour,cell,hour_weight,lat,lng,street`. `row` is the row's position among
/// the source's rows (0 is the first data row of its first file), `fate` the class
/// it was kept as or the reason it was rejected. A candidate row (mapped, dated in
/// the span and placed, whatever became of it later: the rows whose hours decide a
/// source's default hours) has its local date and hour (empty without one); a kept
/// row also its incident's H3 cell, weight in the time-of-day profiles (6
/// decimals), position as read (in full: the street attribution's radii are
/// checked to half a metre) and whether its premises put it on the street (`1`,
/// `0`, or empty where the source has no premises).
///
/// # Errors
/// I/O errors.
pub fn write_rows_csv(dir: &Path, build: &CityBuild) -> anyhow::Result<()> {
    let path = dir.join(format!("rows_{}.csv.gz", build.artifact.city.code));
    let header = [
        "source",
        "row",
        "fate",
        "date",
        "hour",
        "cell",
        "hour_weight",
        "lat",
        "lng",
        "street",
    ]
    .map(str::to_owned);
    let cells = &build.artifact.cells;
    write_gz_csv(
        &path,
        &header,
        &mut build.sources.iter().flat_map(|(source, report)| {
            report.ledger.iter().map(move |entry| {
                let (date, hour) = entry
                    .occurred
                    .map_or((String::new(), String::new()), |(d, h)| {
                        (d.to_string(), h.map(|h| h.to_string()).unwrap_or_default())
                    });
                let mut row = vec![source.clone(), entry.position.to_string()];
                match entry.fate {
                    RowFate::Kept(class, at) => {
                        let incident = &build.incidents[at];
                        row.extend([
                            class.code().to_owned(),
                            date,
                            hour,
                            format!("{:x}", cells[incident.cell]),
                            format!("{:.6}", incident.hour_weight),
                            incident.lat.to_string(),
                            incident.lng.to_string(),
                            incident
                                .street
                                .map(|s| u8::from(s).to_string())
                                .unwrap_or_default(),
                        ]);
                    }
                    RowFate::Rejected(reason) => {
                        row.extend([reason.to_string(), date, hour]);
                        row.resize(10, String::new());
                    }
                }
                row
            })
        }),
    )
}
