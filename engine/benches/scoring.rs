//! The map's three grid jobs natively, on the real Toronto artifact:
//! - the ring of k = 41 around a point with each cell's score (5,167 cells),
//! - scoring 5,000 given cells (the first 5,000 of that ring),
//! - listing the covered cells of a viewport (Toronto's bounds) with their scores,
//!
//! each in columns (`operations::ScoredCells`, what the npm package's `ringScores`,
//! `cellScores` and `boxScores` return) and as the router API's JSON answers
//! (`operations::hexes_lookup`, `hexes_score`, `hexes_all`), plus two of the parts
//! (H3 `grid_disk` alone; one city's scores for a week).
//!
//! Writes the cases to `build/bench/scoring-cases.json` (the wasm and h3-js
//! benchmark replays them) and the figures to `build/bench/scoring-native.json`.
//!
//! Run: `cargo bench -p hexrisk-engine --bench scoring` (after `make artifacts`).

mod support;
use std::path::PathBuf;

use hexrisk_engine::artifact::Manifest;
use hexrisk_engine::city::{Atlas, CityModel};
use hexrisk_engine::grid;
use hexrisk_engine::operations::options::ScoringQuery;
use hexrisk_engine::operations::{self, ScoreMemo, ScoredCells};
use hexrisk_engine::scoring::CityScores;
use serde_json::{Map, Value, json};

/// 2022-01-03 12:00 UTC, the clock of every benchmark (a week inside every city's
/// forecasts).
const NOW: i64 = 1_641_211_200;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn toronto() -> Atlas {
    let dir = std::env::var_os("HEXRISK_ARTIFACT_DIR")
        .map_or_else(|| root().join("build/artifacts"), PathBuf::from);
    let manifest: Manifest = serde_json::from_slice(
        &std::fs::read(dir.join(Manifest::FILE_NAME)).expect("run `make artifacts` first"),
    )
    .expect("a valid manifest");
    let file = &manifest.city("city_ca_tor").expect("Toronto is built").file;
    let bytes = std::fs::read(dir.join(file)).expect("the manifest's file");
    Atlas::new(vec![
        CityModel::from_bytes(&bytes).expect("a valid artifact"),
    ])
}

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => unreachable!("requests are objects"),
    }
}

/// [`support::time`] with at least 200 calls.
fn time(call: impl FnMut()) -> Value {
    support::time(200, call)
}

// The engine has no file-writing code to share (clippy.toml sends the builder's
// writes through `hexrisk_builder::atomic`); these figures are rewritten whole on
// every run, and a run cut short is run again.
#[allow(clippy::disallowed_methods)]
fn main() {
    let atlas = toronto();
    let city = &atlas.cities()[0];
    let bounds = city.artifact().bounds;
    let lookup = object(json!({"lat": 43.6532, "lng": -79.3832, "ring": 41}));
    let mut memo = ScoreMemo::new();
    let ring = operations::ring_scores(&atlas, &lookup, NOW, &mut memo).expect("a ring");
    let ids: Vec<u64> = ring.cells[..5000].iter().map(|&c| u64::from(c)).collect();
    let texts: Vec<String> = ring.cells[..5000].iter().map(ToString::to_string).collect();
    let score = object(json!({ "hexIds": texts }));
    let viewport = object(json!({
        "west": bounds.west, "south": bounds.south, "east": bounds.east, "north": bounds.north,
    }));
    let in_view = operations::box_scores(&atlas, &viewport, NOW, &mut memo).expect("a viewport");
    let no_options = Map::new();
    let scoring = ScoringQuery::default();
    let week = scoring.resolve(city, NOW).expect("a week");

    let figures = json!({
        "cells": {
            "ring": ring.len(),
            "ring_covered": ring.color_indexes.iter().filter(|&&c| c >= 0).count(),
            "score": ids.len(),
            "viewport": in_view.len(),
        },
        // Fresh memo each call: the city's scores are computed every time.
        "columns": {
            "ring41": time(|| {
                drop(operations::ring_scores(&atlas, &lookup, NOW, &mut ScoreMemo::new()).expect("a ring"));
            }),
            "score5000": time(|| {
                drop(
                    operations::cell_scores(&atlas, &ids, &no_options, NOW, &mut ScoreMemo::new())
                        .expect("scores"),
                );
            }),
            "viewport": time(|| {
                drop(operations::box_scores(&atlas, &viewport, NOW, &mut ScoreMemo::new()).expect("a box"));
            }),
        },
        // One memo across calls: the same options again, as a map repeats them.
        "columns_kept": {
            "ring41": time(|| {
                drop(operations::ring_scores(&atlas, &lookup, NOW, &mut memo).expect("a ring"));
            }),
            "score5000": time(|| {
                drop(operations::cell_scores(&atlas, &ids, &no_options, NOW, &mut memo).expect("scores"));
            }),
            "viewport": time(|| {
                drop(operations::box_scores(&atlas, &viewport, NOW, &mut memo).expect("a box"));
            }),
        },
        "json": {
            "ring41": time(|| drop(operations::hexes_lookup(&atlas, &lookup, NOW).expect("a lookup"))),
            "score5000": time(|| drop(operations::hexes_score(&atlas, &score, NOW).expect("scores"))),
            "viewport": time(|| drop(operations::hexes_all(&atlas, &viewport, NOW).expect("a box"))),
        },
        "parts": {
            "grid_disk41": time(|| drop(grid::disk(ring.cells[0], 41).expect("a disk"))),
            "city_scores": time(|| drop(CityScores::compute(city, week.week, &week.params))),
            "score_cells_only": time(|| {
                drop(
                    ScoredCells::score(&atlas, ring.cells.clone(), &scoring, NOW, &mut ScoreMemo::new())
                        .expect("scores"),
                );
            }),
        },
    });
    let cases = json!({
        "now_ms": NOW * 1000,
        "lookup": lookup,
        "score_ids": texts,
        "viewport": viewport,
        "expect": {"ring": ring.len(), "viewport": in_view.len()},
    });
    let out = root().join("build/bench");
    std::fs::create_dir_all(&out).expect("build/bench");
    std::fs::write(
        out.join("scoring-cases.json"),
        serde_json::to_vec(&cases).unwrap(),
    )
    .expect("written");
    std::fs::write(
        out.join("scoring-native.json"),
        serde_json::to_vec_pretty(&figures).unwrap(),
    )
    .expect("written");
    println!("{}", serde_json::to_string_pretty(&figures).unwrap());
}
