//! The smallest set of nodes whose removal separates one group of nodes from another
//! (unit node capacities, max-flow min-cut): the refinement that turns a straight
//! sweep through a part of the network into the narrowest cut near it.

use alloc::collections::VecDeque;
use alloc::vec;
use alloc::vec::Vec;

use super::adjacency::Adjacency;

const NONE: u32 = u32::MAX;

/// The graph induced by one part of the network, in local ids (positions in the
/// part), with the reverse of every edge.
pub(super) struct LocalGraph {
    first: Vec<u32>,
    heads: Vec<u32>,
    reverse: Vec<u32>,
}

impl LocalGraph {
    /// The graph induced by `part`; `local` is scratch of the network's size, left as
    /// [`u32::MAX`] everywhere.
    pub(super) fn new(adjacency: &Adjacency, part: &[u32], local: &mut [u32]) -> Self {
        for (i, &v) in part.iter().enumerate() {
            local[v as usize] = i as u32;
        }
        let mut first = Vec::with_capacity(part.len() + 1);
        first.push(0_u32);
        let mut heads = Vec::new();
        for &v in part {
            let start = heads.len();
            heads.extend(
                adjacency
                    .neighbours(v)
                    .iter()
                    .map(|&u| local[u as usize])
                    .filter(|&l| l != NONE),
            );
            heads[start..].sort_unstable();
            first.push(heads.len() as u32);
        }
        for &v in part {
            local[v as usize] = NONE;
        }
        let mut graph = Self {
            first,
            heads,
            reverse: Vec::new(),
        };
        graph.reverse = (0..part.len() as u32)
            .flat_map(|u| graph.edges(u).map(move |e| (u, e)))
            .map(|(u, e)| {
                let w = graph.heads[e];
                let back = graph.edges(w);
                let start = back.start;
                graph.heads[back]
                    .binary_search(&u)
                    .map_or(NONE, |i| (start + i) as u32)
            })
            .collect();
        graph
    }

    fn edges(&self, u: u32) -> core::ops::Range<usize> {
        self.first[u as usize] as usize..self.first[u as usize + 1] as usize
    }

    fn len(&self) -> usize {
        self.first.len() - 1
    }
}

/// What a node is in a cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Role {
    Source,
    Sink,
    Inner,
}

/// A minimum vertex cut: the separator and whether each node is on the sources'
/// side (`false` for the separator and the sinks' side).
pub(super) struct Cut {
    pub(super) separator: Vec<u32>,
    pub(super) source_side: Vec<bool>,
}

/// A residual-graph state: a node's entry (`2v`) or exit (`2v + 1`).
fn state(v: u32, exit: bool) -> usize {
    2 * v as usize + usize::from(exit)
}

/// The minimum vertex cut between the sources and the sinks of `roles` (every node,
/// sources and sinks included, has capacity one, so the cut is always finite).
pub(super) fn min_vertex_cut(graph: &LocalGraph, roles: &[Role]) -> Cut {
    let n = graph.len();
    // Net flow along each directed edge: `flow[e] = -flow[reverse[e]]`, unbounded
    // (edges have no capacity; nodes have one).
    let mut flow = vec![0_i32; graph.heads.len()];
    let mut used = vec![false; n];
    // Per state: the state it was reached from and the edge taken (NONE for a
    // node's own entry-exit step).
    let mut from = vec![(NONE, NONE); 2 * n];
    let mut reached = vec![false; 2 * n];
    loop {
        reached.fill(false);
        let mut queue: VecDeque<usize> = VecDeque::new();
        for v in 0..n as u32 {
            if roles[v as usize] == Role::Source {
                reached[state(v, false)] = true;
                from[state(v, false)] = (NONE, NONE);
                queue.push_back(state(v, false));
            }
        }
        let mut found = None;
        'search: while let Some(s) = queue.pop_front() {
            let v = (s / 2) as u32;
            let exit = s % 2 == 1;
            let mut visit = |t: usize, edge: u32, queue: &mut VecDeque<usize>| {
                if !reached[t] {
                    reached[t] = true;
                    from[t] = (s as u32, edge);
                    queue.push_back(t);
                }
            };
            if exit {
                if roles[v as usize] == Role::Sink {
                    found = Some(s);
                    break 'search;
                }
                for e in graph.edges(v) {
                    visit(state(graph.heads[e], false), e as u32, &mut queue);
                }
                if used[v as usize] {
                    visit(state(v, false), NONE, &mut queue);
                }
            } else {
                if !used[v as usize] {
                    visit(state(v, true), NONE, &mut queue);
                }
                // Back along an edge that carries flow into `v`.
                for e in graph.edges(v) {
                    if flow[e] < 0 {
                        visit(state(graph.heads[e], true), e as u32, &mut queue);
                    }
                }
            }
        }
        let Some(mut at) = found else {
            break;
        };
        loop {
            let (previous, edge) = from[at];
            if previous == NONE {
                break;
            }
            let v = (at / 2) as u32;
            if edge == NONE {
                // Entry to exit uses the node; exit to entry frees it.
                used[v as usize] = at % 2 == 1;
            } else {
                // Along an edge or back against its flow: either way one more unit
                // travels the edge in the path's direction.
                flow[edge as usize] += 1;
                let back = graph.reverse[edge as usize];
                if back != NONE {
                    flow[back as usize] -= 1;
                }
            }
            at = previous as usize;
        }
    }
    let separator = (0..n as u32)
        .filter(|&v| reached[state(v, false)] && !reached[state(v, true)])
        .collect();
    let source_side = (0..n as u32).map(|v| reached[state(v, true)]).collect();
    Cut {
        separator,
        source_side,
    }
}
