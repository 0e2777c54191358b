//! Roads: the configured road file of a city read into road lines (shapefiles or
//! OpenStreetMap), joined into a network, pruned to what can be routed and packed
//! into the engine's road graph over the city grid, its nodes numbered for locality.

pub mod lines;
pub mod locality;
pub mod network;
pub mod osm;
pub mod shapefiles;

use std::path::Path;

use hexrisk_engine::roads::RoadGraph;

use crate::inputs::config::{RoadFormat, RoadsConfig};
use lines::RoadError;
use network::Pruned;

/// The named points of interest of a city's road file: an OpenStreetMap file's
/// ([`osm::OsmData::points_of_interest`]); the other sources have none.
///
/// # Errors
/// [`RoadError`] when the file cannot be read.
pub fn points_of_interest(
    config: &RoadsConfig,
    data_dir: &Path,
) -> Result<Vec<osm::PointOfInterest>, RoadError> {
    let path = data_dir.join(&config.file);
    Ok(match config.format {
        RoadFormat::TorontoHere | RoadFormat::Tiger => Vec::new(),
        RoadFormat::OsmPbf => osm::read_pbf(&path)?.points_of_interest(),
        RoadFormat::OsmXml => osm::read_xml(&path)?.points_of_interest(),
    })
}

/// Reads a city's configured roads and builds its graph over the grid `cells`,
/// keeping the largest strongly connected component.
///
/// # Errors
/// [`RoadError`] when the road file cannot be read or holds no routable road.
pub fn city_graph(
    config: &RoadsConfig,
    data_dir: &Path,
    cells: &[h3o::CellIndex],
) -> Result<(RoadGraph, Pruned), RoadError> {
    let path = data_dir.join(&config.file);
    let (lines, split) = match config.format {
        RoadFormat::TorontoHere => (shapefiles::read_toronto_streets(&path)?, false),
        RoadFormat::Tiger => (shapefiles::read_tiger_roads(&path)?, true),
        RoadFormat::OsmPbf => (osm::read_pbf(&path)?.road_lines(), true),
        RoadFormat::OsmXml => (osm::read_xml(&path)?.road_lines(), true),
    };
    let (strong, pruned) =
        network::largest_strong_component(&network::build_network(&lines, split));
    // A file of the wrong area or without highway ways would give a city no route.
    if strong.edges.is_empty() {
        return Err(RoadError::NoRoads { path });
    }
    let (contracted, merged) = network::contract_chains(&strong);
    Ok((
        network::to_graph(&contracted, cells, &config.source),
        Pruned { merged, ..pruned },
    ))
}
