//! The stored form of a position: whole micro-degrees, `[lng, lat]` as in GeoJSON.

use h3o::LatLng;
use serde::{Deserialize, Serialize};

/// A position in whole micro-degrees (`[lng, lat]`, about 0.1 m of resolution), the
/// form road graphs and precinct outlines take in an artifact. Serialised as the bare
/// pair, so the artifact format does not see the type.
///
/// ```
/// use hexrisk_engine::grid::MicroDegrees;
/// use h3o::LatLng;
///
/// let stored = MicroDegrees::from(LatLng::new(43.6532, -79.3832).unwrap());
/// assert_eq!(stored, MicroDegrees([-79_383_200, 43_653_200]));
/// assert!((stored.lat() - 43.6532).abs() < 1e-9);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct MicroDegrees(pub [i32; 2]);

impl MicroDegrees {
    /// The stored form of a point given in degrees: each coordinate rounded to whole
    /// micro-degrees, halves away from zero. Inputs in degrees (files, requests) go
    /// through here rather than through an h3o [`LatLng`], which keeps radians: the
    /// round trip degrees → radians → degrees can move a seventh decimal of 5 across
    /// the rounding (about one OpenStreetMap point in 200 would move by a micro-degree).
    #[must_use]
    pub fn from_degrees(lat: f64, lng: f64) -> Self {
        Self([libm::round(lng * 1e6) as i32, libm::round(lat * 1e6) as i32])
    }

    /// Longitude in degrees.
    #[must_use]
    pub fn lng(self) -> f64 {
        f64::from(self.0[0]) * 1e-6
    }

    /// Latitude in degrees.
    #[must_use]
    pub fn lat(self) -> f64 {
        f64::from(self.0[1]) * 1e-6
    }

    /// `[lng, lat]` in degrees, the GeoJSON order.
    #[must_use]
    pub fn lng_lat(self) -> [f64; 2] {
        [self.lng(), self.lat()]
    }

    /// As an h3o coordinate. Stored positions come from valid coordinates; one out of
    /// range (a corrupt table) is clamped rather than allowed to panic.
    #[must_use]
    pub fn to_lat_lng(self) -> LatLng {
        // Finite integers times 1e-6 are finite, so after clamping `new` cannot fail;
        // `LatLng::default()` (0, 0) is only a type-level fallback.
        LatLng::new(
            self.lat().clamp(-90.0, 90.0),
            self.lng().clamp(-180.0, 180.0),
        )
        .unwrap_or_default()
    }
}

/// From an h3o coordinate (its degrees come back from radians; see
/// [`MicroDegrees::from_degrees`] for inputs given in degrees).
impl From<LatLng> for MicroDegrees {
    fn from(point: LatLng) -> Self {
        Self::from_degrees(point.lat(), point.lng())
    }
}

#[cfg(test)]
mod tests;
