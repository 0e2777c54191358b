use super::*;

fn line(points: &[(f64, f64)], direction: Direction) -> RoadLine {
    RoadLine {
        points: points.to_vec(),
        direction,
        name: String::new(),
    }
}

#[test]
fn end_points_join_and_directions_make_edges() {
    let lines = [
        line(&[(0.0, 0.0), (0.0, 0.001), (0.0, 0.002)], Direction::Both),
        line(&[(0.0, 0.002), (0.001, 0.002)], Direction::Forward),
        line(&[(0.001, 0.002), (0.0, 0.0)], Direction::Backward),
    ];
    let network = build_network(&lines, false);
    assert_eq!(network.nodes.len(), 3);
    assert_eq!(network.edges.len(), 4);
    let pairs: Vec<(u32, u32)> = network.edges.iter().map(|e| (e.from, e.to)).collect();
    assert_eq!(pairs, [(0, 1), (1, 0), (1, 2), (0, 2)]);
    assert_eq!(
        network.edges[1].geometry[0],
        (0.0, 0.002),
        "reversed geometry starts at its from node"
    );
}

#[test]
fn shared_vertices_split_lines_when_asked() {
    // A cross: two lines sharing their middle vertex.
    let lines = [
        line(&[(0.0, -0.001), (0.0, 0.0), (0.0, 0.001)], Direction::Both),
        line(&[(-0.001, 0.0), (0.0, 0.0), (0.001, 0.0)], Direction::Both),
    ];
    assert_eq!(build_network(&lines, false).nodes.len(), 4);
    let split = build_network(&lines, true);
    assert_eq!(split.nodes.len(), 5);
    assert_eq!(split.edges.len(), 8);
    assert_eq!(weak_component_sizes(&split), [5]);
}

#[test]
fn chains_merge_into_single_edges_with_the_same_geometry() {
    // A two-way street a - v - b with a side street at b, and a one-way loop
    // b -> w -> c -> b through another chain node.
    let lines = [
        line(&[(0.0, 0.0), (0.0, 0.001)], Direction::Both),
        line(&[(0.0, 0.001), (0.0, 0.002)], Direction::Both),
        line(&[(0.0, 0.002), (0.001, 0.002)], Direction::Both),
        line(&[(0.0, 0.002), (-0.001, 0.002)], Direction::Forward),
        line(&[(-0.001, 0.002), (-0.001, 0.003)], Direction::Forward),
        line(&[(-0.001, 0.003), (0.0, 0.002)], Direction::Forward),
    ];
    let network = build_network(&lines, false);
    let (contracted, merged) = contract_chains(&network);
    assert_eq!(
        merged, 3,
        "the middle of the street and the loop's two corners"
    );
    assert_eq!(contracted.nodes.len(), network.nodes.len() - 3);
    let length = |n: &RoadNetwork| -> f64 {
        n.edges
            .iter()
            .flat_map(|e| e.geometry.windows(2))
            .map(|w| (w[1].0 - w[0].0).hypot(w[1].1 - w[0].1))
            .sum()
    };
    assert!((length(&contracted) - length(&network)).abs() < 1e-12);
    // a -> b is one edge now, with v inside its geometry.
    let ab = contracted
        .edges
        .iter()
        .find(|e| e.geometry[0] == (0.0, 0.0))
        .unwrap();
    assert_eq!(ab.geometry, [(0.0, 0.0), (0.0, 0.001), (0.0, 0.002)]);
    // The loop is one edge from b back to b.
    assert_eq!(contracted.edges.len(), network.edges.len() - 4);
    assert!(
        contracted
            .edges
            .iter()
            .any(|e| e.from == e.to && e.geometry.len() == 4)
    );
}

fn named(points: &[(f64, f64)], direction: Direction, name: &str) -> RoadLine {
    RoadLine {
        name: name.into(),
        ..line(points, direction)
    }
}

#[test]
fn merged_edges_take_the_name_covering_most_of_them() {
    // A two-way street a - v - w - b (chain nodes v and w) with two side streets
    // at each end: King St for its first piece (1 unit long, the longest piece),
    // Queen St for the other two (0.6 units each, 1.2 together).
    let (a, v, w, b) = ((0.0, 0.0), (0.0, 0.001), (0.0, 0.0016), (0.0, 0.0022));
    let lines = [
        named(&[a, v], Direction::Both, "King St"),
        named(&[v, w], Direction::Both, "Queen St"),
        named(&[w, b], Direction::Both, "Queen St"),
        named(&[a, (0.001, 0.0)], Direction::Both, "Side St"),
        named(&[a, (-0.001, 0.0)], Direction::Both, "Side St"),
        named(&[b, (0.001, 0.0022)], Direction::Both, "Side St"),
        named(&[b, (-0.001, 0.0022)], Direction::Both, "Side St"),
    ];
    let (contracted, merged) = contract_chains(&build_network(&lines, false));
    assert_eq!(merged, 2);
    let street: Vec<&RoadEdge> = contracted
        .edges
        .iter()
        .filter(|e| e.geometry.len() == 4)
        .collect();
    assert_eq!(street.len(), 2, "both directions");
    for edge in street {
        assert_eq!(edge.name, "Queen St", "1.2 of 2.2 units against 1");
    }
    // The graph stores each name once and each way's by number.
    let cells = [hexrisk_engine::grid::cell_at(0.0, 0.0).unwrap()];
    let graph = to_graph(&contracted, &cells, "test");
    assert_eq!(graph.validate(1), Ok(()));
    assert_eq!(graph.names, ["Queen St", "Side St"]);
    let mut names: Vec<_> = (0..graph.way_count()).map(|w| graph.way_name(w)).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            Some("Queen St"),
            Some("Side St"),
            Some("Side St"),
            Some("Side St"),
            Some("Side St")
        ]
    );
}

#[test]
fn a_name_outweighs_no_name_only_by_length() {
    let pieces = |names: [&str; 2], lengths: [f64; 2]| {
        let edges: Vec<RoadEdge> = names
            .iter()
            .zip(lengths)
            .map(|(name, length)| RoadEdge {
                from: 0,
                to: 0,
                geometry: vec![(0.0, 0.0), (0.0, length)],
                name: (*name).into(),
            })
            .collect();
        merged_name(&edges.iter().collect::<Vec<_>>())
    };
    assert_eq!(pieces(["", "Bay St"], [0.002, 0.001]), "");
    assert_eq!(pieces(["", "Bay St"], [0.001, 0.002]), "Bay St");
    // Equal lengths: the last name in byte order, whichever comes first.
    assert_eq!(pieces(["", "Bay St"], [0.001, 0.001]), "Bay St");
    assert_eq!(pieces(["Bay St", ""], [0.001, 0.001]), "Bay St");
    assert_eq!(pieces(["Bay St", "Bloor St"], [0.001, 0.001]), "Bloor St");
    assert_eq!(pieces(["Bloor St", "Bay St"], [0.001, 0.001]), "Bloor St");
    assert_eq!(pieces(["Bay St", "Bay St"], [0.001, 0.005]), "Bay St");
}

#[test]
fn one_way_dead_ends_fall_out_of_the_strong_component() {
    let lines = [
        line(&[(0.0, 0.0), (0.0, 0.001)], Direction::Both),
        line(&[(0.0, 0.001), (0.0, 0.002)], Direction::Forward),
    ];
    let (strong, pruned) = largest_strong_component(&build_network(&lines, false));
    assert_eq!(strong.nodes.len(), 2);
    assert_eq!(
        pruned,
        Pruned {
            nodes: 1,
            edges: 1,
            merged: 0
        }
    );
}
