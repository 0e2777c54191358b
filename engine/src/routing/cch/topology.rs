//! The shape of the hierarchy for one contraction order, shared by every metric:
//! the upward arcs of each node after contracting the nodes below it (the chordal
//! completion of the undirected graph), the elimination tree, the arcs below each
//! node, and where every road edge enters an arc.

use alloc::vec;
use alloc::vec::Vec;

use super::adjacency::Adjacency;
use crate::roads::RoadGraph;

/// Marks "no such arc or parent".
pub(super) const NO_ARC: u32 = u32::MAX;

/// Flag on [`Topology::edge_arc`]: the edge runs down its arc (from the higher
/// node to the lower).
pub(super) const DOWNWARD: u32 = 1 << 31;

/// The metric-independent part of a customisable contraction hierarchy. Nodes are
/// named by rank from here on: rank 0 was contracted first.
#[derive(Debug, Clone)]
pub(super) struct Topology {
    /// Rank of each node.
    pub(super) rank: Vec<u32>,
    /// Node of each rank.
    pub(super) node: Vec<u32>,
    /// Upward arcs of rank `r`: `first_up[r]..first_up[r + 1]`, heads ascending.
    pub(super) first_up: Vec<u32>,
    /// Head rank of each arc.
    pub(super) head: Vec<u32>,
    /// Tail rank of each arc (the lower end).
    pub(super) tail: Vec<u32>,
    /// Parent of each rank in the elimination tree: its lowest upward neighbour
    /// ([`NO_ARC`] for a root). Every upward neighbour is an ancestor.
    pub(super) parent: Vec<u32>,
    /// Arcs whose head is rank `r`: `first_down[r]..first_down[r + 1]` in `down`.
    pub(super) first_down: Vec<u32>,
    /// Arc ids, grouped by head.
    pub(super) down: Vec<u32>,
    /// Per road edge: its arc, with [`DOWNWARD`] when it runs from head to tail;
    /// [`NO_ARC`] for a loop.
    pub(super) edge_arc: Vec<u32>,
}

impl Topology {
    /// The hierarchy's shape for `order` (nodes from first to last contracted), a
    /// permutation of the graph's nodes.
    pub(super) fn new(graph: &RoadGraph, order: &[u32]) -> Self {
        let n = graph.node_count();
        let mut rank = vec![NO_ARC; n];
        for (r, &node) in order.iter().enumerate() {
            rank[node as usize] = r as u32;
        }

        // Contracting a node joins its upper neighbours into a clique; adding them to
        // its lowest upper neighbour alone is enough, since that one is contracted
        // next among them and passes them on (the elimination game).
        let adjacency = Adjacency::new(graph);
        let mut upper: Vec<Vec<u32>> = (0..n)
            .map(|r| {
                let node = order[r];
                adjacency
                    .neighbours(node)
                    .iter()
                    .map(|&u| rank[u as usize])
                    .filter(|&h| h > r as u32)
                    .collect()
            })
            .collect();
        let mut parent = vec![NO_ARC; n];
        for r in 0..n {
            let mut heads = core::mem::take(&mut upper[r]);
            heads.sort_unstable();
            heads.dedup();
            if let Some((&lowest, rest)) = heads.split_first() {
                parent[r] = lowest;
                upper[lowest as usize].extend_from_slice(rest);
            }
            upper[r] = heads;
        }

        let mut first_up = Vec::with_capacity(n + 1);
        first_up.push(0_u32);
        // Sized in advance: grown by doubling, up to half of each would be slack
        // (Toronto: 0.9 MiB, and 0.2 for `edge_arc` below).
        let arcs = upper.iter().map(Vec::len).sum();
        let (mut head, mut tail) = (Vec::with_capacity(arcs), Vec::with_capacity(arcs));
        for (r, heads) in upper.iter().enumerate() {
            head.extend_from_slice(heads);
            tail.extend(core::iter::repeat_n(r as u32, heads.len()));
            first_up.push(head.len() as u32);
        }
        drop(upper);

        let mut first_down = vec![0_u32; n + 1];
        for &h in &head {
            first_down[h as usize + 1] += 1;
        }
        for r in 0..n {
            first_down[r + 1] += first_down[r];
        }
        let mut fill = first_down.clone();
        let mut down = vec![0_u32; head.len()];
        for (arc, &h) in head.iter().enumerate() {
            down[fill[h as usize] as usize] = arc as u32;
            fill[h as usize] += 1;
        }

        let mut topology = Self {
            rank,
            node: order.to_vec(),
            first_up,
            head,
            tail,
            parent,
            first_down,
            down,
            edge_arc: Vec::new(),
        };
        // Sized in advance, as `head` (a flattened iterator would grow it by doubling).
        let mut edge_arc = Vec::with_capacity(graph.edge_count());
        edge_arc.extend(
            (0..graph.node_count() as u32)
                .flat_map(|from| graph.out_edges(from).map(move |e| (from, e)))
                .map(|(from, e)| {
                    let (a, b) = (
                        topology.rank[from as usize],
                        topology.rank[graph.edge_target[e] as usize],
                    );
                    match a.cmp(&b) {
                        core::cmp::Ordering::Less => topology.arc(a, b),
                        core::cmp::Ordering::Greater => topology.arc(b, a) | DOWNWARD,
                        core::cmp::Ordering::Equal => NO_ARC,
                    }
                }),
        );
        topology.edge_arc = edge_arc;
        topology
    }

    /// Number of arcs.
    pub(super) fn arc_count(&self) -> usize {
        self.head.len()
    }

    /// The upward arcs of rank `r`.
    pub(super) fn up(&self, r: u32) -> core::ops::Range<usize> {
        self.first_up[r as usize] as usize..self.first_up[r as usize + 1] as usize
    }

    /// The arcs whose head is rank `r`.
    pub(super) fn below(&self, r: u32) -> &[u32] {
        &self.down[self.first_down[r as usize] as usize..self.first_down[r as usize + 1] as usize]
    }

    /// The arc from rank `low` up to rank `high` (an edge of the chordal graph).
    pub(super) fn arc(&self, low: u32, high: u32) -> u32 {
        let range = self.up(low);
        let start = range.start;
        self.head[range]
            .binary_search(&high)
            .map_or(NO_ARC, |i| (start + i) as u32)
    }
}
