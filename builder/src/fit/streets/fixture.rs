//! A small hand-made street network for the street-level tests, and brute-force
//! references of the attribution and the shares: every node and every segment
//! tried in turn, every sum written out, nothing shared with the code under test
//! but the published constants.
//!
//! ```text
//!            H (6)
//!            |  way 5 (30 m, cell 0)
//!            N (1)
//!            |  way 0 (cell 0)
//!   S (3) -- C (0) -- E (2) ~~~~ F (4) -- G (5)
//!   way 2 (cell 1)  way 1     way 3      way 4 (outside the grid)
//!                  (cell 0)  (bends north through one interior point; cell 1)
//! ```
//!
//! (`S` lies south of `C`, drawn beside it.)

use hexrisk_engine::grid::MicroDegrees;
use hexrisk_engine::roads::{NetworkKind, OUTSIDE_GRID, REVERSED, RoadGraph};

use super::attribution::{NODE_RADIUS_M, WAY_RADIUS_M};

/// Node positions `(lat, lng)`.
pub(crate) const NODES: [(f64, f64); 7] = [
    (43.7, -79.4),
    (43.701, -79.4),
    (43.7, -79.3985),
    (43.699, -79.4),
    (43.7, -79.396),
    (43.7, -79.394),
    (43.701_27, -79.4),
];

/// Ways as `(start, end, interior points, length in metres, [(cell, metres)])`.
pub(crate) type WaySpec = (u32, u32, &'static [(f64, f64)], f32, &'static [(u32, f32)]);

pub(crate) const WAYS: [WaySpec; 6] = [
    (0, 1, &[], 111.0, &[(0, 111.0)]),
    (0, 2, &[], 121.0, &[(0, 80.0), (1, 41.0)]),
    (0, 3, &[], 111.0, &[(1, 111.0)]),
    (
        2,
        4,
        &[(43.7003, -79.3972)],
        210.0,
        &[(0, 60.0), (1, 150.0)],
    ),
    (4, 5, &[], 161.0, &[(OUTSIDE_GRID, 161.0)]),
    (1, 6, &[], 30.0, &[(0, 30.0)]),
];

/// The network's graph (two grid cells).
pub(crate) fn graph() -> RoadGraph {
    let mut out: Vec<Vec<(u32, u32)>> = vec![Vec::new(); NODES.len()];
    for (way, &(a, b, ..)) in WAYS.iter().enumerate() {
        out[a as usize].push((b, way as u32));
        out[b as usize].push((a, way as u32 | REVERSED));
    }
    let mut first_edge = vec![0];
    let (mut edge_target, mut edge_way) = (Vec::new(), Vec::new());
    for edges in &out {
        for &(target, way) in edges {
            edge_target.push(target);
            edge_way.push(way);
        }
        first_edge.push(edge_target.len() as u32);
    }
    let micro = |&(lat, lng): &(f64, f64)| MicroDegrees::from_degrees(lat, lng);
    let mut way_points_start = vec![0];
    let mut way_points = Vec::new();
    let mut way_cells_start = vec![0];
    let (mut way_cells, mut way_cell_m) = (Vec::new(), Vec::new());
    for &(_, _, interior, _, cells) in &WAYS {
        way_points.extend(interior.iter().map(micro));
        way_points_start.push(way_points.len() as u32);
        for &(cell, metres) in cells {
            way_cells.push(cell);
            way_cell_m.push(metres);
        }
        way_cells_start.push(way_cells.len() as u32);
    }
    let graph = RoadGraph {
        kind: NetworkKind::Roads,
        source: "hand-made".into(),
        nodes: NODES.iter().map(micro).collect(),
        first_edge,
        edge_target,
        edge_way,
        way_length_m: WAYS.iter().map(|w| w.3).collect(),
        way_points_start,
        way_points,
        way_cells_start,
        way_cells,
        way_cell_m,
        contraction_order: Vec::new(),
        names: Vec::new(),
        way_name: Vec::new(),
    };
    assert_eq!(graph.validate(2), Ok(()));
    graph
}

/// The cell each way is assigned to by hand: the most metres, none outside.
pub(crate) const WAY_CELL: [Option<usize>; 6] = [Some(0), Some(0), Some(1), Some(1), None, Some(0)];

/// Points to attribute `(lat, lng)`, each beside what it tests.
pub(crate) const POINTS: [(f64, f64); 9] = [
    // Exactly at C: split over ways 0, 1 and 2.
    (43.7, -79.4),
    // About 6 m from N: split over ways 0 and 5.
    (43.701_05, -79.400_03),
    // Halfway up way 0, 20 m east of it: on way 0.
    (43.7005, -79.399_75),
    // 40 m north of way 3's interior point, over 70 m from the chord E-F: on way 3
    // only through its interior point.
    (43.700_66, -79.3972),
    // At G, which ends only the unassigned way 4: 160 m from way 3, off the network.
    (43.7, -79.394),
    // Far away: off the network.
    (43.8, -79.4),
    // 12 m from E (ways 1 and 3): split by length.
    (43.700_1, -79.3985),
    // 30 m south of way 1's middle: on way 1 (S is farther).
    (43.699_73, -79.399_25),
    // At H, which ends only the 30 m stub: all on way 5.
    (43.701_27, -79.4),
];

fn project(lat: f64, lng: f64) -> [f64; 2] {
    let (mean_lat, mean_lng) = NODES
        .iter()
        .fold((0.0, 0.0), |(a, b), &(lat, lng)| (a + lat, b + lng));
    let (lat0, lng0) = (mean_lat / NODES.len() as f64, mean_lng / NODES.len() as f64);
    let metres = 6_371_008.8 * std::f64::consts::PI / 180.0;
    [
        (lng - lng0) * metres * lat0.to_radians().cos(),
        (lat - lat0) * metres,
    ]
}

fn distance_to_segment(p: [f64; 2], a: [f64; 2], b: [f64; 2]) -> f64 {
    let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
    let span = dx * dx + dy * dy;
    let t = if span > 0.0 {
        (((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / span).clamp(0.0, 1.0)
    } else {
        0.0
    };
    ((p[0] - a[0] - t * dx).powi(2) + (p[1] - a[1] - t * dy).powi(2)).sqrt()
}

/// The attribution of a point by exhaustive search: `(way, fraction)` pairs.
pub(crate) fn brute_force_attribution(lat: f64, lng: f64) -> Vec<(usize, f64)> {
    let here = project(lat, lng);
    let assigned = |way: usize| WAY_CELL[way].is_some();
    let mut nearest_node: Option<(f64, usize)> = None;
    for (node, &(node_lat, node_lng)) in NODES.iter().enumerate() {
        let ends_assigned = WAYS
            .iter()
            .enumerate()
            .any(|(w, spec)| assigned(w) && (spec.0 as usize == node || spec.1 as usize == node));
        let p = project(node_lat, node_lng);
        let d = ((p[0] - here[0]).powi(2) + (p[1] - here[1]).powi(2)).sqrt();
        if ends_assigned && nearest_node.is_none_or(|(best, _)| d < best) {
            nearest_node = Some((d, node));
        }
    }
    if let Some((d, node)) = nearest_node
        && d <= NODE_RADIUS_M
    {
        let meeting: Vec<usize> = (0..WAYS.len())
            .filter(|&w| assigned(w) && (WAYS[w].0 as usize == node || WAYS[w].1 as usize == node))
            .collect();
        let total: f64 = meeting.iter().map(|&w| f64::from(WAYS[w].3)).sum();
        return meeting
            .into_iter()
            .map(|w| (w, f64::from(WAYS[w].3) / total))
            .collect();
    }
    let mut nearest_way: Option<(f64, usize)> = None;
    for (way, &(a, b, interior, ..)) in WAYS.iter().enumerate() {
        if !assigned(way) {
            continue;
        }
        let mut points = vec![NODES[a as usize]];
        points.extend_from_slice(interior);
        points.push(NODES[b as usize]);
        for pair in points.windows(2) {
            let d = distance_to_segment(
                here,
                project(pair[0].0, pair[0].1),
                project(pair[1].0, pair[1].1),
            );
            if nearest_way.is_none_or(|(best, _)| d < best) {
                nearest_way = Some((d, way));
            }
        }
    }
    match nearest_way {
        Some((d, way)) if d <= WAY_RADIUS_M => vec![(way, 1.0)],
        _ => Vec::new(),
    }
}

/// The shares of the ways by the formula written out: `(n_w + k ℓ_w / L_c) /
/// (N_c + k)`, 0 for an unassigned way.
pub(crate) fn brute_force_shares(history: &[f64], k: f64) -> Vec<f64> {
    (0..WAYS.len())
        .map(|w| {
            let Some(cell) = WAY_CELL[w] else {
                return 0.0;
            };
            let mut cell_count = 0.0;
            let mut cell_length = 0.0;
            for v in 0..WAYS.len() {
                if WAY_CELL[v] == Some(cell) {
                    cell_count += history[v];
                    cell_length += f64::from(WAYS[v].3);
                }
            }
            (history[w] + k * f64::from(WAYS[w].3) / cell_length) / (cell_count + k)
        })
        .collect()
}
