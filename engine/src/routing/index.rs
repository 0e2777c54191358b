//! The search structures of one network, built once and shared by every request.

use alloc::vec;
use alloc::vec::Vec;

use rstar::RTree;
use rstar::primitives::{GeomWithData, Line};

use super::landmarks::Landmarks;
use super::snap::{LocalFrame, Segment};
use crate::roads::RoadGraph;

/// Marks a missing edge in [`RouteIndex`]'s tables and the source entries of a
/// search's parent table.
pub(super) const NONE: u32 = u32::MAX;

/// Search structures for one network: edge sources, way ends, a segment tree for
/// snapping and landmark distances.
#[derive(Debug, Clone)]
pub struct RouteIndex {
    pub(super) edge_source: Vec<u32>,
    /// Per way: the edge along it and the edge against it ([`NONE`] when absent).
    pub(super) way_edges: Vec<[u32; 2]>,
    /// Per way: start and end node.
    pub(super) way_nodes: Vec<[u32; 2]>,
    pub(super) frame: LocalFrame,
    pub(super) segments: RTree<Segment>,
    pub(super) landmarks: Landmarks,
}

impl RouteIndex {
    /// Builds the index of a graph (linear in its size, plus `2 × 8` one-to-all
    /// searches for the landmarks).
    #[must_use]
    pub fn new(graph: &RoadGraph) -> Self {
        let mut edge_source = vec![0_u32; graph.edge_count()];
        let mut way_edges = vec![[NONE; 2]; graph.way_count()];
        for node in 0..graph.node_count() as u32 {
            for e in graph.out_edges(node) {
                edge_source[e] = node;
                let (way, reversed) = graph.edge_way(e);
                way_edges[way][usize::from(reversed)] = e as u32;
            }
        }
        let way_nodes = graph.way_ends();
        let frame = LocalFrame::new(graph);
        let mut segments = Vec::new();
        for (way, &ends) in way_nodes.iter().enumerate() {
            let points = graph.way_polyline(way, ends);
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
}
