//! Which cities a request needs, over a manifest of Toronto and San Francisco:
//! points, cells, lines, lists, viewports and ring lookups near the bounds.

use super::*;
use hexrisk_engine::artifact::Bounds;
use serde_json::json;

fn city(code: &str, [south, west, north, east]: [f64; 4]) -> ManifestCity {
    ManifestCity {
        bounds: Bounds {
            north,
            south,
            east,
            west,
        },
        bytes: 1,
        cells: 1,
        code: code.into(),
        data_through: chrono::NaiveDate::from_ymd_opt(2021, 12, 26).unwrap(),
        file: String::new(),
        name: code.into(),
        precincts: 0,
        sha256: String::new(),
        version: String::new(),
        attribution: None,
        grid: None,
        freshness: None,
    }
}

fn manifest() -> Manifest {
    Manifest {
        cities: vec![
            city("city_ca_tor", [43.58, -79.64, 43.86, -79.11]),
            city("city_us_sfo", [37.70, -122.52, 37.82, -122.35]),
        ],
        format_version: 2,
        model_version: "m".into(),
        version: "v".into(),
    }
}

/// A JSON object literal as the body map the dispatcher hands over.
fn object(value: &serde_json::Value) -> &serde_json::Map<String, serde_json::Value> {
    value.as_object().unwrap()
}

fn some(codes: &[&str]) -> CityNeeds {
    CityNeeds::Some(codes.iter().map(|c| (*c).to_owned()).collect())
}

fn query(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

#[test]
fn a_point_needs_the_city_around_it_only() {
    let m = manifest();
    let toronto = json!({"latitude": 43.6532, "longitude": -79.3832});
    assert_eq!(
        needs(Reach::Places, &m, Some(object(&toronto)), &[]),
        some(&["city_ca_tor"])
    );
    let route = json!({"origin": {"lat": 37.78, "lng": -122.41}, "destination": {"lat": 37.79, "lng": -122.40}});
    assert_eq!(
        needs(Reach::Places, &m, Some(object(&route)), &[]),
        some(&["city_us_sfo"])
    );
    let ocean = json!({"latitude": 0.5, "longitude": -30.0});
    assert_eq!(
        needs(Reach::Places, &m, Some(object(&ocean)), &[]),
        some(&[])
    );
}

#[test]
fn pairs_cells_and_query_points_are_places_too() {
    let m = manifest();
    let line = json!({"geometry": {"type": "LineString", "coordinates": [[-79.38, 43.65], [-79.37, 43.66]]}});
    assert_eq!(
        needs(Reach::Places, &m, Some(object(&line)), &[]),
        some(&["city_ca_tor"])
    );
    let cell = h3o::LatLng::new(37.78, -122.41)
        .unwrap()
        .to_cell(h3o::Resolution::Eight)
        .to_string();
    let hexes = json!({"hexIds": [cell.clone()]});
    assert_eq!(
        needs(Reach::Places, &m, Some(object(&hexes)), &[]),
        some(&["city_us_sfo"])
    );
    assert_eq!(
        needs(Reach::Places, &m, None, &query(&[("h3", &cell)])),
        some(&["city_us_sfo"])
    );
    assert_eq!(
        needs(
            Reach::Places,
            &m,
            None,
            &query(&[("latitude", "43.7"), ("longitude", "-79.4")])
        ),
        some(&["city_ca_tor"])
    );
}

#[test]
fn a_point_just_outside_the_bounds_still_needs_the_city() {
    // Routes snap to roads up to 500 m away and rings reach past a city's edge.
    let m = manifest();
    let near = json!({"latitude": 43.87, "longitude": -79.38});
    assert_eq!(
        needs(Reach::Places, &m, Some(object(&near)), &[]),
        some(&["city_ca_tor"])
    );
}

#[test]
fn lines_need_the_cities_they_pass() {
    let m = manifest();
    // From west of Toronto to east of it: neither end is near the city.
    let waypoints = json!({"waypoints": [
        {"latitude": 43.7, "longitude": -80.2}, {"latitude": 43.7, "longitude": -78.6}
    ]});
    assert_eq!(
        needs(Reach::Places, &m, Some(object(&waypoints)), &[]),
        some(&[])
    );
    assert_eq!(
        needs(Reach::Lines, &m, Some(object(&waypoints)), &[]),
        some(&["city_ca_tor"])
    );
}

#[test]
fn lists_need_every_city_and_named_cities_their_own() {
    let m = manifest();
    assert_eq!(needs(Reach::Everywhere, &m, None, &[]), CityNeeds::All);
    assert_eq!(
        needs(
            Reach::NamedCity,
            &m,
            None,
            &query(&[("city", "city_us_sfo")])
        ),
        some(&["city_us_sfo"])
    );
    // Unknown or absent: every city, so the answer can list them.
    assert_eq!(
        needs(Reach::NamedCity, &m, None, &query(&[("city", "nowhere")])),
        CityNeeds::All
    );
    assert_eq!(needs(Reach::NamedCity, &m, None, &[]), CityNeeds::All);
}

#[test]
fn a_viewport_needs_the_cities_it_meets() {
    let m = manifest();
    let bbox = |w: &str, s: &str, e: &str, n: &str| {
        query(&[("west", w), ("south", s), ("east", e), ("north", n)])
    };
    assert_eq!(
        needs(
            Reach::Viewport,
            &m,
            None,
            &bbox("-79.5", "43.6", "-79.3", "43.7")
        ),
        some(&["city_ca_tor"])
    );
    assert_eq!(
        needs(Reach::Viewport, &m, None, &bbox("-10", "10", "-9", "11")),
        some(&[])
    );
    assert_eq!(
        needs(
            Reach::Viewport,
            &m,
            None,
            &bbox("x", "43.6", "-79.3", "43.7")
        ),
        some(&[])
    );
}

/// Whether a point lies within [`MARGIN_KM`] of the city's bounds, north-south and
/// east-west, measured in km at the point's latitude.
fn within_margin(city: &ManifestCity, lat: f64, lng: f64) -> bool {
    let b = &city.bounds;
    let km_lat = (b.south - lat).max(lat - b.north).max(0.0) * 111.32;
    let km_lng = (b.west - lng).max(lng - b.east).max(0.0) * 111.32 * lat.to_radians().cos();
    km_lat <= MARGIN_KM && km_lng <= MARGIN_KM
}

#[test]
fn a_ring_lookup_that_reaches_into_a_city_needs_it_at_any_latitude() {
    // Centres outside the bounds, north and east, by up to the largest ring's radius;
    // in Toronto and in a city as far north as Tromsø, where a degree of longitude is
    // a third of one at the equator.
    let mut m = manifest();
    m.cities
        .push(city("city_no_tos", [69.60, 18.80, 69.72, 19.10]));
    for code in ["city_ca_tor", "city_no_tos"] {
        let b = m.city(code).unwrap().bounds;
        let mid_lat = f64::midpoint(b.south, b.north);
        let km_lng = 111.32 * mid_lat.to_radians().cos();
        let mut reached = 0;
        for km in [5.0, 20.0, 30.0, 32.0] {
            for (lat, lng) in [
                (b.north + km / 111.32, f64::midpoint(b.west, b.east)),
                (mid_lat, b.east + km / km_lng),
            ] {
                let centre = h3o::LatLng::new(lat, lng)
                    .unwrap()
                    .to_cell(h3o::Resolution::Eight);
                let disk: Vec<h3o::CellIndex> = centre.grid_disk(41);
                let enters = disk.iter().any(|&cell| {
                    let c = h3o::LatLng::from(cell);
                    (b.south..=b.north).contains(&c.lat()) && (b.west..=b.east).contains(&c.lng())
                });
                if !enters {
                    continue;
                }
                reached += 1;
                let body = json!({"lat": lat, "lng": lng, "ring": 41});
                let CityNeeds::Some(found) = needs(Reach::Places, &m, Some(object(&body)), &[])
                else {
                    panic!("a lookup needs some cities");
                };
                assert!(
                    found.contains(code),
                    "{code}: ring 41 around ({lat}, {lng}) needs it"
                );
            }
        }
        assert!(reached >= 6, "{code}: {reached} lookups reach the city");
    }
}

#[test]
fn a_cell_looked_at_through_its_ancestor_never_misses_a_city_its_centre_needs() {
    // Cells on a lattice from well inside to well outside Toronto's bounds, on every
    // side: wherever a cell's own centre is within the margin, the city is needed.
    let m = manifest();
    let toronto = &m.cities[0];
    let (mut needed, mut not_needed) = (0, 0);
    for i in 0..=60 {
        for j in 0..=60 {
            let lat = 43.58 - 1.2 + f64::from(i) * (0.28 + 2.4) / 60.0;
            let lng = -79.64 - 1.2 + f64::from(j) * (0.53 + 2.4) / 60.0;
            let cell = h3o::LatLng::new(lat, lng)
                .unwrap()
                .to_cell(h3o::Resolution::Eight);
            let centre = h3o::LatLng::from(cell);
            let body = json!({"hexIds": [cell.to_string()]});
            let found = needs(Reach::Places, &m, Some(object(&body)), &[]);
            if within_margin(toronto, centre.lat(), centre.lng()) {
                assert_eq!(found, some(&["city_ca_tor"]), "{cell}");
                needed += 1;
            } else if found == some(&[]) {
                not_needed += 1;
            }
        }
    }
    // Far enough out, a cell needs no city.
    assert!(needed > 300 && not_needed > 1_000, "{needed} {not_needed}");
}
