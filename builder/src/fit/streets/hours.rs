//! Street-level hour profiles, tested against the city-wide profile: does a way's own
//! history of hours tell when its incidents happen better than the city's profile
//! does?
//!
//! For a group ([`StreetGroup`]) and the city's band layout ([`TimeBands`], chosen
//! for the cell profiles, `fit/profiles.rs`), a way's profile is the distribution of
//! its attributed incidents over the bands of the week, shrunk towards the
//! city-wide profile of its cell's forecast:
//!
//! ```text
//! p_wb    = (n_wb + κ · base_cb) / (N_w + κ)
//! base_cb = Σ_class e_c,class · city_class,b / Σ_class e_c,class
//! ```
//!
//! where `n_wb` is the way's attributed incidents in band `b` (fractions of
//! incidents, weighted as the cell profiles weigh default hours), `N_w` their sum,
//! `e_c,class` the cell's forecast of each class of the group and `city_class` the
//! city-wide profile of the class: `κ = ∞` is the city-wide profile itself. `κ` is
//! chosen from [`SHRINKAGE_GRID`] on the validation weeks of the street shares
//! ([`shares::validation_weeks`]), learnt from the weeks before those, by the mean
//! log-probability of each validation incident's band day and band given its way
//! (the class mix of `base` there is each cell's incidents of the group's classes
//! before the validation weeks).
//!
//! Scored as the band backtest scores the cell profiles, on the backtest weeks, with
//! every profile learnt only from the weeks before the week's refit origin: each
//! way's expected count in a band of a band day is Poisson with mean
//! `μ = e_c · share_w · p_b / d_b`, where `e_c` is the group's forecast of the way's
//! cell, `share_w` its street share (`shares.rs`, refitted at the same origins),
//! `p_b` the band's share under the profile and `d_b` the band days of its kind in a
//! week. The score is the Poisson log loss `Σ (μ − y ln μ + ln Γ(y + 1))` over every
//! way, band and band day of the backtest weeks, per observed incident (`y` is a sum
//! of fractions of incidents; incidents without an hour are not observed). The
//! expected counts of a way-week add up to `e_c · share_w` under every profile, so
//! two profiles' losses differ exactly by their band log loss
//! `−Σ y ln (p_b / d_b)` per incident. Three profiles are scored: the city-wide
//! profile (the baseline), the learnt cell profiles the engine serves, and the
//! street profiles. The street profiles would be used only where they beat the
//! city-wide profile by at least [`MIN_GAIN`] of its log loss.

use std::ops::Range;

use chrono::Datelike;
use hexrisk_engine::forecast::{ClassRates, TimeBands};
use hexrisk_engine::roads::RoadGraph;

use super::attribution::{Attributor, Piece};
use super::backtest::{StreetBacktest, StreetGroup};
use super::shares;
use crate::fit::backtest::BacktestRow;
use crate::fit::counts::CLASSES;
use crate::fit::profiles::{self, BandCounts, Profiles, Shrinkage};
use crate::inputs::cleaning::{Incident, Weeks};

/// The shrinkage strengths `κ` tried, in incidents; `∞` is the city-wide profile.
pub const SHRINKAGE_GRID: [f64; 14] = [
    1.0,
    2.0,
    4.0,
    8.0,
    16.0,
    32.0,
    64.0,
    128.0,
    256.0,
    512.0,
    1024.0,
    2048.0,
    4096.0,
    f64::INFINITY,
];

/// The street profiles are used where their Poisson log loss is lower than the
/// city-wide profile's by at least this fraction of it, on the backtest weeks.
pub const MIN_GAIN: f64 = 0.005;

/// A piece of an incident with an hour on a way ([`Piece`]), placed in its band.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BandPiece {
    /// The way.
    pub way: u32,
    /// The incident's class slot ([`hexrisk_engine::forecast::CRIME_CLASSES`] order).
    pub class: u8,
    /// The band's index in the layout's tables ([`TimeBands::index`]).
    pub band: u8,
    /// The band day's day of the week, Monday 0.
    pub weekday: u8,
    /// The week of the incident's date, which decides what the profiles learn from
    /// (as for the cell profiles, [`BandCounts::of`]).
    pub date_week: Option<usize>,
    /// The week of the band day, which decides where it is observed (as in the
    /// band backtest).
    pub band_week: Option<usize>,
    /// The fraction of the incident on the way.
    pub fraction: f64,
    /// The incident's weight in learning profiles (`Incident::hour_weight`).
    pub hour_weight: f64,
}

/// The pieces of the incidents with an hour, given each incident's pieces (in
/// `incidents`' order), in the layout `bands`.
#[must_use]
pub fn band_pieces<'a>(
    incidents: impl IntoIterator<Item = (&'a Incident, &'a [Piece])>,
    weeks: &Weeks,
    bands: TimeBands,
) -> Vec<BandPiece> {
    let mut out = Vec::new();
    for (incident, pieces) in incidents {
        let Some((band, day)) = profiles::band_of(bands, incident) else {
            continue;
        };
        let class = u8::try_from(profiles::slot(incident)).unwrap_or(0);
        let band = u8::try_from(bands.index(band)).unwrap_or(0);
        let weekday = u8::try_from(day.weekday().num_days_from_monday()).unwrap_or(0);
        out.extend(pieces.iter().map(|p| BandPiece {
            way: p.way,
            class,
            band,
            weekday,
            date_week: weeks.index_of(incident.date),
            band_week: weeks.index_of(day),
            fraction: p.fraction,
            hour_weight: incident.hour_weight,
        }));
    }
    out
}

/// Weighted counts per way and band, `n_wb`, and per way, `N_w`.
#[derive(Debug, Clone, PartialEq)]
pub struct WayBandCounts {
    /// Bands in the layout.
    pub bands: usize,
    /// `[way][band]`.
    pub counts: Vec<f64>,
    /// Per way, the sum of its bands.
    pub totals: Vec<f64>,
}

impl WayBandCounts {
    /// No counts, for `ways` ways and `bands` bands.
    #[must_use]
    pub fn new(ways: usize, bands: usize) -> Self {
        Self {
            bands,
            counts: vec![0.0; ways * bands],
            totals: vec![0.0; ways],
        }
    }

    /// Adds the pieces dated in `weeks` (their date's week), each `fraction ·
    /// hour_weight`.
    pub fn add(&mut self, pieces: &[BandPiece], weeks: Range<usize>) {
        for piece in pieces {
            if piece.hour_weight <= 0.0 || !piece.date_week.is_some_and(|w| weeks.contains(&w)) {
                continue;
            }
            let way = piece.way as usize;
            let n = piece.fraction * piece.hour_weight;
            if let Some(total) = self.totals.get_mut(way) {
                *total += n;
                self.counts[way * self.bands + usize::from(piece.band)] += n;
            }
        }
    }

    /// The way's share of band `band` shrunk by `κ` towards `base` (the band's share
    /// under the profile shrunk towards).
    #[must_use]
    pub fn share(&self, way: usize, band: usize, kappa: f64, base: f64) -> f64 {
        street_share(
            self.counts[way * self.bands + band],
            self.totals[way],
            kappa,
            base,
        )
    }
}

/// `(n + κ · base) / (total + κ)`; `base` when `κ` is infinite.
#[must_use]
pub fn street_share(n: f64, total: f64, kappa: f64, base: f64) -> f64 {
    if kappa.is_infinite() {
        base
    } else {
        (n + kappa * base) / (total + kappa)
    }
}

/// A group's band shares under per-class profiles, weighted by the group's class
/// rates: `Σ_class rate_class · profile_class,b / Σ_class rate_class` (the first
/// class's profile where no rate is positive).
pub fn mixed<'a>(
    group: StreetGroup,
    rates: &ClassRates,
    profile: impl Fn(usize) -> &'a [f64],
    out: &mut [f64],
) {
    out.fill(0.0);
    let mut total = 0.0;
    for (class, &rate) in rates.iter().enumerate() {
        if rate <= 0.0
            || !group
                .classes()
                .contains(&hexrisk_engine::forecast::CRIME_CLASSES[class])
        {
            continue;
        }
        total += rate;
        for (o, &p) in out.iter_mut().zip(profile(class)) {
            *o += rate * p;
        }
    }
    if total > 0.0 {
        for o in out.iter_mut() {
            *o /= total;
        }
    } else {
        out.copy_from_slice(profile(0));
    }
}

/// A profile's scores over the backtest weeks, per observed incident.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct HourScores {
    /// Poisson log loss over every way, band and band day, per incident.
    pub poisson: f64,
    /// Band log loss `−Σ y ln (p_b / d_b)` per incident: the part of `poisson` that
    /// depends on the profile.
    pub band: f64,
}

/// The street hour profiles of one group, scored.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupHours {
    /// The group.
    pub group: StreetGroup,
    /// The shrinkage chosen on the validation weeks.
    pub kappa: f64,
    /// The weeks the validation profiles were learnt from.
    pub history: Range<usize>,
    /// The validation weeks.
    pub validation: Range<usize>,
    /// Observed incidents (fractions on ways) of the validation weeks.
    pub validation_incidents: f64,
    /// The validation band log loss of each `κ` of [`SHRINKAGE_GRID`], in its order.
    pub validation_scores: Vec<f64>,
    /// Way × band-day × band outcomes scored over the backtest weeks.
    pub outcomes: u64,
    /// Observed incidents (fractions on ways) of the backtest weeks.
    pub incidents: f64,
    /// Every way on the city-wide profile (the baseline).
    pub city: HourScores,
    /// Every way on its cell's learnt profile (what the engine serves).
    pub cells: HourScores,
    /// The street profiles with the chosen `κ`.
    pub street: HourScores,
    /// The group's incidents with an hour, piece by piece on their ways, for the
    /// export.
    pub pieces: Vec<BandPiece>,
}

impl GroupHours {
    /// The street profiles' Poisson log loss below the city-wide profile's, as a
    /// fraction of it (positive when they do better).
    #[must_use]
    pub fn gain(&self) -> f64 {
        (self.city.poisson - self.street.poisson) / self.city.poisson
    }

    /// The cell profiles' gain over the city-wide profile, likewise.
    #[must_use]
    pub fn cell_gain(&self) -> f64 {
        (self.city.poisson - self.cells.poisson) / self.city.poisson
    }

    /// Whether the street profiles beat the city-wide profile by [`MIN_GAIN`].
    #[must_use]
    pub fn used(&self) -> bool {
        self.gain() >= MIN_GAIN
    }
}

/// A city's street hour profiles, per group of the street backtest.
#[derive(Debug, Clone, PartialEq)]
pub struct StreetHours {
    /// The band layout.
    pub bands: TimeBands,
    /// The cell profiles the groups were scored with, each learnt from the weeks
    /// before its week: the validation's first week, then each refit origin.
    pub fits: Vec<(usize, Profiles)>,
    /// Per group, in the street backtest's order.
    pub groups: Vec<GroupHours>,
}

impl StreetHours {
    /// The cell profiles learnt from the weeks before `week`.
    ///
    /// # Panics
    /// When none were learnt before `week` (only the validation's first week and
    /// the refit origins have them).
    #[must_use]
    pub fn fitted_before(&self, week: usize) -> &Profiles {
        fitted_before(&self.fits, week)
    }
}

fn fitted_before(fits: &[(usize, Profiles)], week: usize) -> &Profiles {
    fits.iter()
        .find(|(before, _)| *before == week)
        .map(|(_, p)| p)
        .expect("profiles are learnt before the validation and each refit origin")
}

/// What the street hour profiles read of a city.
#[derive(Debug, Clone, Copy)]
pub struct HourInputs<'a> {
    /// The street backtest (network, groups, their counts and `k`).
    pub streets: &'a StreetBacktest,
    /// The road graph it ran on.
    pub graph: &'a RoadGraph,
    /// Clean incidents.
    pub incidents: &'a [Incident],
    /// The modelled weeks.
    pub weeks: &'a Weeks,
    /// The rolling backtest's rows, week by week, each week's in grid order.
    pub rows: &'a [BacktestRow],
    /// The first backtest week.
    pub start: usize,
    /// Weeks between refit origins.
    pub refit_every: usize,
    /// Each grid cell's ring-1 neighbours.
    pub neighbours: &'a [Vec<usize>],
    /// The band layout of the cell profiles.
    pub bands: TimeBands,
    /// The cell profiles' shrinkage.
    pub shrinkage: Shrinkage,
}

impl HourInputs<'_> {
    fn cells(&self) -> usize {
        self.neighbours.len()
    }

    /// The cell profiles learnt from `weeks`.
    fn profiles(&self, weeks: Range<usize>) -> Profiles {
        let counts = BandCounts::of(self.incidents, self.weeks, weeks, self.bands, self.cells());
        Profiles::fit(&counts, self.neighbours, self.shrinkage)
    }

    /// The refit origins of the backtest weeks.
    fn origins(&self) -> impl Iterator<Item = usize> {
        (self.start..self.weeks.count).step_by(self.refit_every.max(1))
    }
}

/// Learns and scores the street hour profiles of every group of the street backtest.
#[must_use]
pub fn run(inputs: &HourInputs<'_>) -> StreetHours {
    use rayon::prelude::*;
    let attributor = Attributor::new(inputs.graph, &inputs.streets.network);
    let timed: Vec<&Incident> = inputs
        .incidents
        .iter()
        .filter(|i| i.hour.is_some())
        .collect();
    let attributed: Vec<Vec<Piece>> = timed
        .par_iter()
        .map(|incident| {
            let mut pieces = Vec::new();
            attributor.attribute(incident.lat, incident.lng, &mut pieces);
            pieces
        })
        .collect();
    // The same cell profiles serve every group: learnt once per week they precede.
    let fits: Vec<(usize, Profiles)> =
        core::iter::once(shares::validation_weeks(inputs.start).start)
            .chain(inputs.origins())
            .collect::<Vec<_>>()
            .into_par_iter()
            .map(|before| (before, inputs.profiles(0..before)))
            .collect();
    let groups = inputs
        .streets
        .groups
        .iter()
        .map(|group| {
            let pieces = band_pieces(
                timed
                    .iter()
                    .zip(&attributed)
                    .filter(|(incident, _)| group.group.includes(incident))
                    .map(|(incident, pieces)| (*incident, pieces.as_slice())),
                inputs.weeks,
                inputs.bands,
            );
            group_hours(inputs, &fits, group, pieces)
        })
        .collect();
    StreetHours {
        bands: inputs.bands,
        fits,
        groups,
    }
}

/// Each cell's incidents of the group's classes dated in `weeks`, per class: the
/// class mix of the validation's base profile.
fn class_mix(inputs: &HourInputs<'_>, group: StreetGroup, weeks: Range<usize>) -> Vec<ClassRates> {
    let mut mix = vec![[0.0; CLASSES]; inputs.cells()];
    for incident in inputs.incidents {
        if group.classes().contains(&incident.class)
            && inputs
                .weeks
                .index_of(incident.date)
                .is_some_and(|w| weeks.contains(&w))
            && let Some(cell) = mix.get_mut(incident.cell)
        {
            cell[profiles::slot(incident)] += 1.0;
        }
    }
    mix
}

/// The days of a band's kind in a week.
fn days(bands: TimeBands, band: usize) -> f64 {
    f64::from(bands.band(band).kind.days_per_week())
}

/// The validation band log loss of every `κ` of [`SHRINKAGE_GRID`], and the
/// validation's observed incidents.
fn validate(
    inputs: &HourInputs<'_>,
    city: &Profiles,
    group: StreetGroup,
    pieces: &[BandPiece],
    (history, validation): (Range<usize>, Range<usize>),
) -> (Vec<f64>, f64) {
    let network = &inputs.streets.network;
    let n = inputs.bands.count();
    let mix = class_mix(inputs, group, history.clone());
    let base: Vec<Vec<f64>> = mix
        .iter()
        .map(|rates| {
            let mut out = vec![0.0; n];
            mixed(
                group,
                rates,
                |class| &city.city[class * n..(class + 1) * n],
                &mut out,
            );
            out
        })
        .collect();
    let mut learnt = WayBandCounts::new(network.way_count(), n);
    learnt.add(pieces, history);
    let mut loss = vec![0.0; SHRINKAGE_GRID.len()];
    let mut observed = 0.0;
    for piece in pieces {
        if !piece.band_week.is_some_and(|w| validation.contains(&w)) {
            continue;
        }
        let Some(cell) = network.way_cell[piece.way as usize] else {
            continue;
        };
        let band = usize::from(piece.band);
        let d = days(inputs.bands, band);
        observed += piece.fraction;
        for (l, &kappa) in loss.iter_mut().zip(&SHRINKAGE_GRID) {
            let p = learnt.share(piece.way as usize, band, kappa, base[cell as usize][band]);
            *l -= piece.fraction * (p / d).ln();
        }
    }
    (loss.iter().map(|l| l / observed).collect(), observed)
}

/// The lowest score's `κ`, the smaller on a tie; `∞` without any finite score.
fn lowest(scores: &[f64]) -> f64 {
    let mut best: Option<(f64, f64)> = None;
    for (&kappa, &score) in SHRINKAGE_GRID.iter().zip(scores) {
        if score.is_finite() && best.is_none_or(|(_, s)| score < s) {
            best = Some((kappa, score));
        }
    }
    best.map_or(f64::INFINITY, |(kappa, _)| kappa)
}

/// Sums of one profile's scores.
#[derive(Debug, Clone, Copy, Default)]
struct Sums {
    /// `Σ y ln μ − ln Γ(y + 1)` over the observed outcomes.
    log_likelihood: f64,
    /// `Σ y ln (p_b / d_b)`.
    band: f64,
}

fn group_hours(
    inputs: &HourInputs<'_>,
    fits: &[(usize, Profiles)],
    group: &super::backtest::GroupBacktest,
    pieces: Vec<BandPiece>,
) -> GroupHours {
    let network = &inputs.streets.network;
    let validation = shares::validation_weeks(inputs.start);
    let history = 0..validation.start;
    let (validation_scores, validation_incidents) = validate(
        inputs,
        fitted_before(fits, history.end),
        group.group,
        &pieces,
        (history.clone(), validation.clone()),
    );
    let kappa = lowest(&validation_scores);
    let (expected, sums, incidents) = backtest(inputs, fits, group, &pieces, kappa);
    let per_day = inputs.bands.per_day() as u64;
    let weeks = inputs.weeks.count.saturating_sub(inputs.start) as u64;
    let scores = |s: Sums| HourScores {
        poisson: (expected - s.log_likelihood) / incidents,
        band: -s.band / incidents,
    };
    GroupHours {
        group: group.group,
        kappa,
        history,
        validation,
        validation_incidents,
        validation_scores,
        outcomes: network.assigned().count() as u64 * weeks * 7 * per_day,
        incidents,
        city: scores(sums[0]),
        cells: scores(sums[1]),
        street: scores(sums[2]),
        pieces,
    }
}

/// The backtest's total expected count, the sums of the city-wide, cell and street
/// profiles, and the observed incidents.
fn backtest(
    inputs: &HourInputs<'_>,
    fits: &[(usize, Profiles)],
    group: &super::backtest::GroupBacktest,
    pieces: &[BandPiece],
    kappa: f64,
) -> (f64, [Sums; 3], f64) {
    let network = &inputs.streets.network;
    let (bands, n, cells) = (inputs.bands, inputs.bands.count(), inputs.cells());
    let weeks = inputs.weeks.count;
    let step = inputs.refit_every.max(1);
    let mut learnt = WayBandCounts::new(network.way_count(), n);
    let mut observed: Vec<&BandPiece> = pieces
        .iter()
        .filter(|p| p.band_week.is_some_and(|w| w >= inputs.start && w < weeks))
        .collect();
    observed.sort_by_key(|p| (p.band_week, p.way, p.weekday, p.band));
    let mut next = 0;
    let (mut expected, mut sums, mut incidents) = (0.0, [Sums::default(); 3], 0.0);
    let mut learnt_to = 0;
    let (mut city_mix, mut cell_mix) = (vec![0.0; cells * n], vec![0.0; cells * n]);
    for origin in inputs.origins() {
        learnt.add(pieces, learnt_to..origin);
        learnt_to = origin;
        let fitted = fitted_before(fits, origin);
        let history = group.counts.totals(0..origin, network.way_count());
        let way_shares = shares::shares(network, &history, group.shrinkage.k);
        for t in origin..(origin + step).min(weeks) {
            let rows = &inputs.rows[(t - inputs.start) * cells..(t - inputs.start + 1) * cells];
            let forecast: Vec<f64> = rows
                .iter()
                .map(|r| group.group.forecast(&r.rates))
                .collect();
            for (cell, row) in rows.iter().enumerate() {
                let span = cell * n..(cell + 1) * n;
                mixed(
                    group.group,
                    &row.rates,
                    |class| &fitted.city[class * n..(class + 1) * n],
                    &mut city_mix[span.clone()],
                );
                mixed(
                    group.group,
                    &row.rates,
                    |class| fitted.of(cell, class),
                    &mut cell_mix[span],
                );
            }
            expected += network
                .assigned()
                .map(|(way, cell)| forecast[cell] * way_shares[way])
                .sum::<f64>();
            // The week's observed outcomes: pieces merged by way, band day and band.
            while next < observed.len() && observed[next].band_week == Some(t) {
                let first = observed[next];
                let mut y = 0.0;
                while next < observed.len()
                    && (
                        observed[next].band_week,
                        observed[next].way,
                        observed[next].weekday,
                        observed[next].band,
                    ) == (first.band_week, first.way, first.weekday, first.band)
                {
                    y += observed[next].fraction;
                    next += 1;
                }
                let way = first.way as usize;
                let Some(cell) = network.way_cell[way].map(|c| c as usize) else {
                    continue;
                };
                let band = usize::from(first.band);
                let d = days(bands, band);
                let city = city_mix[cell * n + band];
                let profiles = [
                    city,
                    cell_mix[cell * n + band],
                    learnt.share(way, band, kappa, city),
                ];
                let common = forecast[cell] * way_shares[way];
                let log_factorial = libm::lgamma(y + 1.0);
                for (sum, p) in sums.iter_mut().zip(profiles) {
                    sum.log_likelihood += y * (common * p / d).ln() - log_factorial;
                    sum.band += y * (p / d).ln();
                }
                incidents += y;
            }
        }
    }
    (expected, sums, incidents)
}

#[cfg(test)]
mod tests;
