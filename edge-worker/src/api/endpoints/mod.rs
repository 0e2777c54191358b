//! The operation behind each endpoint that reads the models, as its row in the route
//! table names it: the engine's operation (`hexrisk_engine::operations`, the same the npm
//! package answers offline) given what a request brings ([`Call`]), and its answer
//! as a [`SuccessBody`] with the `X-Hex-Count` of the endpoints that list hexes.
//!
//! An operation is a plain `fn` so that the table, a `static`, can hold it; the one
//! operation that waits on the platform (a tile, through the Workers cache) is
//! [`map_layers::tile`], which dispatch awaits.

#![allow(
    clippy::missing_errors_doc,
    reason = "an operation's errors are its engine operation's, documented there"
)]

pub mod map_layers;

use bytes::Bytes;
use http::Request;
use serde::Serialize;
use serde_json::{Map, Value};

use hexrisk_engine::city::Atlas;
use hexrisk_engine::operations as engine;

use crate::api::models::Snapshot;
use crate::api::plumbing::error::{ApiError, ErrorCode};
use crate::api::plumbing::input;
use crate::api::plumbing::success_body::SuccessBody;

/// An operation's answer: the body, and how many hexes it lists when it lists them.
pub type Answered = Result<(SuccessBody, Option<usize>), ApiError>;

/// An engine operation as a row of the route table holds it.
pub type Operation = fn(&Call<'_>) -> Answered;

/// What an operation is given: the models the request needs, the forecasting clock,
/// and the request with its query, path parameters and body (parsed once).
#[derive(Debug)]
pub struct Call<'a> {
    /// The cities the request needs, with their versions and publishers.
    pub snapshot: &'a Snapshot,
    /// The forecasting "now", in seconds since the epoch.
    pub seconds: i64,
    /// The request (its headers and URI).
    pub request: &'a Request<Bytes>,
    /// The query's pairs, a tile's city among them as `city=`.
    pub query: &'a [(String, String)],
    /// The `{city}` of the path, when it has one.
    pub city: Option<&'a str>,
    /// The `{z}`, `{x}` and `{y}` of a tile's path, as written.
    pub tile: Option<[&'a str; 3]>,
    /// The JSON body of a `POST`, parsed once (dispatch reads the cities a request
    /// needs from it before the operation runs); empty for other methods.
    pub body: Result<Map<String, Value>, ApiError>,
}

impl Call<'_> {
    /// The decoded cities.
    #[must_use]
    pub fn atlas(&self) -> &Atlas {
        &self.snapshot.atlas
    }

    /// The JSON object of the body.
    ///
    /// # Errors
    /// Why the body is not one (`input::json_body`).
    pub fn body(&self) -> Result<&Map<String, Value>, ApiError> {
        self.body.as_ref().map_err(Clone::clone)
    }

    /// The query as the engine's parameters.
    #[must_use]
    pub fn params(&self) -> Map<String, Value> {
        input::query_object(self.query)
    }
}

/// An answer that lists no hexes (so no `X-Hex-Count`), as its JSON value.
fn uncounted<T: Serialize, E: Into<ApiError>>(result: Result<T, E>) -> Answered {
    let body = result.map_err(Into::into)?;
    Ok((json_value(&body)?.into(), None))
}

/// An answer type's JSON value. Answers have text keys and finite numbers, so this
/// fails only on a bug, which the caller reports as an internal error.
fn json_value<T: Serialize>(answer: &T) -> Result<Value, ApiError> {
    serde_json::to_value(answer).map_err(|e| {
        ApiError::new(ErrorCode::InternalError, "the answer could not be written")
            .with("reason", e.to_string())
    })
}

/// An answer type as a JSON body (see [`json_value`]).
pub(crate) fn json<T: Serialize>(answer: &T) -> Result<SuccessBody, ApiError> {
    json_value(answer).map(SuccessBody::from)
}

/// `GET /hexes/config`: the same for every request.
#[must_use]
pub fn hexes_config() -> Value {
    serde_json::to_value(engine::hexes_config()).unwrap_or_default()
}

/// `GET /route/config`: the same for every request.
#[must_use]
pub fn route_config() -> Value {
    serde_json::to_value(engine::route_config()).unwrap_or_default()
}

/// `POST /v1/predict`.
pub fn predict(call: &Call<'_>) -> Answered {
    uncounted(engine::predict(call.atlas(), call.body()?, call.seconds))
}

/// `POST /v1/predict/batch`.
pub fn predict_batch(call: &Call<'_>) -> Answered {
    uncounted(engine::predict_batch(
        call.atlas(),
        call.body()?,
        call.seconds,
    ))
}

/// `POST /v1/route/risk`.
pub fn route_risk(call: &Call<'_>) -> Answered {
    uncounted(engine::route_risk(call.atlas(), call.body()?, call.seconds))
}

/// `GET /v1/cities`.
pub fn cities(call: &Call<'_>) -> Answered {
    uncounted(Ok::<_, ApiError>(engine::cities(
        call.atlas(),
        call.seconds,
    )))
}

/// `GET /v1/classes`: the same for every request.
#[must_use]
pub fn classes() -> Value {
    serde_json::to_value(engine::classes()).unwrap_or_default()
}

/// `GET /v1/coverage`.
pub fn coverage(call: &Call<'_>) -> Answered {
    uncounted(engine::coverage(call.atlas(), &call.params()))
}

/// `GET /v1/prediction/range`.
pub fn prediction_range(call: &Call<'_>) -> Answered {
    uncounted(engine::prediction_range(
        call.atlas(),
        &call.params(),
        call.seconds,
    ))
}

/// `POST /hexes/score`: a bare array of rows.
pub fn hexes_score(call: &Call<'_>) -> Answered {
    let rows = engine::hexes_score(call.atlas(), call.body()?, call.seconds)?;
    let count = rows.len();
    Ok((SuccessBody::ScoreRows(rows), Some(count)))
}

/// `POST /hexes/lookup`.
pub fn hexes_lookup(call: &Call<'_>) -> Answered {
    let ring = engine::hexes_lookup(call.atlas(), call.body()?, call.seconds)?;
    let count = ring.count();
    Ok((SuccessBody::RingLookup(ring), Some(count)))
}

/// `GET /hexes/breakdown`.
pub fn hexes_breakdown(call: &Call<'_>) -> Answered {
    uncounted(engine::hexes_breakdown(
        call.atlas(),
        &call.params(),
        call.seconds,
    ))
}

/// `GET /places`.
pub fn places(call: &Call<'_>) -> Answered {
    let answer = engine::search_places(call.atlas(), &call.params())?;
    Ok((json(&answer)?, Some(answer.places.len())))
}

/// `GET /places/reverse`.
pub fn places_reverse(call: &Call<'_>) -> Answered {
    uncounted(engine::reverse_place(call.atlas(), &call.params()))
}

/// `POST /route`.
pub fn route(call: &Call<'_>) -> Answered {
    uncounted(engine::route(call.atlas(), call.body()?, call.seconds))
}

/// `POST /reach`.
pub fn safe_reach(call: &Call<'_>) -> Answered {
    uncounted(engine::reach(call.atlas(), call.body()?, call.seconds))
}

/// `POST /evaluate`.
pub fn evaluate(call: &Call<'_>) -> Answered {
    uncounted(engine::evaluate(call.atlas(), call.body()?, call.seconds))
}

/// `POST /evaluate-hex-path`.
pub fn evaluate_hex_path(call: &Call<'_>) -> Answered {
    uncounted(engine::evaluate_hex_path(
        call.atlas(),
        call.body()?,
        call.seconds,
    ))
}

/// `GET /precincts/status`.
pub fn precincts_status(call: &Call<'_>) -> Answered {
    uncounted(Ok::<_, ApiError>(engine::precincts_status(call.atlas())))
}

/// `GET /precincts/all-scores`.
pub fn precincts_all_scores(call: &Call<'_>) -> Answered {
    uncounted(engine::precincts_all_scores(
        call.atlas(),
        &call.params(),
        call.seconds,
    ))
}

/// `GET /precincts`.
pub fn precincts(call: &Call<'_>) -> Answered {
    uncounted(engine::precincts_geojson(
        call.atlas(),
        &call.params(),
        call.seconds,
    ))
}
