//! Where the Worker's memory goes, natively: a counting global allocator (live and
//! peak bytes) around each step `bench/http/route-memory.mjs` takes under workerd, in
//! the same order (Toronto, Houston, San Francisco: decode the artifact as the Worker
//! does, a prediction, a `safest` route, a `tradeoff` set), then each structure of
//! each city built alone.
//!
//! The Worker's wasm memory is the peak of its linear memory (it never shrinks), so
//! the figure to compare with `route-memory.json` is the running peak; the native
//! allocator does not fragment as dlmalloc does, so wasm ends somewhat above it.
//!
//! Run: `cargo bench -p hexrisk-builder --bench memory` (after `make artifacts`);
//! writes `build/bench/memory-native.json`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use hexrisk_engine::artifact::{self, Manifest};
use hexrisk_engine::city::{Atlas, CityModel};
use hexrisk_engine::roads::RoadGraph;
use hexrisk_engine::routing::{CostModel, RouteIndex, RouteMethod};
use hexrisk_engine::scoring::{CityScores, ScoringParams, StreetRisk};
use rstar::RTree;
use rstar::primitives::{GeomWithData, Line};
use serde_json::{Map, Value, json};

/// Counts live bytes and their peak since the last [`reset_peak`].
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(by: usize) {
    let now = LIVE.fetch_add(by, Ordering::Relaxed) + by;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            // A moving realloc holds both blocks for a moment: count it so, as dlmalloc
            // in wasm must when the block cannot grow in place.
            grew(new_size);
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn live() -> usize {
    LIVE.load(Ordering::Relaxed)
}

fn reset_peak() {
    PEAK.store(live(), Ordering::Relaxed);
}

fn peak() -> usize {
    PEAK.load(Ordering::Relaxed)
}

fn mib(bytes: usize) -> f64 {
    (bytes as f64 / f64::from(1 << 20) * 100.0).round() / 100.0
}

/// Live bytes after `f` and its peak, both above what was live before, and its value.
fn measured<T>(f: impl FnOnce() -> T) -> (T, usize, usize) {
    let before = live();
    reset_peak();
    let value = f();
    (
        value,
        live().saturating_sub(before),
        peak().saturating_sub(before),
    )
}

/// The pinned clock of the benchmark's Worker (`HEXRISK_CLOCK = 2022-01-03`).
const NOW: i64 = 1_641_168_000;

/// A city of `bench/http/route-memory.mjs`: its route's ends and departure.
struct Place {
    code: &'static str,
    origin: [f64; 2],
    destination: [f64; 2],
    depart: Option<&'static str>,
}

/// As `bench/http/route-memory.mjs`, in its order.
const PLACES: [Place; 3] = [
    Place {
        code: "city_ca_tor",
        origin: [43.6453, -79.3806],
        destination: [43.6645, -79.4206],
        depart: None,
    },
    Place {
        code: "city_us_hou",
        origin: [29.7604, -95.3698],
        destination: [29.7404, -95.3998],
        depart: Some("2010-08-02T12:00:00Z"),
    },
    Place {
        code: "city_us_sfo",
        origin: [37.7793, -122.4193],
        destination: [37.7599, -122.4148],
        depart: Some("2012-12-03T12:00:00Z"),
    },
];

/// The Worker's `load_once`: the file's bytes, inflated (the runtime's
/// `DecompressionStream` hands `glue/runtime.rs` a megabyte at a time, which it
/// appends to one `Vec`; `inflated` is that stream, made outside the count), then
/// decoded.
fn worker_load(path: &Path, inflated: &[u8]) -> CityModel {
    let bytes = std::fs::read(path).expect("the artifact");
    artifact::checked_body(&bytes).expect("a valid file");
    let mut plain = Vec::new();
    for chunk in inflated.chunks(1 << 20) {
        let start = plain.len();
        plain.resize(start + chunk.len(), 0);
        plain[start..].copy_from_slice(chunk);
    }
    drop(bytes);
    CityModel::from_artifact(artifact::decode_inflated(&plain).expect("a valid artifact"))
}

fn body(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => unreachable!(),
    }
}

fn artifact_path(root: &Path, manifest: &Manifest, code: &str) -> PathBuf {
    let city = manifest
        .cities
        .iter()
        .find(|c| c.code == code)
        .expect("the city in the manifest");
    root.join("build/artifacts").join(&city.file)
}

/// The benchmark's sequence, every city kept as the Worker's isolate keeps them:
/// live bytes after each step, its peak and the running peak (what wasm memory shows).
fn sequence(root: &Path, manifest: &Manifest) -> Vec<Value> {
    // What the runtime inflates, outside wasm memory: made before counting starts.
    let inflated: Vec<Vec<u8>> = PLACES
        .iter()
        .map(|place| {
            let bytes =
                std::fs::read(artifact_path(root, manifest, place.code)).expect("the artifact");
            artifact::inflate(artifact::checked_body(&bytes).expect("a valid file")).unwrap()
        })
        .collect();
    let mut steps = Vec::new();
    let mut cities: Vec<Arc<CityModel>> = Vec::new();
    let start = live();
    let mut running_peak = live();
    let mut record = |city: &str, step: &str| {
        let step_peak = peak();
        running_peak = running_peak.max(step_peak);
        println!(
            "{city:12} {step:14} live {:7.2} MiB  step peak {:7.2} MiB  running peak {:7.2} MiB",
            mib(live() - start),
            mib(step_peak - start),
            mib(running_peak - start)
        );
        steps.push(json!({
            "city": city, "step": step,
            "live_bytes": live() - start,
            "step_peak_bytes": step_peak - start,
            "running_peak_bytes": running_peak - start,
        }));
    };
    for (place, inflated) in PLACES.iter().zip(&inflated) {
        reset_peak();
        let model = Arc::new(worker_load(
            &artifact_path(root, manifest, place.code),
            inflated,
        ));
        cities.push(Arc::clone(&model));
        record(place.code, "decode");
        let mut atlas = Atlas::default();
        atlas.insert_shared(model);

        reset_peak();
        let mut predict = json!({"latitude": place.origin[0], "longitude": place.origin[1]});
        if let Some(depart) = place.depart {
            predict["datetime"] = json!(depart);
        }
        drop(
            hexrisk_engine::operations::predict(&atlas, &body(predict), NOW).expect("a prediction"),
        );
        record(place.code, "prediction");

        for method in ["safest", "tradeoff"] {
            reset_peak();
            let mut route = json!({
                "origin": {"lat": place.origin[0], "lng": place.origin[1]},
                "destination": {"lat": place.destination[0], "lng": place.destination[1]},
                "method": method,
            });
            if let Some(depart) = place.depart {
                route["departAt"] = json!(depart);
            }
            let answer =
                hexrisk_engine::operations::route(&atlas, &body(route), NOW).expect("a route");
            // The Worker serialises the answer before dropping it.
            let text = serde_json::to_vec(&answer).expect("JSON");
            drop((answer, text));
            record(place.code, method);
        }
    }
    steps
}

/// An entry of the route index's `rstar` tree before its segment tree.
type Segment = GeomWithData<Line<[f64; 2]>, (u32, u32)>;

/// `rstar`'s tree of a graph's segments, as the route index held it before its
/// segment tree (`engine/src/routing/segments.rs` keeps the same tree compactly).
fn rstar_tree(graph: &RoadGraph) -> RTree<Segment> {
    let mut lines = Vec::with_capacity(graph.way_points.len() + graph.way_count());
    for (way, ends) in graph.way_ends().into_iter().enumerate() {
        let points: Vec<[f64; 2]> = graph
            .way_points(way, ends)
            .map(|p| [f64::from(p.0[0]), f64::from(p.0[1])])
            .collect();
        for (i, pair) in points.windows(2).enumerate() {
            lines.push(GeomWithData::new(
                Line::new(pair[0], pair[1]),
                (way as u32, i as u32),
            ));
        }
    }
    RTree::bulk_load(lines)
}

/// The week a place's requests use.
fn week_of(model: &CityModel, place: &Place) -> usize {
    let default = hexrisk_engine::operations::options::default_week(model, NOW);
    place.depart.map_or(default, |depart| {
        let when = chrono::DateTime::parse_from_rfc3339(depart)
            .expect("a time")
            .timestamp();
        model
            .week_index(model.local_date(when).expect("a date"))
            .unwrap_or(default)
    })
}

/// Each structure of one city built alone: live bytes after and the peak while.
fn anatomy(root: &Path, manifest: &Manifest, place: &Place, parts: &mut Vec<Value>) {
    let code = place.code;
    let mut part = |name: &str, live: usize, peak: usize| {
        println!(
            "{code:12} {name:40} live {:7.2} MiB  peak {:7.2} MiB",
            mib(live),
            mib(peak)
        );
        parts.push(json!({"city": code, "part": name, "live_bytes": live, "peak_bytes": peak}));
    };
    let bytes = std::fs::read(artifact_path(root, manifest, code)).expect("the artifact");
    let plain = artifact::inflate(artifact::checked_body(&bytes).unwrap()).unwrap();
    part("file (compressed)", bytes.len(), bytes.len());
    part("inflated body", plain.len(), plain.len());
    let (artifact, live, peak) = measured(|| artifact::decode_inflated(&plain).expect("valid"));
    part("decoded artifact", live, peak);
    if let Some(graph) = &artifact.road_graph {
        let (_, live, _) = measured(|| graph.clone());
        part("  of which road graph", live, live);
    }
    if let Some(shares) = &artifact.street_shares {
        let (_, live, _) = measured(|| shares.clone());
        part("  of which street shares", live, live);
    }
    let rates = artifact.rates.len() * size_of::<u16>();
    part("  of which rates", rates, rates);
    drop(plain);
    let model = CityModel::from_artifact(artifact);
    let ((), live, peak) = measured(|| {
        let _ = model.street_layer();
    });
    part("street layer", live, peak);
    let network = model.road_network().expect("a network");
    let graph = network.graph;
    let (index, live, peak) = measured(|| RouteIndex::new(graph));
    part("route index (all)", live, peak);
    // A hex lattice (Houston) has no hierarchy: its routes are A* with landmarks.
    if index.hierarchy().is_some() {
        let (_, live, peak) = measured(|| hexrisk_engine::routing::cch::Hierarchy::new(graph));
        part("  hierarchy topology", live, peak);
    }
    let segments = (graph.way_points.len() + graph.way_count()) * size_of::<f64>();
    part("  segment metres (f64)", segments, segments);
    let landmarks = graph.node_count() * 8 * 2 * size_of::<f32>();
    part("  landmarks (f32, 8 each way)", landmarks, landmarks);
    let (_, live, peak) = measured(|| rstar_tree(graph));
    part("  (before: rstar tree of the segments)", live, peak);
    let week = week_of(&model, place);
    let (scores, live, peak) =
        measured(|| CityScores::compute(&model, week, &ScoringParams::default()));
    part("week's scores", live, peak);
    let (street, live, peak) = measured(|| StreetRisk::of(&model, &scores, &network));
    part("street risk (kept with the week's scores)", live, peak);
    let (costs, live, peak) =
        measured(|| CostModel::from_risks(street.risks(), RouteMethod::Safest.alpha()));
    part("cost model (per request, cache key)", live, peak);
    if let Some(hierarchy) = index.hierarchy() {
        let metric_of = |costs: &CostModel| measured(|| hierarchy.customise(graph, costs));
        let (_, live, peak) = metric_of(&costs);
        part("one metric (safest), before unpacking", live, peak);
        let (_, live, peak) = metric_of(&CostModel::exposure_only(street.risks()));
        part("one metric (exposure only)", live, peak);
        let (_, live, peak) = metric_of(&CostModel::lengths());
        part("one metric (length)", live, peak);
    }
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let manifest: Manifest = serde_json::from_slice(
        &std::fs::read(root.join("build/artifacts/manifest.json")).expect("make artifacts"),
    )
    .expect("a manifest");
    let steps = sequence(&root, &manifest);
    let mut parts = Vec::new();
    for place in &PLACES {
        anatomy(&root, &manifest, place, &mut parts);
    }
    let out = json!({"steps": steps, "parts": parts});
    let dir = root.join("build/bench");
    hexrisk_builder::atomic::write(
        &dir.join("memory-native.json"),
        (serde_json::to_string_pretty(&out).expect("JSON") + "\n").as_bytes(),
    )
    .expect("build/bench/memory-native.json");
}
