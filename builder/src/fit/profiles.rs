//! Time-of-day profiles: for each cell and class, the share of the weekly expected
//! count that falls in each time band of the week ([`TimeBands`]).
//!
//! A cell's own incidents are few, so its profile is shrunk towards its
//! neighbourhood's (the cell and its ring-1 neighbours), and that towards the
//! city's, each by adding pseudo-incidents spread like the next level up:
//!
//! ```text
//! city_c   = (n_city_c + CITY_PRIOR · city_all) / (N_city_c + CITY_PRIOR)
//! hood_c   = (n_hood_c + κ_hood · city_c)        / (N_hood_c + κ_hood)
//! cell_c   = (n_cell_c + κ_cell · hood_c)        / (N_cell_c + κ_cell)
//! ```
//!
//! where `n` counts a class's incidents per band (weighted for default hours,
//! [`crate::inputs::default_hours`]), `N` is their sum, and `city_all` is the city's
//! profile over all classes. A class with fewer than [`MIN_CLASS_INCIDENTS`] incidents with an hour
//! takes `city_all` everywhere, and a city with fewer than that in all takes the flat
//! profile (the weekly rate spread evenly over the hours): [`ProfileBasis`].

use std::ops::Range;

use hexrisk_engine::forecast::{Band, ProfileBasis, TimeBands};

use super::counts::CLASSES;
use crate::inputs::cleaning::{Incident, Weeks};

/// Pseudo-incidents pulling a class's city profile towards the all-class one.
pub const CITY_PRIOR: f64 = 50.0;

/// A class (or a city) with fewer incidents with an hour than this has no profile
/// of its own.
pub const MIN_CLASS_INCIDENTS: f64 = 200.0;

/// Shrinkage strengths, in pseudo-incidents.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Shrinkage {
    /// Towards the city, for a neighbourhood.
    pub hood: f64,
    /// Towards the neighbourhood, for a cell.
    pub cell: f64,
}

/// Weighted incident counts `[cell][class][band]` over some weeks.
#[derive(Debug, Clone, PartialEq)]
pub struct BandCounts {
    /// The band layout.
    pub bands: TimeBands,
    /// Cells.
    pub cells: usize,
    counts: Vec<f64>,
}

/// The class slot of an incident (the order of [`hexrisk_engine::forecast::CRIME_CLASSES`]).
pub(crate) fn slot(incident: &Incident) -> usize {
    hexrisk_engine::forecast::CRIME_CLASSES
        .iter()
        .position(|&c| c == incident.class)
        .unwrap_or(CLASSES - 1)
}

/// The incidents that teach the profiles among those of `weeks` (indexes of
/// `calendar`), with their bands: those with an hour and a weight above zero. An
/// incident belongs to the week of its band day (from Sunday 22:00, the next Monday's
/// week), as the band backtest observes it, so that no incident both teaches the
/// profiles fitted before a backtest and is scored in its first band.
fn weighted_in<'a>(
    incidents: &'a [Incident],
    calendar: &'a Weeks,
    weeks: Range<usize>,
    bands: TimeBands,
) -> impl Iterator<Item = (&'a Incident, Band)> {
    incidents.iter().filter_map(move |incident| {
        if incident.hour_weight <= 0.0 {
            return None;
        }
        let (band, day) = band_of(bands, incident)?;
        calendar
            .index_of(day)
            .filter(|w| weeks.contains(w))
            .map(|_| (incident, band))
    })
}

/// The band of an incident with an hour.
#[must_use]
pub fn band_of(bands: TimeBands, incident: &Incident) -> Option<(Band, chrono::NaiveDate)> {
    incident.hour.map(|hour| bands.at(incident.date, hour))
}

impl BandCounts {
    /// Counts the incidents with an hour whose band days are in `weeks` (indexes of
    /// `calendar`).
    #[must_use]
    pub fn of(
        incidents: &[Incident],
        calendar: &Weeks,
        weeks: Range<usize>,
        bands: TimeBands,
        cells: usize,
    ) -> Self {
        let mut counts = vec![0.0; cells * CLASSES * bands.count()];
        for (incident, band) in weighted_in(incidents, calendar, weeks, bands) {
            let at = (incident.cell * CLASSES + slot(incident)) * bands.count() + bands.index(band);
            counts[at] += incident.hour_weight;
        }
        Self {
            bands,
            cells,
            counts,
        }
    }

    fn of_cell(&self, cell: usize, class: usize) -> &[f64] {
        let n = self.bands.count();
        let at = (cell * CLASSES + class) * n;
        &self.counts[at..at + n]
    }
}

/// Learnt profiles: shares `[cell][class][band]`, each cell-class summing to 1.
#[derive(Debug, Clone, PartialEq)]
pub struct Profiles {
    /// The band layout.
    pub bands: TimeBands,
    /// Shares `[cell][class][band]`.
    pub shares: Vec<f64>,
    /// The city's share per class and band `[class][band]` (the city-wide profile).
    pub city: Vec<f64>,
    /// What each class's profiles come from.
    pub basis: [ProfileBasis; CLASSES],
}

/// `(counts + prior · towards) / (total + prior)`, band by band.
fn shrink(counts: &[f64], prior: f64, towards: &[f64]) -> Vec<f64> {
    let total: f64 = counts.iter().sum();
    counts
        .iter()
        .zip(towards)
        .map(|(n, t)| (n + prior * t) / (total + prior))
        .collect()
}

fn flat(bands: TimeBands) -> Vec<f64> {
    (0..bands.count())
        .map(|i| bands.flat_share(bands.band(i)))
        .collect()
}

impl Profiles {
    /// Fits the profiles of every cell from `counts`; `neighbours` are each cell's
    /// ring-1 neighbours in the grid.
    #[must_use]
    pub fn fit(counts: &BandCounts, neighbours: &[Vec<usize>], shrinkage: Shrinkage) -> Self {
        let bands = counts.bands;
        let n = bands.count();
        let flat = flat(bands);
        let sum_cells = |class: usize, cells: &mut dyn Iterator<Item = usize>| {
            let mut total = vec![0.0; n];
            for cell in cells {
                for (t, c) in total.iter_mut().zip(counts.of_cell(cell, class)) {
                    *t += c;
                }
            }
            total
        };
        let per_class: Vec<Vec<f64>> = (0..CLASSES)
            .map(|class| sum_cells(class, &mut (0..counts.cells)))
            .collect();
        let all: Vec<f64> = (0..n)
            .map(|b| per_class.iter().map(|c| c[b]).sum())
            .collect();
        let all_total: f64 = all.iter().sum();
        let (city_all, city_basis) = if all_total >= MIN_CLASS_INCIDENTS {
            (shrink(&all, 1.0, &flat), ProfileBasis::City)
        } else {
            (flat.clone(), ProfileBasis::Flat)
        };
        let mut basis = [city_basis; CLASSES];
        let mut city = Vec::with_capacity(CLASSES * n);
        for (class, counted) in per_class.iter().enumerate() {
            if counted.iter().sum::<f64>() >= MIN_CLASS_INCIDENTS {
                basis[class] = ProfileBasis::Cells;
                city.extend(shrink(counted, CITY_PRIOR, &city_all));
            } else {
                city.extend_from_slice(&city_all);
            }
        }
        let mut shares = Vec::with_capacity(counts.cells * CLASSES * n);
        for (cell, around) in neighbours.iter().enumerate().take(counts.cells) {
            for class in 0..CLASSES {
                let city_class = &city[class * n..(class + 1) * n];
                if basis[class] != ProfileBasis::Cells {
                    shares.extend_from_slice(city_class);
                    continue;
                }
                let hood_counts = sum_cells(
                    class,
                    &mut core::iter::once(cell).chain(around.iter().copied()),
                );
                let hood = shrink(&hood_counts, shrinkage.hood, city_class);
                shares.extend(shrink(counts.of_cell(cell, class), shrinkage.cell, &hood));
            }
        }
        Self {
            bands,
            shares,
            city,
            basis,
        }
    }

    /// The same layout with every cell on the city-wide profile.
    #[must_use]
    pub fn city_wide(&self) -> Self {
        let cells = self.shares.len() / (CLASSES * self.bands.count());
        Self {
            shares: (0..cells).flat_map(|_| self.city.iter().copied()).collect(),
            ..self.clone()
        }
    }

    /// The same layout with every cell and class on the flat profile.
    #[must_use]
    pub fn flat(&self) -> Self {
        let flat = flat(self.bands);
        let slots = self.shares.len() / self.bands.count();
        Self {
            shares: (0..slots).flat_map(|_| flat.iter().copied()).collect(),
            city: (0..CLASSES).flat_map(|_| flat.iter().copied()).collect(),
            basis: [ProfileBasis::Flat; CLASSES],
            bands: self.bands,
        }
    }

    /// The shares of one cell and class, band by band.
    #[must_use]
    pub fn of(&self, cell: usize, class: usize) -> &[f64] {
        let n = self.bands.count();
        let at = (cell * CLASSES + class) * n;
        &self.shares[at..at + n]
    }

    /// Mean log-probability per incident of the hour of the week it happened in:
    /// each hour of a band gets `share / (days × band hours)`. Proper and comparable
    /// across band layouts (the outcome is the hour, whatever the bands), so it
    /// chooses the layout and the shrinkage. Incidents are weighted as in fitting.
    #[must_use]
    pub fn hour_log_score(
        &self,
        incidents: &[Incident],
        calendar: &Weeks,
        weeks: Range<usize>,
    ) -> f64 {
        let (mut sum, mut weight) = (0.0, 0.0);
        for (incident, band) in weighted_in(incidents, calendar, weeks, self.bands) {
            let share = self.of(incident.cell, slot(incident))[self.bands.index(band)];
            let hours = f64::from(band.kind.days_per_week() * u32::from(self.bands.band_hours));
            sum += incident.hour_weight * (share / hours).ln();
            weight += incident.hour_weight;
        }
        if weight == 0.0 { 0.0 } else { sum / weight }
    }
}

/// Band layouts tried: bands of 2, 3, 4 and 6 hours, band days from 22:00 (so the
/// night, 22:00-04:00, is one 6-hour band, and never cut at midnight).
pub const CANDIDATE_BANDS: [TimeBands; 4] = [
    TimeBands {
        band_hours: 2,
        day_start_hour: 22,
    },
    TimeBands {
        band_hours: 3,
        day_start_hour: 22,
    },
    TimeBands {
        band_hours: 4,
        day_start_hour: 22,
    },
    TimeBands {
        band_hours: 6,
        day_start_hour: 22,
    },
];

// One band-day start for every layout, as the model card states.
const _: () = {
    let mut i = 1;
    while i < CANDIDATE_BANDS.len() {
        assert!(CANDIDATE_BANDS[i].day_start_hour == CANDIDATE_BANDS[0].day_start_hour);
        i += 1;
    }
};

/// Shrinkage strengths tried, for the neighbourhood and for the cell alike.
pub const CANDIDATE_SHRINKAGE: [f64; 5] = [20.0, 80.0, 320.0, 1280.0, 5120.0];

/// Most weeks held out, just before the backtest, to choose the layout and the
/// shrinkage (at most half of the weeks before the backtest).
pub const VALIDATION_WEEKS: usize = 26;

/// The layout and shrinkage chosen, and how each candidate scored.
#[derive(Debug, Clone, PartialEq)]
pub struct Choice {
    /// The band layout.
    pub bands: TimeBands,
    /// The shrinkage.
    pub shrinkage: Shrinkage,
    /// Weeks the candidates were fitted on and scored on.
    pub fit_weeks: Range<usize>,
    /// Weeks they were scored on.
    pub validation_weeks: Range<usize>,
    /// Each layout's best profiles and scores.
    pub layouts: Vec<LayoutScore>,
}

/// One band layout on the validation weeks.
#[derive(Debug, Clone, PartialEq)]
pub struct LayoutScore {
    /// The learnt profiles of the layout's best shrinkage (their `bands` is the
    /// layout), exported so that the scores can be recomputed.
    pub learnt: Profiles,
    /// Their hour log score ([`Profiles::hour_log_score`]).
    pub learnt_score: f64,
    /// The score of their city-wide profile.
    pub city_score: f64,
    /// The score of the flat profile.
    pub flat_score: f64,
}

/// Chooses the band layout and shrinkage by the hour log score
/// ([`Profiles::hour_log_score`]) on the weeks just before `before`, fitted on the
/// weeks before those.
#[must_use]
pub fn choose(
    incidents: &[Incident],
    calendar: &Weeks,
    neighbours: &[Vec<usize>],
    before: usize,
) -> Choice {
    let held_out = VALIDATION_WEEKS.min(before / 2);
    let fit_weeks = 0..before - held_out;
    let validation_weeks = before - held_out..before;
    let mut best: Option<(f64, TimeBands, Shrinkage)> = None;
    let mut layouts = Vec::new();
    for bands in CANDIDATE_BANDS {
        let counts = BandCounts::of(
            incidents,
            calendar,
            fit_weeks.clone(),
            bands,
            neighbours.len(),
        );
        let mut layout_best: Option<(f64, Profiles)> = None;
        for hood in CANDIDATE_SHRINKAGE {
            for cell in CANDIDATE_SHRINKAGE {
                let shrinkage = Shrinkage { hood, cell };
                let profiles = Profiles::fit(&counts, neighbours, shrinkage);
                let score = profiles.hour_log_score(incidents, calendar, validation_weeks.clone());
                if best.is_none_or(|(s, _, _)| score > s) {
                    best = Some((score, bands, shrinkage));
                }
                if layout_best.as_ref().is_none_or(|(s, _)| score > *s) {
                    layout_best = Some((score, profiles));
                }
            }
        }
        if let Some((learnt_score, learnt)) = layout_best {
            let score =
                |p: Profiles| p.hour_log_score(incidents, calendar, validation_weeks.clone());
            layouts.push(LayoutScore {
                city_score: score(learnt.city_wide()),
                flat_score: score(learnt.flat()),
                learnt,
                learnt_score,
            });
        }
    }
    let (_, bands, shrinkage) = best.unwrap_or((
        0.0,
        CANDIDATE_BANDS[2],
        Shrinkage {
            hood: 20.0,
            cell: 20.0,
        },
    ));
    Choice {
        bands,
        shrinkage,
        fit_weeks,
        validation_weeks,
        layouts,
    }
}

/// The artifact's form of fitted profiles.
#[must_use]
pub fn stored(profiles: &Profiles) -> hexrisk_engine::forecast::TimeProfiles {
    hexrisk_engine::forecast::TimeProfiles {
        bands: profiles.bands,
        basis: profiles.basis,
        shares: profiles
            .shares
            .iter()
            .map(|&s| hexrisk_engine::forecast::quantise_share(s))
            .collect(),
    }
}

#[cfg(test)]
mod tests;
