//! City boundaries and grids: the res-8 cells whose centres lie inside the city, and
//! the police precinct each cell belongs to.
//!
//! - Toronto and San Francisco: the union of the police boundary polygons.
//! - Houston, with no published polygons here: a concave hull around the centres of
//!   the cells holding at least [`DERIVED_MIN_INCIDENTS`] cleaned incidents.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use geo::{ConcaveHull, Contains, MultiPoint, MultiPolygon, Point, Polygon};
use h3o::geom::{ContainmentMode, TilerBuilder};
use h3o::{CellIndex, LatLng};
use hexrisk_engine::grid::RESOLUTION;

/// Cells need this many cleaned incidents to anchor Houston's derived boundary.
pub const DERIVED_MIN_INCIDENTS: u32 = 3;

/// A police precinct: id, display name and outline.
#[derive(Debug, Clone, PartialEq)]
pub struct Precinct {
    /// Id such as `D11` or `TENDERLOIN`.
    pub id: String,
    /// Display name.
    pub name: String,
    /// Outline, WGS84 (x = longitude, y = latitude).
    pub outline: MultiPolygon<f64>,
}

/// The grid of one city.
#[derive(Debug, Clone, PartialEq)]
pub struct CityGrid {
    /// Cells, sorted by index.
    pub cells: Vec<CellIndex>,
    /// For each cell, the index in `precincts` of the precinct holding its centre.
    pub precinct_of: Vec<Option<u16>>,
    /// Precincts, sorted by id (empty for a derived boundary).
    pub precincts: Vec<Precinct>,
    /// The city outline used to select cells.
    pub outline: MultiPolygon<f64>,
}

impl CityGrid {
    /// Position of a cell in `cells`, if the cell is in the grid.
    #[must_use]
    pub fn position(&self, cell: CellIndex) -> Option<usize> {
        self.cells.binary_search(&cell).ok()
    }
}

/// A boundary that cannot be built.
#[derive(Debug, thiserror::Error)]
pub enum BoundaryError {
    /// Reading failed.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// Not GeoJSON, or not polygons.
    #[error("{path}: {message}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// h3o refused a polygon.
    #[error("polygon cannot be tiled: {0}")]
    Tiling(String),
    /// Too few points to derive a boundary.
    #[error("too few incidents to derive a boundary")]
    TooFewPoints,
    /// The outline holds no cell centre, so the city would have no grid.
    #[error(
        "the boundary holds no H3 resolution-8 cell centre (cells are about 0.74 km2): draw it larger"
    )]
    NoCells,
}

fn property(feature: &geojson::Feature, name: &str) -> Option<String> {
    match feature.property(name)? {
        serde_json::Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

/// Reads precinct polygons from a GeoJSON FeatureCollection.
///
/// # Errors
/// [`BoundaryError`] when the file is unreadable or holds no usable polygons.
pub fn read_precincts(
    path: &Path,
    id_property: &str,
    name_property: &str,
) -> Result<Vec<Precinct>, BoundaryError> {
    let invalid = |message: String| BoundaryError::Invalid {
        path: path.to_owned(),
        message,
    };
    let text = std::fs::read_to_string(path).map_err(|source| BoundaryError::Io {
        path: path.to_owned(),
        source,
    })?;
    let collection: geojson::FeatureCollection = text
        .parse()
        .map_err(|e: geojson::Error| invalid(e.to_string()))?;
    let mut precincts = Vec::new();
    for feature in &collection.features {
        let id = property(feature, id_property)
            .ok_or_else(|| invalid(format!("a feature has no {id_property}")))?;
        let name = property(feature, name_property).unwrap_or_else(|| id.clone());
        let geometry = feature
            .geometry
            .clone()
            .ok_or_else(|| invalid(format!("{id} has no geometry")))?;
        let outline =
            match geo::Geometry::<f64>::try_from(geometry).map_err(|e| invalid(e.to_string()))? {
                geo::Geometry::Polygon(p) => MultiPolygon(vec![p]),
                geo::Geometry::MultiPolygon(mp) => mp,
                _ => return Err(invalid(format!("{id} is not a polygon"))),
            };
        precincts.push(Precinct { id, name, outline });
    }
    if precincts.is_empty() {
        return Err(invalid("no features".into()));
    }
    precincts.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(precincts)
}

fn tile(outline: &MultiPolygon<f64>) -> Result<Vec<CellIndex>, BoundaryError> {
    let mut tiler = TilerBuilder::new(RESOLUTION)
        .containment_mode(ContainmentMode::ContainsCentroid)
        .build();
    for polygon in outline {
        tiler
            .add(polygon.clone())
            .map_err(|e| BoundaryError::Tiling(e.to_string()))?;
    }
    let cells: BTreeSet<CellIndex> = tiler.into_coverage().collect();
    // An empty grid would fail later, far from its cause (no cell to backtest).
    if cells.is_empty() {
        return Err(BoundaryError::NoCells);
    }
    Ok(cells.into_iter().collect())
}

fn centre_point(cell: CellIndex) -> Point<f64> {
    let centre = LatLng::from(cell);
    Point::new(centre.lng(), centre.lat())
}

/// The grid inside the union of precinct polygons, each cell tagged with its precinct.
///
/// # Errors
/// [`BoundaryError::Tiling`] when a polygon is invalid for h3o,
/// [`BoundaryError::NoCells`] when it holds no cell centre.
pub fn grid_from_precincts(precincts: Vec<Precinct>) -> Result<CityGrid, BoundaryError> {
    let outline = MultiPolygon(
        precincts
            .iter()
            .flat_map(|p| p.outline.0.iter().cloned())
            .collect(),
    );
    let cells = tile(&outline)?;
    let precinct_of = cells
        .iter()
        .map(|&cell| {
            let centre = centre_point(cell);
            precincts
                .iter()
                .position(|p| p.outline.contains(&centre))
                .and_then(|i| u16::try_from(i).ok())
        })
        .collect();
    Ok(CityGrid {
        cells,
        precinct_of,
        precincts,
        outline,
    })
}

/// The grid inside a concave hull around the busy cells of cleaned incidents.
///
/// # Errors
/// [`BoundaryError::TooFewPoints`] with fewer than three anchoring cells.
/// [`BoundaryError::NoCells`] when their hull holds no cell centre.
pub fn grid_from_incidents(
    points: impl IntoIterator<Item = (f64, f64)>,
) -> Result<CityGrid, BoundaryError> {
    let mut counts = std::collections::BTreeMap::<CellIndex, u32>::new();
    for (lat, lng) in points {
        if let Ok(cell) = hexrisk_engine::grid::cell_at(lat, lng) {
            *counts.entry(cell).or_default() += 1;
        }
    }
    let anchors: Vec<Point<f64>> = counts
        .iter()
        .filter(|&(_, &n)| n >= DERIVED_MIN_INCIDENTS)
        .map(|(&cell, _)| centre_point(cell))
        .collect();
    if anchors.len() < 3 {
        return Err(BoundaryError::TooFewPoints);
    }
    let hull: Polygon<f64> = MultiPoint(anchors).concave_hull();
    let outline = MultiPolygon(vec![hull]);
    let cells = tile(&outline)?;
    let precinct_of = vec![None; cells.len()];
    Ok(CityGrid {
        cells,
        precinct_of,
        precincts: Vec::new(),
        outline,
    })
}

#[cfg(test)]
mod tests;
