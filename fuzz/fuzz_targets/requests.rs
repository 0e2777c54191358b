//! Every request-body parser of both APIs on arbitrary JSON, against a real city
//! (San Francisco's artifact from `build/artifacts`, or `HEXRISK_FUZZ_ARTIFACT`): the
//! first byte picks the operation, the rest is the body (`operations/requests.rs`).
//! Errors are fine; panics are not.
#![no_main]

use std::sync::OnceLock;

use hexrisk_engine::city::{Atlas, CityModel};
use libfuzzer_sys::fuzz_target;

#[path = "../operations/artifacts.rs"]
mod artifacts;
#[path = "../operations/requests.rs"]
mod operations;

fn atlas() -> &'static Atlas {
    static ATLAS: OnceLock<Atlas> = OnceLock::new();
    ATLAS.get_or_init(|| {
        let bytes = std::env::var("HEXRISK_FUZZ_ARTIFACT").map_or_else(
            |_| artifacts::current("city_us_sfo"),
            |path| std::fs::read(path).expect("HEXRISK_FUZZ_ARTIFACT is readable"),
        );
        Atlas::new(vec![
            CityModel::from_bytes(&bytes).expect("a valid artifact"),
        ])
    })
}

fuzz_target!(|data: &[u8]| {
    if let Some((which, body)) = operations::parse(data) {
        let _ = operations::run(atlas(), which, &body);
    }
});
