//! Road networks from road lines: lines joined into a graph at shared end points
//! (Toronto's streets are split at intersections) or at shared vertices (TIGER
//! lines are not), reduced to the largest strongly connected component, with chains
//! of nodes that only continue a street merged (the merged edge named after the
//! name covering most of it), and packed into the engine's graph.

use std::collections::HashMap;

use hexrisk_engine::grid::{self, MicroDegrees};
use hexrisk_engine::roads::{NetworkKind, OUTSIDE_GRID, REVERSED, RoadGraph};
use petgraph::algo::kosaraju_scc;
use petgraph::graph::DiGraph;

use super::lines::{Direction, RoadLine};

/// A directed road graph: nodes at intersections, an edge per way of travel.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RoadNetwork {
    /// Node positions `(latitude, longitude)`.
    pub nodes: Vec<(f64, f64)>,
    /// Edges: from, to, geometry (from `from` to `to`, both ends included), name.
    pub edges: Vec<RoadEdge>,
}

/// One directed edge.
#[derive(Debug, Clone, PartialEq)]
pub struct RoadEdge {
    /// Start node.
    pub from: u32,
    /// End node.
    pub to: u32,
    /// Geometry from start to end.
    pub geometry: Vec<(f64, f64)>,
    /// Street name.
    pub name: String,
}

/// Positions are matched to 1e-7 degrees (about 1 cm) to join lines.
fn position_key(p: (f64, f64)) -> (i64, i64) {
    ((p.0 * 1e7).round() as i64, (p.1 * 1e7).round() as i64)
}

/// Joins lines into a graph. With `split_at_shared_vertices`, a line is also cut at
/// every interior vertex that another line shares (TIGER); otherwise only end points
/// become nodes (data already split at intersections).
#[must_use]
pub fn build_network(lines: &[RoadLine], split_at_shared_vertices: bool) -> RoadNetwork {
    let mut uses: HashMap<(i64, i64), u32> = HashMap::new();
    if split_at_shared_vertices {
        for line in lines {
            let mut seen = std::collections::HashSet::new();
            for &p in &line.points {
                if seen.insert(position_key(p)) {
                    *uses.entry(position_key(p)).or_default() += 1;
                }
            }
        }
    }
    let mut network = RoadNetwork::default();
    let mut index: HashMap<(i64, i64), u32> = HashMap::new();
    let mut node = |p: (f64, f64), network: &mut RoadNetwork| -> u32 {
        *index.entry(position_key(p)).or_insert_with(|| {
            network.nodes.push(p);
            (network.nodes.len() - 1) as u32
        })
    };
    for line in lines {
        let last = line.points.len() - 1;
        let mut start = 0;
        for i in 1..=last {
            let shared = split_at_shared_vertices
                && uses
                    .get(&position_key(line.points[i]))
                    .copied()
                    .unwrap_or(0)
                    > 1;
            if i < last && !shared {
                continue;
            }
            let piece = &line.points[start..=i];
            let (a, b) = (
                node(piece[0], &mut network),
                node(piece[piece.len() - 1], &mut network),
            );
            if a != b || piece.len() > 2 {
                if line.direction != Direction::Backward {
                    network.edges.push(RoadEdge {
                        from: a,
                        to: b,
                        geometry: piece.to_vec(),
                        name: line.name.clone(),
                    });
                }
                if line.direction != Direction::Forward {
                    let mut reversed = piece.to_vec();
                    reversed.reverse();
                    network.edges.push(RoadEdge {
                        from: b,
                        to: a,
                        geometry: reversed,
                        name: line.name.clone(),
                    });
                }
            }
            start = i;
        }
    }
    network
}

/// Sizes of the pieces of a network, ignoring direction, largest first.
#[must_use]
pub fn weak_component_sizes(network: &RoadNetwork) -> Vec<usize> {
    let mut sets = petgraph::unionfind::UnionFind::<u32>::new(network.nodes.len());
    for edge in &network.edges {
        sets.union(edge.from, edge.to);
    }
    let mut sizes: HashMap<u32, usize> = HashMap::new();
    for n in 0..network.nodes.len() as u32 {
        *sizes.entry(sets.find(n)).or_default() += 1;
    }
    let mut sizes: Vec<usize> = sizes.into_values().collect();
    sizes.sort_unstable_by(|a, b| b.cmp(a));
    sizes
}

/// What keeping the largest strongly connected component dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pruned {
    /// Nodes dropped.
    pub nodes: usize,
    /// Edges dropped.
    pub edges: usize,
    /// Nodes that only continued a street, merged into longer edges (not dropped).
    pub merged: usize,
}

/// Keeps only the largest strongly connected component (every kept node can reach
/// every other), renumbering nodes in their original order.
#[must_use]
pub fn largest_strong_component(network: &RoadNetwork) -> (RoadNetwork, Pruned) {
    let mut graph = DiGraph::<(), ()>::with_capacity(network.nodes.len(), network.edges.len());
    for _ in &network.nodes {
        graph.add_node(());
    }
    for edge in &network.edges {
        graph.add_edge(edge.from.into(), edge.to.into(), ());
    }
    let largest = kosaraju_scc(&graph)
        .into_iter()
        .max_by_key(Vec::len)
        .unwrap_or_default();
    let mut keep = vec![None; network.nodes.len()];
    let mut members: Vec<usize> = largest.iter().map(|n| n.index()).collect();
    members.sort_unstable();
    let mut out = RoadNetwork::default();
    for old in members {
        keep[old] = Some(out.nodes.len() as u32);
        out.nodes.push(network.nodes[old]);
    }
    for edge in &network.edges {
        if let (Some(from), Some(to)) = (keep[edge.from as usize], keep[edge.to as usize]) {
            out.edges.push(RoadEdge {
                from,
                to,
                ..edge.clone()
            });
        }
    }
    let pruned = Pruned {
        nodes: network.nodes.len() - out.nodes.len(),
        edges: network.edges.len() - out.edges.len(),
        merged: 0,
    };
    (out, pruned)
}

/// Whether a node only continues one street: one way through (`a → v → b`) or both
/// ways (`a ⇄ v ⇄ b`), with `a ≠ b`.
fn chain_nodes(network: &RoadNetwork) -> Vec<bool> {
    let n = network.nodes.len();
    let mut into: Vec<Vec<u32>> = vec![Vec::new(); n];
    let mut out: Vec<Vec<u32>> = vec![Vec::new(); n];
    for edge in &network.edges {
        out[edge.from as usize].push(edge.to);
        into[edge.to as usize].push(edge.from);
    }
    (0..n)
        .map(|v| {
            let (mut i, mut o) = (into[v].clone(), out[v].clone());
            i.sort_unstable();
            o.sort_unstable();
            let one_way = i.len() == 1 && o.len() == 1 && i[0] != o[0];
            let two_way = i.len() == 2 && i == o && i[0] != i[1];
            (one_way || two_way) && !i.contains(&(v as u32))
        })
        .collect()
}

/// Merges edges through `chain_nodes` so that nodes are only intersections and
/// dead ends: the same streets and lengths with about half the nodes, which halves
/// the work of every route search. Returns the network and the nodes merged away.
#[must_use]
pub fn contract_chains(network: &RoadNetwork) -> (RoadNetwork, usize) {
    let chain = chain_nodes(network);
    if chain.iter().all(|&c| c) {
        // A single loop: nothing to anchor the merged edges to.
        return (network.clone(), 0);
    }
    let mut out_edges: Vec<Vec<usize>> = vec![Vec::new(); network.nodes.len()];
    for (e, edge) in network.edges.iter().enumerate() {
        out_edges[edge.from as usize].push(e);
    }
    let mut renumber = vec![u32::MAX; network.nodes.len()];
    let mut out = RoadNetwork::default();
    for (v, &p) in network.nodes.iter().enumerate() {
        if !chain[v] {
            renumber[v] = out.nodes.len() as u32;
            out.nodes.push(p);
        }
    }
    for edge in network.edges.iter().filter(|e| !chain[e.from as usize]) {
        let mut geometry = edge.geometry.clone();
        let mut pieces = vec![edge];
        let (mut previous, mut current) = (edge.from, edge.to);
        // Each step leaves a chain node by its one onward edge; the bound only guards
        // against malformed input.
        for _ in 0..network.nodes.len() {
            if !chain[current as usize] {
                break;
            }
            let Some(&next) = out_edges[current as usize]
                .iter()
                .find(|&&e| network.edges[e].to != previous)
            else {
                break;
            };
            geometry.extend_from_slice(&network.edges[next].geometry[1..]);
            pieces.push(&network.edges[next]);
            previous = current;
            current = network.edges[next].to;
        }
        out.edges.push(RoadEdge {
            from: renumber[edge.from as usize],
            to: renumber[current as usize],
            geometry,
            name: merged_name(&pieces),
        });
    }
    (out, chain.iter().filter(|&&c| c).count())
}

/// Great-circle length of a geometry in metres, as [`to_graph`] measures ways.
fn length_m(geometry: &[(f64, f64)]) -> f64 {
    let points: Vec<h3o::LatLng> = geometry
        .iter()
        .filter_map(|&(lat, lng)| h3o::LatLng::new(lat, lng).ok())
        .collect();
    points
        .windows(2)
        .map(|p| grid::distance_m(p[0], p[1]))
        .sum()
}

/// The name of an edge merged from `pieces`: theirs when they all agree, otherwise
/// the name (no name counting as one) covering most of the length, and of names
/// covering equal lengths the last in byte order (so a name beats no name).
fn merged_name(pieces: &[&RoadEdge]) -> String {
    let first = &pieces[0].name;
    if pieces.iter().all(|p| p.name == *first) {
        return first.clone();
    }
    let mut totals: Vec<(&str, f64)> = Vec::new();
    for piece in pieces {
        let metres = length_m(&piece.geometry);
        match totals.iter_mut().find(|(name, _)| *name == piece.name) {
            Some((_, total)) => *total += metres,
            None => totals.push((&piece.name, metres)),
        }
    }
    totals
        .into_iter()
        .max_by(|a, b| a.1.total_cmp(&b.1).then_with(|| a.0.cmp(b.0)))
        .map_or_else(String::new, |(name, _)| name.to_owned())
}

/// A `(latitude, longitude)` point as the graph stores it.
fn stored((lat, lng): (f64, f64)) -> MicroDegrees {
    MicroDegrees::from_degrees(lat, lng)
}

/// Packs a network into the engine's [`RoadGraph`]: ways shared by the two
/// directions of a street, lengths along the geometry, the grid cells each way
/// crosses (`cells` is the sorted city grid), street names and CSR edges. A way
/// takes the name of the first edge that runs along it.
#[must_use]
pub fn to_graph(network: &RoadNetwork, cells: &[h3o::CellIndex], source: &str) -> RoadGraph {
    // One way per street piece: an edge and its reverse share it.
    let key = |geometry: &[(f64, f64)]| -> Vec<MicroDegrees> {
        geometry.iter().map(|&p| stored(p)).collect()
    };
    let mut way_index: HashMap<Vec<MicroDegrees>, u32> = HashMap::new();
    let mut ways: Vec<&RoadEdge> = Vec::new();
    let mut edge_way = Vec::with_capacity(network.edges.len());
    for edge in &network.edges {
        let forward = key(&edge.geometry);
        let mut backward = forward.clone();
        backward.reverse();
        if let Some(&w) = way_index.get(&forward) {
            edge_way.push(w);
        } else if let Some(&w) = way_index.get(&backward) {
            edge_way.push(w | REVERSED);
        } else {
            let w = ways.len() as u32;
            way_index.insert(forward, w);
            ways.push(edge);
            edge_way.push(w);
        }
    }

    let mut graph = RoadGraph {
        kind: NetworkKind::Roads,
        source: source.to_owned(),
        nodes: network.nodes.iter().map(|&p| stored(p)).collect(),
        first_edge: Vec::with_capacity(network.nodes.len() + 1),
        edge_target: Vec::with_capacity(network.edges.len()),
        edge_way: Vec::with_capacity(network.edges.len()),
        way_length_m: Vec::with_capacity(ways.len()),
        way_points_start: vec![0],
        way_points: Vec::new(),
        way_cells_start: vec![0],
        way_cells: Vec::new(),
        way_cell_m: Vec::new(),
        contraction_order: Vec::new(),
        names: Vec::new(),
        way_name: Vec::new(),
    };
    graph.set_way_names(ways.iter().map(|way| way.name.as_str()));
    for way in &ways {
        let points: Vec<h3o::LatLng> = way
            .geometry
            .iter()
            .filter_map(|&(lat, lng)| h3o::LatLng::new(lat, lng).ok())
            .collect();
        let length: f64 = points
            .windows(2)
            .map(|p| grid::distance_m(p[0], p[1]))
            .sum();
        let crossed = grid::cells_crossed(&points, grid::RESOLUTION);
        graph.way_length_m.push(length as f32);
        // The ends are the way's nodes; only the interior points are stored.
        let interior = &way.geometry[1..way.geometry.len() - 1];
        graph.way_points.extend(interior.iter().map(|&p| stored(p)));
        graph.way_points_start.push(graph.way_points.len() as u32);
        for (cell, metres) in crossed {
            graph.way_cells.push(
                cells
                    .binary_search(&cell)
                    .map_or(OUTSIDE_GRID, |i| i as u32),
            );
            graph.way_cell_m.push(metres as f32);
        }
        graph.way_cells_start.push(graph.way_cells.len() as u32);
    }

    // CSR: edges grouped by source node, in input order within a node.
    let mut order: Vec<usize> = (0..network.edges.len()).collect();
    order.sort_by_key(|&e| network.edges[e].from);
    let mut next = 0;
    for node in 0..network.nodes.len() as u32 {
        graph.first_edge.push(graph.edge_target.len() as u32);
        while next < order.len() && network.edges[order[next]].from == node {
            let e = order[next];
            graph.edge_target.push(network.edges[e].to);
            graph.edge_way.push(edge_way[e]);
            next += 1;
        }
    }
    graph.first_edge.push(graph.edge_target.len() as u32);
    graph
}

#[cfg(test)]
mod tests;
