//! The H3 grid and geometry on it: coordinates to resolution-8 cells, rings of cells
//! around a cell, the cells a line crosses, the outline of a set of cells, and the
//! stored form of a position.
//!
//! Coordinates are validated before they reach h3o: a latitude outside -90..=90, a
//! longitude outside -180..=180 or a non-finite value is a [`CoordinateError`], never
//! a wrapped or panicking conversion.

use alloc::vec::Vec;
use core::str::FromStr;

use h3o::{CellIndex, LatLng, Resolution};

mod crossing;
mod outline;
mod point;

pub use crossing::{cells_crossed, cells_crossed_measured};
pub use outline::{Polygon, outline};
pub use point::MicroDegrees;

/// H3 resolution of every hexrisk grid (cells of about 0.74 km²).
pub const RESOLUTION: Resolution = Resolution::Eight;

/// Largest ring distance served: k = 41 gives 5167 cells.
pub const MAX_RING_DISTANCE: u32 = 41;

/// Which coordinate field an error is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CoordinateField {
    /// The latitude.
    Latitude,
    /// The longitude.
    Longitude,
}

impl CoordinateField {
    /// The field name as the APIs spell it.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Latitude => "latitude",
            Self::Longitude => "longitude",
        }
    }

    /// The inclusive valid range in degrees.
    #[must_use]
    pub const fn valid_range(self) -> [f64; 2] {
        match self {
            Self::Latitude => [-90.0, 90.0],
            Self::Longitude => [-180.0, 180.0],
        }
    }
}

/// A latitude/longitude pair that cannot be placed on the grid.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
pub enum CoordinateError {
    /// The value is NaN or infinite.
    #[error("{} must be a finite number", .0.name())]
    NotFinite(CoordinateField),
    /// Latitude outside -90..=90.
    #[error("latitude must be between -90 and 90")]
    LatitudeOutOfRange(f64),
    /// Longitude outside -180..=180.
    #[error("longitude must be between -180 and 180")]
    LongitudeOutOfRange(f64),
}

impl CoordinateError {
    /// The field at fault.
    #[must_use]
    pub const fn field(&self) -> CoordinateField {
        match self {
            Self::NotFinite(field) => *field,
            Self::LatitudeOutOfRange(_) => CoordinateField::Latitude,
            Self::LongitudeOutOfRange(_) => CoordinateField::Longitude,
        }
    }
}

/// A ring request that cannot be served.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RingError {
    /// The text is not an H3 cell index.
    #[error("not a valid H3 cell index")]
    InvalidCell,
    /// The cell is valid but not at resolution 8.
    #[error("cell resolution must be 8, got {0}")]
    WrongResolution(u8),
    /// The ring distance exceeds [`MAX_RING_DISTANCE`].
    #[error("ring distance must be between 0 and {max}, got {0}", max = MAX_RING_DISTANCE)]
    DistanceTooLarge(u32),
}

/// Validates a coordinate pair and converts it for h3o.
///
/// # Errors
/// [`CoordinateError`] for a non-finite or out-of-range value (latitude first).
pub fn validate(latitude: f64, longitude: f64) -> Result<LatLng, CoordinateError> {
    if !latitude.is_finite() {
        return Err(CoordinateError::NotFinite(CoordinateField::Latitude));
    }
    if !(-90.0..=90.0).contains(&latitude) {
        return Err(CoordinateError::LatitudeOutOfRange(latitude));
    }
    if !longitude.is_finite() {
        return Err(CoordinateError::NotFinite(CoordinateField::Longitude));
    }
    if !(-180.0..=180.0).contains(&longitude) {
        return Err(CoordinateError::LongitudeOutOfRange(longitude));
    }
    // Both values are finite and in range, which is all h3o checks.
    LatLng::new(latitude, longitude)
        .map_err(|_| CoordinateError::NotFinite(CoordinateField::Latitude))
}

/// The resolution-8 cell containing a point.
///
/// # Errors
/// [`CoordinateError`] when the coordinates are invalid.
///
/// ```
/// let cell = hexrisk_engine::grid::cell_at(37.7749, -122.4194).unwrap();
/// assert_eq!(cell.to_string(), "8828308281fffff");
/// ```
pub fn cell_at(latitude: f64, longitude: f64) -> Result<CellIndex, CoordinateError> {
    Ok(validate(latitude, longitude)?.to_cell(RESOLUTION))
}

/// The centre of a cell as `(latitude, longitude)` in degrees.
#[must_use]
pub fn cell_centre(cell: CellIndex) -> (f64, f64) {
    let centre = LatLng::from(cell);
    (centre.lat(), centre.lng())
}

/// The corners of a cell's boundary as `(latitude, longitude)` pairs, in order.
#[must_use]
pub fn cell_boundary(cell: CellIndex) -> Vec<(f64, f64)> {
    cell.boundary().iter().map(|v| (v.lat(), v.lng())).collect()
}

/// Parses a resolution-8 cell index from its hexadecimal string form.
///
/// # Errors
/// [`RingError::InvalidCell`] for text that is not a cell index,
/// [`RingError::WrongResolution`] for a cell of another resolution.
pub fn parse_cell(text: &str) -> Result<CellIndex, RingError> {
    let cell = CellIndex::from_str(text).map_err(|_| RingError::InvalidCell)?;
    if cell.resolution() == RESOLUTION {
        Ok(cell)
    } else {
        Err(RingError::WrongResolution(u8::from(cell.resolution())))
    }
}

/// Great-circle distance between two points in metres.
#[must_use]
pub fn distance_m(from: LatLng, to: LatLng) -> f64 {
    from.distance_m(to)
}

/// Number of cells within grid distance `k` of a hexagon: `3k² + 3k + 1`.
#[must_use]
pub const fn disk_size(k: u32) -> usize {
    let k = k as usize;
    3 * k * k + 3 * k + 1
}

/// Every cell within grid distance `k` of `cell`, the cell itself first.
///
/// Near a pentagon the disk has fewer cells than [`disk_size`].
///
/// # Errors
/// [`RingError::DistanceTooLarge`] when `k` exceeds [`MAX_RING_DISTANCE`].
pub fn disk(cell: CellIndex, k: u32) -> Result<Vec<CellIndex>, RingError> {
    if k > MAX_RING_DISTANCE {
        return Err(RingError::DistanceTooLarge(k));
    }
    Ok(cell.grid_disk::<Vec<_>>(k))
}

#[cfg(test)]
mod tests;
