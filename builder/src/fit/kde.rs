//! The kernel density baseline of the hot-spot report: each cell's mean weekly count
//! over the last 52 weeks spread over the cells around it by a Gaussian kernel of the
//! distance between cell centres, `exp(−d² / 2h²)`, cut at `3h`, normalised per
//! spreading cell so that the city's total is kept. The bandwidth `h` is chosen from
//! [`BANDWIDTHS_M`] on validation weeks by the hit rate at 5 % of the area.

use h3o::{CellIndex, LatLng};

/// Bandwidths tried, in metres (a resolution-8 cell's centres are about 800 m apart).
pub const BANDWIDTHS_M: [f64; 4] = [250.0, 500.0, 1000.0, 2000.0];

/// Kernel weights are cut beyond this many bandwidths.
const CUT_BANDWIDTHS: f64 = 3.0;

/// The kernel of one bandwidth over a grid.
#[derive(Debug, Clone, PartialEq)]
pub struct Kde {
    /// The bandwidth in metres.
    pub bandwidth_m: f64,
    /// Per spreading cell: the cells it spreads to with their weights (summing to 1).
    spread: Vec<Vec<(u32, f64)>>,
}

impl Kde {
    /// The kernel of `bandwidth_m` over `cells`.
    #[must_use]
    pub fn new(cells: &[CellIndex], bandwidth_m: f64) -> Self {
        let centres: Vec<LatLng> = cells.iter().map(|&c| LatLng::from(c)).collect();
        let cut = CUT_BANDWIDTHS * bandwidth_m;
        let spread = centres
            .iter()
            .map(|&from| {
                let mut weights: Vec<(u32, f64)> = centres
                    .iter()
                    .enumerate()
                    .filter_map(|(j, &to)| {
                        let d = from.distance_m(to);
                        (d <= cut).then(|| (j as u32, (-d * d / (2.0 * bandwidth_m.powi(2))).exp()))
                    })
                    .collect();
                let total: f64 = weights.iter().map(|&(_, w)| w).sum();
                for (_, w) in &mut weights {
                    *w /= total;
                }
                weights
            })
            .collect();
        Self {
            bandwidth_m,
            spread,
        }
    }

    /// Each cell's density from every cell's count `counts` (cell order).
    #[must_use]
    pub fn density(&self, counts: &[f64]) -> Vec<f64> {
        let mut density = vec![0.0; counts.len()];
        for (spread, &count) in self.spread.iter().zip(counts) {
            if count > 0.0 {
                for &(to, weight) in spread {
                    density[to as usize] += weight * count;
                }
            }
        }
        density
    }
}

#[cfg(test)]
mod tests;
