//! The artifact decoder on arbitrary bytes: it must answer `Ok` or an error, never
//! panic, and a decoded artifact must be usable (validated tables, graph indexable).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(model) = hexrisk_engine::city::CityModel::from_bytes(data) {
        let _ = model.cell_count();
        if let Some(network) = model.road_network() {
            let _ = network.graph.node_count();
        }
    }
});
