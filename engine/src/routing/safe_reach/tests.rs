//! Safe reach against a brute-force reference: every simple path from the origin
//! within the budget, and each cell entered along it.

use alloc::vec;
use alloc::vec::Vec;

use super::*;
use crate::roads::{OUTSIDE_GRID, RoadGraph};
use crate::routing::test_lattice::{at_node, lattice, risks};

/// (shortest metres, least exposure) to each cell over every simple path from `s`.
fn reference(
    graph: &RoadGraph,
    model: &CostModel,
    s: u32,
    budget: f64,
    cells: usize,
) -> Vec<Option<(f64, f64)>> {
    struct Walk<'a> {
        graph: &'a RoadGraph,
        model: &'a CostModel,
        budget: f64,
        seen: Vec<bool>,
        best: Vec<Option<(f64, f64)>>,
    }
    impl Walk<'_> {
        fn from(&mut self, node: u32, length: f64, exposure: f64) {
            for e in self.graph.out_edges(node) {
                let (way, against) = self.graph.edge_way(e);
                let way_length = f64::from(self.graph.way_length_m[way]);
                let metres: Vec<(u32, f64)> = self
                    .graph
                    .way_cells(way)
                    .map(|(p, m)| (p, f64::from(m)))
                    .collect();
                let scale = way_length / metres.iter().map(|m| m.1).sum::<f64>();
                let mut runs = metres;
                if against {
                    runs.reverse();
                }
                let (mut along, mut exposed) = (0.0, 0.0);
                for (position, m) in runs {
                    if position != OUTSIDE_GRID && length + along <= self.budget {
                        let slot = &mut self.best[position as usize];
                        let (l, x) = slot.unwrap_or((f64::INFINITY, f64::INFINITY));
                        *slot = Some((l.min(length + along), x.min(exposure + exposed)));
                    }
                    along += m * scale;
                    exposed += m * scale * (self.model.factor(way) - 1.0);
                }
                let t = self.graph.edge_target[e];
                if !self.seen[t as usize] && length + way_length <= self.budget {
                    self.seen[t as usize] = true;
                    self.from(t, length + way_length, exposure + exposed);
                    self.seen[t as usize] = false;
                }
            }
        }
    }
    let mut walk = Walk {
        graph,
        model,
        budget,
        seen: vec![false; graph.node_count()],
        best: vec![None; cells],
    };
    walk.seen[s as usize] = true;
    walk.from(s, 0.0, 0.0);
    walk.best
}

#[test]
fn every_cell_has_the_least_exposure_of_any_way_within_the_budget() {
    let (graph, grid, nodes) = lattice(3);
    let index = RouteIndex::new(&graph);
    let mut cells_checked = 0;
    for seed in 0..10_u64 {
        let risks = risks(seed, graph.way_count());
        let model = CostModel::from_risks(&risks, 1.0);
        let s = (seed as usize * 5) % nodes.len();
        let budget = 1_500.0 + 300.0 * seed as f64;
        let from = at_node(&index, &graph, s as u32);
        let found = index
            .safe_reach(&graph, &risks, &from, budget, grid.len())
            .unwrap();
        let expected = reference(&graph, &model, s as u32, budget, grid.len());
        for (position, (f, e)) in found.iter().zip(&expected).enumerate() {
            match (f, e) {
                (None, None) => {}
                (Some(f), Some((metres, exposure))) => {
                    assert!(
                        (f.metres - metres).abs() < 1e-6,
                        "seed {seed} cell {position}"
                    );
                    assert!(
                        (f.exposure_m - exposure).abs() < 1e-6,
                        "seed {seed} cell {position}: {} vs {exposure}",
                        f.exposure_m
                    );
                    cells_checked += 1;
                }
                _ => panic!("seed {seed} cell {position}: {f:?} vs {e:?}"),
            }
        }
    }
    assert!(cells_checked >= 100, "{cells_checked}");
}

#[test]
fn a_zero_budget_reaches_only_the_origin_cell_and_the_guard_holds() {
    let (graph, grid, nodes) = lattice(2);
    let index = RouteIndex::new(&graph);
    let from = at_node(&index, &graph, 4);
    let risks = risks(3, graph.way_count());
    let found = index
        .safe_reach(&graph, &risks, &from, 0.0, grid.len())
        .unwrap();
    let reached: Vec<usize> = (0..grid.len()).filter(|&p| found[p].is_some()).collect();
    let origin = nodes[4].to_cell(crate::grid::RESOLUTION);
    assert_eq!(reached.len(), 1);
    assert_eq!(grid[reached[0]], u64::from(origin));
}
