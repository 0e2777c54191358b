use super::*;

#[test]
fn only_tiles_of_the_pyramid_are_tiles() {
    assert!(TileId::new(0, 0, 0).is_ok());
    assert_eq!(TileId::new(1, 2, 0), Err(TileError::Outside(2)));
    assert_eq!(TileId::new(23, 0, 0), Err(TileError::Zoom(23)));
    assert_eq!(TileId::new(300, 0, 0), Err(TileError::Zoom(300)));
    assert!(TileId::new(22, (1 << 22) - 1, (1 << 22) - 1).is_ok());
}

#[test]
fn toronto_city_hall_falls_in_its_z14_tile_and_comes_back() {
    // Web Mercator, as every XYZ map: lng -79.3832, lat 43.6532 is z14 x=4579
    // y=5979 (the slippy-map formula with tan and sec).
    let tile = TileId::new(14, 4579, 5979).unwrap();
    let p = tile.project(-79.3832, 43.6532);
    assert!((0.0..f64::from(EXTENT)).contains(&p.x), "{p:?}");
    assert!((0.0..f64::from(EXTENT)).contains(&p.y), "{p:?}");
    let (lng, lat) = tile.unproject(p);
    assert!((lng + 79.3832).abs() < 1e-9 && (lat - 43.6532).abs() < 1e-9);
    let [west, south, east, north] = tile.bounds(0.0);
    assert!(west < -79.3832 && -79.3832 < east && south < 43.6532 && 43.6532 < north);
}
