//! The rows of the route table, each API's in the order of its documentation, then
//! the portal's and the benchmark baselines. A new endpoint is a row here, an engine
//! operation (`crate::api::endpoints`) and, where the npm package has it, its wasm
//! wrapper (ARCHITECTURE.md, "Adding an endpoint").

use http::Method;

use super::{Access, Answer, Baseline, EngineOperation, HealthReport, PortalOperation as O, Route};
use crate::api::access::keys::KeyApi;
use crate::api::endpoints::{self as op, map_layers};
use crate::api::models::needs::Reach;
use crate::api::openapi::{PORTAL_OPENAPI, PREDICTION_OPENAPI, ROUTER_OPENAPI};
use crate::api::plumbing::caching::CachePolicy;

const PREDICTION: Access = Access::Key(KeyApi::Prediction);
const ROUTER: Access = Access::Key(KeyApi::Router);
/// Answers to a key, which its client revalidates before each use.
const REVALIDATE: CachePolicy = CachePolicy::PrivateRevalidate;

/// A row answered by `answer`, not cached.
const fn row(method: Method, path: &'static str, access: Access, answer: Answer) -> Route {
    Route {
        path,
        method,
        access,
        answer,
        cache: None,
        varies_on_accept: false,
    }
}

/// A row answered by an engine operation over the cities the request reaches.
const fn engine_row(
    method: Method,
    path: &'static str,
    access: Access,
    reach: Reach,
    operation: op::Operation,
) -> Route {
    row(
        method,
        path,
        access,
        Answer::Engine(reach, EngineOperation::Now(operation)),
    )
}

/// A public document, which any cache may keep.
const fn document(path: &'static str, text: &'static str) -> Route {
    row(Method::GET, path, Access::Public, Answer::Document(text)).cached(CachePolicy::Public)
}

/// A row of the portal's API.
const fn portal(method: Method, path: &'static str, access: Access, operation: O) -> Route {
    row(method, path, access, Answer::Portal(operation))
}

impl Route {
    /// The row with its successful answers cached by `policy`.
    const fn cached(mut self, policy: CachePolicy) -> Self {
        self.cache = Some(policy);
        self
    }

    /// The row answering JSON or GeoJSON by `Accept`.
    const fn by_accept(mut self) -> Self {
        self.varies_on_accept = true;
        self
    }
}

/// Every route.
#[rustfmt::skip] // a row a line: the table reads down its columns
pub static ROUTES: [Route; 61] = {
    use Access::{OperatorSession, Public, Session};
    use Method as M;
    use Reach::{Everywhere, Lines, NamedCity, Places, Viewport};
    let tile = Answer::Engine(NamedCity, EngineOperation::CachedTile);
    [
        // The prediction API (docs/API.md).
        row(M::GET, "/v1/health", Public, Answer::Health(HealthReport::Prediction)),
        document("/v1/openapi.json", PREDICTION_OPENAPI),
        engine_row(M::POST, "/v1/predict", PREDICTION, Places, op::predict),
        engine_row(M::POST, "/v1/predict/batch", PREDICTION, Places, op::predict_batch),
        engine_row(M::POST, "/v1/route/risk", PREDICTION, Lines, op::route_risk),
        engine_row(M::GET, "/v1/cities", PREDICTION, Everywhere, op::cities).cached(REVALIDATE),
        engine_row(M::GET, "/v1/coverage", PREDICTION, NamedCity, op::coverage).cached(REVALIDATE),
        row(M::GET, "/v1/classes", PREDICTION, Answer::Fixed(op::classes)).cached(REVALIDATE),
        engine_row(M::GET, "/v1/prediction/range", PREDICTION, Places, op::prediction_range),
        // The router API.
        row(M::GET, "/health", Public, Answer::Health(HealthReport::Router)),
        document("/openapi.json", ROUTER_OPENAPI),
        row(M::GET, "/hexes/config", ROUTER, Answer::Fixed(op::hexes_config)).cached(REVALIDATE),
        engine_row(M::POST, "/hexes/score", ROUTER, Places, op::hexes_score),
        engine_row(M::POST, "/hexes/lookup", ROUTER, Places, op::hexes_lookup),
        engine_row(M::GET, "/hexes/breakdown", ROUTER, Places, op::hexes_breakdown),
        engine_row(M::GET, "/hexes/all", ROUTER, Viewport, map_layers::hexes_all).by_accept(),
        engine_row(M::GET, "/streets", ROUTER, Viewport, map_layers::streets).by_accept(),
        row(M::GET, "/tiles/{city}/{z}/{x}/{y}.mvt", ROUTER, tile).cached(REVALIDATE),
        engine_row(M::GET, "/tiles/{city}.json", ROUTER, NamedCity, map_layers::tilejson).cached(REVALIDATE),
        engine_row(M::GET, "/tiles/{city}/style.json", ROUTER, NamedCity, map_layers::tile_style).cached(REVALIDATE),
        engine_row(M::GET, "/places", ROUTER, NamedCity, op::places),
        engine_row(M::GET, "/places/reverse", ROUTER, Places, op::places_reverse),
        row(M::GET, "/route/config", ROUTER, Answer::Fixed(op::route_config)).cached(REVALIDATE),
        engine_row(M::POST, "/route", ROUTER, Places, op::route),
        engine_row(M::POST, "/reach", ROUTER, Places, op::safe_reach),
        engine_row(M::POST, "/evaluate", ROUTER, Places, op::evaluate),
        engine_row(M::POST, "/evaluate-hex-path", ROUTER, Places, op::evaluate_hex_path),
        engine_row(M::GET, "/precincts/status", ROUTER, Everywhere, op::precincts_status),
        engine_row(M::GET, "/precincts/all-scores", ROUTER, Everywhere, op::precincts_all_scores),
        engine_row(M::GET, "/precincts", ROUTER, Everywhere, op::precincts).cached(REVALIDATE),
        // The partner portal (docs/PORTAL.md): its page, its API's document, its API.
        row(M::GET, "/portal", Public, Answer::PortalFile),
        row(M::GET, "/portal/portal.js", Public, Answer::PortalFile),
        row(M::GET, "/portal/portal.css", Public, Answer::PortalFile),
        row(M::GET, "/portal/icon.svg", Public, Answer::PortalFile),
        row(M::GET, "/portal/api/openapi.json", Public, Answer::Document(PORTAL_OPENAPI)),
        portal(M::POST, "/portal/api/applications/options", Public, O::ApplicationOptions),
        portal(M::POST, "/portal/api/applications", Public, O::Apply),
        portal(M::POST, "/portal/api/sessions/options", Public, O::SignInOptions),
        portal(M::POST, "/portal/api/sessions", Public, O::SignIn),
        portal(M::GET, "/portal/api/session", Public, O::SessionState),
        portal(M::GET, "/portal/api/me", Session, O::Me),
        portal(M::DELETE, "/portal/api/sessions", Session, O::SignOutEverywhere),
        portal(M::DELETE, "/portal/api/sessions/current", Session, O::SignOut),
        portal(M::GET, "/portal/api/keys", Session, O::Keys),
        portal(M::POST, "/portal/api/keys", Session, O::CreateKey),
        portal(M::POST, "/portal/api/keys/{id}/roll", Session, O::RollKey),
        portal(M::DELETE, "/portal/api/keys/{id}", Session, O::RevokeKey),
        portal(M::POST, "/portal/api/passkeys/options", Session, O::AddPasskeyOptions),
        portal(M::POST, "/portal/api/passkeys", Session, O::AddPasskey),
        portal(M::DELETE, "/portal/api/passkeys/{id}", Session, O::RemovePasskey),
        portal(M::POST, "/portal/api/enrolments/options", Public, O::EnrolmentOptions),
        portal(M::POST, "/portal/api/enrolments", Public, O::Enrol),
        portal(M::GET, "/portal/api/keys/{id}/usage", Session, O::Usage),
        portal(M::GET, "/portal/api/keys/{id}/usage.csv", Session, O::UsageCsv),
        portal(M::GET, "/portal/api/operator/partners", OperatorSession, O::OperatorPartners),
        portal(M::POST, "/portal/api/operator/partners/{id}/decision", OperatorSession, O::OperatorDecide),
        portal(M::POST, "/portal/api/operator/partners/{id}/tier", OperatorSession, O::OperatorTier),
        portal(M::GET, "/portal/api/operator/audit", OperatorSession, O::OperatorAudit),
        // The benchmark baselines (`HEXRISK_BENCH_NOOP=1` only).
        row(M::GET, "/__bench/noop", Public, Answer::Bench(Baseline::Noop)),
        row(M::GET, "/__bench/gate", PREDICTION, Answer::Bench(Baseline::Gate)),
        row(M::GET, "/__bench/memory", Public, Answer::Bench(Baseline::Memory)),
    ]
};
