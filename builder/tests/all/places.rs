//! Place search on the real cities the build makes: every intersection of the St
//! George campus's OpenStreetMap streets looked up in Toronto's index as
//! OpenStreetMap spells them, and a sample of every city's own intersections looked
//! up by their own names, with the first answer where the streets meet.
//!
//! The cities' models come from `support/city_models.rs`.

use std::sync::OnceLock;

use hexrisk_builder::inputs::{config, data};
use hexrisk_builder::references::place_check;
use hexrisk_builder::roads::osm;
use hexrisk_engine::city::CityModel;
use hexrisk_engine::places::{PlaceKind, search};

use crate::support::city_models;

fn model(code: &str) -> &'static CityModel {
    static MODELS: OnceLock<Vec<CityModel>> = OnceLock::new();
    MODELS
        .get_or_init(|| {
            config::load_all(&config::default_config_dir())
                .unwrap()
                .iter()
                .filter(|c| c.roads.is_some())
                .map(city_models::city_model)
                .collect()
        })
        .iter()
        .find(|m| m.artifact().city.code == code)
        .unwrap()
}

#[test]
fn the_campus_intersections_as_openstreetmap_spells_them() {
    let campus =
        osm::read_xml(&data::workspace_data_dir().join("toronto/uoft_campus.osm")).unwrap();
    let check = place_check::check(&campus, model("city_ca_tor"));
    assert!(check.intersections >= 40, "{}", check.intersections);
    // Every miss says why; a name the City's network lacks is a miss of the data,
    // not of the search.
    for lookup in &check.lookups {
        assert_eq!(lookup.found, lookup.why.is_none(), "{}", lookup.query);
    }
    let known = check.found_with_both_names as f64 / check.with_both_names as f64;
    assert!(
        known >= 0.85,
        "{} of {}",
        check.found_with_both_names,
        check.with_both_names
    );
    for lookup in check
        .lookups
        .iter()
        .filter(|l| l.both_names_known && !l.found)
    {
        let why = lookup.why.as_deref().unwrap();
        assert!(
            why.starts_with("the names meet at") || why.contains("do not meet"),
            "{}: {why}",
            lookup.query
        );
    }
}

/// Every `step`-th intersection of a city's network, looked up as "A & B" and as
/// "B and A" from its own point: the first answer is a place where both streets
/// meet, at the point or at a place where more ways meet.
fn own_intersections_are_found(code: &str, step: usize) {
    let model = model(code);
    let artifact = model.artifact();
    let (graph, index) = (artifact.road_graph.as_ref(), artifact.places.as_ref());
    let names = &graph.unwrap().names;
    let gazetteer = model.gazetteer();
    let mut looked = 0;
    for crossing in gazetteer.crossings.iter().step_by(step) {
        let (a, b) = (
            &names[crossing.names[0] as usize],
            &names[crossing.names[1] as usize],
        );
        let near = Some(crossing.point.to_lat_lng());
        for query in [format!("{a} & {b}"), format!("{b} and {a}")] {
            let found = search(graph, index, gazetteer, &query, near, 5);
            let first = &found[0];
            assert_eq!(first.kind, PlaceKind::Intersection, "{code}: {query}");
            assert!(
                first.streets.contains(a) && first.streets.contains(b),
                "{code}: {query} answered {}",
                first.name
            );
            let here = first.distance_m.unwrap() < hexrisk_engine::places::search::SAME_CROSSING_M;
            let busier = gazetteer
                .crossings
                .iter()
                .find(|c| c.point == first.point)
                .is_some_and(|c| c.degree > crossing.degree);
            assert!(here || busier, "{code}: {query} answered {first:?}");
        }
        looked += 1;
    }
    assert!(looked >= 100, "{code}: {looked}");
}

#[test]
fn torontos_own_intersections_by_their_own_names() {
    own_intersections_are_found("city_ca_tor", 97);
}

#[test]
fn san_franciscos_own_intersections_by_their_own_names() {
    own_intersections_are_found("city_us_sfo", 23);
}
