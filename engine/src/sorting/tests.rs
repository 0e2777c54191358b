use alloc::vec::Vec;

use proptest::prelude::*;

use super::{sort_by, sort_by_key};

proptest! {
    /// Equal to the standard library's stable sort, ties included (the key is
    /// coarse so that many items tie, and each carries where it started).
    #[test]
    fn equals_the_standard_stable_sort(keys in proptest::collection::vec(0u8..8, 0..200)) {
        let items: Vec<(u8, usize)> = keys.iter().copied().zip(0..).collect();
        let mut ours = items.clone();
        sort_by_key(&mut ours, |&(key, _)| key);
        let mut standard = items;
        standard.sort_by_key(|&(key, _)| key);
        prop_assert_eq!(ours, standard);
    }

    #[test]
    fn sorts_items_that_are_not_copied(words in proptest::collection::vec("[a-c]{0,3}", 0..100)) {
        let mut ours = words.clone();
        sort_by(&mut ours, |a, b| b.cmp(a));
        let mut standard = words;
        standard.sort_by(|a, b| b.cmp(a));
        prop_assert_eq!(ours, standard);
    }
}
