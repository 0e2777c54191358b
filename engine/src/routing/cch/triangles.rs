//! What each arc's cost runs through, for one metric: a road edge, or the lower arc
//! of a triangle below it. Customisation computes each cost as exactly one of these
//! sums but does not record which (recording it makes customisation half again
//! slower); unpacking finds it by its exact cost the first time an arc is unpacked
//! and keeps it here, so arcs that many routes share (a city's upper levels) are
//! searched once.

use alloc::vec::Vec;
use core::sync::atomic::{AtomicU32, Ordering};

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

/// Per arc and direction, what its cost runs through once found. Atomics because a
/// metric is shared by every request with its cost model; finding is deterministic,
/// so two threads that find one arc store the same value.
#[derive(Debug)]
pub(super) struct Triangles(Vec<AtomicU32>);

impl Triangles {
    /// None found yet, for `arcs` arcs.
    pub(super) fn new(arcs: usize) -> Self {
        Self((0..2 * arcs).map(|_| AtomicU32::new(UNKNOWN)).collect())
    }

    fn slot(&self, arc: u32, upward: bool) -> Option<&AtomicU32> {
        self.0.get(2 * arc as usize + usize::from(!upward))
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

    /// Bytes held.
    pub(super) fn heap_bytes(&self) -> usize {
        self.0.len() * size_of::<AtomicU32>()
    }
}
