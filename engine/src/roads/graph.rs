//! The road graph stored in a city artifact: a compressed-sparse-row directed graph
//! whose edges run along undirected *ways* that carry the geometry, the length, the
//! grid cells crossed and the street name, so both directions of a street share one
//! copy of them. Names are stored once each and referenced by number from the ways.

use alloc::string::String;
use alloc::vec::Vec;

use h3o::LatLng;
use serde::{Deserialize, Serialize};

use crate::grid::MicroDegrees;

/// How the graph was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum NetworkKind {
    /// Real streets (shapefile or OpenStreetMap).
    Roads,
    /// A lattice over the H3 grid itself, for cities without road data.
    HexLattice,
}

impl NetworkKind {
    /// The name the APIs report (`network` in route answers).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Roads => "roads",
            Self::HexLattice => "hex-lattice",
        }
    }
}

/// Flag on [`RoadGraph::edge_way`]: the edge runs along its way backwards.
pub const REVERSED: u32 = 1 << 31;

/// Marks a crossed cell that is outside the city grid.
pub const OUTSIDE_GRID: u32 = u32::MAX;

/// The longest street name a graph stores, in bytes of UTF-8 (the committed sources'
/// longest is 33): it bounds what one name adds to an answer.
pub const MAX_STREET_NAME_BYTES: usize = 200;

/// A road graph in compact arrays.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoadGraph {
    /// Where the network came from.
    pub kind: NetworkKind,
    /// Source description, for example `City of Toronto streets (HERE)`.
    pub source: String,
    /// Node positions.
    pub nodes: Vec<MicroDegrees>,
    /// CSR offsets: the outgoing edges of node `n` are `first_edge[n]..first_edge[n + 1]`.
    pub first_edge: Vec<u32>,
    /// Edge targets.
    pub edge_target: Vec<u32>,
    /// Edge way index, with [`REVERSED`] set when the edge runs against the way.
    pub edge_way: Vec<u32>,
    /// Way lengths in metres (great-circle along the geometry).
    pub way_length_m: Vec<f32>,
    /// Offsets into `way_points` of each way's interior points (`ways + 1` entries).
    pub way_points_start: Vec<u32>,
    /// Interior points of all ways, in way order (ends are the nodes).
    pub way_points: Vec<MicroDegrees>,
    /// Offsets into `way_cells` (`ways + 1` entries).
    pub way_cells_start: Vec<u32>,
    /// Cells crossed, as grid positions ([`OUTSIDE_GRID`] outside), in way order.
    pub way_cells: Vec<u32>,
    /// Metres of the way inside each crossed cell, parallel to `way_cells`.
    pub way_cell_m: Vec<f32>,
    /// The nodes in contraction order for routing's hierarchy (first contracted
    /// first), computed by the build; empty when it was not (the hierarchy then
    /// computes one when the network is first indexed).
    pub contraction_order: Vec<u32>,
    /// The distinct street names, strictly ascending (byte order), none empty or over
    /// [`MAX_STREET_NAME_BYTES`]; empty when no way has a name.
    pub names: Vec<String>,
    /// Per way, one more than the index of its name in `names`, or 0 for a way
    /// without a name; empty when no way has one (a hex lattice, a source without
    /// names). Read it through [`RoadGraph::way_name`].
    pub way_name: Vec<u32>,
}

/// Why a graph is unusable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("road graph is inconsistent: {0}")]
pub struct GraphError(pub &'static str);

/// A name trimmed and cut to at most [`MAX_STREET_NAME_BYTES`] on a character
/// boundary (then trimmed again, so a cut never leaves a space at the end).
#[must_use]
pub fn clip_name(name: &str) -> &str {
    let name = name.trim();
    if name.len() <= MAX_STREET_NAME_BYTES {
        return name;
    }
    let mut end = MAX_STREET_NAME_BYTES;
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    name[..end].trim_end()
}

fn offsets_ok(offsets: &[u32], count: usize, total: usize) -> bool {
    offsets.len() == count + 1
        && offsets.first() == Some(&0)
        && offsets.last().map(|&l| l as usize) == Some(total)
        && offsets.windows(2).all(|w| w[0] <= w[1])
}

impl RoadGraph {
    /// Number of nodes.
    #[must_use]
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// Number of directed edges.
    #[must_use]
    pub fn edge_count(&self) -> usize {
        self.edge_target.len()
    }

    /// Number of ways.
    #[must_use]
    pub fn way_count(&self) -> usize {
        self.way_length_m.len()
    }

    /// Checks every index and offset, so queries can index without panicking.
    ///
    /// # Errors
    /// [`GraphError`] naming the first inconsistency; `cells` is the grid size.
    pub fn validate(&self, cells: usize) -> Result<(), GraphError> {
        let (nodes, edges, ways) = (self.node_count(), self.edge_count(), self.way_count());
        if !offsets_ok(&self.first_edge, nodes, edges) {
            return Err(GraphError("edge offsets"));
        }
        if self.edge_way.len() != edges {
            return Err(GraphError("edge way table length"));
        }
        if self.edge_target.iter().any(|&t| t as usize >= nodes) {
            return Err(GraphError("edge target out of range"));
        }
        if self
            .edge_way
            .iter()
            .any(|&w| (w & !REVERSED) as usize >= ways)
        {
            return Err(GraphError("edge way out of range"));
        }
        if !offsets_ok(&self.way_points_start, ways, self.way_points.len()) {
            return Err(GraphError("way point offsets"));
        }
        if !offsets_ok(&self.way_cells_start, ways, self.way_cells.len())
            || self.way_cell_m.len() != self.way_cells.len()
        {
            return Err(GraphError("way cell offsets"));
        }
        if self
            .way_cells
            .iter()
            .any(|&c| c != OUTSIDE_GRID && c as usize >= cells)
        {
            return Err(GraphError("way cell out of range"));
        }
        if !self.contraction_order.is_empty() && self.stored_order().is_none() {
            return Err(GraphError(
                "contraction order is not a permutation of the nodes",
            ));
        }
        if self
            .way_length_m
            .iter()
            .chain(&self.way_cell_m)
            .any(|m| !m.is_finite() || *m < 0.0)
        {
            return Err(GraphError("negative or non-finite length"));
        }
        self.validate_names()
    }

    /// The street name checks of [`Self::validate`].
    fn validate_names(&self) -> Result<(), GraphError> {
        if self.way_name.is_empty() {
            if !self.names.is_empty() {
                return Err(GraphError("street names without a name per way"));
            }
        } else if self.way_name.len() != self.way_count() {
            return Err(GraphError("street name table is not one per way"));
        }
        if self.way_name.iter().any(|&n| n as usize > self.names.len()) {
            return Err(GraphError("street name index out of range"));
        }
        if self.names.iter().any(String::is_empty) {
            return Err(GraphError("empty street name"));
        }
        if self.names.iter().any(|n| n.len() > MAX_STREET_NAME_BYTES) {
            return Err(GraphError("street name over MAX_STREET_NAME_BYTES"));
        }
        if !self.names.windows(2).all(|w| w[0] < w[1]) {
            return Err(GraphError("street names are not strictly ascending"));
        }
        Ok(())
    }

    /// A way's street name; `None` for a way without one or an unknown way.
    #[must_use]
    pub fn way_name(&self, way: usize) -> Option<&str> {
        let index = self.way_name.get(way)?.checked_sub(1)?;
        self.names.get(index as usize).map(String::as_str)
    }

    /// Stores a street name for every way, given in way order (blank for none): each
    /// trimmed of surrounding white space and cut to [`MAX_STREET_NAME_BYTES`] at a
    /// character boundary, otherwise spelt as given, each distinct name kept once.
    /// Without any name both tables are left empty.
    pub fn set_way_names<'a>(&mut self, per_way: impl IntoIterator<Item = &'a str>) {
        let per_way: Vec<&str> = per_way.into_iter().map(clip_name).collect();
        let mut names: Vec<&str> = per_way.iter().copied().filter(|n| !n.is_empty()).collect();
        crate::sorting::sort(&mut names);
        names.dedup();
        self.way_name = if names.is_empty() {
            Vec::new()
        } else {
            per_way
                .iter()
                .map(|name| names.binary_search(name).map_or(0, |i| i as u32 + 1))
                .collect()
        };
        self.names = names.into_iter().map(String::from).collect();
    }

    /// The stored contraction order when it holds every node exactly once.
    #[must_use]
    pub fn stored_order(&self) -> Option<&[u32]> {
        let n = self.node_count();
        if self.contraction_order.len() != n {
            return None;
        }
        let mut seen = alloc::vec![false; n];
        for &node in &self.contraction_order {
            let slot = seen.get_mut(node as usize)?;
            if core::mem::replace(slot, true) {
                return None;
            }
        }
        Some(&self.contraction_order)
    }

    /// The outgoing edges of `node` (empty for an unknown node).
    #[must_use]
    pub fn out_edges(&self, node: u32) -> core::ops::Range<usize> {
        let n = node as usize;
        match (self.first_edge.get(n), self.first_edge.get(n + 1)) {
            (Some(&a), Some(&b)) => a as usize..b as usize,
            _ => 0..0,
        }
    }

    /// The way of an edge and whether the edge runs against it.
    #[must_use]
    pub fn edge_way(&self, edge: usize) -> (usize, bool) {
        let raw = self.edge_way[edge];
        ((raw & !REVERSED) as usize, raw & REVERSED != 0)
    }

    /// Length of an edge in metres.
    #[must_use]
    pub fn edge_length_m(&self, edge: usize) -> f64 {
        f64::from(self.way_length_m[self.edge_way(edge).0])
    }

    /// Cells crossed by a way with the metres inside each, in way order.
    pub fn way_cells(&self, way: usize) -> impl Iterator<Item = (u32, f32)> + '_ {
        let range = self.way_cells_start[way] as usize..self.way_cells_start[way + 1] as usize;
        self.way_cells[range.clone()]
            .iter()
            .copied()
            .zip(self.way_cell_m[range].iter().copied())
    }

    /// The grid cell a way belongs to for the street-level layer: the one it has the
    /// most metres in, the first crossed on a tie; `None` for a way of no length or
    /// with no metres inside the `cells` grid cells.
    ///
    /// # Panics
    /// If `way` is not a way of the graph.
    #[must_use]
    pub fn home_cell(&self, way: usize, cells: usize) -> Option<u32> {
        if self.way_length_m[way] <= 0.0 {
            return None;
        }
        let mut best: Option<(u32, f32)> = None;
        for (cell, metres) in self.way_cells(way) {
            // A strict `>` keeps the first of equal cells.
            let inside = cell != OUTSIDE_GRID && (cell as usize) < cells;
            if inside && metres > 0.0 && best.is_none_or(|(_, most)| metres > most) {
                best = Some((cell, metres));
            }
        }
        best.map(|(cell, _)| cell)
    }

    /// A node's position.
    #[must_use]
    pub fn node(&self, node: u32) -> MicroDegrees {
        self.nodes[node as usize]
    }

    /// The interior points of a way, from its start to its end (the ends are nodes).
    #[must_use]
    pub fn way_interior(&self, way: usize) -> &[MicroDegrees] {
        &self.way_points
            [self.way_points_start[way] as usize..self.way_points_start[way + 1] as usize]
    }

    /// The start and end node of every way, found in one pass over the edges (the
    /// graph stores each way's direction on its edges, not its ends).
    #[must_use]
    pub fn way_ends(&self) -> Vec<[u32; 2]> {
        let mut ends = alloc::vec![[0_u32; 2]; self.way_count()];
        for node in 0..self.node_count() as u32 {
            for e in self.out_edges(node) {
                let (way, reversed) = self.edge_way(e);
                let target = self.edge_target[e];
                ends[way] = if reversed {
                    [target, node]
                } else {
                    [node, target]
                };
            }
        }
        ends
    }

    /// A way's stored points, start node to end node (`ends` from [`Self::way_ends`]).
    pub fn way_points(
        &self,
        way: usize,
        ends: [u32; 2],
    ) -> impl Iterator<Item = MicroDegrees> + '_ {
        core::iter::once(self.node(ends[0]))
            .chain(self.way_interior(way).iter().copied())
            .chain(core::iter::once(self.node(ends[1])))
    }

    /// A way's whole polyline, start node to end node (`ends` from [`Self::way_ends`]).
    #[must_use]
    pub fn way_polyline(&self, way: usize, ends: [u32; 2]) -> Vec<LatLng> {
        self.way_points(way, ends)
            .map(MicroDegrees::to_lat_lng)
            .collect()
    }
}

#[cfg(test)]
mod tests;
