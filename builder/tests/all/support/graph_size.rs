//! What a road graph adds to an artifact file, for the size budgets.

use hexrisk_engine::artifact::{self, CityArtifact};

/// Bytes the road graph takes in the encoded artifact: the artifact's size with its
/// graph minus its size without. Panics when either encoding fails, so a budget can
/// never pass on a graph that does not encode.
pub(crate) fn stored_graph_bytes(artifact: &CityArtifact) -> usize {
    assert!(
        artifact.road_graph.is_some(),
        "the artifact has no road graph"
    );
    let with_graph = artifact::encode(artifact).expect("the artifact encodes");
    let without_graph = artifact::encode(&CityArtifact {
        road_graph: None,
        street_shares: None,
        places: None,
        ..artifact.clone()
    })
    .expect("the artifact without its graph encodes");
    with_graph.len() - without_graph.len()
}
