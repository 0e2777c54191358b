//! The hot-spot report forecasting users expect (White, Hunt and Green 2023; Joshi
//! et al. 2020): each week the cells with the highest forecast, ties in cell order,
//! are the hot spots at a fraction of the area, and over the weeks together:
//!
//! - **hit rate**: the incidents in the hot spots over all incidents;
//! - **PAI**: the hit rate over the fraction of the area taken;
//! - **PEI\***: how little area the best possible choice would need for the same
//!   hits: each week the fewest cells, busiest first, holding at least the hot
//!   spots' incidents (`a*`) against the hot spots' number (`k`), `Σ a* / Σ k`
//!   (1 when no smaller set would do; Joshi et al.'s penalised efficiency);
//! - **stability**: the mean Jaccard index of the top cells at
//!   [`AREA_FRACTIONS`]`[`[`STABLE_FRACTION`]`]` in consecutive weeks (1 when the
//!   list never changes).

/// Fractions of the area a hot-spot list takes.
pub const AREA_FRACTIONS: [f64; 3] = [0.01, 0.05, 0.10];

/// The index into [`AREA_FRACTIONS`] whose lists' stability is reported (5 %).
pub const STABLE_FRACTION: usize = 1;

/// The hot spots' number of cells at `fraction` of `cells`: at least one.
#[must_use]
pub fn hot_spot_cells(fraction: f64, cells: usize) -> usize {
    ((fraction * cells as f64).round() as usize).max(1)
}

/// The figures of one forecaster.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct HotspotFigures {
    /// Hit rate at each of [`AREA_FRACTIONS`].
    pub hit_rate: [f64; 3],
    /// PAI at each of [`AREA_FRACTIONS`].
    pub pai: [f64; 3],
    /// PEI* at each of [`AREA_FRACTIONS`].
    pub pei_star: [f64; 3],
    /// Mean Jaccard index of consecutive weeks' top cells.
    pub stability: f64,
}

/// The figures accumulated week by week.
#[derive(Debug, Clone, Default)]
pub struct HotspotBoard {
    hits: [f64; 3],
    incidents: f64,
    taken: [usize; 3],
    area: usize,
    minimal: [usize; 3],
    jaccard: f64,
    pairs: usize,
    previous: Option<Vec<usize>>,
}

impl HotspotBoard {
    /// Adds a week: each cell's forecast and observed count, cell order.
    ///
    /// # Panics
    /// If the two differ in length.
    pub fn add_week(&mut self, forecast: &[f64], observed: &[f64]) {
        assert_eq!(forecast.len(), observed.len(), "one forecast per cell");
        let cells = forecast.len();
        let mut ranked: Vec<usize> = (0..cells).collect();
        ranked.sort_by(|&a, &b| forecast[b].total_cmp(&forecast[a]).then(a.cmp(&b)));
        let mut busiest: Vec<f64> = observed.to_vec();
        busiest.sort_by(|a, b| b.total_cmp(a));
        self.incidents += observed.iter().sum::<f64>();
        self.area += cells;
        for (f, &fraction) in AREA_FRACTIONS.iter().enumerate() {
            let k = hot_spot_cells(fraction, cells).min(cells);
            let hits: f64 = ranked[..k].iter().map(|&i| observed[i]).sum();
            self.hits[f] += hits;
            self.taken[f] += k;
            // The fewest busiest cells holding as many incidents.
            let mut held = 0.0;
            let minimal = if hits > 0.0 {
                busiest
                    .iter()
                    .position(|&n| {
                        held += n;
                        held >= hits
                    })
                    .map_or(k, |i| i + 1)
            } else {
                0
            };
            self.minimal[f] += minimal;
        }
        let k = hot_spot_cells(AREA_FRACTIONS[STABLE_FRACTION], cells).min(cells);
        let mut top = ranked[..k].to_vec();
        top.sort_unstable();
        if let Some(previous) = &self.previous {
            let shared = top
                .iter()
                .filter(|c| previous.binary_search(c).is_ok())
                .count();
            let union = top.len() + previous.len() - shared;
            self.jaccard += shared as f64 / union.max(1) as f64;
            self.pairs += 1;
        }
        self.previous = Some(top);
    }

    /// The figures so far.
    #[must_use]
    pub fn figures(&self) -> HotspotFigures {
        let ratio = |a: f64, b: f64| if b > 0.0 { a / b } else { f64::NAN };
        let mut figures = HotspotFigures {
            stability: ratio(self.jaccard, self.pairs as f64),
            ..HotspotFigures::default()
        };
        for f in 0..AREA_FRACTIONS.len() {
            figures.hit_rate[f] = ratio(self.hits[f], self.incidents);
            figures.pai[f] = ratio(
                figures.hit_rate[f],
                ratio(self.taken[f] as f64, self.area as f64),
            );
            figures.pei_star[f] = ratio(self.minimal[f] as f64, self.taken[f] as f64);
        }
        figures
    }
}

#[cfg(test)]
mod tests;
