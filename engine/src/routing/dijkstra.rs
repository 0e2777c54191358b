//! One-to-all Dijkstra: the cheapest cost from a few start nodes to every node, over
//! whatever arcs and costs the caller gives (way lengths for landmarks and distances
//! from a point, per-request costs for the tests' reference).

use alloc::collections::BinaryHeap;
use alloc::vec;
use alloc::vec::Vec;

use super::heap::Entry;

/// The cheapest cost to each of `node_count` nodes (infinite where unreachable) from
/// the `starts` (node, cost already spent there), where `arcs(node)` gives the
/// (head, cost) of each arc leaving a node.
pub(super) fn costs_to_all<A>(
    node_count: usize,
    starts: impl IntoIterator<Item = (u32, f64)>,
    arcs: impl Fn(u32) -> A,
) -> Vec<f64>
where
    A: Iterator<Item = (u32, f64)>,
{
    let mut dist = vec![f64::INFINITY; node_count];
    let mut heap = BinaryHeap::new();
    for (node, cost) in starts {
        if cost < dist[node as usize] {
            dist[node as usize] = cost;
            heap.push(Entry {
                key: cost,
                cost,
                node,
            });
        }
    }
    while let Some(Entry { cost, node, .. }) = heap.pop() {
        if cost > dist[node as usize] {
            continue;
        }
        for (head, arc_cost) in arcs(node) {
            let next = cost + arc_cost;
            if next < dist[head as usize] {
                dist[head as usize] = next;
                heap.push(Entry {
                    key: next,
                    cost: next,
                    node: head,
                });
            }
        }
    }
    dist
}
