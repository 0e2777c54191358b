//! What a metre costs: the method's risk weight and each way's risk for one
//! request, and the per-search cache of way costs with alternative penalties.
//!
//! A way's risk is uniform along it: its expected incidents per metre relative to
//! the city's mean over every street for the same request (1 is the city's mean, 10
//! ten times it), which [`crate::scoring::StreetRisk`] works out. Routing is
//! unit-free; a route's exposure in risk-metres times the city's mean incidents per
//! metre is its expected number of incidents passed.

use alloc::sync::Arc;
use alloc::vec::Vec;
use core::cell::RefCell;

use super::OUTSIDE_COVERAGE_RISK;
use crate::roads::{OUTSIDE_GRID, RoadGraph};

/// How strongly a route avoids risk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum RouteMethod {
    /// Strong preference for safer cells (`α` = 4).
    #[default]
    Safest,
    /// Some preference (`α` = 1).
    Balanced,
    /// Length only (`α` = 0).
    Shortest,
}

api_names! {
    /// The text is not a route method.
    RouteMethod, UnknownMethod, "method" {
        Safest => "safest",
        Balanced => "balanced",
        Shortest => "shortest",
    }
}

impl RouteMethod {
    /// The risk weight `α` in `length × (1 + α · risk)`.
    #[must_use]
    pub const fn alpha(self) -> f64 {
        match self {
            Self::Safest => 4.0,
            Self::Balanced => 1.0,
            Self::Shortest => 0.0,
        }
    }
}

/// Each way's risk from per-cell risks: the metre-weighted mean over the cells it
/// crosses (`cell_risk` gets the grid position), `outside` for metres outside the
/// grid and for a way of no metres. A network whose ways have no shares of their own
/// (the grid lattice, a city without shares) is costed this way, with
/// [`OUTSIDE_COVERAGE_RISK`].
#[must_use]
pub fn way_risks_from_cells(
    graph: &RoadGraph,
    cell_risk: impl Fn(u32) -> f64,
    outside: f64,
) -> Vec<f64> {
    (0..graph.way_count())
        .map(|way| {
            let (mut metres, mut weighted) = (0.0, 0.0);
            for (position, m) in graph.way_cells(way) {
                let m = f64::from(m);
                let risk = if position == OUTSIDE_GRID {
                    outside
                } else {
                    cell_risk(position)
                };
                metres += m;
                weighted += m * risk;
            }
            if metres > 0.0 {
                weighted / metres
            } else {
                outside
            }
        })
        .collect()
}

/// Per-request cost factors: `1 + α · risk` for every way. A clone shares the
/// factors, and a model compared with its clone (a metric cache's key with the model
/// of a request that found it kept) is equal without reading them.
#[derive(Debug, Clone)]
pub struct CostModel {
    alpha: f64,
    factors: Arc<[f64]>,
    outside: f64,
    min_factor: f64,
}

impl PartialEq for CostModel {
    fn eq(&self, other: &Self) -> bool {
        self.alpha == other.alpha
            && self.outside == other.outside
            && self.min_factor == other.min_factor
            && (Arc::ptr_eq(&self.factors, &other.factors) || self.factors == other.factors)
    }
}

/// A risk as routing reads it: not negative, and a risk that is not a number (a way
/// without a forecast) is [`OUTSIDE_COVERAGE_RISK`].
fn usable(risk: f64) -> f64 {
    if risk.is_nan() {
        OUTSIDE_COVERAGE_RISK
    } else {
        risk.max(0.0)
    }
}

impl CostModel {
    /// Length alone: every metre costs 1.
    #[must_use]
    pub fn lengths() -> Self {
        Self::from_risks(&[], 0.0)
    }

    /// Factors from per-way risks (graph order; a way beyond `risks` counts as
    /// [`OUTSIDE_COVERAGE_RISK`]).
    #[must_use]
    pub fn from_risks(risks: &[f64], alpha: f64) -> Self {
        let alpha = if alpha.is_finite() {
            alpha.max(0.0)
        } else {
            0.0
        };
        let factors: Arc<[f64]> = risks.iter().map(|&r| 1.0 + alpha * usable(r)).collect();
        let outside = 1.0 + alpha * OUTSIDE_COVERAGE_RISK;
        let min_factor = factors.iter().copied().fold(outside, f64::min);
        Self {
            alpha,
            factors,
            outside,
            min_factor,
        }
    }

    /// Exposure alone: a metre costs its risk and nothing for its length (`α` is
    /// reported as infinite). Remaining exposures under it bound the searches of the
    /// trade-off.
    #[must_use]
    pub fn exposure_only(risks: &[f64]) -> Self {
        let factors: Arc<[f64]> = risks.iter().map(|&r| usable(r)).collect();
        let min_factor = factors
            .iter()
            .copied()
            .fold(OUTSIDE_COVERAGE_RISK, f64::min);
        Self {
            alpha: f64::INFINITY,
            factors,
            outside: OUTSIDE_COVERAGE_RISK,
            min_factor,
        }
    }

    /// The risk weight `α`.
    #[must_use]
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// What a metre of a way costs.
    #[must_use]
    pub fn factor(&self, way: usize) -> f64 {
        self.factors.get(way).copied().unwrap_or(self.outside)
    }

    /// The smallest factor any metre can have: the scale of admissible bounds.
    #[must_use]
    pub fn min_factor(&self) -> f64 {
        self.min_factor
    }

    /// Cost of a whole way.
    #[must_use]
    pub fn way_cost(&self, graph: &RoadGraph, way: usize) -> f64 {
        f64::from(graph.way_length_m[way]) * self.factor(way)
    }

    /// Cost of the part of a way between two offsets (metres from its start, either
    /// order).
    #[must_use]
    pub fn way_cost_between(&self, way: usize, a: f64, b: f64) -> f64 {
        libm::fabs(b - a) * self.factor(way)
    }
}

/// Edge costs of one search, with optional alternative penalties. Way costs are
/// computed on first use and kept, since a search meets most ways more than once;
/// the table of them is made on the first whole edge asked for, because a search
/// through the hierarchy asks only for parts of its end ways, and filling a table for
/// every way (Toronto: 38,812, 310 KB) took about a tenth of that search's
/// instructions, besides the memory written.
pub(super) struct SearchCosts<'a> {
    graph: &'a RoadGraph,
    pub(super) model: &'a CostModel,
    penalties: Option<&'a [f64]>,
    way_cost: RefCell<Vec<f64>>,
}

impl<'a> SearchCosts<'a> {
    pub(super) fn new(
        graph: &'a RoadGraph,
        model: &'a CostModel,
        penalties: Option<&'a [f64]>,
    ) -> Self {
        Self {
            graph,
            model,
            penalties,
            way_cost: RefCell::new(Vec::new()),
        }
    }

    fn penalty(&self, way: usize) -> f64 {
        self.penalties
            .and_then(|p| p.get(way).copied())
            .unwrap_or(1.0)
    }

    /// The cost of an edge: its whole way, penalised.
    pub(super) fn edge(&self, edge: usize) -> f64 {
        let way = self.graph.edge_way(edge).0;
        let mut cache = self.way_cost.borrow_mut();
        if cache.is_empty() {
            cache.resize(self.graph.way_count(), f64::NAN);
        }
        let cost = cache[way];
        if cost.is_nan() {
            let cost = self.model.way_cost(self.graph, way) * self.penalty(way);
            cache[way] = cost;
            cost
        } else {
            cost
        }
    }

    /// The cost of part of a way, penalised.
    pub(super) fn part(&self, way: usize, a: f64, b: f64) -> f64 {
        self.model.way_cost_between(way, a, b) * self.penalty(way)
    }
}
