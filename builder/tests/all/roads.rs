//! Road networks from the real shapefiles in `../shared/data`, checked against the
//! figures its README gives.

use std::collections::HashSet;
use std::path::PathBuf;

use hexrisk_builder::inputs::data;
use hexrisk_builder::roads::lines::Direction;
use hexrisk_builder::roads::{network, shapefiles};
use hexrisk_engine::artifact::CityArtifact;
use hexrisk_engine::artifact::fixture::CityFixture;

use crate::support::graph_size;

fn data_dir() -> PathBuf {
    data::workspace_data_dir()
}

#[test]
fn toronto_streets_join_at_their_end_points() {
    let lines =
        shapefiles::read_toronto_streets(&data_dir().join("toronto/streets_here.zip")).unwrap();
    assert_eq!(lines.len(), 65_125);
    assert!(lines.iter().any(|l| l.direction == Direction::Forward));
    assert!(lines.iter().any(|l| l.direction == Direction::Backward));
    let network = network::build_network(&lines, false);
    // README: 52,524 end nodes, one connected piece of 52,517.
    assert_eq!(network.nodes.len(), 52_524);
    assert_eq!(network::weak_component_sizes(&network)[0], 52_517);
    let (strong, pruned) = network::largest_strong_component(&network);
    assert!(strong.nodes.len() > 50_000, "{} nodes", strong.nodes.len());
    assert_eq!(strong.nodes.len() + pruned.nodes, network.nodes.len());
    // Every kept edge joins kept nodes and starts and ends at them.
    for edge in &strong.edges {
        assert_eq!(edge.geometry[0], strong.nodes[edge.from as usize]);
        assert_eq!(
            *edge.geometry.last().unwrap(),
            strong.nodes[edge.to as usize]
        );
    }
}

#[test]
fn tiger_lines_split_at_shared_vertices() {
    let lines = shapefiles::read_tiger_roads(
        &data_dir().join("san_francisco/tiger_roads_2017/tl_2017_06075_roads.shp"),
    )
    .unwrap();
    assert_eq!(lines.len(), 4_087);
    let vertices: HashSet<(i64, i64)> = lines
        .iter()
        .flat_map(|l| {
            l.points
                .iter()
                .map(|p| ((p.0 * 1e7).round() as i64, (p.1 * 1e7).round() as i64))
        })
        .collect();
    assert_eq!(vertices.len(), 27_995);
    let network = network::build_network(&lines, true);
    let sizes = network::weak_component_sizes(&network);
    let share = sizes[0] as f64 / network.nodes.len() as f64;
    assert!(share > 0.99, "largest piece holds {share:.3} of the nodes");
    // Without splitting, lines only meet at their ends and the network falls apart.
    let unsplit = network::weak_component_sizes(&network::build_network(&lines, false));
    assert!((unsplit[0] as f64) < 0.9 * network.nodes.len() as f64);
}

#[test]
fn helsinki_pbf_roads() {
    let data =
        hexrisk_builder::roads::osm::read_pbf(&data_dir().join("helsinki/helsinki_center.osm.pbf"))
            .unwrap();
    // README: 24,260 nodes, 5,130 ways (2,650 roads).
    assert_eq!(data.nodes.len(), 24_260);
    assert_eq!(data.ways.len(), 5_130);
    assert_eq!(data.highways().count(), 2_650);
    let lines = data.road_lines();
    assert!(
        lines.len() > 2_000 && lines.len() <= 2_650,
        "{}",
        lines.len()
    );
    assert!(lines.iter().any(|l| l.direction == Direction::Forward));
    let network = network::build_network(&lines, true);
    let (strong, _) = network::largest_strong_component(&network);
    assert!(strong.nodes.len() as f64 > 0.5 * network.nodes.len() as f64);
}

#[test]
fn uoft_campus_osm_xml_roads() {
    let data =
        hexrisk_builder::roads::osm::read_xml(&data_dir().join("toronto/uoft_campus.osm")).unwrap();
    // README: 12,360 nodes, 1,589 ways.
    assert_eq!(data.nodes.len(), 12_360);
    assert_eq!(data.ways.len(), 1_589);
    let lines = data.road_lines();
    assert!(lines.len() > 500, "{}", lines.len());
    let network = network::build_network(&lines, true);
    assert!(network::weak_component_sizes(&network)[0] > network.nodes.len() / 2);
}

/// The graph of `network` over a grid of the cells its nodes touch: enough to check
/// the cell tables.
fn graph_over_touched_cells(
    network: &network::RoadNetwork,
) -> (
    hexrisk_engine::roads::RoadGraph,
    Vec<hexrisk_engine::CellIndex>,
) {
    let mut cells: Vec<hexrisk_engine::CellIndex> = network
        .nodes
        .iter()
        .filter_map(|&(lat, lng)| hexrisk_engine::grid::cell_at(lat, lng).ok())
        .collect();
    cells.sort_unstable();
    cells.dedup();
    (network::to_graph(network, &cells, "test"), cells)
}

#[test]
fn toronto_graph_packs_ways_once_and_validates() {
    let lines =
        shapefiles::read_toronto_streets(&data_dir().join("toronto/streets_here.zip")).unwrap();
    let (strong, _) = network::largest_strong_component(&network::build_network(&lines, false));
    let (graph, cells) = graph_over_touched_cells(&strong);
    assert_eq!(graph.validate(cells.len()), Ok(()));
    assert_eq!(graph.node_count(), strong.nodes.len());
    assert_eq!(graph.edge_count(), strong.edges.len());
    assert!(
        graph.way_count() < graph.edge_count(),
        "two-way streets share a way"
    );
    // Lengths are the geometry's: every way between 0 m and 5 km, cell metres summing to it.
    for way in 0..graph.way_count() {
        let length = f64::from(graph.way_length_m[way]);
        assert!((0.0..5_000.0).contains(&length));
        let in_cells: f64 = graph.way_cells(way).map(|(_, m)| f64::from(m)).sum();
        assert!(
            (in_cells - length).abs() < 0.01 * length.max(1.0),
            "way {way}: {in_cells} vs {length}"
        );
    }
    // Every way's stored polyline runs from node to node along points that are its
    // length apart (to the micro-degree rounding of each point).
    for (way, ends) in graph.way_ends().into_iter().enumerate() {
        let line = graph.way_polyline(way, ends);
        assert_eq!(line.len(), graph.way_interior(way).len() + 2);
        let along: f64 = line.windows(2).map(|p| p[0].distance_m(p[1])).sum();
        let length = f64::from(graph.way_length_m[way]);
        assert!(
            (along - length).abs() < 0.5 + 1e-4 * length,
            "way {way}: {along} m along its points, {length} m stored"
        );
    }
    // In a small city's artifact, the graph takes what it takes in Toronto's.
    let artifact = CityArtifact {
        road_graph: Some(graph),
        street_shares: None,
        places: None,
        ..CityFixture::default().build()
    };
    let bytes = graph_size::stored_graph_bytes(&artifact);
    assert!(bytes < 3_000_000, "graph compresses to {bytes} bytes");
}

#[test]
fn street_names_come_from_the_sources_through_merged_ways() {
    let toronto =
        shapefiles::read_toronto_streets(&data_dir().join("toronto/streets_here.zip")).unwrap();
    let tiger = shapefiles::read_tiger_roads(
        &data_dir().join("san_francisco/tiger_roads_2017/tl_2017_06075_roads.shp"),
    )
    .unwrap();
    for (lines, split, known) in [(toronto, false, "YONGE ST"), (tiger, true, "Market St")] {
        let spelt: HashSet<&str> = lines.iter().map(|l| l.name.as_str()).collect();
        let (strong, _) = network::largest_strong_component(&network::build_network(&lines, split));
        let (contracted, merged) = network::contract_chains(&strong);
        assert!(merged > 0, "{known}: some ways are merged from pieces");
        let (graph, cells) = graph_over_touched_cells(&contracted);
        assert_eq!(graph.validate(cells.len()), Ok(()));
        // Names as the source spells them, each once; nearly every way has one.
        assert!(graph.names.iter().all(|n| spelt.contains(n.as_str())));
        assert!(graph.names.iter().any(|n| n == known));
        let named = (0..graph.way_count())
            .filter(|&w| graph.way_name(w).is_some())
            .count();
        assert!(
            named as f64 > 0.95 * graph.way_count() as f64,
            "{known}: {named} of {} ways named",
            graph.way_count()
        );
    }
}
