//! Cell ids and coordinates: text to cell, numbers to cell, rings, crossings.
#![no_main]

use hexrisk_engine::grid;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(cell) = grid::parse_cell(text) {
            let _ = grid::disk(cell, 2);
        }
    }
    if data.len() >= 32 {
        let f = |i: usize| f64::from_le_bytes(data[i..i + 8].try_into().unwrap());
        let (a, b) = (grid::validate(f(0), f(8)), grid::validate(f(16), f(24)));
        if let (Ok(a), Ok(b)) = (a, b) {
            // Keep segments city-sized so one input stays fast.
            if a.distance_m(b) < 50_000.0 {
                let _ = grid::cells_crossed(&[a, b], grid::RESOLUTION);
            }
        }
    }
});
