//! The benchmark's report: what each pair's routes measured, and the figures and
//! aims worked out from them. Everything here is plain data and arithmetic, so the
//! JSON written by `hexrisk-build holdout-routes` can be read back and its figures
//! and table recomputed.

use serde::{Deserialize, Serialize};

/// Extra lengths over the shortest route the trade-off sets are read at, percent.
pub const STRETCHES_PCT: [u32; 3] = [5, 10, 20];

/// The aim on the street-level trade-off within +10 %: at least this many percent
/// fewer held-out incidents per km than the shortest route (median over pairs).
pub const AIM_REDUCTION_PCT: f64 = 25.0;

/// The aim against today's costing: at least this many times its reduction on the
/// same measure.
pub const AIM_TIMES_TODAY: f64 = 3.0;

/// The stretch (index into [`STRETCHES_PCT`]) the aims are judged at: +10 %.
pub const AIM_STRETCH: usize = 1;

/// What one route passed.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Measured {
    /// Network length, metres.
    pub length_m: f64,
    /// Held-out incidents within the buffer.
    pub all: u32,
    /// Of them, those on street premises.
    pub street: u32,
}

impl Measured {
    /// Incidents of `set` per kilometre.
    #[must_use]
    pub fn per_km(&self, set: IncidentSet) -> f64 {
        f64::from(self.count(set)) / (self.length_m / 1000.0)
    }

    /// Incidents of `set`.
    #[must_use]
    pub fn count(&self, set: IncidentSet) -> u32 {
        match set {
            IncidentSet::All => self.all,
            IncidentSet::Street => self.street,
        }
    }
}

/// The incidents counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IncidentSet {
    /// Every held-out incident.
    All,
    /// Those whose source's premises put them on the street.
    Street,
}

impl IncidentSet {
    /// Both, in the report's order.
    pub const BOTH: [Self; 2] = [Self::All, Self::Street];

    /// The key in the JSON.
    #[must_use]
    pub const fn key(self) -> &'static str {
        match self {
            Self::All => "all",
            Self::Street => "street",
        }
    }

    /// Its name in the table.
    #[must_use]
    pub const fn label(self) -> &'static str {
        match self {
            Self::All => "all incidents",
            Self::Street => "street premises",
        }
    }
}

/// One costing's routes of a pair.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CostingRoutes {
    /// The cheapest route at `α` = 4.
    pub safest: Measured,
    /// The least exposed route of the trade-off set within each of
    /// [`STRETCHES_PCT`] of the shortest route's length.
    pub within: Vec<Measured>,
    /// Routes (hull corners) in the trade-off set.
    pub corners: usize,
    /// Whether the trade-off search finished within its budget.
    pub complete: bool,
}

/// One origin–destination pair and its routes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairResult {
    /// Origin, `[lat, lng]` as drawn.
    pub from: [f64; 2],
    /// Destination, `[lat, lng]` as drawn.
    pub to: [f64; 2],
    /// Straight-line distance, metres.
    pub crow_m: f64,
    /// The shortest route.
    pub shortest: Measured,
    /// Today's costing: each way's metre-weighted `1 − safety / 100` of its cells.
    pub old: CostingRoutes,
    /// Street-level costing: each way's expected incidents per metre over the mean.
    pub new: CostingRoutes,
}

/// The figures of one route kind on one incident set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SetFigures {
    /// Median over the pairs whose shortest route passes at least one incident of
    /// `1 − (this route's incidents per km) / (the shortest's)`, percent.
    pub median_reduction_pct: Option<f64>,
    /// Mean of the same.
    pub mean_reduction_pct: Option<f64>,
    /// The same over all pairs pooled: incidents over kilometres of every pair's
    /// route, against the shortest routes' pooled rate.
    pub pooled_reduction_pct: Option<f64>,
    /// Pairs in the median and mean.
    pub pairs: usize,
    /// Pairs whose shortest route passes no incident (left out of the median).
    pub zero_at_shortest: usize,
    /// Of those, pairs where this route passes some.
    pub zero_at_shortest_but_here: usize,
}

/// The figures of one route kind.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KindFigures {
    /// `old` (today's cell-rank costing) or `new` (street-level).
    pub costing: String,
    /// `safest` or `within_<pct>`.
    pub route: String,
    /// Median over the pairs of its extra length over the shortest route, percent.
    pub median_extra_length_pct: Option<f64>,
    /// On every held-out incident.
    pub all: SetFigures,
    /// On street premises only.
    pub street: SetFigures,
}

impl KindFigures {
    /// The figures of one incident set.
    #[must_use]
    pub fn set(&self, set: IncidentSet) -> &SetFigures {
        match set {
            IncidentSet::All => &self.all,
            IncidentSet::Street => &self.street,
        }
    }
}

/// One aim judged on one incident set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Aim {
    /// What is aimed at.
    pub what: String,
    /// `all` or `street`.
    pub set: String,
    /// The measured value (median reduction, percent).
    pub value: Option<f64>,
    /// What it is compared with: the threshold, or today's value times the factor.
    pub threshold: Option<f64>,
    /// Whether it is met.
    pub met: bool,
}

/// The shortest routes' own figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShortestFigures {
    /// Median length, metres.
    pub median_length_m: Option<f64>,
    /// Median held-out incidents per km, all.
    pub median_per_km_all: Option<f64>,
    /// Median held-out incidents per km, street premises.
    pub median_per_km_street: Option<f64>,
}

/// How the benchmark ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Conditions {
    /// UTC date of the run.
    pub date: String,
    /// CPU, cores, memory and system.
    pub machine: String,
    /// The command line.
    pub command: String,
    /// City code.
    pub city: String,
    /// City name.
    pub city_name: String,
    /// The cut: the fit may use incidents up to this date.
    pub cut: String,
    /// First day of the modelled weeks the fit used.
    pub fit_from: String,
    /// Last day of the modelled weeks the fit used (the Sunday on or before the cut).
    pub fit_through: String,
    /// Monday of the forecast week the routes are costed with (the first after the
    /// fitted data).
    pub scoring_week: String,
    /// First held-out date.
    pub held_out_from: String,
    /// Last held-out date.
    pub held_out_through: String,
    /// Pairs measured.
    pub pairs: usize,
    /// Seed of the pair generator.
    pub seed: u64,
    /// Straight-line distance between a pair's ends, metres.
    pub distance_m: [f64; 2],
    /// An incident counts for a route within this distance of its line, metres.
    pub buffer_m: f64,
    /// Candidate pairs rejected, by reason.
    pub rejected: Rejected,
    /// Seconds: fit, held-out reading, routing, all.
    pub seconds: Seconds,
}

/// Candidate pairs rejected, by reason.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rejected {
    /// An end outside the city's cells.
    pub outside_cells: usize,
    /// Ends too close or too far apart.
    pub distance: usize,
    /// An end more than the snapping distance from the network.
    pub not_snapped: usize,
    /// No route between the snapped ends.
    pub no_route: usize,
}

/// Wall-clock seconds of each step.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Seconds {
    /// Fitting the city up to the cut.
    pub fit: f64,
    /// Reading the held-out incidents.
    pub held_out: f64,
    /// Drawing pairs, routing and counting.
    pub routes: f64,
    /// Everything.
    pub total: f64,
}

/// The held-out incidents.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HeldOut {
    /// Every held-out incident the builder's ingest keeps.
    pub all: u64,
    /// Those on street premises (`Incident::street == Some(true)`).
    pub street: u64,
    /// Distinct positions among them (the police offset locations to intersections).
    pub positions: usize,
}

/// The whole report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// How it ran.
    pub conditions: Conditions,
    /// The held-out incidents.
    pub held_out: HeldOut,
    /// The shortest routes.
    pub shortest: ShortestFigures,
    /// Each route kind: both costings' safest, then both costings within each
    /// stretch.
    pub kinds: Vec<KindFigures>,
    /// The aims on each incident set.
    pub aims: Vec<Aim>,
    /// Every pair.
    pub pairs: Vec<PairResult>,
}

/// The median (the mean of the two middle values of an even count); `None` for no
/// values.
#[must_use]
pub fn median(values: &[f64]) -> Option<f64> {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(sorted[n / 2]),
        _ => Some(f64::midpoint(sorted[n / 2 - 1], sorted[n / 2])),
    }
}

fn mean(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

/// One kind's route of a pair.
type Pick = fn(&PairResult) -> &Measured;

fn set_figures(pairs: &[PairResult], pick: Pick, set: IncidentSet) -> SetFigures {
    let mut reductions = Vec::new();
    let (mut zero, mut zero_here) = (0, 0);
    let (mut base_n, mut base_km, mut n, mut km) = (0.0, 0.0, 0.0, 0.0);
    for pair in pairs {
        let (shortest, route) = (&pair.shortest, pick(pair));
        base_n += f64::from(shortest.count(set));
        base_km += shortest.length_m / 1000.0;
        n += f64::from(route.count(set));
        km += route.length_m / 1000.0;
        if shortest.count(set) == 0 {
            zero += 1;
            zero_here += usize::from(route.count(set) > 0);
        } else {
            reductions.push(100.0 * (1.0 - route.per_km(set) / shortest.per_km(set)));
        }
    }
    let pooled = (base_n > 0.0 && km > 0.0).then(|| 100.0 * (1.0 - (n / km) / (base_n / base_km)));
    SetFigures {
        median_reduction_pct: median(&reductions),
        mean_reduction_pct: mean(&reductions),
        pooled_reduction_pct: pooled,
        pairs: reductions.len(),
        zero_at_shortest: zero,
        zero_at_shortest_but_here: zero_here,
    }
}

fn kind_figures(pairs: &[PairResult], costing: &str, route: String, pick: Pick) -> KindFigures {
    let extra: Vec<f64> = pairs
        .iter()
        .map(|p| 100.0 * (pick(p).length_m / p.shortest.length_m - 1.0))
        .collect();
    KindFigures {
        costing: costing.to_owned(),
        route,
        median_extra_length_pct: median(&extra),
        all: set_figures(pairs, pick, IncidentSet::All),
        street: set_figures(pairs, pick, IncidentSet::Street),
    }
}

/// Each route kind's figures: `old` and `new` safest, then `old` and `new` within
/// each of [`STRETCHES_PCT`].
#[must_use]
pub fn kinds(pairs: &[PairResult]) -> Vec<KindFigures> {
    let picks: [(&str, String, Pick); 8] = [
        ("old", "safest".into(), |p| &p.old.safest),
        ("new", "safest".into(), |p| &p.new.safest),
        ("old", within(0), |p| &p.old.within[0]),
        ("new", within(0), |p| &p.new.within[0]),
        ("old", within(1), |p| &p.old.within[1]),
        ("new", within(1), |p| &p.new.within[1]),
        ("old", within(2), |p| &p.old.within[2]),
        ("new", within(2), |p| &p.new.within[2]),
    ];
    picks
        .into_iter()
        .map(|(costing, route, pick)| kind_figures(pairs, costing, route, pick))
        .collect()
}

/// The route key of the trade-off's route within stretch `i`.
#[must_use]
pub fn within(i: usize) -> String {
    format!("within_{}", STRETCHES_PCT[i])
}

/// The shortest routes' medians.
#[must_use]
pub fn shortest(pairs: &[PairResult]) -> ShortestFigures {
    let of =
        |f: fn(&Measured) -> f64| median(&pairs.iter().map(|p| f(&p.shortest)).collect::<Vec<_>>());
    ShortestFigures {
        median_length_m: of(|m| m.length_m),
        median_per_km_all: of(|m| m.per_km(IncidentSet::All)),
        median_per_km_street: of(|m| m.per_km(IncidentSet::Street)),
    }
}

/// The aims on each incident set: the street-level trade-off within +10 % has at
/// least [`AIM_REDUCTION_PCT`] fewer incidents per km than the shortest route, and
/// at least [`AIM_TIMES_TODAY`] times today's costing's reduction (which it must
/// also exceed, so that two reductions of 0 do not meet it).
#[must_use]
pub fn aims(kinds: &[KindFigures]) -> Vec<Aim> {
    let key = within(AIM_STRETCH);
    let find = |costing: &str| {
        kinds
            .iter()
            .find(|k| k.costing == costing && k.route == key)
    };
    let (Some(old), Some(new)) = (find("old"), find("new")) else {
        return Vec::new();
    };
    let mut aims = Vec::new();
    for set in IncidentSet::BOTH {
        let value = new.set(set).median_reduction_pct;
        let today = old.set(set).median_reduction_pct;
        aims.push(Aim {
            what: format!(
                "street-level trade-off within +{} % of the shortest: at least {} % fewer incidents per km than the shortest (median)",
                STRETCHES_PCT[AIM_STRETCH], AIM_REDUCTION_PCT
            ),
            set: set.key().to_owned(),
            value,
            threshold: Some(AIM_REDUCTION_PCT),
            met: value.is_some_and(|v| v >= AIM_REDUCTION_PCT),
        });
        let threshold = today.map(|t| AIM_TIMES_TODAY * t);
        aims.push(Aim {
            what: format!(
                "the same reduction at least {AIM_TIMES_TODAY}× today's costing's (its trade-off within +{} %)",
                STRETCHES_PCT[AIM_STRETCH]
            ),
            set: set.key().to_owned(),
            value,
            threshold,
            met: match (value, today, threshold) {
                (Some(v), Some(t), Some(th)) => v >= th && v > t,
                _ => false,
            },
        });
    }
    aims
}

#[cfg(test)]
mod tests;
