//! GeoJSON (RFC 7946) forms of the list answers a map draws: `/hexes/all` as a
//! FeatureCollection of cell polygons and `/streets` as one of street lines, for
//! the libraries that take GeoJSON and nothing else. Asked for with `format=geojson`
//! (the Worker maps `Accept: application/geo+json` to it; the package takes it as a
//! request member).

use alloc::string::String;
use alloc::vec::Vec;

use serde::Serialize;
use serde_json::{Map, Value};

use super::hexes::SlimHex;
use super::json::param;
use super::route_request::ScoredWith;
use super::streets::StreetRow;
use super::wire::{
    CellText, FeatureCollectionType, FeatureType, LineStringType, PerClass, PerIntent, PolygonType,
};
use super::{QueryError, StreetsAnswer};

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

/// `GET /hexes/all` as GeoJSON: an RFC 7946 FeatureCollection of the cells' polygons.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct HexFeatureCollection {
    /// `FeatureCollection`.
    #[serde(rename = "type")]
    pub kind: FeatureCollectionType,
    /// A Polygon per cell.
    pub features: Vec<HexFeature>,
}

/// A cell of `GET /hexes/all` as GeoJSON: a Polygon.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(inline))]
#[serde(deny_unknown_fields)]
pub struct HexFeature {
    /// `Feature`.
    #[serde(rename = "type")]
    pub kind: FeatureType,
    /// The cell's H3 id.
    pub id: CellText,
    /// The cell's boundary.
    pub geometry: Polygon,
    /// The cell's row of the JSON list.
    pub properties: HexProperties,
}

/// A GeoJSON Polygon: `[lng, lat]` rings, the first the exterior, counter-clockwise
/// and closed.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(inline))]
#[serde(deny_unknown_fields)]
pub struct Polygon {
    /// `Polygon`.
    #[serde(rename = "type")]
    pub kind: PolygonType,
    /// The rings.
    pub coordinates: Vec<Vec<[f64; 2]>>,
}

/// The properties of a cell of `GET /hexes/all` as GeoJSON: its row's `h`, `ci`, `cr`
/// and `ss` by longer names.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(inline))]
#[serde(rename_all = "camelCase")]
#[serde(deny_unknown_fields)]
pub struct HexProperties {
    /// The cell.
    pub h3: CellText,
    /// Its colour band for the request's options.
    #[cfg_attr(feature = "schema", schemars(with = "super::wire::ColourBand"))]
    pub color_index: i8,
    /// Expected incidents of each class in the week and hours scored.
    pub crime_rates: PerClass,
    /// Its safety score under each intent.
    pub safety_scores: PerIntent,
}

/// `/hexes/all`'s slim rows as a FeatureCollection: each cell a Polygon (its
/// boundary, counter-clockwise and closed as RFC 7946 asks) with id its H3 index
/// and properties `h3`, `colorIndex`, `crimeRates` and `safetyScores` (the rows'
/// `h`, `ci`, `cr` and `ss`).
#[must_use]
pub fn hexes_feature_collection(rows: &[SlimHex]) -> HexFeatureCollection {
    let features = rows
        .iter()
        .filter_map(|row| {
            let mut ring: Vec<[f64; 2]> = row
                .h
                .0
                .boundary()
                .iter()
                .map(|v| [v.lng(), v.lat()])
                .collect();
            ring.push(*ring.first()?);
            Some(HexFeature {
                kind: FeatureType,
                id: row.h,
                geometry: Polygon {
                    kind: PolygonType,
                    coordinates: alloc::vec![ring],
                },
                properties: HexProperties {
                    h3: row.h,
                    color_index: row.ci,
                    crime_rates: row.cr,
                    safety_scores: row.ss,
                },
            })
        })
        .collect();
    HexFeatureCollection {
        kind: FeatureCollectionType,
        features,
    }
}

/// `GET /streets` as GeoJSON: an RFC 7946 FeatureCollection of the streets' lines,
/// with what they were scored with as its foreign members.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
#[serde(deny_unknown_fields)]
pub struct StreetFeatureCollection {
    /// `FeatureCollection`.
    #[serde(rename = "type")]
    pub kind: FeatureCollectionType,
    /// A LineString per street.
    pub features: Vec<StreetFeature>,
    /// What the streets were scored with.
    #[serde(flatten)]
    pub scored_with: ScoredWith,
    /// The city's mean expected incidents per street kilometre for the request.
    #[cfg_attr(feature = "schema", schemars(range(min = 0)))]
    pub mean_incidents_per_km: f64,
}

/// A street of `GET /streets` as GeoJSON: a LineString.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(inline))]
#[serde(deny_unknown_fields)]
pub struct StreetFeature {
    /// `Feature`.
    #[serde(rename = "type")]
    pub kind: FeatureType,
    /// The way's number in the city's network, stable within a model version.
    pub id: u32,
    /// The street's line.
    pub geometry: StreetLine,
    /// The street's row of the JSON list but for its id and line.
    pub properties: StreetProperties,
}

/// A GeoJSON LineString of `[lng, lat]` positions.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(inline))]
#[serde(deny_unknown_fields)]
pub struct StreetLine {
    /// `LineString`.
    #[serde(rename = "type")]
    pub kind: LineStringType,
    /// The positions.
    pub coordinates: Vec<[f64; 2]>,
}

/// The properties of a street of `GET /streets` as GeoJSON: its row's members but
/// for its id and line. (In the order the answer has always had: the row's members
/// as they were left once `id` and `coordinates` were swapped out of them.)
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(inline))]
#[serde(rename_all = "camelCase")]
#[serde(deny_unknown_fields)]
pub struct StreetProperties {
    /// How its risk was found (see the JSON list's `basis`).
    #[cfg_attr(feature = "schema", schemars(with = "super::streets::Basis"))]
    pub basis: &'static str,
    /// As the network's source spells it; null where it has none.
    pub name: Option<String>,
    /// The colour band of its safety score, as the hexes' (`GET /hexes/config`).
    #[cfg_attr(feature = "schema", schemars(range(min = 0, max = 16)))]
    pub color_index: i8,
    /// Metres.
    #[cfg_attr(feature = "schema", schemars(range(min = 0)))]
    pub length_m: f64,
    /// Expected incidents per km in the request's week or time window.
    #[cfg_attr(feature = "schema", schemars(range(min = 0)))]
    pub incidents_per_km: f64,
    /// Its rank among the city's streets weighed by length: 100 the safest.
    #[cfg_attr(feature = "schema", schemars(range(min = 0, max = 100)))]
    pub safety_score: f64,
}

impl From<StreetRow> for StreetFeature {
    fn from(row: StreetRow) -> Self {
        Self {
            kind: FeatureType,
            id: row.id,
            geometry: StreetLine {
                kind: LineStringType,
                coordinates: row.coordinates,
            },
            properties: StreetProperties {
                basis: row.basis,
                name: row.name,
                color_index: row.color_index,
                length_m: row.length_m,
                incidents_per_km: row.incidents_per_km,
                safety_score: row.safety_score,
            },
        }
    }
}

/// A `/streets` answer as a FeatureCollection: each street a LineString with id
/// its way number and the row's other members as properties; what the streets
/// were scored with (`weekOf`, `timeWindow`, `meanIncidentsPerKm`, ...) as the
/// collection's foreign members.
#[must_use]
pub fn streets_feature_collection(answer: StreetsAnswer) -> StreetFeatureCollection {
    StreetFeatureCollection {
        kind: FeatureCollectionType,
        features: answer
            .streets
            .into_iter()
            .map(StreetFeature::from)
            .collect(),
        scored_with: answer.scored_with,
        mean_incidents_per_km: answer.mean_incidents_per_km,
    }
}

#[cfg(test)]
mod tests;
