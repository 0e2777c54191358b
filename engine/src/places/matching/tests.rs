use alloc::collections::BTreeSet;
use alloc::string::String;
use alloc::vec::Vec;

use fst::automaton::{Automaton, Levenshtein, Str};
use fst::{IntoStreamer, Streamer};
use proptest::prelude::*;

use super::{begun_by, begun_within};

/// What a finite-state map of `keys` streams for `automaton`: the reference the
/// walk over sorted keys must equal, key for key and in order.
fn streamed<A: Automaton>(keys: &[String], automaton: A) -> Vec<usize> {
    let map = fst::Map::from_iter(keys.iter().enumerate().map(|(at, k)| (k, at as u64))).unwrap();
    let mut stream = map.search(automaton).into_stream();
    let mut found = Vec::new();
    while let Some((_, at)) = stream.next() {
        found.push(at as usize);
    }
    found
}

/// Keys of a few letters, spaces and a two-byte letter, so that beginnings are
/// shared and edits fall inside a character's bytes.
fn keys() -> impl Strategy<Value = Vec<String>> {
    proptest::collection::btree_set("[abqô ]{1,9}", 0..60)
        .prop_map(|set: BTreeSet<String>| set.into_iter().collect())
}

proptest! {
    #[test]
    fn the_walk_finds_what_the_map_streams(
        keys in keys(),
        query in "[abqô ]{1,9}",
        edits in 1u32..=2,
    ) {
        let automaton = Levenshtein::new(&query, edits).unwrap();
        let walked: Vec<usize> = begun_within(&automaton, &keys).collect();
        prop_assert_eq!(walked, streamed(&keys, automaton.starts_with()));
    }

    #[test]
    fn the_range_is_what_the_map_streams_for_a_beginning(
        keys in keys(),
        begin in "[abqô ]{0,4}",
    ) {
        let ranged: Vec<usize> = begun_by(&keys, &begin).collect();
        prop_assert_eq!(ranged, streamed(&keys, Str::new(&begin).starts_with()));
    }
}
