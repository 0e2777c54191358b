use alloc::vec;

use super::*;
use crate::artifact::fixture::CityFixture;
use crate::city::{Atlas, CityModel};
use crate::operations::{hexes_all, streets};

const NOW: i64 = 1_640_995_200; // 2022-01-01

fn params(pairs: &[(&str, &str)]) -> Map<String, Value> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), Value::from(*v)))
        .collect()
}

#[test]
fn format_is_json_unless_geojson_is_asked_and_nothing_else_is_taken() {
    assert!(!wants_geojson(&params(&[])).unwrap());
    assert!(!wants_geojson(&params(&[("format", "json")])).unwrap());
    assert!(wants_geojson(&params(&[("format", "geojson")])).unwrap());
    let err = wants_geojson(&params(&[("format", "GeoJSON")])).unwrap_err();
    assert_eq!(err.field, "format");
}

#[test]
fn hexes_become_closed_counter_clockwise_cell_polygons_with_their_row() {
    let atlas = Atlas::new(vec![CityModel::from_artifact(
        CityFixture::default().build(),
    )]);
    let b = atlas.cities()[0].artifact().bounds;
    let text = |v: f64| alloc::format!("{v}");
    let (west, south, east, north) = (text(b.west), text(b.south), text(b.east), text(b.north));
    let box_params = params(&[
        ("west", &west),
        ("south", &south),
        ("east", &east),
        ("north", &north),
    ]);
    let (rows, count) = hexes_all(&atlas, &box_params, NOW).unwrap();
    assert!(count > 0);
    let collection = serde_json::to_value(hexes_feature_collection(&rows)).unwrap();
    let rows = serde_json::to_value(&rows).unwrap();
    assert_eq!(collection["type"], "FeatureCollection");
    let features = collection["features"].as_array().unwrap();
    assert_eq!(features.len(), count);
    for (feature, row) in features.iter().zip(rows.as_array().unwrap()) {
        assert_eq!(feature["id"], row["h"]);
        assert_eq!(feature["properties"]["h3"], row["h"]);
        assert_eq!(feature["properties"]["colorIndex"], row["ci"]);
        assert_eq!(feature["properties"]["safetyScores"], row["ss"]);
        assert_eq!(feature["properties"]["crimeRates"], row["cr"]);
        let ring: Vec<[f64; 2]> =
            serde_json::from_value(feature["geometry"]["coordinates"][0].clone()).unwrap();
        assert_eq!(ring.len(), 7);
        assert_eq!(ring.first(), ring.last());
        let twice_area: f64 = ring
            .windows(2)
            .map(|w| w[0][0] * w[1][1] - w[1][0] * w[0][1])
            .sum();
        assert!(twice_area > 0.0, "clockwise ring");
        // Around the row's centre.
        let (lng, lat) = (row["ln"].as_f64().unwrap(), row["la"].as_f64().unwrap());
        assert!(
            ring.iter()
                .all(|p| (p[0] - lng).abs() < 0.01 && (p[1] - lat).abs() < 0.01)
        );
    }
}

#[test]
fn streets_become_lines_and_what_they_were_scored_with_stays_on_the_collection() {
    let atlas = Atlas::new(vec![CityModel::from_artifact(
        CityFixture::small_toronto().build(),
    )]);
    let city = &atlas.cities()[0];
    let node = city.road_network().unwrap().graph.node(0);
    let text = |v: f64| alloc::format!("{v}");
    let (lat, lng) = (node.lat(), node.lng());
    let box_params = params(&[
        ("west", &text(lng - 0.01)),
        ("south", &text(lat - 0.01)),
        ("east", &text(lng + 0.01)),
        ("north", &text(lat + 0.01)),
    ]);
    let answer = streets(&atlas, &box_params, NOW).unwrap();
    assert!(!answer.streets.is_empty());
    let collection = serde_json::to_value(streets_feature_collection(answer.clone())).unwrap();
    let features = collection["features"].as_array().unwrap();
    assert_eq!(features.len(), answer.streets.len());
    for (feature, row) in features.iter().zip(&answer.streets) {
        assert_eq!(feature["id"], row.id);
        assert_eq!(feature["geometry"]["type"], "LineString");
        let line: Vec<[f64; 2]> =
            serde_json::from_value(feature["geometry"]["coordinates"].clone()).unwrap();
        assert_eq!(line, row.coordinates);
        assert_eq!(
            feature["properties"]["incidentsPerKm"],
            row.incidents_per_km
        );
        assert!(feature["properties"].get("coordinates").is_none());
    }
    assert_eq!(
        collection["meanIncidentsPerKm"],
        answer.mean_incidents_per_km
    );
    assert!(collection.get("streets").is_none());
}
