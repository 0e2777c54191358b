//! Health records of both APIs.
//!
//! - Prediction API, `GET /v1/health`: `{status, version, timestamp, services: {api,
//!   models, database}}` as the specification shows.
//! - Router, `GET /health`: status and a coverage snapshot (see `docs/API.md`).
//!
//! Either answers HTTP 503 with `status: "unhealthy"` when a component fails, and
//! HTTP 200 otherwise: `status: "healthy"`, or `"degraded"` while a published model
//! version cannot be used and an older one serves. Load balancers need only the
//! status code; the router's record says which city and why.

use chrono::{DateTime, SecondsFormat, Utc};
use http::StatusCode;
use serde_json::{Value, json};

use hexrisk_engine::operations::RESOLUTION;

use crate::api::models::{CityStatus, ModelStatus};

/// Health of one component.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Component {
    /// Working.
    Healthy,
    /// Working on an older version than the one published (the models only).
    Degraded,
    /// Not working; requests that need it fail.
    Unhealthy,
}

impl Component {
    const fn as_str(self) -> &'static str {
        match self {
            Self::Healthy => "healthy",
            Self::Degraded => "degraded",
            Self::Unhealthy => "unhealthy",
        }
    }
}

/// What the Worker knows about its parts when a request arrives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServiceHealth {
    /// The request pipeline itself.
    pub api: Component,
    /// The model artifacts.
    pub models: Component,
    /// The key and quota store.
    pub database: Component,
    /// The model versions, when a manifest is in force.
    pub model_status: Option<ModelStatus>,
}

impl ServiceHealth {
    /// Health from the model store's status (`None` when it has no manifest) and
    /// whether the key store answers.
    #[must_use]
    pub fn new(model_status: Option<ModelStatus>, database: bool) -> Self {
        let models = match &model_status {
            None => Component::Unhealthy,
            // A refused version with no older one to serve: that city fails.
            Some(status) if status.problems.iter().any(|p| unservable(status, p)) => {
                Component::Unhealthy
            }
            Some(status) if !status.problems.is_empty() => Component::Degraded,
            Some(_) => Component::Healthy,
        };
        Self {
            api: Component::Healthy,
            models,
            database: if database {
                Component::Healthy
            } else {
                Component::Unhealthy
            },
            model_status,
        }
    }

    /// The models' health with data ages counted to `as_of`: a fed city whose
    /// data is stale or whose feed fails makes working models degraded.
    fn models_at(&self, as_of: DateTime<Utc>) -> Component {
        let lagging = self
            .model_status
            .as_ref()
            .is_some_and(|s| s.cities.iter().any(|c| !lag_reasons(c, as_of).is_empty()));
        if self.models == Component::Healthy && lagging {
            Component::Degraded
        } else {
            self.models
        }
    }

    /// The worst component, data ages counted to `as_of`: any unhealthy one makes
    /// the service unhealthy (HTTP 503); degraded models keep it serving (HTTP
    /// 200) but say so.
    fn overall(&self, as_of: DateTime<Utc>) -> (StatusCode, Component) {
        let parts = [self.api, self.models_at(as_of), self.database];
        if parts.contains(&Component::Unhealthy) {
            (StatusCode::SERVICE_UNAVAILABLE, Component::Unhealthy)
        } else if parts.contains(&Component::Degraded) {
            (StatusCode::OK, Component::Degraded)
        } else {
            (StatusCode::OK, Component::Healthy)
        }
    }
}

fn unservable(status: &ModelStatus, problem: &crate::api::models::Problem) -> bool {
    problem.city.as_ref().is_some_and(|code| {
        status
            .cities
            .iter()
            .any(|c| &c.code == code && c.serving.is_none())
    })
}

/// Days from a city's data-through date to `now`'s UTC date.
fn age_days(city: &CityStatus, now: DateTime<Utc>) -> i64 {
    (now.date_naive() - city.data_through).num_days()
}

/// Why a fed city's data lags: older than its feeds' limit, or a feed failing.
/// None for a city built from files only (it has no configured limit).
fn lag_reasons(city: &CityStatus, now: DateTime<Utc>) -> Vec<String> {
    let Some(freshness) = &city.freshness else {
        return Vec::new();
    };
    let mut reasons = Vec::new();
    let age = age_days(city, now);
    if age > i64::from(freshness.stale_after_days) {
        reasons.push(format!(
            "data through {} is {age} days old, past the {} days its feeds allow",
            city.data_through, freshness.stale_after_days
        ));
    }
    reasons.extend(
        freshness
            .failing
            .iter()
            .map(|f| format!("feed {} failing since {}: {}", f.source, f.since, f.error)),
    );
    reasons
}

/// A city's freshness as health reports it.
fn freshness_record(city: &CityStatus, now: DateTime<Utc>) -> Value {
    let freshness = city.freshness.as_ref();
    json!({
        "data_through": city.data_through.to_string(),
        "age_days": age_days(city, now),
        "fed": freshness.is_some(),
        "last_sync": freshness.and_then(|f| f.last_sync.clone()),
        "stale_after_days": freshness.map(|f| f.stale_after_days),
        "failing": freshness.map_or_else(Vec::new, |f| f.failing.iter().map(|feed| json!({
            "source": feed.source,
            "since": feed.since,
            "error": feed.error,
        })).collect()),
        "diverging": freshness.map_or_else(Vec::new, |f| f.diverging.iter().map(|feed| json!({
            "source": feed.source,
            "last_sync_repaired": feed.last_sync,
            "repaired": feed.repaired,
            "syncs_repairing": feed.syncs_repairing,
            "syncs": feed.syncs,
        })).collect()),
        "unmapped": freshness.map_or_else(Vec::new, |f| f.unmapped.iter().map(|value| json!({
            "source": value.source,
            "value": value.value,
            "rows": value.rows,
        })).collect()),
        "lagging": lag_reasons(city, now),
    })
}

fn timestamp(now: DateTime<Utc>) -> String {
    now.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// The prediction API's health record at `now`, data ages counted to `as_of`
/// (the forecasting clock).
#[must_use]
pub fn prediction_health(
    health: &ServiceHealth,
    now: DateTime<Utc>,
    as_of: DateTime<Utc>,
) -> (StatusCode, Value) {
    let (status, overall) = health.overall(as_of);
    let body = json!({
        "status": overall.as_str(),
        "version": hexrisk_engine::VERSION,
        "timestamp": timestamp(now),
        "services": {
            "api": health.api.as_str(),
            "models": health.models_at(as_of).as_str(),
            "database": health.database.as_str(),
        },
    });
    (status, body)
}

/// The models part of the router's health record: the manifest in force, each
/// city's published and served version, and what was refused.
fn models_record(status: &ModelStatus, now: DateTime<Utc>) -> Value {
    json!({
        "version": status.manifest_version,
        "cities": status.cities.iter().map(|c| json!({
            "city": c.code,
            "version": c.version,
            "serving": c.serving,
            "data_through": c.data_through.to_string(),
            "cells": c.cells,
            "precincts": c.precincts,
            "freshness": freshness_record(c, now),
        })).collect::<Vec<_>>(),
        "problems": status.problems.iter().map(|p| json!({
            "city": p.city,
            "version": p.version,
            "reason": p.reason,
        })).collect::<Vec<_>>(),
    })
}

/// The router's health record at `now`: status plus a coverage snapshot, data
/// ages counted to `as_of` (the forecasting clock).
#[must_use]
pub fn router_health(
    health: &ServiceHealth,
    now: DateTime<Utc>,
    as_of: DateTime<Utc>,
) -> (StatusCode, Value) {
    let (status, overall) = health.overall(as_of);
    let cities = health
        .model_status
        .as_ref()
        .map_or(&[][..], |s| &s.cities[..]);
    let body = json!({
        "status": overall.as_str(),
        "service": "hexrisk-router",
        "version": hexrisk_engine::VERSION,
        "timestamp": timestamp(now),
        "resolution": u8::from(RESOLUTION),
        "coverage": {
            "cities": cities.iter().map(|c| c.code.clone()).collect::<Vec<_>>(),
            "cells": cities.iter().map(|c| c.cells).sum::<u64>(),
            "precincts": cities.iter().map(|c| c.precincts).sum::<u64>(),
        },
        "models": health.model_status.as_ref().map(|s| models_record(s, as_of)),
        "services": {
            "models": health.models_at(as_of).as_str(),
            "database": health.database.as_str(),
        },
    });
    (status, body)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::models::{CityStatus, Problem};

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
}
