//! A network over the H3 cells themselves, for cities without road data and for
//! routes that do not follow roads.

use alloc::collections::BTreeMap;
use alloc::vec::Vec;

use h3o::{CellIndex, LatLng};

use super::{NetworkKind, OUTSIDE_GRID, REVERSED, RoadGraph};
use crate::grid::{self, MicroDegrees};

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
    crate::sorting::sort(&mut cells);
    cells.dedup();
    let nodes: Vec<MicroDegrees> = cells
        .iter()
        .map(|&c| MicroDegrees::from(LatLng::from(c)))
        .collect();
    // Ways are measured between the stored centres, as their lines are drawn, so
    // that a route's line has exactly its ways' lengths.
    let centres: Vec<LatLng> = nodes.iter().map(|p| p.to_lat_lng()).collect();
    let mut graph = RoadGraph {
        kind: NetworkKind::HexLattice,
        source: source.into(),
        nodes,
        first_edge: Vec::with_capacity(cells.len() + 1),
        edge_target: Vec::new(),
        edge_way: Vec::new(),
        way_length_m: Vec::new(),
        way_points_start: Vec::from([0]),
        way_points: Vec::new(),
        way_cells_start: Vec::from([0]),
        way_cells: Vec::new(),
        way_cell_m: Vec::new(),
        contraction_order: Vec::new(),
        // The lattice's ways are no streets: no names.
        names: Vec::new(),
        way_name: Vec::new(),
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
            for (crossed, metres) in grid::cells_crossed(&[from, to], grid::RESOLUTION) {
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
mod tests;
