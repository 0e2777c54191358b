//! Stable sorting through one compiled merge sort for every caller.
//!
//! The standard library's sorts are compiled once per element type and comparison:
//! in the npm package that was about 120 functions and a tenth of the wasm. Here each
//! caller compiles only a small comparison of two positions; the merge sort over
//! positions is compiled once, and the items are then moved into place. Slices of
//! plain numbers keep `sort_unstable`, compiled once per number type.
//!
//! ```
//! use core::cmp::Reverse;
//!
//! let mut words = ["pear", "fig", "apple", "kiwi"];
//! hexrisk_engine::sorting::sort_by_key(&mut words, |w| Reverse(w.len()));
//! assert_eq!(words, ["apple", "pear", "kiwi", "fig"]); // equal keys keep their order
//! ```

use alloc::vec::Vec;
use core::cmp::Ordering;

/// Runs shorter than this are sorted by insertion before merging.
const RUN: usize = 16;

/// Sorts `items` by `compare`, keeping equal items in their order.
///
/// # Panics
/// With more than `u32::MAX` items.
pub fn sort_by<T>(items: &mut [T], mut compare: impl FnMut(&T, &T) -> Ordering) {
    if items.len() < 2 {
        return;
    }
    let mut order: Vec<u32> =
        (0..u32::try_from(items.len()).expect("at most u32::MAX items")).collect();
    merge_sort(&mut order, &mut |a, b| {
        compare(&items[a as usize], &items[b as usize]) == Ordering::Greater
    });
    place(items, &mut order);
}

/// Sorts `items` in their order, keeping equal items in their order.
///
/// # Panics
/// With more than `u32::MAX` items.
pub fn sort<T: Ord>(items: &mut [T]) {
    sort_by(items, T::cmp);
}

/// Sorts `items` by the key `key` gives each, keeping equal keys in their order.
///
/// # Panics
/// With more than `u32::MAX` items.
pub fn sort_by_key<T, K: Ord>(items: &mut [T], mut key: impl FnMut(&T) -> K) {
    sort_by(items, |a, b| key(a).cmp(&key(b)));
}

/// Sorts positions stably; `after(a, b)` says whether `a` belongs after `b`.
fn merge_sort(order: &mut [u32], after: &mut dyn FnMut(u32, u32) -> bool) {
    for run in order.chunks_mut(RUN) {
        for end in 1..run.len() {
            let mut at = end;
            while at > 0 && after(run[at - 1], run[at]) {
                run.swap(at - 1, at);
                at -= 1;
            }
        }
    }
    let mut scratch = alloc::vec![0; order.len()];
    let mut width = RUN;
    while width < order.len() {
        for start in (0..order.len()).step_by(2 * width) {
            let middle = (start + width).min(order.len());
            let end = (start + 2 * width).min(order.len());
            let (mut left, mut right) = (start, middle);
            for slot in &mut scratch[start..end] {
                // Equal items take the left one first: stable.
                let take_left =
                    right == end || (left < middle && !after(order[left], order[right]));
                if take_left {
                    *slot = order[left];
                    left += 1;
                } else {
                    *slot = order[right];
                    right += 1;
                }
            }
        }
        order.copy_from_slice(&scratch);
        width *= 2;
    }
}

/// Moves each item to its sorted place: afterwards `items[i]` is what was at `order[i]`.
/// Follows each cycle of the permutation once, marking placed positions in `order`.
fn place<T>(items: &mut [T], order: &mut [u32]) {
    for start in 0..items.len() {
        let mut current = start;
        while order[current] as usize != start {
            let next = order[current] as usize;
            items.swap(current, next);
            order[current] = current as u32;
            current = next;
        }
        order[current] = current as u32;
    }
}

#[cfg(test)]
mod tests;
