use super::*;
use crate::artifact::fixture::CityFixture;
use crate::operations::options::default_week;
use crate::scoring::{CityScores, ScoringParams};

fn atlas() -> Atlas {
    Atlas::new(alloc::vec![CityModel::from_artifact(
        CityFixture::default().build()
    )])
}

/// 2021-12-22 12:00 UTC, inside the sample's first week.
const NOW: i64 = 1_640_174_400;

fn scoring(json: &str) -> Result<Scoring, QueryError> {
    let query: ScoringQuery = serde_json::from_str(json).unwrap();
    let atlas = atlas();
    query.resolve(&atlas.cities()[0], NOW)
}

#[test]
fn scoring_options_resolve_or_name_the_field() {
    let all = scoring("{}").unwrap();
    assert_eq!(all.params, ScoringParams::default());
    assert_eq!(all.week, 0);
    let err = scoring(r#"{"intent":"flying"}"#).unwrap_err();
    assert_eq!(
        (err.code, err.field.as_str()),
        (ErrorCode::InvalidRequest, "intent")
    );
    let err = scoring(r#"{"activeCodes":["OTHER","NOPE"]}"#).unwrap_err();
    assert_eq!((err.field.as_str(), err.index), ("activeCodes", Some(1)));
    assert!(err.message.contains("NOPE"));
    assert!(scoring(r#"{"activeCodes":[]}"#).is_err());
    assert!(scoring(r#"{"activeCodes":["NO_CRIME"]}"#).is_err());
    let night = scoring(
        r#"{"intent":"night","activeCodes":["OTHER","SERIOUS_VIOLENT"],"toggles":{"OTHER":false}}"#,
    )
    .unwrap();
    assert_eq!(night.params.intent, Intent::Night);
    assert_eq!(night.params.active, [false, false, false, true, false]);
    assert!(scoring(r#"{"toggles":{"BOGUS":true}}"#).is_err());
    let weighted = scoring(r#"{"modifiers":{"classWeights":{"VEHICLE_DAMAGE":2.5}}}"#).unwrap();
    assert_eq!(weighted.params.overrides, [1.0, 1.0, 2.5, 1.0, 1.0]);
    let err = scoring(r#"{"modifiers":{"classWeights":{"OTHER":11}}}"#).unwrap_err();
    assert_eq!(err.field, "modifiers.classWeights");
    assert_eq!(
        scoring(r#"{"modifiers":{"week":"2021-12-29"}}"#)
            .unwrap()
            .week,
        1
    );
    let err = scoring(r#"{"modifiers":{"week":"2030-01-07"}}"#).unwrap_err();
    assert_eq!(err.code, ErrorCode::DateOutOfRange);
    let err = scoring(r#"{"modifiers":{"week":"next week"}}"#).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidRequest);
}

#[test]
fn a_time_scores_its_band_and_night_the_nights() {
    use crate::forecast::{Band, DayKind, TimeWindow};
    let atlas = atlas();
    let city = &atlas.cities()[0];
    // Friday 2021-12-31 23:00 local: the weekend's first band, in week 1.
    let at = scoring(r#"{"modifiers":{"time":"2021-12-31T23:00:00"}}"#).unwrap();
    let friday_night = TimeWindow::Band(Band {
        kind: DayKind::Weekend,
        position: 0,
    });
    assert_eq!((at.week, at.params.window), (1, friday_night));
    // The same band as an hour of the week (Friday 23:00 = 4 × 24 + 23), in the
    // week the options choose.
    let hour = scoring(r#"{"modifiers":{"time":119,"week":"2021-12-29"}}"#).unwrap();
    assert_eq!((hour.week, hour.params.window), (1, friday_night));
    // Harm weighs the band's expected counts.
    let scores = CityScores::compute(city, at.week, &at.params);
    let weights = at.params.class_weights();
    for position in 0..city.cell_count() {
        let rates = city.window_rates(position, at.week, at.params.window);
        let harm: f64 = weights.iter().zip(rates).map(|(w, r)| w * r).sum();
        assert!((scores.harm(position) - harm).abs() < 1e-12);
        assert!(harm < CityScores::compute(city, 1, &ScoringParams::default()).harm(position));
    }
    // Night: every class at its severity, over the nights' expected counts.
    let night = scoring(r#"{"intent":"night"}"#).unwrap();
    assert_eq!(night.params.window, TimeWindow::Nights);
    assert_eq!(
        night.params.class_weights(),
        ScoringParams::default().class_weights()
    );
    let nights = city.window_rates(0, 0, TimeWindow::Nights);
    let week = city.rates(0, 0);
    assert!(nights.iter().zip(week).all(|(n, w)| *n > 0.0 && *n < w));
    // Errors name the field.
    for (json, code) in [
        (r#"{"modifiers":{"time":168}}"#, ErrorCode::InvalidRequest),
        (r#"{"modifiers":{"time":-1}}"#, ErrorCode::InvalidRequest),
        (
            r#"{"modifiers":{"time":"tonight"}}"#,
            ErrorCode::InvalidRequest,
        ),
        (
            r#"{"modifiers":{"time":"2030-01-04T23:00:00"}}"#,
            ErrorCode::DateOutOfRange,
        ),
        (
            r#"{"modifiers":{"time":"2021-12-31T23:00:00","week":"2021-12-29"}}"#,
            ErrorCode::InvalidRequest,
        ),
    ] {
        let err = scoring(json).unwrap_err();
        assert_eq!(
            (err.code, err.field.as_str()),
            (code, "modifiers.time"),
            "{json}"
        );
    }
}

#[test]
fn the_default_week_is_clamped_into_the_forecasts() {
    let model = CityModel::from_artifact(CityFixture::default().build());
    assert_eq!(default_week(&model, NOW), 0);
    assert_eq!(default_week(&model, NOW + 8 * 86_400), 1);
    assert_eq!(default_week(&model, NOW + 400 * 86_400), 2);
    assert_eq!(default_week(&model, NOW - 400 * 86_400), 0);
}

fn route_json(json: &str) -> Result<serde_json::Value, QueryError> {
    let query: RouteQuery = serde_json::from_str(json).unwrap();
    route(&atlas(), &query, NOW).map(|r| serde_json::to_value(&r).unwrap())
}

#[test]
fn routes_answer_in_the_api_shape_and_refuse_bad_points() {
    let ok = route_json(
        r#"{"origin":{"lat":43.6501,"lng":-79.3795},"destination":{"lat":43.6504,"lng":-79.3790},"intent":"walking"}"#,
    )
    .unwrap();
    assert_eq!(ok["city"], "city_ca_tor");
    assert_eq!(ok["weekOf"], "2021-12-20");
    assert_eq!(ok["network"], "roads");
    assert_eq!(ok["method"], "safest");
    assert_eq!(ok["best"]["geometry"]["type"], "LineString");
    assert_eq!(ok["hexPath"], ok["best"]["hexPath"]);
    assert!(
        !ok["best"]["hexPathWithTiers"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    assert_eq!(ok["best"]["metrics"]["mode"], "walking");
    assert!(ok["alternatives"].as_array().unwrap().is_empty());

    let err =
        route_json(r#"{"origin":{"lat":95,"lng":0},"destination":{"lat":0,"lng":0}}"#).unwrap_err();
    assert_eq!(
        (err.code, err.field.as_str()),
        (ErrorCode::InvalidCoordinates, "origin")
    );
    let err = route_json(
        r#"{"origin":{"lat":43.6501,"lng":-79.3795},"destination":{"lat":10,"lng":10}}"#,
    )
    .unwrap_err();
    assert_eq!(
        (err.code, err.field.as_str()),
        (ErrorCode::LocationNotCovered, "destination")
    );
    let err = route_json(r#"{"origin":{"lat":43.6501,"lng":-79.3795},"destination":{"lat":43.6504,"lng":-79.3790},"method":"fastest"}"#).unwrap_err();
    assert_eq!(err.field, "method");
    let err = route_json(r#"{"origin":{"lat":43.6501,"lng":-79.3795},"destination":{"lat":43.6504,"lng":-79.3790},"alternatives":4}"#).unwrap_err();
    assert_eq!(err.field, "alternatives");
    let err = route_json(r#"{"origin":{"lat":43.6501,"lng":-79.3795},"destination":{"lat":43.6504,"lng":-79.3790},"mode":"flying"}"#).unwrap_err();
    assert_eq!(err.field, "mode");
}

#[test]
fn a_departure_time_is_echoed_with_its_bands_or_refused_by_name() {
    let trip =
        r#""origin":{"lat":43.6501,"lng":-79.3795},"destination":{"lat":43.6504,"lng":-79.3790}"#;
    let with = |extra: &str| route_json(&format!("{{{trip},{extra}}}"));
    let hour = with(r#""departAt":119"#).unwrap();
    assert_eq!(hour["departAt"]["hourOfWeek"], 119.0);
    assert_eq!(hour["departAt"]["speedKmh"], 5.0);
    let first = &hour["departAt"]["bands"][0];
    assert_eq!(first["weekOf"], "2021-12-20");
    assert_eq!(hour["timeWindow"], first["timeWindow"]);
    // The same moment as a local time: the same route and scores.
    let local = with(r#""departAt":"2021-12-24T23:00:00""#).unwrap();
    assert_eq!(local, hour);
    // An instant: 04:00 UTC is 23:00 in Toronto the evening before.
    let instant = with(r#""departAt":"2021-12-25T04:00:00Z""#).unwrap();
    assert_eq!(instant, hour);
    let minutes = with(r#""departAt":"2021-12-24T21:59:30""#).unwrap();
    let expected = 4.0 * 24.0 + 21.0 + 59.5 / 60.0;
    assert!((minutes["departAt"]["hourOfWeek"].as_f64().unwrap() - expected).abs() < 1e-9);
    // Without departAt the answer has no such member.
    assert!(
        with(r#""mode":"walking""#)
            .unwrap()
            .get("departAt")
            .is_none()
    );
    for (extra, code) in [
        (r#""departAt":168"#, ErrorCode::InvalidRequest),
        (r#""departAt":-1"#, ErrorCode::InvalidRequest),
        (r#""departAt":"soon""#, ErrorCode::InvalidRequest),
        (
            r#""departAt":"2030-01-04T23:00:00""#,
            ErrorCode::DateOutOfRange,
        ),
        (
            r#""departAt":119,"modifiers":{"time":119}"#,
            ErrorCode::InvalidRequest,
        ),
        (
            r#""departAt":"2021-12-24T23:00:00","modifiers":{"week":"2021-12-20"}"#,
            ErrorCode::InvalidRequest,
        ),
    ] {
        let err = with(extra).unwrap_err();
        assert_eq!(
            (err.code, err.field.as_str()),
            (code, "departAt"),
            "{extra}"
        );
    }
}

fn evaluate_json(json: &str) -> Result<serde_json::Value, QueryError> {
    let query: EvaluateQuery = serde_json::from_str(json).unwrap();
    evaluate(&atlas(), &query, NOW).map(|r| serde_json::to_value(&r).unwrap())
}

#[test]
fn lines_are_checked_position_by_position() {
    let ok = evaluate_json(
        r#"{"geometry":{"type":"LineString","coordinates":[[-79.3795,43.6501],[-79.3790,43.6504,12.0]]}}"#,
    )
    .unwrap();
    assert!(ok["metrics"]["distanceM"].as_f64().unwrap() > 0.0);
    assert_eq!(
        ok["hexPath"].as_array().unwrap().len(),
        ok["metrics"]["cellCount"].as_u64().unwrap() as usize
    );
    let err =
        evaluate_json(r#"{"geometry":{"type":"Point","coordinates":[[0,0],[1,1]]}}"#).unwrap_err();
    assert_eq!(err.field, "geometry");
    let err =
        evaluate_json(r#"{"geometry":{"type":"LineString","coordinates":[[0,0]]}}"#).unwrap_err();
    assert!(err.message.contains("2 to"));
    let err = evaluate_json(
        r#"{"geometry":{"type":"LineString","coordinates":[[-79.3795,43.6501],[1]]}}"#,
    )
    .unwrap_err();
    assert_eq!(err.index, Some(1));
    let err = evaluate_json(
        r#"{"geometry":{"type":"LineString","coordinates":[[-79.3795,43.6501],[0,95]]}}"#,
    )
    .unwrap_err();
    assert_eq!(
        (err.code, err.index),
        (ErrorCode::InvalidCoordinates, Some(1))
    );
    let err =
        evaluate_json(r#"{"geometry":{"type":"LineString","coordinates":[[10,10],[10.1,10]]}}"#)
            .unwrap_err();
    assert_eq!(err.code, ErrorCode::LocationNotCovered);
    let err = evaluate_json(
        r#"{"geometry":{"type":"LineString","coordinates":[[-79.38,43.65],[-76.0,43.65]]}}"#,
    )
    .unwrap_err();
    assert!(err.message.contains("200 km"));
}

#[test]
fn hex_paths_are_checked_cell_by_cell() {
    let model = CityModel::from_artifact(CityFixture::default().build());
    let first = model.cell(0).unwrap();
    let next = crate::grid::disk(first, 1).unwrap()[1];
    let far = crate::grid::disk(first, 3).unwrap()[30];
    let run = |path: &[String]| {
        let query = HexPathQuery {
            hex_path: path.to_vec(),
            mode: None,
            scoring: ScoringQuery::default(),
        };
        evaluate_hex_path(&atlas(), &query, NOW)
    };
    let ok = run(&[first.to_string(), next.to_string()]).unwrap();
    assert_eq!(ok.evaluation.hex_path, [first, next]);
    let err = run(&[first.to_string(), "zz".into()]).unwrap_err();
    assert_eq!((err.field.as_str(), err.index), ("hexPath", Some(1)));
    let err = run(&[first.to_string(), next.to_string(), far.to_string()]).unwrap_err();
    assert_eq!(err.index, Some(2));
    assert!(err.message.contains("gap"));
    assert!(run(&[]).is_err());
    let outside = crate::grid::cell_at(10.0, 10.0).unwrap();
    assert_eq!(
        run(&[outside.to_string()]).unwrap_err().code,
        ErrorCode::LocationNotCovered
    );
}
