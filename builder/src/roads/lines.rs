//! Road polylines as every road reader produces them (the shapefile readers in
//! [`super::shapefiles`], the OpenStreetMap readers in [`super::osm`]): points, travel
//! direction and name, and the error of a road file that cannot be read. Both readers
//! import this module and neither imports the other's types.

use std::path::PathBuf;

/// Which way traffic may use a polyline, relative to its point order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Both ways.
    Both,
    /// From the first point to the last only.
    Forward,
    /// From the last point to the first only.
    Backward,
}

/// One road polyline.
#[derive(Debug, Clone, PartialEq)]
pub struct RoadLine {
    /// Points as `(latitude, longitude)`.
    pub points: Vec<(f64, f64)>,
    /// Travel direction.
    pub direction: Direction,
    /// Street name as the source spells it, trimmed (empty for none).
    pub name: String,
}

/// A road file that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum RoadError {
    /// Opening or unpacking failed.
    #[error("cannot read {path}: {reason}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What failed.
        reason: String,
    },
    /// The file holds no routable road near enough to form a network.
    #[error("{path}: no routable roads (a network needs at least one road usable both ways)")]
    NoRoads {
        /// The file.
        path: PathBuf,
    },
}
