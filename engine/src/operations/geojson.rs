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
mod tests;
