//! Which entries of a place index match a query's words, and how well: the keys
//! equal to the words, the keys they begin (an unfinished last word also standing for
//! the short form of a street word it begins), then keys with a beginning within the
//! allowed edits (see [`super::search`]). The keys are read where the index stores
//! them, sorted: a range for a beginning, and a walk of the edit automaton (the one
//! thing taken from `fst`) that skips every key below a beginning it rules out.

use alloc::collections::BTreeMap;
use alloc::string::String;

use fst::automaton::{Automaton, Levenshtein};

use super::index::{PlaceIndex, Posting};
use super::normal::completions;

/// Queries of at least this many characters (normalised) get one-edit suggestions.
pub const ONE_EDIT_FROM: usize = 4;

/// Queries of at least this many characters (normalised) get two-edit suggestions.
pub const TWO_EDITS_FROM: usize = 8;

/// Queries longer than this (normalised) get no suggestions: the edit automaton
/// grows with the query.
pub const MAX_SUGGESTION_CHARS: usize = 40;

/// Keys read at most per lookup (a one-letter query begins thousands).
pub const MAX_KEYS_READ: usize = 4_000;

/// How well a place's name matches a query, best first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Match {
    /// The name is the query.
    Exact,
    /// The name begins with the query, which ends at a word's end.
    Prefix,
    /// The name begins with the query, which ends inside a word.
    PartialWord,
    /// A later word of the name begins with the query ("George" in "St George St").
    LaterWord,
    /// The name begins within one or two edits of the query.
    Suggestion,
}

impl Match {
    /// Every match, best first.
    pub const ALL: [Self; 5] = [
        Self::Exact,
        Self::Prefix,
        Self::PartialWord,
        Self::LaterWord,
        Self::Suggestion,
    ];

    /// As answers spell it: `exact`, `prefix`, `word` or `suggestion`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Exact => "exact",
            Self::Prefix | Self::PartialWord => "prefix",
            Self::LaterWord => "word",
            Self::Suggestion => "suggestion",
        }
    }
}

/// Each entry of `index` whose keys match `words`, with its best match, for the
/// entries `keep` accepts; suggestions only while fewer than `want` entries match
/// better (see [`super::search`]).
pub(super) fn matching(
    index: &PlaceIndex,
    words: &[String],
    want: usize,
    keep: impl Fn(u32) -> bool,
) -> BTreeMap<u32, Match> {
    let mut best: BTreeMap<u32, Match> = BTreeMap::new();
    let Some((last, before)) = words.split_last() else {
        return best;
    };
    let query = words.join(" ");
    let note = |value: u64, whole: Match, best: &mut BTreeMap<u32, Match>| {
        for &stored in index.postings_of(value as usize) {
            let posting = Posting::from_stored(stored);
            if !keep(posting.entry) {
                continue;
            }
            let matched = if posting.later_word {
                Match::LaterWord.max(whole)
            } else {
                whole
            };
            best.entry(posting.entry)
                .and_modify(|m| *m = (*m).min(matched))
                .or_insert(matched);
        }
    };
    let mut variants = alloc::vec![(query.clone(), true)];
    for short in completions(last) {
        let mut variant = before.join(" ");
        if !variant.is_empty() {
            variant.push(' ');
        }
        variant.push_str(short);
        variants.push((variant, false));
    }
    for (variant, as_typed) in &variants {
        for at in begun_by(&index.keys, variant).take(MAX_KEYS_READ) {
            let whole = match index.keys[at].as_bytes().get(variant.len()) {
                None if *as_typed => Match::Exact,
                None | Some(b' ') => Match::Prefix,
                Some(_) => Match::PartialWord,
            };
            note(at as u64, whole, &mut best);
        }
    }
    let chars = query.chars().count();
    if best.len() < want && (ONE_EDIT_FROM..=MAX_SUGGESTION_CHARS).contains(&chars) {
        let edits = if chars >= TWO_EDITS_FROM { 2 } else { 1 };
        if let Ok(automaton) = Levenshtein::new(&query, edits) {
            let mut found = BTreeMap::new();
            for at in begun_within(&automaton, &index.keys).take(MAX_KEYS_READ) {
                note(at as u64, Match::Suggestion, &mut found);
            }
            for (entry, matched) in found {
                best.entry(entry).or_insert(matched);
            }
        }
    }
    best
}

/// The positions of the `keys` (sorted, byte order) that begin with `begin`.
fn begun_by(keys: &[String], begin: &str) -> core::ops::Range<usize> {
    let first = keys.partition_point(|key| key.as_str() < begin);
    first..first + keys[first..].partition_point(|key| key.starts_with(begin))
}

/// The positions, ascending, of the `keys` (sorted, byte order) that begin with a
/// string `automaton` accepts. The walk keeps the states along the last key, so a key
/// costs only the bytes after its beginning shared with the one before; once a
/// beginning can no longer lead to a match, every key that shares it is passed over
/// with one binary search.
fn begun_within<'a, A: Automaton>(
    automaton: &'a A,
    keys: &'a [String],
) -> impl Iterator<Item = usize> + 'a {
    let mut at = 0;
    // `states[d]`: the state after the first `d` bytes of `walked`, as far as its walk went.
    let mut states = alloc::vec![automaton.start()];
    let mut walked: &[u8] = &[];
    core::iter::from_fn(move || {
        while let Some(key) = keys.get(at) {
            let key = key.as_bytes();
            let shared = walked.iter().zip(key).take_while(|(a, b)| a == b).count();
            states.truncate(shared.min(states.len() - 1) + 1);
            walked = key;
            let here = at;
            at += 1;
            let mut state = states.last().expect("the start state is kept");
            let mut dead_after = None;
            while !automaton.is_match(state) && states.len() <= key.len() {
                let next = automaton.accept(state, key[states.len() - 1]);
                let can_match = automaton.can_match(&next);
                states.push(next);
                state = states.last().expect("just pushed");
                if !can_match && !automaton.is_match(state) {
                    dead_after = Some(states.len() - 1);
                    break;
                }
            }
            if automaton.is_match(state) {
                return Some(here);
            }
            if let Some(depth) = dead_after {
                let ruled_out = &key[..depth];
                at = here + keys[here..].partition_point(|k| k.as_bytes().starts_with(ruled_out));
            }
        }
        None
    })
}

#[cfg(test)]
mod tests;
