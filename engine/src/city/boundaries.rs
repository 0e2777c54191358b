//! The boundaries of a city's cells, computed on first use: tracing a line through
//! the grid asks for the boundary of every cell it crosses, and H3 computes each with
//! trigonometry (a route answer traces two lines of some thirty cells each).

use alloc::vec::Vec;

use h3o::{Boundary, CellIndex};

use super::derived::Derived;

/// Every grid cell's boundary, in grid order, once asked for. 168 bytes a cell
/// (Toronto's 815: 134 KB).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct CellBoundaries(Derived<Vec<Boundary>>);

impl CellBoundaries {
    pub(super) const fn new() -> Self {
        Self(Derived::new())
    }

    /// The boundary of the cell at `position` of `cells` (the grid), `None` past its
    /// end (or for bits that are no cell, which a decoded artifact rules out).
    pub(super) fn at(&self, cells: &[u64], position: usize) -> Option<Boundary> {
        let boundaries = self.0.get_or_init(|| {
            cells
                .iter()
                .map(|&bits| {
                    CellIndex::try_from(bits)
                        .map_or_else(|_| Boundary::default(), CellIndex::boundary)
                })
                .collect()
        });
        boundaries.get(position).copied().filter(|b| !b.is_empty())
    }
}
