//! Roads: the configured road file of a city read into road lines (shapefiles or
//! OpenStreetMap), joined into a network, pruned to what can be routed and packed
//! into the engine's road graph over the city grid, its nodes numbered for locality.

pub mod assembly;
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

/// A city's roads as the build reads them.
#[derive(Debug)]
pub struct CityRoads {
    /// The road graph over the city's grid.
    pub graph: RoadGraph,
    /// What was left out of it.
    pub pruned: Pruned,
    /// The road file's named points of interest (an OpenStreetMap file's,
    /// [`osm::OsmData::points_of_interest`]; the other sources have none).
    pub points: Vec<osm::PointOfInterest>,
}

/// Reads a city's configured roads once and builds its graph over the grid `cells`,
/// keeping the largest strongly connected component.
///
/// # Errors
/// [`RoadError`] when the road file cannot be read or holds no routable road.
pub fn city_roads(
    config: &RoadsConfig,
    data_dir: &Path,
    cells: &[h3o::CellIndex],
) -> Result<CityRoads, RoadError> {
    let path = data_dir.join(&config.file);
    let osm_lines = |osm: osm::OsmData| (osm.road_lines(), true, osm.points_of_interest());
    let (lines, split, points) = match config.format {
        RoadFormat::TorontoHere => (shapefiles::read_toronto_streets(&path)?, false, Vec::new()),
        RoadFormat::Tiger => (shapefiles::read_tiger_roads(&path)?, true, Vec::new()),
        RoadFormat::OsmPbf => osm_lines(osm::read_pbf(&path)?),
        RoadFormat::OsmXml => osm_lines(osm::read_xml(&path)?),
    };
    let (strong, pruned) =
        network::largest_strong_component(&network::build_network(&lines, split));
    // A file of the wrong area or without highway ways would give a city no route.
    if strong.edges.is_empty() {
        return Err(RoadError::NoRoads { path });
    }
    let (contracted, merged) = network::contract_chains(&strong);
    Ok(CityRoads {
        graph: network::to_graph(&contracted, cells, &config.source),
        pruned: Pruned { merged, ..pruned },
        points,
    })
}
