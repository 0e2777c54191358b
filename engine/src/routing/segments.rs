//! The nearest way segment to a point: the `rstar` R-tree of every segment of a
//! network, kept in a compact form that stores no geometry of its own.
//!
//! Segments are numbered way by way (way `w`'s segment `i` is `start(w) + i`, with
//! `start(w) = way_points_start[w] + w`). The tree is bulk-loaded by `rstar` over the
//! projected segments, as it always was, then copied into two flat arrays: the inner
//! nodes (box, first child, number of children) and the segment numbers of the
//! leaves in tree order; the `rstar` tree is dropped. A segment's ends are projected from the graph's
//! own points when a search reaches it: the same projection of the same numbers the
//! tree was built from. `rstar` keeps every leaf in a node enum as large as an inner
//! node, about 80 bytes a segment with the nodes (Toronto's 126,855 segments: 9.9 MiB,
//! the largest part of a city's memory in the Worker); this form takes about 16
//! (2.0 MiB: 39,596 nodes of 40 bytes and a number per segment).
//!
//! [`SegmentTree::nearest`] is `rstar`'s `nearest_neighbor` (0.12) step for step, on
//! the same boxes with the same arithmetic and the same heaps, so it returns the
//! segment `rstar` returned, among equally near ones too (snapping at a junction,
//! where several ways' ends are equally near, picks the way it always picked). The
//! tests check that against `rstar`'s own tree, so an `rstar` release that built or
//! searched differently would fail them rather than move a snap.

use alloc::collections::{BinaryHeap, VecDeque};
use alloc::vec::Vec;
use core::cmp::Ordering;

use heapless::binary_heap::{BinaryHeap as StackHeap, Max};
use rstar::primitives::{GeomWithData, Line};
use rstar::{RTree, RTreeNode};

use super::snap::LocalFrame;
use crate::grid::MicroDegrees;
use crate::roads::RoadGraph;

/// A segment in the local frame: its way, its index along the way and its ends in
/// metres.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct FrameSegment {
    /// The way.
    pub(super) way: u32,
    /// Its index along the way.
    pub(super) index: u32,
    /// Start in the frame.
    pub(super) from: [f64; 2],
    /// End in the frame.
    pub(super) to: [f64; 2],
}

/// A box as `rstar`'s `AABB<[f64; 2]>`: lower and upper corners.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Aabb {
    lower: [f64; 2],
    upper: [f64; 2],
}

fn min_inline(a: f64, b: f64) -> f64 {
    if a < b { a } else { b }
}

fn max_inline(a: f64, b: f64) -> f64 {
    if a > b { a } else { b }
}

/// `Point::length_2` of `[f64; 2]`: a fold from zero.
fn length_2(p: [f64; 2]) -> f64 {
    p[1] * p[1] + (p[0] * p[0] + 0.0)
}

fn sub(a: [f64; 2], b: [f64; 2]) -> [f64; 2] {
    [a[0] - b[0], a[1] - b[1]]
}

impl Aabb {
    fn from_corners(p1: [f64; 2], p2: [f64; 2]) -> Self {
        Self {
            lower: [min_inline(p1[0], p2[0]), min_inline(p1[1], p2[1])],
            upper: [max_inline(p1[0], p2[0]), max_inline(p1[1], p2[1])],
        }
    }

    fn contains_point(&self, p: [f64; 2]) -> bool {
        (0..2).all(|i| self.lower[i] <= p[i]) && (0..2).all(|i| self.upper[i] >= p[i])
    }

    fn distance_2(&self, p: [f64; 2]) -> f64 {
        if self.contains_point(p) {
            0.0
        } else {
            let clamped: [f64; 2] = core::array::from_fn(|i| {
                min_inline(self.upper[i], max_inline(self.lower[i], p[i]))
            });
            length_2(sub(clamped, p))
        }
    }

    fn min_max_dist_2(&self, p: [f64; 2]) -> f64 {
        let (l, u) = (sub(self.lower, p), sub(self.upper, p));
        let mut max_diff = (0.0, 0.0, 0);
        let mut result = [0.0; 2];
        for i in 0..2 {
            let (mut min, mut max) = (l[i], u[i]);
            max *= max;
            min *= min;
            if max < min {
                core::mem::swap(&mut min, &mut max);
            }
            let diff = max - min;
            result[i] = max;
            if diff >= max_diff.0 {
                max_diff = (diff, min, i);
            }
        }
        result[max_diff.2] = max_diff.1;
        result[1] + (result[0] + 0.0)
    }
}

/// `rstar`'s `Line::distance_2`: the squared distance from `query` to the nearest
/// point of the segment.
fn segment_distance_2(from: [f64; 2], to: [f64; 2], query: [f64; 2]) -> f64 {
    let dir = sub(to, from);
    let rel = sub(query, from);
    let s = (rel[1] * dir[1] + (rel[0] * dir[0] + 0.0)) / length_2(dir);
    let nearest = if 0.0 < s && s < 1.0 {
        [from[0] + dir[0] * s, from[1] + dir[1] * s]
    } else if s <= 0.0 {
        from
    } else {
        to
    };
    length_2(sub(nearest, query))
}

/// An inner node of the tree.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Node {
    envelope: Aabb,
    /// First child: a node, or a position in [`SegmentTree::leaves`].
    first: u32,
    /// Number of children; the top bit is set when they are leaves (segments).
    count: u32,
}

const LEAVES: u32 = 1 << 31;

/// The segment tree.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct SegmentTree {
    /// Inner nodes, breadth first; node 0 is the root, and each node's children
    /// are consecutive.
    nodes: Vec<Node>,
    /// Segment numbers of the leaves, each node's consecutive, in tree order.
    leaves: Vec<u32>,
}

/// Reads segments off the graph: the way of a segment number and its ends.
pub(super) struct Geometry<'a> {
    pub(super) graph: &'a RoadGraph,
    pub(super) way_nodes: &'a [[u32; 2]],
    pub(super) frame: &'a LocalFrame,
}

impl Geometry<'_> {
    /// The first segment number of `way`.
    fn start(&self, way: usize) -> usize {
        self.graph.way_points_start[way] as usize + way
    }

    /// Point `k` of a way's polyline (0: its start node), projected.
    fn point(&self, way: usize, k: usize) -> [f64; 2] {
        let interior = self.graph.way_interior(way);
        let [start, end] = self.way_nodes[way];
        let stored = match k {
            0 => self.graph.node(start),
            k if k <= interior.len() => interior[k - 1],
            _ => self.graph.node(end),
        };
        let p = MicroDegrees::to_lat_lng(stored);
        self.frame.project(p.lat(), p.lng())
    }

    /// Segment number `s`.
    fn segment(&self, s: u32) -> FrameSegment {
        let s = s as usize;
        // The last way whose first segment is at or before `s`.
        let (mut low, mut high) = (0, self.graph.way_count());
        while high - low > 1 {
            let mid = low + (high - low) / 2;
            if self.start(mid) <= s {
                low = mid;
            } else {
                high = mid;
            }
        }
        let index = s - self.start(low);
        FrameSegment {
            way: low as u32,
            index: index as u32,
            from: self.point(low, index),
            to: self.point(low, index + 1),
        }
    }
}

/// A node or leaf waiting in a search, with its distance (`rstar`'s
/// `RTreeNodeDistanceWrapper`: ordered by distance alone, nearest first).
#[derive(Debug, Clone, Copy)]
struct Pending {
    distance: f64,
    /// A node, or with [`LEAVES`] set, a position in [`SegmentTree::leaves`].
    at: u32,
}

impl PartialEq for Pending {
    fn eq(&self, other: &Self) -> bool {
        self.distance == other.distance
    }
}

impl Eq for Pending {}

impl PartialOrd for Pending {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Pending {
    fn cmp(&self, other: &Self) -> Ordering {
        // As `rstar`: the inverse comparison makes a min heap (distances are never NaN
        // for finite points; equal then).
        other
            .distance
            .partial_cmp(&self.distance)
            .unwrap_or(Ordering::Equal)
    }
}

/// `rstar`'s `SmallHeap`: 32 entries on the stack, then the standard heap (one per
/// search, on the stack: the size of its stack variant is the point).
#[allow(clippy::large_enum_variant)]
enum SmallHeap {
    Stack(StackHeap<Pending, Max, 32>),
    Heap(BinaryHeap<Pending>),
}

impl SmallHeap {
    fn new() -> Self {
        Self::Stack(StackHeap::new())
    }

    fn pop(&mut self) -> Option<Pending> {
        match self {
            Self::Stack(heap) => heap.pop(),
            Self::Heap(heap) => heap.pop(),
        }
    }

    fn push(&mut self, item: Pending) {
        match self {
            Self::Stack(heap) => {
                if let Err(item) = heap.push(item) {
                    let capacity = heap.len() + 1;
                    self.spill(capacity).push(item);
                }
            }
            Self::Heap(heap) => heap.push(item),
        }
    }

    fn extend(&mut self, items: &[Pending]) {
        match self {
            Self::Stack(heap) => {
                if heap.capacity() >= heap.len() + items.len() {
                    for &item in items {
                        // Room was checked.
                        let _ = heap.push(item);
                    }
                } else {
                    let capacity = heap.len() + items.len();
                    self.spill(capacity).extend(items.iter().copied());
                }
            }
            Self::Heap(heap) => heap.extend(items.iter().copied()),
        }
    }

    fn spill(&mut self, capacity: usize) -> &mut BinaryHeap<Pending> {
        let old = core::mem::replace(self, Self::Heap(BinaryHeap::with_capacity(capacity)));
        let Self::Heap(new) = self else {
            unreachable!("just replaced")
        };
        if let Self::Stack(old) = old {
            new.extend(old.into_vec());
        }
        new
    }
}

impl SegmentTree {
    /// The tree over every segment of `geometry`'s graph, as `rstar` bulk-loads it.
    pub(super) fn new(geometry: &Geometry<'_>) -> Self {
        let graph = geometry.graph;
        // The entries the index always built, `(way, index along it)` beside each
        // line, so that `rstar` builds the very same tree.
        let mut segments = Vec::with_capacity(graph.way_points.len() + graph.way_count());
        for way in 0..graph.way_count() {
            let points = graph.way_interior(way).len() + 2;
            let mut from = geometry.point(way, 0);
            for k in 1..points {
                let to = geometry.point(way, k);
                segments.push(GeomWithData::new(
                    Line::new(from, to),
                    (way as u32, (k - 1) as u32),
                ));
                from = to;
            }
        }
        let tree = RTree::bulk_load(segments);
        let (mut nodes, mut leaves) = (Vec::new(), Vec::with_capacity(tree.size()));
        let root = tree.root();
        nodes.push(Node {
            envelope: aabb(&root.envelope()),
            first: 0,
            count: 0,
        });
        let mut queue = VecDeque::from([(0_usize, root)]);
        while let Some((at, node)) = queue.pop_front() {
            let children = node.children();
            let all_leaves = children.iter().all(RTreeNode::is_leaf);
            if all_leaves {
                nodes[at].first = leaves.len() as u32;
                nodes[at].count = children.len() as u32 | LEAVES;
                for child in children {
                    if let RTreeNode::Leaf(segment) = child {
                        let (way, index) = segment.data;
                        leaves.push((geometry.start(way as usize) + index as usize) as u32);
                    }
                }
            } else {
                // A bulk-loaded node holds leaves only or inner nodes only.
                nodes[at].first = nodes.len() as u32;
                nodes[at].count = children.len() as u32;
                for child in children {
                    if let RTreeNode::Parent(inner) = child {
                        queue.push_back((nodes.len(), inner));
                        nodes.push(Node {
                            envelope: aabb(&inner.envelope()),
                            first: 0,
                            count: 0,
                        });
                    }
                }
            }
        }
        debug_assert_eq!(leaves.len(), tree.size());
        drop(queue);
        drop(tree);
        nodes.shrink_to_fit();
        Self { nodes, leaves }
    }

    /// The children of `node`: their positions, tagged as [`Pending::at`].
    fn children(&self, node: u32) -> impl Iterator<Item = u32> {
        let Node { first, count, .. } = self.nodes[node as usize];
        let tag = count & LEAVES;
        (first..first + (count & !LEAVES)).map(move |c| c | tag)
    }

    /// The envelope of a child (a node's stored box, or a segment's corners).
    fn envelope(&self, geometry: &Geometry<'_>, at: u32) -> Aabb {
        if at & LEAVES == 0 {
            self.nodes[at as usize].envelope
        } else {
            let segment = geometry.segment(self.leaves[(at & !LEAVES) as usize]);
            Aabb::from_corners(segment.from, segment.to)
        }
    }

    /// The segment nearest `query` and its squared distance, `None` for a network
    /// without segments: `rstar`'s `RTree::nearest_neighbor`.
    pub(super) fn nearest(
        &self,
        geometry: &Geometry<'_>,
        query: [f64; 2],
    ) -> Option<(FrameSegment, f64)> {
        if self.leaves.is_empty() {
            return None;
        }
        let found = self
            .pruned_nearest(geometry, query)
            .or_else(|| self.nearest_by_iteration(geometry, query))?;
        let segment = geometry.segment(self.leaves[(found & !LEAVES) as usize]);
        Some((segment, segment_distance_2(segment.from, segment.to, query)))
    }

    /// `rstar`'s `nearest_neighbor::nearest_neighbor`: best first, skipping what is
    /// farther than the smallest min-max distance seen.
    fn pruned_nearest(&self, geometry: &Geometry<'_>, query: [f64; 2]) -> Option<u32> {
        let mut smallest_min_max = f64::MAX;
        let mut heap = SmallHeap::new();
        let extend = |heap: &mut SmallHeap, node: u32, smallest_min_max: &mut f64| {
            for child in self.children(node) {
                let distance = if child & LEAVES == 0 {
                    let d = self.nodes[child as usize].envelope.distance_2(query);
                    (d <= *smallest_min_max).then_some(d)
                } else {
                    // `distance_2_if_less_or_equal`: the envelope first, then the line.
                    let segment = geometry.segment(self.leaves[(child & !LEAVES) as usize]);
                    let envelope = Aabb::from_corners(segment.from, segment.to);
                    if envelope.distance_2(query) <= *smallest_min_max {
                        let d = segment_distance_2(segment.from, segment.to, query);
                        (d <= *smallest_min_max).then_some(d)
                    } else {
                        None
                    }
                };
                if let Some(distance) = distance {
                    *smallest_min_max = min_inline(
                        *smallest_min_max,
                        self.envelope(geometry, child).min_max_dist_2(query),
                    );
                    heap.push(Pending {
                        distance,
                        at: child,
                    });
                }
            }
        };
        extend(&mut heap, 0, &mut smallest_min_max);
        while let Some(current) = heap.pop() {
            if current.at & LEAVES == 0 {
                extend(&mut heap, current.at, &mut smallest_min_max);
            } else {
                return Some(current.at);
            }
        }
        None
    }

    /// `rstar`'s `NearestNeighborDistance2Iterator`, first item: what
    /// `nearest_neighbor` falls back on when rounding made its pruning skip everything.
    fn nearest_by_iteration(&self, geometry: &Geometry<'_>, query: [f64; 2]) -> Option<u32> {
        let mut heap = SmallHeap::new();
        let mut items = Vec::new();
        let mut extend = |heap: &mut SmallHeap, node: u32| {
            items.clear();
            items.extend(self.children(node).map(|child| {
                let distance = if child & LEAVES == 0 {
                    self.nodes[child as usize].envelope.distance_2(query)
                } else {
                    let segment = geometry.segment(self.leaves[(child & !LEAVES) as usize]);
                    segment_distance_2(segment.from, segment.to, query)
                };
                Pending {
                    distance,
                    at: child,
                }
            }));
            heap.extend(&items);
        };
        extend(&mut heap, 0);
        while let Some(current) = heap.pop() {
            if current.at & LEAVES == 0 {
                extend(&mut heap, current.at);
            } else {
                return Some(current.at);
            }
        }
        None
    }
}

fn aabb(envelope: &rstar::AABB<[f64; 2]>) -> Aabb {
    Aabb {
        lower: envelope.lower(),
        upper: envelope.upper(),
    }
}

#[cfg(test)]
mod tests;
