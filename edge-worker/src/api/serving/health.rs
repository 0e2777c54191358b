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
use serde_json::Value;

use hexrisk_engine::operations::RESOLUTION;

use crate::api::models::{CityStatus, ModelStatus};

mod records;

use records::{
    CityRecord, CoverageSnapshot, DivergingRecord, FailingRecord, FreshnessRecord, ModelsRecord,
    PredictionServices, ProblemRecord, RouterServices, UnmappedRecord,
};
pub(crate) use records::{PredictionHealth, RouterHealth};

/// Health of one component.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema), schemars(inline))]
#[serde(rename_all = "lowercase")]
pub enum Component {
    /// Working.
    Healthy,
    /// Working on an older version than the one published (the models only).
    Degraded,
    /// Not working; requests that need it fail.
    Unhealthy,
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
fn freshness_record(city: &CityStatus, now: DateTime<Utc>) -> FreshnessRecord {
    let freshness = city.freshness.as_ref();
    FreshnessRecord {
        data_through: city.data_through.to_string(),
        age_days: age_days(city, now),
        fed: freshness.is_some(),
        last_sync: freshness.and_then(|f| f.last_sync.clone()),
        stale_after_days: freshness.map(|f| f.stale_after_days),
        failing: freshness.map_or_else(Vec::new, |f| {
            f.failing
                .iter()
                .map(|feed| FailingRecord {
                    source: feed.source.clone(),
                    since: feed.since.clone(),
                    error: feed.error.clone(),
                })
                .collect()
        }),
        diverging: freshness.map_or_else(Vec::new, |f| {
            f.diverging
                .iter()
                .map(|feed| DivergingRecord {
                    source: feed.source.clone(),
                    last_sync_repaired: feed.last_sync,
                    repaired: feed.repaired,
                    syncs_repairing: feed.syncs_repairing,
                    syncs: feed.syncs,
                })
                .collect()
        }),
        unmapped: freshness.map_or_else(Vec::new, |f| {
            f.unmapped
                .iter()
                .map(|value| UnmappedRecord {
                    source: value.source.clone(),
                    value: value.value.clone(),
                    rows: value.rows,
                })
                .collect()
        }),
        lagging: lag_reasons(city, now),
    }
}

fn timestamp(now: DateTime<Utc>) -> String {
    now.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// A record's JSON value (records have text keys only: this cannot fail).
fn record_value<T: serde::Serialize>(record: &T) -> Value {
    serde_json::to_value(record).unwrap_or_default()
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
    let record = PredictionHealth {
        status: overall,
        version: hexrisk_engine::VERSION,
        timestamp: timestamp(now),
        services: PredictionServices {
            api: health.api,
            models: health.models_at(as_of),
            database: health.database,
        },
    };
    (status, record_value(&record))
}

/// The models part of the router's health record: the manifest in force, each
/// city's published and served version, and what was refused.
fn models_record(status: &ModelStatus, now: DateTime<Utc>) -> ModelsRecord {
    ModelsRecord {
        version: status.manifest_version.clone(),
        cities: status
            .cities
            .iter()
            .map(|c| CityRecord {
                city: c.code.clone(),
                version: c.version.clone(),
                serving: c.serving.clone(),
                data_through: c.data_through.to_string(),
                cells: c.cells,
                precincts: c.precincts,
                freshness: freshness_record(c, now),
            })
            .collect(),
        problems: status
            .problems
            .iter()
            .map(|p| ProblemRecord {
                city: p.city.clone(),
                version: p.version.clone(),
                reason: p.reason.clone(),
            })
            .collect(),
    }
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
    let record = RouterHealth {
        status: overall,
        service: "hexrisk-router",
        version: hexrisk_engine::VERSION,
        timestamp: timestamp(now),
        resolution: u8::from(RESOLUTION),
        coverage: CoverageSnapshot {
            cities: cities.iter().map(|c| c.code.clone()).collect(),
            cells: cities.iter().map(|c| c.cells).sum(),
            precincts: cities.iter().map(|c| c.precincts).sum(),
        },
        models: health
            .model_status
            .as_ref()
            .map(|s| models_record(s, as_of)),
        services: RouterServices {
            models: health.models_at(as_of),
            database: health.database,
        },
    };
    (status, record_value(&record))
}

#[cfg(test)]
mod tests;
