//! What each arc's cost runs through, for one metric: a road edge, or the lower arc
//! of a triangle below it. Customisation computes each cost as exactly one of these
//! sums but does not record which (recording it makes customisation half again
//! slower); unpacking finds it by its exact cost the first time an arc is unpacked
//! and keeps it here, so arcs that many routes share (a city's upper levels) are
//! searched once. The table is made in blocks of [`BLOCK`] slots, each on the first
//! unpacking of an arc in it: a route unpacks a few hundred arcs, so a metric that
//! served a few routes holds a few of its blocks (Toronto's whole table: 1.1 MiB), and
//! one that only bounds searches (the trade-off's exposure-only metric) holds none.

use alloc::boxed::Box;
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU32, Ordering};

use once_cell::race::OnceBox;

/// Not looked for yet.
const UNKNOWN: u32 = 0;
/// A road edge gives the cost.
const ROAD_EDGE: u32 = 1;
/// Lower arc `k` is kept as `k + FIRST_ARC`.
const FIRST_ARC: u32 = 2;

/// What one direction of an arc runs through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Through {
    /// A road edge between the arc's ends.
    RoadEdge,
    /// The triangle whose lower arc (from the arc's tail down) is this one.
    Triangle(u32),
}

/// Slots per block of the table: 1 KiB.
pub(super) const BLOCK: usize = 256;

/// Per arc and direction, what its cost runs through once found. Atomics because a
/// metric is shared by every request with its cost model; finding is deterministic,
/// so two threads that find one arc store the same value (two that make one block
/// both get the one kept).
#[derive(Debug)]
pub(super) struct Triangles {
    arcs: usize,
    /// Two slots per arc (up, then down), in blocks made on first use.
    blocks: Vec<OnceBox<[AtomicU32; BLOCK]>>,
}

impl Triangles {
    /// None found yet, for `arcs` arcs.
    pub(super) fn new(arcs: usize) -> Self {
        Self {
            arcs,
            blocks: (0..(2 * arcs).div_ceil(BLOCK))
                .map(|_| OnceBox::new())
                .collect(),
        }
    }

    fn slot(&self, arc: u32, upward: bool) -> Option<&AtomicU32> {
        let slot = 2 * arc as usize + usize::from(!upward);
        if slot >= 2 * self.arcs {
            return None;
        }
        let block = self
            .blocks
            .get(slot / BLOCK)?
            .get_or_init(|| Box::new(core::array::from_fn(|_| AtomicU32::new(UNKNOWN))));
        Some(&block[slot % BLOCK])
    }

    /// What one direction of `arc` runs through (`upward`: tail to head), found by
    /// `find` the first time.
    pub(super) fn get_or_find(
        &self,
        arc: u32,
        upward: bool,
        find: impl FnOnce() -> Option<Through>,
    ) -> Option<Through> {
        let slot = self.slot(arc, upward)?;
        match slot.load(Ordering::Relaxed) {
            UNKNOWN => {}
            ROAD_EDGE => return Some(Through::RoadEdge),
            lower => return Some(Through::Triangle(lower - FIRST_ARC)),
        }
        let found = find()?;
        let kept = match found {
            Through::RoadEdge => ROAD_EDGE,
            Through::Triangle(lower) => lower.checked_add(FIRST_ARC)?,
        };
        slot.store(kept, Ordering::Relaxed);
        Some(found)
    }

    /// Bytes held once every block is made (what a cache must make room for).
    pub(super) fn heap_bytes(&self) -> usize {
        2 * self.arcs * size_of::<AtomicU32>() + self.blocks.len() * size_of::<usize>()
    }

    /// Blocks made so far (for tests).
    #[cfg(test)]
    pub(super) fn blocks_made(&self) -> usize {
        self.blocks.iter().filter(|b| b.get().is_some()).count()
    }
}
