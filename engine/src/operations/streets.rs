//! `GET /streets`: the streets in a small box, each with its geometry, name, expected
//! incidents per kilometre and colour band for the request's scoring options (those
//! of `/hexes/score`). A map draws them from zoom 15 in, where hexagons are larger
//! than the streets between which a walker chooses.

use alloc::string::String;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::hexes::{ListFormat, ScoringParamsQuery, scoring_from_params, viewport};
use super::route_request::ScoredWith;
use super::{ErrorCode, QueryError, Success};
use crate::city::{Atlas, CityModel};
use crate::grid::MicroDegrees;
use crate::roads::NetworkKind;
use crate::scoring::{CityScores, ColourIndex, StreetRisk};

/// Largest side of a `GET /streets` box, in degrees (about 5.5 km north to south).
pub const MAX_STREETS_BOX_SIDE_DEG: f64 = 0.05;

/// Most streets one answer may hold; a box holding more is refused rather than
/// answered in part.
pub const MAX_STREETS: usize = 20_000;

/// `basis` of a street whose learnt shares set it apart from its cell's other streets.
const STREET_BASIS: &str = "street";

/// `basis` of a street whose risk is its cell's, spread by length.
const CELL_BASIS: &str = "cell";

/// The schema of `basis`: the two texts it takes.
#[cfg(feature = "schema")]
pub(super) struct Basis;

#[cfg(feature = "schema")]
impl schemars::JsonSchema for Basis {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> alloc::borrow::Cow<'static, str> {
        "Basis".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "enum": [STREET_BASIS, CELL_BASIS] })
    }
}

/// The query of `GET /streets`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct StreetsQuery {
    /// degrees; each side of the box at most 0.05 degrees
    #[cfg_attr(feature = "schema", schemars(range(min = -180, max = 180)))]
    pub west: f64,
    /// degrees; each side of the box at most 0.05 degrees
    #[cfg_attr(feature = "schema", schemars(range(min = -90, max = 90)))]
    pub south: f64,
    /// degrees; each side of the box at most 0.05 degrees
    #[cfg_attr(feature = "schema", schemars(range(min = -180, max = 180)))]
    pub east: f64,
    /// degrees; each side of the box at most 0.05 degrees
    #[cfg_attr(feature = "schema", schemars(range(min = -90, max = 90)))]
    pub north: f64,
    /// json (default) or geojson: a LineString per street (the rows' other members as properties; what they were scored with on the collection). Accept: application/geo+json asks for geojson too; a format in the query wins.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(with = "ListFormat", transform = super::wire::no_default))]
    pub format: Option<ListFormat>,
    /// The scoring options.
    #[serde(flatten)]
    pub scoring: ScoringParamsQuery,
}

/// One street of a `/streets` answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(inline))]
#[serde(rename_all = "camelCase")]
#[serde(deny_unknown_fields)]
pub struct StreetRow {
    /// The way's number in the city's network, stable within a model version.
    pub id: u32,
    /// As the network's source spells it; null where it has none.
    pub name: Option<String>,
    /// The street's line, [lng, lat] pairs.
    #[cfg_attr(feature = "schema", schemars(length(min = 2)))]
    pub coordinates: Vec<[f64; 2]>,
    /// Metres.
    #[cfg_attr(feature = "schema", schemars(range(min = 0)))]
    pub length_m: f64,
    /// Expected incidents per km in the request's week or time window.
    #[cfg_attr(feature = "schema", schemars(range(min = 0)))]
    pub incidents_per_km: f64,
    /// Its rank among the city's streets weighed by length: 100 the safest.
    #[cfg_attr(feature = "schema", schemars(range(min = 0, max = 100)))]
    pub safety_score: f64,
    /// The colour band of that score, as the hexes' (`GET /hexes/config`).
    #[cfg_attr(feature = "schema", schemars(range(min = 0, max = 16)))]
    pub color_index: i8,
    /// street: the city's learnt street shares set it apart from the other streets of its cell; cell: its risk is its cell's spread by length (where the cell's history is too sparse to tell its streets apart, the shares shrink to that; a city without shares has only that).
    #[cfg_attr(feature = "schema", schemars(with = "Basis"))]
    pub basis: &'static str,
}

/// The answer of `GET /streets`: the streets in a box with their risk, and what they
/// were scored with.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "Streets"))]
#[serde(rename_all = "camelCase")]
#[serde(deny_unknown_fields)]
pub struct StreetsAnswer {
    /// Always `success`.
    pub status: Success,
    /// What the streets were scored with.
    #[serde(flatten)]
    pub scored_with: ScoredWith,
    /// The city's mean expected incidents per street kilometre for the request.
    #[cfg_attr(feature = "schema", schemars(range(min = 0)))]
    pub mean_incidents_per_km: f64,
    /// The streets with any point in the box, in network order.
    #[cfg_attr(feature = "schema", schemars(length(max = MAX_STREETS)))]
    pub streets: Vec<StreetRow>,
}

/// `GET /streets`: the streets of the city holding the box's centre (or, failing
/// that, the first city with streets whose bounds meet the box).
///
/// # Errors
/// `INVALID_COORDINATES` or `INVALID_REQUEST` for a bad box (a side over
/// [`MAX_STREETS_BOX_SIDE_DEG`]) or bad scoring options; `LOCATION_NOT_COVERED` when
/// no city with streets meets the box; `INVALID_REQUEST` when it holds more than
/// [`MAX_STREETS`].
pub fn streets(
    atlas: &Atlas,
    params: &Map<String, Value>,
    now: i64,
) -> Result<StreetsAnswer, QueryError> {
    let [west, south, east, north] = viewport(params, MAX_STREETS_BOX_SIDE_DEG)?;
    let scoring = scoring_from_params(params)?;
    scoring.params()?;
    let meets = |city: &&alloc::sync::Arc<CityModel>| {
        let b = &city.artifact().bounds;
        let has_streets = city
            .artifact()
            .road_graph
            .as_ref()
            .is_some_and(|g| g.kind == NetworkKind::Roads);
        has_streets && !(b.east < west || b.west > east || b.north < south || b.south > north)
    };
    let centre = (f64::midpoint(south, north), f64::midpoint(west, east));
    let holds_centre = |city: &&alloc::sync::Arc<CityModel>| {
        let b = &city.artifact().bounds;
        (b.south..=b.north).contains(&centre.0) && (b.west..=b.east).contains(&centre.1)
    };
    let city = atlas
        .cities()
        .iter()
        .filter(meets)
        .find(holds_centre)
        .or_else(|| atlas.cities().iter().find(meets))
        .ok_or_else(|| {
            QueryError::new(
                ErrorCode::LocationNotCovered,
                "west,south,east,north",
                "no city with a street network meets the box",
            )
        })?;
    let resolved = scoring.resolve(city, now)?;
    let scores = CityScores::kept(city, resolved.week, &resolved.params);
    let network = city.road_network().ok_or_else(|| {
        QueryError::new(ErrorCode::LocationNotCovered, "", "the city has no streets")
    })?;
    let graph = network.graph;
    let in_box =
        |p: &MicroDegrees| (west..=east).contains(&p.lng()) && (south..=north).contains(&p.lat());
    let index = network.index;
    let ways: Vec<usize> = (0..graph.way_count())
        .filter(|&way| {
            graph
                .way_points(way, index.way_nodes(way))
                .any(|p| in_box(&p))
        })
        .collect();
    if ways.len() > MAX_STREETS {
        return Err(QueryError::invalid(
            "west,south,east,north",
            alloc::format!(
                "the box holds {} streets; the limit is {MAX_STREETS}: ask for a smaller box",
                ways.len()
            ),
        )
        .with("limit", MAX_STREETS)
        .with("count", ways.len()));
    }
    let risk = StreetRisk::of(city, &scores, &network);
    let safety = risk.safety_scores(graph);
    let streets = ways
        .into_iter()
        .map(|way| {
            let own = street_level(city, way);
            StreetRow {
                id: way as u32,
                name: graph.way_name(way).map(String::from),
                coordinates: graph
                    .way_points(way, index.way_nodes(way))
                    .map(|p| [p.lng(), p.lat()])
                    .collect(),
                length_m: f64::from(graph.way_length_m[way]),
                incidents_per_km: risk.per_km(way),
                safety_score: safety[way],
                color_index: ColourIndex::from_safety_score(safety[way]).get(),
                basis: if own { STREET_BASIS } else { CELL_BASIS },
            }
        })
        .collect();
    Ok(StreetsAnswer {
        status: Success,
        scored_with: ScoredWith::new(city, &resolved),
        mean_incidents_per_km: risk.mean_density() * 1000.0,
        streets,
    })
}

/// Whether a way's shares differ from its length share in some group: the street
/// has a risk of its own, not only its cell's.
fn street_level(city: &CityModel, way: usize) -> bool {
    let layer = city.street_layer();
    let Some(graph) = city.artifact().road_graph.as_ref() else {
        return false;
    };
    let home = layer
        .homes
        .get(way)
        .copied()
        .unwrap_or(crate::roads::OUTSIDE_GRID);
    let cell_metres = layer.home_metres.get(home as usize).copied().unwrap_or(0.0);
    if cell_metres <= 0.0 {
        return false;
    }
    let by_length = f64::from(graph.way_length_m[way]) / cell_metres;
    layer.groups.iter().any(|(_, shares)| {
        let share = f64::from(shares[way]);
        libm::fabs(share - by_length) > 1e-3 * by_length
    })
}

#[cfg(test)]
mod tests;
