//! Which cities a request needs, found from the manifest's bounds before any
//! artifact is decoded, so that a request for one city loads that city only.
//!
//! The rule errs on the side of loading more: a city is needed when any point,
//! cell or box of the request falls within [`MARGIN_DEG`] of its bounds, and an
//! endpoint that lists or compares every city needs them all. Loading a city more
//! never changes an answer; missing one would, so the tests compare answers against
//! an atlas of every city.

use std::collections::BTreeSet;

use hexrisk_engine::artifact::{Manifest, ManifestCity};
use serde_json::{Map, Value};

/// How far outside a city's bounds a point may lie and still need the city, in
/// degrees (about 25 km): more than the snapping distance of a route end and the
/// radius of the largest ring lookup.
pub const MARGIN_DEG: f64 = 0.25;

/// What a request reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CityNeeds {
    /// Every city of the manifest.
    All,
    /// These cities (possibly none: the request covers no city).
    Some(BTreeSet<String>),
}

/// Where a request's places are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// Every city (lists, totals, precinct layers).
    Everywhere,
    /// The given city (`city=` parameter); every city when none or an unknown one is
    /// given, so that errors list the known cities.
    NamedCity,
    /// The box of `west`, `south`, `east`, `north` parameters.
    Viewport,
    /// Points and cells anywhere in the body or the query.
    Places,
    /// Points joined by straight lines (the cells crossed between them count too).
    Lines,
}

/// The cities a request with this reach needs.
#[must_use]
pub fn needs(
    reach: Reach,
    manifest: &Manifest,
    body: Option<&Map<String, Value>>,
    query: &[(String, String)],
) -> CityNeeds {
    let param = |name: &str| {
        query
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    };
    match reach {
        Reach::Everywhere => CityNeeds::All,
        Reach::NamedCity => match param("city").and_then(|code| manifest.city(code)) {
            Some(city) => CityNeeds::Some(BTreeSet::from([city.code.clone()])),
            None => CityNeeds::All,
        },
        Reach::Viewport => {
            let side = |name| param(name).and_then(|v| v.trim().parse::<f64>().ok());
            let boxed = match (side("west"), side("south"), side("east"), side("north")) {
                (Some(w), Some(s), Some(e), Some(n)) => Some([w, s, e, n]),
                _ => None,
            };
            CityNeeds::Some(cities_where(manifest, |city| {
                boxed.is_some_and(|b| box_meets(city, b))
            }))
        }
        Reach::Places | Reach::Lines => {
            let mut points = Vec::new();
            if let Some(body) = body {
                collect_object(body, &mut points);
            }
            collect_query(query, &mut points);
            let lines = reach == Reach::Lines;
            CityNeeds::Some(cities_where(manifest, |city| {
                points
                    .iter()
                    .any(|&(lat, lng)| city.may_cover(lat, lng, MARGIN_DEG))
                    || (lines
                        && points.windows(2).any(|w| {
                            let [(lat_a, lng_a), (lat_b, lng_b)] = [w[0], w[1]];
                            box_meets(
                                city,
                                [
                                    lng_a.min(lng_b),
                                    lat_a.min(lat_b),
                                    lng_a.max(lng_b),
                                    lat_a.max(lat_b),
                                ],
                            )
                        }))
            }))
        }
    }
}

fn cities_where(manifest: &Manifest, keep: impl Fn(&ManifestCity) -> bool) -> BTreeSet<String> {
    manifest
        .cities
        .iter()
        .filter(|c| keep(c))
        .map(|c| c.code.clone())
        .collect()
}

/// Whether `[west, south, east, north]` meets the city's bounds widened by the margin.
fn box_meets(city: &ManifestCity, [west, south, east, north]: [f64; 4]) -> bool {
    let b = &city.bounds;
    west <= b.east + MARGIN_DEG
        && east >= b.west - MARGIN_DEG
        && south <= b.north + MARGIN_DEG
        && north >= b.south - MARGIN_DEG
}

fn number(value: &Value) -> Option<f64> {
    value.as_f64().filter(|v| v.is_finite())
}

/// Every place in a JSON value, in document order: objects with a latitude and a
/// longitude (`latitude`/`lat`, `longitude`/`lng`/`lon`), pairs of numbers (taken
/// both ways round, as `[lng, lat]` and `[lat, lng]`) and H3 cell ids (their centres).
fn collect(value: &Value, points: &mut Vec<(f64, f64)>) {
    match value {
        Value::Object(map) => collect_object(map, points),
        Value::Array(items) => {
            if let [a, b] = items.as_slice()
                && let (Some(a), Some(b)) = (number(a), number(b))
            {
                points.push((b, a));
                points.push((a, b));
            }
            for v in items {
                collect(v, points);
            }
        }
        Value::String(text) => points.extend(cell_centre(text)),
        _ => {}
    }
}

fn collect_object(map: &Map<String, Value>, points: &mut Vec<(f64, f64)>) {
    let get = |names: &[&str]| names.iter().find_map(|n| map.get(*n).and_then(number));
    if let (Some(lat), Some(lng)) = (get(&["latitude", "lat"]), get(&["longitude", "lng", "lon"])) {
        points.push((lat, lng));
    }
    for v in map.values() {
        collect(v, points);
    }
}

fn collect_query(query: &[(String, String)], points: &mut Vec<(f64, f64)>) {
    let number = |names: &[&str]| {
        query
            .iter()
            .find(|(k, _)| names.contains(&k.as_str()))
            .and_then(|(_, v)| v.trim().parse::<f64>().ok())
    };
    if let (Some(lat), Some(lng)) = (
        number(&["latitude", "lat"]),
        number(&["longitude", "lng", "lon"]),
    ) {
        points.push((lat, lng));
    }
    points.extend(query.iter().filter_map(|(_, v)| cell_centre(v)));
}

fn cell_centre(text: &str) -> Option<(f64, f64)> {
    let cell: h3o::CellIndex = text.trim().parse().ok()?;
    let centre = h3o::LatLng::from(cell);
    Some((centre.lat(), centre.lng()))
}

#[cfg(test)]
mod tests;
