//! The safety–length trade-off between two points: the routes that are not dominated
//! in (length, exposure), found by a parametric search over the risk weight `α`.
//!
//! Every route costs `length + α · exposure` (see [`CostModel`]), so each `α` picks a
//! route on the lower convex hull of all routes' (length, exposure) points, and every
//! hull point is picked by some `α`. The search (the dichotomic method of Aneja and
//! Nair) starts from the two ends, the shortest route (`α` → 0) and the least exposed
//! one (`α` → ∞), and for two neighbouring hull points asks for the best route at the
//! `α` where both cost the same: a route below the line joining them is a new hull
//! point between them, and none means they are neighbours. The result is **exact for
//! the supported routes** (the hull's corners) within [`TRADEOFF_MAX_STRETCH`];
//! non-dominated routes inside the hull's concave gaps are not returned, and each of
//! them lies inside the triangle between two neighbouring returned routes and the
//! corner they span.
//!
//! Each `α` is a cost model used once, so its search is A* rather than the
//! hierarchy; the hierarchy supplies the bound instead: the exact remaining length
//! plus `α` times the exact remaining exposure ([`crate::routing::cch::Potential`]),
//! which no route beats, for every `α` from one pair of potentials.
//!
//! [`thin`] then keeps what a person can choose between: at most
//! [`TRADEOFF_MAX_ROUTES`], each running off its shorter neighbour for at least
//! [`TRADEOFF_MIN_DIFFERENCE`] of its length.

use alloc::vec;
use alloc::vec::Vec;
use core::cell::Cell;

use super::cost::{CostModel, SearchCosts};
use super::index::RouteIndex;
use super::path::Path;
use super::snap::Snap;
use crate::roads::RoadGraph;

/// Longest route of the set relative to the shortest.
pub const TRADEOFF_MAX_STRETCH: f64 = 1.5;

/// Most routes in a thinned set.
pub const TRADEOFF_MAX_ROUTES: usize = 5;

/// Smallest share of a route's length that must run off its shorter neighbour in a
/// thinned set.
pub const TRADEOFF_MIN_DIFFERENCE: f64 = 0.1;

/// Most searches one set may take; a set that needs more is returned as far as it got
/// ([`Tradeoff::complete`] is then `false`).
pub const TRADEOFF_MAX_SEARCHES: usize = 48;

/// `α` of the shortest end: small enough not to lengthen the route by a millimetre on
/// any city route (risks of a thousand times the city's mean over 20 km weigh 0.02 mm),
/// large enough to prefer the less exposed of two equally long ones.
const SHORTEST_ALPHA: f64 = 1e-9;

/// `α` of the safest end: length only breaks ties between equally exposed routes.
const SAFEST_ALPHA: f64 = 1e6;

/// A route of the trade-off with its two criteria.
#[derive(Debug, Clone, PartialEq)]
pub struct TradeoffRoute {
    /// The route (its `cost` is its cost at the `α` that found it).
    pub path: Path,
    /// Network length, metres.
    pub length_m: f64,
    /// Risk-metres: `Σ metres × risk` (each way's risk relative to the city's mean).
    pub exposure_m: f64,
}

/// The supported non-dominated routes, shortest first.
#[derive(Debug, Clone, PartialEq)]
pub struct Tradeoff {
    /// Hull corners, by increasing length and decreasing exposure.
    pub routes: Vec<TradeoffRoute>,
    /// Searches run.
    pub searches: usize,
    /// `false` when [`TRADEOFF_MAX_SEARCHES`] stopped the search early.
    pub complete: bool,
}

impl RouteIndex {
    /// The supported non-dominated routes from `from` to `to` for per-way `risks`
    /// (graph order) no longer than [`TRADEOFF_MAX_STRETCH`] times the shortest,
    /// or `None` when `to` cannot be reached.
    #[must_use]
    pub fn tradeoff(
        &self,
        graph: &RoadGraph,
        risks: &[f64],
        from: &Snap,
        to: &Snap,
    ) -> Option<Tradeoff> {
        let exposure = CostModel::from_risks(risks, 1.0);
        // Every search's remaining cost `length + α · exposure` is at least the
        // remaining length plus `α` times the remaining exposure, each exact from the
        // hierarchy: one potential per criterion serves every `α`.
        // A hex lattice has no hierarchy: its searches keep the landmark bound.
        let mut potentials = self.hierarchy.as_ref().map(|hierarchy| {
            let potential = |model: &CostModel| {
                let costs = SearchCosts::new(graph, model, None);
                let ends: Vec<(u32, f64)> = self
                    .terminals(graph, &costs, to, false)
                    .iter()
                    .map(|t| (t.node, t.cost))
                    .collect();
                hierarchy.potential(hierarchy.metric(graph, model), &ends)
            };
            (
                potential(&CostModel::lengths()),
                potential(&CostModel::exposure_only(risks)),
            )
        });
        let searches = Cell::new(0);
        let mut best_at = |alpha: f64| {
            searches.set(searches.get() + 1);
            let model = CostModel::from_risks(risks, alpha);
            let path = match potentials.as_mut() {
                Some((to_length, to_exposure)) => {
                    let costs = SearchCosts::new(graph, &model, None);
                    let targets = self.terminals(graph, &costs, to, false);
                    let bound = |v: u32| to_length.at(v) + alpha * to_exposure.at(v);
                    self.astar_with(graph, &costs, from, to, &targets, bound)
                }
                None => self.astar(graph, &model, None, from, to),
            }?;
            Some(measure(&exposure, path))
        };
        let shortest = best_at(SHORTEST_ALPHA)?;
        let cap = shortest.length_m * TRADEOFF_MAX_STRETCH;
        let mut hull = vec![shortest];
        let safest = best_at(SAFEST_ALPHA)?;
        if dominates_strictly(&hull[0], &safest) {
            hull.push(safest);
        }
        // Hull neighbours not yet known to be adjacent, as indices into `hull` kept
        // sorted by length; a new corner goes between them.
        let mut open: Vec<usize> = if hull.len() == 2 { vec![0] } else { Vec::new() };
        let mut complete = true;
        while let Some(left) = open.pop() {
            let (a, b) = (&hull[left], &hull[left + 1]);
            if a.length_m > cap {
                continue;
            }
            if searches.get() >= TRADEOFF_MAX_SEARCHES {
                complete = false;
                break;
            }
            let alpha = (b.length_m - a.length_m) / (a.exposure_m - b.exposure_m);
            let line = a.length_m + alpha * a.exposure_m;
            let Some(c) = best_at(alpha) else { break };
            let tolerance = 1e-9 * line.max(1.0);
            if c.length_m + alpha * c.exposure_m < line - tolerance
                && dominates_strictly(a, &c)
                && dominates_strictly(&c, b)
            {
                hull.insert(left + 1, c);
                // Both new segments; indices right of `left` moved by one.
                for index in &mut open {
                    if *index > left {
                        *index += 1;
                    }
                }
                open.push(left + 1);
                open.push(left);
            }
        }
        hull.retain(|r| r.length_m <= cap);
        Some(Tradeoff {
            routes: hull,
            searches: searches.get(),
            complete,
        })
    }
}

/// `true` when `longer` is longer and strictly less exposed than `shorter`, so that
/// both belong to the set.
fn dominates_strictly(shorter: &TradeoffRoute, longer: &TradeoffRoute) -> bool {
    longer.length_m > shorter.length_m && longer.exposure_m < shorter.exposure_m
}

fn measure(exposure: &CostModel, path: Path) -> TradeoffRoute {
    let length_m = path.length_m();
    // With α = 1 a metre costs `1 + risk`: the cost less the length is the exposure.
    let cost: f64 = path
        .pieces
        .iter()
        .map(|p| exposure.way_cost_between(p.way as usize, p.from_m, p.to_m))
        .sum();
    let exposure_m = (cost - length_m).max(0.0);
    TradeoffRoute {
        path,
        length_m,
        exposure_m,
    }
}

/// The routes a person can choose between: the shortest, then each hull route that
/// runs off the last kept one for at least [`TRADEOFF_MIN_DIFFERENCE`] of its length
/// (the least exposed route taking the place of a kept one it barely differs from,
/// so that the set still ends at the safest), and at most [`TRADEOFF_MAX_ROUTES`] by
/// dropping, one at a time, the middle route nearest the line joining its neighbours
/// (lengths and exposures relative to the shortest route's).
#[must_use]
pub fn thin(routes: &[TradeoffRoute]) -> Vec<TradeoffRoute> {
    let Some((first, rest)) = routes.split_first() else {
        return Vec::new();
    };
    let differs = |longer: &TradeoffRoute, shorter: &TradeoffRoute| {
        longer.length_m - longer.path.shared_m(&shorter.path)
            >= TRADEOFF_MIN_DIFFERENCE * longer.length_m
    };
    let mut kept = vec![first.clone()];
    for route in rest {
        if differs(route, &kept[kept.len() - 1]) {
            kept.push(route.clone());
        }
    }
    if let Some(safest) = rest.last()
        && kept.last().map(|k| k.exposure_m) != Some(safest.exposure_m)
        && kept.len() > 1
        && differs(safest, &kept[kept.len() - 2])
    {
        let last = kept.len() - 1;
        kept[last] = safest.clone();
    }
    let (l0, e0) = (first.length_m.max(1.0), first.exposure_m.max(1e-9));
    while kept.len() > TRADEOFF_MAX_ROUTES {
        let area = |i: usize| {
            let point = |r: &TradeoffRoute| (r.length_m / l0, r.exposure_m / e0);
            let ((x0, y0), (x1, y1), (x2, y2)) =
                (point(&kept[i - 1]), point(&kept[i]), point(&kept[i + 1]));
            libm::fabs((x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0))
        };
        let least = (1..kept.len() - 1)
            .min_by(|&a, &b| area(a).total_cmp(&area(b)))
            .unwrap_or(1);
        kept.remove(least);
    }
    kept
}

#[cfg(test)]
mod tests;
