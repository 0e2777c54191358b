//! The cleaning, from source rows to clean incidents: map each row to a crime class or
//! reject it with a reason, de-duplicate events reported in several files, build the
//! city grid and drop what falls outside it. A source's rows are its configured files'
//! rows followed by the new rows of the files `refresh` took in (`intake`, which keeps
//! them); rows of those files that were already known are rejected as duplicates.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;
use std::path::Path;

use chrono::{Datelike, NaiveDate, Weekday};
use chrono_tz::Tz;
use geo::{Distance, Haversine, Point};
use hexrisk_engine::CrimeClass;

use super::boundary::{self, BoundaryError, CityGrid};
use super::config::{CityConfig, SourceFormat};
use super::default_hours;
use super::intake::{self, CityIntake, IntakeError};
use super::sources::{RawRow, SourceError};

/// Why a source row is not used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rejection {
    /// The offence value is not in the city's mapping.
    Unmapped,
    /// The mapping says the row is not an offence (missing person, non-criminal...).
    NotAnOffence,
    /// The date is missing or unreadable.
    BadDate,
    /// The date lies outside the modelled full weeks of the city's span.
    OutsideSpan,
    /// Coordinates missing, at (0, 0), or implausibly far from the city.
    BadCoordinates,
    /// The event is already counted from another row or file.
    Duplicate,
    /// The point lies outside the city grid.
    OutsideCity,
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Unmapped => "offence not in the mapping",
            Self::NotAnOffence => "not an offence",
            Self::BadDate => "bad date",
            Self::OutsideSpan => "date outside the span",
            Self::BadCoordinates => "bad coordinates",
            Self::Duplicate => "duplicate",
            Self::OutsideCity => "outside the city",
        })
    }
}

/// What became of one source row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowFate {
    /// Kept as an incident of this class, at this position of
    /// [`Ingested::incidents`].
    Kept(CrimeClass, usize),
    /// Not used, for this reason.
    Rejected(Rejection),
}

/// One line of a source's ledger: a row, what became of it and, for a row that was
/// mapped, dated in the span and placed (a candidate, whatever became of it later),
/// its local date and hour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LedgerEntry {
    /// The row's position among the source's rows read (the configured files in
    /// order, then the files taken in).
    pub position: u64,
    /// What became of it.
    pub fate: RowFate,
    /// A candidate's local date and hour (`None` where the source has no hour).
    pub occurred: Option<(NaiveDate, Option<u8>)>,
}

/// A clean incident.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Incident {
    /// Local calendar date.
    pub date: NaiveDate,
    /// Crime class.
    pub class: CrimeClass,
    /// Latitude.
    pub lat: f64,
    /// Longitude.
    pub lng: f64,
    /// Position of the incident's cell in the city grid.
    pub cell: usize,
    /// Local hour, where the source records one.
    pub hour: Option<u8>,
    /// The incident's weight in learning time-of-day profiles: 1, less at a
    /// source's default hours ([`super::default_hours::default_hour_weights`]), 0
    /// without an hour.
    pub hour_weight: f64,
    /// Whether the source's premises put the incident on the street (its
    /// configured [`super::config::StreetPremises`]); `None` where the source
    /// records no premises.
    pub street: Option<bool>,
    /// Local date of the report, where the source publishes one: the backtest as
    /// known then leaves the incident out of forecasts made before it.
    pub reported: Option<NaiveDate>,
}

/// What happened to the rows of one source.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SourceReport {
    /// Rows read.
    pub rows: u64,
    /// Rows kept, by class.
    pub accepted: BTreeMap<CrimeClass, u64>,
    /// Rows rejected, by reason.
    pub rejected: BTreeMap<Rejection, u64>,
    /// Candidate rows (mapped, dated and placed in the span) per local hour; rows
    /// without an hour are not counted.
    pub hours: [u64; 24],
    /// The date and local hour of each candidate row with an hour, sorted, so that
    /// a histogram of any span can be taken (`fit/leaks.rs`).
    pub dated_hours: Vec<(NaiveDate, u8)>,
    /// Every row's ledger entry, in position order: the ledger behind `accepted`,
    /// `rejected` and `hours`.
    pub ledger: Vec<LedgerEntry>,
    /// Days from occurrence to report of each kept incident whose source publishes
    /// a report time (a report dated before its occurrence counts 0); empty for a
    /// source without report times.
    pub report_lags: Vec<u32>,
    /// Rows rejected as [`Rejection::Unmapped`], by their offence value: what a
    /// mapping misses, named, never silently dropped.
    pub unmapped: BTreeMap<String, u64>,
}

impl SourceReport {
    /// Records a row's fate in the ledger and the tallies.
    fn note(&mut self, position: u64, fate: RowFate, occurred: Option<(NaiveDate, Option<u8>)>) {
        match fate {
            RowFate::Kept(class, _) => *self.accepted.entry(class).or_default() += 1,
            RowFate::Rejected(reason) => *self.rejected.entry(reason).or_default() += 1,
        }
        self.ledger.push(LedgerEntry {
            position,
            fate,
            occurred,
        });
    }

    /// Rows kept.
    #[must_use]
    pub fn accepted_total(&self) -> u64 {
        self.accepted.values().sum()
    }

    /// The offence values not in the mapping with their rows, most rows first
    /// (`"Case Closure" 12, "Other" 3`); `None` when every value mapped.
    #[must_use]
    pub fn unmapped_summary(&self) -> Option<String> {
        let mut values: Vec<(&String, &u64)> = self.unmapped.iter().collect();
        values.sort_by(|a, b| b.1.cmp(a.1).then_with(|| a.0.cmp(b.0)));
        let listed: Vec<String> = values
            .iter()
            .map(|(value, rows)| format!("{value:?} {rows}"))
            .collect();
        (!listed.is_empty()).then(|| listed.join(", "))
    }
}

/// The full weeks (Monday to Sunday) inside a span of local dates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Weeks {
    /// Monday of the first full week.
    pub first: NaiveDate,
    /// Number of full weeks.
    pub count: usize,
}

impl Weeks {
    /// The full weeks inside `start..=end`.
    #[must_use]
    pub fn within(start: NaiveDate, end: NaiveDate) -> Self {
        let offset = (7 - i64::from(start.weekday().num_days_from_monday())) % 7;
        let first = start + chrono::Days::new(offset as u64);
        let days = (end - first).num_days() + 1;
        let count = if days < 7 { 0 } else { (days / 7) as usize };
        debug_assert_eq!(first.weekday(), Weekday::Mon);
        Self { first, count }
    }

    /// The week index of a date, if the date lies in one of the weeks.
    #[must_use]
    pub fn index_of(&self, date: NaiveDate) -> Option<usize> {
        let days = (date - self.first).num_days();
        if days < 0 {
            return None;
        }
        let week = (days / 7) as usize;
        (week < self.count).then_some(week)
    }

    /// Monday of week `index`.
    #[must_use]
    pub fn start_of(&self, index: usize) -> NaiveDate {
        self.first + chrono::Days::new(7 * index as u64)
    }
}

/// The result of ingesting one city.
#[derive(Debug, Clone)]
pub struct Ingested {
    /// Clean incidents inside the grid and the weeks.
    pub incidents: Vec<Incident>,
    /// Per-source accounting, by source name.
    pub reports: BTreeMap<String, SourceReport>,
    /// The city grid.
    pub grid: CityGrid,
    /// The modelled weeks.
    pub weeks: Weeks,
}

/// Ingestion failure.
#[derive(Debug, thiserror::Error)]
pub enum IngestError {
    /// A source file failed.
    #[error(transparent)]
    Source(#[from] SourceError),
    /// The boundary failed.
    #[error(transparent)]
    Boundary(#[from] BoundaryError),
    /// The configuration is inconsistent.
    #[error("{0}")]
    Config(String),
    /// The files taken in by `refresh` failed.
    #[error(transparent)]
    Intake(#[from] IntakeError),
}

/// A row that passed mapping, date and coordinate checks.
struct Candidate {
    source: String,
    position: u64,
    event_id: Option<String>,
    format: SourceFormat,
    date: NaiveDate,
    hour: Option<u8>,
    hour_weight: f64,
    class: CrimeClass,
    lat: f64,
    lng: f64,
    street: Option<bool>,
    reported: Option<NaiveDate>,
}

/// Rejects a candidate.
fn reject(reports: &mut BTreeMap<String, SourceReport>, candidate: &Candidate, reason: Rejection) {
    reports.entry(candidate.source.clone()).or_default().note(
        candidate.position,
        RowFate::Rejected(reason),
        Some((candidate.date, candidate.hour)),
    );
}

/// Keeps a candidate in `cell` as an incident, with its reporting lag.
fn keep(
    reports: &mut BTreeMap<String, SourceReport>,
    incidents: &mut Vec<Incident>,
    candidate: &Candidate,
    cell: usize,
) {
    let report = reports.entry(candidate.source.clone()).or_default();
    report.note(
        candidate.position,
        RowFate::Kept(candidate.class, incidents.len()),
        Some((candidate.date, candidate.hour)),
    );
    if let Some(reported) = candidate.reported {
        let lag = (reported - candidate.date).num_days().max(0);
        report
            .report_lags
            .push(u32::try_from(lag).unwrap_or(u32::MAX));
    }
    incidents.push(Incident {
        date: candidate.date,
        class: candidate.class,
        lat: candidate.lat,
        lng: candidate.lng,
        cell,
        hour: candidate.hour,
        hour_weight: candidate.hour_weight,
        street: candidate.street,
        reported: candidate.reported,
    });
}

/// Reads, classifies and cleans every source of a city from its configured files.
///
/// # Errors
/// [`IngestError`] when a file or the boundary cannot be read.
pub fn ingest(city: &CityConfig, data_dir: &Path) -> Result<Ingested, IngestError> {
    ingest_with(city, data_dir, &CityIntake::none())
}

/// Reads, classifies and cleans every source of a city from its configured files
/// and the files taken in. The span is `city`'s as given (see
/// [`CityIntake::extend`]).
///
/// # Errors
/// [`IngestError`] when a file or the boundary cannot be read.
pub fn ingest_with(
    city: &CityConfig,
    data_dir: &Path,
    taken_in: &CityIntake,
) -> Result<Ingested, IngestError> {
    let tz: Tz = city
        .timezone
        .parse()
        .map_err(|_| IngestError::Config(format!("unknown time zone {}", city.timezone)))?;
    let weeks = Weeks::within(city.span.start, city.span.end);
    let plausible = city.boundary.plausible_box;
    let mut reports: BTreeMap<String, SourceReport> = BTreeMap::new();
    let mut candidates = Vec::new();

    for (name, configured) in &city.sources {
        let source = &*configured.as_read(taken_in.fed.contains_key(name));
        let report = reports.entry(name.clone()).or_default();
        let rows = intake::source_rows(name, source, data_dir, taken_in, tz)?;
        report.rows += rows.read;
        for position in rows.duplicates {
            report.note(position, RowFate::Rejected(Rejection::Duplicate), None);
        }
        let first = candidates.len();
        for (position, row) in rows.rows {
            match classify(&row, source, weeks, plausible) {
                Ok(class) => candidates.push(Candidate {
                    source: name.clone(),
                    position,
                    event_id: row.event_id,
                    format: source.format,
                    date: row.date.unwrap_or(weeks.first),
                    hour: row.hour,
                    hour_weight: 0.0,
                    class,
                    lat: row.lat.unwrap_or_default(),
                    lng: row.lng.unwrap_or_default(),
                    street: source
                        .street
                        .as_ref()
                        .map(|s| row.premises.as_deref().is_some_and(|p| s.is_street(p))),
                    reported: row.reported,
                }),
                Err(reason) => {
                    if reason == Rejection::Unmapped {
                        *report.unmapped.entry(row.offence.clone()).or_default() += 1;
                    }
                    report.note(position, RowFate::Rejected(reason), None);
                }
            }
        }
        // A source's default hours are found from its own hour histogram.
        let ours = &mut candidates[first..];
        report.hours = default_hours::histogram(ours.iter().map(|c| c.hour));
        report.dated_hours = ours
            .iter()
            .filter_map(|c| c.hour.map(|h| (c.date, h)))
            .collect();
        // In date order, whatever the order of the files they came from.
        report.dated_hours.sort_unstable();
        let weights = default_hours::default_hour_weights(&report.hours);
        for candidate in ours {
            candidate.hour_weight = candidate.hour.map_or(0.0, |h| weights[usize::from(h)]);
        }
    }

    let candidates = dedupe(city, candidates, &mut reports);

    let grid = match (&city.boundary.file, city.boundary.derived_from_incidents) {
        (Some(file), _) => {
            let id = city.boundary.precinct_id.as_deref().unwrap_or("id");
            let name = city.boundary.precinct_name.as_deref().unwrap_or(id);
            boundary::grid_from_precincts(boundary::read_precincts(
                &data_dir.join(file),
                id,
                name,
            )?)?
        }
        (None, true) => boundary::grid_from_incidents(candidates.iter().map(|c| (c.lat, c.lng)))?,
        (None, false) => return Err(IngestError::Config(format!("{}: no boundary", city.code))),
    };

    let mut incidents = Vec::with_capacity(candidates.len());
    for candidate in candidates {
        let cell = hexrisk_engine::grid::cell_at(candidate.lat, candidate.lng)
            .ok()
            .and_then(|cell| grid.position(cell));
        match cell {
            Some(cell) => keep(&mut reports, &mut incidents, &candidate, cell),
            None => reject(&mut reports, &candidate, Rejection::OutsideCity),
        }
    }
    for report in reports.values_mut() {
        report.ledger.sort_unstable_by_key(|entry| entry.position);
    }
    Ok(Ingested {
        incidents,
        reports,
        grid,
        weeks,
    })
}

fn classify(
    row: &RawRow,
    source: &super::config::SourceConfig,
    weeks: Weeks,
    plausible: Option<super::config::BoundingBox>,
) -> Result<CrimeClass, Rejection> {
    let mapped = source
        .map(&row.offence, row.description.as_deref())
        .ok_or(Rejection::Unmapped)?;
    let class = mapped.class().ok_or(Rejection::NotAnOffence)?;
    let date = row.date.ok_or(Rejection::BadDate)?;
    weeks.index_of(date).ok_or(Rejection::OutsideSpan)?;
    let (Some(lat), Some(lng)) = (row.lat, row.lng) else {
        return Err(Rejection::BadCoordinates);
    };
    // Rows geocoded to (0, 0) or outside the valid ranges.
    if (lat.abs() < 1.0 && lng.abs() < 1.0) || hexrisk_engine::grid::validate(lat, lng).is_err() {
        return Err(Rejection::BadCoordinates);
    }
    if plausible.is_some_and(|b| !b.contains(lat, lng)) {
        return Err(Rejection::BadCoordinates);
    }
    Ok(class)
}

/// Toronto: one event per `EVENT_UNIQUE_ID` across homicides and shootings (homicide
/// rows first), and MCI assaults matching a kept homicide or shooting dropped.
fn dedupe(
    city: &CityConfig,
    candidates: Vec<Candidate>,
    reports: &mut BTreeMap<String, SourceReport>,
) -> Vec<Candidate> {
    let Some(rule) = city.dedupe else {
        return candidates;
    };
    let is_event_file = |f: SourceFormat| {
        matches!(
            f,
            SourceFormat::TorontoHomicides | SourceFormat::TorontoShootings
        )
    };
    // Homicides before shootings, so the homicide row of a fatal shooting is kept.
    let (mut events, rest): (Vec<Candidate>, Vec<Candidate>) = candidates
        .into_iter()
        .partition(|c| is_event_file(c.format));
    events.sort_by_key(|c| u8::from(c.format != SourceFormat::TorontoHomicides));

    let mut seen_ids = HashSet::new();
    let mut kept_events = Vec::new();
    for event in events {
        let fresh = event
            .event_id
            .as_ref()
            .is_none_or(|id| seen_ids.insert(id.clone()));
        if fresh {
            kept_events.push(event);
        } else {
            reject(reports, &event, Rejection::Duplicate);
        }
    }

    let mut by_date: HashMap<NaiveDate, Vec<Point<f64>>> = HashMap::new();
    for event in &kept_events {
        by_date
            .entry(event.date)
            .or_default()
            .push(Point::new(event.lng, event.lat));
    }
    let mut kept = kept_events;
    for candidate in rest {
        let duplicate = candidate.format == SourceFormat::TorontoMci
            && candidate.class == CrimeClass::BatteryAssault
            && by_date.get(&candidate.date).is_some_and(|points| {
                let here = Point::new(candidate.lng, candidate.lat);
                points
                    .iter()
                    .any(|p| Haversine.distance(*p, here) <= rule.mci_assault_radius_m)
            });
        if duplicate {
            reject(reports, &candidate, Rejection::Duplicate);
        } else {
            kept.push(candidate);
        }
    }
    kept
}

#[cfg(test)]
mod tests;
