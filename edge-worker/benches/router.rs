//! The router API's heaviest handlers (the engine's operations the Worker calls)
//! called directly (no HTTP, no workerd), on the real artifacts: the same bodies
//! `make bench-http` sends over HTTP, so the HTTP overhead is the difference. Each
//! case includes the engine work from the parsed JSON body and serialising the answer
//! to bytes, as the Worker does (the 5,000-cell answers serialise straight from their
//! columns; the route builds a JSON value first).
//!
//! Writes the figures to `build/bench/router-direct.json` (for `bench/report.mjs`).
//!
//! Run: `cargo bench -p hexrisk-edge --bench router` (after `make artifacts`).

use std::time::Instant;

use chrono::{DateTime, Utc};
use hexrisk_engine::artifact::Manifest;
use hexrisk_engine::city::{Atlas, CityModel};
use hexrisk_engine::operations as engine;
use serde_json::{Map, Value, json};

fn atlas() -> Atlas {
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../build/artifacts");
    let manifest: Manifest = serde_json::from_slice(
        &std::fs::read(dir.join(Manifest::FILE_NAME)).expect("run `make artifacts` first"),
    )
    .expect("a manifest");
    let mut atlas = Atlas::default();
    for city in &manifest.cities {
        let bytes = std::fs::read(dir.join(&city.file)).expect("an artifact");
        atlas.insert(CityModel::from_bytes(&bytes).expect("a valid artifact"));
    }
    atlas
}

/// A named handler call.
type Case<'a> = Box<dyn Fn() + 'a>;

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => unreachable!("bodies are objects"),
    }
}

/// Median and 90th percentile of `runs` timed calls, in milliseconds.
fn time(runs: usize, mut call: impl FnMut()) -> (f64, f64) {
    call(); // warm-up: network index, caches
    let mut ms: Vec<f64> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            call();
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    ms.sort_by(f64::total_cmp);
    (ms[runs / 2], ms[runs * 9 / 10])
}

/// The answer as the Worker sends it.
fn bytes(answer: &impl serde::Serialize) {
    drop(serde_json::to_vec(answer).expect("json"));
}

// The Worker writes no files; this benchmark's figures are rewritten whole on every
// run, and a run cut short is run again (clippy.toml is about the builder's outputs).
#[allow(clippy::disallowed_methods)]
fn main() {
    let atlas = atlas();
    let now = "2022-01-03T12:00:00Z"
        .parse::<DateTime<Utc>>()
        .expect("a time")
        .timestamp();
    let lookup = object(json!({"lat": 43.6532, "lng": -79.3832, "ring": 41}));
    let disk = serde_json::to_value(engine::hexes_lookup(&atlas, &lookup, now).expect("a lookup"))
        .expect("json");
    let ids: Vec<Value> = disk["cells"].as_array().expect("cells")[..5000]
        .iter()
        .map(|c| c["h3"].clone())
        .collect();
    let score = object(json!({"hexIds": ids}));
    let route = object(json!({
        "origin": {"lat": 43.6453, "lng": -79.3806},
        "destination": {"lat": 43.6645, "lng": -79.4206},
    }));
    // Each handler with the name of its route in `bench/http/run.mjs`.
    let cases: [(&str, &str, Case); 3] = [
        (
            "hexes_score (5000 ids)",
            "POST /hexes/score (5000 ids)",
            Box::new(|| bytes(&engine::hexes_score(&atlas, &score, now).expect("scores"))),
        ),
        (
            "hexes_lookup (ring 41)",
            "POST /hexes/lookup (ring 41)",
            Box::new(|| bytes(&engine::hexes_lookup(&atlas, &lookup, now).expect("a lookup"))),
        ),
        (
            "route (Toronto, 5 km)",
            "POST /route (Toronto, 5 km)",
            Box::new(|| bytes(&engine::route(&atlas, &route, now).expect("a route"))),
        ),
    ];
    println!("| handler, called directly | median ms | p90 ms |");
    println!("|---|---|---|");
    let mut figures = Vec::new();
    for (name, route, call) in &cases {
        let (median, p90) = time(200, call);
        println!("| {name} | {median:.2} | {p90:.2} |");
        figures.push(json!({"name": name, "route": route, "median_ms": median, "p90_ms": p90}));
    }
    let out = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../build/bench");
    std::fs::create_dir_all(&out).expect("build/bench");
    std::fs::write(
        out.join("router-direct.json"),
        serde_json::to_vec_pretty(&figures).expect("json"),
    )
    .expect("written");
}
