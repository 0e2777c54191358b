//! The router API's document (`GET /openapi.json`): its operations, in the order of
//! the route table, and what the document says around them.

use http::Method;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde_json::json;

use super::Spec;
use super::headers;
use super::operation::{Content, JSON, Operation, Success, openapi_document, parameters, schema};
use crate::api::access::keys::KeyApi;
use crate::api::plumbing::success_body::MVT_CONTENT_TYPE;
use crate::api::routes::{Access, Route};
use crate::api::serving::health::RouterHealth;
use hexrisk_engine::operations::reach_request::{ReachQuery, ReachResponse};
use hexrisk_engine::operations::route_request::{
    EvaluateQuery, EvaluationResponse, HexPathQuery, RouteQuery, RouteResponse,
};
use hexrisk_engine::operations::{self as engine, GEOJSON_MEDIA_TYPE};

/// Answers to a wrong key, origin or quota, on every keyed operation.
const KEYED_ERRORS: [(u16, &str); 6] = [
    (401, "Missing or invalid X-API-Key"),
    (403, "Origin not on the key's allowlist"),
    (404, "Not covered"),
    (429, "Daily quota exceeded"),
    (500, "Internal error"),
    (503, "Models unavailable"),
];

pub(super) fn spec() -> Spec {
    Spec {
        info: json!({
            "title": "hexrisk hex risk and safest-route API",
            "version": "1.0.0",
            "description": "H3 cell scores, viewports, ring lookups, breakdowns, safest routes with hex corridors, path evaluation and precinct GeoJSON. Decisions the specification leaves open are in docs/API.md; routing rules in docs/ROUTING.md.",
        }),
        servers: json!([{ "url": "http://127.0.0.1:8787", "description": "make run" }]),
        security: (
            "apiKey",
            json!({ "type": "apiKey", "in": "header", "name": "X-API-Key" }),
        ),
        secured: true,
        serves: |row| {
            !row.path.starts_with("/v1/") && !row.path.starts_with("/portal") && !row.is_baseline()
        },
        base: "",
        operations: &OPERATIONS,
        common_errors: |row: &Route| match row.access {
            Access::Key(KeyApi::Router) => KEYED_ERRORS.to_vec(),
            _ => Vec::new(),
        },
        headers: headers::keyed_api(),
    }
}

/// An answer to input the operation refuses.
const INVALID: (u16, &str) = (400, "Invalid input");

/// The schema of a vector tile's bytes.
fn tile_bytes(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": "string",
        "contentMediaType": MVT_CONTENT_TYPE,
        "description": "A Mapbox Vector Tile 2.1 (protobuf); empty when nothing of the city is in the tile.",
    })
}

/// The parameters of `GET /tiles/{city}/{z}/{x}/{y}.mvt`: the tile's path and its
/// query.
#[derive(JsonSchema)]
#[allow(dead_code, reason = "a description for the document, never built")]
struct TileParameters {
    #[serde(flatten)]
    path: engine::TilePath,
    #[serde(flatten)]
    query: engine::TileQuery,
}

/// The parameters of `GET /tiles/{city}.json` and `GET /tiles/{city}/style.json`:
/// the city and the scoring options.
#[derive(JsonSchema)]
#[allow(dead_code, reason = "a description for the document, never built")]
struct CityParameters {
    #[serde(flatten)]
    path: engine::CityPath,
    #[serde(flatten)]
    query: engine::ScoringParamsQuery,
}

static OPERATIONS: [Operation; 21] = [
    Operation {
        method: Method::GET,
        path: "/health",
        id: "routerHealth",
        summary: "Status and coverage (no key)",
        description: None,
        parameters: None,
        body: None,
        success: Success::json("OK", schema::<RouterHealth>),
        errors: &[(503, "A component is unhealthy")],
    },
    Operation {
        method: Method::GET,
        path: "/openapi.json",
        id: "routerOpenApi",
        summary: "This document (no key)",
        description: None,
        parameters: None,
        body: None,
        success: Success::json("OK", openapi_document),
        errors: &[],
    },
    Operation {
        method: Method::GET,
        path: "/hexes/config",
        id: "hexesConfig",
        summary: "Palette and resolution",
        description: None,
        parameters: None,
        body: None,
        success: Success::json("OK", schema::<engine::HexConfig>),
        errors: &[],
    },
    Operation {
        method: Method::POST,
        path: "/hexes/score",
        id: "hexesScore",
        summary: "Scores for up to 5000 cells, in request order",
        description: None,
        parameters: None,
        body: Some(schema::<engine::HexesScoreRequest>),
        success: Success::json("OK", schema::<Vec<engine::HexScoreRow>>),
        errors: &[INVALID],
    },
    Operation {
        method: Method::POST,
        path: "/hexes/lookup",
        id: "hexesLookup",
        summary: "Scores of the cells within ring k of a point",
        description: None,
        parameters: None,
        body: Some(schema::<engine::HexesLookupRequest>),
        success: Success::json("OK", schema::<engine::RingLookup>),
        errors: &[INVALID],
    },
    Operation {
        method: Method::GET,
        path: "/hexes/breakdown",
        id: "hexesBreakdown",
        summary: "Per-class breakdown of one cell",
        description: None,
        parameters: Some(parameters::<engine::BreakdownQuery>),
        body: None,
        success: Success::json("OK", schema::<engine::CellBreakdown>),
        errors: &[INVALID],
    },
    Operation {
        method: Method::GET,
        path: "/hexes/all",
        id: "hexesAll",
        summary: "Slim objects for the covered cells in a box (sides at most 2 degrees)",
        description: None,
        parameters: Some(parameters::<engine::HexesAllQuery>),
        body: None,
        success: Success {
            status: 200,
            description: "OK",
            content: Content::Media(&[
                (JSON, schema::<Vec<engine::SlimHex>>),
                (GEOJSON_MEDIA_TYPE, schema::<engine::HexFeatureCollection>),
            ]),
            headers: &[],
        },
        errors: &[INVALID],
    },
    Operation {
        method: Method::GET,
        path: "/streets",
        id: "streets",
        summary: "The streets in a box (sides at most 0.05 degrees), each with its line, name, expected incidents per km and colour band",
        description: Some(
            "Street-level risk (docs/ROUTING.md, docs/MODEL.md): each street's expected incidents per km for the request's intent, classes and week or time band, its safety score among the city's streets by length and that score's colour band (the hexes' palette). The city is the one holding the box's centre, or the first with streets whose bounds meet it; Houston's network is a hex lattice and has no streets. A box holding more than 20,000 streets is refused (400).",
        ),
        parameters: Some(parameters::<engine::StreetsQuery>),
        body: None,
        success: Success {
            status: 200,
            description: "OK",
            content: Content::Media(&[
                (JSON, schema::<engine::StreetsAnswer>),
                (
                    GEOJSON_MEDIA_TYPE,
                    schema::<engine::StreetFeatureCollection>,
                ),
            ]),
            headers: &[],
        },
        errors: &[INVALID],
    },
    Operation {
        method: Method::GET,
        path: "/tiles/{city}/{z}/{x}/{y}.mvt",
        id: "tile",
        summary: "A Mapbox Vector Tile (2.1) of a city's risk: layers hexes (every zoom served) and streets (from zoom 14), the picture of one /hexes/score request with the query's scoring options",
        description: None,
        parameters: Some(parameters::<TileParameters>),
        body: None,
        success: Success {
            status: 200,
            description: "The tile",
            content: Content::Media(&[(MVT_CONTENT_TYPE, tile_bytes)]),
            headers: &[],
        },
        errors: &[
            (204, "Nothing of the city in this tile"),
            (
                400,
                "A tile outside the pyramid served (z 8 to 16, x and y below 2^z) or bad scoring options",
            ),
            (404, "No such city"),
        ],
    },
    Operation {
        method: Method::GET,
        path: "/tiles/{city}.json",
        id: "tileJson",
        summary: "The city's TileJSON 3.0: its tile URL (with the query's scoring options), bounds, zooms and vector_layers with their fields",
        description: None,
        parameters: Some(parameters::<CityParameters>),
        body: None,
        success: Success::json("TileJSON 3.0", schema::<engine::TileJson>),
        errors: &[
            (
                400,
                "Bad scoring options (the tiles it would name would all be refused)",
            ),
            (404, "No such city"),
        ],
    },
    Operation {
        method: Method::GET,
        path: "/tiles/{city}/style.json",
        id: "tileStyle",
        summary: "A MapLibre style fragment (style spec 8) of the city's tiles: source hexrisk (the city's TileJSON, with the query's options), layers hexrisk-hexes (fill by colorIndex, the 17-colour palette of /hexes/config) and hexrisk-streets (from zoom 14, line colour by band, width by zoom)",
        description: None,
        parameters: Some(parameters::<CityParameters>),
        body: None,
        success: Success::json(
            "A style fragment",
            schema::<engine::TileStyle<engine::VectorSource>>,
        ),
        errors: &[
            (
                400,
                "Bad scoring options (the tiles it would name would all be refused)",
            ),
            (404, "No such city"),
        ],
    },
    Operation {
        method: Method::GET,
        path: "/places",
        id: "places",
        summary: "Places by name in one city: streets, intersections (\"Queen & Spadina\"), neighbourhoods, police divisions, as one types",
        description: Some(
            "Matching and ranking are described in docs/API.md (\"Place search\"). The city is `city`, or the one holding `lat`/`lng` when `city` is not given; a point also orders equal matches by distance and gives each place its `distanceM`. An unknown `city` is INVALID_REQUEST with the known codes in `details.cities`.",
        ),
        parameters: Some(parameters::<engine::PlacesQuery>),
        body: None,
        success: Success::json("OK", schema::<engine::SearchAnswer>),
        errors: &[
            INVALID,
            (
                404,
                "No city given and the point is not covered by any city",
            ),
        ],
    },
    Operation {
        method: Method::GET,
        path: "/places/reverse",
        id: "placesReverse",
        summary: "The named street and the intersection nearest a point, and a label naming it",
        description: None,
        parameters: Some(parameters::<engine::ReverseQuery>),
        body: None,
        success: Success::json("OK", schema::<engine::ReverseAnswer>),
        errors: &[INVALID, (404, "The point is not covered by any city")],
    },
    Operation {
        method: Method::GET,
        path: "/route/config",
        id: "routeConfig",
        summary: "Methods, modes, limits and tier styling",
        description: None,
        parameters: None,
        body: None,
        success: Success::json("OK", schema::<engine::RouteConfig>),
        errors: &[],
    },
    Operation {
        method: Method::POST,
        path: "/route",
        id: "route",
        summary: "Safest route with its hex corridor",
        description: None,
        parameters: None,
        body: Some(schema::<RouteQuery>),
        success: Success::json("OK", schema::<RouteResponse>),
        errors: &[INVALID],
    },
    Operation {
        method: Method::POST,
        path: "/reach",
        id: "reach",
        summary: "Safe reach: the cells within a time budget, each with the least exposure to reach it",
        description: None,
        parameters: None,
        body: Some(schema::<ReachQuery>),
        success: Success::json("OK", schema::<ReachResponse>),
        errors: &[INVALID],
    },
    Operation {
        method: Method::POST,
        path: "/evaluate",
        id: "evaluate",
        summary: "Score a LineString",
        description: None,
        parameters: None,
        body: Some(schema::<EvaluateQuery>),
        success: Success::json("OK", schema::<EvaluationResponse>),
        errors: &[INVALID],
    },
    Operation {
        method: Method::POST,
        path: "/evaluate-hex-path",
        id: "evaluateHexPath",
        summary: "Score an ordered hex path",
        description: None,
        parameters: None,
        body: Some(schema::<HexPathQuery>),
        success: Success::json("OK", schema::<EvaluationResponse>),
        errors: &[INVALID],
    },
    Operation {
        method: Method::GET,
        path: "/precincts/status",
        id: "precinctsStatus",
        summary: "Precinct availability",
        description: None,
        parameters: None,
        body: None,
        success: Success::json("OK", schema::<engine::PrecinctsStatus>),
        errors: &[],
    },
    Operation {
        method: Method::GET,
        path: "/precincts/all-scores",
        id: "precinctsAllScores",
        summary: "Scores of every precinct",
        description: None,
        parameters: Some(parameters::<engine::ScoringParamsQuery>),
        body: None,
        success: Success::json("OK", schema::<engine::PrecinctScores>),
        errors: &[INVALID],
    },
    Operation {
        method: Method::GET,
        path: "/precincts",
        id: "precincts",
        summary: "Precinct boundaries with scores (GeoJSON, RFC 7946)",
        description: None,
        parameters: Some(parameters::<engine::ScoringParamsQuery>),
        body: None,
        success: Success::json("OK", schema::<engine::PrecinctFeatureCollection>),
        errors: &[INVALID],
    },
];
