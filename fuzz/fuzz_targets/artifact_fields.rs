//! Structure-aware fuzzing of artifacts: random bytes stop at the header and the
//! checksum, so this target edits a real decoded artifact (San Francisco, with its
//! road network) field by field instead: cell ids, table entries and lengths, the
//! calendar, bounds, time-zone offsets, precinct outlines, every table of the road
//! graph (its street names among them), the street shares and the place index.
//! Whatever `artifact::validate` accepts must then serve every operation — scores,
//! rings, boxes, breakdowns, precincts, predictions, routes, place search — with an
//! answer or an error, never a panic. (A checksum does not stop a crafted file: the
//! npm package loads artifacts from any URL.)
#![no_main]

use std::sync::OnceLock;

#[path = "../operations/artifacts.rs"]
mod artifacts;

use hexrisk_engine::operations;
use hexrisk_engine::artifact::{self, CityArtifact};
use hexrisk_engine::city::{Atlas, CityModel};
use hexrisk_engine::grid::{self, MicroDegrees};
use hexrisk_engine::roads;
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value, json};

/// 2022-01-03 12:00 UTC, inside San Francisco's forecasts.
const NOW: i64 = 1_641_211_200;

fn base() -> &'static CityArtifact {
    static BASE: OnceLock<CityArtifact> = OnceLock::new();
    BASE.get_or_init(|| {
        artifact::decode(&artifacts::current("city_us_sfo")).expect("a valid artifact")
    })
}

/// One edit: which field, which element, which value.
struct Edit {
    field: u8,
    index: usize,
    value: u32,
}

fn set<T>(items: &mut [T], index: usize, value: T) {
    if !items.is_empty() {
        let at = index % items.len();
        items[at] = value;
    }
}

fn cut<T>(items: &mut Vec<T>, value: u32) {
    let keep = value as usize % (items.len() + 1);
    items.truncate(keep);
}

/// Any `f32` bit pattern (NaN, infinities, negatives, subnormals) as `f64`.
fn float(value: u32) -> f64 {
    f64::from(f32::from_bits(value))
}

fn apply(a: &mut CityArtifact, edit: &Edit) -> bool {
    let (i, v) = (edit.index, edit.value);
    let mut graph_edited = false;
    match edit.field % 26 {
        0 => {
            if let Some(&old) = a.cells.get(i % a.cells.len().max(1)) {
                set(&mut a.cells, i, (old & !0xffff_ffff) | u64::from(v));
            }
        }
        1 => set(&mut a.precinct_of, i, v as u16),
        2 => set(&mut a.rates, i, v as u16),
        3 => {
            if !a.dispersion.is_empty() {
                let n = a.dispersion.len();
                a.dispersion[i % n][(v as usize) % 5] = float(v.rotate_left(7));
            }
        }
        4 => a.calendar.weeks = v % 400,
        5 => a.calendar.observed_weeks = v % 400,
        6 => {
            let days = chrono::Days::new(u64::from(v % 4000));
            a.calendar.first_week = if v & 1 == 0 {
                a.calendar.first_week.checked_add_days(days)
            } else {
                a.calendar.first_week.checked_sub_days(days)
            }
            .unwrap_or(a.calendar.first_week);
        }
        7 => match i % 4 {
            0 => a.bounds.north = float(v),
            1 => a.bounds.south = float(v),
            2 => a.bounds.east = float(v),
            _ => a.bounds.west = float(v),
        },
        8 => set(
            &mut a.utc_offsets,
            i,
            (i64::from(v as i32) * 1000, v as i32),
        ),
        9 => match i % 6 {
            0 => cut(&mut a.cells, v),
            1 => cut(&mut a.rates, v),
            2 => cut(&mut a.precinct_of, v),
            3 => cut(&mut a.dispersion, v),
            4 => cut(&mut a.utc_offsets, v),
            _ => cut(&mut a.precincts, v),
        },
        10 => {
            if !a.precincts.is_empty() {
                let n = a.precincts.len();
                let precinct = &mut a.precincts[i % n];
                if let Some(polygon) = precinct.polygons.first_mut() {
                    if let Some(ring) = polygon.first_mut() {
                        if v & 1 == 0 {
                            set(ring, i >> 8, MicroDegrees([v as i32, (v >> 3) as i32]));
                        } else {
                            cut(ring, v >> 1);
                        }
                    }
                }
            }
        }
        11 => match i % 5 {
            // Time-of-day profiles: a share, the table's length, the band layout.
            0 => set(&mut a.profiles.shares, i >> 3, v as u16),
            1 => cut(&mut a.profiles.shares, v),
            2 => a.profiles.bands.band_hours = (v % 30) as u8,
            3 => a.profiles.bands.day_start_hour = (v % 30) as u8,
            _ => a.model.mae = float(v),
        },
        // Street shares: a code, a group's length or classes, no shares, or shares
        // left without their graph.
        23 => {
            let Some(shares) = a.street_shares.as_mut() else {
                return false;
            };
            let groups = shares.groups.len().max(1);
            let Some(group) = shares.groups.get_mut(i % groups) else {
                return false;
            };
            match v % 5 {
                0 => set(&mut group.codes, i >> 2, (v >> 8) as i8),
                1 => cut(&mut group.codes, v >> 2),
                2 => group.classes = (v >> 2) as u8,
                3 => a.street_shares = None,
                _ => a.road_graph = None,
            }
        }
        // The place index: a key (emptied, lengthened, or a copy of another), a run
        // start, a posting, a place's name or point, a table's length, or no index.
        25 => {
            let Some(index) = a.places.as_mut() else {
                return false;
            };
            let n = (v >> 4) as usize;
            match v % 9 {
                0 => set(&mut index.keys, i, String::new()),
                1 => {
                    if let Some(copy) = index.keys.get(n % index.keys.len().max(1)).cloned() {
                        set(&mut index.keys, i, copy + "x");
                    }
                }
                2 => set(&mut index.runs, i, v >> 4),
                3 => cut(&mut index.runs, v >> 4),
                4 => set(&mut index.postings, i, v >> 4),
                5 => cut(&mut index.postings, v >> 4),
                6 => {
                    let at = i % index.places.len().max(1);
                    if let Some(place) = index.places.get_mut(at) {
                        place
                            .name
                            .push_str(&"é".repeat(n % roads::MAX_STREET_NAME_BYTES));
                    }
                }
                7 => {
                    let at = i % index.places.len().max(1);
                    if let Some(place) = index.places.get_mut(at) {
                        place.point = MicroDegrees([v as i32, (v >> 2) as i32]);
                    }
                }
                _ => a.places = None,
            }
        }
        field => {
            graph_edited = true;
            // Shares that no longer fit an edited graph make it fail validation before
            // any route is tried (routing reads none of them yet), so half the graph
            // edits drop them and half check that validation copes with both.
            if v & 1 == 0 {
                a.street_shares = None;
            }
            let Some(g) = a.road_graph.as_mut() else {
                return false;
            };
            match field {
                12 => set(
                    &mut g.nodes,
                    i,
                    MicroDegrees([v as i32, (v.rotate_left(11)) as i32]),
                ),
                13 => set(&mut g.first_edge, i, v),
                14 => set(&mut g.edge_target, i, v),
                15 => set(&mut g.edge_way, i, v),
                16 => set(&mut g.way_length_m, i, f32::from_bits(v)),
                17 => set(&mut g.way_points_start, i, v),
                18 => set(
                    &mut g.way_points,
                    i,
                    MicroDegrees([v as i32, (v >> 2) as i32]),
                ),
                19 => set(&mut g.way_cells_start, i, v),
                20 => set(&mut g.way_cells, i, v),
                21 => set(&mut g.way_cell_m, i, f32::from_bits(v)),
                22 => match i % 5 {
                    0 => cut(&mut g.nodes, v),
                    1 => cut(&mut g.edge_target, v),
                    2 => cut(&mut g.way_points, v),
                    3 => cut(&mut g.way_cells, v),
                    _ => cut(&mut g.way_length_m, v),
                },
                // Street names: a way's name number, a name (emptied, lengthened, most
                // often past the limit while it stays in order, or a copy of another),
                // or either table's length.
                24 => {
                    let n = (v >> 3) as usize;
                    let at = i % g.names.len().max(1);
                    match v % 6 {
                        0 => set(&mut g.way_name, i, v >> 3),
                        1 => cut(&mut g.way_name, v >> 3),
                        2 => cut(&mut g.names, v >> 3),
                        3 => set(&mut g.names, i, String::new()),
                        4 => {
                            if let Some(name) = g.names.get_mut(at) {
                                name.push_str(&"x".repeat(n % (2 * roads::MAX_STREET_NAME_BYTES)));
                            }
                        }
                        _ => {
                            if let Some(copy) = g.names.get(n % g.names.len().max(1)).cloned() {
                                set(&mut g.names, i, copy);
                            }
                        }
                    }
                }
                _ => a.road_graph = None,
            }
        }
    }
    graph_edited
}

fn body(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// Every operation once; answers and errors are both fine, panics are not.
fn exercise(atlas: &Atlas, routes: bool) {
    let city = &atlas.cities()[0];
    let cells: Vec<String> = (0..city.cell_count().min(8))
        .filter_map(|p| city.cell(p))
        .map(|c| c.to_string())
        .collect();
    let (lat, lng) = city.cell(0).map_or((37.77, -122.42), grid::cell_centre);
    let b = city.artifact().bounds;
    let _ = operations::hexes_score(atlas, &body(json!({ "hexIds": cells })), NOW);
    let _ = operations::hexes_lookup(
        atlas,
        &body(json!({"lat": lat, "lng": lng, "ring": 3, "detail": true})),
        NOW,
    );
    let _ = operations::hexes_breakdown(atlas, &body(json!({ "h3": cells.first() })), NOW);
    let viewport = json!({"west": b.west, "south": b.south, "east": b.east, "north": b.north});
    let _ = operations::hexes_all(atlas, &body(viewport.clone()), NOW);
    let _ = operations::hexes_all(
        atlas,
        &body(json!({"west": -122.6, "south": 37.6, "east": -122.3, "north": 37.9})),
        NOW,
    );
    let _ = operations::precincts_status(atlas);
    let _ = operations::precincts_all_scores(atlas, &Map::new(), NOW);
    let _ = operations::precincts_geojson(atlas, &Map::new(), NOW);
    let _ = operations::predict(
        atlas,
        &body(json!({"latitude": lat, "longitude": lng})),
        NOW,
    );
    let _ = operations::evaluate_hex_path(atlas, &body(json!({ "hexIds": cells })), NOW);
    let code = &city.artifact().city.code;
    for q in ["mission & 16th", "van ness", "centrl", "m"] {
        let _ = operations::search_places(
            atlas,
            &body(json!({"q": q, "city": code, "lat": lat, "lng": lng})),
        );
    }
    let _ = operations::reverse_place(atlas, &body(json!({"lat": lat, "lng": lng})));
    if routes {
        let request = json!({
            "origin": {"lat": 37.7793, "lng": -122.4193},
            "destination": {"lat": 37.7599, "lng": -122.4148},
            "alternatives": 2,
        });
        let _ = operations::route(atlas, &body(request), NOW);
        let line = json!({"geometry": {"type": "LineString", "coordinates": [[-122.4193, 37.7793], [-122.4148, 37.7599]]}});
        let _ = operations::evaluate(atlas, &body(line), NOW);
    }
}

fuzz_target!(|data: &[u8]| {
    let mut edited = base().clone();
    let mut graph_edited = false;
    for chunk in data.chunks_exact(9).take(16) {
        let edit = Edit {
            field: chunk[0],
            index: u32::from_le_bytes([chunk[1], chunk[2], chunk[3], chunk[4]]) as usize,
            value: u32::from_le_bytes([chunk[5], chunk[6], chunk[7], chunk[8]]),
        };
        graph_edited |= apply(&mut edited, &edit);
    }
    if artifact::validate(&edited).is_ok() {
        if let Some(graph) = &edited.road_graph {
            for way in 0..graph.way_count() {
                if let Some(name) = graph.way_name(way) {
                    assert!(!name.is_empty() && name.len() <= roads::MAX_STREET_NAME_BYTES);
                }
            }
        }
        if let (Some(shares), Some(graph)) = (&edited.street_shares, &edited.road_graph) {
            for group in &shares.groups {
                let decoded = roads::decode_shares(graph, edited.cells.len(), &group.codes);
                assert!(decoded.iter().all(|s| (0.0..=1.0).contains(s)));
            }
        }
        let atlas = Atlas::new(vec![CityModel::from_artifact(edited)]);
        // Building the network index takes milliseconds: only when the graph changed.
        exercise(&atlas, graph_edited);
    }
});
