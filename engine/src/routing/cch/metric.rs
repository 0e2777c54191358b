//! Customisation: the cost of every arc of the hierarchy for one cost model, in both
//! directions (and room for what each runs through, found when unpacking).

use alloc::vec;
use alloc::vec::Vec;

use super::topology::{DOWNWARD, NO_ARC, Topology};
use super::triangles::Triangles;
use crate::roads::RoadGraph;
use crate::routing::CostModel;

/// The hierarchy's arc costs for one cost model: built by [`Metric::customise`] in
/// time linear in the hierarchy's lower triangles, then shared by every query with
/// that cost model.
#[derive(Debug)]
pub struct Metric {
    /// Cost from each arc's tail up to its head.
    pub(super) up: Vec<f64>,
    /// Cost from each arc's head down to its tail.
    pub(super) down: Vec<f64>,
    /// What each cost runs through, found when an arc is first unpacked.
    pub(super) triangles: Triangles,
}

impl Metric {
    /// Costs every arc: first each road edge on its arc, then, lowest rank first, every
    /// path through a lower node (the basic customisation of Dibbelt, Strasser and
    /// Wagner). Afterwards each arc costs exactly as much as the cheapest path between
    /// its ends that uses only nodes below both.
    pub(super) fn customise(topology: &Topology, graph: &RoadGraph, costs: &CostModel) -> Self {
        let arcs = topology.arc_count();
        let mut metric = Self {
            up: vec![f64::INFINITY; arcs],
            down: vec![f64::INFINITY; arcs],
            triangles: Triangles::new(arcs),
        };
        let way_cost: Vec<f64> = (0..graph.way_count())
            .map(|way| costs.way_cost(graph, way))
            .collect();
        for (e, &arc) in topology.edge_arc.iter().enumerate() {
            if arc == NO_ARC {
                continue;
            }
            let cost = way_cost[graph.edge_way(e).0];
            let costs = if arc & DOWNWARD == 0 {
                &mut metric.up
            } else {
                &mut metric.down
            };
            let a = (arc & !DOWNWARD) as usize;
            costs[a] = costs[a].min(cost);
        }

        // For each rank x, the arcs x → y are finished by the triangles r < x below
        // them; arcs from r were finished when r's turn came.
        let mut arc_to = vec![NO_ARC; topology.rank.len()];
        for x in 0..topology.rank.len() as u32 {
            let up_x = topology.up(x);
            for a in up_x.clone() {
                arc_to[topology.head[a] as usize] = a as u32;
            }
            for &lower in topology.below(x) {
                let r = topology.tail[lower as usize];
                let (r_up_x, x_down_r) = (metric.up[lower as usize], metric.down[lower as usize]);
                if r_up_x.is_infinite() && x_down_r.is_infinite() {
                    continue;
                }
                // The arcs r → y with y above x: those after `lower` in r's list.
                for higher in lower as usize + 1..topology.up(r).end {
                    let y = topology.head[higher];
                    let b = arc_to[y as usize] as usize;
                    // Unpacking finds the triangle again by these exact sums.
                    metric.up[b] = metric.up[b].min(x_down_r + metric.up[higher]);
                    metric.down[b] = metric.down[b].min(metric.down[higher] + r_up_x);
                }
            }
            for a in up_x {
                arc_to[topology.head[a] as usize] = NO_ARC;
            }
        }
        metric
    }

    /// Bytes held by the arc costs and what they run through, this counted as if
    /// every block of it were made (blocks are made as routes unpack).
    #[must_use]
    pub fn heap_bytes(&self) -> usize {
        self.up.len() * 2 * size_of::<f64>() + self.triangles.heap_bytes()
    }
}
