use super::*;
use crate::api::models::{CityStatus, Problem};
use serde_json::json;

fn status(problems: Vec<Problem>) -> ModelStatus {
    ModelStatus {
        manifest_version: "2021-12-26.0123456789ab".into(),
        cities: vec![CityStatus {
            code: "city_ca_tor".into(),
            version: "2021-12-26.abcdefabcdef".into(),
            serving: Some("2021-12-26.abcdefabcdef".into()),
            data_through: chrono::NaiveDate::from_ymd_opt(2021, 12, 26).unwrap(),
            cells: 815,
            precincts: 16,
            freshness: None,
        }],
        problems,
    }
}

fn healthy() -> ServiceHealth {
    ServiceHealth::new(Some(status(Vec::new())), true)
}

fn at() -> DateTime<Utc> {
    DateTime::from_timestamp_millis(1_767_225_600_123).unwrap()
}

#[test]
fn prediction_health_has_the_specified_fields() {
    let (status, body) = prediction_health(&healthy(), at(), at());
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["status"], "healthy");
    assert_eq!(body["version"], hexrisk_engine::VERSION);
    assert_eq!(body["timestamp"], "2026-01-01T00:00:00.123Z");
    for key in ["api", "models", "database"] {
        assert_eq!(body["services"][key], "healthy", "{key}");
    }
}

#[test]
fn an_unhealthy_component_turns_both_records_unhealthy() {
    for broken in [
        ServiceHealth::new(None, true),
        ServiceHealth::new(Some(status(Vec::new())), false),
    ] {
        let (status, body) = prediction_health(&broken, at(), at());
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(body["status"], "unhealthy");
        let (status, body) = router_health(&broken, at(), at());
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(body["status"], "unhealthy");
    }
}

#[test]
fn a_refused_version_is_degraded_with_the_city_and_reason() {
    let problem = Problem {
        city: Some("city_ca_tor".into()),
        version: Some("2022-01-02.ffffffffffff".into()),
        reason: "does not match its SHA-256".into(),
    };
    let degraded = ServiceHealth::new(Some(status(vec![problem])), true);
    let (code, body) = prediction_health(&degraded, at(), at());
    assert_eq!(
        (code, &body["status"]),
        (StatusCode::OK, &json!("degraded"))
    );
    assert_eq!(body["services"]["models"], "degraded");
    let (code, body) = router_health(&degraded, at(), at());
    assert_eq!(
        (code, &body["status"]),
        (StatusCode::OK, &json!("degraded"))
    );
    assert_eq!(
        body["models"]["problems"],
        json!([{"city": "city_ca_tor", "version": "2022-01-02.ffffffffffff", "reason": "does not match its SHA-256"}])
    );
}

#[test]
fn a_refused_version_with_nothing_older_is_unhealthy() {
    let problem = Problem {
        city: Some("city_ca_tor".into()),
        version: Some("2021-12-26.abcdefabcdef".into()),
        reason: "missing".into(),
    };
    let mut models = status(vec![problem]);
    models.cities[0].serving = None;
    let (code, body) = router_health(&ServiceHealth::new(Some(models), true), at(), at());
    assert_eq!(
        (code, &body["status"]),
        (StatusCode::SERVICE_UNAVAILABLE, &json!("unhealthy"))
    );
}

#[test]
fn router_health_reports_resolution_cities_and_versions() {
    let (_, body) = router_health(&healthy(), at(), at());
    assert_eq!(body["resolution"], 8);
    assert_eq!(body["coverage"]["cities"], json!(["city_ca_tor"]));
    assert_eq!(body["coverage"]["precincts"], 16);
    assert_eq!(body["coverage"]["cells"], 815);
    assert_eq!(body["models"]["version"], "2021-12-26.0123456789ab");
    assert_eq!(
        body["models"]["cities"][0]["version"],
        "2021-12-26.abcdefabcdef"
    );
    assert_eq!(body["models"]["cities"][0]["data_through"], "2021-12-26");
}

#[test]
fn a_fed_city_past_its_limit_or_with_a_failing_feed_is_degraded_and_says_why() {
    use hexrisk_engine::artifact::{DivergingFeed, FailingFeed, Freshness, UnmappedOffence};
    let with = |freshness: Option<Freshness>| {
        let mut model = status(vec![]);
        model.cities[0].freshness = freshness;
        ServiceHealth::new(Some(model), true)
    };
    let fresh = Freshness {
        diverging: vec![],
        failing: vec![],
        last_sync: Some("2022-01-02T06:00:00Z".into()),
        stale_after_days: 21,
        unmapped: vec![],
    };
    // Data through 2021-12-26: 21 days old on 2022-01-16, 22 on 2022-01-17.
    let day = |d: u32| {
        chrono::NaiveDate::from_ymd_opt(2022, 1, d)
            .unwrap()
            .and_hms_opt(12, 0, 0)
            .unwrap()
            .and_utc()
    };
    let (code, body) = router_health(&with(Some(fresh.clone())), day(16), day(16));
    assert_eq!((code, &body["status"]), (StatusCode::OK, &json!("healthy")));
    let record = &body["models"]["cities"][0]["freshness"];
    assert_eq!(record["age_days"], 21);
    assert_eq!(record["last_sync"], "2022-01-02T06:00:00Z");
    let (_, body) = router_health(&with(Some(fresh.clone())), day(17), day(17));
    assert_eq!(body["status"], "degraded");
    let lagging = body["models"]["cities"][0]["freshness"]["lagging"][0]
        .as_str()
        .unwrap();
    assert!(lagging.contains("22 days old"), "{lagging}");
    let (_, body) = prediction_health(&with(Some(fresh.clone())), day(17), day(17));
    assert_eq!(body["services"]["models"], "degraded");

    let failing = Freshness {
        failing: vec![FailingFeed {
            error: "source mci: HTTP 503".into(),
            since: "2022-01-09T06:00:00Z".into(),
            source: "mci".into(),
        }],
        ..fresh.clone()
    };
    let (_, body) = router_health(&with(Some(failing)), day(10), day(10));
    assert_eq!(body["status"], "degraded");
    assert_eq!(
        body["models"]["cities"][0]["freshness"]["failing"][0]["source"],
        "mci"
    );

    // A feed the reconciliation keeps repairing, and values no mapping names,
    // are shown to the operator; the data is whole, so health stays healthy.
    let watched = Freshness {
        diverging: vec![DivergingFeed {
            last_sync: 30,
            repaired: 41,
            source: "incidents".into(),
            syncs: 8,
            syncs_repairing: 3,
        }],
        unmapped: vec![UnmappedOffence {
            rows: 12,
            source: "incidents".into(),
            value: "Case Closure".into(),
        }],
        ..fresh
    };
    let (_, body) = router_health(&with(Some(watched)), day(16), day(16));
    assert_eq!(body["status"], "healthy");
    let record = &body["models"]["cities"][0]["freshness"];
    assert_eq!(
        record["diverging"][0],
        json!({"source": "incidents", "last_sync_repaired": 30, "repaired": 41,
               "syncs_repairing": 3, "syncs": 8})
    );
    assert_eq!(
        record["unmapped"][0],
        json!({"source": "incidents", "value": "Case Closure", "rows": 12})
    );

    // A city built from files only has no limit: old data is reported, not
    // degraded.
    let (_, body) = router_health(
        &with(None),
        day(17) + chrono::Days::new(3650),
        day(17) + chrono::Days::new(3650),
    );
    assert_eq!(body["status"], "healthy");
    assert_eq!(body["models"]["cities"][0]["freshness"]["fed"], false);
}
