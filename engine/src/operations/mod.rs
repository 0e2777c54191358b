//! The JSON layer shared by both HTTP APIs (through `hexrisk-edge`) and the npm
//! package (through [`crate::wasm`]): request objects in, answer objects out, so an
//! app gets the same shapes, numbers and errors offline and online.
//!
//! POST operations take the body object; GET operations take their parameters as an
//! object (query-string text or JSON values). `now` (seconds since the epoch) sets
//! the default forecast week. Every failure is a [`QueryError`] with a typed
//! [`ErrorCode`]. Decisions the specifications leave open are in `docs/API.md`.
//!
//! This layer knows nothing of HTTP: statuses, headers, keys and quotas are the
//! Worker's.

mod breakdown;
mod columns;
pub mod dates;
#[cfg(test)]
mod described;
mod error;
mod geojson;
mod hexes;
mod json;
pub mod options;
#[cfg(feature = "std")]
mod place_search;
mod precincts;
pub mod prediction;
pub mod reach_request;
mod reverse_place;
mod route_json;
pub mod route_request;
mod score_rows;
mod streets;
mod success;
mod tiles;
pub mod wire;

/// The H3 resolution of every cell the operations take and answer.
pub use crate::grid::RESOLUTION;
pub use breakdown::{Breakdown, CrimeTypeRow};
pub use columns::{ScoreMemo, ScoredCells};
pub use error::{
    ErrorCode, QueryError, array, coordinate_error, malformed, missing, optional_text,
};
pub use geojson::{
    GEOJSON_MEDIA_TYPE, HexFeature, HexFeatureCollection, HexProperties, Polygon, StreetFeature,
    StreetFeatureCollection, StreetLine, StreetProperties, hexes_feature_collection,
    streets_feature_collection, wants_geojson,
};
pub use hexes::{
    BreakdownQuery, CellBreakdown, HEX_COUNT_HEADER, HexConfig, HexConfigData, HexesAllQuery,
    HexesLookupRequest, HexesScoreRequest, ListFormat, MAX_BOX_SIDE_DEG, MAX_SCORE_IDS,
    ModifiersAnswer, NoData, ScoringParamsQuery, SlimHex, box_scores, cell_scores, hexes_all,
    hexes_breakdown, hexes_config, hexes_lookup, hexes_score, ring_scores,
};
#[cfg(feature = "std")]
pub use place_search::{
    DEFAULT_PLACES, MAX_PLACES, MAX_QUERY_CHARS, PlaceJson, PlacesQuery, SearchAnswer,
    search_places,
};
pub use precincts::{
    CityPrecinctCount, CityPrecinctScores, MultiPolygon, PrecinctFeature,
    PrecinctFeatureCollection, PrecinctProperties, PrecinctScores, PrecinctsStatus,
    precincts_all_scores, precincts_geojson, precincts_status,
};
pub use prediction::{
    MAX_BATCH_LOCATIONS, MAX_ROUTE_KM, MAX_WAYPOINTS, cities, classes, coverage, predict,
    predict_batch, prediction_range, route_risk,
};
pub use reach_request::reach;
pub use reverse_place::{
    IntersectionJson, NEAR_INTERSECTION_M, ReverseAnswer, ReverseQuery, StreetJson, reverse_place,
};
pub use route_json::{
    LineString, MethodConfig, ModeConfig, RouteConfig, TierConfig, TradeoffConfig, evaluate,
    evaluate_hex_path, route, route_config,
};
pub use score_rows::{HexScoreRow, LookupCell, RingLookup, ScoreRows};
pub use streets::{
    MAX_STREETS, MAX_STREETS_BOX_SIDE_DEG, StreetRow, StreetsAnswer, StreetsQuery, streets,
};
pub use success::Success;
pub use tiles::{
    BUFFER, CityPath, LayerFields, MAX_ZOOM, MIN_ZOOM, NO_DATA_COLOUR, STREETS_MIN_ZOOM,
    StyleSources, TileJson, TilePath, TileQuery, TileRequest, TileStyle, VectorLayer, VectorSource,
    served_tile, tile, tile_id, tile_style, tilejson,
};
