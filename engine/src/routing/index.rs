//! The search structures of one network, built once and shared by every request,
//! and snapping a point onto the nearest way with them.

use alloc::vec;
use alloc::vec::Vec;

use h3o::LatLng;

use super::MAX_SNAP_DISTANCE_M;
use super::cch::Hierarchy;
use super::landmarks::Landmarks;
use super::segments::{Geometry, SegmentTree};
use super::snap::{LocalFrame, Snap};
use crate::grid::MicroDegrees;
use crate::roads::{NetworkKind, RoadGraph};

/// Marks a missing edge in [`RouteIndex`]'s tables and the source entries of a
/// search's parent table.
pub(super) const NONE: u32 = u32::MAX;

/// Search structures for one network: edge sources, way ends, a segment tree for
/// snapping, landmark distances and the contraction hierarchy.
#[derive(Debug)]
pub struct RouteIndex {
    pub(super) edge_source: Vec<u32>,
    /// Per way: the edge along it and the edge against it ([`NONE`] when absent).
    pub(super) way_edges: Vec<[u32; 2]>,
    /// Per way: start and end node.
    pub(super) way_nodes: Vec<[u32; 2]>,
    pub(super) frame: LocalFrame,
    /// The nearest segment to a point, for snapping.
    segments: SegmentTree,
    /// Great-circle metres of every way segment, way by way (way `w`'s start at
    /// `way_points_start[w] + w`): a route's geometry and snapping measure along its
    /// ways on every request, with trigonometry, and these are those very numbers
    /// (Toronto: 126,855 segments, 1 MB).
    segment_m: Vec<f64>,
    pub(super) landmarks: Landmarks,
    /// For road networks only: a hex lattice is a triangulated plane without small
    /// separators, whose hierarchy costs far more memory than it saves time.
    pub(super) hierarchy: Option<Hierarchy>,
}

impl RouteIndex {
    /// Builds the index of a graph (linear in its size, plus `2 × 8` one-to-all
    /// searches for the landmarks and the hierarchy's topology).
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
        let segments = SegmentTree::new(&Geometry {
            graph,
            way_nodes: &way_nodes,
            frame: &frame,
        });
        let mut segment_m = Vec::with_capacity(graph.way_points.len() + graph.way_count());
        // One buffer for every way's polyline: a city has tens of thousands of ways.
        let mut points = Vec::new();
        for (way, &ends) in way_nodes.iter().enumerate() {
            points.clear();
            points.extend(graph.way_points(way, ends).map(MicroDegrees::to_lat_lng));
            for pair in points.windows(2) {
                segment_m.push(pair[0].distance_m(pair[1]));
            }
        }
        let landmarks = Landmarks::new(graph, &edge_source);
        let hierarchy = (graph.kind == NetworkKind::Roads).then(|| Hierarchy::new(graph));
        Self {
            edge_source,
            way_edges,
            way_nodes,
            frame,
            segments,
            segment_m,
            landmarks,
            hierarchy,
        }
    }

    /// The source node of an edge.
    #[must_use]
    pub fn edge_source(&self, edge: usize) -> u32 {
        self.edge_source[edge]
    }

    /// The network's contraction hierarchy (`None` for a hex lattice).
    #[must_use]
    pub fn hierarchy(&self) -> Option<&Hierarchy> {
        self.hierarchy.as_ref()
    }

    /// The metres of a way's segments, start to end: each pair of its points'
    /// great-circle distance, computed once when the index was built.
    pub(super) fn way_segment_m(&self, graph: &RoadGraph, way: usize) -> &[f64] {
        let start = graph.way_points_start[way] as usize + way;
        let end = graph.way_points_start[way + 1] as usize + way + 1;
        &self.segment_m[start..end]
    }

    /// The start and end nodes of a way.
    #[must_use]
    pub fn way_nodes(&self, way: usize) -> [u32; 2] {
        self.way_nodes[way]
    }

    /// The way nearest a point and its distance in metres (in the network's local
    /// planar frame), or `None` for an empty network.
    #[must_use]
    pub fn nearest_way(&self, graph: &RoadGraph, point: LatLng) -> Option<(u32, f64)> {
        let query = self.frame.project(point.lat(), point.lng());
        let (nearest, distance_2) = self
            .segments
            .nearest(&self.segment_geometry(graph), query)?;
        Some((nearest.way, libm::sqrt(distance_2)))
    }

    /// What the segment tree reads segments from.
    fn segment_geometry<'a>(&'a self, graph: &'a RoadGraph) -> Geometry<'a> {
        Geometry {
            graph,
            way_nodes: &self.way_nodes,
            frame: &self.frame,
        }
    }

    /// Moves a point onto the nearest way.
    ///
    /// # Errors
    /// The distance to the nearest way, in metres, when it exceeds
    /// [`MAX_SNAP_DISTANCE_M`] (infinite for an empty network).
    pub fn snap(&self, graph: &RoadGraph, point: LatLng) -> Result<Snap, f64> {
        let query = self.frame.project(point.lat(), point.lng());
        let Some((nearest, _)) = self.segments.nearest(&self.segment_geometry(graph), query) else {
            return Err(f64::INFINITY);
        };
        let (way, segment) = (nearest.way, nearest.index);
        // The way's points up to the end of the nearest segment are all that is needed.
        let points: Vec<LatLng> = graph
            .way_points(way as usize, self.way_nodes[way as usize])
            .take(segment as usize + 2)
            .map(MicroDegrees::to_lat_lng)
            .collect();
        let (start_xy, end_xy) = (nearest.from, nearest.to);
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
        let lengths = self.way_segment_m(graph, way as usize);
        let before: f64 = lengths[..segment as usize].iter().sum();
        let length = f64::from(graph.way_length_m[way as usize]);
        let offset = (before + along * lengths[segment as usize]).clamp(0.0, length);
        Ok(Snap {
            way,
            offset_m: offset,
            point: on_way,
            distance_m: distance,
        })
    }
}
