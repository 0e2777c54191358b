//! Safe reach: from a point, every cell reachable within a length budget, with the
//! shortest way to it and the least exposure of any way to it within the budget.
//!
//! A bicriteria label-setting search over (length, exposure): labels leave the heap
//! by increasing length, and a label is kept at a node only if it is less exposed
//! than every label kept there before, so each node ends with its exact Pareto front
//! of (length, exposure) within the budget. A cell is reached at the first metre of
//! any way crossing it; for each way the least exposed label of its start node that
//! still arrives within budget is found by binary search in that front. The result
//! is exact, not an approximation: "the least exposure" is a resource-constrained
//! shortest path, solved here because the budget keeps the fronts small.

use alloc::collections::BinaryHeap;
use alloc::vec;
use alloc::vec::Vec;

use super::cost::CostModel;
use super::heap::Entry;
use super::index::RouteIndex;
use super::path::Piece;
use super::snap::Snap;
use crate::roads::{OUTSIDE_GRID, RoadGraph};

/// Most labels one reach may create before it is refused: a guard on time and
/// memory far above what the largest accepted budget needs in the cities served.
pub const MAX_REACH_LABELS: usize = 2_000_000;

/// How a cell is reached.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CellReach {
    /// Network metres of the shortest way to the cell.
    pub metres: f64,
    /// Risk-metres of the least exposed way to the cell within the budget.
    pub exposure_m: f64,
}

/// The search needed more than [`MAX_REACH_LABELS`] labels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the reach needs more than {MAX_REACH_LABELS} search labels")]
pub struct TooManyLabels;

impl RouteIndex {
    /// Every grid cell (by position, `cells` of them) reachable from `from` within
    /// `budget_m` network metres, with per-way `risks` (graph order).
    ///
    /// # Errors
    /// [`TooManyLabels`] when the search outgrows its guard.
    pub fn safe_reach(
        &self,
        graph: &RoadGraph,
        risks: &[f64],
        from: &Snap,
        budget_m: f64,
        cells: usize,
    ) -> Result<Vec<Option<CellReach>>, TooManyLabels> {
        let exposure = CostModel::from_risks(risks, 1.0);
        let n = graph.node_count();
        let mut fronts: Vec<Vec<(f64, f64)>> = vec![Vec::new(); n];
        let mut least = vec![f64::INFINITY; n];
        let mut way_exposure = vec![f64::NAN; graph.way_count()];
        let mut heap = BinaryHeap::new();
        let mut labels = 0_usize;
        let mut reach: Vec<Option<CellReach>> = vec![None; cells];

        let costs = super::cost::SearchCosts::new(graph, &exposure, None);
        for terminal in self.terminals(graph, &costs, from, true) {
            let piece = terminal.piece;
            let metres = libm::fabs(piece.to_m - piece.from_m);
            // The origin's own way is reached from the point itself.
            walk(graph, &exposure, piece, |position, along, exposed| {
                record(&mut reach, position, along, exposed, budget_m);
            });
            if metres <= budget_m {
                heap.push(Entry {
                    key: metres,
                    cost: terminal.cost - metres,
                    node: terminal.node,
                });
            }
        }
        while let Some(Entry { key, cost, node }) = heap.pop() {
            let v = node as usize;
            if cost >= least[v] {
                continue;
            }
            least[v] = cost;
            fronts[v].push((key, cost));
            for e in graph.out_edges(node) {
                let way = graph.edge_way(e).0;
                let length = f64::from(graph.way_length_m[way]);
                if way_exposure[way].is_nan() {
                    way_exposure[way] = exposure.way_cost(graph, way) - length;
                }
                let (to_length, to_exposure) = (key + length, cost + way_exposure[way]);
                let t = graph.edge_target[e];
                if to_length <= budget_m && to_exposure < least[t as usize] {
                    labels += 1;
                    if labels > MAX_REACH_LABELS {
                        return Err(TooManyLabels);
                    }
                    heap.push(Entry {
                        key: to_length,
                        cost: to_exposure,
                        node: t,
                    });
                }
            }
        }

        // Every way leaving a reached node, for each label of its front.
        for (node, front) in fronts.iter().enumerate() {
            if front.is_empty() {
                continue;
            }
            for e in graph.out_edges(node as u32) {
                let (way, against) = graph.edge_way(e);
                let length = f64::from(graph.way_length_m[way]);
                let piece = Piece {
                    way: way as u32,
                    from_m: if against { length } else { 0.0 },
                    to_m: if against { 0.0 } else { length },
                };
                walk(graph, &exposure, piece, |position, along, exposed| {
                    // The front runs from short and exposed to long and safe: the last
                    // label still within budget at this metre is the least exposed.
                    let fits = front.partition_point(|&(l, _)| l + along <= budget_m);
                    if fits > 0 {
                        let shortest = front[0].0 + along;
                        let safest = front[fits - 1].1 + exposed;
                        merge(&mut reach, position, shortest, safest);
                    }
                });
            }
        }
        Ok(reach)
    }
}

fn record(reach: &mut [Option<CellReach>], position: u32, metres: f64, exposed: f64, budget: f64) {
    if metres <= budget {
        merge(reach, position, metres, exposed);
    }
}

fn merge(reach: &mut [Option<CellReach>], position: u32, metres: f64, exposure_m: f64) {
    if position == OUTSIDE_GRID {
        return;
    }
    if let Some(slot) = reach.get_mut(position as usize) {
        *slot = Some(match *slot {
            None => CellReach { metres, exposure_m },
            Some(known) => CellReach {
                metres: known.metres.min(metres),
                exposure_m: known.exposure_m.min(exposure_m),
            },
        });
    }
}

/// Calls `visit(position, metres, risk-metres)` for each cell run the piece enters,
/// with the metres and exposure travelled along the piece before it.
fn walk(
    graph: &RoadGraph,
    exposure: &CostModel,
    piece: Piece,
    mut visit: impl FnMut(u32, f64, f64),
) {
    let way = piece.way as usize;
    let length = f64::from(graph.way_length_m[way]);
    let total: f64 = graph.way_cells(way).map(|(_, m)| f64::from(m)).sum();
    if total <= 0.0 {
        return;
    }
    let scale = length / total;
    // Cell runs as (position, start, end) in metres from the way's start.
    let mut runs: Vec<(u32, f64, f64)> = Vec::new();
    let mut start = 0.0;
    for (position, m) in graph.way_cells(way) {
        let end = start + f64::from(m) * scale;
        runs.push((position, start, end));
        start = end;
    }
    let forward = piece.from_m <= piece.to_m;
    if !forward {
        runs.reverse();
    }
    let (lo, hi) = if forward {
        (piece.from_m, piece.to_m)
    } else {
        (piece.to_m, piece.from_m)
    };
    let (mut along, mut exposed) = (0.0, 0.0);
    for (position, start, end) in runs {
        let (a, b) = (start.max(lo), end.min(hi));
        // A run the piece only touches at one end is not entered, unless the piece is
        // a single point (the origin), which is in the runs it touches.
        if b < a || (b <= a && hi > lo) {
            continue;
        }
        visit(position, along, exposed);
        along += b - a;
        exposed += (b - a) * (exposure.factor(way) - 1.0);
    }
}

#[cfg(test)]
mod tests;
