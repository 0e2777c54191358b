//! The router API's precinct operations: status, scores and GeoJSON outlines.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use serde::Serialize;
use serde_json::{Map, Value};

use super::hexes::{ModifiersAnswer, modifiers, scoring_from_params};
use super::options::{Scoring, window_label};
use super::wire::{FeatureCollectionType, FeatureType, MultiPolygonType, PerClass};
use super::{QueryError, Success};
use crate::city::{Atlas, CityModel};
use crate::grid::MicroDegrees;
use crate::scoring::{self, CityScores, ColourIndex, PrecinctScore};

/// The answer of `GET /precincts/status`: whether the cities have precincts.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "PrecinctsStatus"))]
#[serde(deny_unknown_fields)]
pub struct PrecinctsStatus {
    /// Always `success`.
    pub status: Success,
    /// Whether any city has precincts.
    pub available: bool,
    /// The precincts of every city.
    pub precincts: usize,
    /// Where the precincts come from.
    pub source: &'static str,
    /// Each city's precincts and cells.
    pub cities: Vec<CityPrecinctCount>,
}

/// A city of `GET /precincts/status`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(inline))]
#[serde(deny_unknown_fields)]
pub struct CityPrecinctCount {
    /// The city code.
    pub city: String,
    /// Its precincts.
    pub precincts: usize,
    /// Its cells.
    pub cells: usize,
}

/// `GET /precincts/status`.
#[must_use]
pub fn precincts_status(atlas: &Atlas) -> PrecinctsStatus {
    let cities: Vec<CityPrecinctCount> = atlas
        .cities()
        .iter()
        .map(|c| CityPrecinctCount {
            city: c.artifact().city.code.clone(),
            precincts: c.artifact().precincts.len(),
            cells: c.cell_count(),
        })
        .collect();
    let total: usize = cities.iter().map(|c| c.precincts).sum();
    PrecinctsStatus {
        status: Success,
        available: total > 0,
        precincts: total,
        source: "built into the city artifacts; no external cache",
        cities,
    }
}

/// A city, its resolved options and its precinct aggregates.
type CityPrecincts<'a> = (&'a CityModel, Scoring, Vec<PrecinctScore>);

fn precinct_rows<'a>(
    atlas: &'a Atlas,
    params: &Map<String, Value>,
    now: i64,
) -> Result<Vec<CityPrecincts<'a>>, QueryError> {
    let scoring = scoring_from_params(params)?;
    atlas
        .cities()
        .iter()
        .map(|city| {
            let resolved = scoring.resolve(city, now)?;
            let scores = CityScores::compute(city, resolved.week, &resolved.params);
            let rows =
                scoring::precinct_scores(city, resolved.week, resolved.params.window, &scores);
            Ok((&**city, resolved, rows))
        })
        .collect()
}

/// A precinct's scores: the properties of its feature in `GET /precincts` and its
/// row in `GET /precincts/all-scores`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
#[serde(deny_unknown_fields)]
pub struct PrecinctProperties {
    /// The precinct's id in its city.
    pub id: String,
    /// Its name.
    pub name: String,
    /// Its city's code.
    pub city: String,
    /// The cells it holds.
    pub cells: usize,
    /// 0 (least safe) to 100 (safest) among the city's precincts; null without data.
    pub safety_score: Option<f64>,
    /// The colour band of the score, -1 without data.
    #[cfg_attr(feature = "schema", schemars(with = "super::wire::ColourBand"))]
    pub color_index: ColourIndex,
    /// Expected incidents of each class in the week and hours scored.
    pub expected_counts: PerClass,
    /// Monday of the forecast week (`GET /precincts` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(with = "super::wire::Date"))]
    pub week_of: Option<String>,
    /// the hours scored: week, nights (intent night) or a band such as "weekend 22:00-00:00" (local time)
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    pub time_window: Option<String>,
}

fn precinct_properties(city: &CityModel, row: &PrecinctScore) -> PrecinctProperties {
    let record = &city.artifact().precincts[row.precinct];
    PrecinctProperties {
        id: record.id.clone(),
        name: record.name.clone(),
        city: city.artifact().city.code.clone(),
        cells: row.cells,
        safety_score: (!row.safety_score.is_nan()).then_some(row.safety_score),
        color_index: ColourIndex::from_safety_score(row.safety_score),
        expected_counts: PerClass(row.expected_counts),
        week_of: None,
        time_window: None,
    }
}

/// The answer of `GET /precincts/all-scores`: every city's precincts with their
/// scores.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct PrecinctScores {
    /// Always `success`.
    pub status: Success,
    /// Each city, with what it was scored with.
    pub cities: Vec<CityPrecinctScores>,
}

/// A city of `GET /precincts/all-scores`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(inline))]
#[serde(deny_unknown_fields)]
pub struct CityPrecinctScores {
    /// The city code.
    pub city: String,
    /// What its precincts were scored with.
    pub modifiers: ModifiersAnswer,
    /// Its precincts.
    pub precincts: Vec<PrecinctProperties>,
}

/// `GET /precincts/all-scores`.
///
/// # Errors
/// Bad scoring options in the query string.
pub fn precincts_all_scores(
    atlas: &Atlas,
    params: &Map<String, Value>,
    now: i64,
) -> Result<PrecinctScores, QueryError> {
    let cities = precinct_rows(atlas, params, now)?
        .iter()
        .map(|(city, scoring, rows)| CityPrecinctScores {
            city: city.artifact().city.code.clone(),
            modifiers: modifiers(scoring, city),
            precincts: rows.iter().map(|r| precinct_properties(city, r)).collect(),
        })
        .collect();
    Ok(PrecinctScores {
        status: Success,
        cities,
    })
}

/// A stored ring as GeoJSON positions, turned anticlockwise for an exterior ring
/// and clockwise for a hole (RFC 7946 §3.1.6).
fn ring_positions(ring: &[MicroDegrees], exterior: bool) -> Vec<[f64; 2]> {
    let mut points: Vec<[f64; 2]> = ring.iter().map(|p| p.lng_lat()).collect();
    let twice_area: f64 = points
        .windows(2)
        .map(|w| w[0][0] * w[1][1] - w[1][0] * w[0][1])
        .sum();
    if (twice_area > 0.0) != exterior {
        points.reverse();
    }
    if let Some(&first) = points.first()
        && points.last() != Some(&first)
    {
        points.push(first);
    }
    points
}

/// The answer of `GET /precincts`: an RFC 7946 FeatureCollection of every city's
/// precincts with their scores.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "FeatureCollection"))]
#[serde(deny_unknown_fields)]
pub struct PrecinctFeatureCollection {
    /// `FeatureCollection`.
    #[serde(rename = "type")]
    pub kind: FeatureCollectionType,
    /// A MultiPolygon per precinct.
    pub features: Vec<PrecinctFeature>,
}

/// A precinct of `GET /precincts`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(inline))]
#[serde(deny_unknown_fields)]
pub struct PrecinctFeature {
    /// `Feature`.
    #[serde(rename = "type")]
    pub kind: FeatureType,
    /// `city/id`.
    pub id: String,
    /// The precinct's outline.
    pub geometry: MultiPolygon,
    /// Its scores, with the week and hours scored.
    pub properties: PrecinctProperties,
}

/// A GeoJSON MultiPolygon: polygons of `[lng, lat]` rings, each exterior ring
/// anticlockwise and each hole clockwise, closed.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(inline))]
#[serde(deny_unknown_fields)]
pub struct MultiPolygon {
    /// `MultiPolygon`.
    #[serde(rename = "type")]
    pub kind: MultiPolygonType,
    /// The polygons.
    #[cfg_attr(
        feature = "schema",
        schemars(with = "Vec<Vec<super::wire::ClosedRing>>")
    )]
    pub coordinates: Vec<Vec<Vec<[f64; 2]>>>,
}

/// `GET /precincts`: a GeoJSON FeatureCollection of every city's precincts with
/// their scores as properties.
///
/// # Errors
/// Bad scoring options in the query string.
pub fn precincts_geojson(
    atlas: &Atlas,
    params: &Map<String, Value>,
    now: i64,
) -> Result<PrecinctFeatureCollection, QueryError> {
    let mut features = Vec::new();
    for (city, scoring, rows) in precinct_rows(atlas, params, now)? {
        for row in &rows {
            let record = &city.artifact().precincts[row.precinct];
            let polygons: Vec<Vec<Vec<[f64; 2]>>> = record
                .polygons
                .iter()
                .map(|polygon| {
                    polygon
                        .iter()
                        .enumerate()
                        .map(|(i, ring)| ring_positions(ring, i == 0))
                        .collect()
                })
                .collect();
            let properties = PrecinctProperties {
                week_of: Some(city.week_monday(scoring.week).to_string()),
                time_window: Some(window_label(city, scoring.params.window)),
                ..precinct_properties(city, row)
            };
            features.push(PrecinctFeature {
                kind: FeatureType,
                id: format!("{}/{}", city.artifact().city.code, record.id),
                geometry: MultiPolygon {
                    kind: MultiPolygonType,
                    coordinates: polygons,
                },
                properties,
            });
        }
    }
    Ok(PrecinctFeatureCollection {
        kind: FeatureCollectionType,
        features,
    })
}
