//! The road graph stored in a city artifact: a compressed-sparse-row directed graph
//! whose edges run along undirected *ways* that carry the geometry, the length and the
//! grid cells crossed, so both directions of a street share one copy of them.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

use h3o::{CellIndex, LatLng};

use serde::{Deserialize, Serialize};

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

/// A road graph in compact arrays. Positions are micro-degrees `[lng, lat]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoadGraph {
    /// Where the network came from.
    pub kind: NetworkKind,
    /// Source description, for example `City of Toronto streets (HERE)`.
    pub source: String,
    /// Node positions.
    pub nodes: Vec<[i32; 2]>,
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
    pub way_points: Vec<[i32; 2]>,
    /// Offsets into `way_cells` (`ways + 1` entries).
    pub way_cells_start: Vec<u32>,
    /// Cells crossed, as grid positions ([`OUTSIDE_GRID`] outside), in way order.
    pub way_cells: Vec<u32>,
    /// Metres of the way inside each crossed cell, parallel to `way_cells`.
    pub way_cell_m: Vec<f32>,
}

/// Why a graph is unusable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("road graph is inconsistent: {0}")]
pub struct GraphError(pub &'static str);

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
        if self
            .way_length_m
            .iter()
            .chain(&self.way_cell_m)
            .any(|m| !m.is_finite() || *m < 0.0)
        {
            return Err(GraphError("negative or non-finite length"));
        }
        Ok(())
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

    /// The full geometry of an edge, from its source node to its target node, as
    /// `[lng, lat]` micro-degrees.
    #[must_use]
    pub fn edge_geometry(&self, source: u32, edge: usize) -> Vec<[i32; 2]> {
        let (way, reversed) = self.edge_way(edge);
        let interior = &self.way_points
            [self.way_points_start[way] as usize..self.way_points_start[way + 1] as usize];
        let mut points = Vec::with_capacity(interior.len() + 2);
        points.push(self.nodes[source as usize]);
        if reversed {
            points.extend(interior.iter().rev());
        } else {
            points.extend(interior.iter());
        }
        points.push(self.nodes[self.edge_target[edge] as usize]);
        points
    }
}

fn micro_degrees(point: LatLng) -> [i32; 2] {
    [
        libm::round(point.lng() * 1e6) as i32,
        libm::round(point.lat() * 1e6) as i32,
    ]
}

/// A network over H3 cells themselves, for cities without road data and for routes
/// that do not follow roads: a node at each cell centre and a straight way, usable
/// in both directions, between every two cells that share an edge.
///
/// `lattice` are the cells to route over (any resolution, duplicates ignored);
/// `grid` is the city's sorted resolution-8 grid, against which the crossed cells of
/// each way are recorded.
#[must_use]
pub fn hex_lattice(lattice: &[CellIndex], grid: &[u64], source: &str) -> RoadGraph {
    let mut cells = lattice.to_vec();
    cells.sort_unstable();
    cells.dedup();
    let centres: Vec<LatLng> = cells.iter().map(|&c| LatLng::from(c)).collect();
    let mut graph = RoadGraph {
        kind: NetworkKind::HexLattice,
        source: source.into(),
        nodes: centres.iter().map(|&c| micro_degrees(c)).collect(),
        first_edge: Vec::with_capacity(cells.len() + 1),
        edge_target: Vec::new(),
        edge_way: Vec::new(),
        way_length_m: Vec::new(),
        way_points_start: Vec::from([0]),
        way_points: Vec::new(),
        way_cells_start: Vec::from([0]),
        way_cells: Vec::new(),
        way_cell_m: Vec::new(),
    };
    let mut ways: BTreeMap<(u32, u32), u32> = BTreeMap::new();
    for (i, &cell) in cells.iter().enumerate() {
        graph.first_edge.push(graph.edge_target.len() as u32);
        let mut neighbours: Vec<u32> = cell
            .grid_disk::<Vec<_>>(1)
            .into_iter()
            .filter_map(|n| cells.binary_search(&n).ok())
            .filter(|&j| j != i)
            .map(|j| j as u32)
            .collect();
        neighbours.sort_unstable();
        let i = i as u32;
        for j in neighbours {
            graph.edge_target.push(j);
            if let Some(&way) = ways.get(&(j, i)) {
                graph.edge_way.push(way | REVERSED);
                continue;
            }
            let way = graph.way_length_m.len() as u32;
            ways.insert((i, j), way);
            graph.edge_way.push(way);
            let (from, to) = (centres[i as usize], centres[j as usize]);
            graph.way_length_m.push(from.distance_m(to) as f32);
            graph.way_points_start.push(graph.way_points.len() as u32);
            for (crossed, metres) in
                crate::grid::cells_crossed(&[from, to], crate::grid::RESOLUTION)
            {
                let position = grid
                    .binary_search(&u64::from(crossed))
                    .map_or(OUTSIDE_GRID, |p| p as u32);
                graph.way_cells.push(position);
                graph.way_cell_m.push(metres as f32);
            }
            graph.way_cells_start.push(graph.way_cells.len() as u32);
        }
    }
    graph.first_edge.push(graph.edge_target.len() as u32);
    graph
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use alloc::vec;

    /// Two nodes joined by one way with an interior point, both directions.
    pub(crate) fn tiny() -> RoadGraph {
        RoadGraph {
            kind: NetworkKind::Roads,
            source: "test".into(),
            nodes: vec![[-79_380_000, 43_650_000], [-79_370_000, 43_650_000]],
            first_edge: vec![0, 1, 2],
            edge_target: vec![1, 0],
            edge_way: vec![0, REVERSED],
            way_length_m: vec![805.0],
            way_points_start: vec![0, 1],
            way_points: vec![[-79_375_000, 43_651_000]],
            way_cells_start: vec![0, 2],
            way_cells: vec![0, OUTSIDE_GRID],
            way_cell_m: vec![500.0, 305.0],
        }
    }

    #[test]
    fn edges_share_their_way_in_both_directions() {
        let graph = tiny();
        assert_eq!(graph.validate(1), Ok(()));
        assert_eq!(graph.out_edges(0), 0..1);
        assert_eq!(graph.out_edges(7), 0..0);
        assert_eq!(graph.edge_way(1), (0, true));
        assert_eq!(graph.edge_length_m(1), 805.0);
        let forward = graph.edge_geometry(0, 0);
        let mut backward = graph.edge_geometry(1, 1);
        backward.reverse();
        assert_eq!(forward, backward);
        assert_eq!(forward.len(), 3);
        assert_eq!(
            graph.way_cells(0).collect::<Vec<_>>(),
            [(0, 500.0), (OUTSIDE_GRID, 305.0)]
        );
    }

    #[test]
    fn a_lattice_joins_neighbouring_cells_both_ways() {
        let centre = crate::grid::cell_at(29.7604, -95.3698).unwrap();
        let disk = crate::grid::disk(centre, 1).unwrap();
        let mut grid: Vec<u64> = disk.iter().map(|&c| u64::from(c)).collect();
        grid.sort_unstable();
        let graph = hex_lattice(&disk, &grid, "test lattice");
        assert_eq!(graph.validate(grid.len()), Ok(()));
        assert_eq!(graph.kind, NetworkKind::HexLattice);
        assert_eq!(graph.node_count(), 7);
        // The centre touches six cells; each outer cell its two outer neighbours and
        // the centre: 6 + 6 x 3 = 24 directed edges over 12 ways.
        assert_eq!(graph.edge_count(), 24);
        assert_eq!(graph.way_count(), 12);
        for way in 0..graph.way_count() {
            let crossed: Vec<_> = graph.way_cells(way).collect();
            assert_eq!(crossed.len(), 2, "centre to centre crosses two cells");
            let metres: f32 = crossed.iter().map(|(_, m)| m).sum();
            assert!((metres - graph.way_length_m[way]).abs() < 0.01);
        }
    }

    #[test]
    fn validation_catches_every_bad_index() {
        let mut g = tiny();
        g.edge_target[0] = 5;
        assert!(g.validate(1).is_err());
        let mut g = tiny();
        g.first_edge = vec![0, 2, 1];
        assert!(g.validate(1).is_err());
        let mut g = tiny();
        g.edge_way[0] = 3;
        assert!(g.validate(1).is_err());
        let mut g = tiny();
        g.way_cells[0] = 9;
        assert!(g.validate(1).is_err());
        let mut g = tiny();
        g.way_length_m[0] = f32::NAN;
        assert!(g.validate(1).is_err());
        let mut g = tiny();
        g.way_points_start = vec![0, 2];
        assert!(g.validate(1).is_err());
    }
}
