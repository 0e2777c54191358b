//! The router API (`{router_url}` = the Worker's origin): hex scores, viewport lists,
//! ring lookups, breakdowns, routes, evaluations and precincts. Each handler takes
//! the models and the parsed request and returns the JSON body, so native tests run
//! them directly. Decisions the specification leaves open are in `docs/API.md`.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use hexrisk_engine::colour::{ColourIndex, PALETTE};
use hexrisk_engine::corridor::{MAX_HEX_PATH_CELLS, TravelMode};
use hexrisk_engine::forecast::CRIME_CLASSES;
use hexrisk_engine::grid::{self, MAX_RING_DISTANCE, RESOLUTION};
use hexrisk_engine::model::{Atlas, CityModel};
use hexrisk_engine::query::{self, QueryError, Scoring, ScoringQuery};
use hexrisk_engine::routing::{self, RouteMethod};
use hexrisk_engine::scores::{self, CityScores, Intent, ScoringParams};
use hexrisk_engine::{CellIndex, RingError};

use super::{ApiError, ErrorCode, input};

/// Header with the number of hexes in a list answer.
pub const HEX_COUNT_HEADER: &str = "x-hex-count";

/// Most cell ids in one `POST /hexes/score`.
pub const MAX_SCORE_IDS: usize = 5000;

/// Largest side of a `GET /hexes/all` box, in degrees.
pub const MAX_BOX_SIDE_DEG: f64 = 2.0;

fn seconds(now: DateTime<Utc>) -> i64 {
    now.timestamp()
}

/// An engine query error in the API's error shape.
#[must_use]
pub fn query_error(err: QueryError) -> ApiError {
    let code = match err.code {
        "INVALID_COORDINATES" => ErrorCode::InvalidCoordinates,
        "LOCATION_NOT_COVERED" => ErrorCode::LocationNotCovered,
        "DATE_OUT_OF_RANGE" => ErrorCode::DateOutOfRange,
        _ => ErrorCode::InvalidRequest,
    };
    let mut api = ApiError::new(code, err.message).with("field", err.field);
    if let Some(index) = err.index {
        api = api.with("index", index);
    }
    if let Some(distance) = err.distance_m {
        api = api
            .with("distanceM", distance)
            .with("maxSnapDistanceM", routing::MAX_SNAP_DISTANCE_M);
    }
    api
}

/// Reads a body object into an engine query type; wrong types name serde's reason.
fn parse<T: for<'de> Deserialize<'de>>(body: &Map<String, Value>) -> Result<T, ApiError> {
    serde_json::from_value(Value::Object(body.clone())).map_err(|e| {
        ApiError::new(
            ErrorCode::InvalidRequest,
            "request body does not have the expected shape",
        )
        .with("field", "body")
        .with("reason", e.to_string())
    })
}

fn with_status(value: impl serde::Serialize) -> Value {
    let mut body = serde_json::to_value(value).unwrap_or(Value::Null);
    if let Value::Object(map) = &mut body {
        map.insert("status".into(), json!("success"));
    }
    body
}

/// Scores for each city a request touches, computed once per city.
struct ScoreCache<'a> {
    scoring: &'a ScoringQuery,
    now: i64,
    cities: BTreeMap<String, (Scoring, CityScores)>,
}

impl<'a> ScoreCache<'a> {
    /// Checks the options up front, so a request whose cells all lie outside
    /// coverage still learns about a bad intent or class code.
    fn new(scoring: &'a ScoringQuery, now: DateTime<Utc>) -> Result<Self, ApiError> {
        scoring.params().map_err(query_error)?;
        Ok(Self {
            scoring,
            now: seconds(now),
            cities: BTreeMap::new(),
        })
    }

    fn get(&mut self, city: &CityModel) -> Result<&(Scoring, CityScores), ApiError> {
        let code = &city.artifact().city.code;
        if !self.cities.contains_key(code) {
            let scoring = self.scoring.resolve(city, self.now).map_err(query_error)?;
            let scores = CityScores::compute(city, scoring.week, &scoring.params);
            self.cities.insert(code.clone(), (scoring, scores));
        }
        Ok(&self.cities[code])
    }
}

fn cell_error(index: usize, err: &RingError) -> ApiError {
    let mut api = ApiError::new(ErrorCode::InvalidRequest, format!("hexIds[{index}]: {err}"))
        .with("field", "hexIds")
        .with("index", index);
    if let RingError::WrongResolution(r) = err {
        api = api.with("resolution", *r);
    }
    api
}

fn score_row(
    atlas: &Atlas,
    cache: &mut ScoreCache<'_>,
    cell: CellIndex,
) -> Result<Value, ApiError> {
    let Some((city, position)) = atlas.locate_cell(cell) else {
        return Ok(json!({"h3": cell.to_string(), "safetyScore": null, "colorIndex": -1}));
    };
    let (_, scores) = cache.get(city)?;
    Ok(json!({
        "h3": cell.to_string(),
        "safetyScore": scores.safety(position),
        "colorIndex": scores.colour(position),
    }))
}

/// `GET /hexes/config`.
#[must_use]
pub fn hexes_config() -> Value {
    json!({
        "status": "success",
        "data": {
            "colors": PALETTE,
            "resolution": u8::from(RESOLUTION),
            "noData": {"colorIndex": ColourIndex::NO_DATA, "label": "N/A"},
            "legend": "labels 1 to 17 for colorIndex 0 to 16 (red, least safe, to green, safest); -1 is N/A",
        },
    })
}

/// `POST /hexes/score`: rows in the order of `hexIds`.
///
/// # Errors
/// `INVALID_REQUEST` for a missing or oversize `hexIds`, a malformed id or one of
/// another resolution (with its index), or bad scoring options.
pub fn hexes_score(
    atlas: &Atlas,
    body: &Map<String, Value>,
    now: DateTime<Utc>,
) -> Result<Value, ApiError> {
    let ids = input::array(body, "hexIds")?;
    if ids.len() > MAX_SCORE_IDS {
        return Err(ApiError::new(
            ErrorCode::InvalidRequest,
            format!("hexIds has {} ids; the limit is {MAX_SCORE_IDS}", ids.len()),
        )
        .with("field", "hexIds")
        .with("limit", MAX_SCORE_IDS)
        .with("count", ids.len()));
    }
    let scoring: ScoringQuery = parse(body)?;
    let mut cache = ScoreCache::new(&scoring, now)?;
    let mut rows = Vec::with_capacity(ids.len());
    for (index, id) in ids.iter().enumerate() {
        let text = id
            .as_str()
            .ok_or_else(|| cell_error(index, &RingError::InvalidCell))?;
        let cell = grid::parse_cell(text).map_err(|e| cell_error(index, &e))?;
        rows.push(score_row(atlas, &mut cache, cell)?);
    }
    Ok(Value::Array(rows))
}

fn breakdown_object(
    city: &CityModel,
    position: usize,
    scoring: &Scoring,
    scores: &CityScores,
) -> Value {
    let rows: Vec<Value> = scores::breakdown(city, position, scoring.week, &scoring.params)
        .iter()
        .map(|b| {
            json!({
                "code": b.class.code(),
                "name": b.class.name(),
                "expectedCount": b.expected_count,
                "probability": b.probability,
                "weight": b.weight,
                "harm": b.harm,
                "share": b.share,
            })
        })
        .collect();
    let safety = scores.safety(position);
    json!({
        "crimeTypes": rows,
        "normalizedRisk": 1.0 - safety / 100.0,
        "safetyScore": safety,
        "colorIndex": scores.colour(position),
        "hasData": true,
    })
}

fn no_data_breakdown() -> Value {
    json!({
        "crimeTypes": [],
        "normalizedRisk": null,
        "safetyScore": null,
        "colorIndex": -1,
        "hasData": false,
    })
}

fn modifiers(scoring: &Scoring, city: &CityModel) -> Value {
    let weights: Map<String, Value> = CRIME_CLASSES
        .iter()
        .zip(scoring.params.overrides)
        .map(|(c, w)| (c.code().to_owned(), json!(w)))
        .collect();
    json!({
        "intent": scoring.params.intent.name(),
        "weekOf": city.week_monday(scoring.week).to_string(),
        "activeCodes": CRIME_CLASSES
            .iter()
            .zip(scoring.params.active)
            .filter(|(_, on)| *on)
            .map(|(c, _)| c.code())
            .collect::<Vec<_>>(),
        "classWeights": weights,
    })
}

/// `POST /hexes/lookup`.
///
/// # Errors
/// `INVALID_REQUEST` for a ring outside 0..=41, a resolution other than 8, wrong
/// types; `INVALID_COORDINATES` for a bad point.
pub fn hexes_lookup(
    atlas: &Atlas,
    body: &Map<String, Value>,
    now: DateTime<Utc>,
) -> Result<Value, ApiError> {
    let number = |field: &str| -> Result<f64, ApiError> {
        match body.get(field) {
            None => Err(input::missing(field)),
            Some(Value::Number(n)) => n
                .as_f64()
                .ok_or_else(|| input::malformed(field, "a number")),
            Some(_) => Err(ApiError::new(
                ErrorCode::InvalidCoordinates,
                format!("{field} must be a number"),
            )
            .with("field", field)),
        }
    };
    let (lat, lng) = (number("lat")?, number("lng")?);
    let integer = |field: &str, default: i64| -> Result<i64, ApiError> {
        match body.get(field) {
            None | Some(Value::Null) => Ok(default),
            Some(v) => v
                .as_i64()
                .ok_or_else(|| input::malformed(field, "an integer")),
        }
    };
    let ring = integer("ring", 0)?;
    if !(0..=i64::from(MAX_RING_DISTANCE)).contains(&ring) {
        return Err(ApiError::new(
            ErrorCode::InvalidRequest,
            format!("ring must be between 0 and 41, got {ring}"),
        )
        .with("field", "ring")
        .with("valid_range", json!([0, MAX_RING_DISTANCE])));
    }
    let resolution = integer("resolution", 8)?;
    if resolution != 8 {
        return Err(ApiError::new(
            ErrorCode::InvalidRequest,
            format!("only resolution 8 is served, got {resolution}"),
        )
        .with("field", "resolution"));
    }
    let detail = match body.get("detail") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err(input::malformed("detail", "a boolean")),
    };
    let centre = grid::cell_at(lat, lng).map_err(|e| {
        let (field, value) = match e.field() {
            grid::CoordinateField::Latitude => ("lat", lat),
            grid::CoordinateField::Longitude => ("lng", lng),
        };
        input::coordinate_error(&e, field, value)
    })?;
    let scoring: ScoringQuery = parse(body)?;
    let mut cache = ScoreCache::new(&scoring, now)?;
    let disk = grid::disk(centre, ring as u32).map_err(|e| {
        ApiError::new(ErrorCode::InvalidRequest, e.to_string()).with("field", "ring")
    })?;
    let mut cells = Vec::with_capacity(disk.len());
    for cell in disk {
        let mut row = score_row(atlas, &mut cache, cell)?;
        if detail {
            row["breakdown"] = match atlas.locate_cell(cell) {
                Some((city, position)) => {
                    let (scoring, scores) = cache.get(city)?;
                    breakdown_object(city, position, scoring, scores)
                }
                None => no_data_breakdown(),
            };
        }
        cells.push(row);
    }
    Ok(json!({
        "status": "success",
        "center": centre.to_string(),
        "ring": ring,
        "resolution": 8,
        "count": cells.len(),
        "cells": cells,
    }))
}

/// Scoring options from a query string: `intent`, `activeCodes` (comma-separated)
/// and `week`.
fn scoring_from_query(pairs: &[(String, String)]) -> ScoringQuery {
    ScoringQuery {
        intent: input::query_param(pairs, "intent").map(str::to_owned),
        active_codes: input::query_param(pairs, "activeCodes")
            .map(|codes| codes.split(',').map(|c| c.trim().to_owned()).collect()),
        toggles: None,
        modifiers: input::query_param(pairs, "week").map(|week| query::Modifiers {
            week: Some(week.to_owned()),
            class_weights: None,
        }),
    }
}

/// `GET /hexes/breakdown?h3=…&intent=…`.
///
/// # Errors
/// `INVALID_REQUEST` for a missing or malformed `h3`, or bad scoring options.
pub fn hexes_breakdown(
    atlas: &Atlas,
    pairs: &[(String, String)],
    now: DateTime<Utc>,
) -> Result<Value, ApiError> {
    let text = input::query_param(pairs, "h3").ok_or_else(|| input::missing("h3"))?;
    let cell = grid::parse_cell(text).map_err(|e| {
        ApiError::new(ErrorCode::InvalidRequest, format!("h3: {e}")).with("field", "h3")
    })?;
    let scoring = scoring_from_query(pairs);
    scoring.params().map_err(query_error)?;
    let mut body = match atlas.locate_cell(cell) {
        Some((city, position)) => {
            let mut cache = ScoreCache::new(&scoring, now)?;
            let (resolved, scores) = cache.get(city)?;
            let mut body = breakdown_object(city, position, resolved, scores);
            body["city"] = json!(city.artifact().city.code);
            body["modifiers"] = modifiers(resolved, city);
            body
        }
        None => no_data_breakdown(),
    };
    body["status"] = json!("success");
    body["h3"] = json!(cell.to_string());
    Ok(body)
}

fn box_side(pairs: &[(String, String)], name: &str, range: f64) -> Result<f64, ApiError> {
    let text = input::query_param(pairs, name).ok_or_else(|| input::missing(name))?;
    let value: f64 = text
        .parse()
        .ok()
        .filter(|v: &f64| v.is_finite() && v.abs() <= range)
        .ok_or_else(|| {
            ApiError::new(
                ErrorCode::InvalidCoordinates,
                format!("{name} must be a number between -{range} and {range}"),
            )
            .with("field", name)
            .with("value", text)
        })?;
    Ok(value)
}

/// `GET /hexes/all?west=…&south=…&east=…&north=…`: slim objects for every covered
/// cell whose centre lies in the box, and the count (for `X-Hex-Count`).
///
/// # Errors
/// `INVALID_COORDINATES` for a bad side; `INVALID_REQUEST` for an inverted box or a
/// side longer than 2 degrees.
pub fn hexes_all(
    atlas: &Atlas,
    pairs: &[(String, String)],
    now: DateTime<Utc>,
) -> Result<(Value, usize), ApiError> {
    let west = box_side(pairs, "west", 180.0)?;
    let east = box_side(pairs, "east", 180.0)?;
    let south = box_side(pairs, "south", 90.0)?;
    let north = box_side(pairs, "north", 90.0)?;
    if west >= east || south >= north {
        return Err(ApiError::new(
            ErrorCode::InvalidRequest,
            "the box must have west < east and south < north",
        )
        .with("field", "west,south,east,north"));
    }
    if east - west > MAX_BOX_SIDE_DEG || north - south > MAX_BOX_SIDE_DEG {
        return Err(ApiError::new(
            ErrorCode::InvalidRequest,
            format!("each side of the box must be at most {MAX_BOX_SIDE_DEG} degrees"),
        )
        .with("field", "west,south,east,north")
        .with("limit_degrees", MAX_BOX_SIDE_DEG)
        .with("width_degrees", east - west)
        .with("height_degrees", north - south));
    }
    let scoring = scoring_from_query(pairs);
    scoring.params().map_err(query_error)?;
    let mut items = Vec::new();
    for city in atlas.cities() {
        let b = &city.artifact().bounds;
        if b.east < west || b.west > east || b.north < south || b.south > north {
            continue;
        }
        let resolved = scoring.resolve(city, seconds(now)).map_err(query_error)?;
        let requested = CityScores::compute(city, resolved.week, &resolved.params);
        let by_intent: Vec<(Intent, CityScores)> = Intent::ALL
            .iter()
            .map(|&intent| {
                let params = ScoringParams {
                    intent,
                    ..resolved.params
                };
                (intent, CityScores::compute(city, resolved.week, &params))
            })
            .collect();
        for position in 0..city.cell_count() {
            let Some(cell) = city.cell(position) else {
                continue;
            };
            let (la, ln) = grid::cell_centre(cell);
            if !(west..=east).contains(&ln) || !(south..=north).contains(&la) {
                continue;
            }
            let rates = city.rates(position, resolved.week);
            let cr: Map<String, Value> = CRIME_CLASSES
                .iter()
                .zip(rates)
                .map(|(c, r)| (c.code().to_owned(), json!(r)))
                .collect();
            let ss: Map<String, Value> = by_intent
                .iter()
                .map(|(intent, scores)| (intent.name().to_owned(), json!(scores.safety(position))))
                .collect();
            items.push(json!({
                "h": cell.to_string(),
                "la": la,
                "ln": ln,
                "ci": requested.colour(position),
                "cr": cr,
                "ss": ss,
            }));
        }
    }
    let count = items.len();
    Ok((Value::Array(items), count))
}

/// `GET /route/config`.
#[must_use]
pub fn route_config() -> Value {
    json!({
        "status": "success",
        "defaultMethod": RouteMethod::default().name(),
        "methods": RouteMethod::ALL.iter().map(|m| json!({"name": m.name(), "alpha": m.alpha()})).collect::<Vec<_>>(),
        "intents": Intent::ALL.iter().map(|i| i.name()).collect::<Vec<_>>(),
        "modes": TravelMode::ALL.iter().map(|m| json!({"name": m.name(), "speedKmh": m.speed_m_per_s() * 3.6})).collect::<Vec<_>>(),
        "maxAlternatives": routing::MAX_ALTERNATIVES,
        "maxSnapDistanceM": routing::MAX_SNAP_DISTANCE_M,
        "maxHexPathCells": MAX_HEX_PATH_CELLS,
        "maxLinePositions": query::MAX_LINE_POSITIONS,
        "outsideCoverageRisk": routing::OUTSIDE_COVERAGE_RISK,
        "tiers": (0..=4_u8).map(|t| {
            let low = f64::from(4 - t) * 20.0;
            json!({
                "tier": t,
                "minSafety": low,
                "maxSafety": if t == 0 { 100.0 } else { low + 20.0 },
                "color": PALETTE[ColourIndex::from_safety_score(low + 10.0).get() as usize],
            })
        }).collect::<Vec<_>>(),
    })
}

/// `POST /route`.
///
/// # Errors
/// The engine's request errors ([`query::route`]).
pub fn route(
    atlas: &Atlas,
    body: &Map<String, Value>,
    now: DateTime<Utc>,
) -> Result<Value, ApiError> {
    let query: query::RouteQuery = parse(body)?;
    query::route(atlas, &query, seconds(now))
        .map(with_status)
        .map_err(query_error)
}

/// `POST /evaluate`.
///
/// # Errors
/// The engine's request errors ([`query::evaluate`]).
pub fn evaluate(
    atlas: &Atlas,
    body: &Map<String, Value>,
    now: DateTime<Utc>,
) -> Result<Value, ApiError> {
    let query: query::EvaluateQuery = parse(body)?;
    query::evaluate(atlas, &query, seconds(now))
        .map(with_status)
        .map_err(query_error)
}

/// `POST /evaluate-hex-path`.
///
/// # Errors
/// The engine's request errors ([`query::evaluate_hex_path`]).
pub fn evaluate_hex_path(
    atlas: &Atlas,
    body: &Map<String, Value>,
    now: DateTime<Utc>,
) -> Result<Value, ApiError> {
    let query: query::HexPathQuery = parse(body)?;
    query::evaluate_hex_path(atlas, &query, seconds(now))
        .map(with_status)
        .map_err(query_error)
}

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
type CityPrecincts<'a> = (&'a CityModel, Scoring, Vec<scores::PrecinctScore>);

fn precinct_rows<'a>(
    atlas: &'a Atlas,
    pairs: &[(String, String)],
    now: DateTime<Utc>,
) -> Result<Vec<CityPrecincts<'a>>, ApiError> {
    let scoring = scoring_from_query(pairs);
    atlas
        .cities()
        .iter()
        .map(|city| {
            let resolved = scoring.resolve(city, seconds(now)).map_err(query_error)?;
            let scores = CityScores::compute(city, resolved.week, &resolved.params);
            let rows = scores::precinct_scores(city, resolved.week, &scores);
            Ok((city, resolved, rows))
        })
        .collect()
}

fn precinct_properties(city: &CityModel, row: &scores::PrecinctScore) -> Value {
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
    pairs: &[(String, String)],
    now: DateTime<Utc>,
) -> Result<Value, ApiError> {
    let cities: Vec<Value> = precinct_rows(atlas, pairs, now)?
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

/// A ring of micro-degree `[lng, lat]` points as GeoJSON positions, turned
/// anticlockwise for an exterior ring and clockwise for a hole (RFC 7946 §3.1.6).
fn ring_positions(ring: &[[i32; 2]], exterior: bool) -> Vec<[f64; 2]> {
    let mut points: Vec<[f64; 2]> = ring
        .iter()
        .map(|p| [f64::from(p[0]) * 1e-6, f64::from(p[1]) * 1e-6])
        .collect();
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
    pairs: &[(String, String)],
    now: DateTime<Utc>,
) -> Result<Value, ApiError> {
    let mut features = Vec::new();
    for (city, scoring, rows) in precinct_rows(atlas, pairs, now)? {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::prediction::tests::{atlas, now};
    use hexrisk_engine::artifact::PrecinctRecord;

    fn body(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            other => panic!("not an object: {other}"),
        }
    }

    /// The test city with one square precinct holding every cell.
    fn with_precinct() -> Atlas {
        let mut artifact = atlas().cities()[0].artifact().clone();
        artifact.precinct_of = vec![0; artifact.cells.len()];
        artifact.precincts = vec![PrecinctRecord {
            id: "D52".into(),
            name: "52 Division".into(),
            // Clockwise on purpose: the GeoJSON must come out anticlockwise.
            polygons: vec![vec![vec![
                [-79_420_000, 43_630_000],
                [-79_420_000, 43_680_000],
                [-79_350_000, 43_680_000],
                [-79_350_000, 43_630_000],
                [-79_420_000, 43_630_000],
            ]]],
        }];
        Atlas::new(vec![CityModel::from_artifact(artifact)])
    }

    fn cells() -> Vec<String> {
        let centre = grid::cell_at(43.6534, -79.3841).unwrap();
        grid::disk(centre, 3)
            .unwrap()
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn score_rows_follow_the_request_order_with_no_data_rows() {
        let mut ids = cells();
        ids.reverse();
        let outside = grid::cell_at(10.0, 10.0).unwrap().to_string();
        ids.insert(3, outside.clone());
        let rows = hexes_score(
            &atlas(),
            &body(json!({"hexIds": ids, "intent": "night"})),
            now(),
        )
        .unwrap();
        let rows = rows.as_array().unwrap();
        assert_eq!(rows.len(), ids.len());
        for (row, id) in rows.iter().zip(&ids) {
            assert_eq!(row["h3"], json!(id));
        }
        assert_eq!(rows[3]["colorIndex"], -1);
        assert!(rows[3]["safetyScore"].is_null());
        assert!(
            rows.iter()
                .filter(|r| r["colorIndex"] != -1)
                .all(|r| r["safetyScore"].is_f64())
        );
    }

    #[test]
    fn score_limits_and_bad_ids_are_400_with_the_index() {
        let too_many = vec![cells()[0].clone(); MAX_SCORE_IDS + 1];
        let err = hexes_score(&atlas(), &body(json!({"hexIds": too_many})), now()).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidRequest);
        assert_eq!(err.details["limit"], MAX_SCORE_IDS);
        let err = hexes_score(
            &atlas(),
            &body(json!({"hexIds": [cells()[0], "nope"]})),
            now(),
        )
        .unwrap_err();
        assert_eq!(err.details["index"], 1);
        let parent = grid::cell_at(43.6534, -79.3841)
            .unwrap()
            .parent(h3o::Resolution::Seven)
            .unwrap();
        let err = hexes_score(
            &atlas(),
            &body(json!({"hexIds": [parent.to_string()]})),
            now(),
        )
        .unwrap_err();
        assert_eq!(err.details["resolution"], 7);
        let err = hexes_score(&atlas(), &body(json!({"hexIds": [1]})), now()).unwrap_err();
        assert_eq!(err.details["index"], 0);
        let err = hexes_score(
            &atlas(),
            &body(json!({"hexIds": cells(), "intent": "flying"})),
            now(),
        )
        .unwrap_err();
        assert_eq!(err.details["field"], "intent");
        let err = hexes_score(
            &atlas(),
            &body(json!({"hexIds": cells(), "activeCodes": ["BOGUS"]})),
            now(),
        )
        .unwrap_err();
        assert_eq!(err.details["field"], "activeCodes");
        // Options are checked even when no cell is covered.
        let outside = grid::cell_at(10.0, 10.0).unwrap().to_string();
        let err = hexes_score(
            &atlas(),
            &body(json!({"hexIds": [outside], "intent": "flying"})),
            now(),
        )
        .unwrap_err();
        assert_eq!(err.details["field"], "intent");
        let err = hexes_score(
            &atlas(),
            &body(json!({"hexIds": cells(), "activeCodes": ["BOGUS"]})),
            now(),
        )
        .unwrap_err();
        assert_eq!(err.details["field"], "activeCodes");
        assert!(hexes_score(&atlas(), &body(json!({})), now()).is_err());
    }

    #[test]
    fn lookups_return_the_ring_and_refuse_bad_rings_and_resolutions() {
        for (k, n) in [(0, 1), (1, 7), (5, 91)] {
            let out = hexes_lookup(
                &atlas(),
                &body(json!({"lat": 43.6534, "lng": -79.3841, "ring": k})),
                now(),
            )
            .unwrap();
            assert_eq!(out["count"], n);
            assert_eq!(out["cells"].as_array().unwrap().len(), n);
            assert_eq!(out["cells"][0]["h3"], out["center"]);
        }
        let detail = hexes_lookup(
            &atlas(),
            &body(json!({"lat": 43.6534, "lng": -79.3841, "ring": 4, "detail": true})),
            now(),
        )
        .unwrap();
        let cells = detail["cells"].as_array().unwrap();
        assert!(cells.iter().any(|c| c["breakdown"]["hasData"] == true));
        assert!(
            cells
                .iter()
                .any(|c| c["breakdown"]["hasData"] == false && c["colorIndex"] == -1)
        );
        for ring in [-1, 42] {
            let err = hexes_lookup(
                &atlas(),
                &body(json!({"lat": 43.65, "lng": -79.38, "ring": ring})),
                now(),
            )
            .unwrap_err();
            assert_eq!(
                (err.code, err.details["field"].as_str()),
                (ErrorCode::InvalidRequest, Some("ring"))
            );
        }
        let err = hexes_lookup(
            &atlas(),
            &body(json!({"lat": 43.65, "lng": -79.38, "resolution": 9})),
            now(),
        )
        .unwrap_err();
        assert_eq!(err.details["field"], "resolution");
        let err =
            hexes_lookup(&atlas(), &body(json!({"lat": 91, "lng": -79.38})), now()).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidCoordinates);
        let err = hexes_lookup(
            &atlas(),
            &body(json!({"lat": 43.65, "lng": -79.38, "ring": 1.5})),
            now(),
        )
        .unwrap_err();
        assert_eq!(err.details["field"], "ring");
    }

    #[test]
    fn breakdowns_sum_their_shares_and_say_when_there_is_no_data() {
        let id = cells()[0].clone();
        let pairs = vec![
            ("h3".to_owned(), id.clone()),
            ("intent".to_owned(), "walking".to_owned()),
        ];
        let out = hexes_breakdown(&atlas(), &pairs, now()).unwrap();
        assert_eq!(out["hasData"], true);
        assert_eq!(out["modifiers"]["intent"], "walking");
        let rows = out["crimeTypes"].as_array().unwrap();
        assert_eq!(rows.len(), 5);
        let share: f64 = rows.iter().map(|r| r["share"].as_f64().unwrap()).sum();
        assert!((share - 1.0).abs() < 1e-9);
        let safety = out["safetyScore"].as_f64().unwrap();
        assert!((out["normalizedRisk"].as_f64().unwrap() - (1.0 - safety / 100.0)).abs() < 1e-12);
        let outside = vec![(
            "h3".to_owned(),
            grid::cell_at(10.0, 10.0).unwrap().to_string(),
        )];
        let none = hexes_breakdown(&atlas(), &outside, now()).unwrap();
        assert_eq!(
            (none["hasData"].as_bool(), none["colorIndex"].as_i64()),
            (Some(false), Some(-1))
        );
        assert!(hexes_breakdown(&atlas(), &[("h3".to_owned(), "zz".to_owned())], now()).is_err());
        assert!(hexes_breakdown(&atlas(), &[], now()).is_err());
    }

    fn bbox(w: f64, s: f64, e: f64, n: f64) -> Vec<(String, String)> {
        [("west", w), ("south", s), ("east", e), ("north", n)]
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.to_string()))
            .collect()
    }

    #[test]
    fn viewport_lists_slim_objects_inside_the_box_only() {
        let (all, count) = hexes_all(&atlas(), &bbox(-79.5, 43.6, -79.3, 43.7), now()).unwrap();
        assert_eq!(count, 37);
        let first = &all[0];
        for key in ["h", "la", "ln", "ci", "cr", "ss"] {
            assert!(first.get(key).is_some(), "{key}");
        }
        assert_eq!(first["ss"].as_object().unwrap().len(), 4);
        assert_eq!(first["cr"].as_object().unwrap().len(), 5);
        let (_, few) =
            hexes_all(&atlas(), &bbox(-79.3845, 43.653, -79.3835, 43.654), now()).unwrap();
        assert!(few < count);
        let err = hexes_all(&atlas(), &bbox(-80.0, 43.0, -77.9, 43.5), now()).unwrap_err();
        assert_eq!(err.details["limit_degrees"], 2.0);
        assert!(hexes_all(&atlas(), &bbox(-79.3, 43.6, -79.5, 43.7), now()).is_err());
        let err = hexes_all(&atlas(), &bbox(-79.5, 43.6, -79.3, 95.0), now()).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidCoordinates);
    }

    #[test]
    fn routes_and_evaluations_answer_through_the_engine() {
        let out = route(
            &atlas(),
            &body(json!({"origin": {"lat": 43.6534, "lng": -79.3841}, "destination": {"lat": 43.66, "lng": -79.37}, "snapToRoads": false})),
            now(),
        )
        .unwrap();
        assert_eq!(out["status"], "success");
        assert_eq!(out["network"], "hex-lattice");
        let hex_path = out["hexPath"].clone();
        let evaluated =
            evaluate_hex_path(&atlas(), &body(json!({"hexPath": hex_path})), now()).unwrap();
        assert_eq!(evaluated["metrics"], out["best"]["corridorMetrics"]);
        // Without roads in this city, snapping to roads is refused clearly.
        let err = route(&atlas(), &body(json!({"origin": {"lat": 43.6534, "lng": -79.3841}, "destination": {"lat": 43.66, "lng": -79.37}})), now()).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidRequest);
        let err = route(
            &atlas(),
            &body(json!({"origin": {"lat": "x", "lng": 1}})),
            now(),
        )
        .unwrap_err();
        assert_eq!(err.details["field"], "body");
        let line = evaluate(&atlas(), &body(json!({"geometry": {"type": "LineString", "coordinates": [[-79.3841, 43.6534], [-79.37, 43.66]]}})), now()).unwrap();
        assert!(line["metrics"]["distanceM"].as_f64().unwrap() > 1000.0);
        let err = evaluate_hex_path(
            &atlas(),
            &body(json!({"hexPath": [cells()[0], grid::cell_at(10.0, 10.0).unwrap().to_string()]})),
            now(),
        )
        .unwrap_err();
        assert_eq!(
            (err.details["field"].as_str(), err.details["index"].as_u64()),
            (Some("hexPath"), Some(1))
        );
    }

    #[test]
    fn precinct_answers_are_geojson_with_scores() {
        let atlas = with_precinct();
        let status = precincts_status(&atlas);
        assert_eq!(status["precincts"], 1);
        let scores = precincts_all_scores(&atlas, &[], now()).unwrap();
        let row = &scores["cities"][0]["precincts"][0];
        assert_eq!(row["cells"], 37);
        assert!(row["safetyScore"].as_f64().is_some());
        let geojson = precincts_geojson(&atlas, &[], now()).unwrap();
        assert_eq!(geojson["type"], "FeatureCollection");
        let feature = &geojson["features"][0];
        assert_eq!(feature["geometry"]["type"], "MultiPolygon");
        let ring = feature["geometry"]["coordinates"][0][0].as_array().unwrap();
        assert_eq!(ring.first(), ring.last());
        // Anticlockwise: positive shoelace area.
        let points: Vec<[f64; 2]> = ring
            .iter()
            .map(|p| [p[0].as_f64().unwrap(), p[1].as_f64().unwrap()])
            .collect();
        let area: f64 = points
            .windows(2)
            .map(|w| w[0][0] * w[1][1] - w[1][0] * w[0][1])
            .sum();
        assert!(area > 0.0);
        assert_eq!(feature["properties"]["id"], "D52");
    }

    #[test]
    fn configs_describe_palette_methods_and_tiers() {
        let config = hexes_config();
        assert_eq!(config["data"]["colors"].as_array().unwrap().len(), 17);
        assert_eq!(config["data"]["resolution"], 8);
        let route = route_config();
        assert_eq!(route["methods"].as_array().unwrap().len(), 3);
        assert_eq!(route["tiers"].as_array().unwrap().len(), 5);
        assert_eq!(route["maxSnapDistanceM"], 500.0);
    }
}
