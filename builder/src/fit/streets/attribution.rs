//! Where on the street network an incident happened: its attribution to the ways
//! of a [`StreetNetwork`], as fractions of one incident.
//!
//! - Within [`NODE_RADIUS_M`] of a graph node that ends an assigned way, the
//!   incident is split over the assigned ways meeting at the nearest such node, in
//!   proportion to their lengths (Toronto publishes its locations offset to
//!   intersections, so an intersection point stands for any of its streets).
//! - Otherwise, within [`WAY_RADIUS_M`] of an assigned way's polyline (its end nodes
//!   and interior points), it goes wholly to the nearest such way.
//! - Otherwise it is off the network and attributed to no way.
//!
//! Those radii are for streets ([`Radii::STREETS`]). A hex lattice (a city without
//! road data) has no junctions where incidents are published and no kerb to be near:
//! its radii ([`Radii::of`]) split at no node and give every incident wholly to the
//! nearest lattice way within the longest way's length, which reaches every point
//! of the lattice's cells (a point of a cell is within its circumradius of the
//! centre node, and neighbouring centres are √3 circumradii apart).
//!
//! Distances are planar in a local equirectangular projection centred on the mean
//! of the graph's nodes: `x = R · cos φ₀ · Δλ`, `y = R · Δφ` with `R` the mean
//! earth radius, in metres. Over a city (tens of kilometres) its error against the
//! great circle is far below a metre at these radii. Nodes and way segments are in
//! R-trees, so one incident costs two nearest-neighbour queries.

use hexrisk_engine::grid::MicroDegrees;
use hexrisk_engine::roads::{NetworkKind, RoadGraph};
use rstar::primitives::{GeomWithData, Line};
use rstar::{PointDistance, RTree};

use super::network::StreetNetwork;

/// An incident this close to a node is split over the ways meeting there.
pub const NODE_RADIUS_M: f64 = 15.0;

/// An incident farther than this from every assigned way is off the network.
pub const WAY_RADIUS_M: f64 = 50.0;

/// How near an incident must be to a node or a way to be attributed to it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Radii {
    /// Within this of a node ending an assigned way, split over the ways there.
    pub node_m: f64,
    /// Otherwise within this of an assigned way, wholly to the nearest.
    pub way_m: f64,
}

impl Radii {
    /// A street network's: [`NODE_RADIUS_M`] and [`WAY_RADIUS_M`].
    pub const STREETS: Self = Self {
        node_m: NODE_RADIUS_M,
        way_m: WAY_RADIUS_M,
    };

    /// The radii for `graph`'s kind of network: [`Self::STREETS`] for roads; for a
    /// hex lattice, no node radius and its longest way's length.
    #[must_use]
    pub fn of(graph: &RoadGraph) -> Self {
        match graph.kind {
            NetworkKind::Roads => Self::STREETS,
            NetworkKind::HexLattice => Self {
                node_m: 0.0,
                way_m: graph
                    .way_length_m
                    .iter()
                    .fold(0.0_f64, |longest, &m| longest.max(f64::from(m))),
            },
        }
    }
}

/// Mean earth radius (IUGG), in metres.
pub const EARTH_RADIUS_M: f64 = 6_371_008.8;

/// A local equirectangular projection to metres.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LocalProjection {
    lat0: f64,
    lng0: f64,
    metres_per_degree_lat: f64,
    metres_per_degree_lng: f64,
}

impl LocalProjection {
    /// The projection centred on `(lat0, lng0)`, in degrees.
    #[must_use]
    pub fn centred_on(lat0: f64, lng0: f64) -> Self {
        let metres_per_degree_lat = EARTH_RADIUS_M * core::f64::consts::PI / 180.0;
        Self {
            lat0,
            lng0,
            metres_per_degree_lat,
            metres_per_degree_lng: metres_per_degree_lat * lat0.to_radians().cos(),
        }
    }

    /// The projection centred on the mean of a graph's nodes (the origin for an
    /// empty graph).
    #[must_use]
    pub fn of_graph(graph: &RoadGraph) -> Self {
        let n = graph.nodes.len().max(1) as f64;
        let (lat, lng) = graph
            .nodes
            .iter()
            .fold((0.0, 0.0), |(lat, lng), p| (lat + p.lat(), lng + p.lng()));
        Self::centred_on(lat / n, lng / n)
    }

    /// A point in metres east and north of the centre.
    #[must_use]
    pub fn project(&self, lat: f64, lng: f64) -> [f64; 2] {
        [
            (lng - self.lng0) * self.metres_per_degree_lng,
            (lat - self.lat0) * self.metres_per_degree_lat,
        ]
    }

    fn project_stored(&self, point: MicroDegrees) -> [f64; 2] {
        self.project(point.lat(), point.lng())
    }
}

/// How an incident was attributed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// Split over the ways meeting at a node.
    Node,
    /// Given to the nearest way.
    Way,
    /// Farther than the way radius ([`Radii::way_m`]) from every assigned way.
    OffNetwork,
}

/// A fraction of one incident attributed to a way.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Piece {
    /// The way.
    pub way: u32,
    /// The fraction of the incident (the pieces of an incident sum to 1).
    pub fraction: f64,
}

type NodeEntry = GeomWithData<[f64; 2], u32>;
type SegmentEntry = GeomWithData<Line<[f64; 2]>, u32>;

/// The spatial index of a network's assigned ways and the nodes that end them.
#[derive(Debug)]
pub struct Attributor {
    projection: LocalProjection,
    radii: Radii,
    nodes: RTree<NodeEntry>,
    /// CSR offsets into `node_ways`, by the node entry's data.
    node_ways_start: Vec<u32>,
    /// The assigned ways meeting at each indexed node, with their lengths.
    node_ways: Vec<(u32, f64)>,
    segments: RTree<SegmentEntry>,
}

impl Attributor {
    /// Indexes the assigned ways of `network`, a [`StreetNetwork`] of `graph`, to
    /// attribute within the [`Radii::of`] the graph.
    #[must_use]
    pub fn new(graph: &RoadGraph, network: &StreetNetwork) -> Self {
        let projection = LocalProjection::of_graph(graph);
        let ends = graph.way_ends();
        let mut at_node: Vec<Vec<u32>> = vec![Vec::new(); graph.node_count()];
        let mut segments = Vec::new();
        let mut points = Vec::new();
        for (way, _) in network.assigned() {
            let Some(&[start, end]) = ends.get(way) else {
                continue;
            };
            let way_id = way as u32;
            for node in [start, end] {
                // A loop's two ends are one node: the way meets it once.
                if let Some(list) = at_node.get_mut(node as usize)
                    && list.last() != Some(&way_id)
                {
                    list.push(way_id);
                }
            }
            points.clear();
            points.extend(
                graph
                    .way_points(way, [start, end])
                    .map(|p| projection.project_stored(p)),
            );
            for pair in points.windows(2) {
                segments.push(SegmentEntry::new(Line::new(pair[0], pair[1]), way_id));
            }
        }
        let mut node_entries = Vec::new();
        let mut node_ways_start = vec![0_u32];
        let mut node_ways = Vec::new();
        for (node, ways) in at_node.iter().enumerate() {
            if ways.is_empty() {
                continue;
            }
            let entry = node_ways_start.len() as u32 - 1;
            node_entries.push(NodeEntry::new(
                projection.project_stored(graph.node(node as u32)),
                entry,
            ));
            node_ways.extend(ways.iter().map(|&w| (w, network.way_length_m[w as usize])));
            node_ways_start.push(node_ways.len() as u32);
        }
        Self {
            projection,
            radii: Radii::of(graph),
            nodes: RTree::bulk_load(node_entries),
            node_ways_start,
            node_ways,
            segments: RTree::bulk_load(segments),
        }
    }

    /// The radii it attributes within.
    #[must_use]
    pub fn radii(&self) -> Radii {
        self.radii
    }

    /// Attributes an incident at `(lat, lng)`: its pieces replace the contents of
    /// `pieces` (empty when it is off the network).
    pub fn attribute(&self, lat: f64, lng: f64, pieces: &mut Vec<Piece>) -> Placement {
        pieces.clear();
        let here = self.projection.project(lat, lng);
        if let Some(node) = self.nodes.nearest_neighbor(&here)
            && node.distance_2(&here) <= self.radii.node_m * self.radii.node_m
        {
            let range = self.node_ways_start[node.data as usize] as usize
                ..self.node_ways_start[node.data as usize + 1] as usize;
            let ways = &self.node_ways[range];
            let total: f64 = ways.iter().map(|&(_, length)| length).sum();
            pieces.extend(ways.iter().map(|&(way, length)| Piece {
                way,
                fraction: length / total,
            }));
            return Placement::Node;
        }
        if let Some(segment) = self.segments.nearest_neighbor(&here)
            && segment.distance_2(&here) <= self.radii.way_m * self.radii.way_m
        {
            pieces.push(Piece {
                way: segment.data,
                fraction: 1.0,
            });
            return Placement::Way;
        }
        Placement::OffNetwork
    }
}

#[cfg(test)]
mod tests;
