//! Safest routes on a city network.
//!
//! - **Cost** of travelling a way: its length times `1 + α · risk`, where risk is the
//!   metre-weighted mean over the cells the way crosses of `1 − safety / 100` (the
//!   request's scores), and [`OUTSIDE_COVERAGE_RISK`] outside the city grid. `α`
//!   comes from the [`RouteMethod`].
//! - **Snapping**: origin and destination move to the nearest point on any way (a
//!   point on a segment, not only a node), at most [`MAX_SNAP_DISTANCE_M`] away.
//! - **Search**: A* with landmark lower bounds (ALT). Landmarks hold exact network
//!   distances in metres, and every metre costs at least the smallest cell factor,
//!   so the bound stays admissible for any per-request weights and the route found
//!   is optimal for its cost. Landmarks are computed once per network.
//! - **Alternatives**: the penalty method. Ways of routes found so far cost
//!   [`ALTERNATIVE_PENALTY`] times more, the search runs again, and a candidate is
//!   kept when at most [`ALTERNATIVE_MAX_OVERLAP`] of its length is shared with each
//!   kept route and its true cost is at most [`ALTERNATIVE_MAX_STRETCH`] times the
//!   best route's.

use alloc::collections::BinaryHeap;
use alloc::vec;
use alloc::vec::Vec;
use core::cmp::Ordering;

use h3o::LatLng;
use rstar::RTree;
use rstar::primitives::{GeomWithData, Line};

use serde::Serialize;

use crate::corridor::{Evaluation, Metrics, TravelMode, evaluate_hex_path, evaluate_line};
use crate::graph::{NetworkKind, OUTSIDE_GRID, RoadGraph};
use crate::model::CityModel;
use crate::scores::CityScores;

/// Farthest a request point may be from the network, in metres.
pub const MAX_SNAP_DISTANCE_M: f64 = 500.0;

/// Risk charged for metres outside the city grid, where there is no forecast: the
/// city median.
pub const OUTSIDE_COVERAGE_RISK: f64 = 0.5;

/// Longest line accepted for evaluation, in metres.
pub const MAX_LINE_LENGTH_M: f64 = 200_000.0;

/// Most alternatives a request may ask for.
pub const MAX_ALTERNATIVES: usize = 3;

/// Largest share of an alternative's length that may run along another route.
pub const ALTERNATIVE_MAX_OVERLAP: f64 = 0.6;

/// Largest cost of an alternative relative to the best route.
pub const ALTERNATIVE_MAX_STRETCH: f64 = 1.4;

/// Cost multiplier on the ways of routes already found, per use.
pub const ALTERNATIVE_PENALTY: f64 = 1.6;

/// Penalised searches tried before giving up on more alternatives.
const ALTERNATIVE_ATTEMPTS: usize = 8;

/// Landmarks per network.
const LANDMARK_COUNT: usize = 8;

/// Slack, in metres, taken off landmark bounds for the rounding of stored distances.
const LANDMARK_SLACK_M: f64 = 0.05;

const NONE: u32 = u32::MAX;

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

/// Per-request cost factors: `1 + α · risk` for every grid cell.
#[derive(Debug, Clone, PartialEq)]
pub struct CostModel {
    alpha: f64,
    factors: Vec<f64>,
    outside: f64,
    min_factor: f64,
}

impl CostModel {
    /// Factors from a city's scores for one request.
    #[must_use]
    pub fn new(scores: &CityScores, cell_count: usize, alpha: f64) -> Self {
        let risks: Vec<f64> = (0..cell_count)
            .map(|p| {
                let safety = scores.safety(p);
                if safety.is_nan() {
                    OUTSIDE_COVERAGE_RISK
                } else {
                    1.0 - safety / 100.0
                }
            })
            .collect();
        Self::from_risks(&risks, alpha)
    }

    /// Factors from per-cell risks in 0..=1 (grid order).
    #[must_use]
    pub fn from_risks(risks: &[f64], alpha: f64) -> Self {
        let alpha = if alpha.is_finite() {
            alpha.max(0.0)
        } else {
            0.0
        };
        let factors: Vec<f64> = risks
            .iter()
            .map(|r| 1.0 + alpha * r.clamp(0.0, 1.0))
            .collect();
        let outside = 1.0 + alpha * OUTSIDE_COVERAGE_RISK;
        let min_factor = factors.iter().copied().fold(outside, f64::min);
        Self {
            alpha,
            factors,
            outside,
            min_factor,
        }
    }

    /// The risk weight `α`.
    #[must_use]
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// The factor of a crossed cell (a grid position or [`OUTSIDE_GRID`]).
    #[must_use]
    pub fn factor(&self, position: u32) -> f64 {
        if position == OUTSIDE_GRID {
            self.outside
        } else {
            self.factors
                .get(position as usize)
                .copied()
                .unwrap_or(self.outside)
        }
    }

    /// The smallest factor any metre can have: the scale of admissible bounds.
    #[must_use]
    pub fn min_factor(&self) -> f64 {
        self.min_factor
    }

    /// Cost of a whole way.
    #[must_use]
    pub fn way_cost(&self, graph: &RoadGraph, way: usize) -> f64 {
        let length = f64::from(graph.way_length_m[way]);
        let (mut metres, mut weighted) = (0.0, 0.0);
        for (position, m) in graph.way_cells(way) {
            let m = f64::from(m);
            metres += m;
            weighted += m * self.factor(position);
        }
        if metres > 0.0 {
            weighted * length / metres
        } else {
            length * self.outside
        }
    }

    /// Cost of the part of a way between two offsets (metres from its start, either
    /// order).
    #[must_use]
    pub fn way_cost_between(&self, graph: &RoadGraph, way: usize, a: f64, b: f64) -> f64 {
        let (from, to) = if a <= b { (a, b) } else { (b, a) };
        let length = f64::from(graph.way_length_m[way]);
        let metres: f64 = graph.way_cells(way).map(|(_, m)| f64::from(m)).sum();
        if metres <= 0.0 {
            return (to - from) * self.outside;
        }
        let scale = length / metres;
        let (mut start, mut cost) = (0.0, 0.0);
        for (position, m) in graph.way_cells(way) {
            let end = start + f64::from(m) * scale;
            let overlap = end.min(to) - start.max(from);
            if overlap > 0.0 {
                cost += overlap * self.factor(position);
            }
            start = end;
        }
        cost
    }
}

/// A point moved onto the network.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Snap {
    /// The way it lies on.
    pub way: u32,
    /// Metres from the way's start.
    pub offset_m: f64,
    /// The point on the way.
    pub point: LatLng,
    /// Metres from the requested point.
    pub distance_m: f64,
}

/// Part of a way travelled by a route, between two offsets (metres from the way's
/// start; `from_m > to_m` when travelled backwards).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Piece {
    /// The way.
    pub way: u32,
    /// Where the route enters the way.
    pub from_m: f64,
    /// Where the route leaves the way.
    pub to_m: f64,
}

impl Piece {
    fn metres(&self) -> f64 {
        libm::fabs(self.to_m - self.from_m)
    }
}

/// A route through the network.
#[derive(Debug, Clone, PartialEq)]
pub struct Path {
    /// Its cost in the request's cost model (without alternative penalties).
    pub cost: f64,
    /// The ways it travels, in order.
    pub pieces: Vec<Piece>,
}

impl Path {
    /// Length in metres.
    #[must_use]
    pub fn length_m(&self) -> f64 {
        self.pieces.iter().map(Piece::metres).sum()
    }

    /// Metres of `self` that run along `other`.
    #[must_use]
    pub fn shared_m(&self, other: &Self) -> f64 {
        let mut shared = 0.0;
        for a in &self.pieces {
            for b in other.pieces.iter().filter(|b| b.way == a.way) {
                let lo = a.from_m.min(a.to_m).max(b.from_m.min(b.to_m));
                let hi = a.from_m.max(a.to_m).min(b.from_m.max(b.to_m));
                shared += (hi - lo).max(0.0);
            }
        }
        shared
    }
}

/// A local planar frame in metres, for nearest-segment queries.
#[derive(Debug, Clone, Copy, PartialEq)]
struct LocalFrame {
    lat0: f64,
    lng0: f64,
    kx: f64,
    ky: f64,
}

impl LocalFrame {
    fn new(graph: &RoadGraph) -> Self {
        let (mut lat, mut lng) = (0.0, 0.0);
        for node in &graph.nodes {
            lng += f64::from(node[0]) * 1e-6;
            lat += f64::from(node[1]) * 1e-6;
        }
        let n = graph.nodes.len().max(1) as f64;
        let (lat0, lng0) = (lat / n, lng / n);
        Self {
            lat0,
            lng0,
            kx: 111_320.0 * libm::cos(lat0.to_radians()),
            ky: 110_574.0,
        }
    }

    fn project(&self, lat: f64, lng: f64) -> [f64; 2] {
        [(lng - self.lng0) * self.kx, (lat - self.lat0) * self.ky]
    }
}

type Segment = GeomWithData<Line<[f64; 2]>, (u32, u32)>;

/// Search structures for one network: edge sources, way ends, a segment tree for
/// snapping and landmark distances.
#[derive(Debug, Clone)]
pub struct RouteIndex {
    edge_source: Vec<u32>,
    /// Per way: the edge along it and the edge against it ([`NONE`] when absent).
    way_edges: Vec<[u32; 2]>,
    /// Per way: start and end node.
    way_nodes: Vec<[u32; 2]>,
    frame: LocalFrame,
    segments: RTree<Segment>,
    landmarks: Landmarks,
}

/// Network distances in metres to and from a few well-spread nodes.
#[derive(Debug, Clone, PartialEq)]
struct Landmarks {
    count: usize,
    /// `from[v * count + l]`: metres from landmark `l` to node `v`.
    from: Vec<f32>,
    /// `to[v * count + l]`: metres from node `v` to landmark `l`.
    to: Vec<f32>,
}

impl Landmarks {
    fn lower_bound(&self, v: u32, target: u32) -> f64 {
        let (v, t) = (v as usize * self.count, target as usize * self.count);
        let mut best = 0.0_f32;
        for l in 0..self.count {
            best = best
                .max(self.from[t + l] - self.from[v + l])
                .max(self.to[v + l] - self.to[t + l]);
        }
        (f64::from(best) - LANDMARK_SLACK_M).max(0.0)
    }
}

/// One-to-all shortest distances in metres over CSR arrays.
fn length_distances(first: &[u32], target: &[u32], length: &[f32], source: u32) -> Vec<f64> {
    let n = first.len() - 1;
    let mut dist = vec![f64::INFINITY; n];
    let mut heap = BinaryHeap::new();
    dist[source as usize] = 0.0;
    heap.push(Entry {
        key: 0.0,
        cost: 0.0,
        node: source,
    });
    while let Some(Entry { cost, node, .. }) = heap.pop() {
        if cost > dist[node as usize] {
            continue;
        }
        for e in first[node as usize] as usize..first[node as usize + 1] as usize {
            let next = cost + f64::from(length[e]);
            let t = target[e] as usize;
            if next < dist[t] {
                dist[t] = next;
                heap.push(Entry {
                    key: next,
                    cost: next,
                    node: target[e],
                });
            }
        }
    }
    dist
}

impl Landmarks {
    /// Farthest-first landmarks: each new one is the node farthest (there and back)
    /// from those already chosen.
    fn new(graph: &RoadGraph, edge_source: &[u32]) -> Self {
        let n = graph.node_count();
        let count = LANDMARK_COUNT.min(n);
        let lengths: Vec<f32> = (0..graph.edge_count())
            .map(|e| graph.way_length_m[graph.edge_way(e).0])
            .collect();
        // The reverse graph, for distances *to* a landmark.
        let mut reverse_first = vec![0_u32; n + 1];
        for &t in &graph.edge_target {
            reverse_first[t as usize + 1] += 1;
        }
        for i in 0..n {
            reverse_first[i + 1] += reverse_first[i];
        }
        let mut fill = reverse_first.clone();
        let mut reverse_target = vec![0_u32; graph.edge_count()];
        let mut reverse_length = vec![0_f32; graph.edge_count()];
        for (e, &t) in graph.edge_target.iter().enumerate() {
            let slot = fill[t as usize] as usize;
            reverse_target[slot] = edge_source[e];
            reverse_length[slot] = lengths[e];
            fill[t as usize] += 1;
        }

        let mut from = vec![0_f32; n * count];
        let mut to = vec![0_f32; n * count];
        let mut spread = vec![f64::INFINITY; n];
        let farthest = |d: &[f64]| {
            d.iter()
                .enumerate()
                .filter(|(_, x)| x.is_finite())
                .max_by(|a, b| a.1.total_cmp(b.1))
                .map_or(0, |(i, _)| i as u32)
        };
        let mut next = if n == 0 {
            0
        } else {
            farthest(&length_distances(
                &graph.first_edge,
                &graph.edge_target,
                &lengths,
                0,
            ))
        };
        for l in 0..count {
            let out = length_distances(&graph.first_edge, &graph.edge_target, &lengths, next);
            let back = length_distances(&reverse_first, &reverse_target, &reverse_length, next);
            for v in 0..n {
                // Unreachable nodes (none in a strongly connected graph) get no bound.
                let (a, b) = (out[v], back[v]);
                from[v * count + l] = if a.is_finite() { a as f32 } else { 0.0 };
                to[v * count + l] = if b.is_finite() { b as f32 } else { 0.0 };
                spread[v] = spread[v].min(a + b);
            }
            next = farthest(&spread);
        }
        Self { count, from, to }
    }
}

/// A heap entry ordered so the smallest key pops first.
#[derive(Debug, Clone, Copy)]
struct Entry {
    key: f64,
    cost: f64,
    node: u32,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Entry {}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .key
            .total_cmp(&self.key)
            .then_with(|| other.node.cmp(&self.node))
    }
}

/// Where a search starts or ends: a node reached along part of a way.
#[derive(Debug, Clone, Copy)]
struct Terminal {
    node: u32,
    cost: f64,
    piece: Piece,
}

impl RouteIndex {
    /// Builds the index of a graph (linear in its size, plus `2 × 8` one-to-all
    /// searches for the landmarks).
    #[must_use]
    pub fn new(graph: &RoadGraph) -> Self {
        let mut edge_source = vec![0_u32; graph.edge_count()];
        let mut way_edges = vec![[NONE; 2]; graph.way_count()];
        let mut way_nodes = vec![[0_u32; 2]; graph.way_count()];
        for node in 0..graph.node_count() as u32 {
            for e in graph.out_edges(node) {
                edge_source[e] = node;
                let (way, reversed) = graph.edge_way(e);
                let target = graph.edge_target[e];
                if reversed {
                    way_edges[way][1] = e as u32;
                    way_nodes[way] = [target, node];
                } else {
                    way_edges[way][0] = e as u32;
                    way_nodes[way] = [node, target];
                }
            }
        }
        let frame = LocalFrame::new(graph);
        let mut segments = Vec::new();
        for (way, &[start, end]) in way_nodes.iter().enumerate() {
            let points = way_points(graph, way, start, end);
            for (i, pair) in points.windows(2).enumerate() {
                let a = frame.project(pair[0].lat(), pair[0].lng());
                let b = frame.project(pair[1].lat(), pair[1].lng());
                segments.push(GeomWithData::new(Line::new(a, b), (way as u32, i as u32)));
            }
        }
        let landmarks = Landmarks::new(graph, &edge_source);
        Self {
            edge_source,
            way_edges,
            way_nodes,
            frame,
            segments: RTree::bulk_load(segments),
            landmarks,
        }
    }

    /// The source node of an edge.
    #[must_use]
    pub fn edge_source(&self, edge: usize) -> u32 {
        self.edge_source[edge]
    }

    /// The start and end nodes of a way.
    #[must_use]
    pub fn way_nodes(&self, way: usize) -> [u32; 2] {
        self.way_nodes[way]
    }

    /// Moves a point onto the nearest way.
    ///
    /// # Errors
    /// The distance to the nearest way, in metres, when it exceeds
    /// [`MAX_SNAP_DISTANCE_M`] (infinite for an empty network).
    pub fn snap(&self, graph: &RoadGraph, point: LatLng) -> Result<Snap, f64> {
        let query = self.frame.project(point.lat(), point.lng());
        let Some(nearest) = self.segments.nearest_neighbor(&query) else {
            return Err(f64::INFINITY);
        };
        let (way, segment) = nearest.data;
        let [start, end] = self.way_nodes[way as usize];
        let points = way_points(graph, way as usize, start, end);
        let (start_xy, end_xy) = (nearest.geom().from, nearest.geom().to);
        let (dx, dy) = (end_xy[0] - start_xy[0], end_xy[1] - start_xy[1]);
        let span = dx * dx + dy * dy;
        let along = if span > 0.0 {
            (((query[0] - start_xy[0]) * dx + (query[1] - start_xy[1]) * dy) / span).clamp(0.0, 1.0)
        } else {
            0.0
        };
        let (p, q) = (points[segment as usize], points[segment as usize + 1]);
        let on_way = LatLng::new(
            p.lat() + (q.lat() - p.lat()) * along,
            p.lng() + (q.lng() - p.lng()) * along,
        )
        .unwrap_or(p);
        let distance = point.distance_m(on_way);
        if distance > MAX_SNAP_DISTANCE_M {
            return Err(distance);
        }
        let before: f64 = points[..=segment as usize]
            .windows(2)
            .map(|w| w[0].distance_m(w[1]))
            .sum();
        let length = f64::from(graph.way_length_m[way as usize]);
        let offset = (before + along * p.distance_m(q)).clamp(0.0, length);
        Ok(Snap {
            way,
            offset_m: offset,
            point: on_way,
            distance_m: distance,
        })
    }

    fn sources(&self, graph: &RoadGraph, costs: &Costs<'_>, from: &Snap) -> Vec<Terminal> {
        let way = from.way as usize;
        let length = f64::from(graph.way_length_m[way]);
        let [forward, backward] = self.way_edges[way];
        let [start, end] = self.way_nodes[way];
        let mut out = Vec::with_capacity(2);
        if forward != NONE {
            out.push(Terminal {
                node: end,
                cost: costs.part(way, from.offset_m, length),
                piece: Piece {
                    way: from.way,
                    from_m: from.offset_m,
                    to_m: length,
                },
            });
        }
        if backward != NONE {
            out.push(Terminal {
                node: start,
                cost: costs.part(way, 0.0, from.offset_m),
                piece: Piece {
                    way: from.way,
                    from_m: from.offset_m,
                    to_m: 0.0,
                },
            });
        }
        out
    }

    fn targets(&self, graph: &RoadGraph, costs: &Costs<'_>, to: &Snap) -> Vec<Terminal> {
        let way = to.way as usize;
        let length = f64::from(graph.way_length_m[way]);
        let [forward, backward] = self.way_edges[way];
        let [start, end] = self.way_nodes[way];
        let mut out = Vec::with_capacity(2);
        if forward != NONE {
            out.push(Terminal {
                node: start,
                cost: costs.part(way, 0.0, to.offset_m),
                piece: Piece {
                    way: to.way,
                    from_m: 0.0,
                    to_m: to.offset_m,
                },
            });
        }
        if backward != NONE {
            out.push(Terminal {
                node: end,
                cost: costs.part(way, to.offset_m, length),
                piece: Piece {
                    way: to.way,
                    from_m: length,
                    to_m: to.offset_m,
                },
            });
        }
        out
    }

    /// The cheapest path between two snapped points under `costs` (optimal: A* with
    /// admissible landmark bounds), or `None` when the destination is unreachable.
    #[must_use]
    pub fn search(
        &self,
        graph: &RoadGraph,
        costs: &CostModel,
        penalties: Option<&[f64]>,
        from: &Snap,
        to: &Snap,
    ) -> Option<Path> {
        let costs = Costs::new(graph, costs, penalties);
        let sources = self.sources(graph, &costs, from);
        let targets = self.targets(graph, &costs, to);

        // Along the shared way, if its direction allows.
        let mut best = f64::INFINITY;
        let mut best_path: Option<Vec<Piece>> = None;
        if from.way == to.way {
            let [forward, backward] = self.way_edges[from.way as usize];
            let along = (forward != NONE && from.offset_m <= to.offset_m)
                || (backward != NONE && from.offset_m >= to.offset_m);
            if along {
                best = costs.part(from.way as usize, from.offset_m, to.offset_m);
                best_path = Some(vec![Piece {
                    way: from.way,
                    from_m: from.offset_m,
                    to_m: to.offset_m,
                }]);
            }
        }

        let n = graph.node_count();
        let mut dist = vec![f64::INFINITY; n];
        // Edge into each node; sources hold `NONE - 1 - k` for source `k`.
        let mut parent = vec![NONE; n];
        let scale = costs.model.min_factor();
        // Lower bounds are computed once per node: nodes are often pushed again.
        let mut bounds = vec![f64::NAN; n];
        let mut bound = |v: u32| -> f64 {
            let known = bounds[v as usize];
            if !known.is_nan() {
                return known;
            }
            let b = targets
                .iter()
                .map(|t| self.landmarks.lower_bound(v, t.node))
                .fold(f64::INFINITY, f64::min)
                * scale;
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
        let cost = pieces
            .iter()
            .map(|p| {
                costs
                    .model
                    .way_cost_between(graph, p.way as usize, p.from_m, p.to_m)
            })
            .sum();
        Some(Path { cost, pieces })
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
            let (way, against) = graph.edge_way(e as usize);
            let length = f64::from(graph.way_length_m[way]);
            reversed.push(Piece {
                way: way as u32,
                from_m: if against { length } else { 0.0 },
                to_m: if against { 0.0 } else { length },
            });
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
        let best = self.search(graph, costs, None, from, to)?;
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
            let Some(candidate) = self.search(graph, costs, Some(&penalties), from, to) else {
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

    /// The geometry of a path, from the snapped origin to the snapped destination.
    #[must_use]
    pub fn geometry(&self, graph: &RoadGraph, path: &Path) -> Vec<LatLng> {
        let mut out: Vec<LatLng> = Vec::new();
        for piece in &path.pieces {
            let [start, end] = self.way_nodes[piece.way as usize];
            let points = way_points(graph, piece.way as usize, start, end);
            for point in slice_polyline(&points, piece.from_m, piece.to_m) {
                if out.last() != Some(&point) {
                    out.push(point);
                }
            }
        }
        out
    }
}

/// Edge costs of one search, with optional alternative penalties. Way costs are
/// computed on first use and kept, since a search meets most ways more than once.
struct Costs<'a> {
    graph: &'a RoadGraph,
    model: &'a CostModel,
    penalties: Option<&'a [f64]>,
    way_cost: core::cell::RefCell<Vec<f64>>,
}

impl<'a> Costs<'a> {
    fn new(graph: &'a RoadGraph, model: &'a CostModel, penalties: Option<&'a [f64]>) -> Self {
        Self {
            graph,
            model,
            penalties,
            way_cost: core::cell::RefCell::new(vec![f64::NAN; graph.way_count()]),
        }
    }

    fn penalty(&self, way: usize) -> f64 {
        self.penalties
            .and_then(|p| p.get(way).copied())
            .unwrap_or(1.0)
    }

    fn edge(&self, edge: usize) -> f64 {
        let way = self.graph.edge_way(edge).0;
        let mut cache = self.way_cost.borrow_mut();
        let cost = cache[way];
        if cost.is_nan() {
            let cost = self.model.way_cost(self.graph, way) * self.penalty(way);
            cache[way] = cost;
            cost
        } else {
            cost
        }
    }

    fn part(&self, way: usize, a: f64, b: f64) -> f64 {
        self.model.way_cost_between(self.graph, way, a, b) * self.penalty(way)
    }
}

fn to_latlng(point: [i32; 2]) -> LatLng {
    let (lng, lat) = (f64::from(point[0]) * 1e-6, f64::from(point[1]) * 1e-6);
    // Stored positions come from valid coordinates; clamp anyway rather than panic.
    LatLng::new(lat.clamp(-90.0, 90.0), lng.clamp(-180.0, 180.0))
        .unwrap_or_else(|_| LatLng::new(0.0, 0.0).expect("origin is a valid coordinate"))
}

/// A way's full polyline, start node to end node.
fn way_points(graph: &RoadGraph, way: usize, start: u32, end: u32) -> Vec<LatLng> {
    let interior = &graph.way_points
        [graph.way_points_start[way] as usize..graph.way_points_start[way + 1] as usize];
    let mut points = Vec::with_capacity(interior.len() + 2);
    points.push(to_latlng(graph.nodes[start as usize]));
    points.extend(interior.iter().map(|&p| to_latlng(p)));
    points.push(to_latlng(graph.nodes[end as usize]));
    points
}

/// The part of a polyline between two distances from its start, in travel order.
fn slice_polyline(points: &[LatLng], from_m: f64, to_m: f64) -> Vec<LatLng> {
    let (lo, hi) = if from_m <= to_m {
        (from_m, to_m)
    } else {
        (to_m, from_m)
    };
    let mut out = Vec::new();
    let mut walked = 0.0;
    let interpolate = |p: LatLng, q: LatLng, t: f64| {
        LatLng::new(
            p.lat() + (q.lat() - p.lat()) * t,
            p.lng() + (q.lng() - p.lng()) * t,
        )
        .unwrap_or(p)
    };
    for pair in points.windows(2) {
        let (p, q) = (pair[0], pair[1]);
        let length = p.distance_m(q);
        let (start, end) = (walked, walked + length);
        if end >= lo && start <= hi {
            let at = |m: f64| {
                if length > 0.0 {
                    interpolate(p, q, ((m - start) / length).clamp(0.0, 1.0))
                } else {
                    p
                }
            };
            if out.is_empty() {
                out.push(at(lo.max(start)));
            }
            let last = at(hi.min(end));
            if out.last() != Some(&last) {
                out.push(last);
            }
        }
        walked = end;
    }
    if out.is_empty() {
        // Offsets past the end (rounding): the nearest end point.
        out.push(if lo <= 0.0 {
            points[0]
        } else {
            points[points.len() - 1]
        });
    }
    if from_m > to_m {
        out.reverse();
    }
    out
}

/// A route request, validated.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RouteRequest {
    /// Where the route starts.
    pub origin: LatLng,
    /// Where it ends.
    pub destination: LatLng,
    /// How strongly to avoid risk.
    pub method: RouteMethod,
    /// Alternatives wanted, 0 to [`MAX_ALTERNATIVES`].
    pub alternatives: usize,
    /// Follow the city's network (`true`) or the hex grid itself (`false`: the
    /// answer has a corridor but no road geometry).
    pub snap_to_roads: bool,
    /// Travel mode for durations.
    pub mode: TravelMode,
}

/// A point as requested and where it was snapped.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SnappedPoint {
    /// Latitude on the network.
    pub lat: f64,
    /// Longitude on the network.
    pub lng: f64,
    /// Metres from the requested point.
    pub distance_m: f64,
}

/// One route of an answer.
#[derive(Debug, Clone, PartialEq)]
pub struct RouteOption {
    /// The line to draw (`None` when the request did not snap to roads).
    pub geometry: Option<Vec<LatLng>>,
    /// Cost in the request's cost model.
    pub cost: f64,
    /// Corridor, tiers, metrics and segments of the line.
    pub evaluation: Evaluation,
    /// Metrics of `hexPath` scored as a hex path: exactly what evaluating the hex
    /// path on its own returns.
    pub corridor_metrics: Option<Metrics>,
}

impl Serialize for RouteOption {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut out = serializer.serialize_struct("RouteOption", 7)?;
        out.serialize_field("geometry", &self.geometry.as_deref().map(LineString))?;
        out.serialize_field("cost", &self.cost)?;
        out.serialize_field("hexPath", &CellIds(&self.evaluation.hex_path))?;
        out.serialize_field("hexPathWithTiers", &self.evaluation.hex_path_with_tiers)?;
        out.serialize_field("metrics", &self.evaluation.metrics)?;
        out.serialize_field("segments", &self.evaluation.segments)?;
        out.serialize_field("corridorMetrics", &self.corridor_metrics)?;
        out.end()
    }
}

/// Serialises points as a GeoJSON `LineString` (`[lng, lat]`, RFC 7946).
pub struct LineString<'a>(pub &'a [LatLng]);

impl Serialize for LineString<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut out = serializer.serialize_struct("LineString", 2)?;
        out.serialize_field("type", "LineString")?;
        let coordinates: Vec<[f64; 2]> = self.0.iter().map(|p| [p.lng(), p.lat()]).collect();
        out.serialize_field("coordinates", &coordinates)?;
        out.end()
    }
}

struct CellIds<'a>(&'a [h3o::CellIndex]);

impl Serialize for CellIds<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        crate::corridor::cell_ids(self.0, serializer)
    }
}

/// The answer to a route request.
#[derive(Debug, Clone, PartialEq)]
pub struct RouteAnswer {
    /// The network routed over.
    pub network: NetworkKind,
    /// Where the network came from.
    pub source: alloc::string::String,
    /// The method.
    pub method: RouteMethod,
    /// Its `α`.
    pub alpha: f64,
    /// The snapped origin.
    pub origin: SnappedPoint,
    /// The snapped destination.
    pub destination: SnappedPoint,
    /// The best route: optimal for its cost.
    pub best: RouteOption,
    /// Genuinely different alternatives, best first.
    pub alternatives: Vec<RouteOption>,
}

impl Serialize for RouteAnswer {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut out = serializer.serialize_struct("RouteAnswer", 9)?;
        out.serialize_field("network", self.network.name())?;
        out.serialize_field("source", &self.source)?;
        out.serialize_field("method", self.method.name())?;
        out.serialize_field("alpha", &self.alpha)?;
        out.serialize_field("origin", &self.origin)?;
        out.serialize_field("destination", &self.destination)?;
        out.serialize_field("hexPath", &CellIds(&self.best.evaluation.hex_path))?;
        out.serialize_field("best", &self.best)?;
        out.serialize_field("alternatives", &self.alternatives)?;
        out.end()
    }
}

/// A route request that cannot be answered.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
pub enum RouteError {
    /// The origin is too far from the network.
    #[error("origin is {0:.0} m from the nearest way; the limit is 500 m")]
    OriginTooFar(f64),
    /// The destination is too far from the network.
    #[error("destination is {0:.0} m from the nearest way; the limit is 500 m")]
    DestinationTooFar(f64),
    /// More alternatives than [`MAX_ALTERNATIVES`].
    #[error("alternatives must be between 0 and 3, got {0}")]
    TooManyAlternatives(usize),
    /// The city has no network to route on.
    #[error("this city has no routing network")]
    NoNetwork,
    /// No path joins the two points.
    #[error("no route joins origin and destination")]
    Unreachable,
}

/// Finds the best route and alternatives for a request in one city, scored with
/// `scores` (the request's intent, classes and week).
///
/// # Errors
/// [`RouteError`] when a point cannot be snapped or the request is out of range.
pub fn route(
    model: &CityModel,
    scores: &CityScores,
    request: &RouteRequest,
) -> Result<RouteAnswer, RouteError> {
    if request.alternatives > MAX_ALTERNATIVES {
        return Err(RouteError::TooManyAlternatives(request.alternatives));
    }
    let network = if request.snap_to_roads {
        model.road_network().ok_or(RouteError::NoNetwork)?
    } else {
        model.grid_network()
    };
    let (graph, index) = (network.graph, network.index);
    let from = index
        .snap(graph, request.origin)
        .map_err(RouteError::OriginTooFar)?;
    let to = index
        .snap(graph, request.destination)
        .map_err(RouteError::DestinationTooFar)?;
    let alpha = request.method.alpha();
    let costs = CostModel::new(scores, model.cell_count(), alpha);
    let (best, alternatives) = index
        .search_with_alternatives(graph, &costs, &from, &to, request.alternatives)
        .ok_or(RouteError::Unreachable)?;
    // Detours compare network lengths of the pieces, so the shortest route's own
    // detour is exactly zero.
    let shortest_m = if alpha > 0.0 {
        index
            .search(graph, &CostModel::from_risks(&[], 0.0), None, &from, &to)
            .map_or(best.length_m(), |p| p.length_m())
    } else {
        best.length_m()
    };
    let option = |path: &Path| {
        let line = index.geometry(graph, path);
        let mut evaluation = evaluate_line(model, scores, &line, request.mode);
        evaluation.metrics.detour_pct = Some(if shortest_m > 0.0 {
            100.0 * (path.length_m() - shortest_m) / shortest_m
        } else {
            0.0
        });
        let corridor_metrics = evaluate_hex_path(model, scores, &evaluation.hex_path, request.mode)
            .ok()
            .map(|e| e.metrics);
        RouteOption {
            geometry: request.snap_to_roads.then_some(line),
            cost: path.cost,
            evaluation,
            corridor_metrics,
        }
    };
    let snapped = |snap: &Snap| SnappedPoint {
        lat: snap.point.lat(),
        lng: snap.point.lng(),
        distance_m: snap.distance_m,
    };
    Ok(RouteAnswer {
        network: graph.kind,
        source: graph.source.clone(),
        method: request.method,
        alpha,
        origin: snapped(&from),
        destination: snapped(&to),
        best: option(&best),
        alternatives: alternatives.iter().map(option).collect(),
    })
}

/// Length in metres of the shortest route on a city's network between two points,
/// or `None` when either is too far from the network.
#[must_use]
pub fn shortest_length_m(model: &CityModel, from: LatLng, to: LatLng) -> Option<f64> {
    let network = model.road_network()?;
    let (graph, index) = (network.graph, network.index);
    let (from, to) = (index.snap(graph, from).ok()?, index.snap(graph, to).ok()?);
    index
        .search(graph, &CostModel::from_risks(&[], 0.0), None, &from, &to)
        .map(|p| p.length_m())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::hex_lattice;

    fn lattice(k: u32) -> (RoadGraph, Vec<u64>) {
        let centre = crate::grid::cell_at(43.6532, -79.3832).unwrap();
        let cells = crate::grid::disk(centre, k).unwrap();
        let mut grid: Vec<u64> = cells.iter().map(|&c| u64::from(c)).collect();
        grid.sort_unstable();
        (hex_lattice(&cells, &grid, "test"), grid)
    }

    #[test]
    fn methods_parse_and_weigh_risk_in_order() {
        for method in RouteMethod::ALL {
            assert_eq!(method.name().parse(), Ok(method));
        }
        assert_eq!("fastest".parse::<RouteMethod>(), Err(UnknownMethod));
        assert!(RouteMethod::Safest.alpha() > RouteMethod::Balanced.alpha());
        assert_eq!(RouteMethod::Shortest.alpha(), 0.0);
    }

    #[test]
    fn way_costs_split_exactly_at_any_offset() {
        let (graph, grid) = lattice(2);
        let risks: Vec<f64> = (0..grid.len()).map(|i| (i % 5) as f64 / 4.0).collect();
        let model = CostModel::from_risks(&risks, 4.0);
        for way in 0..graph.way_count() {
            let length = f64::from(graph.way_length_m[way]);
            let whole = model.way_cost(&graph, way);
            assert!(whole >= length * model.min_factor() - 1e-9);
            for cut in [0.0, 0.3, 0.5, 0.99] {
                let split = model.way_cost_between(&graph, way, 0.0, cut * length)
                    + model.way_cost_between(&graph, way, length, cut * length);
                assert!((split - whole).abs() < 1e-9 * whole.max(1.0), "way {way}");
            }
        }
    }

    #[test]
    fn routes_avoid_risky_cells_when_asked() {
        let (graph, grid) = lattice(4);
        let index = RouteIndex::new(&graph);
        let centre = crate::grid::cell_at(43.6532, -79.3832).unwrap();
        // The centre cell and its ring are dangerous; everything else is safe.
        let dangerous = crate::grid::disk(centre, 1).unwrap();
        let risks: Vec<f64> = grid
            .iter()
            .map(|&c| {
                if dangerous.iter().any(|&r| u64::from(r) == c) {
                    1.0
                } else {
                    0.0
                }
            })
            .collect();
        let ring = crate::grid::disk(centre, 3).unwrap();
        let (west, east) = ring.iter().map(|&c| LatLng::from(c)).fold(
            (LatLng::from(centre), LatLng::from(centre)),
            |(w, e), p| {
                (
                    if p.lng() < w.lng() { p } else { w },
                    if p.lng() > e.lng() { p } else { e },
                )
            },
        );
        let from = index.snap(&graph, west).unwrap();
        let to = index.snap(&graph, east).unwrap();
        assert!(from.distance_m < 1.0 && to.distance_m < 1.0);
        let shortest = index
            .search(
                &graph,
                &CostModel::from_risks(&risks, 0.0),
                None,
                &from,
                &to,
            )
            .unwrap();
        let safest = index
            .search(
                &graph,
                &CostModel::from_risks(&risks, 4.0),
                None,
                &from,
                &to,
            )
            .unwrap();
        assert!(safest.length_m() > shortest.length_m());
        let crosses_risk = |path: &Path| {
            index.geometry(&graph, path).iter().any(|p| {
                let cell = p.to_cell(crate::grid::RESOLUTION);
                dangerous.contains(&cell)
            })
        };
        assert!(crosses_risk(&shortest));
        assert!(!crosses_risk(&safest));
        // The geometry starts and ends at the snapped points.
        let line = index.geometry(&graph, &safest);
        assert!(line[0].distance_m(from.point) < 0.5);
        assert!(line.last().unwrap().distance_m(to.point) < 0.5);
    }

    #[test]
    fn alternatives_are_distinct_and_within_the_stretch() {
        let (graph, grid) = lattice(6);
        let index = RouteIndex::new(&graph);
        let model = CostModel::from_risks(&vec![0.5; grid.len()], 1.0);
        let centre = crate::grid::cell_at(43.6532, -79.3832).unwrap();
        let ends: Vec<LatLng> = crate::grid::disk(centre, 5)
            .unwrap()
            .iter()
            .map(|&c| LatLng::from(c))
            .collect();
        let from = index.snap(&graph, ends[ends.len() - 1]).unwrap();
        let to = index.snap(&graph, ends[ends.len() - 16]).unwrap();
        let (best, alternatives) = index
            .search_with_alternatives(&graph, &model, &from, &to, 3)
            .unwrap();
        assert!(!alternatives.is_empty());
        for (i, alternative) in alternatives.iter().enumerate() {
            assert!(alternative.cost <= ALTERNATIVE_MAX_STRETCH * best.cost + 1e-9);
            assert!(alternative.cost >= best.cost - 1e-9);
            for other in core::iter::once(&best).chain(&alternatives[..i]) {
                assert!(
                    alternative.shared_m(other) <= ALTERNATIVE_MAX_OVERLAP * alternative.length_m()
                );
            }
        }
    }

    #[test]
    fn snapping_refuses_far_points_and_lands_on_segments() {
        let (graph, _) = lattice(1);
        let index = RouteIndex::new(&graph);
        let far = LatLng::new(43.70, -79.3832).unwrap();
        let err = index.snap(&graph, far).unwrap_err();
        assert!(err > MAX_SNAP_DISTANCE_M);
        // A point just off the middle of a way snaps onto the way, not a node.
        let [start, end] = index.way_nodes(0);
        let (a, b) = (
            to_latlng(graph.nodes[start as usize]),
            to_latlng(graph.nodes[end as usize]),
        );
        let middle = LatLng::new(
            f64::midpoint(a.lat(), b.lat()) + 0.0001,
            f64::midpoint(a.lng(), b.lng()),
        )
        .unwrap();
        let snap = index.snap(&graph, middle).unwrap();
        let length = f64::from(graph.way_length_m[snap.way as usize]);
        assert!(snap.offset_m > 0.1 * length && snap.offset_m < 0.9 * length);
        assert!(snap.distance_m < 12.0);
    }

    #[test]
    fn a_route_within_one_way_goes_straight_along_it() {
        let (graph, grid) = lattice(1);
        let index = RouteIndex::new(&graph);
        let model = CostModel::from_risks(&vec![0.2; grid.len()], 4.0);
        let length = f64::from(graph.way_length_m[0]);
        let [start, end] = index.way_nodes(0);
        let (a, b) = (
            to_latlng(graph.nodes[start as usize]),
            to_latlng(graph.nodes[end as usize]),
        );
        let at = |t: f64| {
            LatLng::new(
                a.lat() + (b.lat() - a.lat()) * t,
                a.lng() + (b.lng() - a.lng()) * t,
            )
            .unwrap()
        };
        let from = index.snap(&graph, at(0.7)).unwrap();
        let to = index.snap(&graph, at(0.2)).unwrap();
        let path = index.search(&graph, &model, None, &from, &to).unwrap();
        assert_eq!(path.pieces.len(), 1);
        assert!(
            (path.length_m() - 0.5 * length).abs() < 1.0,
            "{}",
            path.length_m()
        );
        // Same point twice: an empty route of one point.
        let same = index.search(&graph, &model, None, &from, &from).unwrap();
        assert_eq!(same.length_m(), 0.0);
        assert_eq!(index.geometry(&graph, &same).len(), 1);
    }
}
