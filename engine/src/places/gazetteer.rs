//! A city's places ready to search, derived on first use from its graph: each street
//! name's position and length, and the intersections of the road graph. (The stored
//! index, [`super::index`], is searched as it is.)
//!
//! A street's position is the end of one of its ways nearest the length-weighted
//! centre of its ways (a name used in two parts of the city is one street, placed
//! between them). An intersection is a node where ways of two or more names meet;
//! its degree is the number of ways meeting there.

use alloc::vec;
use alloc::vec::Vec;

use crate::grid::MicroDegrees;
use crate::roads::RoadGraph;

/// Where a street name lies and how long it is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StreetSpan {
    /// A node of the street nearest its centre.
    pub point: MicroDegrees,
    /// Metres of way with this name.
    pub length_m: f64,
}

/// A node where ways of two or more names meet.
#[derive(Debug, Clone, PartialEq)]
pub struct Crossing {
    /// Where.
    pub point: MicroDegrees,
    /// The graph's name ids meeting there, ascending.
    pub names: Vec<u32>,
    /// Ways meeting there.
    pub degree: u32,
}

/// A city's places ready to search (see the module documentation).
#[derive(Debug)]
pub struct Gazetteer {
    /// Per street name id, its span.
    pub streets: Vec<StreetSpan>,
    /// Intersections, in node order.
    pub crossings: Vec<Crossing>,
    /// Per street name id, its intersections: `crossings_start[n]..crossings_start[n + 1]`
    /// of `crossings_of`.
    crossings_start: Vec<u32>,
    crossings_of: Vec<u32>,
}

impl Gazetteer {
    /// The places of a city's graph (none without one).
    #[must_use]
    pub fn new(graph: Option<&RoadGraph>) -> Self {
        // Without nodes no way has ends (`way_ends` gives node 0 to a way no edge
        // uses, which a crafted file may hold).
        let Some(graph) = graph.filter(|g| g.node_count() > 0) else {
            return Self {
                streets: Vec::new(),
                crossings: Vec::new(),
                crossings_start: vec![0],
                crossings_of: Vec::new(),
            };
        };
        let ends = graph.way_ends();
        let streets = street_spans(graph, &ends);
        let crossings = crossings(graph, &ends);
        let mut crossings_start = vec![0u32; graph.names.len() + 1];
        for crossing in &crossings {
            for &name in &crossing.names {
                crossings_start[name as usize + 1] += 1;
            }
        }
        for n in 1..crossings_start.len() {
            crossings_start[n] += crossings_start[n - 1];
        }
        let mut filled = crossings_start.clone();
        let mut crossings_of = vec![0u32; crossings_start.last().copied().unwrap_or(0) as usize];
        for (id, crossing) in crossings.iter().enumerate() {
            for &name in &crossing.names {
                let slot = &mut filled[name as usize];
                crossings_of[*slot as usize] = id as u32;
                *slot += 1;
            }
        }
        Self {
            streets,
            crossings,
            crossings_start,
            crossings_of,
        }
    }

    /// The intersections of street name `name`.
    pub fn crossings_of(&self, name: u32) -> impl Iterator<Item = u32> + '_ {
        let n = name as usize;
        let range = match (self.crossings_start.get(n), self.crossings_start.get(n + 1)) {
            (Some(&a), Some(&b)) => a as usize..b as usize,
            _ => 0..0,
        };
        self.crossings_of[range].iter().copied()
    }
}

/// Each name's span (a name with no way keeps the origin and length 0).
fn street_spans(graph: &RoadGraph, ends: &[[u32; 2]]) -> Vec<StreetSpan> {
    let names = graph.names.len();
    // Length-weighted sums of way midpoints, then the nearest end to the mean.
    let mut sums = vec![[0.0f64; 3]; names];
    let name_of = |way: usize| graph.way_name.get(way).and_then(|&n| n.checked_sub(1));
    for (way, [a, b]) in ends.iter().enumerate() {
        let Some(name) = name_of(way) else {
            continue;
        };
        let (a, b) = (graph.node(*a), graph.node(*b));
        let length = f64::from(graph.way_length_m[way]).max(0.1);
        let sum = &mut sums[name as usize];
        sum[0] += length * (a.lat() + b.lat()) / 2.0;
        sum[1] += length * (a.lng() + b.lng()) / 2.0;
        sum[2] += length;
    }
    let mut spans: Vec<(f64, StreetSpan)> = sums
        .iter()
        .map(|s| {
            (
                f64::INFINITY,
                StreetSpan {
                    point: MicroDegrees([0, 0]),
                    length_m: s[2],
                },
            )
        })
        .collect();
    for (way, pair) in ends.iter().enumerate() {
        let Some(name) = name_of(way) else {
            continue;
        };
        let sum = sums[name as usize];
        let (lat, lng) = (sum[0] / sum[2], sum[1] / sum[2]);
        let cos = libm::cos(lat.to_radians());
        for &node in pair {
            let p = graph.node(node);
            let (dy, dx) = (p.lat() - lat, (p.lng() - lng) * cos);
            let d = dx * dx + dy * dy;
            let best = &mut spans[name as usize];
            if d < best.0 {
                *best = (d, StreetSpan { point: p, ..best.1 });
            }
        }
    }
    spans.into_iter().map(|(_, s)| s).collect()
}

/// The intersections of the graph, in node order.
fn crossings(graph: &RoadGraph, ends: &[[u32; 2]]) -> Vec<Crossing> {
    let mut at: Vec<(u32, u32, u32)> = Vec::new();
    for (way, pair) in ends.iter().enumerate() {
        let name = graph.way_name.get(way).copied().unwrap_or(0);
        for &node in pair {
            at.push((node, name, way as u32));
        }
    }
    crate::sorting::sort(&mut at);
    at.dedup();
    let mut crossings = Vec::new();
    for group in at.chunk_by(|a, b| a.0 == b.0) {
        let mut names: Vec<u32> = group
            .iter()
            .filter_map(|&(_, name, _)| name.checked_sub(1))
            .collect();
        names.dedup();
        if names.len() >= 2 {
            let mut ways: Vec<u32> = group.iter().map(|g| g.2).collect();
            crate::sorting::sort(&mut ways);
            ways.dedup();
            crossings.push(Crossing {
                point: graph.node(group[0].0),
                names,
                degree: ways.len() as u32,
            });
        }
    }
    crossings
}
