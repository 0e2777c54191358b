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
mod tests {
    use super::*;

    #[test]
    fn each_key_gets_its_own_value_and_the_oldest_goes_first() {
        let kept = Kept::default();
        let computed = core::cell::Cell::new(0);
        let get = |key: u32| {
            *kept.get_or_insert(key, || {
                computed.set(computed.get() + 1);
                key * 10
            })
        };
        assert_eq!(get(1), 10);
        assert_eq!(get(2), 20);
        assert_eq!(get(1), 10);
        assert_eq!(computed.get(), 2);
        for key in 3..=5 {
            assert_eq!(get(key), key * 10);
        }
        // 1 was used after 2, so 2 went first.
        assert_eq!(get(1), 10);
        assert_eq!(computed.get(), 5);
        assert_eq!(get(2), 20);
        assert_eq!(computed.get(), 6);
    }

    #[test]
    fn keys_and_values_of_other_types_do_not_match() {
        let kept = Kept::default();
        assert_eq!(*kept.get_or_insert(1_u32, || 7_u64), 7);
        // The same key value of another type, and the same key for another value type.
        assert_eq!(*kept.get_or_insert(1_u64, || 8_u64), 8);
        assert_eq!(*kept.get_or_insert(1_u32, || 9_i32), 9);
        assert_eq!(*kept.get_or_insert(1_u32, || 0_u64), 7);
    }
}
