//! GeoJSON (RFC 7946) forms of the list answers a map draws: `/hexes/all` as a
//! FeatureCollection of cell polygons and `/streets` as one of street lines, for
//! the libraries that take GeoJSON and nothing else. Asked for with `format=geojson`
//! (the Worker maps `Accept: application/geo+json` to it; the package takes it as a
//! request member).

use alloc::borrow::ToOwned;
use alloc::string::String;
use alloc::vec::Vec;

use serde_json::{Map, Value, json};

use super::json::param;
use super::{QueryError, StreetsAnswer};
use crate::grid::parse_cell;

/// The media type of a GeoJSON answer.
pub const GEOJSON_MEDIA_TYPE: &str = "application/geo+json";

/// Whether the request asks for GeoJSON: `format` absent or `json` (the list as
/// the specification shows it), or `geojson`.
///
/// # Errors
/// `INVALID_REQUEST` on `format` for any other value.
pub fn wants_geojson(params: &Map<String, Value>) -> Result<bool, QueryError> {
    match param(params, "format") {
        None | Some("json") => Ok(false),
        Some("geojson") => Ok(true),
        Some(_) => Err(
            QueryError::invalid("format", "format must be json or geojson")
                .with("allowed", ["json", "geojson"]),
        ),
    }
}

/// `/hexes/all`'s slim rows as a FeatureCollection: each cell a Polygon (its
/// boundary, counter-clockwise and closed as RFC 7946 asks) with id its H3 index
/// and properties `h3`, `colorIndex`, `crimeRates` and `safetyScores` (the rows'
/// `h`, `ci`, `cr` and `ss`). A row that is not a cell is left out (none is: the
/// rows are the engine's own).
#[must_use]
pub fn hexes_feature_collection(rows: &Value) -> Value {
    let features: Vec<Value> = rows
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|row| {
            let h3 = row.get("h")?.as_str()?;
            let cell = parse_cell(h3).ok()?;
            let mut ring: Vec<[f64; 2]> =
                cell.boundary().iter().map(|v| [v.lng(), v.lat()]).collect();
            ring.push(*ring.first()?);
            Some(json!({
                "type": "Feature",
                "id": h3,
                "geometry": {"type": "Polygon", "coordinates": [ring]},
                "properties": {
                    "h3": h3,
                    "colorIndex": row.get("ci"),
                    "crimeRates": row.get("cr"),
                    "safetyScores": row.get("ss"),
                },
            }))
        })
        .collect();
    json!({"type": "FeatureCollection", "features": features})
}

/// A `/streets` answer as a FeatureCollection: each street a LineString with id
/// its way number and the row's other members as properties; what the streets
/// were scored with (`weekOf`, `timeWindow`, `meanIncidentsPerKm`, ...) as the
/// collection's foreign members.
#[must_use]
pub fn streets_feature_collection(answer: &StreetsAnswer) -> Value {
    let Ok(Value::Object(mut members)) = serde_json::to_value(answer) else {
        return json!({"type": "FeatureCollection", "features": []});
    };
    let rows = members.remove("streets").unwrap_or_default();
    let features: Vec<Value> = rows
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|row| {
            let mut properties = row.as_object()?.clone();
            let id = properties.remove("id")?;
            let coordinates = properties.remove("coordinates")?;
            Some(json!({
                "type": "Feature",
                "id": id,
                "geometry": {"type": "LineString", "coordinates": coordinates},
                "properties": properties,
            }))
        })
        .collect();
    let mut collection = Map::new();
    collection.insert("type".to_owned(), Value::from("FeatureCollection"));
    collection.insert("features".to_owned(), Value::Array(features));
    for (name, value) in members {
        collection.insert(name, value);
    }
    Value::Object(collection)
}

#[cfg(test)]
mod tests {
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
        let collection = hexes_feature_collection(&rows);
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
        let collection = streets_feature_collection(&answer);
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
}
