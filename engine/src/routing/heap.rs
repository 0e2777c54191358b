//! The priority-queue entry of the searches.

use core::cmp::Ordering;

/// A heap entry ordered so the smallest key pops first.
#[derive(Debug, Clone, Copy)]
pub(super) struct Entry {
    pub(super) key: f64,
    pub(super) cost: f64,
    pub(super) node: u32,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Entry {}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .key
            .total_cmp(&self.key)
            .then_with(|| other.node.cmp(&self.node))
    }
}
