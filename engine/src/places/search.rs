//! Place search by name: streets, intersections ("Queen & Spadina", "Queen and
//! Spadina", "Queen at Spadina", "Queen / Spadina", either order), neighbourhoods,
//! police divisions and points of interest, as one types.
//!
//! A query is normalised as names are ([`super::normal`]) and looked up in the key
//! map: keys equal to it, then keys it begins (its unfinished last word may also
//! stand for the short form of a street word it begins: "Spadina Aven" finds
//! "spadina ave"), then, when those give fewer than asked, keys with a beginning
//! within one edit of it (from [`super::matching::ONE_EDIT_FROM`] characters) or two
//! (from [`super::matching::TWO_EDITS_FROM`]), offered as suggestions
//! ([`super::matching`]). A query of two parts joined by `&`,
//! `/`, `@`, `+`, "and" or "at" asks for the intersections of a street matching
//! each part; when they have none, each part's best places come in turn.
//!
//! Answers are ranked by how well they match ([`Match`]), then by importance in
//! classes that double (streets by length from 100 m, intersections by the ways
//! meeting there, areas as a 25.6 km street), then by distance from the given point,
//! then by name. Intersections of one pair of names within [`SAME_CROSSING_M`] of a
//! better-ranked one are left out (a divided road crosses a street twice).

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;
use core::cmp::Reverse;

use h3o::LatLng;

use super::gazetteer::Gazetteer;
use super::index::{PlaceIndex, StoredKind};
use super::matching::{Match, matching};
use super::normal::{Token, tokens, words_of};
use crate::grid::MicroDegrees;
use crate::roads::RoadGraph;

/// Streets kept per part of an intersection query.
pub const STREETS_PER_PART: usize = 64;

/// Two intersections of the same names this close are one place.
pub const SAME_CROSSING_M: f64 = 80.0;

/// The importance class of an area.
const AREA_CLASS: u32 = 8;

/// What kind of place an answer is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlaceKind {
    /// A street (every way of one name).
    Street,
    /// Where two or more named streets meet.
    Intersection,
    /// A neighbourhood.
    Neighbourhood,
    /// A police division or district.
    Precinct,
    /// A named point of interest.
    PointOfInterest,
}

impl PlaceKind {
    /// Every kind.
    pub const ALL: [Self; 5] = [
        Self::Street,
        Self::Intersection,
        Self::Neighbourhood,
        Self::Precinct,
        Self::PointOfInterest,
    ];

    /// As answers spell it.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Street => "street",
            Self::Intersection => "intersection",
            Self::Neighbourhood => "neighbourhood",
            Self::Precinct => "precinct",
            Self::PointOfInterest => "pointOfInterest",
        }
    }
}

/// A place found.
#[derive(Debug, Clone, PartialEq)]
pub struct Place {
    /// What it is.
    pub kind: PlaceKind,
    /// Its name as the source spells it; an intersection's is its matched streets
    /// joined by " & ", in the query's order.
    pub name: String,
    /// An intersection's streets, every name meeting there in byte order; empty for
    /// other kinds.
    pub streets: Vec<String>,
    /// Where it is.
    pub point: MicroDegrees,
    /// How well it matches.
    pub matched: Match,
    /// Metres from the point given, if one was.
    pub distance_m: Option<f64>,
}

/// A ranked candidate.
struct Ranked {
    matched: (Match, Match),
    class: u32,
    distance_m: f64,
    place: Place,
}

/// Importance class: 0 below `2 × unit`, then one more per doubling.
fn class_of(value: f64, unit: f64) -> u32 {
    let ratio = value / unit;
    if ratio < 2.0 {
        0
    } else {
        libm::log2(ratio) as u32
    }
}

/// The places matching `text` in a city (its graph's street names and its stored
/// places, with `gazetteer` derived from both), best first, at most `limit` (see the
/// module documentation); `near` orders places of equal match and importance and
/// gives each its distance.
#[must_use]
pub fn search(
    graph: Option<&RoadGraph>,
    index: Option<&PlaceIndex>,
    gazetteer: &Gazetteer,
    text: &str,
    near: Option<LatLng>,
    limit: usize,
) -> Vec<Place> {
    let Some(index) = index else {
        return Vec::new();
    };
    let lookup = Lookup {
        graph,
        index,
        gazetteer,
        near,
    };
    let tokens = tokens(text);
    let mut ranked;
    if let Some((first, second)) = split(&tokens) {
        ranked = lookup.intersections(&first, &second);
        if ranked.is_empty() {
            // Streets that do not meet (or one the city lacks): each part's best.
            let mut parts =
                [lookup.places(&first, limit), lookup.places(&second, limit)].map(Vec::into_iter);
            while ranked.len() < limit {
                let next: Vec<Ranked> = parts.iter_mut().filter_map(Iterator::next).collect();
                if next.is_empty() {
                    break;
                }
                ranked.extend(next);
            }
        }
    } else {
        ranked = lookup.places(&words_of(&tokens), limit);
    }
    ranked.truncate(limit);
    ranked.into_iter().map(|r| r.place).collect()
}

/// The two parts of an intersection query, if it has two non-empty parts.
fn split(tokens: &[Token]) -> Option<(Vec<String>, Vec<String>)> {
    let at = tokens.iter().enumerate().position(|(i, t)| {
        let joins = match t {
            Token::Joiner => true,
            Token::Word(w) => (w == "and" || w == "at") && i > 0,
        };
        joins && i + 1 < tokens.len()
    })?;
    let (first, second) = (words_of(&tokens[..at]), words_of(&tokens[at + 1..]));
    (!first.is_empty() && !second.is_empty()).then_some((first, second))
}

struct Lookup<'a> {
    graph: Option<&'a RoadGraph>,
    index: &'a PlaceIndex,
    gazetteer: &'a Gazetteer,
    near: Option<LatLng>,
}

impl Lookup<'_> {
    fn street_names(&self) -> &[String] {
        self.graph.map_or(&[][..], |g| &g.names[..])
    }

    fn distance(&self, point: MicroDegrees) -> f64 {
        self.near
            .map_or(0.0, |near| near.distance_m(point.to_lat_lng()))
    }

    /// Each entry matching `words` with its best match ([`super::matching`]).
    fn entries(
        &self,
        words: &[String],
        want: usize,
        keep: impl Fn(u32) -> bool,
    ) -> BTreeMap<u32, Match> {
        matching(self.index, words, want, keep)
    }

    /// Streets, areas and points matching `words`, ranked.
    fn places(&self, words: &[String], limit: usize) -> Vec<Ranked> {
        let names = self.street_names();
        let mut ranked: Vec<Ranked> = self
            .entries(words, limit, |_| true)
            .into_iter()
            .filter_map(|(entry, matched)| {
                let id = entry as usize;
                let (kind, name, point, class) = if let Some(name) = names.get(id) {
                    let span = self.gazetteer.streets.get(id)?;
                    (
                        PlaceKind::Street,
                        name,
                        span.point,
                        self.length_class(entry),
                    )
                } else {
                    let place = self.index.places.get(id - names.len())?;
                    let (kind, class) = match place.kind {
                        StoredKind::Neighbourhood => (PlaceKind::Neighbourhood, AREA_CLASS),
                        StoredKind::Precinct => (PlaceKind::Precinct, AREA_CLASS),
                        StoredKind::PointOfInterest => (PlaceKind::PointOfInterest, 0),
                    };
                    (kind, &place.name, place.point, class)
                };
                let distance_m = self.distance(point);
                Some(Ranked {
                    matched: (matched, matched),
                    class,
                    distance_m,
                    place: Place {
                        kind,
                        name: name.clone(),
                        streets: Vec::new(),
                        point,
                        matched,
                        distance_m: self.near.map(|_| distance_m),
                    },
                })
            })
            .collect();
        sort(&mut ranked);
        ranked
    }

    /// Intersections of a street matching `first` with one matching `second`, ranked.
    fn intersections(&self, first: &[String], second: &[String]) -> Vec<Ranked> {
        let names = self.street_names();
        let streets = names.len();
        let is_street = |entry: u32| (entry as usize) < streets;
        let best_of = |words: &[String]| {
            // Suggestions only for a part nothing else matches.
            let mut found: Vec<(u32, Match)> =
                self.entries(words, 1, is_street).into_iter().collect();
            crate::sorting::sort_by_key(&mut found, |&(entry, matched)| {
                (matched, Reverse(self.length_class(entry)))
            });
            found.truncate(STREETS_PER_PART);
            found
        };
        let (first, second) = (best_of(first), best_of(second));
        let second: BTreeMap<u32, Match> = second.into_iter().collect();
        // Per intersection, its best pair of matched names.
        let mut pairs: BTreeMap<u32, ((Match, Match), u32, u32)> = BTreeMap::new();
        for &(a, a_match) in &first {
            for crossing in self.gazetteer.crossings_of(a) {
                let names_there = &self.gazetteer.crossings[crossing as usize].names;
                for &b in names_there {
                    let Some(&b_match) = second.get(&b).filter(|_| b != a) else {
                        continue;
                    };
                    let quality = (a_match.max(b_match), a_match.min(b_match));
                    pairs
                        .entry(crossing)
                        .and_modify(|best| {
                            if quality < best.0 {
                                *best = (quality, a, b);
                            }
                        })
                        .or_insert((quality, a, b));
                }
            }
        }
        let mut ranked: Vec<Ranked> = pairs
            .into_iter()
            .map(|(crossing, (quality, a, b))| {
                let crossing = &self.gazetteer.crossings[crossing as usize];
                let distance_m = self.distance(crossing.point);
                Ranked {
                    matched: quality,
                    class: class_of(f64::from(crossing.degree), 1.0),
                    distance_m,
                    place: Place {
                        kind: PlaceKind::Intersection,
                        name: alloc::format!("{} & {}", names[a as usize], names[b as usize]),
                        streets: crossing
                            .names
                            .iter()
                            .map(|&n| names[n as usize].clone())
                            .collect(),
                        point: crossing.point,
                        matched: quality.0,
                        distance_m: self.near.map(|_| distance_m),
                    },
                }
            })
            .collect();
        sort(&mut ranked);
        let mut kept: Vec<Ranked> = Vec::new();
        for candidate in ranked {
            let repeats = kept.iter().any(|k| {
                k.place.name == candidate.place.name
                    && k.place
                        .point
                        .to_lat_lng()
                        .distance_m(candidate.place.point.to_lat_lng())
                        < SAME_CROSSING_M
            });
            if !repeats {
                kept.push(candidate);
            }
        }
        kept
    }

    fn length_class(&self, street: u32) -> u32 {
        self.gazetteer
            .streets
            .get(street as usize)
            .map_or(0, |s| class_of(s.length_m, 100.0))
    }
}

fn sort(ranked: &mut [Ranked]) {
    crate::sorting::sort_by(ranked, |a, b| {
        a.matched
            .cmp(&b.matched)
            .then(b.class.cmp(&a.class))
            .then(a.distance_m.total_cmp(&b.distance_m))
            .then_with(|| a.place.name.cmp(&b.place.name))
    });
}

#[cfg(test)]
mod tests;
