//! wasm-bindgen bindings: the JavaScript API of the `hexrisk` npm package.
//!
//! The package holds two builds of these bindings: with feature `wasm`, the grid
//! engine its default entry loads; with `wasm-roads`, the roads engine of
//! `hexrisk/roads`, which adds the operations over road networks (`roads`). Leaving
//! them out keeps their code, and what only they reach, out of the smaller wasm.
//!
//! Errors are thrown as JavaScript `Error`s whose `code` property carries the API
//! error code (for example `INVALID_COORDINATES`), so offline and online clients
//! handle failures the same way.
#![allow(unsafe_code)]

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use js_sys::{Error, Reflect};
use wasm_bindgen::prelude::*;

use crate::forecast::{ClassRecord, CrimeClass, RiskLevel};
use crate::grid;
use crate::operations::ErrorCode;
use crate::scoring::{ColourIndex, PALETTE};

mod answer;
mod hex_risk;
#[cfg(feature = "wasm-roads")]
mod roads;

pub use hex_risk::HexRisk;

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = r#"
/** A crime class as GET /v1/classes lists it. */
export interface CrimeClassRecord {
  code: "THEFT_BURGLARY" | "BATTERY_ASSAULT" | "VEHICLE_DAMAGE" | "SERIOUS_VIOLENT" | "OTHER" | "NO_CRIME";
  name: string;
  description: string;
  severity: number;
}
/** A risk level value. */
export type RiskLevelCode = "LOW" | "MODERATE" | "HIGH" | "VERY_HIGH";
"#;

/// Builds a JavaScript `Error` carrying an API error code.
pub(super) fn api_error(code: ErrorCode, message: &str) -> JsValue {
    let error = Error::new(message);
    // Setting a property on a fresh Error object cannot fail.
    let _ = Reflect::set(&error, &"code".into(), &code.as_str().into());
    error.into()
}

/// A `QueryError` as a thrown `Error` with `code` and `details` (`field`, and
/// `index` or `distanceM` when known), like the HTTP error body.
pub(super) fn query_error(err: &crate::operations::QueryError) -> JsValue {
    let error = api_error(err.code, &err.message);
    if let Ok(details) = to_js(&err.details()) {
        let _ = Reflect::set(&error, &"details".into(), &details);
    }
    error
}

/// Reads a request object into a query type.
pub(super) fn from_js<T: serde::de::DeserializeOwned>(value: JsValue) -> Result<T, JsValue> {
    serde_wasm_bindgen::from_value(value)
        .map_err(|e| query_error(&crate::operations::QueryError::malformed(e.to_string())))
}

pub(super) fn now_seconds(now_ms: Option<f64>) -> i64 {
    (now_ms.unwrap_or_else(js_sys::Date::now) / 1000.0).floor() as i64
}

/// Converts to a plain JavaScript value (objects, not `Map`s), as its JSON value.
pub(super) fn to_js<T: serde::Serialize + ?Sized>(value: &T) -> Result<JsValue, JsValue> {
    answer::to_js(value)
}

/// Version of the engine.
#[wasm_bindgen]
#[must_use]
pub fn version() -> String {
    crate::VERSION.to_string()
}

/// Fetches a city artifact (`.hxrk`) from a URL, for `HexRisk.addCity`:
/// `engine.addCity(await fetchArtifact('/artifacts/city_ca_tor.hxrk'))`. Uses the
/// host's `fetch` (browsers, Node 18+, workers).
///
/// # Errors
/// Rejects with `code = "INVALID_ARTIFACT"` when the fetch fails or answers with an
/// HTTP error status.
#[wasm_bindgen(js_name = fetchArtifact)]
pub async fn fetch_artifact(url: String) -> Result<js_sys::Uint8Array, JsValue> {
    use wasm_bindgen::JsCast;
    let failed =
        |what: &str| api_error(ErrorCode::InvalidArtifact, &alloc::format!("{url}: {what}"));
    let global = js_sys::global();
    let fetch: js_sys::Function = Reflect::get(&global, &"fetch".into())
        .ok()
        .and_then(|f| f.dyn_into().ok())
        .ok_or_else(|| failed("no fetch in this environment"))?;
    let pending: js_sys::Promise = fetch
        .call1(&global, &url.clone().into())
        .ok()
        .and_then(|p| p.dyn_into().ok())
        .ok_or_else(|| failed("fetch did not start"))?;
    let response = wasm_bindgen_futures::JsFuture::from(pending)
        .await
        .map_err(|_| failed("fetch failed"))?;
    if !Reflect::get(&response, &"ok".into()).is_ok_and(|ok| ok.is_truthy()) {
        let status = Reflect::get(&response, &"status".into())
            .ok()
            .and_then(|s| s.as_f64())
            .unwrap_or(0.0);
        return Err(failed(&alloc::format!("HTTP status {status}")));
    }
    let read: js_sys::Function = Reflect::get(&response, &"arrayBuffer".into())
        .ok()
        .and_then(|f| f.dyn_into().ok())
        .ok_or_else(|| failed("not a fetch response"))?;
    let buffer: js_sys::Promise = read
        .call0(&response)
        .ok()
        .and_then(|p| p.dyn_into().ok())
        .ok_or_else(|| failed("body could not be read"))?;
    let bytes = wasm_bindgen_futures::JsFuture::from(buffer)
        .await
        .map_err(|_| failed("body could not be read"))?;
    Ok(js_sys::Uint8Array::new(&bytes))
}

/// The H3 resolution-8 cell id containing a point.
///
/// Throws an `Error` with `code = "INVALID_COORDINATES"` for a latitude outside
/// -90..90, a longitude outside -180..180 or a non-finite value.
///
/// # Errors
/// The thrown error described above.
#[wasm_bindgen(js_name = cellAt)]
pub fn cell_at(latitude: f64, longitude: f64) -> Result<String, JsValue> {
    grid::cell_at(latitude, longitude)
        .map(|cell| cell.to_string())
        .map_err(|err| api_error(ErrorCode::InvalidCoordinates, &err.to_string()))
}

/// The centre of a resolution-8 cell as `[latitude, longitude]`.
///
/// # Errors
/// Throws `INVALID_REQUEST` for a malformed id or another resolution.
#[wasm_bindgen(js_name = cellCentre)]
pub fn cell_centre(cell: &str) -> Result<Vec<f64>, JsValue> {
    let cell = grid::parse_cell(cell)
        .map_err(|err| api_error(ErrorCode::InvalidRequest, &err.to_string()))?;
    let (lat, lng) = grid::cell_centre(cell);
    Ok(alloc::vec![lat, lng])
}

/// The corners of a resolution-8 cell as a flat `[lat0, lng0, lat1, lng1, ...]`.
///
/// # Errors
/// Throws `INVALID_REQUEST` for a malformed id or another resolution.
#[wasm_bindgen(js_name = cellBoundary)]
pub fn cell_boundary(cell: &str) -> Result<Vec<f64>, JsValue> {
    let cell = grid::parse_cell(cell)
        .map_err(|err| api_error(ErrorCode::InvalidRequest, &err.to_string()))?;
    Ok(grid::cell_boundary(cell)
        .into_iter()
        .flat_map(|(lat, lng)| [lat, lng])
        .collect())
}

/// Every cell within grid distance `k` (0 to 41) of a resolution-8 cell, the cell
/// itself first.
///
/// # Errors
/// Throws `INVALID_REQUEST` for a malformed id, another resolution or `k` above 41.
#[wasm_bindgen(js_name = gridDisk)]
pub fn grid_disk(cell: &str, k: u32) -> Result<Vec<String>, JsValue> {
    let to_js = |err: grid::RingError| api_error(ErrorCode::InvalidRequest, &err.to_string());
    let cell = grid::parse_cell(cell).map_err(to_js)?;
    let cells = grid::disk(cell, k).map_err(to_js)?;
    Ok(cells.iter().map(ToString::to_string).collect())
}

/// The six crime classes, in API order.
///
/// # Errors
/// Never in practice; serialisation of the static table cannot fail.
#[wasm_bindgen(js_name = crimeClasses, unchecked_return_type = "CrimeClassRecord[]")]
pub fn crime_classes() -> Result<JsValue, JsValue> {
    let records: Vec<ClassRecord> = CrimeClass::ALL.into_iter().map(ClassRecord::from).collect();
    to_js(&records)
}

/// The risk level for a `NO_CRIME` probability (boundaries: `LOW` above 0.50,
/// `MODERATE` 0.25 to 0.50, `HIGH` 0.10 up to 0.25, `VERY_HIGH` below 0.10).
///
/// # Errors
/// Throws `INVALID_REQUEST` when `p` is not a number in 0..1.
#[wasm_bindgen(js_name = riskLevel, unchecked_return_type = "RiskLevelCode")]
pub fn risk_level(p: f64) -> Result<JsValue, JsValue> {
    RiskLevel::from_no_crime_probability(p)
        .map(|level| JsValue::from_str(level.code()))
        .map_err(|err| api_error(ErrorCode::InvalidRequest, &err.to_string()))
}

/// The colour band (0 to 16) of a 0..100 safety score; -1 for NaN (no data).
#[wasm_bindgen(js_name = colorIndex)]
#[must_use]
pub fn color_index(safety_score: f64) -> i8 {
    ColourIndex::from_safety_score(safety_score).get()
}

/// The 17-colour palette, indexed by colour band.
#[wasm_bindgen]
#[must_use]
pub fn palette() -> Vec<String> {
    PALETTE.iter().map(|colour| (*colour).to_string()).collect()
}

/// The forecast of one cell-week, as `HexRisk.forecast` returns it.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ForecastRecord {
    city: String,
    cell: String,
    week_of: String,
    rates: [f64; 5],
    probabilities: alloc::collections::BTreeMap<&'static str, f64>,
    dominant_type: &'static str,
    risk_level: &'static str,
}

#[wasm_bindgen(typescript_custom_section)]
const TS_FORECAST: &'static str = r#"
/** A forecast for one cell and week. */
export interface CellForecast {
  /** City code, for example `city_ca_tor`. */
  city: string;
  /** H3 resolution-8 cell id. */
  cell: string;
  /** Monday (YYYY-MM-DD) of the forecast week. */
  weekOf: string;
  /** Expected incidents of THEFT_BURGLARY, BATTERY_ASSAULT, VEHICLE_DAMAGE, SERIOUS_VIOLENT, OTHER. */
  rates: [number, number, number, number, number];
  /** Probability of each outcome, keyed by class code; they sum to 1. */
  probabilities: Record<CrimeClassRecord["code"], number>;
  dominantType: CrimeClassRecord["code"];
  riskLevel: RiskLevelCode;
}
/** The weeks a city has forecasts for. */
export interface PredictionRange {
  /** Monday of the first forecast week (YYYY-MM-DD). */
  start: string;
  /** Sunday ending the last forecast week. */
  end: string;
  weeksAvailable: number;
  /** Monday of the current week in the city's local time. */
  currentWeek: string | null;
}
/** Scoring options shared by every router request. */
export interface ScoringOptions {
  intent?: "overall" | "walking" | "driving" | "night";
  /** Crime classes to count (default all five). */
  activeCodes?: Exclude<CrimeClassRecord["code"], "NO_CRIME">[];
  /** `false` switches a class off. */
  toggles?: Partial<Record<Exclude<CrimeClassRecord["code"], "NO_CRIME">, boolean>>;
  modifiers?: {
    /** Any date (YYYY-MM-DD) in the forecast week; default the current week, clamped to the forecasts. */
    week?: string;
    /** Multipliers 0..10 on the intent's class weights. */
    classWeights?: Partial<Record<Exclude<CrimeClassRecord["code"], "NO_CRIME">, number>>;
    /** Score one time band: an ISO 8601 time (it names its week), or an hour of the week 0..167 (Monday 00:00 local = 0). */
    time?: string | number;
  };
}
export type TravelMode = "walking" | "cycling" | "driving";
/** Body of `route()` and POST /route. */
export interface RouteRequest extends ScoringOptions {
  origin: { lat: number; lng: number };
  destination: { lat: number; lng: number };
  /** safest (alpha 4, default), balanced (alpha 1), shortest (alpha 0), or tradeoff: the routes not dominated in (length, exposure), shortest to safest, at most 5. */
  method?: "safest" | "balanced" | "shortest" | "tradeoff";
  /** 0 (default) to 3; not with method tradeoff. */
  alternatives?: number;
  /** Follow roads (default true); false routes over the hex grid and returns no geometry. */
  snapToRoads?: boolean;
  /** Default: driving for the driving intent, walking otherwise. */
  mode?: TravelMode;
  /** Leave at this time (an ISO 8601 time, or an hour of the week 0..167): each cell is scored in the band the traveller reaches it at the mode's speed. Not with `modifiers.time`. */
  departAt?: string | number;
}
/** Body of `evaluate()` and POST /evaluate. */
export interface EvaluateRequest extends ScoringOptions {
  geometry: { type: "LineString"; coordinates: number[][] };
  mode?: TravelMode;
}
/** Body of `evaluateHexPath()` and POST /evaluate-hex-path. */
export interface HexPathRequest extends ScoringOptions {
  hexPath: string[];
  mode?: TravelMode;
}
/** A corridor cell with its tier (0 safest .. 4; null outside coverage). */
export interface TieredCell { h3: string; tier: number | null; safetyScore: number | null; colorIndex: number; }
export interface CorridorMetrics {
  distanceM: number;
  durationS: number;
  mode: TravelMode;
  /** Metre-weighted mean safety score of covered cells. */
  meanSafety: number | null;
  worstSafety: number | null;
  /** Expected incidents passed: the forecast's incidents (active classes, intent weights, the window) on the stretches of street walked. */
  exposure: number;
  outsideCoverageM: number;
  cellCount: number;
  /** Extra length over the shortest route, percent. */
  detourPct: number | null;
}
/** A run of the line within one tier. */
export interface CorridorSegment { tier: number | null; startM: number; distanceM: number; meanSafety: number | null; cells: number; }
export interface ScoredWith { city: string; weekOf: string; intent: string; activeCodes: string[]; /** "week", "nights" or a band such as "weekend 22:00-00:00". */ timeWindow: string; }
/** A cell the shortest route crosses and the explained route avoids. */
export interface AvoidedCell { h3: string; safetyScore: number; /** The class with the largest share of the cell's weighed harm. */ drivenBy: Exclude<CrimeClassRecord["code"], "NO_CRIME"> | null; drivenByShare: number; }
/** A stretch of the shortest route on a street the explained route does not take. */
export interface AvoidedStreet { /** As the network's source spells it; null where it has none. */ name: string | null; distanceM: number; /** Expected incidents passed on it. */ exposure: number; incidentsPerKm: number; }
/** Why a route: against the shortest route between the same points. */
export interface Explanation {
  shortest: { distanceM: number; durationS: number; exposure: number };
  /** Expected incidents avoided (the shortest route's exposure less this one's). */
  exposureAvoided: number;
  exposureAvoidedPct: number | null;
  extraM: number;
  extraMinutes: number;
  /** Extra metres per expected incident avoided; null when nothing is avoided. */
  metresPerExposureAvoided: number | null;
  /** The riskiest avoided cells, riskiest first, at most 5. */
  avoidedCells: AvoidedCell[];
  /** The shortest route's stretches on streets this route does not take, most expected incidents first, at most 5; empty for a hex path. */
  avoidedStreets: AvoidedStreet[];
}
export interface EvaluationResponse extends ScoredWith {
  status: "success";
  hexPath: string[];
  hexPathWithTiers: TieredCell[];
  metrics: CorridorMetrics;
  segments: CorridorSegment[];
  /** Against the shortest road route between the ends; null when an end is beyond snapping distance. */
  explanation: Explanation | null;
  /** A line's named steps, matched to the city's ways (absent for a hex path). */
  steps?: RouteStep[];
  riskiestStep?: number | null;
}
export interface RouteOption {
  /** GeoJSON LineString; null when snapToRoads is false. */
  geometry: { type: "LineString"; coordinates: [number, number][] } | null;
  /** Cost in the method's model; null in a trade-off set. */
  cost: number | null;
  hexPath: string[];
  hexPathWithTiers: TieredCell[];
  metrics: CorridorMetrics;
  segments: CorridorSegment[];
  /** The hex path scored on its own: what evaluateHexPath returns for hexPath. */
  corridorMetrics: CorridorMetrics | null;
  explanation: Explanation;
  /** Named steps along the geometry (empty when snapToRoads is false): depart, the maneuvers, arrive. */
  steps: RouteStep[];
  /** Index in steps of the step with the most expected incidents, where the ways carry risks of their own. */
  riskiestStep: number | null;
}
/** One step of a route's directions (docs/ROUTING.md, "Steps"). */
export interface RouteStep {
  type: "depart" | "turn" | "new name" | "continue" | "fork" | "end of road" | "arrive";
  modifier: "straight" | "slight left" | "left" | "sharp left" | "slight right" | "right" | "sharp right" | "U-turn" | null;
  /** As the network's source spells it; null for a way without a name. */
  name: string | null;
  distanceM: number;
  durationS: number;
  /** Degrees from north into and out of the maneuver (0 at the depart and the arrive). */
  bearingBefore: number;
  bearingAfter: number;
  /** First and last index of the geometry's coordinates the step covers. */
  coordinates: [number, number];
  /** Expected incidents along the step, where the ways carry risks of their own. */
  incidents?: number;
  /** English, written from the fields above. */
  instruction: string;
}
export interface RouteResponse extends ScoredWith {
  status: "success";
  network: "roads" | "hex-lattice";
  source: string;
  method: "safest" | "balanced" | "shortest" | "tradeoff";
  /** null for tradeoff. */
  alpha: number | null;
  origin: { lat: number; lng: number; distanceM: number };
  destination: { lat: number; lng: number; distanceM: number };
  hexPath: string[];
  best: RouteOption;
  alternatives: RouteOption[];
  /** With `departAt`: the departure and the bands cells were scored in, the departure's first. */
  departAt?: { hourOfWeek: number; speedKmh: number; bands: { weekOf: string; timeWindow: string }[] };
  /** With method tradeoff: the set shortest to safest, each route named by a JSON pointer ("/alternatives/0", …, "/best"). */
  tradeoff?: {
    routes: { route: string; distanceM: number; durationS: number; exposure: number; /** Against the previous route of the set. */ metresPerExposureAvoided: number | null }[];
    corners: number;
    searches: number;
    complete: boolean;
  };
}
/** Body of `reach()` and POST /reach. */
export interface ReachRequest extends ScoringOptions {
  origin: { lat: number; lng: number };
  /** Above 0, at most 60; the distance at the mode's speed at most 5 km. */
  minutes: number;
  mode?: TravelMode;
}
/** The answer of `reach()` and POST /reach. */
export interface ReachResponse extends ScoredWith {
  status: "success";
  network: "roads" | "hex-lattice";
  origin: { lat: number; lng: number; distanceM: number };
  mode: TravelMode;
  minutes: number;
  budgetM: number;
  cellCount: number;
  /** Nearest first: minutes along the shortest way, and the least exposure (expected incidents passed) of any way within the budget. */
  cells: { h3: string; minutes: number; exposure: number; safetyScore: number; colorIndex: number }[];
  /** The outline of the reached cells (RFC 7946). */
  boundary: { type: "MultiPolygon"; coordinates: [number, number][][][] };
}
/** Body of `predict()` and POST /v1/predict. */
export interface PredictRequest { latitude: number; longitude: number; /** ISO 8601; without an offset it is local time in the city. */ datetime?: string; }
/** The answer of `predict()` and POST /v1/predict. */
export interface PredictResponse {
  status: "success";
  city: { code: string; name: string };
  location: { latitude: number; longitude: number; cell_id: string; grid_center: { latitude: number; longitude: number } };
  prediction: {
    datetime: string; week_of: string; probabilities: Record<CrimeClassRecord["code"], number>; dominant_type: CrimeClassRecord["code"]; confidence: number; risk_level: RiskLevelCode;
    /** With a datetime: the forecast of the time band holding it. */
    time_of_day?: { band: string; day_type: "weekday" | "weekend"; start: string; end: string; probabilities: Record<CrimeClassRecord["code"], number>; dominant_type: CrimeClassRecord["code"]; confidence: number; risk_level: RiskLevelCode; profile: Record<string, "cells" | "city" | "flat"> };
  };
  model_info: { version: string; mae: number; last_updated: string };
}
/** Body of `predictBatch()` and POST /v1/predict/batch: at most 500 locations. */
export interface PredictBatchRequest { locations: { latitude: number; longitude: number }[]; /** ISO 8601, as in `PredictRequest`. */ datetime?: string; }
/** One location of a batch: its prediction, or the error a single request would get. */
export type PredictBatchResult =
  | { index: number; status: "success"; city: string; location: { latitude: number; longitude: number; cell_id: string };
      prediction: { probabilities: Record<CrimeClassRecord["code"], number>; dominant_type: CrimeClassRecord["code"]; risk_level: RiskLevelCode; time_of_day?: PredictResponse["prediction"]["time_of_day"] } }
  | { index: number; status: "error"; code: string; message: string; details: Record<string, unknown> };
/** The answer of `predictBatch()` and POST /v1/predict/batch. */
export interface PredictBatchResponse { status: "success"; timestamp: string; results: PredictBatchResult[]; summary: { total: number; successful: number; failed: number }; }
/** Body of `routeRisk()` and POST /v1/route/risk: 2 to 100 waypoints, at most 200 km; `datetime` (a week) or `departure_time` (each cell in the band it is reached), not both. */
export interface RouteRiskRequest { waypoints: { latitude: number; longitude: number }[]; datetime?: string; departure_time?: string; travel_mode?: TravelMode; }
export interface RouteRiskPoint { latitude: number; longitude: number; cell_id: string; }
/** The answer of `routeRisk()` and POST /v1/route/risk. */
export interface RouteRiskResponse {
  status: "success";
  route: { total_waypoints: number; total_segments: number; total_distance_km: number; total_expected_incidents: number; overall_risk_score: number; overall_risk_level: RiskLevelCode;
    /** With a departure_time. */ travel_mode?: TravelMode; speed_kmh?: number; duration_minutes?: number };
  segments: { segment_index: number; start: RouteRiskPoint; end: RouteRiskPoint; distance_km: number; expected_incidents: number; risk_score: number; risk_level: RiskLevelCode; dominant_risk: CrimeClassRecord["code"] }[];
  recommendations: { highest_risk_segment: number; safest_segment: number; caution_areas: string[] };
}
/** Body of `scoreHexes()` and POST /hexes/score. */
export interface ScoreRequest extends ScoringOptions { hexIds: string[]; }
/** A scored cell; `safetyScore` null and `colorIndex` -1 outside coverage. */
export interface HexScoreRow { h3: string; safetyScore: number | null; colorIndex: number; }
/** Body of `lookup()` and POST /hexes/lookup. */
export interface LookupRequest extends ScoringOptions { lat: number; lng: number; ring?: number; detail?: boolean; resolution?: 8; }
export interface CrimeTypeRow { code: string; name: string; expectedCount: number; probability: number; weight: number; harm: number; share: number; }
export interface Breakdown { crimeTypes: CrimeTypeRow[]; normalizedRisk: number | null; safetyScore: number | null; colorIndex: number; hasData: boolean; }
export interface LookupResponse { status: "success"; center: string; ring: number; resolution: 8; count: number; cells: (HexScoreRow & { breakdown?: Breakdown })[]; }
/** Parameters of `breakdown()` and GET /hexes/breakdown. */
export interface BreakdownRequest { h3: string; intent?: string; activeCodes?: string | string[]; week?: string; /** As `modifiers.time`. */ time?: string; }
export interface CellBreakdown extends Breakdown {
  status: "success"; h3: string; city?: string;
  modifiers?: { intent: string; weekOf: string; activeCodes: string[]; classWeights: Record<string, number>; timeWindow: string };
}
/** Parameters of `hexesInBox()` and GET /hexes/all; each side at most 2 degrees. */
export interface BoxRequest { west: number | string; south: number | string; east: number | string; north: number | string; intent?: string; activeCodes?: string | string[]; week?: string; /** As `modifiers.time`. */ time?: string; }
/** Scoring options of a tile: those of GET /tiles/{city}/{z}/{x}/{y}.mvt's query. */
export interface TileOptions { intent?: string; activeCodes?: string | string[]; week?: string; /** As `modifiers.time`. */ time?: string; }
/** Request of `tile()`: a city's tile z/x/y (zoom 8 to 16) and the scoring options of GET /tiles/{city}/{z}/{x}/{y}.mvt. */
export interface TileRequest { city: string; z: number; x: number; y: number; intent?: string; activeCodes?: string | string[]; week?: string; /** As `modifiers.time`. */ time?: string; }
/** `hexesInBoxGeoJSON()`: GET /hexes/all as GeoJSON, one polygon per cell. */
export interface HexFeatureCollection {
  type: 'FeatureCollection';
  features: Array<{ type: 'Feature'; id: string; geometry: { type: 'Polygon'; coordinates: [number, number][][] };
    properties: { h3: string; colorIndex: number; crimeRates: Record<string, number>; safetyScores: Record<string, number> } }>;
}
/** `streetsInBoxGeoJSON()`: GET /streets as GeoJSON, one line per street; `StreetsAnswer`'s other members on the collection. */
export interface StreetFeatureCollection {
  type: 'FeatureCollection';
  features: Array<{ type: 'Feature'; id: number; geometry: { type: 'LineString'; coordinates: [number, number][] };
    properties: Omit<StreetRow, 'id' | 'coordinates'> }>;
  meanIncidentsPerKm: number;
  [member: string]: unknown;
}
/** A street of `streetsInBox()` and GET /streets. */
export interface StreetRow {
  /** The way's number in the city's network, stable within a model version. */ id: number;
  /** As the network's source spells it; null where it has none. */ name: string | null;
  /** [lng, lat] pairs. */ coordinates: [number, number][];
  lengthM: number;
  /** Expected incidents per km in the request's week or time window. */ incidentsPerKm: number;
  /** Rank among the city's streets weighed by length, 100 the safest. */ safetyScore: number;
  /** 0 to 16, the hexes' palette. */ colorIndex: number;
  /** "street": learnt shares set it apart from its cell's other streets; "cell": its cell's risk spread by length (too little history to tell its streets apart, or no shares). */ basis: "street" | "cell";
}
/** Request of `search()` and GET /places: the city by code, or the one holding lat/lng. */
export interface SearchRequest { q: string; city?: string; lat?: number | string; lng?: number | string; /** 1 to 20, default 5. */ limit?: number | string; }
/** A place of `search()` and GET /places. */
export interface Place {
  kind: "street" | "intersection" | "neighbourhood" | "precinct" | "pointOfInterest";
  /** As the source spells it; an intersection's matched streets joined by " & ", in the query's order. */ name: string;
  /** An intersection's streets: every name meeting there. */ streets?: string[];
  lat: number; lng: number;
  /** "exact", "prefix" (the name begins with the query), "word" (a later word does) or "suggestion" (within one or two edits). */ match: "exact" | "prefix" | "word" | "suggestion";
  /** Metres from the request's point, when it gave one. */ distanceM?: number;
}
/** Answer of `search()` and GET /places, best first. */
export interface SearchAnswer { status: "success"; city: string; /** The query as searched (trimmed). */ query: string; places: Place[]; }
/** Request of `reverse()` and GET /places/reverse. */
export interface ReverseRequest { lat: number | string; lng: number | string; }
/** Answer of `reverse()` and GET /places/reverse: what is nearest the point (within 500 m). */
export interface ReverseAnswer {
  status: "success"; city: string;
  street: { name: string; distanceM: number } | null;
  intersection: { name: string; streets: string[]; lat: number; lng: number; distanceM: number } | null;
  /** "near A & B" (an intersection within 100 m), else "on A", else null. */
  label: string | null;
}
/** Answer of `streetsInBox()` and GET /streets. */
export interface StreetsAnswer extends ScoredWith { status: "success"; /** The city's mean expected incidents per street km. */ meanIncidentsPerKm: number; streets: StreetRow[]; }
/** Slim hex: id, centre, colour band, expected counts per class, safety per intent. */
/**
 * Cells with their scores in columns, for colouring many hexes at once
 * (`ringScores`, `cellScores`, `boxScores`). `cells[i]` is a 64-bit H3 index
 * (`cells[i].toString(16)` is its usual text form); `safetyScores[i]` is 0 to 100,
 * NaN without data; `colorIndexes[i]` is 0 to 16, -1 without data.
 */
export interface ScoredCells { cells: BigUint64Array; safetyScores: Float64Array; colorIndexes: Int8Array; }
export interface SlimHex { h: string; la: number; ln: number; ci: number; cr: Record<string, number>; ss: Record<"overall" | "walking" | "driving" | "night", number>; }
/** A loaded city. */
export interface CityRecord {
  code: string;
  name: string;
  country: string;
  timezone: string;
  cells: number;
  /** First and last forecast week (Mondays, YYYY-MM-DD). */
  firstWeek: string;
  lastWeek: string;
  /** The grid's bounding box in degrees. */
  bounds: { north: number; south: number; east: number; west: number };
  /** The model version answers name: the label given to `addCity`, else the file's. */
  modelVersion: string;
  /** The last date of the data the model was fitted on (YYYY-MM-DD). */
  lastUpdated: string;
}
"#;
