//! `HexRisk`: the engine over loaded city artifacts, the operations of both APIs
//! offline but the road ones (`super::roads`).
#![allow(unsafe_code)]

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use js_sys::Reflect;
use wasm_bindgen::prelude::*;

use super::{ForecastRecord, api_error, from_js, now_seconds, query_error, to_js};
use crate::forecast::CrimeClass;
use crate::operations::{self, ErrorCode};

/// Forecast engine over one or more city artifacts, fully offline.
#[wasm_bindgen]
#[derive(Default)]
pub struct HexRisk {
    pub(super) atlas: crate::city::Atlas,
    // Scores of the last options per city, for the column operations a map
    // repeats; cleared whenever a city is added.
    memo: core::cell::RefCell<crate::operations::ScoreMemo>,
}

/// A request object as a JSON map (`undefined` or `null` means `{}`).
fn request_object(request: JsValue) -> Result<serde_json::Map<String, serde_json::Value>, JsValue> {
    let value: serde_json::Value = if request.is_undefined() || request.is_null() {
        serde_json::Value::Object(serde_json::Map::new())
    } else {
        from_js(request)?
    };
    match value {
        serde_json::Value::Object(body) => Ok(body),
        _ => Err(query_error(&crate::operations::QueryError::malformed(
            "the request must be an object",
        ))),
    }
}

/// Scored cells as `{cells, safetyScores, colorIndexes}` typed arrays, one copy each.
fn scored_cells(scored: &crate::operations::ScoredCells) -> JsValue {
    let cells: Vec<u64> = scored.cells.iter().map(|&cell| u64::from(cell)).collect();
    let object = js_sys::Object::new();
    // Setting properties on a fresh plain object cannot fail.
    let _ = Reflect::set(
        &object,
        &"cells".into(),
        &js_sys::BigUint64Array::from(&cells[..]),
    );
    let _ = Reflect::set(
        &object,
        &"safetyScores".into(),
        &js_sys::Float64Array::from(&scored.safety_scores[..]),
    );
    let _ = Reflect::set(
        &object,
        &"colorIndexes".into(),
        &js_sys::Int8Array::from(&scored.color_indexes[..]),
    );
    object.into()
}

impl HexRisk {
    /// Runs an `api` operation on a request object (`undefined` or `null` means `{}`).
    pub(super) fn call<T: serde::Serialize>(
        &self,
        request: JsValue,
        now_ms: Option<f64>,
        operation: impl FnOnce(
            &crate::city::Atlas,
            &serde_json::Map<String, serde_json::Value>,
            i64,
        ) -> Result<T, crate::operations::QueryError>,
    ) -> Result<JsValue, JsValue> {
        let body = request_object(request)?;
        let answer =
            operation(&self.atlas, &body, now_seconds(now_ms)).map_err(|e| query_error(&e))?;
        to_js(&answer)
    }

    /// Runs a column operation on a request object with the engine's score memo.
    fn call_columns(
        &self,
        request: JsValue,
        now_ms: Option<f64>,
        operation: impl FnOnce(
            &crate::city::Atlas,
            &serde_json::Map<String, serde_json::Value>,
            i64,
            &mut crate::operations::ScoreMemo,
        )
            -> Result<crate::operations::ScoredCells, crate::operations::QueryError>,
    ) -> Result<JsValue, JsValue> {
        let body = request_object(request)?;
        operation(
            &self.atlas,
            &body,
            now_seconds(now_ms),
            &mut self.memo.borrow_mut(),
        )
        .map(|scored| scored_cells(&scored))
        .map_err(|e| query_error(&e))
    }
}

fn city_record(city: &crate::city::CityModel) -> Result<JsValue, JsValue> {
    #[derive(serde::Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Record<'a> {
        code: &'a str,
        name: &'a str,
        country: &'a str,
        timezone: &'a str,
        cells: usize,
        first_week: String,
        last_week: String,
        bounds: &'a crate::artifact::Bounds,
        model_version: &'a str,
        last_updated: String,
    }
    let info = &city.artifact().city;
    let record = Record {
        code: &info.code,
        name: &info.name,
        country: &info.country,
        timezone: &info.timezone,
        cells: city.cell_count(),
        first_week: city.first_week().to_string(),
        last_week: city.last_week().to_string(),
        bounds: &city.artifact().bounds,
        model_version: &city.artifact().model.version,
        last_updated: city.artifact().model.last_updated.to_string(),
    };
    to_js(&record)
}

#[wasm_bindgen]
impl HexRisk {
    /// An engine with no cities loaded.
    #[wasm_bindgen(constructor)]
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Loads a city artifact (the bytes of a `.hxrk` file) and returns its record.
    /// `version` is the published version label of the file (`manifest.json`'s
    /// `cities[].version`), which answers then name as the HTTP API does; without it
    /// they name the label written in the file.
    ///
    /// # Errors
    /// Throws `INVALID_ARTIFACT` for a truncated, corrupted or wrong-version file.
    #[wasm_bindgen(js_name = addCity, unchecked_return_type = "CityRecord")]
    pub fn add_city(&mut self, bytes: &[u8], version: Option<String>) -> Result<JsValue, JsValue> {
        let city = crate::city::CityModel::from_bytes(bytes)
            .map_err(|err| api_error(ErrorCode::InvalidArtifact, &err.to_string()))?;
        let city = match version {
            Some(label) => city.with_version_label(&label),
            None => city,
        };
        let record = city_record(&city)?;
        self.atlas.insert(city);
        self.memo.get_mut().clear();
        Ok(record)
    }

    /// The loaded cities.
    ///
    /// # Errors
    /// Never in practice.
    #[wasm_bindgen(unchecked_return_type = "CityRecord[]")]
    pub fn cities(&self) -> Result<JsValue, JsValue> {
        let array = js_sys::Array::new();
        for city in self.atlas.cities() {
            array.push(&city_record(city)?);
        }
        Ok(array.into())
    }

    /// The prediction range of a city at an instant (milliseconds since the epoch,
    /// `Date.now()` by default): `{start, end, weeksAvailable, currentWeek}`.
    ///
    /// # Errors
    /// Throws `INVALID_REQUEST` for a city that is not loaded.
    #[wasm_bindgen(js_name = predictionRange, unchecked_return_type = "PredictionRange")]
    pub fn prediction_range(&self, city: &str, now_ms: Option<f64>) -> Result<JsValue, JsValue> {
        #[derive(serde::Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Range {
            start: String,
            end: String,
            weeks_available: usize,
            current_week: Option<String>,
        }
        let model = self
            .atlas
            .city(city)
            .ok_or_else(|| api_error(ErrorCode::InvalidRequest, "no such city loaded"))?;
        let now_ms = now_ms.unwrap_or_else(js_sys::Date::now);
        let range = model.prediction_range((now_ms / 1000.0).floor() as i64);
        to_js(&Range {
            start: range.start.to_string(),
            end: range.end.to_string(),
            weeks_available: range.weeks_available,
            current_week: range.current_week.map(|d| d.to_string()),
        })
    }

    /// A point prediction with exactly the body and answer of the prediction API's
    /// `POST /v1/predict`: `{latitude, longitude, datetime?}`; without `datetime`
    /// the week containing `nowMs` (`Date.now()` by default).
    ///
    /// # Errors
    /// Throws `INVALID_REQUEST`, `INVALID_COORDINATES`, `LOCATION_NOT_COVERED` or
    /// `DATE_OUT_OF_RANGE`, with the API's `details`.
    #[wasm_bindgen(unchecked_return_type = "PredictResponse")]
    pub fn predict(
        &self,
        #[wasm_bindgen(unchecked_param_type = "PredictRequest")] request: JsValue,
        now_ms: Option<f64>,
    ) -> Result<JsValue, JsValue> {
        self.call(request, now_ms, crate::operations::prediction::predict)
    }

    /// Point predictions of many locations with exactly the body and answer of the
    /// prediction API's `POST /v1/predict/batch`: `{locations, datetime?}` (at most
    /// 500), each location's failure reported in its place.
    ///
    /// # Errors
    /// Throws `INVALID_REQUEST` for a missing, empty or oversize `locations` or a bad
    /// `datetime`.
    #[wasm_bindgen(js_name = predictBatch, unchecked_return_type = "PredictBatchResponse")]
    pub fn predict_batch(
        &self,
        #[wasm_bindgen(unchecked_param_type = "PredictBatchRequest")] request: JsValue,
        now_ms: Option<f64>,
    ) -> Result<JsValue, JsValue> {
        self.call(
            request,
            now_ms,
            crate::operations::prediction::predict_batch,
        )
    }

    /// The risk of a route given as waypoints, segment by segment, with exactly the
    /// body and answer of the prediction API's `POST /v1/route/risk`: `{waypoints,
    /// datetime?}` for a week, or `{waypoints, departure_time, travel_mode?}` for the
    /// time band in which a traveller reaches each cell.
    ///
    /// # Errors
    /// Throws `INVALID_REQUEST` (waypoints, times, travel mode), `INVALID_COORDINATES`,
    /// `LOCATION_NOT_COVERED` or `DATE_OUT_OF_RANGE`, with the API's `details`.
    #[wasm_bindgen(js_name = routeRisk, unchecked_return_type = "RouteRiskResponse")]
    pub fn route_risk(
        &self,
        #[wasm_bindgen(unchecked_param_type = "RouteRiskRequest")] request: JsValue,
        now_ms: Option<f64>,
    ) -> Result<JsValue, JsValue> {
        self.call(request, now_ms, crate::operations::prediction::route_risk)
    }

    /// Scores cells, in request order (`POST /hexes/score`): `{hexIds, intent?,
    /// activeCodes?, toggles?, modifiers?}` to `[{h3, safetyScore, colorIndex}]`.
    ///
    /// # Errors
    /// `INVALID_REQUEST` for more than 5000 ids or a bad id (`details.index`).
    #[wasm_bindgen(js_name = scoreHexes, unchecked_return_type = "HexScoreRow[]")]
    pub fn score_hexes(
        &self,
        #[wasm_bindgen(unchecked_param_type = "ScoreRequest")] request: JsValue,
        now_ms: Option<f64>,
    ) -> Result<JsValue, JsValue> {
        self.call(request, now_ms, operations::hexes_score)
    }

    /// Scores the cells within `ring` (0..41) of a point (`POST /hexes/lookup`).
    ///
    /// # Errors
    /// `INVALID_REQUEST` for a ring outside 0..41 or a resolution other than 8;
    /// `INVALID_COORDINATES`.
    #[wasm_bindgen(unchecked_return_type = "LookupResponse")]
    pub fn lookup(
        &self,
        #[wasm_bindgen(unchecked_param_type = "LookupRequest")] request: JsValue,
        now_ms: Option<f64>,
    ) -> Result<JsValue, JsValue> {
        self.call(request, now_ms, operations::hexes_lookup)
    }

    /// One cell's per-class breakdown (`GET /hexes/breakdown`): `{h3, intent?,
    /// activeCodes?, week?}`.
    ///
    /// # Errors
    /// `INVALID_REQUEST` for a missing or malformed `h3` or bad options.
    #[wasm_bindgen(unchecked_return_type = "CellBreakdown")]
    pub fn breakdown(
        &self,
        #[wasm_bindgen(unchecked_param_type = "BreakdownRequest")] request: JsValue,
        now_ms: Option<f64>,
    ) -> Result<JsValue, JsValue> {
        self.call(request, now_ms, operations::hexes_breakdown)
    }

    /// Slim objects for the covered cells in a box (`GET /hexes/all`): `{west,
    /// south, east, north}` as numbers or text, sides at most 2 degrees.
    ///
    /// # Errors
    /// `INVALID_REQUEST` for an inverted or oversize box; `INVALID_COORDINATES`.
    #[wasm_bindgen(js_name = hexesInBox, unchecked_return_type = "SlimHex[]")]
    pub fn hexes_in_box(
        &self,
        #[wasm_bindgen(unchecked_param_type = "BoxRequest")] request: JsValue,
        now_ms: Option<f64>,
    ) -> Result<JsValue, JsValue> {
        self.call(request, now_ms, |atlas, params, now| {
            operations::hexes_all(atlas, params, now).map(|(list, _)| list)
        })
    }

    /// `hexesInBox` as RFC 7946 GeoJSON, what `GET /hexes/all` answers to `Accept:
    /// application/geo+json`: a FeatureCollection of the cells' polygons, with
    /// properties `h3`, `colorIndex`, `crimeRates` and `safetyScores`.
    ///
    /// # Errors
    /// As `hexesInBox`.
    #[wasm_bindgen(js_name = hexesInBoxGeoJSON, unchecked_return_type = "HexFeatureCollection")]
    pub fn hexes_in_box_geojson(
        &self,
        #[wasm_bindgen(unchecked_param_type = "BoxRequest")] request: JsValue,
        now_ms: Option<f64>,
    ) -> Result<JsValue, JsValue> {
        self.call(request, now_ms, |atlas, params, now| {
            operations::hexes_all(atlas, params, now)
                .map(|(list, _)| operations::hexes_feature_collection(&list))
        })
    }

    /// A Mapbox Vector Tile of a city's risk (`{city, z, x, y}` and the scoring
    /// options of `hexesInBox`): byte for byte what `GET
    /// /tiles/{city}/{z}/{x}/{y}.mvt` answers; empty when nothing of the city is in
    /// the tile.
    ///
    /// # Errors
    /// `INVALID_REQUEST` for a tile outside the pyramid served (zoom 8 to 16) or bad
    /// options; `NOT_FOUND` for a city not added.
    #[wasm_bindgen]
    pub fn tile(
        &self,
        #[wasm_bindgen(unchecked_param_type = "TileRequest")] request: JsValue,
        now_ms: Option<f64>,
    ) -> Result<Vec<u8>, JsValue> {
        let body = request_object(request)?;
        let number = |name: &'static str| {
            body.get(name)
                .and_then(serde_json::Value::as_u64)
                .ok_or_else(|| {
                    query_error(&operations::QueryError::invalid(
                        name,
                        "z, x and y must be whole numbers",
                    ))
                })
        };
        let id = operations::served_tile(number("z")?, number("x")?, number("y")?)
            .map_err(|e| query_error(&e))?;
        let city = body
            .get("city")
            .and_then(serde_json::Value::as_str)
            .unwrap_or_default();
        operations::tile(&self.atlas, city, id, &body, now_seconds(now_ms))
            .map_err(|e| query_error(&e))
    }

    /// The cells within `ring` of a point with their scores, in columns: the job
    /// of `lookup` without building an object per cell (same request). The
    /// column operations keep each city's scores for the last options and week,
    /// so repeating a request with the same options skips the scoring.
    ///
    /// # Errors
    /// As `lookup`.
    #[wasm_bindgen(js_name = ringScores, unchecked_return_type = "ScoredCells")]
    pub fn ring_scores(
        &self,
        #[wasm_bindgen(unchecked_param_type = "LookupRequest")] request: JsValue,
        now_ms: Option<f64>,
    ) -> Result<JsValue, JsValue> {
        self.call_columns(request, now_ms, operations::ring_scores)
    }

    /// Scores cells given as 64-bit H3 indexes, in order, in columns: the job of
    /// `scoreHexes` without text ids or row objects. `options` takes the scoring
    /// options of `scoreHexes`. No count limit.
    ///
    /// # Errors
    /// `INVALID_REQUEST` with `details.index` for a value that is not a
    /// resolution-8 cell; bad scoring options.
    #[wasm_bindgen(js_name = cellScores, unchecked_return_type = "ScoredCells")]
    pub fn cell_scores(
        &self,
        cells: &[u64],
        #[wasm_bindgen(unchecked_param_type = "ScoringOptions | undefined")] options: JsValue,
        now_ms: Option<f64>,
    ) -> Result<JsValue, JsValue> {
        self.call_columns(options, now_ms, |atlas, options, now, memo| {
            operations::cell_scores(atlas, cells, options, now, memo)
        })
    }

    /// The covered cells whose centres lie in a box with their scores, in columns:
    /// the job of `hexesInBox` without the per-cell objects (same request).
    ///
    /// # Errors
    /// As `hexesInBox`.
    #[wasm_bindgen(js_name = boxScores, unchecked_return_type = "ScoredCells")]
    pub fn box_scores(
        &self,
        #[wasm_bindgen(unchecked_param_type = "BoxRequest")] request: JsValue,
        now_ms: Option<f64>,
    ) -> Result<JsValue, JsValue> {
        self.call_columns(request, now_ms, operations::box_scores)
    }

    /// Every precinct's scores (`GET /precincts/all-scores`).
    ///
    /// # Errors
    /// Bad scoring options.
    #[wasm_bindgen(js_name = precinctScores)]
    pub fn precinct_scores(
        &self,
        request: JsValue,
        now_ms: Option<f64>,
    ) -> Result<JsValue, JsValue> {
        self.call(request, now_ms, operations::precincts_all_scores)
    }

    /// Precinct boundaries with scores, a GeoJSON FeatureCollection (`GET /precincts`).
    ///
    /// # Errors
    /// Bad scoring options.
    #[wasm_bindgen]
    pub fn precincts(&self, request: JsValue, now_ms: Option<f64>) -> Result<JsValue, JsValue> {
        self.call(request, now_ms, operations::precincts_geojson)
    }

    /// The forecast for a point in the week containing `date` (YYYY-MM-DD).
    ///
    /// # Errors
    /// Throws `INVALID_COORDINATES`, `LOCATION_NOT_COVERED`, `INVALID_REQUEST` (bad
    /// date) or `DATE_OUT_OF_RANGE`.
    #[wasm_bindgen(unchecked_return_type = "CellForecast")]
    pub fn forecast(&self, latitude: f64, longitude: f64, date: &str) -> Result<JsValue, JsValue> {
        let date = operations::dates::parse_date(date)
            .ok_or_else(|| api_error(ErrorCode::InvalidRequest, "date must be YYYY-MM-DD"))?;
        let (city, cell, position) =
            self.atlas
                .locate(latitude, longitude)
                .map_err(|err| match err {
                    crate::city::LocateError::Coordinates(e) => {
                        api_error(ErrorCode::InvalidCoordinates, &e.to_string())
                    }
                    crate::city::LocateError::NotCovered => {
                        api_error(ErrorCode::LocationNotCovered, &err.to_string())
                    }
                })?;
        let week = city
            .week_index(date)
            .map_err(|err| api_error(ErrorCode::DateOutOfRange, &err.to_string()))?;
        let forecast = city.forecast(position, week);
        let record = ForecastRecord {
            city: city.artifact().city.code.clone(),
            cell: cell.to_string(),
            week_of: city.week_monday(week).to_string(),
            rates: forecast.rates,
            probabilities: CrimeClass::ALL
                .iter()
                .map(|c| (c.code(), forecast.probabilities[c.index()]))
                .collect(),
            dominant_type: forecast.dominant().code(),
            risk_level: forecast.risk_level().code(),
        };
        to_js(&record)
    }
}
