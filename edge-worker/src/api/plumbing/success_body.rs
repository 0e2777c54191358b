//! A success body before serialisation: a JSON value, or one of the engine's list
//! answers, which serialise straight from their columns (no JSON value per cell).

use bytes::Bytes;
use serde::Serialize;
use serde_json::Value;

use hexrisk_engine::operations::{RingLookup, ScoreRows};

/// What an endpoint answers on success.
#[derive(Debug)]
pub enum SuccessBody {
    /// Any answer built as a JSON value.
    Value(Value),
    /// `POST /hexes/score`: a bare array of rows.
    ScoreRows(ScoreRows),
    /// `POST /hexes/lookup`.
    RingLookup(RingLookup),
    /// `GET /hexes/all` or `/streets` asked for as GeoJSON: a FeatureCollection,
    /// sent as `application/geo+json`.
    GeoJson(Value),
    /// `GET /tiles/...mvt`: a vector tile's bytes (empty: nothing in the tile).
    Tile {
        /// The tile.
        bytes: Bytes,
        /// Whether the request named the city's artifact version in force (`v=`, as
        /// the `TileJSON`'s tile URLs do), so that a browser may keep the answer:
        /// a new version brings new URLs.
        pinned: bool,
    },
}

/// The media type of a Mapbox Vector Tile.
pub const MVT_CONTENT_TYPE: &str = "application/vnd.mapbox-vector-tile";

impl From<Value> for SuccessBody {
    fn from(value: Value) -> Self {
        Self::Value(value)
    }
}

/// An object body with `"sandbox_mode": true` after its own members.
#[derive(Serialize)]
struct Sandboxed<'a, T: Serialize> {
    #[serde(flatten)]
    body: &'a T,
    sandbox_mode: bool,
}

impl SuccessBody {
    /// The media type of the body when it is not plain JSON.
    #[must_use]
    pub const fn media_type(&self) -> Option<&'static str> {
        match self {
            Self::Tile { .. } => Some(MVT_CONTENT_TYPE),
            Self::GeoJson(_) => Some(hexrisk_engine::operations::GEOJSON_MEDIA_TYPE),
            Self::Value(_) | Self::ScoreRows(_) | Self::RingLookup(_) => None,
        }
    }

    /// The JSON text; an object body of a sandbox key ends with
    /// `"sandbox_mode": true` (a bare array has no place for it).
    #[must_use]
    pub fn to_json(&self, sandbox: bool) -> Bytes {
        // None of these can fail to serialise: map keys are strings, numbers finite.
        let text = match (self, sandbox) {
            (Self::Value(Value::Object(map)) | Self::GeoJson(Value::Object(map)), true) => {
                serde_json::to_vec(&Sandboxed {
                    body: map,
                    sandbox_mode: true,
                })
            }
            (Self::Value(value) | Self::GeoJson(value), _) => serde_json::to_vec(value),
            (Self::ScoreRows(rows), _) => serde_json::to_vec(rows),
            (Self::RingLookup(ring), true) => serde_json::to_vec(&Sandboxed {
                body: ring,
                sandbox_mode: true,
            }),
            (Self::RingLookup(ring), false) => serde_json::to_vec(ring),
            // Not JSON: `dispatch` sends a tile's bytes as they are.
            (Self::Tile { bytes, .. }, _) => return bytes.clone(),
        };
        Bytes::from(text.unwrap_or_default())
    }
}

#[cfg(test)]
mod tests;
