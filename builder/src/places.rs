//! The place index of a city's artifact: its street names (the road graph's name
//! table), its precincts and, where the configuration names them, its
//! neighbourhoods, each area placed at an interior point of its outline; and the
//! named points of interest of an OpenStreetMap road file near its network.

use std::path::Path;

use geo::InteriorPoint;
use hexrisk_engine::grid::MicroDegrees;
use hexrisk_engine::places::{NamedPlace, PlaceIndex, StoredKind};
use hexrisk_engine::roads::RoadGraph;

use crate::inputs::boundary::{BoundaryError, CityGrid, Precinct, read_precincts};
use crate::inputs::config::CityConfig;
use crate::roads::osm::PointOfInterest;

/// Why a place index cannot be built.
#[derive(Debug, thiserror::Error)]
pub enum PlacesError {
    /// The neighbourhood file failed.
    #[error("neighbourhoods: {0}")]
    Neighbourhoods(#[from] BoundaryError),
    /// The index does not fit its format.
    #[error(transparent)]
    Index(#[from] hexrisk_engine::places::index::PlaceIndexError),
}

/// A name with a trailing number in brackets dropped ("Wychwood (94)" is "Wychwood").
fn without_number(name: &str) -> &str {
    let trimmed = name.trim();
    match trimmed.rsplit_once(" (") {
        Some((base, tail))
            if tail.ends_with(')')
                && tail[..tail.len() - 1].chars().all(|c| c.is_ascii_digit()) =>
        {
            base.trim_end()
        }
        _ => trimmed,
    }
}

fn named_area(kind: StoredKind, name: &str, area: &Precinct) -> Option<NamedPlace> {
    let point = area.outline.interior_point()?;
    let name = without_number(name);
    (!name.is_empty()).then(|| NamedPlace {
        kind,
        name: name.to_owned(),
        point: MicroDegrees::from_degrees(point.y(), point.x()),
    })
}

/// How far beyond its network's nodes a point of interest may lie, in degrees.
const POINT_MARGIN_DEG: f64 = 0.01;

/// The points within [`POINT_MARGIN_DEG`] of the box of the network's nodes.
fn points_near(graph: &RoadGraph, points: Vec<PointOfInterest>) -> Vec<NamedPlace> {
    let (mut south, mut west, mut north, mut east) = (90.0f64, 180.0f64, -90.0f64, -180.0f64);
    for node in &graph.nodes {
        (south, north) = (south.min(node.lat()), north.max(node.lat()));
        (west, east) = (west.min(node.lng()), east.max(node.lng()));
    }
    points
        .into_iter()
        .filter(|p| {
            let (lat, lng) = p.position;
            (south - POINT_MARGIN_DEG..=north + POINT_MARGIN_DEG).contains(&lat)
                && (west - POINT_MARGIN_DEG..=east + POINT_MARGIN_DEG).contains(&lng)
        })
        .map(|p| NamedPlace {
            kind: StoredKind::PointOfInterest,
            name: p.name,
            point: MicroDegrees::from_degrees(p.position.0, p.position.1),
        })
        .collect()
}

/// The city's place index, with its road file's `points` of interest near the
/// network: `None` when it has no name to search.
///
/// # Errors
/// [`PlacesError`] for an unreadable neighbourhood file or an index too large.
pub fn place_index(
    city: &CityConfig,
    data_dir: &Path,
    grid: &CityGrid,
    graph: Option<&RoadGraph>,
    points: Vec<PointOfInterest>,
) -> Result<Option<PlaceIndex>, PlacesError> {
    let mut places: Vec<NamedPlace> = grid
        .precincts
        .iter()
        .filter_map(|p| named_area(StoredKind::Precinct, &p.name, p))
        .collect();
    if let Some(file) = city.places.as_ref().and_then(|p| p.neighbourhoods.as_ref()) {
        let areas = read_precincts(&data_dir.join(&file.file), &file.name, &file.name)?;
        places.extend(
            areas
                .iter()
                .filter_map(|a| named_area(StoredKind::Neighbourhood, &a.name, a)),
        );
    }
    if let Some(graph) = graph {
        places.extend(points_near(graph, points));
    }
    let names = graph.map_or(&[][..], |g| &g.names[..]);
    if names.is_empty() && places.is_empty() {
        return Ok(None);
    }
    Ok(Some(PlaceIndex::build(names, places)?))
}

#[cfg(test)]
mod tests;
