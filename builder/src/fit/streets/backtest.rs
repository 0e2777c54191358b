//! The street-level backtest: each backtest week's cell forecasts spread over the
//! cell's ways, ranked, and scored by the share of the week's incidents on the
//! top-ranked ways.
//!
//! Two forecasts of a way's density (expected incidents per metre) are compared:
//! (a) uniform within the cell, `e_c / L_c`, and (b) street-level,
//! `e_c · share_w / ℓ_w` (`street_shares.rs`), where `e_c` is the group's expected
//! count of the way's cell in the rolling backtest (`BacktestRow`). The shares of
//! a week are learnt from the incidents of the weeks before its refit origin
//! (every `REFIT_EVERY` weeks, as the model), with the `k` chosen on the
//! validation weeks. Ways are ranked by density (ties by way index) and taken
//! whole while their cumulative length stays within a fraction `f` of the network
//! ([`LENGTH_FRACTIONS`]); the hit rate is the week's attributed incidents on the
//! taken ways over all its attributed incidents, pooled over the weeks, and the
//! PAI is the hit rate over the mean taken fraction of the network's length.

use hexrisk_engine::CrimeClass;
use hexrisk_engine::forecast::{CRIME_CLASSES, ClassRates};
use hexrisk_engine::roads::RoadGraph;
use rayon::prelude::*;

use super::attribution::{Attributor, Piece, Placement};
use super::network::StreetNetwork;
use super::shares::{self, ShrinkageChoice, WayCounts};
use crate::fit::backtest::BacktestRow;
use crate::inputs::cleaning::{Incident, Weeks};

/// The fractions of the network's length a hot-street list may take.
pub const LENGTH_FRACTIONS: [f64; 3] = [0.01, 0.05, 0.10];

/// The classes of the street-violence group: violence against a person.
pub const VIOLENCE_CLASSES: [CrimeClass; 2] =
    [CrimeClass::BatteryAssault, CrimeClass::SeriousViolent];

/// The aim: at [`AIM_FRACTIONS`] of the length, the street-level forecast's hit
/// rate is at least this many times the uniform one's (set for Toronto).
pub const AIM_RATIO: f64 = 1.5;

/// The indexes into [`LENGTH_FRACTIONS`] the aim is judged at (1 % and 5 %).
pub const AIM_FRACTIONS: [usize; 2] = [0, 1];

/// The incidents a group's shares are learnt from and its hits counted on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreetGroup {
    /// Every incident; the forecast is the sum of every class.
    All,
    /// Incidents of [`VIOLENCE_CLASSES`] whose source's premises put them on the
    /// street; the forecast is the sum of those classes.
    StreetViolence,
}

impl StreetGroup {
    /// The groups, in the card's order.
    pub const ALL: [Self; 2] = [Self::All, Self::StreetViolence];

    /// The group's name in the export.
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            Self::All => "all",
            Self::StreetViolence => "street_violence",
        }
    }

    /// The group's name in the card.
    #[must_use]
    pub const fn label(self) -> &'static str {
        match self {
            Self::All => "all",
            Self::StreetViolence => "street violence",
        }
    }

    /// The classes whose expected counts make the group's forecast.
    #[must_use]
    pub fn classes(self) -> &'static [CrimeClass] {
        match self {
            Self::All => &CRIME_CLASSES,
            Self::StreetViolence => &VIOLENCE_CLASSES,
        }
    }

    /// Whether an incident belongs to the group.
    #[must_use]
    pub fn includes(self, incident: &Incident) -> bool {
        match self {
            Self::All => true,
            Self::StreetViolence => {
                incident.street == Some(true) && VIOLENCE_CLASSES.contains(&incident.class)
            }
        }
    }

    /// The group's expected count from a cell-week's class rates.
    #[must_use]
    pub fn forecast(self, rates: &ClassRates) -> f64 {
        CRIME_CLASSES
            .iter()
            .zip(rates)
            .filter(|(class, _)| self.classes().contains(class))
            .map(|(_, rate)| rate)
            .sum()
    }
}

/// How a group's incidents were attributed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Placements {
    /// Split over the ways at a node.
    pub node: u64,
    /// Given to the nearest way.
    pub way: u64,
    /// Off the network.
    pub off_network: u64,
}

impl Placements {
    /// All incidents.
    #[must_use]
    pub fn total(&self) -> u64 {
        self.node + self.way + self.off_network
    }
}

/// Hits of one forecast at one length fraction, pooled over the backtest weeks.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Capture {
    /// Attributed incidents on the taken ways.
    pub hits: f64,
    /// All attributed incidents.
    pub incidents: f64,
    /// The sum over the weeks of the taken length over the network's length.
    pub taken_fraction_sum: f64,
    /// Backtest weeks.
    pub weeks: usize,
}

impl Capture {
    /// Hits over incidents.
    #[must_use]
    pub fn hit_rate(&self) -> f64 {
        self.hits / self.incidents
    }

    /// The hit rate over the mean taken fraction of the network's length.
    #[must_use]
    pub fn pai(&self) -> f64 {
        self.hit_rate() / (self.taken_fraction_sum / self.weeks as f64)
    }

    fn add(&mut self, other: &Self) {
        self.hits += other.hits;
        self.incidents += other.incidents;
        self.taken_fraction_sum += other.taken_fraction_sum;
        self.weeks += other.weeks;
    }
}

/// One group's street-level backtest.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupBacktest {
    /// The group.
    pub group: StreetGroup,
    /// How its incidents (over every modelled week) were attributed.
    pub placements: Placements,
    /// Its attributed counts per week and way (the export's).
    pub counts: WayCounts,
    /// The shrinkage chosen on the validation weeks.
    pub shrinkage: ShrinkageChoice,
    /// (a) uniform within the cell, per [`LENGTH_FRACTIONS`].
    pub uniform: [Capture; 3],
    /// (b) street-level, per [`LENGTH_FRACTIONS`].
    pub street: [Capture; 3],
}

impl GroupBacktest {
    /// Whether the street-level hit rate is at least [`AIM_RATIO`] times the
    /// uniform one at every [`AIM_FRACTIONS`].
    #[must_use]
    pub fn aim_met(&self) -> bool {
        AIM_FRACTIONS
            .iter()
            .all(|&i| self.street[i].hit_rate() >= AIM_RATIO * self.uniform[i].hit_rate())
    }
}

/// A city's street-level backtest.
#[derive(Debug, Clone, PartialEq)]
pub struct StreetBacktest {
    /// The ways with their cells and lengths.
    pub network: StreetNetwork,
    /// The backtest of each group computed: `All`, then `StreetViolence` when some
    /// source records premises.
    pub groups: Vec<GroupBacktest>,
    /// Incidents of the street-violence classes whose source records premises
    /// (0 when none does: the group is then not computed).
    pub violence_with_premises: u64,
}

/// Why the street-level backtest cannot run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum StreetError {
    /// The backtest rows are not one per cell and backtest week.
    #[error("street backtest: {rows} backtest rows for {weeks} weeks of {cells} cells")]
    Rows {
        /// Rows given.
        rows: usize,
        /// Backtest weeks.
        weeks: usize,
        /// Grid cells.
        cells: usize,
    },
}

/// What the backtest reads of a city.
#[derive(Debug, Clone, Copy)]
pub struct StreetInputs<'a> {
    /// The road graph.
    pub graph: &'a RoadGraph,
    /// Grid cells.
    pub cells: usize,
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
}

/// Runs the street-level backtest of a city.
///
/// # Errors
/// [`StreetError::Rows`] when the rows do not cover the backtest weeks.
pub fn run(inputs: &StreetInputs<'_>) -> Result<StreetBacktest, StreetError> {
    let weeks = inputs.weeks.count;
    let backtest = weeks.saturating_sub(inputs.start);
    if inputs.rows.len() != backtest * inputs.cells || inputs.start > weeks {
        return Err(StreetError::Rows {
            rows: inputs.rows.len(),
            weeks: backtest,
            cells: inputs.cells,
        });
    }
    let network = StreetNetwork::new(inputs.graph, inputs.cells);
    let attributor = Attributor::new(inputs.graph, &network);
    let attributed: Vec<(Placement, Vec<Piece>)> = inputs
        .incidents
        .par_iter()
        .map(|incident| {
            let mut pieces = Vec::new();
            let placement = attributor.attribute(incident.lat, incident.lng, &mut pieces);
            (placement, pieces)
        })
        .collect();
    let violence_with_premises = inputs
        .incidents
        .iter()
        .filter(|i| i.street.is_some() && VIOLENCE_CLASSES.contains(&i.class))
        .count() as u64;
    let groups = StreetGroup::ALL
        .into_iter()
        .filter(|&g| g == StreetGroup::All || violence_with_premises > 0)
        .map(|group| group_backtest(inputs, &network, &attributed, group))
        .collect();
    Ok(StreetBacktest {
        network,
        groups,
        violence_with_premises,
    })
}

fn group_backtest(
    inputs: &StreetInputs<'_>,
    network: &StreetNetwork,
    attributed: &[(Placement, Vec<Piece>)],
    group: StreetGroup,
) -> GroupBacktest {
    let mut placements = Placements::default();
    let members: Vec<(usize, &[Piece])> = inputs
        .incidents
        .iter()
        .zip(attributed)
        .filter(|(incident, _)| group.includes(incident))
        .filter_map(|(incident, (placement, pieces))| {
            match placement {
                Placement::Node => placements.node += 1,
                Placement::Way => placements.way += 1,
                Placement::OffNetwork => placements.off_network += 1,
            }
            let week = inputs.weeks.index_of(incident.date)?;
            Some((week, pieces.as_slice()))
        })
        .collect();
    let counts = WayCounts::collect(inputs.weeks.count, members);
    let shrinkage = shares::choose_shrinkage(network, &counts, inputs.start);
    let (uniform, street) = rolling(inputs, network, &counts, group, shrinkage.k);
    GroupBacktest {
        group,
        placements,
        counts,
        shrinkage,
        uniform,
        street,
    }
}

/// The captures of both forecasts over the backtest weeks.
fn rolling(
    inputs: &StreetInputs<'_>,
    network: &StreetNetwork,
    counts: &WayCounts,
    group: StreetGroup,
    k: f64,
) -> ([Capture; 3], [Capture; 3]) {
    let weeks = inputs.weeks.count;
    let step = inputs.refit_every.max(1);
    let origins = origin_shares(network, counts, (inputs.start..weeks, step), k);
    let scored: Vec<([Capture; 3], [Capture; 3])> = (inputs.start..weeks)
        .into_par_iter()
        .map(|t| {
            let offset = t - inputs.start;
            let shares = &origins[offset / step].1;
            let rows = &inputs.rows[offset * inputs.cells..(offset + 1) * inputs.cells];
            let forecast: Vec<f64> = rows.iter().map(|r| group.forecast(&r.rates)).collect();
            let observed = &counts.weeks[t];
            let uniform = capture_week(network, observed, |_, cell| {
                forecast[cell] / network.cell_length_m[cell]
            });
            let street = capture_week(network, observed, |way, cell| {
                forecast[cell] * shares[way] / network.way_length_m[way]
            });
            (uniform, street)
        })
        .collect();
    let mut totals = ([Capture::default(); 3], [Capture::default(); 3]);
    // Summed in week order, so the figures are the same on every run.
    for (uniform, street) in &scored {
        for i in 0..LENGTH_FRACTIONS.len() {
            totals.0[i].add(&uniform[i]);
            totals.1[i].add(&street[i]);
        }
    }
    totals
}

/// The shares of each refit origin of the backtest weeks `weeks` (every `step`
/// weeks from their start), learnt from the counts of the weeks before it: the
/// counts are accumulated origin by origin rather than summed anew for each.
fn origin_shares(
    network: &StreetNetwork,
    counts: &WayCounts,
    (weeks, step): (std::ops::Range<usize>, usize),
    k: f64,
) -> Vec<(usize, Vec<f64>)> {
    let mut history = counts.totals(0..weeks.start, network.way_count());
    let mut origins: Vec<(usize, Vec<f64>)> = Vec::new();
    for origin in weeks.step_by(step.max(1)) {
        if let Some(&(previous, _)) = origins.last() {
            counts.add_into(previous..origin, &mut history);
        }
        origins.push((origin, shares::shares(network, &history, k)));
    }
    origins
}

/// One week's captures of a forecast given as each assigned way's density.
fn capture_week(
    network: &StreetNetwork,
    observed: &[(u32, f64)],
    density: impl Fn(usize, usize) -> f64,
) -> [Capture; 3] {
    let mut ranked: Vec<(f64, usize)> = network
        .assigned()
        .map(|(way, cell)| (density(way, cell), way))
        .collect();
    // Descending density, ties by way index; NaN (no forecast) last.
    ranked.sort_unstable_by(|a, b| {
        b.0.partial_cmp(&a.0)
            .unwrap_or_else(|| a.0.is_nan().cmp(&b.0.is_nan()))
            .then(a.1.cmp(&b.1))
    });
    let mut rank = vec![usize::MAX; network.way_count()];
    for (position, &(_, way)) in ranked.iter().enumerate() {
        rank[way] = position;
    }
    let incidents: f64 = observed.iter().map(|&(_, n)| n).sum();
    LENGTH_FRACTIONS.map(|fraction| {
        let budget = fraction * network.total_length_m;
        let (mut taken, mut length) = (0, 0.0);
        for &(_, way) in &ranked {
            let next = length + network.way_length_m[way];
            if next > budget {
                break;
            }
            length = next;
            taken += 1;
        }
        let hits = observed
            .iter()
            .filter(|&&(way, _)| rank.get(way as usize).is_some_and(|&r| r < taken))
            .map(|&(_, n)| n)
            .sum();
        Capture {
            hits,
            incidents,
            taken_fraction_sum: length / network.total_length_m,
            weeks: 1,
        }
    })
}

#[cfg(test)]
mod tests;
