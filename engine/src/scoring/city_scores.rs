//! Scores shared by both APIs and the npm package: expected harm, the 0..100 safety
//! score, colour bands, corridor tiers, per-class breakdowns and precinct aggregates.
//!
//! - **Expected harm** of a cell-week: `H = Σ_c w_c · severity_c · λ_c` over the
//!   active crime classes, with `λ_c` the forecast expected count and `w_c` the
//!   intent's class weight times any per-request override.
//! - **Safety score**: the cell's mid-rank among the city's cells for the same week
//!   and parameters, `100 · (#{H' > H} + ½ · #{H' = H, other cells}) / (n − 1)`:
//!   100 is the safest cell of the city that week, 0 the least safe.
//! - **Colour index**: [`ColourIndex::from_safety_score`].
//! - **Tier** (corridor colouring): `4 − min(4, floor(score / 20))`: 0 for scores of
//!   80 and above (safest), 4 below 20.
//! - **Normalised risk**: `1 − score / 100`.
//! - **Precinct**: expected counts summed over its cells; its safety score is the
//!   mean of its cells' scores.
//! - **Counted incidents** of a cell (what a route's exposure counts): its expected
//!   count of each active class in the window, times the intent's weight and any
//!   override, without severity: `Σ_c w_c · λ_c` with `w_c` from
//!   [`ScoringParams::count_weights`] (1 for every class with intent `overall` or
//!   `night`). Its **density** is that over the street metres in the cell; the
//!   city's **mean density** is the sum over cells with streets over their metres.

use alloc::sync::Arc;
use alloc::vec::Vec;

use spin::Mutex;

use super::colour::ColourIndex;
use crate::city::{CityModel, Derived};
use crate::forecast::{CRIME_CLASSES, ClassRates, CrimeClass, TimeWindow};
use crate::routing::CostModel;

/// What the user is doing, which sets how much each class matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Intent {
    /// Every class at its severity.
    #[default]
    Overall,
    /// On foot: personal crimes weigh more, vehicle crime less.
    Walking,
    /// By car: vehicle crime weighs more, street crime less.
    Driving,
    /// After dark: every class at its severity, over the expected counts of the
    /// week's nights (the night bands of the city's learnt time-of-day profiles,
    /// [`crate::forecast::TimeWindow::Nights`]).
    Night,
}

api_names! {
    /// The text is not an intent name.
    Intent, UnknownIntent, "intent" {
        Overall => "overall",
        Walking => "walking",
        Driving => "driving",
        Night => "night",
    }
}

impl Intent {
    /// Class weights, [`CRIME_CLASSES`] order (theft, assault, vehicle, serious violent, other).
    #[must_use]
    pub const fn weights(self) -> ClassRates {
        match self {
            // Night's hours, not its weights, set it apart (`TimeWindow::Nights`).
            Self::Overall | Self::Night => [1.0, 1.0, 1.0, 1.0, 1.0],
            Self::Walking => [1.0, 1.5, 0.3, 1.5, 0.5],
            Self::Driving => [0.5, 0.5, 2.0, 1.0, 0.5],
        }
    }
}

/// How harm is weighed for one request.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScoringParams {
    /// The intent.
    pub intent: Intent,
    /// Which classes count ([`CRIME_CLASSES`] order).
    pub active: [bool; 5],
    /// Per-class multipliers on top of the intent's weights (1 = unchanged).
    pub overrides: ClassRates,
    /// The hours of the week whose expected counts are weighed.
    pub window: TimeWindow,
}

impl Default for ScoringParams {
    fn default() -> Self {
        Self {
            intent: Intent::Overall,
            active: [true; 5],
            overrides: [1.0; 5],
            window: TimeWindow::Week,
        }
    }
}

impl ScoringParams {
    /// The effective weight of each class: severity × intent weight × override, 0 if inactive.
    #[must_use]
    pub fn class_weights(&self) -> ClassRates {
        let intent = self.intent.weights();
        let mut weights = [0.0; 5];
        for (i, class) in CRIME_CLASSES.iter().enumerate() {
            if self.active[i] {
                weights[i] = f64::from(class.severity()) * intent[i] * self.overrides[i];
            }
        }
        weights
    }

    /// The weight each class's expected count is counted with in a route's exposure:
    /// the intent's weight times the override, 0 if inactive (severity ranks the
    /// cells, it does not scale a count).
    #[must_use]
    pub fn count_weights(&self) -> ClassRates {
        let intent = self.intent.weights();
        core::array::from_fn(|i| {
            if self.active[i] {
                intent[i] * self.overrides[i]
            } else {
                0.0
            }
        })
    }

    /// Expected harm of a cell-week's rates.
    #[must_use]
    pub fn harm(&self, rates: &ClassRates) -> f64 {
        self.class_weights()
            .iter()
            .zip(rates)
            .map(|(w, r)| w * r)
            .sum()
    }
}

/// Corridor tier from a safety score: 0 (score ≥ 80) to 4 (score < 20).
#[must_use]
pub fn tier(safety_score: f64) -> u8 {
    if safety_score.is_nan() {
        return 4;
    }
    let band = (safety_score.clamp(0.0, 100.0) / 20.0) as u8;
    4 - band.min(4)
}

/// What [`CityScores::compute`] reads besides the city, exactly: the weights as their
/// bits, so that no two parameters that could score differently (`0.0` and `-0.0`)
/// share kept scores.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ScoresKey {
    week: usize,
    intent: Intent,
    active: [bool; 5],
    overrides: [u64; 5],
    window: TimeWindow,
}

impl ScoresKey {
    fn new(week: usize, params: &ScoringParams) -> Self {
        Self {
            week,
            intent: params.intent,
            active: params.active,
            overrides: params.overrides.map(f64::to_bits),
            window: params.window,
        }
    }
}

/// Cost models kept with one week's scores: one per routing method.
pub(crate) const KEPT_COST_MODELS: usize = 3;

/// Scores of every cell of a city for one week and set of parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct CityScores {
    harms: Vec<f64>,
    sorted: Vec<f64>,
    // Each cell's safety score, found once: maps and routes read them per cell.
    safety: Vec<f64>,
    // Each cell's counted incidents per class, and per street metre.
    counts: Vec<ClassRates>,
    density: Vec<Option<f64>>,
    mean_density: f64,
    // The risks of the city's own network's ways under these scores: a request
    // that finds its week's scores kept finds them too (`StreetRisk::of`).
    own_way_risks: Derived<Arc<[f64]>>,
    // Those ways' safety scores, likewise (a map's street tiles ask for them tile
    // after tile: `StreetRisk::kept_safety_scores`).
    own_way_safety: Derived<Arc<[f64]>>,
    // The cost models routes of those ways were found with, one per risk weight (a
    // method's: at most `Method`'s three), so that a request finds its model instead
    // of building a factor per way (`StreetRisk::cost_model`).
    own_cost_models: Derived<Mutex<Vec<CostModel>>>,
}

impl CityScores {
    /// Computes harms for every cell of `model` in forecast week `week`.
    #[must_use]
    pub fn compute(model: &CityModel, week: usize, params: &ScoringParams) -> Self {
        let (weights, count_weights) = (params.class_weights(), params.count_weights());
        let (harms, counts): (Vec<f64>, Vec<ClassRates>) = (0..model.cell_count())
            .map(|position| {
                let rates = model.window_rates(position, week, params.window);
                let harm: f64 = weights.iter().zip(&rates).map(|(w, r)| w * r).sum();
                (harm, core::array::from_fn(|i| count_weights[i] * rates[i]))
            })
            .unzip();
        let mut scores = Self::from_harms(harms);
        scores.set_counts(counts, &model.street_layer().cell_metres);
        scores
    }

    /// Keeps each cell's counted incidents and works out the densities.
    fn set_counts(&mut self, counts: Vec<ClassRates>, cell_metres: &[f64]) {
        let (mut counted, mut metres) = (0.0, 0.0);
        self.density = counts
            .iter()
            .enumerate()
            .map(|(position, rates)| {
                let count: f64 = rates.iter().sum();
                match cell_metres.get(position) {
                    Some(&m) if m > 0.0 => {
                        counted += count;
                        metres += m;
                        Some(count / m)
                    }
                    _ => None,
                }
            })
            .collect();
        self.mean_density = if metres > 0.0 { counted / metres } else { 0.0 };
        self.counts = counts;
    }

    /// [`Self::compute`]'s scores, kept on `model` between requests: the first request
    /// with a week and parameters computes them, later ones with the same (compared
    /// bit for bit) share them. Most requests of a map or a route planner repeat the
    /// current week and default options, and computing a week takes longer than
    /// routing through the hierarchy.
    #[must_use]
    pub fn kept(model: &CityModel, week: usize, params: &ScoringParams) -> Arc<Self> {
        model.kept(ScoresKey::new(week, params), || {
            Self::compute(model, week, params)
        })
    }

    /// Scores of every cell taken from one of `parts` each: the cell at position `p`
    /// from `parts[part_of[p]]` (its harm and its safety score, ranked within that
    /// part). [`Self::safety_of_harm`] ranks against `parts[0]`. A route departing at a
    /// time scores each cell in the band a traveller reaches it (`plan::departure`).
    ///
    /// # Panics
    /// If `parts` is empty or `part_of` names a part that is not there.
    #[must_use]
    pub fn mixed(parts: &[Self], part_of: &[usize]) -> Self {
        let pick = |p: usize| &parts[part_of.get(p).copied().unwrap_or(0)];
        let cells = 0..parts[0].harms.len();
        Self {
            harms: cells.clone().map(|p| pick(p).harm(p)).collect(),
            sorted: parts[0].sorted.clone(),
            safety: cells.clone().map(|p| pick(p).safety(p)).collect(),
            counts: cells.clone().map(|p| pick(p).counts(p)).collect(),
            density: cells.map(|p| pick(p).density(p)).collect(),
            mean_density: parts[0].mean_density,
            own_way_risks: Derived::new(),
            own_way_safety: Derived::new(),
            own_cost_models: Derived::new(),
        }
    }

    /// Ranks harms into safety scores.
    fn from_harms(harms: Vec<f64>) -> Self {
        let mut sorted = harms.clone();
        crate::sorting::sort_by(&mut sorted, f64::total_cmp);
        let mut scores = Self {
            harms,
            sorted,
            safety: Vec::new(),
            counts: Vec::new(),
            density: Vec::new(),
            mean_density: 0.0,
            own_way_risks: Derived::new(),
            own_way_safety: Derived::new(),
            own_cost_models: Derived::new(),
        };
        scores.safety = scores
            .harms
            .iter()
            .map(|&harm| {
                if harm.is_nan() {
                    harm
                } else {
                    scores.safety_of_harm(harm)
                }
            })
            .collect();
        scores
    }

    /// Expected harm of the cell at `position`.
    #[must_use]
    pub fn harm(&self, position: usize) -> f64 {
        self.harms.get(position).copied().unwrap_or(f64::NAN)
    }

    /// Safety score (0..100) of a harm value among the city's cells.
    #[must_use]
    pub fn safety_of_harm(&self, harm: f64) -> f64 {
        let n = self.sorted.len();
        if n < 2 {
            return 100.0;
        }
        let below_or_equal = self.sorted.partition_point(|&h| h <= harm);
        let below = self.sorted.partition_point(|&h| h < harm);
        let greater = n - below_or_equal;
        let equal_others = (below_or_equal - below).saturating_sub(1);
        100.0 * (greater as f64 + 0.5 * equal_others as f64) / (n - 1) as f64
    }

    /// Safety score of the cell at `position` (NaN when out of range).
    #[must_use]
    pub fn safety(&self, position: usize) -> f64 {
        self.safety.get(position).copied().unwrap_or(f64::NAN)
    }

    /// Counted incidents of each class in the cell at `position` (zeros when out of
    /// range).
    #[must_use]
    pub fn counts(&self, position: usize) -> ClassRates {
        self.counts.get(position).copied().unwrap_or([0.0; 5])
    }

    /// Counted incidents per street metre in the cell at `position` (`None` when it
    /// has no streets or is out of range).
    #[must_use]
    pub fn density(&self, position: usize) -> Option<f64> {
        self.density.get(position).copied().flatten()
    }

    /// The city's counted incidents per street metre: the density a route's risk of
    /// 1 stands for.
    #[must_use]
    pub fn mean_density(&self) -> f64 {
        self.mean_density
    }

    /// The risks of the city's own network's ways under these scores, worked out by
    /// `compute` the first time and kept with the scores from then on.
    pub(super) fn own_way_risks(&self, compute: impl FnOnce() -> Vec<f64>) -> Arc<[f64]> {
        Arc::clone(self.own_way_risks.get_or_init(|| Arc::from(compute())))
    }

    /// The safety scores of the city's own network's ways under these scores, worked
    /// out by `compute` the first time and kept with the scores from then on.
    pub(super) fn own_way_safety(&self, compute: impl FnOnce() -> Vec<f64>) -> Arc<[f64]> {
        Arc::clone(self.own_way_safety.get_or_init(|| Arc::from(compute())))
    }

    /// The cost model of the city's own network's ways under these scores for risk
    /// weight `alpha`, built by `compute` the first time and kept from then on (at
    /// most [`KEPT_COST_MODELS`] of them; a model past those is built each time).
    pub(super) fn own_cost_model(
        &self,
        alpha: f64,
        compute: impl FnOnce() -> CostModel,
    ) -> CostModel {
        let kept = self.own_cost_models.get_or_init(|| Mutex::new(Vec::new()));
        let found = |models: &[CostModel]| {
            models
                .iter()
                .find(|m| m.alpha().to_bits() == alpha.to_bits())
                .cloned()
        };
        if let Some(model) = found(&kept.lock()) {
            return model;
        }
        let model = compute();
        let mut models = kept.lock();
        if models.len() < KEPT_COST_MODELS && found(&models).is_none() {
            models.push(model.clone());
        }
        model
    }

    /// Counted incidents per metre of a cell for a line through it: its density, or
    /// the city's mean density where it has none (outside the grid, or no streets).
    #[must_use]
    pub fn density_or_mean(&self, position: Option<usize>) -> f64 {
        position
            .and_then(|p| self.density(p))
            .unwrap_or(self.mean_density)
    }

    /// Colour band of the cell at `position` (-1 when out of range).
    #[must_use]
    pub fn colour(&self, position: usize) -> ColourIndex {
        ColourIndex::from_safety_score(self.safety(position))
    }
}

/// One class's share of a cell-week.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClassBreakdown {
    /// The class.
    pub class: CrimeClass,
    /// Expected incidents.
    pub expected_count: f64,
    /// Probability that this class is the week's outcome.
    pub probability: f64,
    /// Effective weight (0 if inactive).
    pub weight: f64,
    /// Weighted expected harm.
    pub harm: f64,
    /// Share of the cell's harm (0 when the cell has none).
    pub share: f64,
}

/// Per-class breakdown of a cell-week, in [`CRIME_CLASSES`] order.
#[must_use]
pub fn breakdown(
    model: &CityModel,
    position: usize,
    week: usize,
    params: &ScoringParams,
) -> Vec<ClassBreakdown> {
    let forecast = model.forecast(position, week);
    let weights = params.class_weights();
    let total = params.harm(&forecast.rates);
    CRIME_CLASSES
        .iter()
        .enumerate()
        .map(|(i, &class)| {
            let harm = weights[i] * forecast.rates[i];
            ClassBreakdown {
                class,
                expected_count: forecast.rates[i],
                probability: forecast.probabilities[class.index()],
                weight: weights[i],
                harm,
                share: if total > 0.0 { harm / total } else { 0.0 },
            }
        })
        .collect()
}

/// Aggregate of one precinct for one week.
#[derive(Debug, Clone, PartialEq)]
pub struct PrecinctScore {
    /// Index into the artifact's precincts.
    pub precinct: usize,
    /// Cells whose centre lies in the precinct.
    pub cells: usize,
    /// Expected incidents per class, summed over the cells.
    pub expected_counts: ClassRates,
    /// Expected harm summed over the cells.
    pub harm: f64,
    /// Mean safety score of the cells (NaN without cells).
    pub safety_score: f64,
}

/// Aggregates for every precinct of a city, over the hours of `window`.
#[must_use]
pub fn precinct_scores(
    model: &CityModel,
    week: usize,
    window: TimeWindow,
    scores: &CityScores,
) -> Vec<PrecinctScore> {
    let precincts = model.artifact().precincts.len();
    let mut out: Vec<PrecinctScore> = (0..precincts)
        .map(|precinct| PrecinctScore {
            precinct,
            cells: 0,
            expected_counts: [0.0; 5],
            harm: 0.0,
            safety_score: 0.0,
        })
        .collect();
    for (position, &p) in model.artifact().precinct_of.iter().enumerate() {
        let Some(entry) = out.get_mut(usize::from(p)) else {
            continue;
        };
        let rates = model.window_rates(position, week, window);
        entry.cells += 1;
        for (sum, r) in entry.expected_counts.iter_mut().zip(rates) {
            *sum += r;
        }
        entry.harm += scores.harm(position);
        entry.safety_score += scores.safety(position);
    }
    for entry in &mut out {
        entry.safety_score = if entry.cells == 0 {
            f64::NAN
        } else {
            entry.safety_score / entry.cells as f64
        };
    }
    out
}

#[cfg(test)]
mod tests;
