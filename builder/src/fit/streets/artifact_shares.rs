//! The street shares the artifact carries: each group's shares learnt from every
//! full modelled week (the backtest weeks included), with the shrinkage chosen on
//! the validation weeks before the backtest, quantised by the engine's
//! [`encode_shares`].

use hexrisk_engine::roads::{RoadGraph, ShareGroup, StreetShares, class_bits, encode_shares};

use super::backtest::StreetBacktest;
use super::shares;

impl StreetBacktest {
    /// The shares to serve over `graph` (the graph the backtest ran on).
    #[must_use]
    pub fn served_shares(&self, graph: &RoadGraph, cells: usize) -> StreetShares {
        let ways = self.network.way_count();
        let groups = self
            .groups
            .iter()
            .map(|group| {
                let every_week = 0..group.counts.weeks.len();
                let history = group.counts.totals(every_week, ways);
                let learnt = shares::shares(&self.network, &history, group.shrinkage.k);
                ShareGroup {
                    classes: class_bits(group.group.classes()),
                    codes: encode_shares(graph, cells, &learnt),
                }
            })
            .collect();
        StreetShares { groups }
    }
}
