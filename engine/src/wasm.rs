//! wasm-bindgen bindings: the JavaScript API of the `hexrisk` npm package.
//!
//! Errors are thrown as JavaScript `Error`s whose `code` property carries the API
//! error code (for example `INVALID_COORDINATES`), so offline and online clients
//! handle failures the same way.
#![allow(unsafe_code)]

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use js_sys::{Error, Reflect};
use wasm_bindgen::prelude::*;

use crate::classes::{ClassRecord, CrimeClass};
use crate::colour::{ColourIndex, PALETTE};
use crate::grid;
use crate::risk::RiskLevel;

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
fn api_error(code: &str, message: &str) -> JsValue {
    let error = Error::new(message);
    // Setting a property on a fresh Error object cannot fail.
    let _ = Reflect::set(&error, &"code".into(), &code.into());
    error.into()
}

/// Version of the engine.
#[wasm_bindgen]
#[must_use]
pub fn version() -> String {
    crate::VERSION.to_string()
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
        .map_err(|err| api_error("INVALID_COORDINATES", &err.to_string()))
}

/// The centre of a resolution-8 cell as `[latitude, longitude]`.
///
/// # Errors
/// Throws `INVALID_REQUEST` for a malformed id or another resolution.
#[wasm_bindgen(js_name = cellCentre)]
pub fn cell_centre(cell: &str) -> Result<Vec<f64>, JsValue> {
    let cell =
        grid::parse_cell(cell).map_err(|err| api_error("INVALID_REQUEST", &err.to_string()))?;
    let (lat, lng) = grid::cell_centre(cell);
    Ok(alloc::vec![lat, lng])
}

/// The corners of a resolution-8 cell as a flat `[lat0, lng0, lat1, lng1, ...]`.
///
/// # Errors
/// Throws `INVALID_REQUEST` for a malformed id or another resolution.
#[wasm_bindgen(js_name = cellBoundary)]
pub fn cell_boundary(cell: &str) -> Result<Vec<f64>, JsValue> {
    let cell =
        grid::parse_cell(cell).map_err(|err| api_error("INVALID_REQUEST", &err.to_string()))?;
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
    let to_js = |err: grid::RingError| api_error("INVALID_REQUEST", &err.to_string());
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
    serde_wasm_bindgen::to_value(&records).map_err(Into::into)
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
        .map_err(|err| api_error("INVALID_REQUEST", &err.to_string()))
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
