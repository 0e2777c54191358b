//! The router API's operations, which the dispatcher calls straight from the
//! engine (`hexrisk_engine::operations`), with bodies and query strings as the Worker
//! builds them.

use hexrisk_engine::artifact::PrecinctRecord;
use hexrisk_engine::city::{Atlas, CityModel};
use hexrisk_engine::grid::{self, MicroDegrees};
use hexrisk_engine::operations::{MAX_SCORE_IDS, hexes_lookup, hexes_score};
use http::StatusCode;
use serde_json::{Map, Value, json};

use self::as_json::{
    evaluate, evaluate_hex_path, hexes_all, hexes_breakdown, hexes_config, precincts_all_scores,
    precincts_geojson, precincts_status, reach, route, route_config,
};

use crate::api::plumbing::input::{query_object, query_pairs};
use crate::api::test_support::{atlas, body};
use crate::api::{ApiError, ErrorCode};

/// The engine's operations with their answers as the JSON values the Worker sends.
mod as_json {
    use hexrisk_engine::city::Atlas;
    use hexrisk_engine::operations::{self as engine, QueryError};
    use serde_json::{Map, Value};

    fn json(answer: impl serde::Serialize) -> Value {
        serde_json::to_value(answer).unwrap()
    }

    type Params = Map<String, Value>;

    pub(super) fn hexes_config() -> Value {
        json(engine::hexes_config())
    }

    pub(super) fn route_config() -> Value {
        json(engine::route_config())
    }

    pub(super) fn precincts_status(atlas: &Atlas) -> Value {
        json(engine::precincts_status(atlas))
    }

    pub(super) fn hexes_all(a: &Atlas, p: &Params, now: i64) -> Result<(Value, usize), QueryError> {
        engine::hexes_all(a, p, now).map(|(rows, count)| (json(rows), count))
    }

    macro_rules! as_json {
        ($($name:ident),*) => {$(
            pub(super) fn $name(a: &Atlas, p: &Params, now: i64) -> Result<Value, QueryError> {
                engine::$name(a, p, now).map(json)
            }
        )*};
    }

    as_json!(
        evaluate,
        evaluate_hex_path,
        hexes_breakdown,
        precincts_all_scores,
        precincts_geojson,
        reach,
        route
    );
}

/// The forecasting clock of the tests, in seconds.
fn now() -> i64 {
    crate::api::test_support::now().timestamp()
}

/// A query string's parameters as the dispatcher hands them to the engine.
fn query(text: &str) -> Map<String, Value> {
    query_object(&query_pairs(Some(text)))
}

/// The test city with one square precinct holding every cell.
fn with_precinct() -> Atlas {
    let mut artifact = atlas().cities()[0].artifact().clone();
    artifact.precinct_of = vec![0; artifact.cells.len()];
    artifact.precincts = vec![PrecinctRecord {
        id: "D52".into(),
        name: "52 Division".into(),
        // Clockwise on purpose: the GeoJSON must come out anticlockwise.
        polygons: vec![vec![vec![
            MicroDegrees([-79_420_000, 43_630_000]),
            MicroDegrees([-79_420_000, 43_680_000]),
            MicroDegrees([-79_350_000, 43_680_000]),
            MicroDegrees([-79_350_000, 43_630_000]),
            MicroDegrees([-79_420_000, 43_630_000]),
        ]]],
    }];
    Atlas::new(vec![CityModel::from_artifact(artifact)])
}

fn cells() -> Vec<String> {
    let centre = grid::cell_at(43.6534, -79.3841).unwrap();
    grid::disk(centre, 3)
        .unwrap()
        .iter()
        .map(ToString::to_string)
        .collect()
}

#[test]
fn score_rows_follow_the_request_order_with_no_data_rows() {
    let mut ids = cells();
    ids.reverse();
    let outside = grid::cell_at(10.0, 10.0).unwrap().to_string();
    ids.insert(3, outside.clone());
    let rows = hexes_score(
        &atlas(),
        &body(json!({"hexIds": ids, "intent": "night"})),
        now(),
    )
    .unwrap();
    let rows = serde_json::to_value(&rows).unwrap();
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), ids.len());
    for (row, id) in rows.iter().zip(&ids) {
        assert_eq!(row["h3"], json!(id));
    }
    assert_eq!(rows[3]["colorIndex"], -1);
    assert!(rows[3]["safetyScore"].is_null());
    // Every other id is a cell of the city, scored.
    for (i, row) in rows.iter().enumerate().filter(|&(i, _)| i != 3) {
        assert_ne!(row["colorIndex"], -1, "{i}");
        assert!(row["safetyScore"].is_f64(), "{i}");
    }
}

#[test]
fn score_limits_and_bad_ids_are_400_with_the_index() {
    let too_many = vec![cells()[0].clone(); MAX_SCORE_IDS + 1];
    let err = hexes_score(&atlas(), &body(json!({"hexIds": too_many})), now()).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidRequest);
    assert_eq!(err.details()["limit"], MAX_SCORE_IDS);
    let err = hexes_score(
        &atlas(),
        &body(json!({"hexIds": [cells()[0], "nope"]})),
        now(),
    )
    .unwrap_err();
    assert_eq!(err.details()["index"], 1);
    let parent = grid::cell_at(43.6534, -79.3841)
        .unwrap()
        .parent(h3o::Resolution::Seven)
        .unwrap();
    let err = hexes_score(
        &atlas(),
        &body(json!({"hexIds": [parent.to_string()]})),
        now(),
    )
    .unwrap_err();
    assert_eq!(err.details()["resolution"], 7);
    let err = hexes_score(&atlas(), &body(json!({"hexIds": [1]})), now()).unwrap_err();
    assert_eq!(err.details()["index"], 0);
    let err = hexes_score(
        &atlas(),
        &body(json!({"hexIds": cells(), "intent": "flying"})),
        now(),
    )
    .unwrap_err();
    assert_eq!(err.details()["field"], "intent");
    let err = hexes_score(
        &atlas(),
        &body(json!({"hexIds": cells(), "activeCodes": ["BOGUS"]})),
        now(),
    )
    .unwrap_err();
    assert_eq!(err.details()["field"], "activeCodes");
    assert!(hexes_score(&atlas(), &body(json!({})), now()).is_err());
}

#[test]
fn score_options_are_checked_even_when_no_cell_is_covered() {
    // Valid resolution-8 cells in the middle of the Atlantic, outside every city.
    let ocean: Vec<String> = [(0.0, -30.0), (1.0, -31.0)]
        .iter()
        .map(|&(lat, lng)| grid::cell_at(lat, lng).unwrap())
        .inspect(|&cell| assert!(atlas().locate_cell(cell).is_none(), "{cell} is covered"))
        .map(|cell| cell.to_string())
        .collect();
    let rows = hexes_score(&atlas(), &body(json!({"hexIds": ocean})), now()).unwrap();
    let rows = serde_json::to_value(&rows).unwrap();
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), ocean.len());
    assert!(rows.iter().all(|row| row["colorIndex"] == -1));
    for (option, value) in [
        ("intent", json!("flying")),
        ("activeCodes", json!(["BOGUS"])),
    ] {
        let err = ApiError::from(
            hexes_score(
                &atlas(),
                &body(json!({"hexIds": ocean, option: value})),
                now(),
            )
            .unwrap_err(),
        );
        assert_eq!(err.status(), StatusCode::BAD_REQUEST, "{option}");
        assert_eq!(
            (err.code, err.details["field"].as_str()),
            (ErrorCode::InvalidRequest, Some(option))
        );
    }
}

#[test]
fn lookups_return_the_ring_and_refuse_bad_rings_and_resolutions() {
    for (k, n) in [(0, 1), (1, 7), (5, 91)] {
        let out = hexes_lookup(
            &atlas(),
            &body(json!({"lat": 43.6534, "lng": -79.3841, "ring": k})),
            now(),
        )
        .unwrap();
        let out = serde_json::to_value(&out).unwrap();
        assert_eq!(out["count"], n);
        assert_eq!(out["cells"].as_array().unwrap().len(), n);
        assert_eq!(out["cells"][0]["h3"], out["center"]);
    }
    let detail = hexes_lookup(
        &atlas(),
        &body(json!({"lat": 43.6534, "lng": -79.3841, "ring": 4, "detail": true})),
        now(),
    )
    .unwrap();
    let detail = serde_json::to_value(&detail).unwrap();
    let cells = detail["cells"].as_array().unwrap();
    assert!(cells.iter().any(|c| c["breakdown"]["hasData"] == true));
    assert!(
        cells
            .iter()
            .any(|c| c["breakdown"]["hasData"] == false && c["colorIndex"] == -1)
    );
    for ring in [-1, 42] {
        let err = hexes_lookup(
            &atlas(),
            &body(json!({"lat": 43.65, "lng": -79.38, "ring": ring})),
            now(),
        )
        .unwrap_err();
        assert_eq!(
            (err.code, err.details()["field"].as_str()),
            (ErrorCode::InvalidRequest, Some("ring"))
        );
    }
    let err = hexes_lookup(
        &atlas(),
        &body(json!({"lat": 43.65, "lng": -79.38, "resolution": 9})),
        now(),
    )
    .unwrap_err();
    assert_eq!(err.details()["field"], "resolution");
    let err = hexes_lookup(&atlas(), &body(json!({"lat": 91, "lng": -79.38})), now()).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidCoordinates);
    let err = hexes_lookup(
        &atlas(),
        &body(json!({"lat": 43.65, "lng": -79.38, "ring": 1.5})),
        now(),
    )
    .unwrap_err();
    assert_eq!(err.details()["field"], "ring");
}

#[test]
fn breakdowns_sum_their_shares_and_say_when_there_is_no_data() {
    let id = cells()[0].clone();
    let out = hexes_breakdown(&atlas(), &query(&format!("h3={id}&intent=walking")), now()).unwrap();
    assert_eq!(out["hasData"], true);
    assert_eq!(out["modifiers"]["intent"], "walking");
    let rows = out["crimeTypes"].as_array().unwrap();
    assert_eq!(rows.len(), 5);
    let share: f64 = rows.iter().map(|r| r["share"].as_f64().unwrap()).sum();
    assert!((share - 1.0).abs() < 1e-9);
    let safety = out["safetyScore"].as_f64().unwrap();
    assert!((out["normalizedRisk"].as_f64().unwrap() - (1.0 - safety / 100.0)).abs() < 1e-12);
    let outside = grid::cell_at(10.0, 10.0).unwrap();
    let none = hexes_breakdown(&atlas(), &query(&format!("h3={outside}")), now()).unwrap();
    assert_eq!(
        (none["hasData"].as_bool(), none["colorIndex"].as_i64()),
        (Some(false), Some(-1))
    );
    assert!(hexes_breakdown(&atlas(), &query("h3=zz"), now()).is_err());
    assert!(hexes_breakdown(&atlas(), &query(""), now()).is_err());
}

fn bbox(w: f64, s: f64, e: f64, n: f64) -> Map<String, Value> {
    query(&format!("west={w}&south={s}&east={e}&north={n}"))
}

#[test]
fn viewport_lists_slim_objects_inside_the_box_only() {
    let (all, count) = hexes_all(&atlas(), &bbox(-79.5, 43.6, -79.3, 43.7), now()).unwrap();
    assert_eq!(count, 37);
    let first = &all[0];
    for key in ["h", "la", "ln", "ci", "cr", "ss"] {
        assert!(first.get(key).is_some(), "{key}");
    }
    assert_eq!(first["ss"].as_object().unwrap().len(), 4);
    assert_eq!(first["cr"].as_object().unwrap().len(), 5);
    let (_, few) = hexes_all(&atlas(), &bbox(-79.3845, 43.653, -79.3835, 43.654), now()).unwrap();
    assert!(few < count);
    let err = hexes_all(&atlas(), &bbox(-80.0, 43.0, -77.9, 43.5), now()).unwrap_err();
    assert_eq!(err.details()["limit_degrees"], 2.0);
    assert!(hexes_all(&atlas(), &bbox(-79.3, 43.6, -79.5, 43.7), now()).is_err());
    let err = hexes_all(&atlas(), &bbox(-79.5, 43.6, -79.3, 95.0), now()).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidCoordinates);
}

#[test]
fn routes_and_evaluations_answer_through_the_engine() {
    let out = route(
        &atlas(),
        &body(json!({"origin": {"lat": 43.6534, "lng": -79.3841}, "destination": {"lat": 43.66, "lng": -79.37}, "snapToRoads": false})),
        now(),
    )
    .unwrap();
    assert_eq!(out["status"], "success");
    assert_eq!(out["network"], "hex-lattice");
    let hex_path = out["hexPath"].clone();
    let evaluated =
        evaluate_hex_path(&atlas(), &body(json!({"hexPath": hex_path})), now()).unwrap();
    assert_eq!(evaluated["metrics"], out["best"]["corridorMetrics"]);
    // Without roads in this city, snapping to roads is refused clearly.
    let err = route(&atlas(), &body(json!({"origin": {"lat": 43.6534, "lng": -79.3841}, "destination": {"lat": 43.66, "lng": -79.37}})), now()).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidRequest);
    let err = route(
        &atlas(),
        &body(json!({"origin": {"lat": "x", "lng": 1}})),
        now(),
    )
    .unwrap_err();
    assert_eq!(err.details()["field"], "body");
    let line = evaluate(&atlas(), &body(json!({"geometry": {"type": "LineString", "coordinates": [[-79.3841, 43.6534], [-79.37, 43.66]]}})), now()).unwrap();
    assert!(line["metrics"]["distanceM"].as_f64().unwrap() > 1000.0);
    // No road network in this city: nothing to explain a line against.
    assert_eq!(line["explanation"], Value::Null);
    let err = evaluate_hex_path(
        &atlas(),
        &body(json!({"hexPath": [cells()[0], grid::cell_at(10.0, 10.0).unwrap().to_string()]})),
        now(),
    )
    .unwrap_err();
    assert_eq!(
        (
            err.details()["field"].as_str(),
            err.details()["index"].as_u64()
        ),
        (Some("hexPath"), Some(1))
    );
}

#[test]
fn a_tradeoff_answer_names_each_route_of_its_set_by_pointer() {
    let ends = json!({"origin": {"lat": 43.6534, "lng": -79.3841}, "destination": {"lat": 43.672, "lng": -79.36}, "snapToRoads": false});
    let mut request = ends.clone();
    request["method"] = json!("tradeoff");
    let out = route(&atlas(), &body(request.clone()), now()).unwrap();
    assert_eq!(out["method"], "tradeoff");
    assert_eq!(out["alpha"], Value::Null);
    assert_eq!(out["best"]["cost"], Value::Null);
    let routes = out["tradeoff"]["routes"].as_array().unwrap();
    let alternatives = out["alternatives"].as_array().unwrap();
    assert_eq!(routes.len(), alternatives.len() + 1);
    assert_eq!(routes.last().unwrap()["route"], "/best");
    assert_eq!(routes[0]["metresPerExposureAvoided"], Value::Null);
    for entry in routes {
        let option = out.pointer(entry["route"].as_str().unwrap()).unwrap();
        assert_eq!(entry["distanceM"], option["metrics"]["distanceM"]);
        assert_eq!(entry["exposure"], option["metrics"]["exposure"]);
        let why = &option["explanation"];
        for key in [
            "shortest",
            "exposureAvoided",
            "exposureAvoidedPct",
            "extraM",
            "extraMinutes",
            "metresPerExposureAvoided",
            "avoidedCells",
        ] {
            assert!(why.get(key).is_some(), "{key}");
        }
    }
    // A method's answer explains its route too, and has no trade-off member.
    let safest = route(&atlas(), &body(ends.clone()), now()).unwrap();
    assert!(
        safest["best"]["explanation"]["shortest"]["distanceM"]
            .as_f64()
            .unwrap()
            > 0.0
    );
    assert!(safest.get("tradeoff").is_none());
    request["alternatives"] = json!(2);
    let err = route(&atlas(), &body(request.clone()), now()).unwrap_err();
    assert_eq!(
        (err.code, err.details()["field"].as_str()),
        (ErrorCode::InvalidRequest, Some("alternatives"))
    );
    request["method"] = json!("fastest");
    let err = route(&atlas(), &body(request), now()).unwrap_err();
    assert_eq!(err.details()["field"], "method");
    assert!(err.message.contains("tradeoff"), "{}", err.message);
}

#[test]
fn reach_bodies_are_checked_and_name_their_field() {
    let at = |minutes: Value| {
        body(json!({"origin": {"lat": 43.6534, "lng": -79.3841}, "minutes": minutes}))
    };
    for minutes in [json!(0), json!(-1), json!(60.5)] {
        let err = reach(&atlas(), &at(minutes.clone()), now()).unwrap_err();
        assert_eq!(
            (err.code, err.details()["field"].as_str()),
            (ErrorCode::InvalidRequest, Some("minutes")),
            "{minutes}"
        );
    }
    let err = reach(&atlas(), &at(json!("ten")), now()).unwrap_err();
    assert_eq!(err.details()["field"], "body");
    let err = reach(
        &atlas(),
        &body(json!({"origin": {"lat": 10.0, "lng": 10.0}, "minutes": 10})),
        now(),
    )
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::LocationNotCovered);
    // This city has no road network: a reach is refused clearly, as a route is.
    let err = reach(&atlas(), &at(json!(10)), now()).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidRequest);
    assert!(err.message.contains("network"), "{}", err.message);
    let err = reach(
        &atlas(),
        &body(
            json!({"origin": {"lat": 43.6534, "lng": -79.3841}, "minutes": 10, "mode": "flying"}),
        ),
        now(),
    )
    .unwrap_err();
    assert_eq!(err.details()["field"], "mode");
}

#[test]
fn precinct_answers_are_geojson_with_scores() {
    let atlas = with_precinct();
    let status = precincts_status(&atlas);
    assert_eq!(status["precincts"], 1);
    let scores = precincts_all_scores(&atlas, &query(""), now()).unwrap();
    let row = &scores["cities"][0]["precincts"][0];
    assert_eq!(row["cells"], 37);
    assert!(row["safetyScore"].as_f64().is_some());
    let geojson = precincts_geojson(&atlas, &query(""), now()).unwrap();
    assert_eq!(geojson["type"], "FeatureCollection");
    let feature = &geojson["features"][0];
    assert_eq!(feature["geometry"]["type"], "MultiPolygon");
    let ring = feature["geometry"]["coordinates"][0][0].as_array().unwrap();
    assert_eq!(ring.first(), ring.last());
    // Anticlockwise: positive shoelace area.
    let points: Vec<[f64; 2]> = ring
        .iter()
        .map(|p| [p[0].as_f64().unwrap(), p[1].as_f64().unwrap()])
        .collect();
    let area: f64 = points
        .windows(2)
        .map(|w| w[0][0] * w[1][1] - w[1][0] * w[0][1])
        .sum();
    assert!(area > 0.0);
    assert_eq!(feature["properties"]["id"], "D52");
}

#[test]
fn configs_describe_palette_methods_and_tiers() {
    let config = hexes_config();
    assert_eq!(config["data"]["colors"].as_array().unwrap().len(), 17);
    assert_eq!(config["data"]["resolution"], 8);
    let route = route_config();
    let methods = route["methods"].as_array().unwrap();
    assert_eq!(methods.len(), 4);
    assert_eq!(
        methods[3],
        serde_json::json!({"name": "tradeoff", "alpha": null})
    );
    assert_eq!(route["tradeoff"]["maxRoutes"], 5);
    assert_eq!(route["tiers"].as_array().unwrap().len(), 5);
    assert_eq!(route["maxSnapDistanceM"], 500.0);
}
