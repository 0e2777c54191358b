//! The request types that describe the hand-written parsers of the hex operations
//! (for the OpenAPI document) are what those parsers read.

use alloc::string::ToString;

use serde_json::json;

use super::*;
use crate::artifact::fixture::CityFixture;
use crate::operations::described::check;
use crate::operations::wants_geojson;

const NOW: i64 = 1_640_995_200; // 2022-01-01

fn atlas() -> Atlas {
    Atlas::new(alloc::vec![CityModel::from_artifact(
        CityFixture::default().build(),
    )])
}

/// A date in the city's first forecast week.
fn week(atlas: &Atlas) -> String {
    atlas.cities()[0].week_monday(0).to_string()
}

/// `example` with every scoring option of a POST body.
fn with_scoring_options(mut example: Value, week: &str, time: &Value) -> Value {
    let options = json!({
        "intent": "walking",
        "activeCodes": ["OTHER", "THEFT_BURGLARY"],
        "toggles": {"OTHER": true},
        "modifiers": {"week": week, "classWeights": {"OTHER": 2.5}, "time": time.clone()},
    });
    if let (Value::Object(fields), Value::Object(options)) = (&mut example, options) {
        fields.extend(options);
    }
    example
}

/// `example` with every scoring option of a query string.
fn with_query_options(mut example: Value, week: &str) -> Value {
    let options = json!({
        "intent": "night",
        "activeCodes": "OTHER,THEFT_BURGLARY",
        "week": week,
        "time": "30",
    });
    if let (Value::Object(fields), Value::Object(options)) = (&mut example, options) {
        fields.extend(options);
    }
    example
}

#[test]
fn the_score_body_is_what_hexes_score_reads() {
    let atlas = atlas();
    let cell = atlas.cities()[0].cell(0).unwrap().to_string();
    let week = week(&atlas);
    for time in [json!(30), Value::Null] {
        let example = with_scoring_options(json!({ "hexIds": [cell] }), &week, &time);
        check::<HexesScoreRequest, _>(&example, false, |body| hexes_score(&atlas, body, NOW));
    }
    // An ISO time names its own week.
    let mut example = with_scoring_options(json!({ "hexIds": [cell] }), &week, &json!(""));
    example["modifiers"] = json!({"classWeights": {"OTHER": 2.5}, "time": "2022-01-04T08:00:00"});
    example["modifiers"]["week"] = Value::Null;
    check::<HexesScoreRequest, _>(&example, false, |body| hexes_score(&atlas, body, NOW));
}

#[test]
fn the_lookup_body_is_what_hexes_lookup_reads() {
    let atlas = atlas();
    let (lat, lng) = grid::cell_centre(atlas.cities()[0].cell(0).unwrap());
    let example = with_scoring_options(
        json!({"lat": lat, "lng": lng, "ring": MAX_RING_DISTANCE, "detail": true, "resolution": 8}),
        &week(&atlas),
        &json!(30),
    );
    check::<HexesLookupRequest, _>(&example, false, |body| hexes_lookup(&atlas, body, NOW));
}

#[test]
fn the_breakdown_query_is_what_hexes_breakdown_reads() {
    let atlas = atlas();
    let cell = atlas.cities()[0].cell(0).unwrap().to_string();
    let example = with_query_options(json!({ "h3": cell }), &week(&atlas));
    check::<BreakdownQuery, _>(&example, true, |params| {
        hexes_breakdown(&atlas, params, NOW)
    });
}

#[test]
fn the_box_query_is_what_hexes_all_reads() {
    let atlas = atlas();
    let b = atlas.cities()[0].artifact().bounds;
    for format in ["json", "geojson"] {
        let example = with_query_options(
            json!({"west": b.west, "south": b.south, "east": b.east, "north": b.north, "format": format}),
            &week(&atlas),
        );
        check::<HexesAllQuery, _>(&example, true, |params| {
            wants_geojson(params)?;
            hexes_all(&atlas, params, NOW)
        });
    }
}
