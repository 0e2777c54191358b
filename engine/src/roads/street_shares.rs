//! How a cell's expected incidents spread over its streets: each way's share of its
//! cell, learnt by the build from where past incidents lay, stored per way as its
//! ratio to the length-proportional share on a log scale.
//!
//! A way belongs to one cell, the one it has the most metres in
//! ([`RoadGraph::home_cell`]); a cell's ways' shares sum to 1. A share is stored as
//! `round(8 · log2(share / length_share))`, clamped to `-127..=127`: eighths of a
//! doubling over ratios from about 1/60,000 to 60,000, so each code is within 4.4 %
//! of its share. Decoding renormalises each cell's shares, so the rounding moves
//! shares within a cell (each decoded share within 9.1 % of the learnt one), never
//! the cell's total.

use alloc::vec;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use super::graph::{GraphError, RoadGraph};
use crate::forecast::{CRIME_CLASSES, CrimeClass};

/// Steps of a share code per doubling of the share's ratio to the length share.
pub const SHARE_CODE_STEPS_PER_DOUBLING: f64 = 8.0;

/// The most groups an artifact may carry (a crafted file could otherwise make
/// validation check the ways once per group, many times over).
pub const MAX_SHARE_GROUPS: usize = 8;

/// The code of a way that belongs to no cell (no metres inside the grid, or no
/// length): it carries none of any cell's incidents.
pub const NO_CELL: i8 = i8::MIN;

/// The street shares of one city: one group of shares per set of crime classes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StreetShares {
    /// The groups, each for its own classes.
    pub groups: Vec<ShareGroup>,
}

/// The shares that spread the expected counts of some classes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShareGroup {
    /// The classes whose expected counts these shares spread, together: the shares
    /// were learnt from the incidents of all of them and spread the sum of their
    /// expected counts. Bit `i` stands for `CRIME_CLASSES[i]`. Groups may overlap
    /// (every class, and violence alone); no two have the same classes.
    pub classes: u8,
    /// Per way, in graph order: its share code ([`encode_shares`]), [`NO_CELL`] for a
    /// way of no cell.
    pub codes: Vec<i8>,
}

impl ShareGroup {
    /// Whether the group spreads a class's expected counts.
    #[must_use]
    pub fn spreads(&self, class: CrimeClass) -> bool {
        CRIME_CLASSES
            .iter()
            .position(|&c| c == class)
            .is_some_and(|i| self.classes & (1 << i) != 0)
    }
}

/// The class bits of a set of classes, as [`ShareGroup::classes`] stores them.
#[must_use]
pub fn class_bits(classes: &[CrimeClass]) -> u8 {
    CRIME_CLASSES
        .iter()
        .enumerate()
        .filter(|(_, c)| classes.contains(c))
        .fold(0, |bits, (i, _)| bits | (1 << i))
}

impl StreetShares {
    /// Checks the shares against the graph they belong to (a checked graph: call
    /// after [`RoadGraph::validate`]).
    ///
    /// # Errors
    /// [`GraphError`] when there are no groups or
    /// more than [`MAX_SHARE_GROUPS`], a group has no classes, unknown classes or the
    /// classes of another group, its codes are not one per way, or a way of no cell
    /// has a code or a way of a cell has none.
    pub fn validate(&self, graph: &RoadGraph, cells: usize) -> Result<(), GraphError> {
        if self.groups.is_empty() || self.groups.len() > MAX_SHARE_GROUPS {
            return Err(GraphError("street shares have no groups or too many"));
        }
        let known = (1_u16 << CRIME_CLASSES.len()) - 1;
        for (i, group) in self.groups.iter().enumerate() {
            if group.classes == 0 || u16::from(group.classes) & !known != 0 {
                return Err(GraphError("a street share group has unknown classes"));
            }
            if self.groups[..i].iter().any(|g| g.classes == group.classes) {
                return Err(GraphError("two street share groups have the same classes"));
            }
            if group.codes.len() != graph.way_count() {
                return Err(GraphError("street share codes are not one per way"));
            }
        }
        // Each way's cell once, whatever the number of groups.
        for way in 0..graph.way_count() {
            let of_no_cell = graph.home_cell(way, cells).is_none();
            if self
                .groups
                .iter()
                .any(|g| (g.codes[way] == NO_CELL) != of_no_cell)
            {
                return Err(GraphError(
                    "a street share code disagrees with its way's cell",
                ));
            }
        }
        Ok(())
    }
}

/// Each way's home cell ([`RoadGraph::home_cell`]) and the length of the ways of
/// each cell (`L_c`): what shares are relative to, for the build and the engine alike.
#[must_use]
pub fn cell_lengths(graph: &RoadGraph, cells: usize) -> (Vec<Option<u32>>, Vec<f64>) {
    let mut lengths = vec![0.0; cells];
    let homes: Vec<Option<u32>> = (0..graph.way_count())
        .map(|way| graph.home_cell(way, cells))
        .collect();
    for (way, home) in homes.iter().enumerate() {
        if let Some(cell) = home {
            lengths[*cell as usize] += f64::from(graph.way_length_m[way]);
        }
    }
    (homes, lengths)
}

/// The share codes of per-way shares of their cells (`shares[way]`, ignored for a
/// way of no cell).
#[must_use]
pub fn encode_shares(graph: &RoadGraph, cells: usize, shares: &[f64]) -> Vec<i8> {
    let (homes, lengths) = cell_lengths(graph, cells);
    homes
        .iter()
        .enumerate()
        .map(|(way, home)| {
            let Some(cell) = home else { return NO_CELL };
            let length_share = f64::from(graph.way_length_m[way]) / lengths[*cell as usize];
            let share = shares.get(way).copied().unwrap_or(length_share);
            if share.is_nan() || share <= 0.0 {
                return -127;
            }
            let code =
                libm::round(SHARE_CODE_STEPS_PER_DOUBLING * libm::log2(share / length_share));
            code.clamp(-127.0, 127.0) as i8
        })
        .collect()
}

/// Per way, its share of its cell's expected incidents, from its code: each cell's
/// shares renormalised to sum to 1; 0 for a way of no cell.
#[must_use]
pub fn decode_shares(graph: &RoadGraph, cells: usize, codes: &[i8]) -> Vec<f64> {
    let (homes, lengths) = cell_lengths(graph, cells);
    let mut shares: Vec<f64> = homes
        .iter()
        .enumerate()
        .map(|(way, home)| match (home, codes.get(way)) {
            (Some(cell), Some(&code)) if code != NO_CELL => {
                let length_share = f64::from(graph.way_length_m[way]) / lengths[*cell as usize];
                length_share * libm::exp2(f64::from(code) / SHARE_CODE_STEPS_PER_DOUBLING)
            }
            _ => 0.0,
        })
        .collect();
    let mut totals = vec![0.0; cells];
    for (way, home) in homes.iter().enumerate() {
        if let Some(cell) = home {
            totals[*cell as usize] += shares[way];
        }
    }
    for (way, home) in homes.iter().enumerate() {
        if let Some(cell) = home {
            let total = totals[*cell as usize];
            shares[way] = if total > 0.0 {
                shares[way] / total
            } else {
                0.0
            };
        }
    }
    shares
}

#[cfg(test)]
mod tests;
