//! Values computed from a city and kept on it between requests, so that requests
//! repeating the same inputs (most ask for the current week with default options)
//! skip the work: the week's scores of recent scoring options
//! (`scoring::CityScores::kept`).
//!
//! Keys and values are type-erased because what computes them sits above `city` in
//! the import order (`scoring` needs a `CityModel`); an entry matches only a key of
//! the same type that compares equal, so a value is always the one its key names.

use alloc::boxed::Box;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::any::Any;

/// Most values kept per city; the least recently used goes first. A week of scores
/// takes 24 bytes a cell (Toronto's 815 cells: 20 KB; Houston's 3,337: 80 KB), so a
/// few cost little memory.
pub const KEPT_VALUES: usize = 4;

type Erased = Arc<dyn Any + Send + Sync>;

/// The kept values, newest first. Derived data: clones start empty and equality
/// ignores it (as with the route indexes).
#[derive(Default)]
pub(super) struct Kept {
    entries: spin::Mutex<Vec<(Box<dyn Any + Send + Sync>, Erased)>>,
}

impl Kept {
    /// The value kept under `key`, or `compute`'s, kept under it from now on. The
    /// lock is not held while computing, so two threads may both compute one key;
    /// their values are equal and the later one is kept.
    pub(super) fn get_or_insert<K, V>(&self, key: K, compute: impl FnOnce() -> V) -> Arc<V>
    where
        K: Any + Send + Sync + Eq,
        V: Any + Send + Sync,
    {
        {
            let mut entries = self.entries.lock();
            let found = entries.iter().position(|(kept, value)| {
                kept.downcast_ref::<K>() == Some(&key) && value.is::<V>()
            });
            if let Some(i) = found {
                let entry = entries.remove(i);
                let value = Arc::clone(&entry.1);
                entries.insert(0, entry);
                if let Ok(value) = value.downcast::<V>() {
                    return value;
                }
            }
        }
        let value = Arc::new(compute());
        let mut entries = self.entries.lock();
        entries
            .retain(|(kept, value)| !(kept.downcast_ref::<K>() == Some(&key) && value.is::<V>()));
        entries.insert(0, (Box::new(key), Arc::clone(&value) as Erased));
        entries.truncate(KEPT_VALUES);
        value
    }

    /// Values kept (for tests and diagnostics).
    pub(super) fn len(&self) -> usize {
        self.entries.lock().len()
    }
}

impl Clone for Kept {
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl PartialEq for Kept {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl core::fmt::Debug for Kept {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Kept").field("values", &self.len()).finish()
    }
}

#[cfg(test)]
mod tests;
