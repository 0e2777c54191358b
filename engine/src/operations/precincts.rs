//! The router API's precinct operations: status, scores and GeoJSON outlines.

use alloc::borrow::ToOwned;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use serde_json::{Map, Value, json};

use super::QueryError;
use super::hexes::{modifiers, scoring_from_params};
use super::options::{Scoring, window_label};
use crate::city::{Atlas, CityModel};
use crate::forecast::CRIME_CLASSES;
use crate::grid::MicroDegrees;
use crate::scoring::{self, CityScores, ColourIndex, PrecinctScore};

/// `GET /precincts/status`.
#[must_use]
pub fn precincts_status(atlas: &Atlas) -> Value {
    let cities: Vec<Value> = atlas
        .cities()
        .iter()
        .map(|c| {
            json!({
                "city": c.artifact().city.code,
                "precincts": c.artifact().precincts.len(),
                "cells": c.cell_count(),
            })
        })
        .collect();
    let total: usize = atlas
        .cities()
        .iter()
        .map(|c| c.artifact().precincts.len())
        .sum();
    json!({
        "status": "success",
        "available": total > 0,
        "precincts": total,
        "source": "built into the city artifacts; no external cache",
        "cities": cities,
    })
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

fn precinct_properties(city: &CityModel, row: &PrecinctScore) -> Value {
    let record = &city.artifact().precincts[row.precinct];
    let counts: Map<String, Value> = CRIME_CLASSES
        .iter()
        .zip(row.expected_counts)
        .map(|(c, n)| (c.code().to_owned(), json!(n)))
        .collect();
    let safety = (!row.safety_score.is_nan()).then_some(row.safety_score);
    json!({
        "id": record.id,
        "name": record.name,
        "city": city.artifact().city.code,
        "cells": row.cells,
        "safetyScore": safety,
        "colorIndex": ColourIndex::from_safety_score(row.safety_score),
        "expectedCounts": counts,
    })
}

/// `GET /precincts/all-scores`.
///
/// # Errors
/// Bad scoring options in the query string.
pub fn precincts_all_scores(
    atlas: &Atlas,
    params: &Map<String, Value>,
    now: i64,
) -> Result<Value, QueryError> {
    let cities: Vec<Value> = precinct_rows(atlas, params, now)?
        .iter()
        .map(|(city, scoring, rows)| {
            json!({
                "city": city.artifact().city.code,
                "modifiers": modifiers(scoring, city),
                "precincts": rows.iter().map(|r| precinct_properties(city, r)).collect::<Vec<_>>(),
            })
        })
        .collect();
    Ok(json!({"status": "success", "cities": cities}))
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

/// `GET /precincts`: a GeoJSON FeatureCollection of every city's precincts with
/// their scores as properties.
///
/// # Errors
/// Bad scoring options in the query string.
pub fn precincts_geojson(
    atlas: &Atlas,
    params: &Map<String, Value>,
    now: i64,
) -> Result<Value, QueryError> {
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
            let mut properties = precinct_properties(city, row);
            properties["weekOf"] = json!(city.week_monday(scoring.week).to_string());
            properties["timeWindow"] = json!(window_label(city, scoring.params.window));
            features.push(json!({
                "type": "Feature",
                "id": format!("{}/{}", city.artifact().city.code, record.id),
                "geometry": {"type": "MultiPolygon", "coordinates": polygons},
                "properties": properties,
            }));
        }
    }
    Ok(json!({"type": "FeatureCollection", "features": features}))
}
