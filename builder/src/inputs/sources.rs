//! Readers for the source incident files: one function per file layout, each giving
//! the same raw rows (date, position, offence fields) for the classification step.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

use chrono::{DateTime, NaiveDate, Timelike, Utc};
use chrono_tz::Tz;
use flate2::read::GzDecoder;

use super::config::{SourceConfig, SourceFormat};

/// One source row before classification. `None` fields are missing or unreadable.
#[derive(Debug, Clone, PartialEq)]
pub struct RawRow {
    /// Event identifier shared across files, where the source has one.
    pub event_id: Option<String>,
    /// Local calendar date of the occurrence.
    pub date: Option<NaiveDate>,
    /// Local hour of the occurrence (0-23), where the source records one.
    pub hour: Option<u8>,
    /// Latitude, WGS84 degrees.
    pub lat: Option<f64>,
    /// Longitude, WGS84 degrees.
    pub lng: Option<f64>,
    /// The offence field named in the mapping (empty for single-offence files).
    pub offence: String,
    /// A free-text description, where the source has one.
    pub description: Option<String>,
    /// The premises value, where the source's configuration names a premises
    /// column ([`super::config::StreetPremises`]).
    pub premises: Option<String>,
    /// Local calendar date of the report, where the source publishes one (a feed's
    /// `reported` field; none of the file layouts has one).
    pub reported: Option<NaiveDate>,
}

/// A source file that cannot be read at all (bad rows are not errors: they are
/// returned with missing fields and rejected later with a reason).
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    /// Opening or decompressing failed.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The CSV structure is broken.
    #[error("{path}: {source}")]
    Csv {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: csv::Error,
    },
    /// A column the layout needs is missing.
    #[error("{path}: no column {column}")]
    MissingColumn {
        /// The file.
        path: PathBuf,
        /// The column.
        column: String,
    },
}

/// A file as the readers see it: decompressed when its name ends in `.gz`.
pub(crate) fn open(path: &Path) -> Result<Box<dyn Read>, SourceError> {
    let file = File::open(path).map_err(|source| SourceError::Io {
        path: path.to_owned(),
        source,
    })?;
    let reader = BufReader::with_capacity(1 << 16, file);
    Ok(if path.extension().is_some_and(|e| e == "gz") {
        Box::new(GzDecoder::new(reader))
    } else {
        Box::new(reader)
    })
}

/// A CSV file opened as every reader of incident files reads it: decompressed by
/// [`open`], rows allowed another number of fields than the header, the header
/// read first.
pub(crate) struct CsvFile {
    path: PathBuf,
    reader: csv::Reader<Box<dyn Read>>,
    /// The header row.
    pub(crate) headers: csv::StringRecord,
}

/// The header and records of a CSV file, read as [`CsvFile`] reads them, so the
/// n-th record is the n-th row of [`read`].
pub(crate) struct Records {
    /// The header.
    pub(crate) headers: csv::StringRecord,
    /// The records, in file order.
    pub(crate) records: Vec<csv::StringRecord>,
}

impl CsvFile {
    /// Opens a file and reads its header.
    ///
    /// # Errors
    /// [`SourceError::Io`] or [`SourceError::Csv`].
    pub(crate) fn open(path: &Path) -> Result<Self, SourceError> {
        let mut reader = csv::ReaderBuilder::new()
            .flexible(true)
            .from_reader(open(path)?);
        let headers = reader
            .headers()
            .map_err(|source| csv_error(path, source))?
            .clone();
        Ok(Self {
            path: path.to_owned(),
            reader,
            headers,
        })
    }

    /// Reads every record.
    ///
    /// # Errors
    /// [`SourceError::Csv`].
    pub(crate) fn records(mut self) -> Result<Records, SourceError> {
        let records = self
            .reader
            .records()
            .collect::<Result<_, _>>()
            .map_err(|source| csv_error(&self.path, source))?;
        Ok(Records {
            headers: self.headers,
            records,
        })
    }
}

/// Reads every record of a CSV file, as [`read`] reads them.
///
/// # Errors
/// [`SourceError::Io`] or [`SourceError::Csv`].
pub(crate) fn read_records(path: &Path) -> Result<Records, SourceError> {
    CsvFile::open(path)?.records()
}

fn csv_error(path: &Path, source: csv::Error) -> SourceError {
    SourceError::Csv {
        path: path.to_owned(),
        source,
    }
}

/// Column positions looked up by name.
struct Columns<'a> {
    path: &'a Path,
    headers: csv::StringRecord,
}

impl Columns<'_> {
    fn index(&self, name: &str) -> Result<usize, SourceError> {
        self.headers
            .iter()
            .position(|h| h.trim() == name)
            .ok_or_else(|| SourceError::MissingColumn {
                path: self.path.to_owned(),
                column: name.to_owned(),
            })
    }
}

fn parse_f64(text: &str) -> Option<f64> {
    text.trim().parse::<f64>().ok().filter(|v| v.is_finite())
}

/// The first two numbers in a text such as `c(-79.5, 43.7)` or
/// `{'type': 'MultiPoint', 'coordinates': [[-79.3, 43.6]]}`.
fn first_two_numbers(text: &str) -> Option<(f64, f64)> {
    let mut numbers = text
        .split(|c: char| !(c.is_ascii_digit() || matches!(c, '-' | '.' | 'e' | 'E' | '+')))
        .filter(|t| t.chars().any(|c| c.is_ascii_digit()))
        .filter_map(parse_f64);
    Some((numbers.next()?, numbers.next()?))
}

fn local_date_of_epoch_ms(text: &str, tz: Tz) -> Option<NaiveDate> {
    let millis = text.trim().parse::<i64>().ok()?;
    Some(
        DateTime::from_timestamp_millis(millis)?
            .with_timezone(&tz)
            .date_naive(),
    )
}

fn local_time_of_instant(text: &str, tz: Tz) -> Option<chrono::NaiveDateTime> {
    let instant: DateTime<Utc> = text.trim().parse().ok()?;
    Some(instant.with_timezone(&tz).naive_local())
}

/// An hour of the day written as a number (`7`, `23`); `NA` or anything else is `None`.
fn parse_hour(text: &str) -> Option<u8> {
    text.trim().parse::<u8>().ok().filter(|&h| h < 24)
}

/// The hour of a clock time `HH:MM`.
fn hour_of_clock(text: &str) -> Option<u8> {
    let (hour, minute) = text.trim().split_once(':')?;
    minute.parse::<u8>().ok().filter(|&m| m < 60)?;
    parse_hour(hour)
}

/// Reads every row of one file of a source, its premises included where the
/// source configures a premises column.
///
/// # Errors
/// [`SourceError`] when the file cannot be opened or lacks a needed column.
pub fn read_source(source: &SourceConfig, path: &Path, tz: Tz) -> Result<Vec<RawRow>, SourceError> {
    read_with_premises(
        source.format,
        path,
        &source.field,
        source.premises_field(),
        tz,
    )
}

/// Reads every row of one file in the given layout, without premises.
///
/// # Errors
/// [`SourceError`] when the file cannot be opened or lacks a needed column.
pub fn read(
    format: SourceFormat,
    path: &Path,
    field: &str,
    tz: Tz,
) -> Result<Vec<RawRow>, SourceError> {
    read_with_premises(format, path, field, None, tz)
}

/// Reads every row of one file in the given layout, and the `premises` column
/// when one is named.
///
/// # Errors
/// [`SourceError`] when the file cannot be opened or lacks a needed column.
fn read_with_premises(
    format: SourceFormat,
    path: &Path,
    field: &str,
    premises: Option<&str>,
    tz: Tz,
) -> Result<Vec<RawRow>, SourceError> {
    let file = CsvFile::open(path)?;
    let columns = Columns {
        path,
        headers: file.headers.clone(),
    };
    let offence = if field == "*" {
        None
    } else {
        Some(columns.index(field)?)
    };
    let premises = premises.map(|name| columns.index(name)).transpose()?;
    let premises_of = |record: &csv::StringRecord| {
        premises.and_then(|i| record.get(i).map(|value| value.trim().to_owned()))
    };
    let records = file.records()?.records;
    let layout = match format {
        SourceFormat::TorontoMci => Layout {
            date: DateColumn::SlashedDatePrefix(columns.index("occurrencedate")?),
            hour: HourColumn::Number(columns.index("occurrencehour")?),
            position: Position::Columns(columns.index("Lat")?, columns.index("Long")?),
            event_id: None,
            description: None,
        },
        SourceFormat::TorontoHomicides | SourceFormat::TorontoShootings => Layout {
            date: if format == SourceFormat::TorontoHomicides {
                DateColumn::EpochMillis(columns.index("OCC_DATE")?)
            } else {
                DateColumn::Iso(columns.index("OCC_DATE")?)
            },
            // The homicides file has no hour (its OCC_DATE is local midnight).
            hour: if format == SourceFormat::TorontoHomicides {
                HourColumn::None
            } else {
                HourColumn::Number(columns.index("OCC_HOUR")?)
            },
            position: Position::Geometry(columns.index("geometry")?),
            event_id: Some(columns.index("EVENT_UNIQUE_ID")?),
            description: None,
        },
        SourceFormat::SfpdIncidents => Layout {
            date: DateColumn::Iso(columns.index("Date")?),
            hour: HourColumn::Clock(columns.index("Time")?),
            position: Position::Columns(columns.index("lat")?, columns.index("lon")?),
            event_id: None,
            description: Some(columns.index("Descript")?),
        },
        SourceFormat::HoustonCrime => Layout {
            date: DateColumn::UtcInstant(columns.index("time")?),
            hour: HourColumn::FromInstant,
            position: Position::Columns(columns.index("lat")?, columns.index("lon")?),
            event_id: None,
            description: None,
        },
        SourceFormat::Generic => {
            let generic = super::generic_csv::GenericColumns::locate(&columns.headers, offence)
                .map_err(|column| SourceError::MissingColumn {
                    path: path.to_owned(),
                    column: column.to_owned(),
                })?;
            return Ok(records
                .iter()
                .map(|record| {
                    let row = generic.row(record, tz);
                    RawRow {
                        event_id: row.id,
                        date: row.date,
                        hour: row.hour,
                        lat: row.latitude,
                        lng: row.longitude,
                        offence: row.offence,
                        description: row.description,
                        premises: premises_of(record),
                        reported: None,
                    }
                })
                .collect());
        }
    };
    Ok(records
        .iter()
        .map(|record| RawRow {
            premises: premises_of(record),
            ..layout.row(record, offence, tz)
        })
        .collect())
}

/// How a layout spells the date.
#[derive(Debug, Clone, Copy)]
enum DateColumn {
    /// `2014/03/02 05:00:00+00`: the first ten characters are the local date.
    SlashedDatePrefix(usize),
    /// `YYYY-MM-DD`, local.
    Iso(usize),
    /// Epoch milliseconds of local midnight.
    EpochMillis(usize),
    /// An ISO 8601 UTC instant.
    UtcInstant(usize),
}

/// How a layout gives the local hour.
#[derive(Debug, Clone, Copy)]
enum HourColumn {
    /// The file has none.
    None,
    /// A number 0-23 (`NA` where unknown).
    Number(usize),
    /// A clock time `HH:MM`.
    Clock(usize),
    /// The hour of the date column's instant.
    FromInstant,
}

/// How a layout gives the position.
#[derive(Debug, Clone, Copy)]
enum Position {
    /// Latitude and longitude columns.
    Columns(usize, usize),
    /// A geometry text holding `lon, lat`.
    Geometry(usize),
}

/// Column positions of one layout.
#[derive(Debug, Clone, Copy)]
struct Layout {
    date: DateColumn,
    hour: HourColumn,
    position: Position,
    event_id: Option<usize>,
    description: Option<usize>,
}

impl Layout {
    fn row(&self, record: &csv::StringRecord, offence: Option<usize>, tz: Tz) -> RawRow {
        let text = |i: usize| record.get(i).unwrap_or("");
        let (date, instant_hour) = match self.date {
            DateColumn::SlashedDatePrefix(i) => (
                text(i)
                    .get(..10)
                    .and_then(|d| NaiveDate::parse_from_str(d, "%Y/%m/%d").ok()),
                None,
            ),
            DateColumn::Iso(i) => (
                NaiveDate::parse_from_str(text(i).trim(), "%Y-%m-%d").ok(),
                None,
            ),
            DateColumn::EpochMillis(i) => (local_date_of_epoch_ms(text(i), tz), None),
            DateColumn::UtcInstant(i) => {
                let local = local_time_of_instant(text(i), tz);
                (
                    local.map(|t| t.date()),
                    local.and_then(|t| u8::try_from(t.hour()).ok()),
                )
            }
        };
        let hour = match self.hour {
            HourColumn::None => None,
            HourColumn::Number(i) => parse_hour(text(i)),
            HourColumn::Clock(i) => hour_of_clock(text(i)),
            HourColumn::FromInstant => instant_hour,
        };
        let (lat, lng) = match self.position {
            Position::Columns(lat, lng) => (parse_f64(text(lat)), parse_f64(text(lng))),
            Position::Geometry(i) => {
                first_two_numbers(text(i)).map_or((None, None), |(lng, lat)| (Some(lat), Some(lng)))
            }
        };
        RawRow {
            event_id: self
                .event_id
                .map(|i| text(i).to_owned())
                .filter(|s| !s.is_empty()),
            date,
            hour,
            lat,
            lng,
            offence: offence.map(|i| text(i).to_owned()).unwrap_or_default(),
            description: self.description.map(|i| text(i).to_owned()),
            premises: None,
            reported: None,
        }
    }
}

#[cfg(test)]
mod tests;
