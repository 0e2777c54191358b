//! Tiles of the Web Mercator pyramid (the XYZ scheme of every web map: `z` from 0,
//! `x` east from 180° W, `y` south from about 85.05° N) and the projection of a
//! longitude and latitude into a tile's own units.

use core::f64::consts::PI;

/// Units across a tile: the MVT default extent.
pub const EXTENT: u32 = 4096;

/// The deepest zoom a tile may be asked for.
pub const MAX_ZOOM: u8 = 22;

/// Why a z/x/y names no tile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum TileError {
    /// The zoom is past [`MAX_ZOOM`].
    #[error("zoom {0} is past the deepest, {MAX_ZOOM}")]
    Zoom(u32),
    /// `x` or `y` is not below `2^z`.
    #[error("x and y must be below 2^z ({0} at this zoom)")]
    Outside(u64),
}

/// A tile of the pyramid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TileId {
    /// Zoom, 0 to [`MAX_ZOOM`].
    pub z: u8,
    /// Column, 0 to `2^z - 1`, west to east.
    pub x: u32,
    /// Row, 0 to `2^z - 1`, north to south.
    pub y: u32,
}

/// A point in a tile's units: `(0, 0)` its north-west corner, `(EXTENT, EXTENT)` its
/// south-east one; points beyond lie in the neighbouring tiles.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TilePoint {
    /// East.
    pub x: f64,
    /// South.
    pub y: f64,
}

impl TileId {
    /// The tile `z/x/y`, if it is in the pyramid.
    ///
    /// # Errors
    /// [`TileError`] for a zoom past [`MAX_ZOOM`] or a column or row out of it.
    pub fn new(z: u32, x: u64, y: u64) -> Result<Self, TileError> {
        let z8 = u8::try_from(z)
            .ok()
            .filter(|&z| z <= MAX_ZOOM)
            .ok_or(TileError::Zoom(z))?;
        let n = 1_u64 << z8;
        if x >= n || y >= n {
            return Err(TileError::Outside(n));
        }
        Ok(Self {
            z: z8,
            x: x as u32,
            y: y as u32,
        })
    }

    fn scale(self) -> f64 {
        f64::from(1_u32 << self.z) * f64::from(EXTENT)
    }

    /// `(longitude, latitude)` in degrees, in this tile's units.
    #[must_use]
    pub fn project(self, lng: f64, lat: f64) -> TilePoint {
        let scale = self.scale();
        let sin = libm::sin(lat.clamp(-85.051_128_78, 85.051_128_78) * PI / 180.0);
        let world_y = 0.5 - libm::log((1.0 + sin) / (1.0 - sin)) / (4.0 * PI);
        TilePoint {
            x: (lng + 180.0) / 360.0 * scale - f64::from(self.x) * f64::from(EXTENT),
            y: world_y * scale - f64::from(self.y) * f64::from(EXTENT),
        }
    }

    /// The longitude and latitude of a point in this tile's units.
    #[must_use]
    pub fn unproject(self, point: TilePoint) -> (f64, f64) {
        let scale = self.scale();
        let world_x = (point.x + f64::from(self.x) * f64::from(EXTENT)) / scale;
        let world_y = (point.y + f64::from(self.y) * f64::from(EXTENT)) / scale;
        let lng = world_x * 360.0 - 180.0;
        // atan(sinh(v)), with the functions the engine already carries (the npm
        // package's wasm is measured by the byte).
        let e = libm::exp(PI * (1.0 - 2.0 * world_y));
        let lat = libm::atan2((e - 1.0 / e) / 2.0, 1.0) * 180.0 / PI;
        (lng, lat)
    }

    /// `[west, south, east, north]` in degrees of the tile grown by `buffer` units on
    /// each side.
    #[must_use]
    pub fn bounds(self, buffer: f64) -> [f64; 4] {
        let extent = f64::from(EXTENT);
        let (west, north) = self.unproject(TilePoint {
            x: -buffer,
            y: -buffer,
        });
        let (east, south) = self.unproject(TilePoint {
            x: extent + buffer,
            y: extent + buffer,
        });
        [west, south, east, north]
    }
}

#[cfg(test)]
mod tests;
