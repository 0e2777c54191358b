//! Road networks from the real shapefiles in `../shared/data`, checked against the
//! figures its README gives.

use std::collections::HashSet;
use std::path::PathBuf;

use hexrisk_builder::data;
use hexrisk_builder::roads::{self, Direction};

fn data_dir() -> PathBuf {
    std::env::var_os(data::DATA_DIR_ENV).map_or_else(
        || {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("..")
                .join(data::DEFAULT_DATA_DIR)
        },
        PathBuf::from,
    )
}

#[test]
fn toronto_streets_join_at_their_end_points() {
    let lines = roads::read_toronto_streets(&data_dir().join("toronto/streets_here.zip")).unwrap();
    assert_eq!(lines.len(), 65_125);
    assert!(lines.iter().any(|l| l.direction == Direction::Forward));
    assert!(lines.iter().any(|l| l.direction == Direction::Backward));
    let network = roads::build_network(&lines, false);
    // README: 52,524 end nodes, one connected piece of 52,517.
    assert_eq!(network.nodes.len(), 52_524);
    assert_eq!(roads::weak_component_sizes(&network)[0], 52_517);
    let (strong, pruned) = roads::largest_strong_component(&network);
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
    let lines = roads::read_tiger_roads(
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
    let network = roads::build_network(&lines, true);
    let sizes = roads::weak_component_sizes(&network);
    let share = sizes[0] as f64 / network.nodes.len() as f64;
    assert!(share > 0.99, "largest piece holds {share:.3} of the nodes");
    // Without splitting, lines only meet at their ends and the network falls apart.
    let unsplit = roads::weak_component_sizes(&roads::build_network(&lines, false));
    assert!((unsplit[0] as f64) < 0.9 * network.nodes.len() as f64);
}
