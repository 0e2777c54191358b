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

use super::QueryError;
use super::hexes::box_side;
use super::prediction::locate;
use crate::city::{Atlas, CityModel};
use crate::places::{Place, search};

/// Longest query, in characters.
pub const MAX_QUERY_CHARS: usize = 100;

/// Places answered when `limit` is not given.
pub const DEFAULT_PLACES: usize = 5;

/// Most places one answer holds.
pub const MAX_PLACES: usize = 20;

/// A place of an answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlaceJson {
    /// `street`, `intersection`, `neighbourhood`, `precinct` or `pointOfInterest`.
    pub kind: &'static str,
    /// As the source spells it; an intersection's matched streets joined by " & ".
    pub name: String,
    /// An intersection's streets (every name meeting there); absent for other kinds.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub streets: Vec<String>,
    /// Where it is.
    pub lat: f64,
    /// Where it is.
    pub lng: f64,
    /// `exact`, `prefix`, `word` (a later word of the name) or `suggestion` (within
    /// one or two edits).
    #[serde(rename = "match")]
    pub matched: &'static str,
    /// Metres from the point given; absent without one.
    #[serde(skip_serializing_if = "Option::is_none")]
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
#[serde(rename_all = "camelCase")]
pub struct SearchAnswer {
    /// The city searched.
    pub city: String,
    /// The query as searched (trimmed).
    pub query: String,
    /// The places found, best first (possibly none).
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
        city: model.artifact().city.code.clone(),
        query: q.to_string(),
        places: places.into_iter().map(PlaceJson::from).collect(),
    })
}

#[cfg(test)]
mod tests;
