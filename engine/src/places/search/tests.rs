//! Search on a named lattice against what its graph holds: every intersection by
//! every joiner in either order, completion of every prefix, suggestions within the
//! documented edits, distance order, areas, and a refused index.

use alloc::collections::BTreeSet;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use h3o::LatLng;

use super::{Match, PlaceKind, class_of, search};
use crate::artifact::fixture::CityFixture;
use crate::artifact::{CityArtifact, validate};
use crate::grid::MicroDegrees;
use crate::places::normal::normalise;
use crate::places::reverse::tests::named_lattice;
use crate::places::{Gazetteer, NamedPlace, PlaceIndex, StoredKind};

const NAMES: [&str; 6] = [
    "QUEEN ST W",
    "SPADINA AVE",
    "ST GEORGE ST",
    "CÔTE-DES-NEIGES RD",
    "KING'S COLLEGE RD",
    "QUEENS QUAY W",
];

/// A lattice within `k` rings of central Toronto, way `w` named `NAMES[w % 6]`,
/// with one neighbourhood.
fn city(k: u32) -> (CityArtifact, Gazetteer) {
    let (graph, _) = named_lattice(k, |way| NAMES[way % NAMES.len()]);
    let annex = NamedPlace {
        kind: StoredKind::Neighbourhood,
        name: "The Annex".into(),
        point: MicroDegrees::from_degrees(43.67, -79.40),
    };
    let mut artifact = CityFixture::default()
        .disk_around(43.6532, -79.3832, k)
        .build();
    artifact.places = Some(PlaceIndex::build(&graph.names, vec![annex]).unwrap());
    artifact.road_graph = Some(graph);
    validate(&artifact).unwrap();
    let gazetteer = Gazetteer::new(artifact.road_graph.as_ref());
    (artifact, gazetteer)
}

/// `search` over the artifact's graph and index.
fn find(
    artifact: &CityArtifact,
    gazetteer: &Gazetteer,
    text: &str,
    near: Option<LatLng>,
    limit: usize,
) -> Vec<super::Place> {
    let (graph, index) = (artifact.road_graph.as_ref(), artifact.places.as_ref());
    search(graph, index, gazetteer, text, near, limit)
}

/// Every node where two names meet, by brute force: the pair, the node's point and
/// its importance class (from the ways meeting there).
fn meetings(artifact: &CityArtifact) -> Vec<(String, String, MicroDegrees, u32)> {
    let graph = artifact.road_graph.as_ref().unwrap();
    let mut at: Vec<(BTreeSet<&str>, BTreeSet<usize>)> =
        vec![(BTreeSet::new(), BTreeSet::new()); graph.node_count()];
    for node in 0..graph.node_count() as u32 {
        for edge in graph.out_edges(node) {
            let way = graph.edge_way(edge).0;
            for end in [node as usize, graph.edge_target[edge] as usize] {
                at[end].1.insert(way);
                if let Some(name) = graph.way_name(way) {
                    at[end].0.insert(name);
                }
            }
        }
    }
    let mut found = Vec::new();
    for (node, (names, ways)) in at.iter().enumerate() {
        let names: Vec<&str> = names.iter().copied().collect();
        let class = class_of(ways.len() as f64, 1.0);
        for (i, a) in names.iter().enumerate() {
            for b in &names[i + 1..] {
                let point = graph.node(node as u32);
                found.push((String::from(*a), String::from(*b), point, class));
            }
        }
    }
    found
}

#[test]
fn every_intersection_by_every_joiner_in_either_order() {
    let (artifact, gazetteer) = city(3);
    let meetings = meetings(&artifact);
    assert!(meetings.len() > 20, "{}", meetings.len());
    for (a, b, point, _) in &meetings {
        let near = point.to_lat_lng();
        // The pair's best meeting: the most important, then the nearest.
        let expected = meetings
            .iter()
            .filter(|m| (&m.0, &m.1) == (a, b))
            .min_by(|x, y| {
                let d = |m: &(String, String, MicroDegrees, u32)| near.distance_m(m.2.to_lat_lng());
                y.3.cmp(&x.3).then(d(x).total_cmp(&d(y)))
            })
            .unwrap();
        for query in [
            alloc::format!("{a} & {b}"),
            alloc::format!("{b} and {a}"),
            alloc::format!("{a} at {b}"),
            alloc::format!("{b}/{a}"),
        ] {
            let found = find(&artifact, &gazetteer, &query, Some(near), 3);
            let first = &found[0];
            assert_eq!(first.kind, PlaceKind::Intersection, "{query}");
            assert_eq!(first.matched, Match::Exact, "{query}");
            assert!(
                first.streets.contains(a) && first.streets.contains(b),
                "{query}"
            );
            assert_eq!(first.point, expected.2, "{query}");
            let metres = near.distance_m(expected.2.to_lat_lng());
            assert!((first.distance_m.unwrap() - metres).abs() < 1e-6);
        }
    }
}

#[test]
fn long_forms_accents_and_case_find_the_short_names() {
    let (artifact, gazetteer) = city(2);
    for (query, name) in [
        ("Saint George Street", "ST GEORGE ST"),
        ("st. george st", "ST GEORGE ST"),
        ("Cote des Neiges Road", "CÔTE-DES-NEIGES RD"),
        ("Kings College Road", "KING'S COLLEGE RD"),
        ("queen street west", "QUEEN ST W"),
        ("Spadina Avenue", "SPADINA AVE"),
    ] {
        let found = find(&artifact, &gazetteer, query, None, 5);
        assert_eq!(found[0].name, name, "{query}");
        assert_eq!(found[0].kind, PlaceKind::Street, "{query}");
        assert_eq!(found[0].matched, Match::Exact, "{query}");
    }
    let spelled = find(
        &artifact,
        &gazetteer,
        "Saint George Street & Spadina Avenue",
        None,
        1,
    );
    assert_eq!(spelled[0].kind, PlaceKind::Intersection);
    assert_eq!(spelled[0].name, "ST GEORGE ST & SPADINA AVE");
}

#[test]
fn every_prefix_completes_to_names_it_begins() {
    let (artifact, gazetteer) = city(2);
    for name in NAMES {
        let normal = normalise(name);
        for end in (1..=normal.len()).filter(|&e| normal.is_char_boundary(e)) {
            let typed = &normal[..end];
            let found = find(&artifact, &gazetteer, typed, None, 20);
            assert!(
                found.iter().any(|p| p.name == name),
                "{typed:?} does not find {name}"
            );
            for place in found.iter().filter(|p| p.matched < Match::LaterWord) {
                let begins =
                    normalise(&place.name).starts_with(typed.trim_end()) || typed.ends_with(' ');
                assert!(begins, "{typed:?} answered {}", place.name);
            }
            // Matches come best first.
            assert!(found.windows(2).all(|w| w[0].matched <= w[1].matched));
        }
    }
    // A later word of a name: "george" finds "ST GEORGE ST" by its word.
    let george = find(&artifact, &gazetteer, "george", None, 5);
    assert_eq!(george[0].name, "ST GEORGE ST");
    assert_eq!(george[0].matched, Match::LaterWord);
    // An unfinished street word stands for its short form.
    let aven = find(&artifact, &gazetteer, "Spadina Aven", None, 5);
    assert_eq!(
        (aven[0].name.as_str(), aven[0].matched),
        ("SPADINA AVE", Match::Prefix)
    );
}

#[test]
fn suggestions_one_edit_from_four_characters_two_from_eight() {
    let (artifact, gazetteer) = city(2);
    let finds = |query: &str, name: &str| {
        find(&artifact, &gazetteer, query, None, 10)
            .iter()
            .any(|p| p.name == name && p.matched == Match::Suggestion)
    };
    // One edit: from four characters on.
    assert!(finds("spdina", "SPADINA AVE"));
    assert!(finds("qeen", "QUEEN ST W"));
    assert!(!finds("qen", "QUEEN ST W"));
    // Two edits: from eight characters on.
    assert!(finds("qens qua", "QUEENS QUAY W"));
    assert!(!finds("qens qu", "QUEENS QUAY W"));
    // Three edits: never.
    assert!(!finds("sdna ave", "SPADINA AVE"));
    // Exact and prefix matches come before suggestions.
    let queen = find(&artifact, &gazetteer, "queen", None, 10);
    assert_eq!(queen[0].name, "QUEEN ST W");
    assert_eq!(queen[1].name, "QUEENS QUAY W");
    assert_eq!(queen[1].matched, Match::PartialWord);
}

#[test]
fn areas_are_found_by_any_word() {
    let (artifact, gazetteer) = city(2);
    let annex = find(&artifact, &gazetteer, "annex", None, 5);
    assert_eq!(annex[0].kind, PlaceKind::Neighbourhood);
    assert_eq!(
        (annex[0].name.as_str(), annex[0].matched),
        ("The Annex", Match::LaterWord)
    );
    let whole = find(&artifact, &gazetteer, "The Annex", None, 5);
    assert_eq!(whole[0].matched, Match::Exact);
}

#[test]
fn an_index_that_does_not_fit_its_graph_is_refused() {
    let (artifact, _) = city(1);
    let mut past = artifact.clone();
    let index = past.places.as_mut().unwrap();
    let entries = (NAMES.len() + index.places.len()) as u32;
    index.postings[0] = entries << 1;
    assert!(validate(&past).is_err());
    // Keys out of order, a key without its run, a run past the postings.
    let mut swapped = artifact.clone();
    swapped.places.as_mut().unwrap().keys.swap(0, 1);
    assert!(validate(&swapped).is_err());
    let mut unrun = artifact.clone();
    unrun.places.as_mut().unwrap().runs.pop();
    assert!(validate(&unrun).is_err());
    let mut past_end = artifact.clone();
    let index = past_end.places.as_mut().unwrap();
    *index.runs.last_mut().unwrap() = index.postings.len() as u32;
    assert!(validate(&past_end).is_err());
    let mut without_graph = artifact;
    without_graph.road_graph = None;
    assert!(validate(&without_graph).is_err());
}

#[test]
fn a_city_without_an_index_finds_nothing() {
    let (mut artifact, _) = city(1);
    artifact.places = None;
    let gazetteer = Gazetteer::new(artifact.road_graph.as_ref());
    assert!(find(&artifact, &gazetteer, "queen", None, 5).is_empty());
    let near = LatLng::new(43.65, -79.38).ok();
    assert!(find(&artifact, &gazetteer, "queen & spadina", near, 5).is_empty());
}
