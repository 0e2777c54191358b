//! The answers that map libraries read: `/hexes/all` and `/streets` as JSON or
//! GeoJSON (by `Accept` or `format`), a city's vector tiles (through the Workers
//! cache, with cache lifetimes pinned to the artifact's version), its `TileJSON` and
//! its style. The operations themselves are the engine's (`hexrisk_engine::operations`).

#![allow(
    clippy::missing_errors_doc,
    reason = "an operation's errors are its engine operation's, documented there"
)]

use bytes::Bytes;
use http::Request;
use http::header::ACCEPT;
use serde_json::Value;
use sha2::{Digest, Sha256};

use hexrisk_engine::operations as engine;

use super::{Answered, Call, json};
use crate::api::ApiError;
use crate::api::backend::Backend;
use crate::api::models::Snapshot;
use crate::api::plumbing::input;
use crate::api::plumbing::success_body::SuccessBody;

/// `GET /hexes/all`, as JSON or, when the request asks for it, GeoJSON.
pub fn hexes_all(call: &Call<'_>) -> Answered {
    let params = list_params(call.request, call.query);
    let geojson = engine::wants_geojson(&params)?;
    let (hexes, count) = engine::hexes_all(call.atlas(), &params, call.seconds)?;
    let body = if geojson {
        geojson_body(&engine::hexes_feature_collection(&hexes))?
    } else {
        json(&hexes)?
    };
    Ok((body, Some(count)))
}

/// `GET /streets`, as JSON or, when the request asks for it, GeoJSON.
pub fn streets(call: &Call<'_>) -> Answered {
    let params = list_params(call.request, call.query);
    let geojson = engine::wants_geojson(&params)?;
    let answer = engine::streets(call.atlas(), &params, call.seconds)?;
    let count = answer.streets.len();
    let body = if geojson {
        geojson_body(&engine::streets_feature_collection(answer))?
    } else {
        json(&answer)?
    };
    Ok((body, Some(count)))
}

/// A GeoJSON answer as its body (see [`json`]).
fn geojson_body<T: serde::Serialize>(collection: &T) -> Result<SuccessBody, ApiError> {
    json(collection).map(|body| match body {
        SuccessBody::Value(value) => SuccessBody::GeoJson(value),
        other => other,
    })
}

/// A list endpoint's query as the engine's parameters, with `format=geojson` when
/// the request's `Accept` asks for `application/geo+json` and the query names no
/// format of its own.
fn list_params(
    request: &Request<Bytes>,
    query: &[(String, String)],
) -> serde_json::Map<String, Value> {
    let mut params = input::query_object(query);
    if !params.contains_key("format") && accepts_geojson(request) {
        params.insert("format".to_owned(), Value::from("geojson"));
    }
    params
}

/// Whether the request's `Accept` lists `application/geo+json` with a non-zero
/// weight (RFC 9110 section 12.5.1; `*/*` alone is the JSON the specification
/// shows).
fn accepts_geojson(request: &Request<Bytes>) -> bool {
    request
        .headers()
        .get_all(ACCEPT)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .any(|range| {
            let mut parts = range.split(';').map(str::trim);
            let media = parts.next().unwrap_or_default();
            let refused = parts.any(|p| {
                p.split_once('=').is_some_and(|(name, weight)| {
                    name.trim().eq_ignore_ascii_case("q")
                        && weight.trim().parse::<f64>().is_ok_and(|q| q <= 0.0)
                })
            });
            media.eq_ignore_ascii_case(engine::GEOJSON_MEDIA_TYPE) && !refused
        })
}

/// `GET /tiles/{city}.json`: the city's `TileJSON`.
pub fn tilejson(call: &Call<'_>) -> Answered {
    Ok((json(&city_tilejson(call)?)?, None))
}

/// `GET /tiles/{city}/style.json`: a `MapLibre` style fragment of the city's tiles.
pub fn tile_style(call: &Call<'_>) -> Answered {
    // The style's source carries the TileJSON's members itself, so that a map asks
    // for tiles without one more round trip for it.
    let source = engine::VectorSource::from(city_tilejson(call)?);
    Ok((json(&engine::tile_style(source))?, None))
}

/// The `TileJSON` of the city a request's path names.
fn city_tilejson(call: &Call<'_>) -> Result<engine::TileJson, ApiError> {
    let city = call.city.unwrap_or_default();
    let snapshot = call.snapshot;
    let template = tiles_url(call.request, city, artifact_version(snapshot, city));
    let publisher = snapshot
        .publishers
        .iter()
        .find(|(code, _)| code == city)
        .map(|(_, publisher)| publisher.as_str());
    Ok(engine::tilejson(
        &snapshot.atlas,
        city,
        &call.params(),
        &template,
        publisher,
        call.seconds,
    )?)
}

/// A tile's bytes, from the data centre's cache when the same tile of the same
/// artifact was made there before (by any key: a tile holds nothing of its
/// requester), else made and kept.
///
/// `GET /tiles/{city}/{z}/{x}/{y}.mvt`.
pub async fn tile<B: Backend>(call: &Call<'_>, backend: &B) -> Answered {
    let city = call.city.unwrap_or_default();
    let [z, x, y] = call.tile.unwrap_or_default();
    let id = engine::tile_id(z, x, y)?;
    let tile = engine::TileRequest::new(call.atlas(), city, id, &call.params(), call.seconds)?;
    let artifact = artifact_version(call.snapshot, city);
    let pinned =
        !artifact.is_empty() && input::query_param(call.query, VERSION_PARAM) == Some(artifact);
    let key = answer_cache_key(call.request, artifact, &tile.content_key());
    let bytes = if let Some(kept) = backend.cached_answer(&key).await {
        kept
    } else {
        let made = Bytes::from(tile.render());
        backend.keep_answer(&key, &made).await;
        made
    };
    Ok((SuccessBody::Tile { bytes, pinned }, None))
}

/// The query parameter naming the artifact version a tile URL was made for.
const VERSION_PARAM: &str = "v";

/// The version of `city`'s artifact in `snapshot` (empty for a city it lacks).
fn artifact_version<'a>(snapshot: &'a Snapshot, city: &str) -> &'a str {
    snapshot
        .versions
        .iter()
        .find(|(code, _)| code == city)
        .map_or("", |(_, version)| version.as_str())
}

/// The data centre's cache key of an answer made by this build from `artifact`
/// (the city's artifact version) for `content` (what the answer is made from): a
/// URL on the request's own host, as the Workers cache keeps answers per zone.
fn answer_cache_key(request: &Request<Bytes>, artifact: &str, content: &str) -> String {
    let origin = origin_of(request);
    let origin = if origin.is_empty() {
        "https://hexrisk.invalid"
    } else {
        origin.as_str()
    };
    let digest = Sha256::digest(format!(
        "{}\n{artifact}\n{content}",
        hexrisk_engine::VERSION
    ));
    format!("{origin}/__answers/{}", hex::encode(digest))
}

/// The URL template of a city's tiles for a `TileJSON` answer: the request's own
/// origin (when it names one) and options, with `{z}/{x}/{y}`, and `v=` the city's
/// artifact `version` (in place of any `v` asked), so that the URLs change with it.
fn tiles_url(request: &Request<Bytes>, city: &str, version: &str) -> String {
    let origin = origin_of(request);
    let mut query = form_urlencoded::Serializer::new(String::new());
    for (name, value) in input::query_pairs(request.uri().query()) {
        if name != VERSION_PARAM {
            query.append_pair(&name, &value);
        }
    }
    let query = query.append_pair(VERSION_PARAM, version).finish();
    format!("{origin}/tiles/{city}/{{z}}/{{x}}/{{y}}.mvt?{query}")
}

/// The request's origin: its URI's scheme and authority, else `https://` and its
/// `Host` (empty when it has neither).
fn origin_of(request: &Request<Bytes>) -> String {
    let uri = request.uri();
    match (uri.scheme_str(), uri.authority()) {
        (Some(scheme), Some(authority)) => format!("{scheme}://{authority}"),
        _ => request
            .headers()
            .get(http::header::HOST)
            .and_then(|v| v.to_str().ok())
            .map(|host| format!("https://{host}"))
            .unwrap_or_default(),
    }
}
