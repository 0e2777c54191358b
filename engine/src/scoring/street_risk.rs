//! Each way's risk for one request, in real units: the expected incidents on it
//! (counted as [`CityScores::counts`] counts them), per metre, relative to the city's
//! mean density ([`CityScores::mean_density`]). Routing costs ways by it, and a
//! route's risk-metres times the mean density is its expected number of incidents
//! passed.
//!
//! - **Ways with shares** (the city's own network, streets or the lattice of a city
//!   without road data, where its artifact carries shares):
//!   a way's expected incidents are its home cell's counted incidents of each class
//!   times the way's share of that class's group: the group with the fewest classes
//!   among those holding it, or the way's share of its cell's street length when no
//!   group holds the class.
//! - **Any other network** (the grid lattice of `snapToRoads: false`, or a network
//!   without shares): each way takes the metre-weighted density of the cells it
//!   crosses.
//! - A way of no cell, or in a cell without streets, has the city's mean (risk 1).

use alloc::sync::Arc;
use alloc::vec;
use alloc::vec::Vec;

use super::CityScores;
use crate::city::{CityModel, Network, StreetLayer};
use crate::forecast::CRIME_CLASSES;
use crate::roads::{OUTSIDE_GRID, RoadGraph};
use crate::routing::{CostModel, OUTSIDE_COVERAGE_RISK, way_risks_from_cells};

/// The risks of one network's ways for one request.
#[derive(Debug, Clone, PartialEq)]
pub struct StreetRisk {
    risks: Arc<[f64]>,
    mean_density: f64,
    by_shares: bool,
    // Whether the ways are the city's own network's, whose risks (and cost models)
    // are kept with the scores.
    own: bool,
}

impl StreetRisk {
    /// The risks of `network`'s ways under `scores` (the scores of `model`). Those of
    /// the city's own network are worked out once per scores and kept with them, so
    /// a request whose week's scores are kept on the city finds its risks too.
    #[must_use]
    pub fn of(model: &CityModel, scores: &CityScores, network: &Network<'_>) -> Self {
        let mean_density = scores.mean_density();
        let layer = model.street_layer();
        let own = model
            .artifact()
            .road_graph
            .as_ref()
            .is_some_and(|graph| core::ptr::eq(graph, network.graph));
        let by_shares = own && layer.has_shares();
        let compute = || {
            if by_shares {
                shared_risks(layer, scores, network.graph)
            } else {
                way_risks_from_cells(
                    network.graph,
                    |position| relative(scores.density(position as usize), mean_density),
                    OUTSIDE_COVERAGE_RISK,
                )
            }
        };
        let risks = if own {
            scores.own_way_risks(compute)
        } else {
            Arc::from(compute())
        };
        Self {
            risks,
            mean_density,
            by_shares,
            own,
        }
    }

    /// Routing's cost model of these risks for risk weight `alpha`
    /// ([`CostModel::from_risks`]); that of the city's own network is built once per
    /// scores and weight, and kept with `scores` (the scores these risks are of).
    #[must_use]
    pub fn cost_model(&self, scores: &CityScores, alpha: f64) -> CostModel {
        let compute = || CostModel::from_risks(&self.risks, alpha);
        if self.own {
            scores.own_cost_model(alpha, compute)
        } else {
            compute()
        }
    }

    /// Whether the risks spread cells over their ways by learnt shares (a way's
    /// risk is then its own, not its cells').
    #[must_use]
    pub fn by_shares(&self) -> bool {
        self.by_shares
    }

    /// Per way, in graph order: its expected incidents per metre over the city's
    /// mean.
    #[must_use]
    pub fn risks(&self) -> &[f64] {
        &self.risks
    }

    /// The city's counted incidents per street metre for the request: what a risk of
    /// 1 stands for.
    #[must_use]
    pub fn mean_density(&self) -> f64 {
        self.mean_density
    }

    /// Expected incidents on `risk_metres` (metres times risk).
    #[must_use]
    pub fn incidents(&self, risk_metres: f64) -> f64 {
        risk_metres * self.mean_density
    }

    /// The risk of `way` (per metre, over the city's mean), or
    /// [`OUTSIDE_COVERAGE_RISK`] for a way it has none for.
    #[must_use]
    pub fn risk_of(&self, way: usize) -> f64 {
        self.risks
            .get(way)
            .copied()
            .unwrap_or(OUTSIDE_COVERAGE_RISK)
    }

    /// Each way's safety score among the city's streets for the request, as a hex's
    /// is among its cells but weighed by length: `100 × (metres riskier + ½ ·
    /// metres as risky, other ways) / (all metres − its own)`, 100 the safest
    /// street, 0 the least safe. Ways of no length score as their risk ranks.
    #[must_use]
    pub fn safety_scores(&self, graph: &RoadGraph) -> Vec<f64> {
        let length = |way: usize| f64::from(graph.way_length_m[way]).max(0.0);
        let mut order: Vec<usize> = (0..self.risks.len()).collect();
        crate::sorting::sort_by(&mut order, |&a, &b| self.risks[a].total_cmp(&self.risks[b]));
        let total: f64 = order.iter().map(|&w| length(w)).sum();
        let mut scores = alloc::vec![0.0; self.risks.len()];
        // Runs of equal risk, least risky first: metres below a run are safer.
        let (mut start, mut safer) = (0, 0.0);
        while start < order.len() {
            let risk = self.risks[order[start]];
            let end =
                start + order[start..].partition_point(|&w| self.risks[w].total_cmp(&risk).is_eq());
            let tied: f64 = order[start..end].iter().map(|&w| length(w)).sum();
            for &way in &order[start..end] {
                let others = total - length(way);
                let riskier = total - safer - tied;
                let equal = tied - length(way);
                scores[way] = if others > 0.0 {
                    (100.0 * (riskier + 0.5 * equal) / others).clamp(0.0, 100.0)
                } else {
                    100.0
                };
            }
            safer += tied;
            start = end;
        }
        scores
    }

    /// [`Self::safety_scores`] of the city's own network under `scores` (the scores
    /// these risks come from), worked out once and kept with them.
    #[must_use]
    pub fn kept_safety_scores(&self, scores: &CityScores, graph: &RoadGraph) -> Arc<[f64]> {
        scores.own_way_safety(|| self.safety_scores(graph))
    }

    /// Expected incidents per kilometre of a way.
    #[must_use]
    pub fn per_km(&self, way: usize) -> f64 {
        let risk = self
            .risks
            .get(way)
            .copied()
            .unwrap_or(OUTSIDE_COVERAGE_RISK);
        risk * self.mean_density * 1000.0
    }
}

/// A density over the mean; the mean itself for none, and 0 when the city expects
/// nothing at all.
fn relative(density: Option<f64>, mean: f64) -> f64 {
    match density {
        None => OUTSIDE_COVERAGE_RISK,
        Some(density) if mean > 0.0 => density / mean,
        Some(_) => 0.0,
    }
}

/// Risks from the street shares: each class's counted incidents of the home cell
/// spread by its group's shares.
fn shared_risks(layer: &StreetLayer, scores: &CityScores, graph: &RoadGraph) -> Vec<f64> {
    // Each class's group: the one with the fewest classes that holds it.
    let group_of: [Option<usize>; 5] = core::array::from_fn(|class| {
        layer
            .groups
            .iter()
            .enumerate()
            .filter(|(_, (classes, _))| classes & (1 << class) != 0)
            .min_by_key(|(_, (classes, _))| classes.count_ones())
            .map(|(g, _)| g)
    });
    debug_assert_eq!(group_of.len(), CRIME_CLASSES.len());
    let mean = scores.mean_density();
    // Per cell, once: each group's counted incidents, and those spread by length
    // (classes of no group) per metre of the cell's ways.
    let groups = layer.groups.len();
    let cells = layer.home_metres.len();
    let mut by_group = vec![0.0; cells * groups];
    let mut by_length = vec![0.0; cells];
    for cell in 0..cells {
        for (count, group) in scores.counts(cell).iter().zip(group_of) {
            match group {
                Some(g) => by_group[cell * groups + g] += count,
                None if layer.home_metres[cell] > 0.0 => {
                    by_length[cell] += count / layer.home_metres[cell];
                }
                None => {}
            }
        }
    }
    (0..graph.way_count())
        .map(|way| {
            let home = layer.homes.get(way).copied().unwrap_or(OUTSIDE_GRID) as usize;
            let length = f64::from(graph.way_length_m[way]);
            let home_metres = layer.home_metres.get(home).copied().unwrap_or(0.0);
            if length <= 0.0 || home_metres <= 0.0 {
                return OUTSIDE_COVERAGE_RISK;
            }
            let shared: f64 = layer
                .groups
                .iter()
                .zip(&by_group[home * groups..(home + 1) * groups])
                .map(|((_, shares), count)| count * f64::from(shares[way]))
                .sum();
            relative(Some(shared / length + by_length[home]), mean)
        })
        .collect()
}

#[cfg(test)]
mod tests;
