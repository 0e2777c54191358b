//! Vector tiles natively, on the real Toronto artifact: the z14 tile over
//! downtown (hexes and streets), the z12 and z10 tiles around it (hexes), each
//! with the city's scores kept from the previous call (a map asks tile after tile
//! with the same options; a week's scores alone are the scoring benchmark's).
//!
//! Writes the cases and figures to `build/bench/tiles-native.json`; `node
//! bench/wasm/tiles.mjs` times the same tiles in the npm package's wasm.
//!
//! Run: `cargo bench -p hexrisk-engine --bench tiles` (after `make artifacts`).

mod support;
use std::path::PathBuf;

use hexrisk_engine::artifact::Manifest;
use hexrisk_engine::city::{Atlas, CityModel};
use hexrisk_engine::operations;
use serde_json::{Map, Value, json};

/// 2022-01-03 12:00 UTC, the clock of every benchmark.
const NOW: i64 = 1_641_211_200;

/// Downtown Toronto (Union Station) and the tiles over it.
const TILES: [(u32, u64, u64); 3] = [(14, 4579, 5979), (12, 1144, 1494), (10, 286, 373)];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn toronto() -> CityModel {
    let dir = root().join("build/artifacts");
    let manifest: Manifest = serde_json::from_slice(
        &std::fs::read(dir.join(Manifest::FILE_NAME)).expect("run `make artifacts` first"),
    )
    .expect("a valid manifest");
    let file = &manifest.city("city_ca_tor").expect("Toronto is built").file;
    CityModel::from_bytes(&std::fs::read(dir.join(file)).expect("the manifest's file"))
        .expect("a valid artifact")
}

/// [`support::time`] with at least 100 calls.
fn time(call: impl FnMut()) -> Value {
    support::time(100, call)
}

// These figures are rewritten whole on every run (as the scoring benchmark's).
#[allow(clippy::disallowed_methods)]
fn main() {
    let options = Map::new();
    let kept = Atlas::new(vec![toronto()]);
    let cases: Vec<Value> = TILES
        .iter()
        .map(|&(z, x, y)| {
            let id = operations::tile_id(&z.to_string(), &x.to_string(), &y.to_string()).expect("a tile");
            let bytes = operations::tile(&kept, "city_ca_tor", id, &options, NOW).expect("a tile");
            let gzipped = miniz_oxide::deflate::compress_to_vec(&bytes, 6).len() + 18;
            json!({
                "z": z, "x": x, "y": y,
                "bytes": bytes.len(),
                "gzip_bytes": gzipped,
                "kept": time(|| {
                    drop(operations::tile(&kept, "city_ca_tor", id, &options, NOW).expect("a tile"));
                }),
            })
        })
        .collect();
    let figures = json!({ "now_ms": NOW * 1000, "tiles": cases });
    let out = root().join("build/bench");
    std::fs::create_dir_all(&out).expect("build/bench");
    std::fs::write(
        out.join("tiles-native.json"),
        serde_json::to_vec_pretty(&figures).expect("json"),
    )
    .expect("write the figures");
    println!("{}", serde_json::to_string_pretty(&figures).expect("json"));
}
