use super::*;
use crate::roads::lines::{Direction, RoadLine};
use crate::roads::network::{build_network, to_graph};
use hexrisk_engine::grid::MicroDegrees;
use hexrisk_engine::roads::{NetworkKind, OUTSIDE_GRID};
use hexrisk_engine::routing::cch::contraction_order;

/// A 7 × 7 grid of streets in Toronto, every block with a bend point, columns 0,
/// 3 and 6 one-way, numbered as the lines come (row k, then column k) and named
/// after them (`Row k`, `Column k`).
fn street_grid() -> RoadGraph {
    let (lat0, lng0, step) = (43.65, -79.40, 0.002);
    let at = |i: usize, j: usize| (lat0 + step * i as f64, lng0 + step * j as f64);
    let bend = |(a, b): ((f64, f64), (f64, f64))| {
        (f64::midpoint(a.0, b.0) + 0.0002, f64::midpoint(a.1, b.1))
    };
    let mut lines = Vec::new();
    for k in 0..7 {
        for (along, direction) in [(true, Direction::Both), (false, Direction::Forward)] {
            let direction = if k % 3 == 0 {
                direction
            } else {
                Direction::Both
            };
            let mut points = Vec::new();
            for m in 0..7 {
                let p = if along { at(k, m) } else { at(m, k) };
                if let Some(&q) = points.last() {
                    points.push(bend((q, p)));
                }
                points.push(p);
            }
            lines.push(RoadLine {
                points,
                direction,
                name: format!("{} {k}", if along { "Row" } else { "Column" }),
            });
        }
    }
    let network = build_network(&lines, true);
    // The grid the streets lie in, so that ways carry real cell positions.
    let mut cells: Vec<h3o::CellIndex> = lines
        .iter()
        .flat_map(|line| &line.points)
        .filter_map(|&(lat, lng)| hexrisk_engine::grid::cell_at(lat, lng).ok())
        .collect();
    cells.sort_unstable();
    cells.dedup();
    let mut graph = to_graph(&network, &cells, "test grid");
    assert!(
        graph.way_cells.iter().all(|&c| c != OUTSIDE_GRID),
        "every way lies in the grid"
    );
    graph.contraction_order = contraction_order(&graph);
    graph
}

/// Three nodes by hand: two parallel edges 0 → 1 along different ways, a loop at 1
/// (its way travelled both ways), an edge 2 → 0 against its way, and a way no
/// edge uses; contracted 2, 0, 1.
fn odd_graph() -> RoadGraph {
    let at = |lat: f64| MicroDegrees::from_degrees(lat, -79.4);
    RoadGraph {
        kind: NetworkKind::Roads,
        source: "test".into(),
        nodes: vec![at(43.650), at(43.651), at(43.652)],
        first_edge: vec![0, 2, 4, 5],
        edge_target: vec![1, 1, 1, 1, 0],
        edge_way: vec![0, 1, 2, 2 | REVERSED, 4 | REVERSED],
        way_length_m: vec![111.0, 150.0, 40.0, 7.0, 222.0],
        way_points_start: vec![0, 0, 1, 3, 3, 3],
        way_points: vec![at(43.6505), at(43.6512), at(43.6514)],
        way_cells_start: vec![0, 0, 0, 0, 0, 0],
        way_cells: vec![],
        way_cell_m: vec![],
        contraction_order: vec![2, 0, 1],
        names: vec!["Bay St".into(), "Yonge St".into()],
        way_name: vec![2, 0, 1, 2, 1],
    }
}

#[test]
fn renumbering_keeps_every_node_edge_and_way() {
    let before = street_grid();
    let order = before.stored_order().expect("an order").to_vec();
    assert_ne!(
        order,
        (0..order.len() as u32).collect::<Vec<_>>(),
        "a real test"
    );
    let cells = before.way_cells.iter().max().map_or(0, |&c| c as usize + 1);
    assert_eq!(before.validate(cells), Ok(()));
    let after = in_contraction_order(&before);
    assert_eq!(after.validate(cells), Ok(()));
    assert_eq!(
        after.contraction_order,
        (0..order.len() as u32).collect::<Vec<_>>()
    );
    let mut rank = vec![0_u32; order.len()];
    for (r, &node) in order.iter().enumerate() {
        rank[node as usize] = r as u32;
    }
    assert_eq!(after.edge_count(), before.edge_count());
    assert_eq!(after.way_count(), before.way_count());
    for (new, &old) in order.iter().enumerate() {
        assert_eq!(after.node(new as u32), before.node(old));
        // The same edges, in the same order, to the same nodes along the same ways.
        let (old_edges, new_edges) = (before.out_edges(old), after.out_edges(new as u32));
        assert_eq!(old_edges.len(), new_edges.len());
        for (e, f) in old_edges.zip(new_edges) {
            assert_eq!(after.edge_target[f], rank[before.edge_target[e] as usize]);
            let ((w, reversed), (v, again)) = (before.edge_way(e), after.edge_way(f));
            assert_eq!(reversed, again);
            assert_eq!(after.way_length_m[v], before.way_length_m[w]);
            assert_eq!(after.way_interior(v), before.way_interior(w));
            assert!(after.way_cells(v).eq(before.way_cells(w)));
            assert_eq!(after.way_name(v), before.way_name(w));
        }
    }
}

#[test]
fn parallel_edges_loops_and_unused_ways_keep_their_place() {
    let before = odd_graph();
    assert_eq!(before.validate(0), Ok(()));
    let after = in_contraction_order(&before);
    assert_eq!(after.validate(0), Ok(()));
    // Node 2 first: its edge against way 4 (now way 0) to node 0 (now 1).
    assert_eq!(after.first_edge, [0, 1, 3, 5]);
    assert_eq!(after.edge_target, [1, 2, 2, 2, 2]);
    // Then node 0's parallel edges, in their order, and node 1's loop; way 3,
    // which no edge uses, last.
    assert_eq!(after.edge_way, [REVERSED, 1, 2, 3, 3 | REVERSED]);
    assert_eq!(after.way_length_m, [222.0, 111.0, 150.0, 40.0, 7.0]);
    assert_eq!(after.way_interior(1), before.way_interior(0));
    assert_eq!(after.way_interior(3), before.way_interior(2));
    assert_eq!(after.way_interior(4), before.way_interior(3));
    assert_eq!(after.names, before.names);
    assert_eq!(after.way_name, [1, 2, 0, 1, 2]);
    assert_eq!(
        after.nodes,
        [before.nodes[2], before.nodes[0], before.nodes[1]]
    );
    // A graph without a stored order stays as it is.
    let unordered = RoadGraph {
        contraction_order: Vec::new(),
        ..before
    };
    assert_eq!(in_contraction_order(&unordered), unordered);
}

#[test]
fn ways_are_numbered_as_the_edges_first_meet_them() {
    let after = in_contraction_order(&street_grid());
    let mut next = 0;
    for e in 0..after.edge_count() {
        let (way, _) = after.edge_way(e);
        assert!(way <= next, "way {way} before way {next}");
        next = next.max(way + 1);
    }
}
