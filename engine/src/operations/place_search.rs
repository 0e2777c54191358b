//! `GET /places?q=&city=&lat=&lng=&limit=`: places by name in one city (see
//! [`crate::places::search`] for the matching and ranking). The city is `city`'s
//! code, or the one holding `lat`/`lng` when `city` is not given; a point, when
//! given, also orders equal matches by distance and gives each its `distanceM`.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use h3o::LatLng;
use serde::Serialize;
use serde_json::{Map, Value};

use super::hexes::box_side;
use super::prediction::locate;
use super::{QueryError, Success};
use crate::city::{Atlas, CityModel};
use crate::places::{Place, search};

/// Longest query, in characters.
pub const MAX_QUERY_CHARS: usize = 100;

/// Places answered when `limit` is not given.
pub const DEFAULT_PLACES: usize = 5;

/// Most places one answer holds.
pub const MAX_PLACES: usize = 20;

// Read by hand (`search_places`), for errors that name each field; the tests hold
// the two together.
/// The query of `GET /places`.
#[derive(Debug, Clone, Default, PartialEq, serde::Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PlacesQuery {
    /// The query: 1 to 100 characters, not blank, no control characters, at least one letter or digit.
    #[cfg_attr(feature = "schema", schemars(length(min = 1, max = MAX_QUERY_CHARS)))]
    pub q: String,
    /// A city code (GET /v1/cities); required unless lat and lng are given.
    pub city: Option<String>,
    /// With lng: orders equal matches by distance; picks the city when city is not given.
    #[cfg_attr(feature = "schema", schemars(range(min = -90, max = 90)))]
    pub lat: Option<f64>,
    /// With lat: orders equal matches by distance; picks the city when city is not given.
    #[cfg_attr(feature = "schema", schemars(range(min = -180, max = 180)))]
    pub lng: Option<f64>,
    /// Places answered, 1 to 20 (default 5).
    #[cfg_attr(
        feature = "schema",
        schemars(range(min = 1, max = MAX_PLACES), extend("default" = DEFAULT_PLACES))
    )]
    pub limit: Option<u32>,
}

/// The kinds of place, as answers name them.
#[cfg(feature = "schema")]
struct PlaceKind;

#[cfg(feature = "schema")]
impl schemars::JsonSchema for PlaceKind {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> alloc::borrow::Cow<'static, str> {
        "PlaceKind".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let kinds: Vec<&str> = crate::places::PlaceKind::ALL
            .iter()
            .map(|k| k.as_str())
            .collect();
        schemars::json_schema!({ "enum": kinds })
    }
}

/// How a place's name matched, as answers name it.
#[cfg(feature = "schema")]
struct MatchKind;

#[cfg(feature = "schema")]
impl schemars::JsonSchema for MatchKind {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> alloc::borrow::Cow<'static, str> {
        "MatchKind".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let mut kinds: Vec<&str> = crate::places::Match::ALL
            .iter()
            .map(|m| m.as_str())
            .collect();
        // Two matches (a whole word and part of one) are both `prefix`.
        kinds.dedup();
        schemars::json_schema!({ "enum": kinds })
    }
}

/// A place `GET /places` found.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "Place"))]
#[serde(rename_all = "camelCase")]
#[serde(deny_unknown_fields)]
pub struct PlaceJson {
    /// What the place is.
    #[cfg_attr(feature = "schema", schemars(with = "PlaceKind"))]
    pub kind: &'static str,
    /// As the source spells it; an intersection's matched streets joined by " & " in the query's order.
    pub name: String,
    /// An intersection's streets: every name meeting there (other kinds: absent).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "schema", schemars(length(min = 2)))]
    pub streets: Vec<String>,
    /// Latitude, degrees.
    pub lat: f64,
    /// Longitude, degrees.
    pub lng: f64,
    /// exact: the name is the query; prefix: the name begins with it; word: a later word of the name does; suggestion: the name begins within one edit (queries of 4+ characters) or two (8+).
    #[serde(rename = "match")]
    #[cfg_attr(feature = "schema", schemars(with = "MatchKind"))]
    pub matched: &'static str,
    /// Metres from lat/lng; absent without them.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(with = "f64", range(min = 0)))]
    pub distance_m: Option<f64>,
}

impl From<Place> for PlaceJson {
    fn from(place: Place) -> Self {
        Self {
            kind: place.kind.as_str(),
            name: place.name,
            streets: place.streets,
            lat: place.point.lat(),
            lng: place.point.lng(),
            matched: place.matched.as_str(),
            distance_m: place.distance_m.map(|d| libm::round(d * 10.0) / 10.0),
        }
    }
}

/// The answer of `GET /places` and the package's `search()`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
#[serde(deny_unknown_fields)]
pub struct SearchAnswer {
    /// Always `success`.
    pub status: Success,
    /// The city searched.
    pub city: String,
    /// The query as searched (trimmed).
    pub query: String,
    /// The places found, best first (possibly none).
    #[cfg_attr(feature = "schema", schemars(length(max = MAX_PLACES)))]
    pub places: Vec<PlaceJson>,
}

/// The query: present, not blank, at most [`MAX_QUERY_CHARS`], no control characters.
fn query(params: &Map<String, Value>) -> Result<&str, QueryError> {
    let q = super::optional_text(params, "q")?
        .ok_or_else(|| super::missing("q"))?
        .trim();
    if q.is_empty() {
        return Err(QueryError::invalid("q", "q must not be blank"));
    }
    let chars = q.chars().count();
    if chars > MAX_QUERY_CHARS {
        return Err(QueryError::invalid(
            "q",
            format!("q must be at most {MAX_QUERY_CHARS} characters, got {chars}"),
        )
        .with("limit", MAX_QUERY_CHARS));
    }
    if q.chars().any(char::is_control) {
        return Err(QueryError::invalid(
            "q",
            "q must not contain control characters",
        ));
    }
    if crate::places::normal::words(q).is_empty() {
        return Err(QueryError::invalid(
            "q",
            "q must contain a letter or a digit",
        ));
    }
    Ok(q)
}

/// `limit`: 1 to [`MAX_PLACES`], [`DEFAULT_PLACES`] when absent.
fn limit(params: &Map<String, Value>) -> Result<usize, QueryError> {
    let given = match params.get("limit") {
        None | Some(Value::Null) => return Ok(DEFAULT_PLACES),
        Some(Value::Number(n)) => n.as_u64(),
        Some(Value::String(s)) => s.parse::<u64>().ok(),
        Some(_) => None,
    };
    given
        .and_then(|n| usize::try_from(n).ok())
        .filter(|n| (1..=MAX_PLACES).contains(n))
        .ok_or_else(|| {
            QueryError::invalid(
                "limit",
                format!("limit must be a whole number from 1 to {MAX_PLACES}"),
            )
            .with("valid_range", serde_json::json!([1, MAX_PLACES]))
        })
}

/// The city named by `city`, else the one holding the point.
fn city<'a>(
    atlas: &'a Atlas,
    code: Option<&str>,
    point: Option<(f64, f64)>,
) -> Result<&'a CityModel, QueryError> {
    match (code, point) {
        (Some(code), _) => atlas.city(code).ok_or_else(|| {
            let known: Vec<String> = atlas
                .cities()
                .iter()
                .map(|c| c.artifact().city.code.clone())
                .collect();
            QueryError::invalid("city", format!("no city has the code {code:?}"))
                .with("cities", known)
        }),
        (None, Some((lat, lng))) => locate(atlas, lat, lng).map(|(model, _, _)| model),
        (None, None) => Err(QueryError::invalid(
            "city",
            "give city, or lat and lng to search the city holding them",
        )),
    }
}

/// `GET /places?q=&city=&lat=&lng=&limit=` (the package's `search()` takes the same).
///
/// # Errors
/// `INVALID_REQUEST` for a missing, blank, over-long or control-character `q`, a
/// `limit` outside 1 to [`MAX_PLACES`], an unknown `city` (details list the codes)
/// or neither `city` nor a point; `INVALID_COORDINATES` for a bad `lat` or `lng`
/// (one without the other: `INVALID_REQUEST`); `LOCATION_NOT_COVERED` for a point
/// outside every city when `city` is not given.
pub fn search_places(
    atlas: &Atlas,
    params: &Map<String, Value>,
) -> Result<SearchAnswer, QueryError> {
    let q = query(params)?;
    let limit = limit(params)?;
    let point = match (params.contains_key("lat"), params.contains_key("lng")) {
        (false, false) => None,
        _ => Some((
            box_side(params, "lat", 90.0)?,
            box_side(params, "lng", 180.0)?,
        )),
    };
    let code = super::optional_text(params, "city")?;
    let model = city(atlas, code, point)?;
    let near = point.and_then(|(lat, lng)| LatLng::new(lat, lng).ok());
    let artifact = model.artifact();
    let (graph, index) = (artifact.road_graph.as_ref(), artifact.places.as_ref());
    let places = search(graph, index, model.gazetteer(), q, near, limit);
    Ok(SearchAnswer {
        status: Success,
        city: model.artifact().city.code.clone(),
        query: q.to_string(),
        places: places.into_iter().map(PlaceJson::from).collect(),
    })
}

#[cfg(test)]
mod tests;
