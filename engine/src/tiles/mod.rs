//! Mapbox Vector Tiles (MVT 2.1): the tile pyramid and its projection
//! ([`TileId`]), clipping to a tile with its buffer ([`clip`]) and the protobuf
//! encoding ([`mvt`]). What goes in a tile (the hexes and streets of a city, scored)
//! is `api::tiles`; this module knows nothing of cities.

pub mod clip;
pub mod mvt;
mod pyramid;

pub use pyramid::{EXTENT, MAX_ZOOM, TileError, TileId, TilePoint};
