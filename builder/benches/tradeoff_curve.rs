//! The safety–length trade-off per city, from the trade-off sets of random pairs:
//! the exposure (expected incidents passed, as routes are costed) a traveller avoids by accepting 5, 10 or 20 % more length than the
//! shortest route (the least exposed route of the set within that length, against
//! the shortest), median over the pairs; and how often any saving is there at all.
//!
//! Pairs 2 to 10 km apart (100 per city, 300 for Toronto as the routing benchmark
//! draws them), default scoring options, the week `ROUTE_SAMPLE_NOW` falls in.
//! Writes `build/bench/tradeoff-curve.json`; `bench/report.mjs` puts the table in
//! `docs/ROUTING.md`.
//!
//! Run: `cargo bench -p hexrisk-builder --bench tradeoff_curve` (after `make artifacts`).

use hexrisk_builder::references::samples::{ROUTE_SAMPLE_NOW, load_atlas, route_pairs};
use hexrisk_engine::operations::options::default_week;
use hexrisk_engine::routing::Tradeoff;
use hexrisk_engine::scoring::{CityScores, ScoringParams, StreetRisk};
use serde_json::json;

/// Extra lengths the curve is read at, percent.
const STRETCHES_PCT: [f64; 3] = [5.0, 10.0, 20.0];

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    if values.is_empty() {
        return f64::NAN;
    }
    values[values.len() / 2]
}

/// Percent of the shortest route's exposure avoided by the least exposed route of
/// the set no more than `pct` percent longer.
fn avoided_within(set: &Tradeoff, pct: f64) -> f64 {
    let shortest = &set.routes[0];
    if shortest.exposure_m <= 0.0 {
        return 0.0;
    }
    let limit = shortest.length_m * (1.0 + pct / 100.0);
    let least = set
        .routes
        .iter()
        .filter(|r| r.length_m <= limit)
        .map(|r| r.exposure_m)
        .fold(shortest.exposure_m, f64::min);
    100.0 * (shortest.exposure_m - least) / shortest.exposure_m
}

fn main() {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let atlas = load_atlas(&root.join("build/artifacts"))
        .unwrap_or_else(|e| panic!("{e} (run `make artifacts` first)"));
    let mut cities = Vec::new();
    for model in atlas.cities() {
        let code = model.artifact().city.code.clone();
        let count = if code == "city_ca_tor" { 300 } else { 100 };
        let pairs = route_pairs(model, count, 7, 2_000.0..=10_000.0);
        let Some(network) = model.road_network() else {
            continue;
        };
        let (graph, index) = (network.graph, network.index);
        let week = default_week(model, ROUTE_SAMPLE_NOW);
        let scores = CityScores::compute(model, week, &ScoringParams::default());
        let street = StreetRisk::of(model, &scores, &network);
        let risks = street.risks();
        let mut at: Vec<Vec<f64>> = vec![Vec::new(); STRETCHES_PCT.len()];
        let mut any_saving = 0;
        let mut corners = Vec::new();
        for (a, b) in &pairs {
            let (from, to) = (
                index.snap(graph, *a).expect("snaps"),
                index.snap(graph, *b).expect("snaps"),
            );
            let set = index.tradeoff(graph, risks, &from, &to).expect("a set");
            for (column, &pct) in at.iter_mut().zip(&STRETCHES_PCT) {
                column.push(avoided_within(&set, pct));
            }
            any_saving += usize::from(set.routes.len() > 1);
            corners.push(set.routes.len() as f64);
        }
        let row = json!({
            "city": code,
            "name": model.artifact().city.name,
            "network": graph.kind.name(),
            "week_of": model.week_monday(week).to_string(),
            "pairs": pairs.len(),
            "median_avoided_pct": STRETCHES_PCT.iter().zip(&at).map(|(pct, column)| json!({
                "extra_length_pct": pct,
                "median": median(column.clone()),
                "mean": column.iter().sum::<f64>() / column.len().max(1) as f64,
            })).collect::<Vec<_>>(),
            "pairs_with_a_tradeoff": any_saving,
            "median_corners": median(corners),
        });
        println!("{row}");
        cities.push(row);
    }
    let out = root.join("build/bench");
    hexrisk_builder::atomic::write(
        &out.join("tradeoff-curve.json"),
        &serde_json::to_vec_pretty(&json!({"cities": cities})).unwrap(),
    )
    .unwrap();
}
