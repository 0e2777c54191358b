//! A loaded city model: grid lookups, the forecast calendar, per cell-week
//! forecasts decoded from an artifact, the city's routable networks and values
//! kept between requests; an [`Atlas`] holds the cities an engine serves.

mod atlas;
mod boundaries;
mod derived;
mod kept;
mod networks;
mod streets;

use alloc::borrow::ToOwned;
use alloc::vec::Vec;

use chrono::{Datelike, NaiveDate, NaiveDateTime};
use h3o::{Boundary, CellIndex};

pub use atlas::{Atlas, LocateError};
use boundaries::CellBoundaries;
pub(crate) use derived::Derived;
pub use kept::KEPT_VALUES;
use kept::Kept;
pub use networks::Network;
use networks::Networks;
pub use streets::StreetLayer;

use crate::artifact::{self, ArtifactError, CityArtifact, RATE_CLASSES};
use crate::forecast::{
    self, BandInstance, ClassRates, CrimeClass, Dispersion, OutcomeProbabilities, RiskLevel,
    TimeWindow,
};
use crate::roads::hex_lattice;

/// A date the model has no forecast for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("no forecast for {date}: forecasts run from {first} to {last}")]
pub struct DateOutOfRange {
    /// The date asked for.
    pub date: NaiveDate,
    /// Monday of the first forecast week.
    pub first: NaiveDate,
    /// Sunday of the last forecast week.
    pub last: NaiveDate,
}

/// A forecast for one cell and week.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Forecast {
    /// Expected incident counts per crime class (`forecast::CRIME_CLASSES` order).
    pub rates: ClassRates,
    /// Outcome probabilities (`CrimeClass::ALL` order).
    pub probabilities: OutcomeProbabilities,
}

impl Forecast {
    /// From expected counts and negative binomial sizes.
    #[must_use]
    pub fn new(rates: ClassRates, dispersion: &Dispersion) -> Self {
        Self {
            rates,
            probabilities: forecast::outcome_distribution_with(&rates, dispersion),
        }
    }

    /// From expected counts, taking counts as Poisson.
    #[must_use]
    pub fn from_rates(rates: ClassRates) -> Self {
        Self::new(rates, &forecast::POISSON)
    }

    /// The most probable outcome (ties: API order).
    #[must_use]
    pub fn dominant(&self) -> CrimeClass {
        let mut best = 0;
        for (i, p) in self.probabilities.iter().enumerate() {
            if *p > self.probabilities[best] {
                best = i;
            }
        }
        CrimeClass::ALL[best]
    }

    /// The risk level from the `NO_CRIME` probability.
    #[must_use]
    pub fn risk_level(&self) -> RiskLevel {
        // Probabilities are normalised to 0..=1, so this cannot fail; clamp anyway.
        let p = self.probabilities[CrimeClass::NoCrime.index()].clamp(0.0, 1.0);
        RiskLevel::from_no_crime_probability(p).unwrap_or(RiskLevel::VeryHigh)
    }
}

/// The dates a city has forecasts for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PredictionRange {
    /// Monday of the first forecast week.
    pub start: NaiveDate,
    /// Sunday ending the last forecast week.
    pub end: NaiveDate,
    /// Number of forecast weeks.
    pub weeks_available: usize,
    /// Monday of the current week in the city's local time, `None` if the clock is
    /// outside the representable dates.
    pub current_week: Option<NaiveDate>,
}

/// Monday of the week containing `date`.
#[must_use]
pub fn week_start(date: NaiveDate) -> NaiveDate {
    date - chrono::Days::new(u64::from(date.weekday().num_days_from_monday()))
}

/// One city's model, ready for queries.
#[derive(Debug, Clone, PartialEq)]
pub struct CityModel {
    artifact: CityArtifact,
    networks: Networks,
    boundaries: CellBoundaries,
    streets: derived::Derived<StreetLayer>,
    #[cfg(feature = "std")]
    gazetteer: derived::Derived<crate::places::Gazetteer>,
    kept: Kept,
}

impl CityModel {
    /// Decodes an artifact file.
    ///
    /// # Errors
    /// [`ArtifactError`] when the bytes are not a valid artifact.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, ArtifactError> {
        artifact::decode(bytes).map(Self::from_artifact)
    }

    /// The same model answering under a published version label (see
    /// [`crate::artifact::ManifestCity::version`]) instead of the label written
    /// into the file, which cannot name the file's own digest.
    #[must_use]
    pub fn with_version_label(mut self, label: &str) -> Self {
        label.clone_into(&mut self.artifact.model.version);
        self
    }

    /// Wraps an artifact already in memory (the build uses this).
    #[must_use]
    pub fn from_artifact(artifact: CityArtifact) -> Self {
        Self {
            artifact,
            networks: Networks::new(),
            boundaries: CellBoundaries::new(),
            streets: derived::Derived::new(),
            #[cfg(feature = "std")]
            gazetteer: derived::Derived::new(),
            kept: Kept::default(),
        }
    }

    /// The value kept on this city under `key`, or `compute`'s, kept from now on (the
    /// [`KEPT_VALUES`] most recently used are kept). A value is found only by a key of
    /// the same type that compares equal, so `key` must name every input of
    /// `compute` exactly. Shared by every request that holds the city, in the Worker's
    /// isolate and the npm package alike.
    pub(crate) fn kept<K, V>(&self, key: K, compute: impl FnOnce() -> V) -> alloc::sync::Arc<V>
    where
        K: core::any::Any + Send + Sync + Eq,
        V: core::any::Any + Send + Sync,
    {
        self.kept.get_or_insert(key, compute)
    }

    /// How many values [`Self::kept`] holds (for tests and diagnostics).
    #[must_use]
    pub fn kept_count(&self) -> usize {
        self.kept.len()
    }

    /// The city's own network (roads, or a hex lattice where it has no road data),
    /// indexed on first use; `None` when the artifact carries no graph.
    #[must_use]
    pub fn road_network(&self) -> Option<Network<'_>> {
        let graph = self.artifact.road_graph.as_ref()?;
        Some(self.networks.roads(graph))
    }

    /// A lattice over the city's own resolution-8 cells, for routes that do not
    /// follow roads; built on first use.
    #[must_use]
    pub fn grid_network(&self) -> Network<'_> {
        self.networks.grid(|| {
            let cells: Vec<CellIndex> = (0..self.cell_count())
                .filter_map(|p| self.cell(p))
                .collect();
            hex_lattice(&cells, &self.artifact.cells, "H3 resolution-8 grid")
        })
    }

    /// The city's street layer ([`StreetLayer`]) over its own network, derived on
    /// first use.
    #[must_use]
    pub fn street_layer(&self) -> &StreetLayer {
        self.streets
            .get_or_init(|| match self.artifact.road_graph.as_ref() {
                Some(graph) => StreetLayer::new(&self.artifact, graph),
                None => StreetLayer::new(&self.artifact, self.grid_network().graph),
            })
    }

    /// The city's places ready to search by name, derived on first use.
    #[cfg(feature = "std")]
    #[must_use]
    pub fn gazetteer(&self) -> &crate::places::Gazetteer {
        self.gazetteer
            .get_or_init(|| crate::places::Gazetteer::new(self.artifact.road_graph.as_ref()))
    }

    /// The underlying artifact.
    #[must_use]
    pub fn artifact(&self) -> &CityArtifact {
        &self.artifact
    }

    /// Number of cells in the grid.
    #[must_use]
    pub fn cell_count(&self) -> usize {
        self.artifact.cells.len()
    }

    /// The cell at a grid position.
    #[must_use]
    pub fn cell(&self, position: usize) -> Option<CellIndex> {
        let raw = *self.artifact.cells.get(position)?;
        CellIndex::try_from(raw).ok()
    }

    /// Grid position of a cell, `None` outside the city.
    #[must_use]
    pub fn position(&self, cell: CellIndex) -> Option<usize> {
        self.artifact.cells.binary_search(&u64::from(cell)).ok()
    }

    /// `cell.boundary()`: for the grid's cells, computed once (on first use) and kept.
    #[must_use]
    pub fn cell_boundary(&self, cell: CellIndex) -> Boundary {
        self.position(cell)
            .and_then(|p| self.boundaries.at(&self.artifact.cells, p))
            .unwrap_or_else(|| cell.boundary())
    }

    /// Monday of the first forecast week.
    #[must_use]
    pub fn first_week(&self) -> NaiveDate {
        self.artifact.calendar.first_week
    }

    /// Monday of the last forecast week.
    #[must_use]
    pub fn last_week(&self) -> NaiveDate {
        self.week_monday(self.week_count() - 1)
    }

    /// Number of forecast weeks.
    #[must_use]
    pub fn week_count(&self) -> usize {
        self.artifact.calendar.weeks as usize
    }

    /// Monday of forecast week `index`.
    #[must_use]
    pub fn week_monday(&self, index: usize) -> NaiveDate {
        self.first_week() + chrono::Days::new(7 * index as u64)
    }

    /// The city's UTC offset in seconds at a UTC instant (seconds since the epoch).
    /// Instants outside the table take its nearest entry.
    #[must_use]
    pub fn utc_offset(&self, utc_seconds: i64) -> i32 {
        let table = &self.artifact.utc_offsets;
        let after = table.partition_point(|&(from, _)| from <= utc_seconds);
        table[after.saturating_sub(1)].1
    }

    /// The local calendar date in the city at a UTC instant (seconds since the epoch).
    #[must_use]
    pub fn local_date(&self, utc_seconds: i64) -> Option<NaiveDate> {
        let local = utc_seconds.checked_add(i64::from(self.utc_offset(utc_seconds)))?;
        chrono::DateTime::from_timestamp(local, 0).map(|t| t.date_naive())
    }

    /// The prediction range at a UTC instant: from the Monday of the first forecast
    /// week to the Sunday ending the last, and the current week.
    #[must_use]
    pub fn prediction_range(&self, now_utc_seconds: i64) -> PredictionRange {
        PredictionRange {
            start: self.first_week(),
            end: self.last_week() + chrono::Days::new(6),
            weeks_available: self.week_count(),
            current_week: self.current_week(now_utc_seconds),
        }
    }

    /// Monday of the current week at a UTC instant, in the city's local time
    /// (whether or not it is inside the prediction range).
    #[must_use]
    pub fn current_week(&self, utc_seconds: i64) -> Option<NaiveDate> {
        self.local_date(utc_seconds).map(week_start)
    }

    /// The forecast week containing `date`.
    ///
    /// # Errors
    /// [`DateOutOfRange`] outside the forecast weeks.
    pub fn week_index(&self, date: NaiveDate) -> Result<usize, DateOutOfRange> {
        let days = (date - self.first_week()).num_days();
        let week = days.div_euclid(7);
        if days >= 0 && (week as usize) < self.week_count() {
            Ok(week as usize)
        } else {
            Err(DateOutOfRange {
                date,
                first: self.first_week(),
                last: self.last_week() + chrono::Days::new(6),
            })
        }
    }

    /// Expected counts of a cell-week. Positions out of range give zeros.
    #[must_use]
    pub fn rates(&self, position: usize, week: usize) -> ClassRates {
        let start = (week * self.cell_count() + position) * RATE_CLASSES;
        let mut rates = [0.0; RATE_CLASSES];
        if let Some(slice) = self.artifact.rates.get(start..start + RATE_CLASSES) {
            for (rate, &q) in rates.iter_mut().zip(slice) {
                *rate = artifact::dequantise_rate(q);
            }
        }
        rates
    }

    /// Negative binomial sizes of forecast week `week` (Poisson when out of range).
    #[must_use]
    pub fn dispersion(&self, week: usize) -> Dispersion {
        self.artifact
            .dispersion
            .get(week)
            .copied()
            .unwrap_or(forecast::POISSON)
    }

    /// The forecast of a cell-week.
    #[must_use]
    pub fn forecast(&self, position: usize, week: usize) -> Forecast {
        Forecast::new(self.rates(position, week), &self.dispersion(week))
    }

    /// Expected counts of a cell in a window of forecast week `week` (the week's, a
    /// band's, or the week's nights').
    #[must_use]
    pub fn window_rates(&self, position: usize, week: usize, window: TimeWindow) -> ClassRates {
        self.artifact
            .profiles
            .window_rates(position, window, &self.rates(position, week))
    }

    /// The local date and time in the city at a UTC instant (seconds since the epoch).
    #[must_use]
    pub fn local_time(&self, utc_seconds: i64) -> Option<NaiveDateTime> {
        let local = utc_seconds.checked_add(i64::from(self.utc_offset(utc_seconds)))?;
        chrono::DateTime::from_timestamp(local, 0).map(|t| t.naive_utc())
    }

    /// The forecast of a cell in the time band holding `local` (the city's local
    /// time), from forecast week `week`: the week's expected counts spread by the
    /// cell's time-of-day profile, with the week's dispersion (a band of a negative
    /// binomial week is negative binomial with the same size).
    #[must_use]
    pub fn band_forecast(
        &self,
        position: usize,
        week: usize,
        local: NaiveDateTime,
    ) -> (BandInstance, Forecast) {
        let profiles = &self.artifact.profiles;
        let band = profiles.bands.instance(local);
        let rates = profiles.band_rates(position, band.band, &self.rates(position, week));
        (band, Forecast::new(rates, &self.dispersion(week)))
    }
}

#[cfg(test)]
mod tests;
