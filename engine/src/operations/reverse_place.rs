//! `GET /places/reverse`: the named street and the intersection nearest a point, and
//! a short label naming it ("near KING ST W & SPADINA AVE"), for naming a route's
//! ends. Points in a city without street names (a hex lattice) get neither.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use h3o::LatLng;
use serde::Serialize;
use serde_json::{Map, Value};

use super::hexes::box_side;
use super::prediction::locate;
use super::{QueryError, Success};
use crate::city::Atlas;
use crate::places::{Reverse, reverse};

/// An intersection this near a point names it ("near A & B"); farther, its street does.
pub const NEAR_INTERSECTION_M: f64 = 100.0;

/// The query of `GET /places/reverse`.
#[derive(Debug, Clone, Default, PartialEq, serde::Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ReverseQuery {
    /// Latitude of the point, degrees.
    #[cfg_attr(feature = "schema", schemars(range(min = -90, max = 90)))]
    pub lat: f64,
    /// Longitude of the point, degrees.
    #[cfg_attr(feature = "schema", schemars(range(min = -180, max = 180)))]
    pub lng: f64,
}

/// The nearest named street of an answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(inline))]
#[serde(rename_all = "camelCase")]
#[serde(deny_unknown_fields)]
pub struct StreetJson {
    /// As the network's source spells it.
    pub name: String,
    /// Metres from the point.
    #[cfg_attr(feature = "schema", schemars(range(min = 0)))]
    pub distance_m: f64,
}

/// The nearest intersection of an answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(inline))]
#[serde(rename_all = "camelCase")]
#[serde(deny_unknown_fields)]
pub struct IntersectionJson {
    /// The names meeting there joined by " & ", in byte order.
    pub name: String,
    /// The names meeting there, in byte order.
    #[cfg_attr(feature = "schema", schemars(length(min = 2)))]
    pub streets: Vec<String>,
    /// Latitude, degrees.
    pub lat: f64,
    /// Longitude, degrees.
    pub lng: f64,
    /// Metres from the point.
    #[cfg_attr(feature = "schema", schemars(range(min = 0)))]
    pub distance_m: f64,
}

/// The answer of `GET /places/reverse` and the package's `reverse()`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
#[serde(deny_unknown_fields)]
pub struct ReverseAnswer {
    /// Always `success`.
    pub status: Success,
    /// The city holding the point.
    pub city: String,
    /// The nearest named street within 500 m; null when there is none.
    pub street: Option<StreetJson>,
    /// The nearest intersection within 500 m; null when there is none.
    pub intersection: Option<IntersectionJson>,
    /// "near A & B" (an intersection within 100 m), else "on A" (the nearest street);
    /// null when there is neither.
    pub label: Option<String>,
}

impl ReverseAnswer {
    fn of(city: String, found: Reverse) -> Self {
        let intersection = found.intersection.map(|i| IntersectionJson {
            name: i.streets.join(" & "),
            streets: i.streets,
            lat: i.point.lat(),
            lng: i.point.lng(),
            distance_m: i.distance_m,
        });
        let street = found.street.map(|s| StreetJson {
            name: s.name,
            distance_m: s.distance_m,
        });
        let label = match (&intersection, &street) {
            (Some(i), _) if i.distance_m <= NEAR_INTERSECTION_M => Some(format!("near {}", i.name)),
            (_, Some(s)) => Some(format!("on {}", s.name)),
            _ => None,
        };
        Self {
            status: Success,
            city,
            street,
            intersection,
            label,
        }
    }
}

/// `GET /places/reverse?lat=&lng=` (the package's `reverse()` takes the same).
///
/// # Errors
/// `INVALID_COORDINATES` naming `lat` or `lng` (missing: `INVALID_REQUEST`);
/// `LOCATION_NOT_COVERED` for a point no city covers.
pub fn reverse_place(
    atlas: &Atlas,
    params: &Map<String, Value>,
) -> Result<ReverseAnswer, QueryError> {
    let lat = box_side(params, "lat", 90.0)?;
    let lng = box_side(params, "lng", 180.0)?;
    let (model, _, _) = locate(atlas, lat, lng)?;
    let code = model.artifact().city.code.clone();
    let found = match (model.road_network(), LatLng::new(lat, lng)) {
        (Some(network), Ok(point)) => reverse(network.graph, network.index, point),
        _ => Reverse::default(),
    };
    Ok(ReverseAnswer::of(code, found))
}

#[cfg(test)]
mod tests;
