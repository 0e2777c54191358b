//! Place search measured on names written by others: every intersection of two named
//! streets in an OpenStreetMap file, spelled as OpenStreetMap spells them ("Saint
//! George Street & Harbord Street"), looked up in a city built from another source.
//! A lookup is found when its first answer is an intersection within
//! [`FOUND_WITHIN_M`] of the OpenStreetMap node.
//!
//! Streets are ways with a `name` whose `highway` is one of [`STREET_CLASSES`]; an
//! intersection is a node shared by ways of two or more names, each pair of names
//! there counted once, and a pair met again within [`SAME_PLACE_M`] of a counted
//! node is the same intersection.

use std::collections::{BTreeMap, BTreeSet};

use h3o::LatLng;
use hexrisk_engine::artifact::{ArtifactError, CityArtifact, encode};
use hexrisk_engine::city::CityModel;
use hexrisk_engine::places::normal::normalise;
use hexrisk_engine::places::{Place, PlaceKind, reverse, search};
use serde::Serialize;

use crate::roads::osm::{OsmData, STREET_CLASSES};

/// A first answer this near the OpenStreetMap node finds the intersection.
pub const FOUND_WITHIN_M: f64 = 60.0;

/// A miss names the network's own intersection this near the OpenStreetMap node.
pub const NAMED_THERE_M: f64 = 30.0;

/// The same pair of names this near a counted node is the same intersection.
pub const SAME_PLACE_M: f64 = 100.0;

/// One intersection looked up.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Lookup {
    /// The query, "A & B" as OpenStreetMap spells the names.
    pub query: String,
    /// The OpenStreetMap node's position.
    pub lat: f64,
    /// The OpenStreetMap node's position.
    pub lng: f64,
    /// The first answer's name, if any.
    pub answer: Option<String>,
    /// Metres from the node to the first answer.
    pub distance_m: Option<f64>,
    /// Whether the first answer is an intersection within [`FOUND_WITHIN_M`].
    pub found: bool,
    /// Whether the city's network has both names.
    pub both_names_known: bool,
    /// Why not, for a miss.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

/// What names and the place index add to a city's files, in bytes as stored
/// (compressed).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Sizes {
    /// The full file.
    pub full: usize,
    /// The full file without the place index.
    pub without_index: usize,
    /// The full file without the index and without street names.
    pub without_names_or_index: usize,
    /// The grid file (no road network, so neither names nor index).
    pub grid: usize,
}

impl Sizes {
    /// The sizes of `artifact`'s files, re-encoded with and without each part.
    ///
    /// # Errors
    /// An artifact that cannot be encoded.
    pub fn of(artifact: &CityArtifact) -> Result<Self, ArtifactError> {
        let without_index = CityArtifact {
            places: None,
            ..artifact.clone()
        };
        let mut without_names = without_index.clone();
        if let Some(graph) = without_names.road_graph.as_mut() {
            graph.names.clear();
            graph.way_name.clear();
        }
        let grid = CityArtifact {
            road_graph: None,
            street_shares: None,
            ..without_index.clone()
        };
        Ok(Self {
            full: encode(artifact)?.len(),
            without_index: encode(&without_index)?.len(),
            without_names_or_index: encode(&without_names)?.len(),
            grid: encode(&grid)?.len(),
        })
    }
}

/// The distinct first three characters of a city's street names, lowercased: the
/// queries of a search's third keystroke.
#[must_use]
pub fn three_letter_prefixes(model: &CityModel) -> Vec<String> {
    let names = model
        .artifact()
        .road_graph
        .as_ref()
        .map_or(&[][..], |g| &g.names[..]);
    let prefixes: BTreeSet<String> = names
        .iter()
        .map(|n| n.chars().take(3).collect::<String>().to_lowercase())
        .filter(|p| p.chars().count() == 3)
        .collect();
    prefixes.into_iter().collect()
}

/// The measurement.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlaceCheck {
    /// The city searched.
    pub city: String,
    /// Intersections looked up.
    pub intersections: usize,
    /// Found first within [`FOUND_WITHIN_M`].
    pub found: usize,
    /// `found / intersections`.
    pub share: f64,
    /// Intersections whose two names the city's network has.
    pub with_both_names: usize,
    /// Of those, found first within [`FOUND_WITHIN_M`].
    pub found_with_both_names: usize,
    /// Every lookup, misses first.
    pub lookups: Vec<Lookup>,
}

/// [`PlaceCheck`] with the city's file sizes and its street names' three-letter
/// prefixes, as `hexrisk-build place-check` writes it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlaceReport {
    /// The lookups.
    #[serde(flatten)]
    pub check: PlaceCheck,
    /// The city's file sizes.
    pub sizes: Sizes,
    /// [`three_letter_prefixes`].
    pub prefixes: Vec<String>,
}

/// The intersections of two named streets in `osm`: the two names (byte order) and
/// the node's position.
#[must_use]
pub fn osm_intersections(osm: &OsmData) -> Vec<(String, String, LatLng)> {
    let mut names_at: BTreeMap<i64, BTreeSet<&str>> = BTreeMap::new();
    for way in osm.highways() {
        let (Some(class), Some(name)) = (way.tags.get("highway"), way.tags.get("name")) else {
            continue;
        };
        if !STREET_CLASSES.contains(&class.as_str()) || name.trim().is_empty() {
            continue;
        }
        for node in &way.nodes {
            names_at.entry(*node).or_default().insert(name.trim());
        }
    }
    let mut found: Vec<(String, String, LatLng)> = Vec::new();
    for (node, names) in names_at {
        let Some(point) = osm
            .nodes
            .get(&node)
            .and_then(|&(lat, lng)| LatLng::new(lat, lng).ok())
        else {
            continue;
        };
        let names: Vec<&str> = names.into_iter().collect();
        for (i, a) in names.iter().enumerate() {
            for b in &names[i + 1..] {
                let repeat = found
                    .iter()
                    .any(|(x, y, p)| x == a && y == b && p.distance_m(point) < SAME_PLACE_M);
                if !repeat {
                    found.push(((*a).to_owned(), (*b).to_owned(), point));
                }
            }
        }
    }
    found
}

/// Why a lookup missed: a name the city's network does not have, names that meet
/// at several places of which another ranks first, or where its answer lies.
fn why(unknown: &[&str], point: LatLng, answers: &[Place], there: Option<&str>) -> String {
    if !unknown.is_empty() {
        let lacks = format!("the network has no street named {}", unknown.join(" or "));
        return match there {
            Some(names) => format!("{lacks}; its intersection there is {names}"),
            None => lacks,
        };
    }
    let Some(first) = answers.first() else {
        return "the network has both names but they do not meet".to_owned();
    };
    if first.kind != PlaceKind::Intersection {
        return format!(
            "the network has both names but they do not meet (first answer: {})",
            first.name
        );
    }
    let away = |p: &Place| point.distance_m(p.point.to_lat_lng());
    let places = answers.iter().filter(|p| p.name == first.name).count();
    match answers
        .iter()
        .find(|p| p.name == first.name && away(p) <= FOUND_WITHIN_M)
    {
        Some(_) => format!(
            "the names meet at {places} places; the first answer is the one {:.0} m away",
            away(first)
        ),
        None => format!("the network's {} is {:.0} m away", first.name, away(first)),
    }
}

/// The network's own intersection within [`NAMED_THERE_M`] of a point, by its names.
fn there(model: &CityModel, point: LatLng) -> Option<String> {
    let network = model.road_network()?;
    let nearest = reverse(network.graph, network.index, point).intersection?;
    (nearest.distance_m <= NAMED_THERE_M).then(|| nearest.streets.join(" & "))
}

/// Looks up every intersection of `osm` in `model`'s place index.
#[must_use]
pub fn check(osm: &OsmData, model: &CityModel) -> PlaceCheck {
    let known: BTreeSet<String> = model
        .artifact()
        .road_graph
        .as_ref()
        .map(|g| g.names.iter().map(|n| normalise(n)).collect())
        .unwrap_or_default();
    let mut lookups: Vec<Lookup> = osm_intersections(osm)
        .into_iter()
        .map(|(a, b, point)| {
            let unknown: Vec<&str> = [a.as_str(), b.as_str()]
                .into_iter()
                .filter(|n| !known.contains(&normalise(n)))
                .collect();
            let query = format!("{a} & {b}");
            let artifact = model.artifact();
            let (graph, index) = (artifact.road_graph.as_ref(), artifact.places.as_ref());
            let answers = search(graph, index, model.gazetteer(), &query, None, 5);
            let first = answers.first();
            let distance_m = first.map(|p| point.distance_m(p.point.to_lat_lng()));
            let found = first.is_some_and(|p| p.kind == PlaceKind::Intersection)
                && distance_m.is_some_and(|d| d <= FOUND_WITHIN_M);
            Lookup {
                why: (!found)
                    .then(|| why(&unknown, point, &answers, there(model, point).as_deref())),
                both_names_known: unknown.is_empty(),
                answer: first.map(|p| p.name.clone()),
                distance_m: distance_m.map(|d| (d * 10.0).round() / 10.0),
                query,
                lat: point.lat(),
                lng: point.lng(),
                found,
            }
        })
        .collect();
    lookups.sort_by(|a, b| a.found.cmp(&b.found).then_with(|| a.query.cmp(&b.query)));
    let found = lookups.iter().filter(|l| l.found).count();
    let known: Vec<&Lookup> = lookups.iter().filter(|l| l.both_names_known).collect();
    PlaceCheck {
        with_both_names: known.len(),
        found_with_both_names: known.iter().filter(|l| l.found).count(),
        city: model.artifact().city.code.clone(),
        intersections: lookups.len(),
        found,
        share: found as f64 / lookups.len().max(1) as f64,
        lookups,
    }
}
