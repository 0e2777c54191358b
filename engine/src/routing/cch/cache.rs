//! The metrics of recent cost models, so that requests with the same weights (the
//! same week, intent, classes, class weights and time band give the same cost model)
//! share one customisation.

use alloc::sync::Arc;
use alloc::vec::Vec;

use super::metric::Metric;
use crate::routing::CostModel;

/// Most metrics kept per network besides the length-only one: a request's own and
/// the last few others.
pub const CACHED_METRICS: usize = 3;

/// Most bytes the kept metrics of one network may hold, each counted with all that
/// unpacking may add to it ([`Metric::heap_bytes`]); the newest is always kept.
/// Toronto's metric counts 3.3 MiB, so it keeps [`CACHED_METRICS`]; a hierarchy of
/// Houston's lattice would count 16.1 MiB, so only the newest.
pub const CACHED_METRIC_BYTES: usize = 12 << 20;

/// The most recently used metrics, newest first, keyed by their whole cost model
/// (compared exactly, so a cached metric is always the one the model would build).
#[derive(Default)]
pub(super) struct MetricCache {
    entries: spin::Mutex<Vec<(CostModel, Arc<Metric>)>>,
}

impl MetricCache {
    /// The metric of `costs`, customised by `customise` when not kept. The lock is
    /// not held while customising, so two threads may both customise one model; the
    /// results are equal and one is kept.
    pub(super) fn get_or_insert(
        &self,
        costs: &CostModel,
        customise: impl FnOnce() -> Metric,
    ) -> Arc<Metric> {
        {
            let mut entries = self.entries.lock();
            if let Some(i) = entries.iter().position(|(key, _)| key == costs) {
                let entry = entries.remove(i);
                let metric = Arc::clone(&entry.1);
                entries.insert(0, entry);
                return metric;
            }
        }
        let metric = Arc::new(customise());
        let mut entries = self.entries.lock();
        entries.insert(0, (costs.clone(), Arc::clone(&metric)));
        entries.truncate(CACHED_METRICS);
        let mut bytes = 0;
        let kept = entries
            .iter()
            .take_while(|(_, m)| {
                bytes += m.heap_bytes();
                bytes <= CACHED_METRIC_BYTES
            })
            .count();
        entries.truncate(kept.max(1));
        metric
    }

    /// Cost models kept, newest first (for tests and diagnostics).
    pub(super) fn len(&self) -> usize {
        self.entries.lock().len()
    }
}
