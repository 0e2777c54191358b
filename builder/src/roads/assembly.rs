//! A city's routable network as the artifact carries it: its road file's graph
//! numbered in contraction order, or without road data a resolution-9 hex lattice
//! over its grid, each with its contraction order computed once here.

use std::path::Path;

use hexrisk_engine::roads::RoadGraph;
use indicatif::ProgressBar;

use super::lines::RoadError;
use super::osm::PointOfInterest;
use crate::inputs::config::CityConfig;

/// Resolution of the lattice routed over where a city has no road data: resolution-9
/// cells (centres about 350 m apart), seven per grid cell.
pub const LATTICE_RESOLUTION: h3o::Resolution = h3o::Resolution::Nine;

/// The lattice over the children of the grid `cells` (sorted).
fn hex_lattice(cells: &[h3o::CellIndex]) -> RoadGraph {
    let children: Vec<h3o::CellIndex> = cells
        .iter()
        .flat_map(|c| c.children(LATTICE_RESOLUTION))
        .collect();
    let grid: Vec<u64> = cells.iter().map(|&c| u64::from(c)).collect();
    hexrisk_engine::roads::hex_lattice(
        &children,
        &grid,
        "H3 resolution-9 lattice (no road data for this city)",
    )
}

/// The city's road graph (or, without road data, a hex lattice), with a line on
/// what was pruned, and its road file's points of interest.
///
/// # Errors
/// [`RoadError`] when its road file cannot be read.
pub fn road_graph(
    city: &CityConfig,
    data_dir: &Path,
    cells: &[h3o::CellIndex],
    progress: &ProgressBar,
) -> Result<(Option<RoadGraph>, Vec<PointOfInterest>), RoadError> {
    let Some(roads) = &city.roads else {
        progress.set_message(format!("{}: hex lattice", city.name));
        let graph = hex_lattice(cells);
        progress.suspend(|| {
            println!(
                "  roads: none; routing over the resolution-{} hex lattice: {} nodes, {} edges",
                u8::from(LATTICE_RESOLUTION),
                graph.node_count(),
                graph.edge_count()
            );
        });
        return Ok((Some(with_contraction_order(graph)), Vec::new()));
    };
    progress.set_message(format!("{}: road graph", city.name));
    let super::CityRoads {
        graph,
        pruned,
        points,
    } = super::city_roads(roads, data_dir, cells)?;
    let named = graph.way_name.iter().filter(|&&n| n != 0).count();
    progress.suspend(|| {
        println!(
            "  roads: {} nodes, {} edges, {} ways kept; dropped {} nodes and {} edges outside the largest strongly connected component; merged {} nodes that only continue a street; {named} ways ({:.1} %) named, {} distinct names",
            graph.node_count(),
            graph.edge_count(),
            graph.way_count(),
            pruned.nodes,
            pruned.edges,
            pruned.merged,
            100.0 * named as f64 / graph.way_count().max(1) as f64,
            graph.names.len()
        );
    });
    // Its nodes numbered in their contraction order (`crate::roads::locality`), so that what
    // a route reads through the hierarchy lies together in memory. (A hex lattice
    // keeps its numbering: it is routed by A* with landmarks, whose choice depends on
    // the numbering, and has no hierarchy to gain.)
    let graph = super::locality::in_contraction_order(&with_contraction_order(graph));
    Ok((Some(graph), points))
}

/// The graph with its contraction order for routing's hierarchy: it depends only on
/// the network, so it is computed here once rather than by every Worker and page
/// that loads the city.
fn with_contraction_order(mut graph: RoadGraph) -> RoadGraph {
    graph.contraction_order = hexrisk_engine::routing::cch::contraction_order(&graph);
    graph
}
