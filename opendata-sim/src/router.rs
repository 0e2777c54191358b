//! Which handler answers a request, with the faults that apply before any handler runs
//! (down, rate limit, private) and the request log.
//!
//! `/_sim/...` goes to the control surface (not logged); `/resource/<id>.json` to the
//! Socrata dataset of that id; a path whose layer part (`.../FeatureServer/<n>` or
//! `.../MapServer/<n>`, matched case-insensitively, trailing slashes ignored) is a
//! dataset's path goes to ArcGIS (`<layer>` for the layer info, `<layer>/query`).

use serde_json::json;

use crate::faults::{Block, LogEntry};
use crate::message::{Request, Response};
use crate::schema::Protocol;
use crate::script::World;
use crate::{arcgis, control, esri, socrata};

/// Answers one request.
pub(crate) fn route(world: &mut World, req: &Request) -> Response {
    if req.path.starts_with("/_sim/") {
        return control::handle(world, req);
    }
    world.faults.applied = None;
    let (resp, dataset) = dispatch(world, req);
    let target = if req.raw_query.is_empty() {
        req.path.clone()
    } else {
        format!("{}?{}", req.path, req.raw_query)
    };
    let fault = world.faults.applied.take();
    world.faults.record(LogEntry {
        target,
        status: resp.status,
        dataset,
        fault,
    });
    resp
}

fn normalise(path: &str) -> String {
    let parts: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    format!("/{}", parts.join("/")).to_ascii_lowercase()
}

fn dispatch(world: &mut World, req: &Request) -> (Response, Option<String>) {
    let path = normalise(&req.path);
    if let Some(rest) = path.strip_prefix("/resource/") {
        let (id, json) = rest
            .strip_suffix(".json")
            .map_or((rest, false), |id| (id, true));
        let found = world
            .datasets
            .iter()
            .position(|d| d.protocol() == Protocol::Socrata && d.name().eq_ignore_ascii_case(id));
        let Some(index) = found else {
            let resp = socrata::error(404, "not_found", &format!("Cannot find view with id {id}"));
            return (resp, None);
        };
        if !json {
            let resp = socrata::error(
                400,
                "query.soql.invalid-parameters",
                "This server answers .json only",
            );
            return (resp, None);
        }
        let name = world.datasets[index].name().to_owned();
        let resp =
            guarded(world, req, &name, true).unwrap_or_else(|| socrata::query(world, index, req));
        return (resp, Some(name));
    }
    if path.contains("/featureserver/") || path.contains("/mapserver/") {
        let (layer, op) = match path.strip_suffix("/query") {
            Some(layer) => (layer, true),
            None => (path.as_str(), false),
        };
        let found = world.datasets.iter().position(|d| {
            matches!(d.protocol(), Protocol::ArcGis { .. }) && normalise(d.path()) == layer
        });
        let Some(index) = found else {
            return (esri::error(400, "Invalid URL", &["Invalid URL"]), None);
        };
        let name = world.datasets[index].name().to_owned();
        let resp = guarded(world, req, &name, false).unwrap_or_else(|| {
            if op {
                arcgis::query(world, index, req)
            } else {
                arcgis::layer_info(world, index, req)
            }
        });
        return (resp, Some(name));
    }
    (Response::text(404, "not found\n"), None)
}

/// The answer a blocking or private fault gives instead of the handler's, if any.
fn guarded(world: &mut World, req: &Request, name: &str, socrata: bool) -> Option<Response> {
    let has_token = req.header("x-app-token").is_some_and(|t| !t.is_empty())
        || req.param("$$app_token").is_some_and(|t| !t.is_empty());
    match world.faults.take_block(name, has_token) {
        Some(Block::Down) => {
            let html = "<html>\r\n<head><title>503 Service Temporarily Unavailable</title></head>\r\n\
                        <body>\r\n<center><h1>503 Service Temporarily Unavailable</h1></center>\r\n\
                        </body>\r\n</html>\r\n";
            return Some(Response::new(503, "text/html", html));
        }
        Some(Block::TooMany(secs)) => {
            let resp = if socrata {
                socrata::error(
                    429,
                    "too_many_requests",
                    "Too many requests; try again later",
                )
            } else {
                Response::json(
                    429,
                    &json!({"error": {"code": 429, "message": "Too many requests. Please try again later.", "details": []}}),
                )
            };
            return Some(resp.with_header("Retry-After", &secs.to_string()));
        }
        None => {}
    }
    if world.faults.is_private(name) {
        world.faults.applied = Some("private");
        return Some(if socrata {
            Response::json(
                403,
                &json!({"code": "permission_denied", "error": true,
                        "message": "You must be logged in to access this resource"}),
            )
        } else {
            esri::error(499, "Token Required", &[])
        });
    }
    None
}
