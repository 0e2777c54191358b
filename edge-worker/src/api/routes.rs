//! The one route table: every endpoint of both APIs and of the partner portal's API,
//! with its method, who may call it and what answers it. Dispatch finds requests
//! here, `Allow` and the 404 and 405 answers come from here, and the tests take
//! their endpoints from here (the OpenAPI path checks, the hostile-request suites),
//! so a new endpoint is declared once and cannot be left out of any of them.
//!
//! Outside the table: the portal's page and its static files, and the portal API's
//! own OpenAPI document (`portal::page`, `portal::PORTAL_OPENAPI`).

use http::Method;

use crate::api::access::keys::KeyApi;

/// Who may call an endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Anyone: health, the OpenAPI documents, and the portal's application and
    /// sign-in ceremonies.
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

/// An endpoint of the two APIs, answered by an engine operation (or a document or
/// the service's health).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Endpoint {
    /// `GET /v1/health`.
    PredictionHealth,
    /// `GET /v1/openapi.json`.
    PredictionOpenApi,
    /// `GET /health`.
    RouterHealth,
    /// `POST /v1/predict`.
    Predict,
    /// `POST /v1/predict/batch`.
    PredictBatch,
    /// `POST /v1/route/risk`.
    RouteRisk,
    /// `GET /v1/cities`.
    Cities,
    /// `GET /v1/coverage`.
    Coverage,
    /// `GET /v1/classes`.
    Classes,
    /// `GET /v1/prediction/range`.
    PredictionRange,
    /// `GET /openapi.json`.
    RouterOpenApi,
    /// `GET /hexes/config`.
    HexesConfig,
    /// `POST /hexes/score`.
    HexesScore,
    /// `POST /hexes/lookup`.
    HexesLookup,
    /// `GET /hexes/breakdown`.
    HexesBreakdown,
    /// `GET /hexes/all`.
    HexesAll,
    /// `GET /streets`.
    Streets,
    /// `GET /tiles/{city}/{z}/{x}/{y}.mvt`.
    Tile,
    /// `GET /tiles/{city}.json`: the city's `TileJSON`.
    TileJson,
    /// `GET /tiles/{city}/style.json`: a `MapLibre` style fragment of its tiles.
    TileStyle,
    /// `GET /places`.
    Places,
    /// `GET /places/reverse`.
    PlacesReverse,
    /// `GET /route/config`.
    RouteConfig,
    /// `POST /route`.
    Route,
    /// `POST /reach`.
    SafeReach,
    /// `POST /evaluate`.
    Evaluate,
    /// `POST /evaluate-hex-path`.
    EvaluateHexPath,
    /// `GET /precincts/status`.
    PrecinctsStatus,
    /// `GET /precincts/all-scores`.
    PrecinctsAllScores,
    /// `GET /precincts`.
    Precincts,
}

/// An operation of the partner portal's API.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operation {
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

/// What answers a route.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Handler {
    /// One of the two APIs.
    Api(Endpoint),
    /// The partner portal's API.
    Portal(Operation),
}

/// One row of the table.
#[derive(Debug)]
pub struct Route {
    /// The path; `{id}` stands for one segment naming a key, a passkey or an account,
    /// `{city}` for a city's code (`{city}.json`: that and `.json`), `{z}/{x}/{y}.mvt`
    /// for a tile's numbers.
    pub path: &'static str,
    /// The method (`HEAD` is answered as `GET` on the APIs).
    pub method: Method,
    /// Who may call it.
    pub access: Access,
    /// What answers it.
    pub handler: Handler,
}

const fn api(path: &'static str, method: Method, access: Access, endpoint: Endpoint) -> Route {
    Route {
        path,
        method,
        access,
        handler: Handler::Api(endpoint),
    }
}

const fn portal(path: &'static str, method: Method, access: Access, op: Operation) -> Route {
    Route {
        path,
        method,
        access,
        handler: Handler::Portal(op),
    }
}

const PREDICTION: Access = Access::Key(KeyApi::Prediction);
const ROUTER: Access = Access::Key(KeyApi::Router);

/// Every route, each API's in the order of its documentation.
pub static ROUTES: [Route; 53] = {
    use Access::{OperatorSession, Public, Session};
    use Endpoint as E;
    use Method as M;
    use Operation as O;
    [
        api("/v1/health", M::GET, Public, E::PredictionHealth),
        api("/v1/openapi.json", M::GET, Public, E::PredictionOpenApi),
        api("/v1/predict", M::POST, PREDICTION, E::Predict),
        api("/v1/predict/batch", M::POST, PREDICTION, E::PredictBatch),
        api("/v1/route/risk", M::POST, PREDICTION, E::RouteRisk),
        api("/v1/cities", M::GET, PREDICTION, E::Cities),
        api("/v1/coverage", M::GET, PREDICTION, E::Coverage),
        api("/v1/classes", M::GET, PREDICTION, E::Classes),
        api(
            "/v1/prediction/range",
            M::GET,
            PREDICTION,
            E::PredictionRange,
        ),
        api("/health", M::GET, Public, E::RouterHealth),
        api("/openapi.json", M::GET, Public, E::RouterOpenApi),
        api("/hexes/config", M::GET, ROUTER, E::HexesConfig),
        api("/hexes/score", M::POST, ROUTER, E::HexesScore),
        api("/hexes/lookup", M::POST, ROUTER, E::HexesLookup),
        api("/hexes/breakdown", M::GET, ROUTER, E::HexesBreakdown),
        api("/hexes/all", M::GET, ROUTER, E::HexesAll),
        api("/streets", M::GET, ROUTER, E::Streets),
        api("/tiles/{city}/{z}/{x}/{y}.mvt", M::GET, ROUTER, E::Tile),
        api("/tiles/{city}.json", M::GET, ROUTER, E::TileJson),
        api("/tiles/{city}/style.json", M::GET, ROUTER, E::TileStyle),
        api("/places", M::GET, ROUTER, E::Places),
        api("/places/reverse", M::GET, ROUTER, E::PlacesReverse),
        api("/route/config", M::GET, ROUTER, E::RouteConfig),
        api("/route", M::POST, ROUTER, E::Route),
        api("/reach", M::POST, ROUTER, E::SafeReach),
        api("/evaluate", M::POST, ROUTER, E::Evaluate),
        api("/evaluate-hex-path", M::POST, ROUTER, E::EvaluateHexPath),
        api("/precincts/status", M::GET, ROUTER, E::PrecinctsStatus),
        api(
            "/precincts/all-scores",
            M::GET,
            ROUTER,
            E::PrecinctsAllScores,
        ),
        api("/precincts", M::GET, ROUTER, E::Precincts),
        portal(
            "/portal/api/applications/options",
            M::POST,
            Public,
            O::ApplicationOptions,
        ),
        portal("/portal/api/applications", M::POST, Public, O::Apply),
        portal(
            "/portal/api/sessions/options",
            M::POST,
            Public,
            O::SignInOptions,
        ),
        portal("/portal/api/sessions", M::POST, Public, O::SignIn),
        portal("/portal/api/session", M::GET, Public, O::SessionState),
        portal("/portal/api/me", M::GET, Session, O::Me),
        portal(
            "/portal/api/sessions",
            M::DELETE,
            Session,
            O::SignOutEverywhere,
        ),
        portal(
            "/portal/api/sessions/current",
            M::DELETE,
            Session,
            O::SignOut,
        ),
        portal("/portal/api/keys", M::GET, Session, O::Keys),
        portal("/portal/api/keys", M::POST, Session, O::CreateKey),
        portal("/portal/api/keys/{id}/roll", M::POST, Session, O::RollKey),
        portal("/portal/api/keys/{id}", M::DELETE, Session, O::RevokeKey),
        portal(
            "/portal/api/passkeys/options",
            M::POST,
            Session,
            O::AddPasskeyOptions,
        ),
        portal("/portal/api/passkeys", M::POST, Session, O::AddPasskey),
        portal(
            "/portal/api/passkeys/{id}",
            M::DELETE,
            Session,
            O::RemovePasskey,
        ),
        portal(
            "/portal/api/enrolments/options",
            M::POST,
            Public,
            O::EnrolmentOptions,
        ),
        portal("/portal/api/enrolments", M::POST, Public, O::Enrol),
        portal("/portal/api/keys/{id}/usage", M::GET, Session, O::Usage),
        portal(
            "/portal/api/keys/{id}/usage.csv",
            M::GET,
            Session,
            O::UsageCsv,
        ),
        portal(
            "/portal/api/operator/partners",
            M::GET,
            OperatorSession,
            O::OperatorPartners,
        ),
        portal(
            "/portal/api/operator/partners/{id}/decision",
            M::POST,
            OperatorSession,
            O::OperatorDecide,
        ),
        portal(
            "/portal/api/operator/partners/{id}/tier",
            M::POST,
            OperatorSession,
            O::OperatorTier,
        ),
        portal(
            "/portal/api/operator/audit",
            M::GET,
            OperatorSession,
            O::OperatorAudit,
        ),
    ]
};

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

/// The route at a path (a trailing `/` ignored) for a method, or the methods the
/// path allows (none for a path no route has).
///
/// # Errors
/// The allowed methods, when no route at the path takes this method.
pub fn find<'a>(path: &'a str, method: &Method) -> Result<Found<'a>, Vec<Method>> {
    let at = at_path(path);
    at.iter()
        .find(|found| found.route.method == *method)
        .copied()
        .ok_or_else(|| at.iter().map(|f| f.route.method.clone()).collect())
}

/// The methods a path allows (empty for a path no route has).
#[must_use]
pub fn methods_at(path: &str) -> Vec<Method> {
    at_path(path)
        .iter()
        .map(|f| f.route.method.clone())
        .collect()
}

/// The routes at a path. A path spelled out by a route is that route's alone
/// (`/portal/api/passkeys/options` is no passkey's id).
fn at_path(path: &str) -> Vec<Found<'_>> {
    let path = if path.len() > 1 {
        path.trim_end_matches('/')
    } else {
        path
    };
    let mut at: Vec<Found<'_>> = ROUTES
        .iter()
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
mod tests {
    use super::*;

    #[test]
    fn every_route_is_found_at_its_own_path_and_method() {
        for route in &ROUTES {
            let path = example_path(route);
            let found = find(&path, &route.method).unwrap();
            assert!(std::ptr::eq(found.route, route), "{}", route.path);
            assert_eq!(
                found.id.is_some(),
                route.path.contains("{id}") || route.path.contains("{city}")
            );
            assert_eq!(found.tile.is_some(), route.path.contains("{z}"));
        }
    }

    #[test]
    fn no_two_routes_share_a_path_and_method() {
        for (i, a) in ROUTES.iter().enumerate() {
            for b in &ROUTES[i + 1..] {
                assert!(
                    a.path != b.path || a.method != b.method,
                    "{} {}",
                    a.method,
                    a.path
                );
            }
        }
    }

    #[test]
    fn other_methods_get_the_allowed_ones_and_unknown_paths_none() {
        assert_eq!(
            find("/portal/api/keys", &Method::PUT).unwrap_err(),
            [Method::GET, Method::POST]
        );
        assert_eq!(
            find("/v1/predict/", &Method::GET).unwrap_err(),
            [Method::POST]
        );
        assert!(find("/nowhere", &Method::GET).unwrap_err().is_empty());
        assert!(methods_at("/portal/api/keys/a%2Fb").is_empty());
        // A spelled-out path is no id.
        assert_eq!(methods_at("/portal/api/passkeys/options"), [Method::POST]);
        assert_eq!(
            find("/portal/api/keys/abc/roll", &Method::POST).unwrap().id,
            Some("abc")
        );
    }
}
