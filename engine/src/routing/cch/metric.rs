//! Customisation: the cost of every arc of the hierarchy for one cost model, in both
//! directions, and the lower triangle each cost runs through.

use alloc::vec;
use alloc::vec::Vec;

use super::topology::{DOWNWARD, NO_ARC, Topology};
use crate::roads::RoadGraph;
use crate::routing::CostModel;

/// The hierarchy's arc costs for one cost model: built by [`Metric::customise`] in
/// time linear in the hierarchy's lower triangles, then shared by every query with
/// that cost model.
#[derive(Debug, Clone)]
pub struct Metric {
    /// Cost from each arc's tail up to its head.
    pub(super) up: Vec<f64>,
    /// Cost from each arc's head down to its tail.
    pub(super) down: Vec<f64>,
    /// Per arc, `[up, down]`: the lower arc of the triangle each cost runs through
    /// (from the tail down to the triangle's third rank), or [`NO_ARC`] when a road
    /// edge gives the cost. Unpacking follows these instead of searching the
    /// triangles again; both in one place, since customisation writes them together.
    pub(super) via: Vec<[u32; 2]>,
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
            via: vec![[NO_ARC; 2]; arcs],
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
                    // Only a cheaper triangle replaces a cost: on a tie the road edge,
                    // or the triangle through the lowest rank, stays. Selects rather
                    // than branches: which way a comparison goes is unpredictable.
                    let (up, down) = (x_down_r + metric.up[higher], metric.down[higher] + r_up_x);
                    let (up_better, down_better) = (up < metric.up[b], down < metric.down[b]);
                    metric.up[b] = if up_better { up } else { metric.up[b] };
                    metric.down[b] = if down_better { down } else { metric.down[b] };
                    let via = &mut metric.via[b];
                    *via = [
                        if up_better { lower } else { via[0] },
                        if down_better { lower } else { via[1] },
                    ];
                }
            }
            for a in up_x {
                arc_to[topology.head[a] as usize] = NO_ARC;
            }
        }
        metric
    }

    /// Bytes held by the arc costs and their triangles.
    #[must_use]
    pub fn heap_bytes(&self) -> usize {
        self.up.len() * 2 * (size_of::<f64>() + size_of::<u32>())
    }
}
