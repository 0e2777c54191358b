//! The A* search with landmark bounds, for costs used once (penalised searches, the
//! trade-off's many weights), and alternatives by the penalty method.

use alloc::collections::BinaryHeap;
use alloc::vec;
use alloc::vec::Vec;

use super::cost::{CostModel, SearchCosts};
use super::heap::Entry;
use super::index::{NONE, RouteIndex};
use super::path::{Path, Piece};
use super::snap::Snap;
use super::{
    ALTERNATIVE_MAX_OVERLAP, ALTERNATIVE_MAX_STRETCH, ALTERNATIVE_PENALTY, MAX_ALTERNATIVES,
};
use crate::roads::RoadGraph;

/// Penalised searches tried before giving up on more alternatives.
const ALTERNATIVE_ATTEMPTS: usize = 8;

/// Where a search starts or ends: a node reached along part of a way.
#[derive(Debug, Clone, Copy)]
pub(super) struct Terminal {
    pub(super) node: u32,
    pub(super) cost: f64,
    pub(super) piece: Piece,
}

impl RouteIndex {
    /// The nodes a search leaves from (`leaving`) or arrives at, each reached along
    /// the part of the snapped point's way that its directions allow.
    pub(super) fn terminals(
        &self,
        graph: &RoadGraph,
        costs: &SearchCosts<'_>,
        at: &Snap,
        leaving: bool,
    ) -> Vec<Terminal> {
        let way = at.way as usize;
        let length = f64::from(graph.way_length_m[way]);
        let [forward, backward] = self.way_edges[way];
        let [start, end] = self.way_nodes[way];
        let offset = at.offset_m;
        // Along the way, a search leaves towards its end and arrives from its start;
        // against it, the other way round.
        let along = if leaving {
            (end, offset, length)
        } else {
            (start, 0.0, offset)
        };
        let against = if leaving {
            (start, offset, 0.0)
        } else {
            (end, length, offset)
        };
        [(forward, along), (backward, against)]
            .into_iter()
            .filter(|&(edge, _)| edge != NONE)
            .map(|(_, (node, from_m, to_m))| Terminal {
                node,
                // Part costs do not depend on the order of the two offsets.
                cost: costs.part(way, from_m, to_m),
                piece: Piece {
                    way: at.way,
                    from_m,
                    to_m,
                },
            })
            .collect()
    }

    /// The cheapest path between two snapped points under `costs` with optional
    /// per-way cost multipliers (optimal: A* with admissible landmark bounds), or
    /// `None` when the destination is unreachable. For costs used once, where
    /// customising the hierarchy ([`RouteIndex::search`]) would not pay off.
    #[must_use]
    pub fn astar(
        &self,
        graph: &RoadGraph,
        costs: &CostModel,
        penalties: Option<&[f64]>,
        from: &Snap,
        to: &Snap,
    ) -> Option<Path> {
        let costs = SearchCosts::new(graph, costs, penalties);
        let targets = self.terminals(graph, &costs, to, false);
        let scale = costs.model.min_factor();
        let landmarks = |v: u32| -> f64 {
            targets
                .iter()
                .map(|t| self.landmarks.lower_bound(v, t.node))
                .fold(f64::INFINITY, f64::min)
                * scale
        };
        self.astar_with(graph, &costs, from, to, &targets, landmarks)
    }

    /// A* from `from` to the `targets` of `to` with lower bounds from `bound`, which
    /// must never exceed the remaining cost to `to` under `costs`.
    pub(super) fn astar_with(
        &self,
        graph: &RoadGraph,
        costs: &SearchCosts<'_>,
        from: &Snap,
        to: &Snap,
        targets: &[Terminal],
        mut lower_bound: impl FnMut(u32) -> f64,
    ) -> Option<Path> {
        let sources = self.terminals(graph, costs, from, true);

        // Along the shared way, if its direction allows.
        let (mut best, mut best_path) = match self.direct(costs, from, to) {
            Some((cost, piece)) => (cost, Some(vec![piece])),
            None => (f64::INFINITY, None),
        };

        let n = graph.node_count();
        let mut dist = vec![f64::INFINITY; n];
        // Edge into each node; sources hold `NONE - 1 - k` for source `k`.
        let mut parent = vec![NONE; n];
        // Lower bounds are computed once per node: nodes are often pushed again.
        let mut bounds = vec![f64::NAN; n];
        let mut bound = |v: u32| -> f64 {
            let known = bounds[v as usize];
            if !known.is_nan() {
                return known;
            }
            let b = lower_bound(v);
            bounds[v as usize] = b;
            b
        };
        let mut heap = BinaryHeap::new();
        for (k, source) in sources.iter().enumerate() {
            let v = source.node as usize;
            if source.cost < dist[v] {
                dist[v] = source.cost;
                parent[v] = NONE - 1 - k as u32;
                heap.push(Entry {
                    key: source.cost + bound(source.node),
                    cost: source.cost,
                    node: source.node,
                });
            }
        }
        let mut best_target: Option<(usize, u32)> = None;
        while let Some(Entry { key, cost, node }) = heap.pop() {
            if key >= best {
                break;
            }
            if cost > dist[node as usize] {
                continue;
            }
            for (k, target) in targets.iter().enumerate() {
                if target.node == node && cost + target.cost < best {
                    best = cost + target.cost;
                    best_target = Some((k, node));
                    best_path = None;
                }
            }
            for e in graph.out_edges(node) {
                let next = cost + costs.edge(e);
                let t = graph.edge_target[e];
                if next < dist[t as usize] {
                    dist[t as usize] = next;
                    parent[t as usize] = e as u32;
                    heap.push(Entry {
                        key: next + bound(t),
                        cost: next,
                        node: t,
                    });
                }
            }
        }

        let pieces = match (best_path, best_target) {
            (Some(direct), _) => direct,
            (None, Some((k, node))) => {
                self.unwind(graph, &parent, &sources, targets[k].piece, node)
            }
            (None, None) => return None,
        };
        Some(Path::priced(costs.model, pieces))
    }

    /// The path along the way both points lie on, when its direction allows: its
    /// cost and its one piece.
    pub(super) fn direct(
        &self,
        costs: &SearchCosts<'_>,
        from: &Snap,
        to: &Snap,
    ) -> Option<(f64, Piece)> {
        if from.way != to.way {
            return None;
        }
        let [forward, backward] = self.way_edges[from.way as usize];
        let along = (forward != NONE && from.offset_m <= to.offset_m)
            || (backward != NONE && from.offset_m >= to.offset_m);
        along.then(|| {
            (
                costs.part(from.way as usize, from.offset_m, to.offset_m),
                Piece {
                    way: from.way,
                    from_m: from.offset_m,
                    to_m: to.offset_m,
                },
            )
        })
    }

    /// Follows parent edges back from `node` to a source, returning the pieces in
    /// travel order, ending with `last`.
    fn unwind(
        &self,
        graph: &RoadGraph,
        parent: &[u32],
        sources: &[Terminal],
        last: Piece,
        mut node: u32,
    ) -> Vec<Piece> {
        let mut reversed = vec![last];
        // Each step moves to an edge's source; a source marker ends the walk. The bound
        // only guards against a corrupt parent table.
        for _ in 0..=parent.len() {
            let e = parent[node as usize];
            if e >= NONE - sources.len() as u32 {
                if let Some(source) = sources.get((NONE - 1 - e) as usize) {
                    reversed.push(source.piece);
                }
                break;
            }
            reversed.push(Piece::of_edge(graph, e as usize));
            node = self.edge_source[e as usize];
        }
        reversed.reverse();
        reversed
    }

    /// The best path and up to `wanted` alternatives (penalty method; see the module
    /// documentation).
    #[must_use]
    pub fn search_with_alternatives(
        &self,
        graph: &RoadGraph,
        costs: &CostModel,
        from: &Snap,
        to: &Snap,
        wanted: usize,
    ) -> Option<(Path, Vec<Path>)> {
        let best = self.search(graph, costs, from, to)?;
        let mut kept: Vec<Path> = Vec::new();
        if wanted == 0 || best.length_m() <= 0.0 {
            return Some((best, kept));
        }
        let mut penalties = vec![1.0; graph.way_count()];
        let penalise = |penalties: &mut [f64], path: &Path| {
            for piece in &path.pieces {
                penalties[piece.way as usize] *= ALTERNATIVE_PENALTY;
            }
        };
        penalise(&mut penalties, &best);
        for _ in 0..ALTERNATIVE_ATTEMPTS {
            if kept.len() >= wanted.min(MAX_ALTERNATIVES) {
                break;
            }
            let Some(candidate) = self.astar(graph, costs, Some(&penalties), from, to) else {
                break;
            };
            penalise(&mut penalties, &candidate);
            if candidate.cost > ALTERNATIVE_MAX_STRETCH * best.cost {
                // Penalties only grow, so later candidates cost more still.
                break;
            }
            let length = candidate.length_m();
            let distinct = core::iter::once(&best)
                .chain(&kept)
                .all(|other| candidate.shared_m(other) <= ALTERNATIVE_MAX_OVERLAP * length);
            if distinct {
                kept.push(candidate);
            }
        }
        Some((best, kept))
    }
}
