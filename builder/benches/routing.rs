//! Routing speed on Toronto's street network, natively: random origin-destination
//! pairs 2 to 15 km apart, timed one by one for
//! - the whole request as the APIs serve it (`route_request::route`: the week's scores,
//!   kept on the city after the first request, snapping, the search, the shortest route
//!   for the detour, corridor and metrics), once between the reference searches below
//!   (which empty the caches) and once back to back (as the wasm benchmark times it),
//! - one customisation of the contraction hierarchy for the request's costs, and the
//!   hierarchy's search alone with that metric (its cost checked against the
//!   reference on every pair),
//! - the scores of the week alone, computed (as the first request with a week and
//!   options does) and found kept (as every later one does), and the ways' risks
//!   from them, worked out (with new scores) and found kept with them,
//! - the engine's A* search alone, and
//! - petgraph's Dijkstra on the same graph, costs and snapped end points;
//! - the whole `method: "tradeoff"` request and the trade-off search alone, and
//! - a 15-minute safe-reach walk from each pair's origin.
//!
//! Writes the pairs to `build/bench/route-pairs.json` (the wasm benchmark replays
//! them) and the figures to `build/bench/routing-native.json`.
//!
//! Run: `cargo bench -p hexrisk-builder --bench routing` (after `make artifacts`).

use std::time::Instant;

use hexrisk_builder::references::routes::Reference;
use hexrisk_builder::references::samples::{self, ROUTE_SAMPLE_NOW, route_pairs};
use hexrisk_engine::city::{Atlas, CityModel, Network};
use hexrisk_engine::corridor::{self, TravelMode};
use hexrisk_engine::operations::options::default_week;
use hexrisk_engine::operations::route_request::{self, RouteQuery};
use hexrisk_engine::plan::{self, ReachRequest};
use hexrisk_engine::routing::{CostModel, RouteMethod};
use hexrisk_engine::scoring::{CityScores, ScoringParams, StreetRisk};
use serde_json::json;

const PAIRS: usize = 300;

fn summary(mut ms: Vec<f64>) -> serde_json::Value {
    ms.sort_by(f64::total_cmp);
    let at = |q: f64| ms[((ms.len() - 1) as f64 * q).round() as usize];
    json!({"median_ms": at(0.5), "p90_ms": at(0.9), "max_ms": at(1.0), "n": ms.len()})
}

/// Timings of the trade-off and safe reach on the same pairs: the whole tradeoff
/// request, the set's search alone, and a 15-minute walk from each origin.
fn tradeoff_and_reach(
    atlas: &Atlas,
    requests: &[serde_json::Value],
    pairs: &[(h3o::LatLng, h3o::LatLng)],
    scores: &CityScores,
) -> serde_json::Value {
    let model = &atlas.cities()[0];
    let network = model.road_network().expect("Toronto has roads");
    let (graph, index) = (network.graph, network.index);
    let street = StreetRisk::of(model, scores, &network);
    let risks = street.risks();
    let (mut tradeoff_full, mut tradeoff_set, mut reach_walk) =
        (Vec::new(), Vec::new(), Vec::new());
    let (mut set_sizes, mut corners) = (Vec::new(), Vec::new());
    for (request, (a, b)) in requests.iter().zip(pairs) {
        let mut body = request.clone();
        body["method"] = json!("tradeoff");
        let query: RouteQuery = serde_json::from_value(body).expect("a valid request");
        let t = Instant::now();
        let answer = route_request::route(atlas, &query, ROUTE_SAMPLE_NOW).expect("a set");
        tradeoff_full.push(t.elapsed().as_secs_f64() * 1e3);
        set_sizes.push(answer.answer.alternatives.len() as f64 + 1.0);

        let (from, to) = (
            index.snap(graph, *a).unwrap(),
            index.snap(graph, *b).unwrap(),
        );
        let t = Instant::now();
        let set = index.tradeoff(graph, risks, &from, &to).expect("a set");
        tradeoff_set.push(t.elapsed().as_secs_f64() * 1e3);
        corners.push(set.routes.len() as f64);

        let walk = ReachRequest {
            origin: *a,
            minutes: 15.0,
            mode: TravelMode::Walking,
        };
        let t = Instant::now();
        let reached = plan::reach(model, scores, &walk).expect("a reach");
        reach_walk.push(t.elapsed().as_secs_f64() * 1e3);
        std::hint::black_box(reached);
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    json!({
        "tradeoff_request": summary(tradeoff_full),
        "tradeoff_set": summary(tradeoff_set),
        "tradeoff_mean_routes": mean(&set_sizes),
        "tradeoff_mean_corners": mean(&corners),
        "reach_walk_15_min": summary(reach_walk),
    })
}

/// The hierarchy of every city's network: arcs, the time to build its topology from
/// the stored order, one customisation (median of 10) and a metric's size.
fn hierarchies(root: &std::path::Path) -> serde_json::Value {
    let dir = root.join("build/artifacts");
    let mut out = serde_json::Map::new();
    for code in ["city_ca_tor", "city_us_sfo", "city_us_hou"] {
        let bytes =
            std::fs::read(samples::current_file(&dir, code)).expect("run `make artifacts` first");
        let model = CityModel::from_bytes(&bytes).expect("a valid artifact");
        let Some(graph) = model.artifact().road_graph.as_ref() else {
            continue;
        };
        let t = Instant::now();
        let hierarchy = hexrisk_engine::routing::cch::Hierarchy::new(graph);
        let topology_ms = t.elapsed().as_secs_f64() * 1e3;
        let week = default_week(&model, ROUTE_SAMPLE_NOW);
        let scores = CityScores::compute(&model, week, &ScoringParams::default());
        let network = model.road_network().expect("a graph");
        let street = StreetRisk::of(&model, &scores, &network);
        let costs = CostModel::from_risks(street.risks(), RouteMethod::Safest.alpha());
        let mut times = Vec::new();
        let mut bytes = 0;
        for _ in 0..10 {
            let t = Instant::now();
            let metric = hierarchy.customise(graph, &costs);
            times.push(t.elapsed().as_secs_f64() * 1e3);
            bytes = metric.heap_bytes();
        }
        out.insert(
            code.into(),
            json!({
                "nodes": graph.node_count(),
                "edges": graph.edge_count(),
                "arcs": hierarchy.arc_count(),
                "topology_ms": topology_ms,
                "customisation": summary(times),
                "metric_mib": bytes as f64 / (1024.0 * 1024.0),
            }),
        );
    }
    serde_json::Value::Object(out)
}

/// Where a whole request's time goes, each part timed alone on every pair: its two
/// searches (the route and the shortest one it is explained against), both lines'
/// geometry and corridor evaluation, the route's hex-path metrics and its explanation.
fn request_parts(
    model: &CityModel,
    network: Network<'_>,
    (week, scores): (usize, &CityScores),
    costs: &CostModel,
    pairs: &[(h3o::LatLng, h3o::LatLng)],
) -> serde_json::Value {
    let (graph, index) = (network.graph, network.index);
    let length_costs = CostModel::lengths();
    let mode = TravelMode::Walking;
    let (mut searches, mut lines, mut hex_path, mut explanation) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (a, b) in pairs {
        let (from, to) = (
            index.snap(graph, *a).unwrap(),
            index.snap(graph, *b).unwrap(),
        );
        let t = Instant::now();
        let best = index.search(graph, costs, &from, &to).expect("a path");
        let shortest = index
            .search(graph, &length_costs, &from, &to)
            .expect("a path");
        searches.push(t.elapsed().as_secs_f64() * 1e3);
        let t = Instant::now();
        let [best_line, shortest_line] = [&best, &shortest].map(|path| {
            let line = index.line(graph, path);
            corridor::evaluate_measured_line(model, scores, &line.points, &line.segment_m, mode)
        });
        lines.push(t.elapsed().as_secs_f64() * 1e3);
        let t = Instant::now();
        let metrics = corridor::evaluate_hex_path(model, scores, &best_line.hex_path, mode);
        hex_path.push(t.elapsed().as_secs_f64() * 1e3);
        let t = Instant::now();
        let explained = plan::explain(
            model,
            week,
            &ScoringParams::default(),
            &best_line,
            &shortest_line,
        );
        explanation.push(t.elapsed().as_secs_f64() * 1e3);
        let _ = std::hint::black_box((metrics, explained));
    }
    json!({
        "searches": summary(searches),
        "lines_evaluated": summary(lines),
        "hex_path_metrics": summary(hex_path),
        "explanation": summary(explanation),
    })
}

/// Per pair: the whole request, the A* search, the hierarchy's search with `metric`
/// (for `costs`) and the reference Dijkstra, whose cost both searches must equal.
fn whole_requests_and_searches(
    atlas: &Atlas,
    requests: &[serde_json::Value],
    pairs: &[(h3o::LatLng, h3o::LatLng)],
    costs: &CostModel,
    metric: &hexrisk_engine::routing::cch::Metric,
) -> serde_json::Value {
    let network = atlas.cities()[0].road_network().expect("Toronto has roads");
    let (graph, index) = (network.graph, network.index);
    let mut reference = Reference::new(graph, costs);
    let (mut full, mut search, mut dijkstra) = (Vec::new(), Vec::new(), Vec::new());
    let mut hierarchy_search = Vec::new();
    let queries: Vec<RouteQuery> = requests
        .iter()
        .map(|request| serde_json::from_value(request.clone()).expect("a valid request"))
        .collect();
    for (query, (a, b)) in queries.iter().zip(pairs) {
        let t = Instant::now();
        let answer = route_request::route(atlas, query, ROUTE_SAMPLE_NOW).expect("a route");
        full.push(t.elapsed().as_secs_f64() * 1e3);
        std::hint::black_box(answer);

        let (from, to) = (
            index.snap(graph, *a).unwrap(),
            index.snap(graph, *b).unwrap(),
        );
        let t = Instant::now();
        let path = index.astar(graph, costs, None, &from, &to).expect("a path");
        search.push(t.elapsed().as_secs_f64() * 1e3);

        let t = Instant::now();
        let fast = index
            .search_with_metric(graph, costs, metric, &from, &to)
            .expect("a path");
        hierarchy_search.push(t.elapsed().as_secs_f64() * 1e3);

        let t = Instant::now();
        let expected = reference
            .cost(graph, index, costs, &from, &to)
            .expect("a path");
        dijkstra.push(t.elapsed().as_secs_f64() * 1e3);
        assert!(
            (path.cost - expected).abs() <= 1e-9 * expected.max(1.0),
            "A* is not optimal"
        );
        assert!(
            (fast.cost - expected).abs() <= 1e-9 * expected.max(1.0),
            "the hierarchy's route costs {} against the reference's {expected}",
            fast.cost
        );
    }

    // The same requests again, one after another with nothing between them, as the
    // wasm benchmark times its requests: the caches keep what the last request used,
    // where above the reference searches between requests had emptied them.
    let back_to_back: Vec<f64> = queries
        .iter()
        .map(|query| {
            let t = Instant::now();
            let answer = route_request::route(atlas, query, ROUTE_SAMPLE_NOW).expect("a route");
            let elapsed = t.elapsed().as_secs_f64() * 1e3;
            std::hint::black_box(answer);
            elapsed
        })
        .collect();

    json!({
        "route_request": summary(full),
        "route_request_back_to_back": summary(back_to_back),
        "hierarchy_search": summary(hierarchy_search),
        "astar_search": summary(search),
        "petgraph_dijkstra": summary(dijkstra),
    })
}

/// Milliseconds of 30 runs of `what`, one by one.
fn times(what: &mut dyn FnMut()) -> Vec<f64> {
    (0..30)
        .map(|_| {
            let t = Instant::now();
            what();
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect()
}

/// The week's scores, computed and found kept, and the ways' risks from them, worked
/// out and found kept with them, 30 times each.
fn scores_and_risks(
    model: &CityModel,
    network: &Network<'_>,
    week: usize,
    scores: &CityScores,
) -> serde_json::Value {
    let scores_ms = times(&mut || {
        std::hint::black_box(CityScores::compute(model, week, &ScoringParams::default()));
    });
    let kept_scores_ms = times(&mut || {
        std::hint::black_box(CityScores::kept(model, week, &ScoringParams::default()));
    });
    // Fresh copies of the scores keep no risks, so each is worked out.
    let fresh: Vec<CityScores> = (0..30).map(|_| scores.clone()).collect();
    let mut fresh = fresh.iter();
    let street_risk_ms = times(&mut || {
        let scores = fresh.next().expect("one copy per timing");
        std::hint::black_box(StreetRisk::of(model, scores, network));
    });
    let street_risk_kept_ms = times(&mut || {
        std::hint::black_box(StreetRisk::of(model, scores, network));
    });

    json!({
        "scores_for_the_week": summary(scores_ms),
        "kept_scores": summary(kept_scores_ms),
        "street_risk": summary(street_risk_ms),
        "street_risk_kept": summary(street_risk_kept_ms),
    })
}

fn main() {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let artifact = std::env::var_os("HEXRISK_BENCH_ARTIFACT").map_or_else(
        || samples::current_file(&root.join("build/artifacts"), "city_ca_tor"),
        std::path::PathBuf::from,
    );
    let bytes = std::fs::read(&artifact)
        .unwrap_or_else(|e| panic!("{}: {e} (run `make artifacts` first)", artifact.display()));
    let atlas = Atlas::new(vec![
        CityModel::from_bytes(&bytes).expect("a valid artifact"),
    ]);
    let model = &atlas.cities()[0];

    let started = Instant::now();
    let network = model.road_network().expect("Toronto has roads");
    let index_ms = started.elapsed().as_secs_f64() * 1e3;
    let (graph, index) = (network.graph, network.index);

    let pairs = route_pairs(model, PAIRS, 7, 2_000.0..=15_000.0);
    assert_eq!(pairs.len(), PAIRS, "Toronto has room for every pair");
    let requests: Vec<serde_json::Value> = pairs
        .iter()
        .map(|(a, b)| {
            json!({
                "origin": {"lat": a.lat(), "lng": a.lng()},
                "destination": {"lat": b.lat(), "lng": b.lng()},
                "method": "safest",
            })
        })
        .collect();

    let week = default_week(model, ROUTE_SAMPLE_NOW);
    let scores = CityScores::compute(model, week, &ScoringParams::default());
    let street = StreetRisk::of(model, &scores, &network);
    let costs = CostModel::from_risks(street.risks(), RouteMethod::Safest.alpha());

    let hierarchy = index.hierarchy().expect("Toronto's roads have a hierarchy");
    let metric = hierarchy.customise(graph, &costs);
    let customisation = times(&mut || {
        std::hint::black_box(hierarchy.customise(graph, &costs));
    });
    let compared = whole_requests_and_searches(&atlas, &requests, &pairs, &costs, &metric);
    let tradeoff = tradeoff_and_reach(&atlas, &requests, &pairs, &scores);
    let per_city = hierarchies(&root);

    let result = json!({
        "artifact": artifact.display().to_string(),
        "nodes": graph.node_count(),
        "edges": graph.edge_count(),
        "index_build_ms": index_ms,
        "hierarchy_arcs": hierarchy.arc_count(),
        "metric_mib": metric.heap_bytes() as f64 / (1024.0 * 1024.0),
        "customisation": summary(customisation),
        "route_request": compared["route_request"],
        "route_request_back_to_back": compared["route_request_back_to_back"],
        "request_parts": request_parts(model, network, (week, &scores), &costs, &pairs),
        "hierarchy_search": compared["hierarchy_search"],
        "astar_search": compared["astar_search"],
        "petgraph_dijkstra": compared["petgraph_dijkstra"],
        "hierarchies": per_city,
    });
    let mut result = result;
    for more in [tradeoff, scores_and_risks(model, &network, week, &scores)] {
        if let (Some(out), Some(more)) = (result.as_object_mut(), more.as_object()) {
            out.extend(more.clone());
        }
    }
    let ratio = result["petgraph_dijkstra"]["median_ms"].as_f64().unwrap()
        / result["hierarchy_search"]["median_ms"].as_f64().unwrap();
    println!("{}", serde_json::to_string_pretty(&result).unwrap());
    println!("median speed-up of the hierarchy search over petgraph Dijkstra: {ratio:.1}x");
    let out = root.join("build/bench");
    hexrisk_builder::atomic::write(
        &out.join("route-pairs.json"),
        &serde_json::to_vec(&requests).unwrap(),
    )
    .unwrap();
    hexrisk_builder::atomic::write(
        &out.join("routing-native.json"),
        &serde_json::to_vec_pretty(&result).unwrap(),
    )
    .unwrap();
}
