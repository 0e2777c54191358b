//! The operations of the `requests` fuzz target: the first byte of an input picks one
//! of both APIs' request-body parsers (and the vector tiles'), the rest is its JSON
//! body.
//!
//! Shared (by `#[path]`) between the fuzz target and the builder's native test of the
//! committed seeds (`builder/tests/all/fuzz_seeds.rs`), so the seeds are checked against
//! exactly the operations the fuzzer runs.

use hexrisk_engine::city::Atlas;
use hexrisk_engine::operations;
use serde_json::{Map, Value};

/// How many operations there are; the first byte picks one modulo this.
pub(crate) const OPERATIONS: u8 = 16;

/// The clock of every operation: 2022-01-03 12:00 UTC.
pub(crate) const NOW: i64 = 1_641_211_200;

/// An input as the operation it picks and its body, or `None` when it is empty or
/// its body is not a JSON object (the fuzzer skips those).
pub(crate) fn parse(data: &[u8]) -> Option<(u8, Map<String, Value>)> {
    let (&which, body) = data.split_first()?;
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(body)) => Some((which % OPERATIONS, body)),
        _ => None,
    }
}

/// Why an operation refused its body: the engine's error, as both APIs and the
/// package report it.
#[derive(Debug)]
// Read only through `Debug`, when a test reports a refused seed.
#[allow(dead_code)]
pub(crate) struct Refusal(operations::QueryError);

/// An engine answer serialised as the Worker sends it, so that the fuzzer reaches
/// the serialisers too (the list answers have their own); one that does not
/// serialise is a bug.
fn engine<T: serde::Serialize>(result: Result<T, operations::QueryError>) -> Result<(), Refusal> {
    let answer = result.map_err(Refusal)?;
    let bytes = serde_json::to_vec(&answer);
    assert!(
        bytes.is_ok(),
        "an answer that does not serialise: {bytes:?}"
    );
    Ok(())
}

/// Runs operation `which % OPERATIONS` on `body`: `Ok` for an answer, or the error.
pub(crate) fn run(atlas: &Atlas, which: u8, body: &Map<String, Value>) -> Result<(), Refusal> {
    let now = NOW;
    match which % OPERATIONS {
        0 => engine(operations::predict(atlas, body, now)),
        1 => engine(operations::predict_batch(atlas, body, now)),
        2 => engine(operations::route_risk(atlas, body, now)),
        3 => engine(operations::hexes_score(atlas, body, now)),
        4 => engine(operations::hexes_lookup(atlas, body, now)),
        5 => engine(operations::route(atlas, body, now)),
        6 => engine(operations::evaluate(atlas, body, now)),
        7 => engine(operations::evaluate_hex_path(atlas, body, now)),
        8 => engine(operations::hexes_breakdown(atlas, body, now)),
        9 => engine(operations::hexes_all(atlas, body, now).map(|(answer, _)| answer)),
        10 => engine(operations::precincts_all_scores(atlas, body, now)),
        11 => engine(operations::precincts_geojson(atlas, body, now)),
        12 => engine(operations::reach(atlas, body, now)),
        13 => engine(operations::search_places(atlas, body)),
        14 => engine(operations::reverse_place(atlas, body)),
        // A vector tile as the package asks for it: `{city, z, x, y, ...options}`.
        _ => {
            let number = |name| body.get(name).and_then(Value::as_u64).unwrap_or(u64::MAX);
            let city = body.get("city").and_then(Value::as_str).unwrap_or_default();
            let tile = operations::served_tile(number("z"), number("x"), number("y"))
                .and_then(|id| operations::tile(atlas, city, id, body, now));
            tile.map(|_| ()).map_err(Refusal)
        }
    }
}
