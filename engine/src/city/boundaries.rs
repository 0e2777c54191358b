//! The boundaries of a city's cells, computed on first use: tracing a line through
//! the grid asks for the boundary of every cell it crosses, and H3 computes each with
//! trigonometry (a route answer traces two lines of some thirty cells each).

use alloc::boxed::Box;
use alloc::vec::Vec;

use h3o::{Boundary, CellIndex};
use once_cell::race::OnceBox;

/// Every grid cell's boundary, in grid order, once asked for: derived data, so clones
/// start empty and equality ignores it. 168 bytes a cell (Toronto's 815: 134 KB).
pub(super) struct CellBoundaries(OnceBox<Vec<Boundary>>);

impl CellBoundaries {
    pub(super) const fn new() -> Self {
        Self(OnceBox::new())
    }

    /// The boundary of the cell at `position` of `cells` (the grid), `None` past its
    /// end (or for bits that are no cell, which a decoded artifact rules out).
    pub(super) fn at(&self, cells: &[u64], position: usize) -> Option<Boundary> {
        let boundaries = self.0.get_or_init(|| {
            Box::new(
                cells
                    .iter()
                    .map(|&bits| {
                        CellIndex::try_from(bits)
                            .map_or_else(|_| Boundary::default(), CellIndex::boundary)
                    })
                    .collect(),
            )
        });
        boundaries.get(position).copied().filter(|b| !b.is_empty())
    }
}

impl Clone for CellBoundaries {
    fn clone(&self) -> Self {
        Self::new()
    }
}

impl PartialEq for CellBoundaries {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl core::fmt::Debug for CellBoundaries {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("CellBoundaries")
            .field("computed", &self.0.get().is_some())
            .finish()
    }
}
