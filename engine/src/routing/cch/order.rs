//! A metric-independent contraction order by nested dissection with inertial flow
//! (Schild and Sommer, 2015): each connected part of the network is sorted along four
//! directions; for each, the fewest nodes whose removal separates the first quarter
//! of the sweep from the last are found by max-flow; the smallest of the four
//! separators ranks above both halves, and each half is cut again. Road networks are
//! nearly planar, so small cuts exist at every scale.

use alloc::vec;
use alloc::vec::Vec;

use super::adjacency::Adjacency;
use super::flow_cut::{Cut, LocalGraph, Role, min_vertex_cut};
use crate::roads::RoadGraph;

/// Sweep directions tried for each cut, as `(x, y)` weights of the projection.
const DIRECTIONS: [(f64, f64); 4] = [(1.0, 0.0), (0.0, 1.0), (1.0, 1.0), (1.0, -1.0)];

/// Share of a part's nodes at each end of a sweep that must end up on opposite sides
/// of its cut.
const TERMINAL_SHARE: f64 = 0.25;

/// Parts this small are ranked as they come: nothing is gained by cutting them.
const LEAF_SIZE: usize = 2;

/// The contraction order of a graph: its nodes from the first contracted (lowest
/// rank) to the last. Deterministic: the same graph always gives the same order.
#[must_use]
pub fn contraction_order(graph: &RoadGraph) -> Vec<u32> {
    let adjacency = Adjacency::new(graph);
    let n = adjacency.node_count();
    // Metres-like plane coordinates: longitude shrunk by the cosine of the mean latitude.
    let mean_lat =
        graph.nodes.iter().map(|p| f64::from(p.0[1])).sum::<f64>() / (n.max(1) as f64) * 1e-6;
    let shrink = libm::cos(mean_lat.to_radians());
    let xy: Vec<(f64, f64)> = graph
        .nodes
        .iter()
        .map(|p| (f64::from(p.0[0]) * shrink, f64::from(p.0[1])))
        .collect();

    let mut dissection = Dissection {
        adjacency: &adjacency,
        xy: &xy,
        part_of: vec![u32::MAX; n],
        local: vec![u32::MAX; n],
        next_part: 0,
    };
    // Ranks are handed out from the top: separators first, then their halves.
    let mut by_rank = vec![0_u32; n];
    let mut next_rank = n;
    let mut parts: Vec<Vec<u32>> = vec![(0..n as u32).collect()];
    while let Some(part) = parts.pop() {
        let components = dissection.components(&part);
        if components.len() > 1 {
            parts.extend(components);
            continue;
        }
        let (separator, halves) = if part.len() <= LEAF_SIZE {
            (part, [Vec::new(), Vec::new()])
        } else {
            dissection.cut(part)
        };
        for &node in &separator {
            next_rank -= 1;
            by_rank[next_rank] = node;
        }
        parts.extend(halves.into_iter().filter(|h| !h.is_empty()));
    }
    by_rank
}

struct Dissection<'a> {
    adjacency: &'a Adjacency,
    xy: &'a [(f64, f64)],
    /// The part a node was last seen in, to walk the graph induced by one part.
    part_of: Vec<u32>,
    /// Scratch: a node's position in the part being cut ([`u32::MAX`] outside it).
    local: Vec<u32>,
    next_part: u32,
}

impl Dissection<'_> {
    /// Marks the nodes of `part` as one part, for walks within it.
    fn mark(&mut self, part: &[u32]) -> u32 {
        let id = self.next_part;
        self.next_part = self.next_part.wrapping_add(1);
        for &v in part {
            self.part_of[v as usize] = id;
        }
        id
    }

    /// The connected components of the graph induced by `part`.
    fn components(&mut self, part: &[u32]) -> Vec<Vec<u32>> {
        let id = self.mark(part);
        let done = self.mark(&[]);
        let mut components = Vec::new();
        for &start in part {
            if self.part_of[start as usize] != id {
                continue;
            }
            self.part_of[start as usize] = done;
            let mut component = vec![start];
            let mut next = 0;
            while let Some(&v) = component.get(next) {
                next += 1;
                for &u in self.adjacency.neighbours(v) {
                    if self.part_of[u as usize] == id {
                        self.part_of[u as usize] = done;
                        component.push(u);
                    }
                }
            }
            components.push(component);
        }
        components
    }

    /// Cuts a connected part: for each sweep direction, the smallest vertex cut
    /// between the first and the last [`TERMINAL_SHARE`] of the sweep; the smallest
    /// of those (the most even on a tie). Returns the separator and the two halves.
    fn cut(&mut self, part: Vec<u32>) -> (Vec<u32>, [Vec<u32>; 2]) {
        let graph = LocalGraph::new(self.adjacency, &part, &mut self.local);
        let m = part.len();
        let terminals = ((m as f64 * TERMINAL_SHARE) as usize).max(1);
        // ((separator size, imbalance), cut).
        let mut best: Option<((usize, usize), Cut)> = None;
        let mut order: Vec<u32> = (0..m as u32).collect();
        for &(wx, wy) in &DIRECTIONS {
            let key = |i: u32| {
                let (x, y) = self.xy[part[i as usize] as usize];
                wx * x + wy * y
            };
            crate::sorting::sort_by(&mut order, |&a, &b| {
                key(a).total_cmp(&key(b)).then(a.cmp(&b))
            });
            let mut roles = vec![Role::Inner; m];
            for &i in &order[..terminals] {
                roles[i as usize] = Role::Source;
            }
            for &i in &order[m - terminals..] {
                roles[i as usize] = Role::Sink;
            }
            let cut = min_vertex_cut(&graph, &roles);
            let first = cut.source_side.iter().filter(|&&s| s).count();
            let second = m - first - cut.separator.len();
            let score = (cut.separator.len(), first.abs_diff(second));
            if best.as_ref().is_none_or(|(b, _)| score < *b) {
                best = Some((score, cut));
            }
        }
        let Some((_, cut)) = best else {
            return (part, [Vec::new(), Vec::new()]);
        };
        let mut in_separator = vec![false; m];
        for &i in &cut.separator {
            in_separator[i as usize] = true;
        }
        let side = |want: bool| -> Vec<u32> {
            (0..m)
                .filter(|&i| !in_separator[i] && cut.source_side[i] == want)
                .map(|i| part[i])
                .collect()
        };
        let halves = [side(true), side(false)];
        let separator = cut.separator.iter().map(|&i| part[i as usize]).collect();
        (separator, halves)
    }
}
