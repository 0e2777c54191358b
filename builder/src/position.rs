//! Positions as the artifacts store them: [`MicroDegrees`], from the degrees the
//! inputs give.
//!
//! The engine's `MicroDegrees::from(LatLng)` goes through h3o's radians, and
//! degrees → radians → degrees is not exact: an input with seven decimals ending in 5
//! (OpenStreetMap's precision) can land on the other side of the rounding, so a
//! conversion through `LatLng` would move about one such coordinate in 200 by a
//! micro-degree. The build rounds the input degrees themselves, as it always has.

use hexrisk_engine::grid::MicroDegrees;

/// The stored form of a point given in degrees: each coordinate rounded to whole
/// micro-degrees, halves away from zero.
#[must_use]
pub fn micro_degrees(lat: f64, lng: f64) -> MicroDegrees {
    let round = |degrees: f64| (degrees * 1e6).round() as i32;
    MicroDegrees([round(lng), round(lat)])
}

#[cfg(test)]
mod tests {
    use h3o::LatLng;

    use super::*;

    #[test]
    fn rounds_the_input_degrees_halves_away_from_zero() {
        assert_eq!(
            micro_degrees(43.653_200_5, -79.383_200_5),
            MicroDegrees([-79_383_201, 43_653_201])
        );
        assert_eq!(
            micro_degrees(43.653_200_4, -79.383_200_4),
            MicroDegrees([-79_383_200, 43_653_200])
        );
        // Rounding through h3o's radians gives another integer for this longitude.
        let (lat, lng) = (37.77, -122.420_010_5);
        assert_eq!(
            micro_degrees(lat, lng),
            MicroDegrees([-122_420_011, 37_770_000])
        );
        let through_radians = MicroDegrees::from(LatLng::new(lat, lng).unwrap());
        assert_eq!(through_radians, MicroDegrees([-122_420_010, 37_770_000]));
    }
}
