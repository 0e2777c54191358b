//! `HexRisk`'s operations over a city's road network, built only into the package's
//! `hexrisk/roads` entry (feature `wasm-roads`): routes, reach, line and hex-path
//! evaluation, place search and reverse lookup, and streets. They need the city's full
//! file; the grid engine, the package's default entry, leaves their code out, so a map
//! that only colours hexes loads a smaller wasm.
#![allow(unsafe_code)]

use alloc::vec::Vec;

use wasm_bindgen::prelude::*;

use super::hex_risk::HexRisk;
use super::to_js;
use crate::grid::MicroDegrees;
use crate::operations;

#[wasm_bindgen]
impl HexRisk {
    /// The safest route between two points, with alternatives and the hex corridor:
    /// the body and answer of the router API's `POST /route`. `nowMs` sets the
    /// default forecast week (`Date.now()` by default).
    ///
    /// # Errors
    /// Throws `INVALID_REQUEST`, `INVALID_COORDINATES`, `LOCATION_NOT_COVERED`
    /// (outside every city, or farther than 500 m from the network) or
    /// `DATE_OUT_OF_RANGE`, with `details.field`.
    #[wasm_bindgen(unchecked_return_type = "RouteResponse")]
    pub fn route(
        &self,
        #[wasm_bindgen(unchecked_param_type = "RouteRequest")] request: JsValue,
        now_ms: Option<f64>,
    ) -> Result<JsValue, JsValue> {
        self.call(request, now_ms, operations::route)
    }

    /// The cells reachable from a point within a time budget, each with its travel
    /// time and the least exposure of any way to it within the budget, and the area's
    /// outline: the body and answer of the router API's `POST /reach`.
    ///
    /// # Errors
    /// As [`HexRisk::route`]; a budget out of range names `minutes`.
    #[wasm_bindgen(unchecked_return_type = "ReachResponse")]
    pub fn reach(
        &self,
        #[wasm_bindgen(unchecked_param_type = "ReachRequest")] request: JsValue,
        now_ms: Option<f64>,
    ) -> Result<JsValue, JsValue> {
        self.call(request, now_ms, operations::reach)
    }

    /// Scores a GeoJSON LineString (`POST /evaluate`).
    ///
    /// # Errors
    /// As [`HexRisk::route`], with `details.index` for a bad position.
    #[wasm_bindgen(unchecked_return_type = "EvaluationResponse")]
    pub fn evaluate(
        &self,
        #[wasm_bindgen(unchecked_param_type = "EvaluateRequest")] request: JsValue,
        now_ms: Option<f64>,
    ) -> Result<JsValue, JsValue> {
        self.call(request, now_ms, operations::evaluate)
    }

    /// Scores an ordered hex path (`POST /evaluate-hex-path`).
    ///
    /// # Errors
    /// As [`HexRisk::route`]; a gap, repeat or bad id names its `details.index`.
    #[wasm_bindgen(js_name = evaluateHexPath, unchecked_return_type = "EvaluationResponse")]
    pub fn evaluate_hex_path(
        &self,
        #[wasm_bindgen(unchecked_param_type = "HexPathRequest")] request: JsValue,
        now_ms: Option<f64>,
    ) -> Result<JsValue, JsValue> {
        self.call(request, now_ms, operations::evaluate_hex_path)
    }

    /// The streets in a box with their risk (`GET /streets`): the same parameters as
    /// `hexesInBox` (and its scoring options), each side at most 0.05 degrees.
    ///
    /// # Errors
    /// `INVALID_REQUEST` for an inverted or oversize box, or one holding more than
    /// 20,000 streets; `INVALID_COORDINATES`; `LOCATION_NOT_COVERED` when no city
    /// with streets meets the box.
    #[wasm_bindgen(js_name = streetsInBox, unchecked_return_type = "StreetsAnswer")]
    pub fn streets_in_box(
        &self,
        #[wasm_bindgen(unchecked_param_type = "BoxRequest")] request: JsValue,
        now_ms: Option<f64>,
    ) -> Result<JsValue, JsValue> {
        self.call(request, now_ms, operations::streets)
    }

    /// `streetsInBox` as RFC 7946 GeoJSON, what `GET /streets` answers to `Accept:
    /// application/geo+json`: a FeatureCollection of the streets' lines, with what
    /// they were scored with as its foreign members.
    ///
    /// # Errors
    /// As `streetsInBox`.
    #[wasm_bindgen(js_name = streetsInBoxGeoJSON, unchecked_return_type = "StreetFeatureCollection")]
    pub fn streets_in_box_geojson(
        &self,
        #[wasm_bindgen(unchecked_param_type = "BoxRequest")] request: JsValue,
        now_ms: Option<f64>,
    ) -> Result<JsValue, JsValue> {
        self.call(request, now_ms, |atlas, params, now| {
            operations::streets(atlas, params, now).map(operations::streets_feature_collection)
        })
    }

    /// Places by name in one city, best first: the answer of `GET /places` (request
    /// `{q, city?, lat?, lng?, limit?}`). Needs the city's full file (the grid file
    /// has no street names).
    ///
    /// # Errors
    /// `INVALID_REQUEST` (a missing, blank, over-long or control-character `q`, a bad
    /// `limit`, an unknown `city`, or neither `city` nor a point),
    /// `INVALID_COORDINATES` or `LOCATION_NOT_COVERED`.
    #[wasm_bindgen(unchecked_return_type = "SearchAnswer")]
    pub fn search(
        &self,
        #[wasm_bindgen(unchecked_param_type = "SearchRequest")] request: JsValue,
    ) -> Result<JsValue, JsValue> {
        self.call(request, None, |atlas, params, _| {
            operations::search_places(atlas, params)
        })
    }

    /// The named street and the intersection nearest a point, and a label naming it:
    /// the answer of `GET /places/reverse` (request `{lat, lng}`).
    ///
    /// # Errors
    /// `INVALID_COORDINATES`, `INVALID_REQUEST` (a missing field) or
    /// `LOCATION_NOT_COVERED`.
    #[wasm_bindgen(unchecked_return_type = "ReverseAnswer")]
    pub fn reverse(
        &self,
        #[wasm_bindgen(unchecked_param_type = "ReverseRequest")] request: JsValue,
    ) -> Result<JsValue, JsValue> {
        self.call(request, None, |atlas, params, _| {
            operations::reverse_place(atlas, params)
        })
    }

    /// A city's street network for drawing an offline base map: a GeoJSON
    /// `MultiLineString` of every way (`[lng, lat]`), or `null` when the city routes
    /// over a hex lattice (no street data) or is not loaded.
    ///
    /// # Errors
    /// Never in practice.
    #[wasm_bindgen]
    pub fn streets(&self, city: &str) -> Result<JsValue, JsValue> {
        // The graph alone: drawing streets needs no search index.
        let Some(graph) = self
            .atlas
            .city(city)
            .and_then(|model| model.artifact().road_graph.as_ref())
        else {
            return Ok(JsValue::NULL);
        };
        if graph.kind != crate::roads::NetworkKind::Roads {
            return Ok(JsValue::NULL);
        }
        let ends = graph.way_ends();
        let lines: Vec<Vec<[f64; 2]>> = (0..graph.way_count())
            .map(|way| {
                graph
                    .way_points(way, ends[way])
                    .map(MicroDegrees::lng_lat)
                    .collect()
            })
            .collect();
        to_js(&serde_json::json!({"type": "MultiLineString", "coordinates": lines}))
    }
}
