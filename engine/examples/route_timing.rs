//! Scratch timing (temporary).
#![allow(missing_docs)]
use hexrisk_engine::model::CityModel;
use hexrisk_engine::routing::{CostModel, RouteIndex};
use hexrisk_engine::scores::{CityScores, ScoringParams};
use std::time::Instant;
fn main() {
    let bytes = std::fs::read("build/artifacts/city_ca_tor.hxrk").unwrap();
    let model = CityModel::from_bytes(&bytes).unwrap();
    let graph = model.artifact().road_graph.as_ref().unwrap();
    chain_stats(graph);
    let t = Instant::now();
    let index = RouteIndex::new(graph);
    println!("index {:?}", t.elapsed());
    let scores = CityScores::compute(&model, model.week_count() - 1, &ScoringParams::default());
    let mut seed = 12345u64;
    let mut rnd = || { seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17; (seed % 1_000_000) as f64 / 1e6 };
    let b = &model.artifact().bounds;
    for alpha in [0.0, 1.0, 4.0] {
        let costs = CostModel::new(&scores, model.cell_count(), alpha);
        let mut times = vec![]; let mut full = vec![];
        let mut n = 0;
        while n < 200 {
            let p = h3o::LatLng::new(b.south + rnd() * (b.north - b.south), b.west + rnd() * (b.east - b.west)).unwrap();
            let q = h3o::LatLng::new(b.south + rnd() * (b.north - b.south), b.west + rnd() * (b.east - b.west)).unwrap();
            let d = p.distance_m(q);
            if !(2000.0..=15000.0).contains(&d) { continue; }
            let t = Instant::now();
            let (Ok(s), Ok(e)) = (index.snap(graph, p), index.snap(graph, q)) else { continue };
            let path = index.search(graph, &costs, None, &s, &e).unwrap();
            let method = if alpha == 0.0 { hexrisk_engine::routing::RouteMethod::Shortest } else if alpha == 1.0 { hexrisk_engine::routing::RouteMethod::Balanced } else { hexrisk_engine::routing::RouteMethod::Safest };
            let req = hexrisk_engine::routing::RouteRequest { origin: p, destination: q, method, alternatives: 0, snap_to_roads: true, mode: hexrisk_engine::corridor::TravelMode::Walking };
            let t2 = Instant::now();
            let ans = hexrisk_engine::routing::route(&model, &scores, &req).unwrap();
            full.push(t2.elapsed().as_secs_f64() * 1e3);
            std::hint::black_box(ans);
            times.push(t.elapsed().as_secs_f64() * 1e3);
            std::hint::black_box(path);
            n += 1;
        }
        times.sort_by(f64::total_cmp);
        full.sort_by(f64::total_cmp);
        println!("full route(): median {:.2} ms p90 {:.2}", full[100], full[180]);
        println!("alpha {alpha}: median {:.2} ms p90 {:.2}", times[100], times[180]);
    }
}
#[allow(dead_code)]
pub fn chain_stats(graph: &hexrisk_engine::graph::RoadGraph) {
    let n = graph.node_count();
    let mut nb: Vec<std::collections::BTreeSet<u32>> = vec![Default::default(); n];
    let mut indeg = vec![0; n]; let mut outdeg = vec![0; n];
    for v in 0..n as u32 { for e in graph.out_edges(v) { let t = graph.edge_target[e]; nb[v as usize].insert(t); nb[t as usize].insert(v); outdeg[v as usize]+=1; indeg[t as usize]+=1; } }
    let chain = (0..n).filter(|&v| nb[v].len() == 2 && indeg[v] == outdeg[v]).count();
    println!("nodes {n} chain-nodes {chain}");
}
