//! Which cities a request needs, found from the manifest's bounds before any
//! artifact is decoded, so that a request for one city loads that city only.
//!
//! The rule errs on the side of loading more: a city is needed when any point,
//! cell or box of the request falls within [`MARGIN_KM`] of its bounds, and an
//! endpoint that lists or compares every city needs them all. Loading a city more
//! never changes an answer; missing one would, so the tests compare answers against
//! an atlas of every city.

use std::collections::BTreeSet;

use hexrisk_engine::artifact::{Manifest, ManifestCity};
use serde_json::{Map, Value};

/// How far outside a city's bounds a point may lie and still need the city, in km:
/// more than the radius of the largest ring lookup (41 rings of resolution-8 cells,
/// about 33 km) and the snapping distance of a route end. Turned into degrees at
/// each place's latitude, since a degree of longitude shrinks towards the poles.
pub const MARGIN_KM: f64 = 40.0;

/// Kilometres in a degree of latitude (and of longitude at the equator).
const KM_PER_DEGREE: f64 = 111.32;

/// Cell ids of a request of places are looked at through their ancestor of this
/// resolution (about 250 km² each): a 5,000-cell request has a few dozen, and
/// finding a cell's centre costs more than the rest of this check (1 ms natively for
/// 5,000 cells, as long as scoring them).
const COARSE_RESOLUTION: h3o::Resolution = h3o::Resolution::Five;

/// How far a cell's centre can lie from the centre of its [`COARSE_RESOLUTION`]
/// ancestor, in km, with room to spare (the ancestor's radius is about 10 km; its
/// descendants reach a little past its edge).
const COARSE_REACH_KM: f64 = 20.0;

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
                boxed.is_some_and(|b| box_meets(city, widen(b, MARGIN_KM)))
            }))
        }
        Reach::Places | Reach::Lines => {
            let lines = reach == Reach::Lines;
            // Lines join cells in order, so each needs its own centre there.
            let mut places = Places {
                exact_cells: lines,
                ..Places::default()
            };
            if let Some(body) = body {
                places.collect_object(body);
            }
            places.collect_query(query);
            let Places { points, coarse, .. } = places;
            let areas: Vec<[f64; 4]> = points
                .iter()
                .map(|&(lat, lng)| widen([lng, lat, lng, lat], MARGIN_KM))
                .chain(coarse.into_iter().map(coarse_box))
                .collect();
            CityNeeds::Some(cities_where(manifest, |city| {
                areas.iter().any(|&area| box_meets(city, area))
                    || (lines
                        && points.windows(2).any(|w| {
                            let [(lat_a, lng_a), (lat_b, lng_b)] = [w[0], w[1]];
                            box_meets(
                                city,
                                widen(
                                    [
                                        lng_a.min(lng_b),
                                        lat_a.min(lat_b),
                                        lng_a.max(lng_b),
                                        lat_a.max(lat_b),
                                    ],
                                    MARGIN_KM,
                                ),
                            )
                        }))
            }))
        }
    }
}

/// The box that needs what the centres of all a coarse ancestor's descendants need,
/// `[west, south, east, north]`.
fn coarse_box(ancestor: h3o::CellIndex) -> [f64; 4] {
    let centre = h3o::LatLng::from(ancestor);
    let (lat, lng) = (centre.lat(), centre.lng());
    widen([lng, lat, lng, lat], MARGIN_KM + COARSE_REACH_KM)
}

/// `[west, south, east, north]` widened by `km` on every side, in degrees at its
/// most poleward latitude (so at least `km` everywhere in it).
fn widen([west, south, east, north]: [f64; 4], km: f64) -> [f64; 4] {
    let dlat = km / KM_PER_DEGREE;
    let poleward = (south.abs().max(north.abs()) + dlat).min(90.0);
    // Near a pole a degree of longitude is next to nothing: take the whole circle.
    let dlng = km / (KM_PER_DEGREE * poleward.to_radians().cos().max(1e-3));
    [west - dlng, south - dlat, east + dlng, north + dlat]
}

fn cities_where(manifest: &Manifest, keep: impl Fn(&ManifestCity) -> bool) -> BTreeSet<String> {
    manifest
        .cities
        .iter()
        .filter(|c| keep(c))
        .map(|c| c.code.clone())
        .collect()
}

/// Whether `[west, south, east, north]` meets the city's bounds.
fn box_meets(city: &ManifestCity, [west, south, east, north]: [f64; 4]) -> bool {
    let b = &city.bounds;
    west <= b.east && east >= b.west && south <= b.north && north >= b.south
}

fn number(value: &Value) -> Option<f64> {
    value.as_f64().filter(|v| v.is_finite())
}

/// The places of a request: points, and cell ids either as their centres (in
/// document order, for lines) or as their coarse ancestors.
#[derive(Default)]
struct Places {
    points: Vec<(f64, f64)>,
    coarse: BTreeSet<h3o::CellIndex>,
    exact_cells: bool,
}

impl Places {
    /// Every place in a JSON value, in document order: objects with a latitude and a
    /// longitude (`latitude`/`lat`, `longitude`/`lng`/`lon`), pairs of numbers (taken
    /// both ways round, as `[lng, lat]` and `[lat, lng]`) and H3 cell ids.
    fn collect(&mut self, value: &Value) {
        match value {
            Value::Object(map) => self.collect_object(map),
            Value::Array(items) => {
                if let [a, b] = items.as_slice()
                    && let (Some(a), Some(b)) = (number(a), number(b))
                {
                    self.points.push((b, a));
                    self.points.push((a, b));
                }
                for v in items {
                    self.collect(v);
                }
            }
            Value::String(text) => self.cell(text),
            _ => {}
        }
    }

    fn collect_object(&mut self, map: &Map<String, Value>) {
        let get = |names: &[&str]| names.iter().find_map(|n| map.get(*n).and_then(number));
        if let (Some(lat), Some(lng)) =
            (get(&["latitude", "lat"]), get(&["longitude", "lng", "lon"]))
        {
            self.points.push((lat, lng));
        }
        for v in map.values() {
            self.collect(v);
        }
    }

    fn collect_query(&mut self, query: &[(String, String)]) {
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
            self.points.push((lat, lng));
        }
        for (_, v) in query {
            self.cell(v);
        }
    }

    /// A cell id (any other text is not a place).
    fn cell(&mut self, text: &str) {
        let Ok(cell) = text.trim().parse::<h3o::CellIndex>() else {
            return;
        };
        match cell.parent(COARSE_RESOLUTION) {
            Some(ancestor) if !self.exact_cells => {
                self.coarse.insert(ancestor);
            }
            _ => {
                let centre = h3o::LatLng::from(cell);
                self.points.push((centre.lat(), centre.lng()));
            }
        }
    }
}

#[cfg(test)]
mod tests;
