//! The control surface under `/_sim/`, on the same server, so a test in any language can
//! drive the simulation with plain GETs. Every answer is JSON; bad parameters get a 400
//! `{"error": "..."}`.
//!
//! * `/_sim/clock`: `{"clock": "2021-01-05T10:00:00.000Z", "week": n}`
//! * `/_sim/advance?weeks=n` (default 1, at most 520): the weekly reports
//! * `/_sim/fault?dataset=D&kind=K[&n=N][&retry_after=S][&hits_app_token=true]` with K one
//!   of `down`, `too_many_requests`, `truncated_page`, `repeated_rows`, `skipped_rows`,
//!   `private`, or `clear` (empties the queue and makes the dataset public)
//! * `/_sim/rows?dataset=D`: the rows the dataset publishes now ([`Dataset::current_rows`])
//! * `/_sim/count?dataset=D`: how many rows it publishes now
//! * `/_sim/wholesale?dataset=D`: replace the dataset wholesale now
//! * `/_sim/rename?dataset=D&from=OLD&to=NEW`: rename a field
//! * `/_sim/log`: the request log
//! * `/_sim/datasets`: names, paths, protocols and row counts
//!
//! [`Dataset::current_rows`]: crate::dataset::Dataset::current_rows

use serde_json::{Value, json};

use crate::faults::Fault;
use crate::message::{Request, Response};
use crate::schema::{Protocol, fixed_timestamp};
use crate::script::World;

fn bad(message: &str) -> Response {
    Response::json(400, &json!({"error": message}))
}

fn dataset_name<'a>(world: &World, req: &'a Request) -> Result<&'a str, Response> {
    let name = req.param("dataset").ok_or_else(|| bad("missing dataset"))?;
    if world.dataset(name).is_none() {
        return Err(Response::json(
            404,
            &json!({"error": format!("no dataset {name}")}),
        ));
    }
    Ok(name)
}

fn number(req: &Request, name: &str, default: u32) -> Result<u32, Response> {
    req.param(name).map_or(Ok(default), |v| {
        v.parse()
            .map_err(|_| bad(&format!("{name} must be a number")))
    })
}

/// Answers a `/_sim/...` request.
pub(crate) fn handle(world: &mut World, req: &Request) -> Response {
    match handle_inner(world, req) {
        Ok(v) => Response::json(200, &v),
        Err(resp) => resp,
    }
}

fn handle_inner(world: &mut World, req: &Request) -> Result<Value, Response> {
    let clock = |w: &World| json!({"clock": fixed_timestamp(w.clock().timestamp_millis()), "week": w.week()});
    match req.path.trim_end_matches('/') {
        "/_sim/clock" => Ok(clock(world)),
        "/_sim/advance" => {
            let weeks = number(req, "weeks", 1)?;
            if weeks > 520 {
                return Err(bad("weeks must be at most 520"));
            }
            let reports: Vec<Value> = (0..weeks)
                .map(|_| world.advance_week())
                .map(|r| {
                    json!({"week": r.week, "clock": fixed_timestamp(r.clock.timestamp_millis()),
                           "published": r.published, "revised": r.revised, "deleted": r.deleted,
                           "wholesale": r.wholesale, "late_revised": r.late_revised,
                           "restamped": r.restamped})
                })
                .collect();
            let mut out = clock(world);
            out["weeks"] = Value::Array(reports);
            Ok(out)
        }
        "/_sim/fault" => {
            let name = dataset_name(world, req)?;
            let n = number(req, "n", 1)?.max(1);
            let fault = match req.param("kind").unwrap_or_default() {
                "down" => Fault::Down { requests: n },
                "too_many_requests" => Fault::TooManyRequests {
                    requests: n,
                    retry_after_secs: number(req, "retry_after", 1)?,
                    hits_app_token: req.param("hits_app_token") == Some("true"),
                },
                "truncated_page" => Fault::TruncatedPage,
                "repeated_rows" => Fault::RepeatedRows,
                "skipped_rows" => Fault::SkippedRows,
                "private" => Fault::Private,
                "clear" => {
                    world.faults_mut().clear(name);
                    return Ok(json!({"ok": true, "dataset": name, "pending": []}));
                }
                other => return Err(bad(&format!("unknown fault kind {other:?}"))),
            };
            world.faults_mut().inject(name, fault);
            let pending: Vec<&str> = world.faults().pending(name).iter().map(Fault::name).collect();
            Ok(json!({"ok": true, "dataset": name, "pending": pending, "private": world.faults().is_private(name)}))
        }
        "/_sim/rows" => {
            let name = dataset_name(world, req)?;
            Ok(Value::Array(world.dataset(name).map(crate::Dataset::current_rows).unwrap_or_default()))
        }
        "/_sim/count" => {
            let name = dataset_name(world, req)?;
            Ok(json!({"dataset": name, "rows": world.dataset(name).map_or(0, crate::Dataset::len)}))
        }
        "/_sim/wholesale" => {
            let name = dataset_name(world, req)?.to_owned();
            let now = world.clock();
            if let Some(ds) = world.dataset_mut(&name) {
                ds.replace_wholesale(now);
            }
            Ok(json!({"ok": true, "dataset": name}))
        }
        "/_sim/rename" => {
            let name = dataset_name(world, req)?.to_owned();
            let (Some(from), Some(to)) = (req.param("from"), req.param("to")) else {
                return Err(bad("missing from or to"));
            };
            let ok = world.dataset_mut(&name).is_some_and(|ds| ds.rename_field(from, to));
            if ok { Ok(json!({"ok": true})) } else { Err(bad("unknown field or name taken")) }
        }
        "/_sim/log" => Ok(Value::Array(
            world
                .faults()
                .log()
                .iter()
                .map(|e| json!({"target": e.target, "status": e.status, "dataset": e.dataset, "fault": e.fault}))
                .collect(),
        )),
        "/_sim/datasets" => Ok(Value::Array(
            world
                .datasets()
                .iter()
                .map(|d| {
                    let protocol = match d.protocol() {
                        Protocol::Socrata => "socrata",
                        Protocol::ArcGis { .. } => "arcgis",
                    };
                    json!({"name": d.name(), "path": d.path(), "protocol": protocol, "rows": d.len()})
                })
                .collect(),
        )),
        _ => Err(Response::json(404, &json!({"error": "unknown control path"}))),
    }
}
