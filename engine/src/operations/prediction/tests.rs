//! The prediction API's operations on the small Toronto of the shared fixtures.

use alloc::borrow::ToOwned;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

use serde_json::{Map, Value, json};

use super::{MAX_BATCH_LOCATIONS, MAX_ROUTE_KM, MAX_WAYPOINTS, QueryError};
use crate::artifact::fixture::CityFixture;
use crate::city::{Atlas, CityModel};
use crate::grid;
use crate::operations::ErrorCode;

/// The small Toronto, without roads: a line's exposure is its cells'.
fn atlas() -> Atlas {
    Atlas::new(vec![CityModel::from_artifact(
        CityFixture::small_toronto().without_roads().build(),
    )])
}

/// The clock of the tests: a Wednesday in the second forecast week.
fn now() -> i64 {
    chrono::DateTime::parse_from_rfc3339("2022-01-05T12:00:00Z")
        .unwrap()
        .timestamp()
}

/// A JSON object literal as the body map the operations take.
fn body(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

/// The operations under test, answering JSON values as both APIs send them: the
/// assertions read the answers as a client does.
mod as_sent {
    use serde_json::{Map, Value};

    use crate::city::Atlas;
    use crate::operations::{QueryError, prediction as operations};

    fn sent(answer: impl serde::Serialize) -> Value {
        serde_json::to_value(answer).expect("answers serialise")
    }

    pub(super) fn predict(
        a: &Atlas,
        b: &Map<String, Value>,
        now: i64,
    ) -> Result<Value, QueryError> {
        operations::predict(a, b, now).map(sent)
    }

    pub(super) fn predict_batch(
        a: &Atlas,
        b: &Map<String, Value>,
        now: i64,
    ) -> Result<Value, QueryError> {
        operations::predict_batch(a, b, now).map(sent)
    }

    pub(super) fn route_risk(
        a: &Atlas,
        b: &Map<String, Value>,
        now: i64,
    ) -> Result<Value, QueryError> {
        operations::route_risk(a, b, now).map(sent)
    }

    pub(super) fn cities(a: &Atlas, now: i64) -> Value {
        sent(operations::cities(a, now))
    }

    pub(super) fn coverage(a: &Atlas, p: &Map<String, Value>) -> Result<Value, QueryError> {
        operations::coverage(a, p).map(sent)
    }

    pub(super) fn classes() -> Value {
        sent(operations::classes())
    }

    pub(super) fn prediction_range(
        a: &Atlas,
        p: &Map<String, Value>,
        now: i64,
    ) -> Result<Value, QueryError> {
        operations::prediction_range(a, p, now).map(sent)
    }
}
use as_sent::*;

/// An error's `details`, as both APIs send them.
fn details(err: &QueryError) -> Value {
    Value::Object(err.details())
}

#[test]
fn point_prediction_has_every_specified_field() {
    let out = predict(
        &atlas(),
        &body(json!({"latitude": 43.6534, "longitude": -79.3841})),
        now(),
    )
    .unwrap();
    assert_eq!(out["status"], "success");
    assert_eq!(
        out["city"],
        json!({"code": "city_ca_tor", "name": "Toronto"})
    );
    assert_eq!(
        out["location"]["cell_id"],
        grid::cell_at(43.6534, -79.3841).unwrap().to_string()
    );
    assert!(out["location"]["grid_center"]["latitude"].is_f64());
    let p = &out["prediction"];
    assert_eq!(p["week_of"], "2022-01-03");
    assert_eq!(p["datetime"], "2022-01-05T12:00:00Z");
    let probs = p["probabilities"].as_object().unwrap();
    assert_eq!(probs.len(), 6);
    let sum: f64 = probs.values().map(|v| v.as_f64().unwrap()).sum();
    assert!((sum - 1.0).abs() < 1e-12);
    let dominant = p["dominant_type"].as_str().unwrap();
    assert_eq!(p["confidence"], probs[dominant]);
    assert!(["LOW", "MODERATE", "HIGH", "VERY_HIGH"].contains(&p["risk_level"].as_str().unwrap()));
    assert_eq!(
        out["model_info"],
        json!({"version": "test-model", "mae": 0.5, "last_updated": "2021-12-26"})
    );
}

#[test]
fn weeks_follow_the_datetime_in_local_time() {
    let at = |dt: &str| {
        let out = predict(
            &atlas(),
            &body(json!({"latitude": 43.6534, "longitude": -79.3841, "datetime": dt})),
            now(),
        )
        .unwrap();
        out["prediction"]["week_of"].as_str().unwrap().to_owned()
    };
    // Monday 04:30 UTC is Sunday night in Toronto.
    assert_eq!(at("2022-01-10T04:30:00Z"), "2022-01-03");
    assert_eq!(at("2022-01-10T05:30:00Z"), "2022-01-10");
    assert_eq!(at("2022-01-10"), "2022-01-10");
    let err = predict(
        &atlas(),
        &body(json!({"latitude": 43.6534, "longitude": -79.3841, "datetime": "2023-06-01"})),
        now(),
    )
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::DateOutOfRange);
    assert_eq!(
        details(&err)["valid_range"],
        json!(["2021-12-27", "2022-01-23"])
    );
}

#[test]
fn a_datetime_adds_the_forecast_of_its_time_band() {
    let at = |dt: &str| {
        predict(
            &atlas(),
            &body(json!({"latitude": 43.6534, "longitude": -79.3841, "datetime": dt})),
            now(),
        )
        .unwrap()["prediction"]
            .clone()
    };
    // Friday 2022-01-07 23:30 in Toronto (04:30 UTC on Saturday): the weekend's first
    // band, from Friday 22:00 to Saturday 02:00 local time.
    let late = at("2022-01-08T04:30:00Z");
    let band = &late["time_of_day"];
    assert_eq!(band["band"], "weekend 22:00-02:00");
    assert_eq!(band["day_type"], "weekend");
    assert_eq!(band["start"], "2022-01-07T22:00:00-05:00");
    assert_eq!(band["end"], "2022-01-08T02:00:00-05:00");
    assert_eq!(band["profile"]["THEFT_BURGLARY"], "cells");
    // The same local time written without an offset is the same band.
    assert_eq!(at("2022-01-07T23:30:00")["time_of_day"], *band);
    // The week's fields keep their weekly meaning.
    assert_eq!(late["week_of"], "2022-01-03");
    assert_eq!(
        late["probabilities"],
        at("2022-01-05T12:00:00Z")["probabilities"]
    );
    // A few hours hold fewer incidents than the week: more chance of none.
    let quiet = |p: &Value| p["probabilities"]["NO_CRIME"].as_f64().unwrap();
    assert!(quiet(band) > quiet(&late));
    // Bands differ through the day as the profile does (busier later in the fixture).
    let morning = at("2022-01-05T08:00:00-05:00");
    let evening = at("2022-01-05T20:00:00-05:00");
    assert_eq!(morning["time_of_day"]["band"], "weekday 06:00-10:00");
    assert!(quiet(&evening["time_of_day"]) < quiet(&morning["time_of_day"]));
    // Without a datetime the answer is the week's alone.
    let plain = predict(
        &atlas(),
        &body(json!({"latitude": 43.6534, "longitude": -79.3841})),
        now(),
    )
    .unwrap();
    assert!(plain["prediction"].get("time_of_day").is_none());
    // Batch items carry it too.
    let batch = predict_batch(
        &atlas(),
        &body(json!({
            "locations": [{"latitude": 43.6534, "longitude": -79.3841}],
            "datetime": "2022-01-08T04:30:00Z",
        })),
        now(),
    )
    .unwrap();
    assert_eq!(batch["results"][0]["prediction"]["time_of_day"], *band);
}

#[test]
fn point_errors_use_the_specified_codes() {
    let call = |v: Value| predict(&atlas(), &body(v), now()).unwrap_err();
    let err = call(json!({"latitude": 51.5, "longitude": -0.12}));
    assert_eq!(err.code, ErrorCode::LocationNotCovered);
    assert_eq!(
        (
            details(&err)["latitude"].clone(),
            details(&err)["longitude"].clone()
        ),
        (json!(51.5), json!(-0.12))
    );
    assert!(
        details(&err)["suggestion"]
            .as_str()
            .unwrap()
            .contains("/v1/cities")
    );
    assert_eq!(
        call(json!({"latitude": 100, "longitude": 0})).code,
        ErrorCode::InvalidCoordinates
    );
    assert_eq!(
        call(json!({"longitude": 0})).code,
        ErrorCode::InvalidRequest
    );
    assert_eq!(
        call(json!({"latitude": 43.65, "longitude": -79.38, "datetime": "nope"})).code,
        ErrorCode::InvalidRequest
    );
    // Outside the range when no datetime is sent and the clock is past it.
    let late = chrono::DateTime::parse_from_rfc3339("2023-01-01T00:00:00Z")
        .unwrap()
        .timestamp();
    let err = predict(
        &atlas(),
        &body(json!({"latitude": 43.6534, "longitude": -79.3841})),
        late,
    )
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::DateOutOfRange);
}

#[test]
fn batches_keep_order_and_report_failures_in_place() {
    let out = predict_batch(
        &atlas(),
        &body(json!({"locations": [
            {"latitude": 43.6534, "longitude": -79.3841},
            {"latitude": 51.5, "longitude": -0.12},
            {"latitude": 95, "longitude": 0},
            "nonsense",
            {"latitude": 43.655, "longitude": -79.38},
        ]})),
        now(),
    )
    .unwrap();
    let results = out["results"].as_array().unwrap();
    let statuses: Vec<&str> = results
        .iter()
        .map(|r| r["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["success", "error", "error", "error", "success"]);
    for (i, r) in results.iter().enumerate() {
        assert_eq!(r["index"], i);
    }
    assert_eq!(results[0]["city"], "city_ca_tor");
    assert!(results[0]["location"].get("grid_center").is_none());
    assert!(results[0]["prediction"].get("confidence").is_none());
    assert_eq!(results[1]["code"], "LOCATION_NOT_COVERED");
    assert_eq!(results[2]["code"], "INVALID_COORDINATES");
    assert_eq!(results[2]["details"]["field"], "locations[2].latitude");
    assert_eq!(results[3]["code"], "INVALID_REQUEST");
    assert_eq!(
        out["summary"],
        json!({"total": 5, "successful": 2, "failed": 3})
    );
}

#[test]
fn batch_limits() {
    let err = predict_batch(&atlas(), &body(json!({"locations": []})), now()).unwrap_err();
    assert_eq!(
        (err.code, details(&err)["field"].as_str()),
        (ErrorCode::InvalidRequest, Some("locations"))
    );
    let many: Vec<Value> = (0..=MAX_BATCH_LOCATIONS)
        .map(|_| json!({"latitude": 43.65, "longitude": -79.38}))
        .collect();
    let err = predict_batch(&atlas(), &body(json!({ "locations": many })), now()).unwrap_err();
    assert_eq!(details(&err)["limit"], MAX_BATCH_LOCATIONS);
    let err = predict_batch(&atlas(), &body(json!({"locations": {}})), now()).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidRequest);
}

#[test]
fn route_risk_scores_every_segment() {
    let waypoints = json!([
        {"latitude": 43.6534, "longitude": -79.3841},
        {"latitude": 43.6580, "longitude": -79.3800},
        {"latitude": 43.6600, "longitude": -79.3700},
    ]);
    let out = route_risk(&atlas(), &body(json!({ "waypoints": waypoints })), now()).unwrap();
    assert_eq!(out["route"]["total_waypoints"], 3);
    assert_eq!(out["route"]["total_segments"], 2);
    let segments = out["segments"].as_array().unwrap();
    assert_eq!(segments.len(), 2);
    let total: f64 = segments
        .iter()
        .map(|s| s["distance_km"].as_f64().unwrap())
        .sum();
    assert!((total - out["route"]["total_distance_km"].as_f64().unwrap()).abs() < 1e-12);
    for s in segments {
        let score = s["risk_score"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&score));
        assert!(s["start"]["cell_id"].is_string());
    }
    // Expected incidents on each segment's streets, as any line is evaluated, and
    // their sum for the route.
    let expected: Vec<f64> = segments
        .iter()
        .map(|s| s["expected_incidents"].as_f64().unwrap())
        .collect();
    assert!(expected.iter().all(|&e| e > 0.0), "{expected:?}");
    let total = out["route"]["total_expected_incidents"].as_f64().unwrap();
    assert!((total - expected.iter().sum::<f64>()).abs() < 1e-12);
    let atlas = atlas();
    let city = &atlas.cities()[0];
    let week = crate::operations::options::default_week(city, now());
    let scores =
        crate::scoring::CityScores::compute(city, week, &crate::scoring::ScoringParams::default());
    let first = [(43.6534, -79.3841), (43.6580, -79.3800)]
        .map(|(lat, lng)| h3o::LatLng::new(lat, lng).unwrap());
    // The test city's network is a hex lattice: no streets to match, so the line's
    // exposure is the corridor's, cell by cell.
    assert!(crate::plan::line_exposure(city, &scores, &first).is_none());
    let alone =
        crate::corridor::evaluate_line(city, &scores, &first, crate::corridor::TravelMode::Walking)
            .metrics
            .exposure;
    assert!(
        (expected[0] - alone).abs() <= 1e-12 * alone,
        "{} against {alone}",
        expected[0]
    );
    // The first segment starts in the busiest cell, so it is the riskiest.
    assert_eq!(out["recommendations"]["highest_risk_segment"], 0);
    assert_eq!(out["recommendations"]["safest_segment"], 1);
    assert!(out["recommendations"]["caution_areas"].is_array());
}

#[test]
fn a_departure_time_scores_each_cell_when_the_traveller_reaches_it() {
    let waypoints = json!([
        {"latitude": 43.6534, "longitude": -79.3841},
        {"latitude": 43.6580, "longitude": -79.3800},
        {"latitude": 43.6600, "longitude": -79.3700},
    ]);
    let at = |depart: &str, mode: &str, points: &Value| {
        route_risk(
            &atlas(),
            &body(json!({"waypoints": points, "departure_time": depart, "travel_mode": mode})),
            now(),
        )
        .unwrap()
    };
    let score = |out: &Value, i: usize| out["segments"][i]["risk_score"].as_f64().unwrap();
    // Leaving at 21:55 on foot, the second segment is reached after the first's length
    // at 5 km/h, past 22:00 (another band); scored alone, departing then, it scores
    // the same.
    let walked = at("2022-01-05T21:55:00", "walking", &waypoints);
    let first_km = walked["segments"][0]["distance_km"].as_f64().unwrap();
    let later = chrono::NaiveDateTime::parse_from_str("2022-01-05T21:55:00", "%Y-%m-%dT%H:%M:%S")
        .unwrap()
        + chrono::Duration::seconds((first_km * 1000.0 / (5.0 / 3.6)).round() as i64);
    assert!(later.format("%H:%M").to_string().as_str() > "22:00");
    let alone = at(
        &later.format("%Y-%m-%dT%H:%M:%S").to_string(),
        "walking",
        &json!([waypoints[1], waypoints[2]]),
    );
    assert!((score(&walked, 1) - score(&alone, 0)).abs() < 1e-12);
    assert_eq!(walked["route"]["travel_mode"], "walking");
    assert_eq!(walked["route"]["speed_kmh"], 5.0);
    // A single point's risk is its cell's band forecast at that time (`/v1/predict`).
    let here = json!({"latitude": 43.6534, "longitude": -79.3841});
    let point = at("2022-01-05T23:00:00", "walking", &json!([here, here]));
    let predicted = predict(
        &atlas(),
        &body(
            json!({"latitude": 43.6534, "longitude": -79.3841, "datetime": "2022-01-05T23:00:00"}),
        ),
        now(),
    )
    .unwrap();
    let band_no_crime = predicted["prediction"]["time_of_day"]["probabilities"]["NO_CRIME"]
        .as_f64()
        .unwrap();
    assert!((score(&point, 0) - (1.0 - band_no_crime)).abs() < 1e-12);
    // The fixture's evening bands are busier than its mornings.
    let morning = at("2022-01-05T07:00:00", "walking", &waypoints);
    assert!(score(&morning, 0) < score(&walked, 0));
    // Without a departure time the week is scored.
    let weekly = route_risk(&atlas(), &body(json!({"waypoints": waypoints})), now()).unwrap();
    assert!(weekly["route"].get("travel_mode").is_none());
    assert!(score(&weekly, 0) > score(&walked, 0));
}

#[test]
fn departure_time_errors_name_their_field() {
    let waypoints = json!([
        {"latitude": 43.6534, "longitude": -79.3841},
        {"latitude": 43.6580, "longitude": -79.3800},
    ]);
    let err = |extra: Value| {
        let mut request = body(json!({"waypoints": waypoints}));
        request.extend(body(extra));
        route_risk(&atlas(), &request, now()).unwrap_err()
    };
    let both = err(json!({"datetime": "2022-01-05", "departure_time": "2022-01-05T10:00:00"}));
    assert_eq!(
        (both.code, &details(&both)["field"]),
        (ErrorCode::InvalidRequest, &json!("departure_time"))
    );
    let malformed = err(json!({"departure_time": "10 pm"}));
    assert_eq!(
        (malformed.code, &details(&malformed)["field"]),
        (ErrorCode::InvalidRequest, &json!("departure_time"))
    );
    let mode = err(json!({"departure_time": "2022-01-05T10:00:00", "travel_mode": "flying"}));
    assert_eq!(
        (mode.code, &details(&mode)["field"]),
        (ErrorCode::InvalidRequest, &json!("travel_mode"))
    );
    let late = err(json!({"departure_time": "2023-06-01T10:00:00"}));
    assert_eq!(
        (late.code, &details(&late)["field"]),
        (ErrorCode::DateOutOfRange, &json!("departure_time"))
    );
}

#[test]
fn route_risk_limits_and_errors() {
    let one = json!({"waypoints": [{"latitude": 43.65, "longitude": -79.38}]});
    assert_eq!(
        route_risk(&atlas(), &body(one), now())
            .unwrap_err()
            .details()["field"],
        "waypoints"
    );
    let far = json!({"waypoints": [{"latitude": 43.65, "longitude": -79.38}, {"latitude": 45.5, "longitude": -73.6}]});
    assert_eq!(
        route_risk(&atlas(), &body(far), now())
            .unwrap_err()
            .details()["limit"],
        MAX_ROUTE_KM
    );
    let outside = json!({"waypoints": [{"latitude": 51.5, "longitude": -0.12}, {"latitude": 51.51, "longitude": -0.12}]});
    assert_eq!(
        route_risk(&atlas(), &body(outside), now())
            .unwrap_err()
            .code,
        ErrorCode::LocationNotCovered
    );
    let many: Vec<Value> = (0..=MAX_WAYPOINTS)
        .map(|_| json!({"latitude": 43.65, "longitude": -79.38}))
        .collect();
    assert_eq!(
        route_risk(&atlas(), &body(json!({ "waypoints": many })), now())
            .unwrap_err()
            .details()["limit"],
        MAX_WAYPOINTS
    );
}

#[test]
fn cities_coverage_classes_and_range() {
    let atlas = atlas();
    let out = cities(&atlas, now());
    assert_eq!(out["total"], 1);
    let city = &out["cities"][0];
    assert_eq!(city["status"], "active");
    assert_eq!(
        city["prediction_range"],
        json!({"start": "2021-12-27", "end": "2022-01-23"})
    );
    assert_eq!(city["grid_cells"], 37);
    let one = coverage(&atlas, &body(json!({"city": "city_ca_tor"}))).unwrap();
    assert_eq!(
        (
            one["status"].clone(),
            one["spatial_system"].clone(),
            one["h3_resolution"].clone()
        ),
        (json!("success"), json!("H3"), json!(8))
    );
    assert!((one["cell_size_km2"].as_f64().unwrap() - 0.737).abs() < 0.001);
    let all = coverage(&atlas, &Map::new()).unwrap();
    assert_eq!(all["coverage"].as_array().unwrap().len(), 1);
    let err = coverage(&atlas, &body(json!({"city": "city_xx_nowhere"}))).unwrap_err();
    assert_eq!(details(&err)["valid_values"], json!(["city_ca_tor"]));
    let err = coverage(&atlas, &body(json!({"city": 7}))).unwrap_err();
    assert_eq!(
        (err.code, details(&err)["field"].clone()),
        (ErrorCode::InvalidRequest, json!("city"))
    );
    assert_eq!(classes()["classes"].as_array().unwrap().len(), 6);
    let range = prediction_range(
        &atlas,
        &body(json!({"latitude": "43.6534", "longitude": " -79.3841"})),
        now(),
    )
    .unwrap();
    assert_eq!(
        range["range"],
        json!({"start": "2021-12-27", "end": "2022-01-23", "weeks_available": 4})
    );
    assert_eq!(range["current_week"], "2022-01-03");
    assert_eq!(range["location"]["city"], "city_ca_tor");
    let err = prediction_range(
        &atlas,
        &body(json!({"latitude": 0, "longitude": "0"})),
        now(),
    )
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::LocationNotCovered);
    // Query-string coordinates fail as body coordinates do.
    let err = |params: Value| prediction_range(&atlas, &body(params), now()).unwrap_err();
    let text = err(json!({"latitude": "abc", "longitude": "1"}));
    assert_eq!(
        (text.code, details(&text)["value"].clone()),
        (ErrorCode::InvalidCoordinates, json!("abc"))
    );
    assert_eq!(
        err(json!({"longitude": "1"})).code,
        ErrorCode::InvalidRequest
    );
    assert_eq!(
        err(json!({"latitude": "95", "longitude": "1"})).message,
        "latitude must be between -90 and 90"
    );
}

/// Each request type, as the OpenAPI document describes it, is what its operation
/// reads: an instance sent as JSON is answered, every optional field given.
#[test]
fn the_request_types_are_what_the_operations_read() {
    use super::{BatchRequest, CoverageQuery, Point, PredictRequest, RangeQuery, RouteRiskRequest};
    use crate::corridor::TravelMode;

    let sent = |request: &dyn erased::Request| body(request.json());
    let atlas = atlas();
    let city = &atlas.cities()[0];
    let (latitude, longitude) = (43.6534, -79.3841);
    let point = Point {
        latitude,
        longitude,
    };
    let datetime = Some("2022-01-05T10:00:00Z".to_owned());
    let predict = PredictRequest {
        latitude,
        longitude,
        datetime: datetime.clone(),
    };
    assert!(super::predict(&atlas, &sent(&predict), now()).is_ok());
    let batch = BatchRequest {
        locations: vec![point, point],
        datetime: datetime.clone(),
    };
    assert!(super::predict_batch(&atlas, &sent(&batch), now()).is_ok());
    let by_week = RouteRiskRequest {
        waypoints: vec![point, point],
        datetime,
        departure_time: None,
        travel_mode: None,
    };
    assert!(super::route_risk(&atlas, &sent(&by_week), now()).is_ok());
    let by_departure = RouteRiskRequest {
        datetime: None,
        departure_time: Some("2022-01-05T22:00:00".to_owned()),
        travel_mode: Some(TravelMode::Cycling),
        ..by_week
    };
    assert!(super::route_risk(&atlas, &sent(&by_departure), now()).is_ok());
    let coverage = CoverageQuery {
        city: Some(city.artifact().city.code.clone()),
    };
    assert!(super::coverage(&atlas, &sent(&coverage)).is_ok());
    let range = RangeQuery {
        latitude,
        longitude,
    };
    assert!(super::prediction_range(&atlas, &sent(&range), now()).is_ok());
}

/// Any request type as the JSON a client sends.
mod erased {
    pub(super) trait Request {
        fn json(&self) -> serde_json::Value;
    }

    impl<T: serde::Serialize> Request for T {
        fn json(&self) -> serde_json::Value {
            serde_json::to_value(self).expect("requests serialise")
        }
    }
}
