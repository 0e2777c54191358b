//! Bad input against every POST endpoint of both APIs, through the whole request
//! path (`handle` with the in-memory backend): malformed, hostile and wrongly typed
//! bodies must get a 4xx answer in the documented error shape, never a panic, a 5xx
//! or a hang. The endpoints come from the dispatcher's own table, so a new one cannot
//! be left out.

use bytes::Bytes;
use http::{Method, StatusCode};
use serde_json::{Value, json};

use crate::api::access::keys::KeyApi;
use crate::api::routes::{self, Access, Answer, ROUTES};
use crate::api::test_support::{LIVE_KEY, MemoryBackend, atlas_with_roads, bucket, send_bytes};

/// A body the POST endpoint at `path` accepts (`None` for the others); a new POST
/// endpoint fails [`endpoints`] until it is placed here.
fn valid_body(path: &str) -> Option<Value> {
    let cell = hexrisk_engine::grid::cell_at(43.6534, -79.3841)
        .unwrap()
        .to_string();
    let body = match path {
        "/v1/predict" => json!({"latitude": 43.6534, "longitude": -79.3841}),
        "/v1/predict/batch" => {
            json!({"locations": [{"latitude": 43.6534, "longitude": -79.3841}]})
        }
        "/v1/route/risk" => {
            json!({"waypoints": [{"latitude": 43.6534, "longitude": -79.3841}, {"latitude": 43.66, "longitude": -79.37}]})
        }
        "/hexes/score" => json!({"hexIds": [cell]}),
        "/hexes/lookup" => json!({"lat": 43.6534, "lng": -79.3841, "ring": 2}),
        "/route" => {
            json!({"origin": {"lat": 43.6534, "lng": -79.3841}, "destination": {"lat": 43.66, "lng": -79.37}, "snapToRoads": false})
        }
        "/reach" => json!({"origin": {"lat": 43.65, "lng": -79.38}, "minutes": 10}),
        "/evaluate" => {
            json!({"geometry": {"type": "LineString", "coordinates": [[-79.3841, 43.6534], [-79.37, 43.66]]}})
        }
        "/evaluate-hex-path" => json!({"hexPath": [cell]}),
        _ => return None,
    };
    Some(body)
}

/// Every POST endpoint of the APIs in the route table, each with a valid body.
fn endpoints() -> Vec<(&'static str, Value)> {
    let posts: Vec<_> = ROUTES
        .iter()
        .filter(|route| route.method == Method::POST)
        .filter(|route| matches!(route.answer, Answer::Engine(..)))
        .map(|route| {
            let path = route.path;
            let body = valid_body(path)
                .unwrap_or_else(|| panic!("POST {path} has no valid body to start from"));
            (path, body)
        })
        .collect();
    assert!(!posts.is_empty());
    posts
}

/// The in-memory backend, its city with a road network (`/reach` walks roads only).
fn backend() -> MemoryBackend {
    let backend = MemoryBackend::new();
    *backend.files.borrow_mut() = bucket(&atlas_with_roads());
    backend
}

/// A POST of `body` to `path` with the live key, presented as the path's API wants.
fn post(backend: &MemoryBackend, path: &str, body: Vec<u8>) -> (StatusCode, Value) {
    let route = routes::Table::SERVED
        .find(path, &Method::POST)
        .expect("a POST endpoint")
        .route;
    let bearer = format!("Bearer {LIVE_KEY}");
    let key = match route.access {
        Access::Key(KeyApi::Prediction) => ("authorization", bearer.as_str()),
        Access::Key(KeyApi::Router) => ("x-api-key", LIVE_KEY),
        other => panic!("POST {path} takes no key: {other:?}"),
    };
    let response = send_bytes(
        backend,
        Method::POST,
        &format!("http://x{path}"),
        &[key, ("content-type", "application/json")],
        Bytes::from(body),
    );
    let value = serde_json::from_slice(response.body()).unwrap_or(Value::Null);
    (response.status(), value)
}

/// A 4xx in the error shape (or, for inputs that are valid, a 200).
fn assert_handled(path: &str, what: &str, status: StatusCode, body: &Value) {
    assert!(status.as_u16() < 500, "{path} {what}: {status} {body}");
    if status != StatusCode::OK {
        assert!(status.is_client_error(), "{path} {what}: {status}");
        assert_eq!(body["status"], "error", "{path} {what}: {body}");
        assert!(
            body["code"].is_string() && body["message"].is_string(),
            "{path} {what}: {body}"
        );
        assert!(body["details"].is_object(), "{path} {what}: {body}");
    }
}

#[test]
fn the_valid_bodies_are_accepted() {
    let backend = backend();
    for (path, body) in endpoints() {
        let (status, answer) = post(&backend, path, body.to_string().into_bytes());
        assert_eq!(status, StatusCode::OK, "{path}: {answer}");
    }
}

#[test]
fn malformed_and_hostile_bodies_are_400() {
    let backend = backend();
    let deep = "[".repeat(100_000);
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("empty body", Vec::new()),
        ("invalid UTF-8", vec![b'{', 0xff, 0xfe, b'}']),
        ("deeply nested arrays", deep.clone().into_bytes()),
        (
            "deeply nested objects",
            "{\"a\":".repeat(50_000).into_bytes(),
        ),
        (
            "NaN spelled out",
            br#"{"latitude": NaN, "longitude": 1}"#.to_vec(),
        ),
        (
            "Infinity spelled out",
            br#"{"latitude": Infinity, "longitude": 1}"#.to_vec(),
        ),
        (
            "a number beyond f64",
            br#"{"latitude": 1e400, "longitude": 1}"#.to_vec(),
        ),
        ("a truncated document", br#"{"latitude": 43.6"#.to_vec()),
        ("a JSON array", b"[1, 2, 3]".to_vec()),
        ("a JSON string", br#""hello""#.to_vec()),
        ("JSON null", b"null".to_vec()),
    ];
    for (path, _) in endpoints() {
        for (what, body) in &cases {
            let (status, answer) = post(&backend, path, body.clone());
            assert_eq!(status, StatusCode::BAD_REQUEST, "{path} {what}: {answer}");
            assert_handled(path, what, status, &answer);
        }
    }
}

/// The replacements of [`every_field_of_the_wrong_type_is_a_client_error`] that leave
/// a valid request: a batch answers a bad item in place, an empty id list scores
/// nothing, -1.5 is a coordinate anywhere, and a null ring takes the default.
const STILL_VALID: [(&str, &str, &str); 5] = [
    ("/v1/predict/batch", "locations", "[[[[]]]]"),
    ("/hexes/score", "hexIds", "[]"),
    ("/hexes/lookup", "lat", "-1.5"),
    ("/hexes/lookup", "lng", "-1.5"),
    ("/hexes/lookup", "ring", "null"),
];

#[test]
fn every_field_of_the_wrong_type_is_a_client_error() {
    let backend = backend();
    let wrong = [
        json!(null),
        json!(true),
        json!("text"),
        json!(-1.5),
        json!(1e308),
        json!([]),
        json!({}),
        json!([[[[]]]]),
    ];
    for (path, body) in endpoints() {
        let fields: Vec<String> = body.as_object().unwrap().keys().cloned().collect();
        for field in fields {
            for value in &wrong {
                let mut broken = body.clone();
                broken[&field] = value.clone();
                let (status, answer) = post(&backend, path, broken.to_string().into_bytes());
                let what = format!("{field} = {value}");
                let valid =
                    STILL_VALID.contains(&(path, field.as_str(), value.to_string().as_str()));
                assert_eq!(
                    status == StatusCode::OK,
                    valid,
                    "{path} {what}: {status} {answer}"
                );
                assert_handled(path, &what, status, &answer);
            }
        }
    }
}

#[test]
fn duplicate_keys_take_the_last_value() {
    let backend = backend();
    let (status, answer) = post(
        &backend,
        "/hexes/lookup",
        br#"{"lat": 43.6534, "lng": -79.3841, "ring": 50, "ring": 1}"#.to_vec(),
    );
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["count"], 7);
}

#[test]
fn cells_of_other_resolutions_and_pentagons_are_handled() {
    let backend = backend();
    let pentagons: Vec<String> = h3o::Resolution::Eight
        .pentagons()
        .map(|c| c.to_string())
        .collect();
    assert_eq!(pentagons.len(), 12);
    // Pentagons are valid resolution-8 cells outside every city: no data, not an error.
    let (status, rows) = post(
        &backend,
        "/hexes/score",
        json!({"hexIds": pentagons}).to_string().into_bytes(),
    );
    assert_eq!(status, StatusCode::OK);
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), pentagons.len());
    assert!(rows.iter().all(|r| r["colorIndex"] == -1));
    // A ring around a pentagon has fewer cells than 3k^2+3k+1, and says so.
    let centre = h3o::LatLng::from(h3o::Resolution::Eight.pentagons().next().unwrap());
    let (status, lookup) = post(
        &backend,
        "/hexes/lookup",
        json!({"lat": centre.lat(), "lng": centre.lng(), "ring": 3})
            .to_string()
            .into_bytes(),
    );
    assert_eq!(status, StatusCode::OK);
    assert_eq!(lookup["count"], lookup["cells"].as_array().unwrap().len());
    assert!(lookup["count"].as_u64().unwrap() < 37);
    let (status, path) = post(
        &backend,
        "/evaluate-hex-path",
        json!({"hexPath": [pentagons[0]]}).to_string().into_bytes(),
    );
    assert_eq!(
        (status, path["code"].as_str()),
        (StatusCode::NOT_FOUND, Some("LOCATION_NOT_COVERED"))
    );
    // Other resolutions, the empty string and non-cells name the index.
    let cell = hexrisk_engine::grid::cell_at(43.6534, -79.3841).unwrap();
    for bad in [
        cell.parent(h3o::Resolution::Zero).unwrap().to_string(),
        cell.children(h3o::Resolution::Fifteen)
            .next()
            .unwrap()
            .to_string(),
        String::new(),
        "ffffffffffffffff".to_owned(),
        "8".repeat(200),
    ] {
        let (status, answer) = post(
            &backend,
            "/hexes/score",
            json!({"hexIds": [cell.to_string(), bad]})
                .to_string()
                .into_bytes(),
        );
        assert_eq!(status, StatusCode::BAD_REQUEST, "{answer}");
        assert_eq!(answer["details"]["index"], 1);
    }
}
