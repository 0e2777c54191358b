//! The band backtest: each backtest cell-week's forecast spread over the bands of
//! the week by a profile, scored on what happened in every band of every band day
//! (cell × week × band outcomes), beside the flat and the city-wide profile.
//!
//! A band's expected count of a class is the week's times the band's share over
//! the number of such band days in a week. The week's count of a class is negative
//! binomial, a Poisson count whose rate is gamma-distributed; a band's count is
//! then negative binomial with the same size (the band shares the week's gamma
//! factor), so the band outcome has the weekly model's exact distribution with the
//! band's rates. The outcome is the same as the week's: the class with most
//! incidents, `NO_CRIME` without any. Incidents without an hour cannot be placed
//! in a band and are not observed here; incidents at a default hour are observed
//! where the source put them.

use std::ops::Range;

use chrono::Datelike;
use hexrisk_engine::forecast::{ClassRates, DayKind, TimeBands, outcome_distribution_with};

use super::backtest::{BacktestRow, ProperMeans, ProperScores};
use super::counts::CLASSES;
use super::profiles::{self, Profiles};
use crate::inputs::cleaning::{Incident, Weeks};

/// Observed counts `[week][cell][day][position][class]` of the backtest weeks.
struct Observed {
    bands: TimeBands,
    cells: usize,
    first: usize,
    calendar: Weeks,
    counts: Vec<[u16; CLASSES]>,
}

impl Observed {
    fn of(
        incidents: &[Incident],
        calendar: &Weeks,
        weeks: Range<usize>,
        bands: TimeBands,
        cells: usize,
    ) -> Self {
        let per_week = cells * 7 * bands.per_day();
        let mut counts = vec![[0_u16; CLASSES]; weeks.len() * per_week];
        for incident in incidents {
            let Some((band, day)) = profiles::band_of(bands, incident) else {
                continue;
            };
            // The band day decides the week: Sunday 22:00 is Monday's first band.
            let Some(week) = calendar.index_of(day).filter(|w| weeks.contains(w)) else {
                continue;
            };
            let at = slot(
                bands,
                cells,
                week - weeks.start,
                incident.cell,
                day,
                band.position,
            );
            let class = profiles::slot(incident);
            counts[at][class] = counts[at][class].saturating_add(1);
        }
        Self {
            bands,
            cells,
            first: weeks.start,
            calendar: *calendar,
            counts,
        }
    }

    fn monday_of(&self, week: usize) -> chrono::NaiveDate {
        self.calendar.start_of(week)
    }

    /// The bands with incidents.
    fn listed(&self) -> Vec<BandObservation> {
        let per_day = self.bands.per_day();
        let per_cell = 7 * per_day;
        self.counts
            .iter()
            .enumerate()
            .filter(|(_, counts)| counts.iter().any(|&n| n > 0))
            .map(|(at, &counts)| {
                let (week_cell, slot) = (at / per_cell, at % per_cell);
                let week = self.first + week_cell / self.cells;
                BandObservation {
                    week,
                    cell: week_cell % self.cells,
                    day: self.monday_of(week) + chrono::Days::new((slot / per_day) as u64),
                    position: u8::try_from(slot % per_day).unwrap_or(0),
                    counts,
                }
            })
            .collect()
    }

    fn get(&self, week: usize, cell: usize, day: usize, position: usize) -> [u16; CLASSES] {
        let per_day = self.bands.per_day();
        self.counts
            [((week - self.first) * self.cells + cell) * 7 * per_day + day * per_day + position]
    }
}

fn slot(
    bands: TimeBands,
    cells: usize,
    week: usize,
    cell: usize,
    day: chrono::NaiveDate,
    position: u8,
) -> usize {
    let per_day = bands.per_day();
    let weekday = day.weekday().num_days_from_monday() as usize;
    (week * cells + cell) * 7 * per_day + weekday * per_day + usize::from(position)
}

/// Incidents observed in one band of one band day of a backtest cell-week (only
/// bands with some are listed), for the export.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BandObservation {
    /// Week index.
    pub week: usize,
    /// Cell position.
    pub cell: usize,
    /// The band day.
    pub day: chrono::NaiveDate,
    /// The band's position in its band day.
    pub position: u8,
    /// Incidents per class, crime class order.
    pub counts: [u16; CLASSES],
}

/// Scores of the three profiles over the band backtest.
#[derive(Debug, Clone, PartialEq)]
pub struct BandBacktest {
    /// The learnt profiles.
    pub profiles: ProperMeans,
    /// Every cell on the city-wide profile.
    pub city: ProperMeans,
    /// The weekly rate spread evenly over the hours.
    pub flat: ProperMeans,
    /// Cell × week × band outcomes scored.
    pub outcomes: u64,
    /// The learnt profiles scored (fitted before the backtest weeks).
    pub learnt: Profiles,
    /// Every band with incidents, for the export.
    pub observed: Vec<BandObservation>,
}

/// The three profiles' scores over every band of one backtest week.
fn score_week(
    observed: &Observed,
    forecasters: &[Profiles; 3],
    week: usize,
    week_rows: &[BacktestRow],
) -> [ProperScores; 3] {
    let bands = observed.bands;
    let dispersion = week_rows[0].dispersion;
    let mut boards = [ProperScores::default(); 3];
    for day in 0..7 {
        let kind = if day >= 5 {
            DayKind::Weekend
        } else {
            DayKind::Weekday
        };
        let days = f64::from(kind.days_per_week());
        for position in 0..bands.per_day() {
            let band = bands.index(hexrisk_engine::forecast::Band {
                kind,
                position: u8::try_from(position).unwrap_or(0),
            });
            for (cell, row) in week_rows.iter().enumerate() {
                let counts = observed.get(week, cell, day, position);
                for (profile, board) in forecasters.iter().zip(&mut boards) {
                    let rates: ClassRates =
                        core::array::from_fn(|c| row.rates[c] * profile.of(cell, c)[band] / days);
                    board.add(&outcome_distribution_with(&rates, &dispersion), &counts);
                }
            }
        }
    }
    boards
}

/// Runs the band backtest over `rows` (the weekly backtest, week by week, cells in
/// grid order, starting at week index `first`), with `learnt` fitted before `first`.
#[must_use]
pub fn run(
    rows: &[BacktestRow],
    first: usize,
    incidents: &[Incident],
    calendar: &Weeks,
    learnt: &Profiles,
) -> BandBacktest {
    let bands = learnt.bands;
    let cells = learnt.shares.len() / (CLASSES * bands.count());
    let weeks = first..first + rows.len() / cells.max(1);
    let observed = Observed::of(incidents, calendar, weeks.clone(), bands, cells);
    let forecasters = [learnt.clone(), learnt.city_wide(), learnt.flat()];
    // Weeks in parallel, each scored alone; their sums are added in week order, so
    // the figures do not depend on the number of threads.
    let per_week: Vec<[ProperScores; 3]> = {
        use rayon::prelude::*;
        let chunks: Vec<(usize, &[BacktestRow])> = weeks.zip(rows.chunks(cells)).collect();
        chunks
            .into_par_iter()
            .map(|(w, week_rows)| score_week(&observed, &forecasters, w, week_rows))
            .collect()
    };
    let mut boards = [ProperScores::default(); 3];
    for week in &per_week {
        for (board, scored) in boards.iter_mut().zip(week) {
            board.merge(scored);
        }
    }
    let outcomes = boards[0].n;
    let [profiles, city, flat] = boards.map(|b| b.means());
    BandBacktest {
        profiles,
        city,
        flat,
        outcomes,
        learnt: learnt.clone(),
        observed: observed.listed(),
    }
}

#[cfg(test)]
mod tests;
