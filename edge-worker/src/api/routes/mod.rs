//! The one route table: every endpoint of both APIs, of the partner portal (its
//! page, its API and that API's OpenAPI document) and the benchmark baselines, each
//! a row with all that dispatch needs of it: method and path, who may call it, what
//! answers it (an engine operation with the cities it reaches, a document, health,
//! a portal operation), how a success may be cached and whether its form follows
//! `Accept`. Dispatch finds requests here and has no per-endpoint code; `Allow` and
//! the 404 and 405 answers come from here, and the tests take their endpoints from
//! here (the OpenAPI path checks, the hostile-request suites), so a new endpoint is
//! declared once and cannot be left out of any of them.

mod table;

use http::Method;
use serde_json::Value;

use crate::api::access::keys::KeyApi;
use crate::api::endpoints;
use crate::api::models::needs::Reach;
use crate::api::plumbing::caching::CachePolicy;

pub use self::table::ROUTES;

/// Who may call an endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Anyone: health, the OpenAPI documents, the portal's page, its application and
    /// sign-in ceremonies, and the benchmark baselines without a key.
    Public,
    /// A key of this API (the prediction API's `Authorization: Bearer`, the router
    /// API's `X-API-Key` with its browser origins).
    Key(KeyApi),
    /// A signed-in portal session, of any account.
    Session,
    /// A signed-in portal session of the operator's account, checked before the
    /// endpoint runs.
    OperatorSession,
}

/// The shape of a health report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HealthReport {
    /// The prediction API's (`GET /v1/health`).
    Prediction,
    /// The router API's (`GET /health`).
    Router,
}

/// A benchmark baseline (served only when `HEXRISK_BENCH_NOOP=1`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Baseline {
    /// `/__bench/noop`: the cheapest answer, or with `?size=N` one of N bytes.
    Noop,
    /// `/__bench/gate`: the key's gate and nothing after it.
    Gate,
    /// `/__bench/memory`: the isolate's memory, answered by the Worker's glue.
    Memory,
}

/// An operation of the partner portal's API (`portal::run` holds each handler).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PortalOperation {
    /// `POST /portal/api/applications/options`.
    ApplicationOptions,
    /// `POST /portal/api/applications`.
    Apply,
    /// `POST /portal/api/sessions/options`.
    SignInOptions,
    /// `POST /portal/api/sessions`.
    SignIn,
    /// `GET /portal/api/session`: whether the caller is signed in.
    SessionState,
    /// `GET /portal/api/me`.
    Me,
    /// `DELETE /portal/api/sessions`: every session of the account.
    SignOutEverywhere,
    /// `DELETE /portal/api/sessions/current`.
    SignOut,
    /// `GET /portal/api/keys`.
    Keys,
    /// `POST /portal/api/keys`.
    CreateKey,
    /// `POST /portal/api/keys/{id}/roll`.
    RollKey,
    /// `DELETE /portal/api/keys/{id}`.
    RevokeKey,
    /// `POST /portal/api/passkeys/options`.
    AddPasskeyOptions,
    /// `POST /portal/api/passkeys`.
    AddPasskey,
    /// `DELETE /portal/api/passkeys/{id}`.
    RemovePasskey,
    /// `POST /portal/api/enrolments/options`.
    EnrolmentOptions,
    /// `POST /portal/api/enrolments`.
    Enrol,
    /// `GET /portal/api/keys/{id}/usage`.
    Usage,
    /// `GET /portal/api/keys/{id}/usage.csv`.
    UsageCsv,
    /// `GET /portal/api/operator/partners`.
    OperatorPartners,
    /// `POST /portal/api/operator/partners/{id}/decision`.
    OperatorDecide,
    /// `POST /portal/api/operator/partners/{id}/tier`.
    OperatorTier,
    /// `GET /portal/api/operator/audit`.
    OperatorAudit,
}

/// An engine operation over the cities a request reaches.
#[derive(Debug, Clone, Copy)]
pub enum EngineOperation {
    /// Answered at once from the decoded cities.
    Now(endpoints::Operation),
    /// A vector tile: through the data centre's cache (`endpoints::map_layers::tile`).
    CachedTile,
}

/// What answers a route.
#[derive(Debug, Clone, Copy)]
pub enum Answer {
    /// A document served as it is (an OpenAPI description).
    Document(&'static str),
    /// The service's health.
    Health(HealthReport),
    /// An answer that reads no model.
    Fixed(fn() -> Value),
    /// An engine operation, given the cities that the request reaches.
    Engine(Reach, EngineOperation),
    /// One of the portal page's static files (`portal::page`).
    PortalFile,
    /// An operation of the portal's API.
    Portal(PortalOperation),
    /// A benchmark baseline.
    Bench(Baseline),
}

/// One row of the table.
#[derive(Debug)]
pub struct Route {
    /// The path; `{id}` stands for one segment naming a key, a passkey or an account,
    /// `{city}` for a city's code (`{city}.json`: that and `.json`), `{z}/{x}/{y}.mvt`
    /// for a tile's numbers.
    pub path: &'static str,
    /// The method (`HEAD` is answered as `GET` on the APIs and the portal's page).
    pub method: Method,
    /// Who may call it.
    pub access: Access,
    /// What answers it.
    pub answer: Answer,
    /// How a successful answer may be cached (`None`: `no-store`).
    pub cache: Option<CachePolicy>,
    /// Whether the same URL answers JSON or GeoJSON by `Accept` (`Vary: Accept`).
    pub varies_on_accept: bool,
}

impl Route {
    /// Whether the route is a benchmark baseline, served only when enabled.
    #[must_use]
    pub const fn is_baseline(&self) -> bool {
        matches!(self.answer, Answer::Bench(_))
    }
}

/// The rows a deployment serves: the table's, the benchmark baselines only when
/// enabled.
#[derive(Debug, Clone, Copy)]
pub struct Table {
    /// The rows.
    pub rows: &'static [Route],
    /// Whether the benchmark baselines answer (`HEXRISK_BENCH_NOOP=1`).
    pub baselines: bool,
}

impl Table {
    /// The routes of every deployment.
    pub const SERVED: Self = Self {
        rows: &ROUTES,
        baselines: false,
    };
    /// With the benchmark baselines too.
    pub const WITH_BASELINES: Self = Self {
        rows: &ROUTES,
        baselines: true,
    };

    /// The same rows, with the baselines when `baselines`.
    #[must_use]
    pub const fn with_baselines(self, baselines: bool) -> Self {
        Self { baselines, ..self }
    }

    /// The route at a path (a trailing `/` ignored) for a method, or the methods the
    /// path allows (none for a path no route has).
    ///
    /// # Errors
    /// The allowed methods, when no route at the path takes this method.
    pub fn find<'a>(self, path: &'a str, method: &Method) -> Result<Found<'a>, Vec<Method>> {
        let at = self.at_path(path);
        at.iter()
            .find(|found| found.route.method == *method)
            .copied()
            .ok_or_else(|| at.iter().map(|f| f.route.method.clone()).collect())
    }

    /// The methods a path allows (empty for a path no route has).
    #[must_use]
    pub fn methods_at(self, path: &str) -> Vec<Method> {
        self.at_path(path)
            .iter()
            .map(|f| f.route.method.clone())
            .collect()
    }

    /// The routes at a path. A path spelled out by a route is that route's alone
    /// (`/portal/api/passkeys/options` is no passkey's id).
    fn at_path(self, path: &str) -> Vec<Found<'_>> {
        let path = if path.len() > 1 {
            path.trim_end_matches('/')
        } else {
            path
        };
        let mut at: Vec<Found<'_>> = self
            .rows
            .iter()
            .filter(|route| self.baselines || !route.is_baseline())
            .filter_map(|route| {
                matches(route.path, path).map(|matched| Found {
                    route,
                    id: matched.id,
                    tile: matched.tile,
                })
            })
            .collect();
        if at.iter().any(|f| f.id.is_none()) {
            at.retain(|f| f.id.is_none());
        }
        at
    }
}

/// A route found for a request, with the id its path carries.
#[derive(Debug, Clone, Copy)]
pub struct Found<'a> {
    /// The route.
    pub route: &'static Route,
    /// The `{id}` or `{city}` segment of the path, when the route has one.
    pub id: Option<&'a str>,
    /// The `{z}`, `{x}` and `{y}` of a tile's path, as written.
    pub tile: Option<[&'a str; 3]>,
}

impl<'a> Found<'a> {
    /// The city the path names (`{city}`), when the route's path has one.
    #[must_use]
    pub fn city(&self) -> Option<&'a str> {
        self.id.filter(|_| self.route.path.contains("{city"))
    }
}

/// A path that fits a route's pattern: the segment in place of `{id}`, if it has one,
/// and a tile's numbers.
struct Matched<'a> {
    id: Option<&'a str>,
    tile: Option<[&'a str; 3]>,
}

/// Whether `segment` may stand for `{id}`. Key ids are hex; passkey ids base64url,
/// up to 1,023 bytes; city codes lowercase words.
fn is_id(segment: &str) -> bool {
    (1..=1_400).contains(&segment.len())
        && segment
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// Whether `segment` may stand for a tile's number: at most 7 digits (2^22).
fn is_number(segment: &str) -> bool {
    (1..=7).contains(&segment.len()) && segment.bytes().all(|b| b.is_ascii_digit())
}

/// Whether `path` fits `pattern`, and the `{id}` segment it carries.
fn matches<'a>(pattern: &str, path: &'a str) -> Option<Matched<'a>> {
    // Most routes have no id: one comparison, on every request's way in.
    if !pattern.contains('{') {
        return (pattern == path).then_some(Matched {
            id: None,
            tile: None,
        });
    }
    let (mut pattern, mut path) = (pattern.split('/'), path.split('/'));
    let mut id = None;
    let mut numbers: [&str; 3] = [""; 3];
    let mut tile = false;
    loop {
        match (pattern.next(), path.next()) {
            (None, None) => {
                return Some(Matched {
                    id,
                    tile: tile.then_some(numbers),
                });
            }
            (Some("{id}" | "{city}"), Some(segment)) if is_id(segment) => id = Some(segment),
            (Some("{city}.json"), Some(segment))
                if segment.strip_suffix(".json").is_some_and(is_id) =>
            {
                id = segment.strip_suffix(".json");
            }
            (Some("{z}"), Some(segment)) if is_number(segment) => numbers[0] = segment,
            (Some("{x}"), Some(segment)) if is_number(segment) => numbers[1] = segment,
            (Some("{y}.mvt"), Some(segment))
                if segment.strip_suffix(".mvt").is_some_and(is_number) =>
            {
                numbers[2] = segment.strip_suffix(".mvt").unwrap_or_default();
                tile = true;
            }
            (Some(a), Some(b)) if a == b => {}
            _ => return None,
        }
    }
}

/// A path of `route` with its placeholders filled in: `k1` for an id, Toronto for a
/// city, `14/4579/5979` for a tile (what the tests that take their endpoints from the table send).
#[must_use]
pub fn example_path(route: &Route) -> String {
    route
        .path
        .replace("{id}", "k1")
        .replace("{city}", "city_ca_tor")
        .replace("{z}", "14")
        .replace("{x}", "4579")
        .replace("{y}", "5979")
}

#[cfg(test)]
mod tests;
