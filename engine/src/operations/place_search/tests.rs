use alloc::vec;

use serde_json::json;

use super::*;
use crate::artifact::fixture::CityFixture;
use crate::grid::MicroDegrees;
use crate::operations::ErrorCode;
use crate::places::{NamedPlace, PlaceIndex, StoredKind};

/// The fixture city (one way, "Queen St W") with its place index and a division.
fn atlas() -> Atlas {
    let mut artifact = CityFixture::default().build();
    let names = artifact.road_graph.as_ref().unwrap().names.clone();
    let division = NamedPlace {
        kind: StoredKind::Precinct,
        name: "52 Division".into(),
        point: MicroDegrees::from_degrees(43.65, -79.38),
    };
    artifact.places = Some(PlaceIndex::build(&names, vec![division]).unwrap());
    Atlas::new(vec![CityModel::from_artifact(artifact)])
}

fn query(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => unreachable!("queries are objects"),
    }
}

#[test]
fn a_city_by_code_or_by_point() {
    let atlas = atlas();
    let by_code = search_places(
        &atlas,
        &query(json!({"q": " queen ", "city": "city_ca_tor"})),
    )
    .unwrap();
    assert_eq!(by_code.query, "queen");
    assert_eq!(by_code.places[0].name, "Queen St W");
    assert_eq!(by_code.places[0].matched, "prefix");
    assert_eq!(by_code.places[0].distance_m, None);
    let by_point = search_places(
        &atlas,
        &query(json!({"q": "52 division", "lat": "43.65", "lng": "-79.38", "limit": "1"})),
    )
    .unwrap();
    assert_eq!(by_point.city, "city_ca_tor");
    assert_eq!(by_point.places.len(), 1);
    assert_eq!(by_point.places[0].kind, "precinct");
    assert_eq!(by_point.places[0].distance_m, Some(0.0));
    let text = serde_json::to_value(&by_point.places[0]).unwrap();
    assert_eq!(text["match"], "exact");
    assert!(text.get("streets").is_none());
}

#[test]
fn bad_queries_get_documented_errors() {
    let atlas = atlas();
    let long = "a".repeat(500);
    for (params, code, field) in [
        (
            json!({"city": "city_ca_tor"}),
            ErrorCode::InvalidRequest,
            "q",
        ),
        (
            json!({"q": "", "city": "city_ca_tor"}),
            ErrorCode::InvalidRequest,
            "q",
        ),
        (
            json!({"q": "   ", "city": "city_ca_tor"}),
            ErrorCode::InvalidRequest,
            "q",
        ),
        (
            json!({"q": long, "city": "city_ca_tor"}),
            ErrorCode::InvalidRequest,
            "q",
        ),
        (
            json!({"q": "queen\u{0}", "city": "city_ca_tor"}),
            ErrorCode::InvalidRequest,
            "q",
        ),
        (
            json!({"q": "qu\neen", "city": "city_ca_tor"}),
            ErrorCode::InvalidRequest,
            "q",
        ),
        (
            json!({"q": "&&", "city": "city_ca_tor"}),
            ErrorCode::InvalidRequest,
            "q",
        ),
        (
            json!({"q": 5, "city": "city_ca_tor"}),
            ErrorCode::InvalidRequest,
            "q",
        ),
        (
            json!({"q": "queen", "city": "atlantis"}),
            ErrorCode::InvalidRequest,
            "city",
        ),
        (json!({"q": "queen"}), ErrorCode::InvalidRequest, "city"),
        (
            json!({"q": "queen", "city": "city_ca_tor", "limit": "0"}),
            ErrorCode::InvalidRequest,
            "limit",
        ),
        (
            json!({"q": "queen", "city": "city_ca_tor", "limit": "21"}),
            ErrorCode::InvalidRequest,
            "limit",
        ),
        (
            json!({"q": "queen", "city": "city_ca_tor", "limit": "2.5"}),
            ErrorCode::InvalidRequest,
            "limit",
        ),
        (
            json!({"q": "queen", "lat": "43.65"}),
            ErrorCode::InvalidRequest,
            "lng",
        ),
        (
            json!({"q": "queen", "lat": "91", "lng": "0"}),
            ErrorCode::InvalidCoordinates,
            "lat",
        ),
        (
            json!({"q": "queen", "lat": "0", "lng": "0"}),
            ErrorCode::LocationNotCovered,
            "",
        ),
    ] {
        let err = search_places(&atlas, &query(params.clone())).unwrap_err();
        assert_eq!((err.code, err.field.as_str()), (code, field), "{params}");
    }
    let unknown =
        search_places(&atlas, &query(json!({"q": "queen", "city": "atlantis"}))).unwrap_err();
    assert_eq!(unknown.details()["cities"], json!(["city_ca_tor"]));
    let long = search_places(
        &atlas,
        &query(json!({"q": "a".repeat(101), "city": "city_ca_tor"})),
    )
    .unwrap_err();
    assert_eq!(long.details()["limit"], json!(MAX_QUERY_CHARS));
    // At the limit, a query is searched.
    let at_limit = json!({"q": "q".repeat(MAX_QUERY_CHARS), "city": "city_ca_tor"});
    assert!(search_places(&atlas, &query(at_limit)).is_ok());
}

#[test]
fn the_places_query_is_what_search_places_reads() {
    let atlas = atlas();
    let code = atlas.cities()[0].artifact().city.code.clone();
    let example =
        json!({"q": "Queen", "city": code, "lat": 43.65, "lng": -79.38, "limit": MAX_PLACES});
    crate::operations::described::check::<PlacesQuery, _>(&example, true, |params| {
        search_places(&atlas, params)
    });
}
