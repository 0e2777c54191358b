//! `GET /tiles/{city}/{z}/{x}/{y}.mvt`: a city's risk as a Mapbox Vector Tile, the
//! picture of one `/hexes/score` request (its scoring options as query
//! parameters). Two layers: `hexes`, every covered cell the tile meets, clipped to
//! the tile and its buffer, with `h3`, `safetyScore`, `colorIndex`, `tier` and
//! `expectedCount` (the week's expected incidents in the request's hours); and,
//! from [`STREETS_MIN_ZOOM`], `streets`, every way the tile meets with `name`,
//! `incidentsPerKm` and `band` (the colour index of its safety score). Feature ids
//! are the cell's position in the city's grid and the way's number in its network,
//! both stable within a model version. The npm
//! package makes the same bytes offline (`engine.tile`).

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::hexes::{ScoringParamsQuery, scoring_from_params};
use super::options::Scoring;
use super::{ErrorCode, QueryError};
use crate::city::{Atlas, CityModel};
use crate::scoring::{CityScores, ColourIndex, ScoringParams, StreetRisk, tier};
use crate::tiles::clip::ClipBox;
use crate::tiles::mvt::{self, Layer, PropertyValue, Shape};
use crate::tiles::{EXTENT, TileId, TilePoint};

/// The shallowest zoom served: a city fits in a tile or two.
pub const MIN_ZOOM: u8 = 8;

/// The deepest zoom served; maps draw deeper zooms from these tiles (overzoom).
pub const MAX_ZOOM: u8 = 16;

/// The shallowest zoom with the `streets` layer.
pub const STREETS_MIN_ZOOM: u8 = 14;

/// Units of the neighbouring tiles a tile's shapes reach into, so that a renderer
/// never draws a clipped edge inside the tile.
pub const BUFFER: f64 = 64.0;

/// The tile `z/x/y` of a city as the three path parts give them.
///
/// # Errors
/// `INVALID_REQUEST` on `z`, `x` or `y` for a part that is not a whole number, and
/// as [`served_tile`].
pub fn tile_id(z: &str, x: &str, y: &str) -> Result<TileId, QueryError> {
    let number = |field: &'static str, text: &str| {
        text.parse::<u64>()
            .map_err(|_| QueryError::invalid(field, "z, x and y must be whole numbers"))
    };
    served_tile(number("z", z)?, number("x", x)?, number("y", y)?)
}

/// The tile `z/x/y`, if it is in the pyramid this API serves.
///
/// # Errors
/// `INVALID_REQUEST` on `z` outside [`MIN_ZOOM`] to [`MAX_ZOOM`] (with
/// `valid_range`), on `x,y` for a column or row past `2^z - 1`.
pub fn served_tile(z: u64, x: u64, y: u64) -> Result<TileId, QueryError> {
    if !(u64::from(MIN_ZOOM)..=u64::from(MAX_ZOOM)).contains(&z) {
        return Err(
            QueryError::invalid("z", "tiles are served from zoom 8 to 16")
                .with("valid_range", [MIN_ZOOM, MAX_ZOOM]),
        );
    }
    TileId::new(z as u32, x, y).map_err(|_| QueryError::invalid("x,y", "x and y must be below 2^z"))
}

/// The tile's bytes (empty when nothing of the city is in it).
///
/// # Errors
/// As [`TileRequest::new`].
pub fn tile(
    atlas: &Atlas,
    city_code: &str,
    id: TileId,
    params: &Map<String, Value>,
    now: i64,
) -> Result<Vec<u8>, QueryError> {
    Ok(TileRequest::new(atlas, city_code, id, params, now)?.render())
}

/// A checked tile request: the city, the tile and the scoring resolved at the
/// request's instant, which is all a tile's bytes are made from.
#[derive(Debug, Clone, Copy)]
pub struct TileRequest<'a> {
    city: &'a CityModel,
    id: TileId,
    scoring: Scoring,
}

impl<'a> TileRequest<'a> {
    /// Checks a request for tile `id` of `city_code` with scoring options `params`
    /// at `now` (seconds since the epoch, which sets the default week).
    ///
    /// # Errors
    /// `NOT_FOUND` for a city the atlas does not hold; bad scoring options as
    /// `/hexes/score`.
    pub fn new(
        atlas: &'a Atlas,
        city_code: &str,
        id: TileId,
        params: &Map<String, Value>,
        now: i64,
    ) -> Result<Self, QueryError> {
        let city = atlas.city(city_code).ok_or_else(|| {
            QueryError::new(ErrorCode::NotFound, "city", "no such city").with("city", city_code)
        })?;
        let scoring = scoring_from_params(params)?;
        scoring.params()?;
        Ok(Self {
            city,
            id,
            scoring: scoring.resolve(city, now)?,
        })
    }

    /// What the tile's bytes depend on besides the city's artifact and this code:
    /// the city, the tile, the resolved scoring and the week. Requests whose keys
    /// are equal get equal bytes from one artifact, however their options were
    /// spelt (`week` left out or named, classes in any order), so a cache keyed by
    /// it and the artifact's version computes a tile once.
    #[must_use]
    pub fn content_key(&self) -> String {
        let TileId { z, x, y } = self.id;
        let ScoringParams {
            intent,
            active,
            overrides,
            window,
        } = self.scoring.params;
        alloc::format!(
            "{}/{z}/{x}/{y}/{intent:?}/{active:?}/{overrides:?}/{window:?}/{}",
            self.city.artifact().city.code,
            self.scoring.week
        )
    }

    /// The tile's bytes (empty when nothing of the city is in it).
    #[must_use]
    pub fn render(&self) -> Vec<u8> {
        let Self { city, id, scoring } = *self;
        render(city, id, scoring)
    }
}

fn render(city: &CityModel, id: TileId, resolved: Scoring) -> Vec<u8> {
    let scores = CityScores::kept(city, resolved.week, &resolved.params);
    let [west, south, east, north] = id.bounds(BUFFER);
    let clip = ClipBox {
        min: -BUFFER,
        max: f64::from(EXTENT) + BUFFER,
    };
    let mut hexes = Layer::new("hexes");
    let b = &city.artifact().bounds;
    let meets_city = !(b.east < west || b.west > east || b.north < south || b.south > north);
    for position in (0..city.cell_count()).filter(|_| meets_city) {
        let Some(cell) = city.cell(position) else {
            continue;
        };
        let boundary = city.cell_boundary(cell);
        let (mut lo_lat, mut hi_lat, mut lo_lng, mut hi_lng) = (90.0, -90.0, 180.0, -180.0);
        for v in boundary.iter() {
            let (lat, lng) = (v.lat(), v.lng());
            lo_lat = f64::min(lo_lat, lat);
            hi_lat = f64::max(hi_lat, lat);
            lo_lng = f64::min(lo_lng, lng);
            hi_lng = f64::max(hi_lng, lng);
        }
        if hi_lng < west || lo_lng > east || hi_lat < south || lo_lat > north {
            continue;
        }
        let ring: Vec<TilePoint> = boundary
            .iter()
            .map(|v| id.project(v.lng(), v.lat()))
            .collect();
        let clipped = clip.ring(&ring);
        if clipped.len() < 3 {
            continue;
        }
        let safety = scores.safety(position);
        let expected: f64 = city
            .window_rates(position, resolved.week, resolved.params.window)
            .iter()
            .sum();
        // Not the H3 index as the id: JavaScript numbers (and map libraries'
        // feature state) hold 53 bits.
        hexes.add(
            position as u64,
            &[
                ("h3", PropertyValue::Text(cell.to_string())),
                ("safetyScore", PropertyValue::Double(safety)),
                (
                    "colorIndex",
                    PropertyValue::Int(i64::from(ColourIndex::from_safety_score(safety).get())),
                ),
                ("tier", PropertyValue::Uint(u64::from(tier(safety)))),
                ("expectedCount", PropertyValue::Double(expected)),
            ],
            &Shape::Polygon(alloc::vec![clipped]),
        );
    }
    let mut streets = Layer::new("streets");
    if id.z >= STREETS_MIN_ZOOM
        && meets_city
        && let Some(network) = city.road_network()
        && network.graph.kind == crate::roads::NetworkKind::Roads
    {
        let graph = network.graph;
        let risk = StreetRisk::of(city, &scores, &network);
        let mut safety: Option<alloc::sync::Arc<[f64]>> = None;
        let bounds = [west, south, east, north];
        for way in 0..graph.way_count() {
            let ends = network.index.way_nodes(way);
            if !meets(graph.way_points(way, ends), bounds) {
                continue;
            }
            let line: Vec<TilePoint> = graph
                .way_points(way, ends)
                .map(|p| id.project(p.lng(), p.lat()))
                .collect();
            let parts = clip.line(&line);
            if parts.is_empty() {
                continue;
            }
            let safety = safety.get_or_insert_with(|| risk.kept_safety_scores(&scores, graph));
            let mut properties = Vec::with_capacity(3);
            if let Some(name) = graph.way_name(way) {
                properties.push(("name", PropertyValue::Text(name.to_string())));
            }
            properties.push(("incidentsPerKm", PropertyValue::Double(risk.per_km(way))));
            properties.push((
                "band",
                PropertyValue::Int(i64::from(ColourIndex::from_safety_score(safety[way]).get())),
            ));
            streets.add(way as u64, &properties, &Shape::Lines(parts));
        }
    }
    mvt::encode(&[hexes, streets])
}

/// The path of `GET /tiles/{city}.json` and `GET /tiles/{city}/style.json`.
#[allow(
    clippy::doc_markdown,
    reason = "the descriptions are the API's, as it has always worded them"
)]
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CityPath {
    /// a city code, as GET /v1/cities lists them (for example city_ca_tor)
    pub city: String,
}

/// The path of `GET /tiles/{city}/{z}/{x}/{y}.mvt`.
#[allow(
    clippy::doc_markdown,
    reason = "the descriptions are the API's, as it has always worded them"
)]
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TilePath {
    /// a city code, as GET /v1/cities lists them (for example city_ca_tor)
    pub city: String,
    /// zoom, 8 to 16
    #[cfg_attr(feature = "schema", schemars(range(min = MIN_ZOOM, max = MAX_ZOOM)))]
    pub z: u8,
    /// column, below 2^z
    pub x: u32,
    /// row, below 2^z; the path segment is y.mvt
    pub y: u32,
}

/// The query of `GET /tiles/{city}/{z}/{x}/{y}.mvt`.
#[allow(
    clippy::doc_markdown,
    reason = "the descriptions are the API's, as it has always worded them"
)]
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TileQuery {
    /// The scoring options.
    #[serde(flatten)]
    pub scoring: ScoringParamsQuery,
    /// The city's artifact version, as the TileJSON's tile URLs carry it. When it names the version in force, the answer may be kept by the browser for an hour (Cache-Control: private, max-age=3600); otherwise it is revalidated on each use (private, no-cache). It does not change the tile.
    pub v: Option<String>,
}

/// A vector layer's fields and what each holds, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LayerFields(pub &'static [(&'static str, &'static str)]);

impl Serialize for LayerFields {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (name, what) in self.0 {
            map.serialize_entry(name, what)?;
        }
        map.end()
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for LayerFields {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> alloc::borrow::Cow<'static, str> {
        "LayerFields".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "object", "additionalProperties": {"type": "string"}})
    }
}

/// The fields of the `hexes` layer.
const HEXES_FIELDS: LayerFields = LayerFields(&[
    ("h3", "String: the H3 cell (resolution 8)"),
    (
        "safetyScore",
        "Number: 0 (least safe) to 100 (safest) among the city's cells",
    ),
    (
        "colorIndex",
        "Number: the colour band, 0 to 16 (-1: no data); GET /hexes/config",
    ),
    ("tier", "Number: 0 (score 80 or more) to 4 (under 20)"),
    (
        "expectedCount",
        "Number: expected incidents in the week and hours asked",
    ),
]);

/// The fields of the `streets` layer.
const STREETS_FIELDS: LayerFields = LayerFields(&[
    ("name", "String: the street's name, where it has one"),
    (
        "incidentsPerKm",
        "Number: expected incidents per kilometre in the week and hours asked",
    ),
    (
        "band",
        "Number: the colour band of the street's safety score, as colorIndex",
    ),
]);

/// A layer of a city's tiles.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(inline))]
#[serde(deny_unknown_fields)]
pub struct VectorLayer {
    /// `hexes` or `streets`.
    pub id: &'static str,
    /// Its features' properties and what each holds.
    pub fields: LayerFields,
    /// The shallowest zoom that has it.
    pub minzoom: u8,
    /// The deepest zoom served.
    pub maxzoom: u8,
}

/// The answer of `GET /tiles/{city}.json`: the city's `TileJSON` 3.0.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct TileJson {
    /// The `TileJSON` version: `3.0.0`.
    pub tilejson: &'static str,
    /// `hexrisk:` and the city's name.
    pub name: String,
    /// What the tiles show.
    pub description: &'static str,
    /// The model version of the city's artifact.
    pub version: String,
    /// Whose forecast from whose data, and the data's last day.
    pub attribution: String,
    /// `xyz`.
    pub scheme: &'static str,
    /// The tile URL template, with the request's scoring options and `v=` the
    /// artifact's version.
    pub tiles: [String; 1],
    /// The shallowest zoom served.
    pub minzoom: u8,
    /// The deepest zoom served.
    pub maxzoom: u8,
    /// The city's bounds: west, south, east, north.
    pub bounds: [f64; 4],
    /// The bounds' centre and zoom 12: longitude, latitude, zoom.
    // An array of numbers to the schema: a tuple's `prefixItems` is more than some
    // OpenAPI tools read.
    #[cfg_attr(feature = "schema", schemars(with = "[f64; 3]"))]
    pub center: (f64, f64, u8),
    /// The layers `hexes` and `streets` with their fields.
    pub vector_layers: [VectorLayer; 2],
}

/// `GET /tiles/{city}.json`: the city's `TileJSON` 3.0, its tiles at `tiles_url` (a
/// URL template with `{z}`, `{x}` and `{y}`, carrying the request's options
/// `params`, which are checked as a tile's are at `now`); its attribution credits
/// `publisher`, who publishes the city's incident data, when known.
///
/// # Errors
/// `NOT_FOUND` for a city the atlas does not hold; bad scoring options as
/// `/hexes/score`.
pub fn tilejson(
    atlas: &Atlas,
    city_code: &str,
    params: &Map<String, Value>,
    tiles_url: &str,
    publisher: Option<&str>,
    now: i64,
) -> Result<TileJson, QueryError> {
    let city = atlas.city(city_code).ok_or_else(|| {
        QueryError::new(ErrorCode::NotFound, "city", "no such city").with("city", city_code)
    })?;
    // The tiles it names would all be refused: refuse it.
    scoring_from_params(params)?.resolve(city, now)?;
    let artifact = city.artifact();
    let b = &artifact.bounds;
    Ok(TileJson {
        tilejson: "3.0.0",
        name: alloc::format!("hexrisk: {}", artifact.city.name),
        description: "Forecast crime risk on H3 cells and streets (the picture of one POST /hexes/score request)",
        version: artifact.model.version.clone(),
        attribution: match publisher {
            Some(publisher) => alloc::format!(
                "Risk forecast by hexrisk (model {}) from {publisher}, data through {}",
                artifact.model.version,
                artifact.model.last_updated
            ),
            None => alloc::format!(
                "Risk forecast by hexrisk (model {}) from police-reported incidents of {}, data through {}",
                artifact.model.version,
                artifact.city.name,
                artifact.model.last_updated
            ),
        },
        scheme: "xyz",
        tiles: [tiles_url.into()],
        minzoom: MIN_ZOOM,
        maxzoom: MAX_ZOOM,
        bounds: [b.west, b.south, b.east, b.north],
        center: (
            f64::midpoint(b.west, b.east),
            f64::midpoint(b.south, b.north),
            12,
        ),
        vector_layers: [
            VectorLayer {
                id: "hexes",
                fields: HEXES_FIELDS,
                minzoom: MIN_ZOOM,
                maxzoom: MAX_ZOOM,
            },
            VectorLayer {
                id: "streets",
                fields: STREETS_FIELDS,
                minzoom: STREETS_MIN_ZOOM,
                maxzoom: MAX_ZOOM,
            },
        ],
    })
}

/// The source of the Worker's style: a vector source with its `TileJSON`'s members,
/// so that a map asks for tiles without one more round trip for it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(inline))]
#[serde(deny_unknown_fields)]
pub struct VectorSource {
    /// `vector`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The tile URL template.
    pub tiles: [String; 1],
    /// The shallowest zoom served.
    pub minzoom: u8,
    /// The deepest zoom served.
    pub maxzoom: u8,
    /// The city's bounds: west, south, east, north.
    pub bounds: [f64; 4],
    /// Whose forecast from whose data.
    pub attribution: String,
}

impl From<TileJson> for VectorSource {
    fn from(tilejson: TileJson) -> Self {
        Self {
            kind: "vector",
            tiles: tilejson.tiles,
            minzoom: tilejson.minzoom,
            maxzoom: tilejson.maxzoom,
            bounds: tilejson.bounds,
            attribution: tilejson.attribution,
        }
    }
}

/// A `MapLibre` style fragment (style spec version 8) of a city's tiles: the answer of
/// `GET /tiles/{city}/style.json`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "TileStyle"))]
#[serde(deny_unknown_fields)]
pub struct TileStyle<S> {
    /// The style spec version: 8.
    #[cfg_attr(feature = "schema", schemars(schema_with = "style_version_schema"))]
    pub version: u8,
    /// `hexrisk`.
    pub name: &'static str,
    /// The source `hexrisk`: the city's tiles.
    pub sources: StyleSources<S>,
    /// `hexrisk-hexes` (fill by colorIndex) and `hexrisk-streets` (from zoom 14, line
    /// colour by band, width by zoom), as style spec layers.
    pub layers: [Value; 2],
}

/// The sources of a [`TileStyle`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(inline))]
#[serde(deny_unknown_fields)]
pub struct StyleSources<S> {
    /// The city's tiles.
    pub hexrisk: S,
}

/// The schema of a style's version: the constant 8.
#[cfg(feature = "schema")]
fn style_version_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({ "const": STYLE_VERSION })
}

/// The style spec version of [`tile_style`].
const STYLE_VERSION: u8 = 8;

/// A `MapLibre` style fragment (style spec version 8) drawing a city's tiles from
/// `source` (a vector source: the Worker's tiles with its `TileJSON`'s members, or the package's
/// `hexrisk://` tiles): hexes filled by `colorIndex` with the 17-colour palette of
/// `/hexes/config` (no data grey), streets from zoom 14 coloured by `band`, wider as
/// the map zooms in. Its layer ids start `hexrisk-`, so an app adds them to its own
/// style.
#[must_use]
pub fn tile_style<S>(source: S) -> TileStyle<S> {
    let by_band = |property: &str| {
        let mut expression =
            alloc::vec![Value::from("match"), serde_json::json!(["get", property])];
        for (band, colour) in crate::scoring::PALETTE.iter().enumerate() {
            expression.push(Value::from(band));
            expression.push(Value::from(*colour));
        }
        expression.push(Value::from(NO_DATA_COLOUR));
        Value::Array(expression)
    };
    TileStyle {
        version: STYLE_VERSION,
        name: "hexrisk",
        sources: StyleSources { hexrisk: source },
        layers: [
            serde_json::json!({
                "id": "hexrisk-hexes",
                "type": "fill",
                "source": "hexrisk",
                "source-layer": "hexes",
                "paint": {
                    "fill-color": by_band("colorIndex"),
                    "fill-opacity": ["interpolate", ["linear"], ["zoom"], 10, 0.6, 16, 0.35],
                    "fill-outline-color": "rgba(255,255,255,0.4)",
                },
            }),
            serde_json::json!({
                "id": "hexrisk-streets",
                "type": "line",
                "source": "hexrisk",
                "source-layer": "streets",
                "minzoom": STREETS_MIN_ZOOM,
                "layout": { "line-cap": "round", "line-join": "round" },
                "paint": {
                    "line-color": by_band("band"),
                    "line-width": ["interpolate", ["exponential", 1.6], ["zoom"], 14, 1.5, 18, 8],
                },
            }),
        ],
    }
}

/// The colour of a cell without data (`colorIndex` -1).
pub const NO_DATA_COLOUR: &str = "#9e9e9e";

/// Whether a segment of the line may meet the box: its own box does (the clip
/// decides the rest; a long straight way may cross a deep tile with no point in it).
fn meets(
    mut points: impl Iterator<Item = crate::grid::MicroDegrees>,
    [west, south, east, north]: [f64; 4],
) -> bool {
    let Some(mut a) = points.next() else {
        return false;
    };
    points.any(|b| {
        let (lo_lng, hi_lng) = (a.lng().min(b.lng()), a.lng().max(b.lng()));
        let (lo_lat, hi_lat) = (a.lat().min(b.lat()), a.lat().max(b.lat()));
        a = b;
        !(hi_lng < west || lo_lng > east || hi_lat < south || lo_lat > north)
    })
}

#[cfg(test)]
mod tests;
