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

use hexrisk_engine::api::RESOLUTION;

use super::models::ModelStatus;

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

    /// The worst component: any unhealthy one makes the service unhealthy (HTTP
    /// 503); degraded models keep it serving (HTTP 200) but say so.
    fn overall(&self) -> (StatusCode, Component) {
        let parts = [self.api, self.models, self.database];
        if parts.contains(&Component::Unhealthy) {
            (StatusCode::SERVICE_UNAVAILABLE, Component::Unhealthy)
        } else if parts.contains(&Component::Degraded) {
            (StatusCode::OK, Component::Degraded)
        } else {
            (StatusCode::OK, Component::Healthy)
        }
    }
}

fn unservable(status: &ModelStatus, problem: &super::models::Problem) -> bool {
    problem.city.as_ref().is_some_and(|code| {
        status
            .cities
            .iter()
            .any(|c| &c.code == code && c.serving.is_none())
    })
}

fn timestamp(now: DateTime<Utc>) -> String {
    now.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// The prediction API's health record.
#[must_use]
pub fn prediction_health(health: &ServiceHealth, now: DateTime<Utc>) -> (StatusCode, Value) {
    let (status, overall) = health.overall();
    let body = json!({
        "status": overall.as_str(),
        "version": hexrisk_engine::VERSION,
        "timestamp": timestamp(now),
        "services": {
            "api": health.api.as_str(),
            "models": health.models.as_str(),
            "database": health.database.as_str(),
        },
    });
    (status, body)
}

/// The models part of the router's health record: the manifest in force, each
/// city's published and served version, and what was refused.
fn models_record(status: &ModelStatus) -> Value {
    json!({
        "version": status.manifest_version,
        "cities": status.cities.iter().map(|c| json!({
            "city": c.code,
            "version": c.version,
            "serving": c.serving,
            "data_through": c.data_through.to_string(),
            "cells": c.cells,
            "precincts": c.precincts,
        })).collect::<Vec<_>>(),
        "problems": status.problems.iter().map(|p| json!({
            "city": p.city,
            "version": p.version,
            "reason": p.reason,
        })).collect::<Vec<_>>(),
    })
}

/// The router's health record: status plus a coverage snapshot.
#[must_use]
pub fn router_health(health: &ServiceHealth, now: DateTime<Utc>) -> (StatusCode, Value) {
    let (status, overall) = health.overall();
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
        "models": health.model_status.as_ref().map(models_record),
        "services": {
            "models": health.models.as_str(),
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
        let (status, body) = prediction_health(&healthy(), at());
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
            let (status, body) = prediction_health(&broken, at());
            assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
            assert_eq!(body["status"], "unhealthy");
            let (status, body) = router_health(&broken, at());
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
        let (code, body) = prediction_health(&degraded, at());
        assert_eq!(
            (code, &body["status"]),
            (StatusCode::OK, &json!("degraded"))
        );
        assert_eq!(body["services"]["models"], "degraded");
        let (code, body) = router_health(&degraded, at());
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
        let (code, body) = router_health(&ServiceHealth::new(Some(models), true), at());
        assert_eq!(
            (code, &body["status"]),
            (StatusCode::SERVICE_UNAVAILABLE, &json!("unhealthy"))
        );
    }

    #[test]
    fn router_health_reports_resolution_cities_and_versions() {
        let (_, body) = router_health(&healthy(), at());
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
}
