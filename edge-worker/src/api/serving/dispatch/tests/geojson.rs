//! `/hexes/all` and `/streets` as GeoJSON: asked for by
//! `Accept: application/geo+json` or `format=geojson`, answered as feature collections of
//! the same rows with the GeoJSON media type; anything else keeps the JSON the
//! specification shows, and a bad `format` is refused in the error shape.

use http::StatusCode;
use serde_json::Value;

use crate::api::test_support::{
    LIVE_KEY, MemoryBackend, atlas_with_roads, bucket, get_with, json_of,
};

const BOX: &str = "west=-79.5&south=43.6&east=-79.3&north=43.7";

#[test]
fn hexes_come_as_a_feature_collection_when_geojson_is_accepted() {
    let backend = MemoryBackend::new();
    let uri = format!("http://x/hexes/all?{BOX}");
    let rows = json_of(&get_with(&backend, &uri, &[("x-api-key", LIVE_KEY)]));
    let rows = rows.as_array().unwrap();
    for accept in [
        "application/geo+json",
        "application/json;q=0.5, application/geo+json",
        "APPLICATION/GEO+JSON; q=0.8",
    ] {
        let answer = get_with(
            &backend,
            &uri,
            &[("x-api-key", LIVE_KEY), ("accept", accept)],
        );
        assert_eq!(answer.status(), StatusCode::OK, "{accept}");
        assert_eq!(answer.headers()["content-type"], "application/geo+json");
        assert_eq!(
            answer.headers()["x-hex-count"],
            rows.len().to_string().as_str()
        );
        assert_eq!(answer.headers()["vary"], "Accept, Accept-Encoding");
        let collection = json_of(&answer);
        assert_eq!(collection["type"], "FeatureCollection");
        let ids: Vec<&Value> = collection["features"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| &f["id"])
            .collect();
        let expected: Vec<&Value> = rows.iter().map(|r| &r["h"]).collect();
        assert_eq!(ids, expected);
    }
    // The query's format, and nothing else, also asks.
    let by_query = get_with(
        &backend,
        &format!("{uri}&format=geojson"),
        &[("x-api-key", LIVE_KEY)],
    );
    assert_eq!(by_query.headers()["content-type"], "application/geo+json");
    for (accept, query) in [
        ("*/*", ""),
        ("application/json", ""),
        ("application/geo+json;q=0", ""),
        ("application/geo+json", "&format=json"),
    ] {
        let answer = get_with(
            &backend,
            &format!("{uri}{query}"),
            &[("x-api-key", LIVE_KEY), ("accept", accept)],
        );
        assert_eq!(
            answer.headers()["content-type"],
            "application/json; charset=utf-8",
            "{accept} {query}"
        );
        assert!(json_of(&answer).is_array());
    }
}

#[test]
fn streets_come_as_lines_with_their_scoring_on_the_collection() {
    let backend = MemoryBackend::new();
    *backend.files.borrow_mut() = bucket(&atlas_with_roads());
    let uri = "http://x/streets?west=-79.40&south=43.64&east=-79.37&north=43.67";
    let plain = json_of(&get_with(&backend, uri, &[("x-api-key", LIVE_KEY)]));
    let streets = plain["streets"].as_array().unwrap();
    assert!(!streets.is_empty(), "{plain}");
    let answer = get_with(
        &backend,
        uri,
        &[("x-api-key", LIVE_KEY), ("accept", "application/geo+json")],
    );
    assert_eq!(answer.status(), StatusCode::OK);
    assert_eq!(answer.headers()["content-type"], "application/geo+json");
    let collection = json_of(&answer);
    let features = collection["features"].as_array().unwrap();
    assert_eq!(features.len(), streets.len());
    assert_eq!(
        features[0]["geometry"]["coordinates"],
        streets[0]["coordinates"]
    );
    assert_eq!(
        collection["meanIncidentsPerKm"],
        plain["meanIncidentsPerKm"]
    );
}

#[test]
fn an_unknown_format_is_refused_in_the_error_shape() {
    let backend = MemoryBackend::new();
    let answer = get_with(
        &backend,
        &format!("http://x/hexes/all?{BOX}&format=kml"),
        &[("x-api-key", LIVE_KEY)],
    );
    assert_eq!(answer.status(), StatusCode::BAD_REQUEST);
    let body = json_of(&answer);
    assert_eq!(body["status"], "error", "{body}");
    assert_eq!(body["details"]["field"], "format", "{body}");
}
