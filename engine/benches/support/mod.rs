//! What the engine's benchmarks share: timing a call.

use std::time::Instant;

use serde_json::{Value, json};

/// Median, 90th percentile and runs of timed calls, in milliseconds, after five
/// untimed ones; runs until both `min_calls` calls and half a second have passed.
pub(crate) fn time(min_calls: usize, mut call: impl FnMut()) -> Value {
    for _ in 0..5 {
        call();
    }
    let started = Instant::now();
    let mut ms = Vec::new();
    while ms.len() < min_calls || started.elapsed().as_secs_f64() < 0.5 {
        let t = Instant::now();
        call();
        ms.push(t.elapsed().as_secs_f64() * 1e3);
    }
    ms.sort_by(f64::total_cmp);
    let at = |q: f64| ms[((ms.len() - 1) as f64 * q).round() as usize];
    json!({"median_ms": at(0.5), "p90_ms": at(0.9), "n": ms.len()})
}
