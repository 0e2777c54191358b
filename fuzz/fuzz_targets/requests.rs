//! Every request-body parser of both APIs on arbitrary JSON, against a real city
//! (San Francisco's artifact from `build/artifacts`, or `HEXRISK_FUZZ_ARTIFACT`): the
//! first byte picks the operation, the rest is the body. Errors are fine; panics are
//! not.
#![no_main]

use std::sync::OnceLock;

use hexrisk_engine::model::{Atlas, CityModel};
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value};

fn atlas() -> &'static Atlas {
    static ATLAS: OnceLock<Atlas> = OnceLock::new();
    ATLAS.get_or_init(|| {
        let path = std::env::var("HEXRISK_FUZZ_ARTIFACT").unwrap_or_else(|_| {
            concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../build/artifacts/city_us_sfo.hxrk"
            )
            .to_owned()
        });
        let bytes = std::fs::read(&path).expect("run `make artifacts` first");
        Atlas::new(vec![
            CityModel::from_bytes(&bytes).expect("a valid artifact"),
        ])
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&which, body)) = data.split_first() else {
        return;
    };
    let Ok(Value::Object(body)) = serde_json::from_slice::<Value>(body) else {
        return;
    };
    let atlas = atlas();
    let now = 1_641_211_200; // 2022-01-03 12:00 UTC
    let at = chrono::DateTime::from_timestamp(now, 0).unwrap();
    let strings: Map<String, Value> = body.clone();
    use hexrisk_edge::api::prediction;
    use hexrisk_engine::{predictions, service};
    let _ = match which % 12 {
        0 => predictions::predict(atlas, &body, now).map(drop),
        1 => prediction::predict_batch(atlas, &body, at)
            .map(drop)
            .map_err(drop)
            .or(Ok(())),
        2 => prediction::route_risk(atlas, &body, at)
            .map(drop)
            .map_err(drop)
            .or(Ok(())),
        3 => service::hexes_score(atlas, &body, now).map(drop),
        4 => service::hexes_lookup(atlas, &body, now).map(drop),
        5 => service::route(atlas, &body, now).map(drop),
        6 => service::evaluate(atlas, &body, now).map(drop),
        7 => service::evaluate_hex_path(atlas, &body, now).map(drop),
        8 => service::hexes_breakdown(atlas, &strings, now).map(drop),
        9 => service::hexes_all(atlas, &strings, now).map(drop),
        10 => service::precincts_all_scores(atlas, &strings, now).map(drop),
        _ => service::precincts_geojson(atlas, &strings, now).map(drop),
    };
});
