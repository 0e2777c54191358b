//! The strict check of a file offered to `refresh`: every row must be usable, or
//! the whole file is refused, naming the file, the line (1-based, the header is line
//! 1) and the column, before anything is written.
//!
//! The full build tolerates bad rows in the configured (shipped) files and rejects
//! them with a reason in the model card; a refresh is an operator handing in a new
//! file, where a broken row means a broken export, so it is refused instead.
//! Only a position published as unknown is let through: an empty or `NA` coordinate
//! (the shipped Houston file has five such rows, the R exports spell missing as
//! `NA`). Such rows are rejected by the build as "bad coordinates", as in the
//! shipped files. Offence values outside the mapping are not an error either: they
//! are rejected as "offence not in the mapping", as in the full build.

use std::path::Path;

use chrono::NaiveDate;
use chrono_tz::Tz;

use super::columns::{self, PositionColumns};
use super::identity::{self, Key};
use super::{IntakeError, Refusal};
use crate::inputs::config::SourceConfig;
use crate::inputs::sources::{self, RawRow, SourceError};

/// A file that passed the check.
#[derive(Debug, Clone)]
pub(crate) struct CheckedFile {
    /// Its rows, as the build reads them.
    pub(crate) rows: Vec<RawRow>,
    /// The identity key of each row.
    pub(crate) keys: Vec<Key>,
    /// Earliest and latest row date.
    pub(crate) dates: (NaiveDate, NaiveDate),
}

fn refused(path: &Path, line: u64, column: &str, reason: Refusal) -> IntakeError {
    IntakeError::Refused {
        path: path.to_owned(),
        line,
        column: column.to_owned(),
        reason,
    }
}

/// How a source publishes an unknown position.
fn is_unknown(text: &str) -> bool {
    let text = text.trim();
    text.is_empty() || text.eq_ignore_ascii_case("NA")
}

/// Checks one file as a file of `source`. `reference` is the column set of the
/// source's existing files, required of files whose rows are identified by their
/// content (a column more or less would make every row look new). Rows dated after `today`
/// (the city's local date of the refresh, when known) are refused.
///
/// # Errors
/// [`IntakeError::Refused`] for the first unusable line, or a read error.
pub(crate) fn check(
    path: &Path,
    source: &SourceConfig,
    tz: Tz,
    reference: Option<&[String]>,
    today: Option<NaiveDate>,
) -> Result<CheckedFile, IntakeError> {
    let rows = match sources::read_source(source, path, tz) {
        Ok(rows) => rows,
        Err(SourceError::MissingColumn { column, .. }) => {
            return Err(refused(path, 1, &column, Refusal::MissingColumn));
        }
        Err(other) => return Err(other.into()),
    };
    let records = sources::read_records(path)?;
    let names: Vec<&str> = records.headers.iter().map(str::trim).collect();
    let layout = columns::of(source);
    // An id-keyed source's file must carry its id columns exactly when the source's
    // other files do: otherwise its rows would be keyed another way than theirs
    // (by content instead of by id, or the reverse) and every row would look new.
    if let (columns::Identity::Columns(ids), Some(reference)) = (&layout.identity, reference) {
        for id in ids {
            match (reference.contains(id), names.contains(&id.as_str())) {
                (true, false) => return Err(refused(path, 1, id, Refusal::MissingColumn)),
                (false, true) => return Err(refused(path, 1, id, Refusal::UnexpectedColumn)),
                _ => {}
            }
        }
    }
    let keyed_by_content = match &layout.identity {
        columns::Identity::Content => true,
        columns::Identity::Columns(ids) => !ids.iter().all(|c| names.contains(&c.as_str())),
    };
    if keyed_by_content && let Some(reference) = reference {
        if let Some(missing) = reference.iter().find(|c| !names.contains(&c.as_str())) {
            return Err(refused(path, 1, missing, Refusal::MissingColumn));
        }
        if let Some(extra) = names.iter().find(|n| !reference.iter().any(|c| c == *n)) {
            return Err(refused(path, 1, extra, Refusal::UnexpectedColumn));
        }
    }
    // `sources::read` found every column it needs, so these exist.
    let index = |name: &str| names.iter().position(|n| *n == name).unwrap_or(usize::MAX);
    let mut dates: Option<(NaiveDate, NaiveDate)> = None;
    for (record, row) in records.records.iter().zip(&rows) {
        let line = record.position().map_or(0, csv::Position::line);
        if record.len() != names.len() {
            let column = names
                .get(record.len())
                .copied()
                .unwrap_or("(past the header)");
            return Err(refused(
                path,
                line,
                column,
                Refusal::FieldCount {
                    found: record.len(),
                    expected: names.len(),
                },
            ));
        }
        let text = |name: &str| record.get(index(name)).unwrap_or("").to_owned();
        let Some(date) = row.date else {
            return Err(refused(
                path,
                line,
                &layout.date,
                Refusal::BadDate(text(&layout.date)),
            ));
        };
        if today.is_some_and(|today| date > today) {
            return Err(refused(
                path,
                line,
                &layout.date,
                Refusal::FutureDate(text(&layout.date)),
            ));
        }
        dates = Some(dates.map_or((date, date), |(a, b)| (a.min(date), b.max(date))));
        check_position(path, line, row, &layout.position, text)?;
    }
    let Some(dates) = dates else {
        return Err(refused(path, 2, "(any)", Refusal::NoRows));
    };
    Ok(CheckedFile {
        keys: identity::keys(&layout.identity, &records),
        rows,
        dates,
    })
}

fn check_position(
    path: &Path,
    line: u64,
    row: &RawRow,
    position: &PositionColumns,
    text: impl Fn(&str) -> String,
) -> Result<(), IntakeError> {
    match position {
        PositionColumns::LatLng(lat, lng) => {
            for (column, value, limit) in [(lat, row.lat, 90.0), (lng, row.lng, 180.0)] {
                let raw = text(column);
                match value {
                    None if is_unknown(&raw) => {}
                    None => {
                        return Err(refused(path, line, column, Refusal::BadCoordinate(raw)));
                    }
                    Some(v) if !(-limit..=limit).contains(&v) => {
                        return Err(refused(path, line, column, Refusal::OutOfRange(raw)));
                    }
                    Some(_) => {}
                }
            }
        }
        PositionColumns::Geometry(column) => {
            let raw = text(column);
            match (row.lat, row.lng) {
                (None, _) | (_, None) if is_unknown(&raw) => {}
                (Some(lat), Some(lng)) => {
                    if hexrisk_engine::grid::validate(lat, lng).is_err() {
                        return Err(refused(path, line, column, Refusal::OutOfRange(raw)));
                    }
                }
                _ => return Err(refused(path, line, column, Refusal::BadCoordinate(raw))),
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
