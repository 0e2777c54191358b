use super::*;

#[test]
fn degrees_round_halves_away_from_zero_without_a_trip_through_radians() {
    assert_eq!(
        MicroDegrees::from_degrees(43.653_200_5, -79.383_200_5),
        MicroDegrees([-79_383_201, 43_653_201])
    );
    assert_eq!(
        MicroDegrees::from_degrees(43.653_200_4, -79.383_200_4),
        MicroDegrees([-79_383_200, 43_653_200])
    );
    // Rounding through h3o's radians gives another integer for this longitude.
    let (lat, lng) = (37.77, -122.420_010_5);
    assert_eq!(
        MicroDegrees::from_degrees(lat, lng),
        MicroDegrees([-122_420_011, 37_770_000])
    );
    let through_radians = MicroDegrees::from(LatLng::new(lat, lng).unwrap());
    assert_eq!(through_radians, MicroDegrees([-122_420_010, 37_770_000]));
}
