//! Health records of both APIs.
//!
//! - Prediction API, `GET /v1/health`: `{status, version, timestamp, services: {api,
//!   models, database}}` as the specification shows.
//! - Router, `GET /health`: status and a coverage snapshot (see `docs/API.md`).
//!
//! Either answers HTTP 200 when every component is healthy and 503 with
//! `status: "unhealthy"` otherwise, so load balancers need only the status code.

use chrono::{DateTime, SecondsFormat, Utc};
use http::StatusCode;
use serde_json::{Value, json};

use hexrisk_engine::grid::RESOLUTION;

/// Health of one component.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Component {
    /// Working.
    Healthy,
    /// Not working; requests that need it fail.
    Unhealthy,
}

impl Component {
    const fn as_str(self) -> &'static str {
        match self {
            Self::Healthy => "healthy",
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
    /// Codes of the cities whose models are loaded.
    pub cities: Vec<String>,
    /// Precincts across the loaded cities.
    pub precincts: usize,
    /// Grid cells across the loaded cities.
    pub cells: usize,
}

impl ServiceHealth {
    /// Whether every component is healthy.
    #[must_use]
    pub fn is_healthy(&self) -> bool {
        [self.api, self.models, self.database]
            .iter()
            .all(|c| *c == Component::Healthy)
    }

    fn overall(&self) -> (StatusCode, Component) {
        if self.is_healthy() {
            (StatusCode::OK, Component::Healthy)
        } else {
            (StatusCode::SERVICE_UNAVAILABLE, Component::Unhealthy)
        }
    }
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

/// The router's health record: status plus a coverage snapshot.
#[must_use]
pub fn router_health(health: &ServiceHealth, now: DateTime<Utc>) -> (StatusCode, Value) {
    let (status, overall) = health.overall();
    let body = json!({
        "status": overall.as_str(),
        "service": "hexrisk-router",
        "version": hexrisk_engine::VERSION,
        "timestamp": timestamp(now),
        "resolution": u8::from(RESOLUTION),
        "coverage": {
            "cities": health.cities,
            "cells": health.cells,
            "precincts": health.precincts,
        },
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

    fn healthy() -> ServiceHealth {
        ServiceHealth {
            api: Component::Healthy,
            models: Component::Healthy,
            database: Component::Healthy,
            cities: vec!["city_ca_tor".into()],
            precincts: 16,
            cells: 815,
        }
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
        let broken = ServiceHealth {
            models: Component::Unhealthy,
            ..healthy()
        };
        let (status, body) = prediction_health(&broken, at());
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(body["status"], "unhealthy");
        assert_eq!(body["services"]["models"], "unhealthy");
        let (status, body) = router_health(&broken, at());
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(body["status"], "unhealthy");
    }

    #[test]
    fn router_health_reports_resolution_and_cities() {
        let (_, body) = router_health(&healthy(), at());
        assert_eq!(body["resolution"], 8);
        assert_eq!(body["coverage"]["cities"], json!(["city_ca_tor"]));
        assert_eq!(body["coverage"]["precincts"], 16);
        assert_eq!(body["coverage"]["cells"], 815);
    }
}
