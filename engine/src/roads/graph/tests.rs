use alloc::vec;

use super::*;
use crate::artifact::fixture::tiny_graph;

#[test]
fn edges_share_their_way_in_both_directions() {
    let graph = tiny_graph();
    assert_eq!(graph.validate(1), Ok(()));
    assert_eq!(graph.out_edges(0), 0..1);
    assert_eq!(graph.out_edges(7), 0..0);
    assert_eq!(graph.edge_way(1), (0, true));
    assert_eq!(graph.edge_length_m(1), 805.0);
    assert_eq!(graph.way_ends(), [[0, 1]]);
    let line = graph.way_polyline(0, [0, 1]);
    assert_eq!(line.len(), 3);
    assert_eq!(MicroDegrees::from(line[1]), graph.way_points[0]);
    assert_eq!(MicroDegrees::from(line[2]), graph.node(1));
    assert_eq!(
        graph.way_cells(0).collect::<Vec<_>>(),
        [(0, 500.0), (OUTSIDE_GRID, 305.0)]
    );
    assert_eq!(graph.way_name(0), Some("Queen St W"));
    assert_eq!(graph.way_name(1), None, "an unknown way has no name");
}

#[test]
fn names_are_stored_once_sorted_and_looked_up_per_way() {
    let mut g = tiny_graph();
    g.set_way_names([" Queen St W", "", "King St W  ", "Queen St W", "\t"]);
    assert_eq!(g.names, ["King St W", "Queen St W"]);
    assert_eq!(g.way_name, [2, 0, 1, 2, 0]);
    let named: Vec<_> = (0..6).map(|way| g.way_name(way)).collect();
    assert_eq!(
        named,
        [
            Some("Queen St W"),
            None,
            Some("King St W"),
            Some("Queen St W"),
            None,
            None
        ]
    );
    // Five names for the fixture's one way.
    assert_eq!(
        g.validate(1),
        Err(GraphError("street name table is not one per way"))
    );
    g.set_way_names(["Queen St W"]);
    assert_eq!(g.validate(1), Ok(()));
    // No name at all: both tables empty, which is valid.
    g.set_way_names(["  "]);
    assert!(g.names.is_empty() && g.way_name.is_empty());
    assert_eq!(g.way_name(0), None);
    assert_eq!(g.validate(1), Ok(()));
}

#[test]
fn long_names_are_cut_on_a_character_boundary() {
    let mut g = tiny_graph();
    // 300 bytes of two-byte characters: cut to exactly the limit.
    let long = "é".repeat(150);
    g.set_way_names([long.as_str()]);
    assert_eq!(g.names[0], "é".repeat(100));
    // One byte more in front: the limit falls inside a character.
    let odd = alloc::format!("a{long}");
    g.set_way_names([odd.as_str()]);
    assert_eq!(g.names[0].len(), MAX_STREET_NAME_BYTES - 1);
    assert!(odd.starts_with(&g.names[0]));
    // A cut that ends at a space leaves none behind.
    let spaced = alloc::format!("{} B", "a".repeat(MAX_STREET_NAME_BYTES - 1));
    g.set_way_names([spaced.as_str()]);
    assert_eq!(g.names[0], "a".repeat(MAX_STREET_NAME_BYTES - 1));
    assert_eq!(g.validate(1), Ok(()));
}

#[test]
fn validation_refuses_bad_street_names() {
    let refused = |edit: &dyn Fn(&mut RoadGraph)| {
        let mut g = tiny_graph();
        edit(&mut g);
        g.validate(1).unwrap_err().0
    };
    assert_eq!(
        refused(&|g| g.way_name.push(1)),
        "street name table is not one per way"
    );
    assert_eq!(
        refused(&|g| g.way_name.clear()),
        "street names without a name per way"
    );
    assert_eq!(
        refused(&|g| g.way_name[0] = 2),
        "street name index out of range"
    );
    assert_eq!(refused(&|g| g.names[0].clear()), "empty street name");
    assert_eq!(
        refused(&|g| g.names[0] = "x".repeat(MAX_STREET_NAME_BYTES + 1)),
        "street name over MAX_STREET_NAME_BYTES"
    );
    assert_eq!(
        refused(&|g| g.names.insert(0, "Queen St W".into())),
        "street names are not strictly ascending"
    );
    assert_eq!(
        refused(&|g| g.names.push("King St W".into())),
        "street names are not strictly ascending"
    );
    // The edges of what is allowed: the last name, a name at the limit, a way
    // without a name, no names at all.
    let mut g = tiny_graph();
    g.names = vec!["King St W".into(), "x".repeat(MAX_STREET_NAME_BYTES)];
    g.way_name = vec![2];
    assert_eq!(g.validate(1), Ok(()));
    g.way_name = vec![0];
    assert_eq!(g.validate(1), Ok(()));
    assert_eq!(g.way_name(0), None);
    g.names.clear();
    g.way_name.clear();
    assert_eq!(g.validate(1), Ok(()));
}

#[test]
fn validation_catches_every_bad_index() {
    let mut g = tiny_graph();
    g.edge_target[0] = 5;
    assert!(g.validate(1).is_err());
    let mut g = tiny_graph();
    g.first_edge = vec![0, 2, 1];
    assert!(g.validate(1).is_err());
    let mut g = tiny_graph();
    g.edge_way[0] = 3;
    assert!(g.validate(1).is_err());
    let mut g = tiny_graph();
    g.way_cells[0] = 9;
    assert!(g.validate(1).is_err());
    let mut g = tiny_graph();
    g.way_length_m[0] = f32::NAN;
    assert!(g.validate(1).is_err());
    let mut g = tiny_graph();
    g.way_points_start = vec![0, 2];
    assert!(g.validate(1).is_err());
}
