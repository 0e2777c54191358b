//! Numbers a road graph's nodes and ways so that what a route reads lies together in
//! memory: node `n` becomes the `n`-th node of the contraction order, and ways are
//! numbered in the order their first edge appears. The nested dissection behind
//! that order puts the nodes of each small region of the city next to each other,
//! so the nodes, edges and ways along a route, and the hierarchy's arcs (which are
//! indexed by rank), are read from a few runs of memory instead of from all over
//! arrays of tens of thousands of entries.
//!
//! The hierarchy is the same, since every node keeps its rank, and each node's
//! out-edges keep their relative order, so unpacking picks the same one of parallel
//! edges; a way keeps its direction, geometry and name. Every route costs what it did.
//! What may differ is a choice among exact ties that other code makes by number
//! (snapping to one of two equally near ways, a heap's order of equal keys), and
//! sums over nodes in node order (the snapping frame's centre) in their last digits.

use hexrisk_engine::roads::{REVERSED, RoadGraph};

/// A way not numbered yet.
const UNSEEN: u32 = u32::MAX;

/// `graph` with its nodes in its contraction order and its ways in the order of
/// their first edge; the stored order becomes `0, 1, …`. A graph without a valid
/// stored order is returned as it is.
#[must_use]
pub fn in_contraction_order(graph: &RoadGraph) -> RoadGraph {
    let Some(order) = graph.stored_order() else {
        return graph.clone();
    };
    let nodes = graph.node_count();
    let mut new_id = vec![0_u32; nodes];
    for (rank, &node) in order.iter().enumerate() {
        new_id[node as usize] = rank as u32;
    }

    // Ways numbered as the new edge order first meets them.
    let mut new_way = vec![UNSEEN; graph.way_count()];
    let mut way_order: Vec<u32> = Vec::with_capacity(graph.way_count());
    let mut first_edge = Vec::with_capacity(nodes + 1);
    let (mut edge_target, mut edge_way) = (Vec::new(), Vec::new());
    for &old in order {
        first_edge.push(edge_target.len() as u32);
        for e in graph.out_edges(old) {
            let (way, reversed) = graph.edge_way(e);
            if new_way[way] == UNSEEN {
                new_way[way] = way_order.len() as u32;
                way_order.push(way as u32);
            }
            edge_target.push(new_id[graph.edge_target[e] as usize]);
            edge_way.push(new_way[way] | if reversed { REVERSED } else { 0 });
        }
    }
    first_edge.push(edge_target.len() as u32);
    // A way no edge uses (none in a built graph) keeps a place at the end.
    way_order.extend((0..graph.way_count() as u32).filter(|&w| new_way[w as usize] == UNSEEN));

    let mut out = RoadGraph {
        kind: graph.kind,
        source: graph.source.clone(),
        nodes: order.iter().map(|&n| graph.node(n)).collect(),
        first_edge,
        edge_target,
        edge_way,
        way_length_m: Vec::with_capacity(way_order.len()),
        way_points_start: vec![0],
        way_points: Vec::with_capacity(graph.way_points.len()),
        way_cells_start: vec![0],
        way_cells: Vec::with_capacity(graph.way_cells.len()),
        way_cell_m: Vec::with_capacity(graph.way_cell_m.len()),
        contraction_order: (0..nodes as u32).collect(),
        // The names stay as they are; each way takes its number along.
        names: graph.names.clone(),
        way_name: Vec::with_capacity(graph.way_name.len()),
    };
    for &way in &way_order {
        let way = way as usize;
        if let Some(&name) = graph.way_name.get(way) {
            out.way_name.push(name);
        }
        out.way_length_m.push(graph.way_length_m[way]);
        out.way_points.extend_from_slice(graph.way_interior(way));
        out.way_points_start.push(out.way_points.len() as u32);
        let cells = graph.way_cells_start[way] as usize..graph.way_cells_start[way + 1] as usize;
        out.way_cells
            .extend_from_slice(&graph.way_cells[cells.clone()]);
        out.way_cell_m.extend_from_slice(&graph.way_cell_m[cells]);
        out.way_cells_start.push(out.way_cells.len() as u32);
    }
    out
}

#[cfg(test)]
mod tests;
