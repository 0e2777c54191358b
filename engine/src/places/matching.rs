//! Which entries of a place index match a query's words, and how well: the keys
//! equal to the words, the keys they begin (an unfinished last word also standing for
//! the short form of a street word it begins), then keys with a beginning within the
//! allowed edits (see [`super::search`]).

use alloc::collections::BTreeMap;
use alloc::string::String;

use fst::automaton::{Automaton, Levenshtein, Str};
use fst::{IntoStreamer, Streamer};

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
    keys: &fst::Map<Vec<u8>>,
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
        let mut stream = keys.search(Str::new(variant).starts_with()).into_stream();
        let mut read = 0;
        while let Some((key, value)) = stream.next() {
            read += 1;
            if read > MAX_KEYS_READ {
                break;
            }
            let whole = match key.get(variant.len()) {
                None if *as_typed => Match::Exact,
                None | Some(b' ') => Match::Prefix,
                Some(_) => Match::PartialWord,
            };
            note(value, whole, &mut best);
        }
    }
    let chars = query.chars().count();
    if best.len() < want && (ONE_EDIT_FROM..=MAX_SUGGESTION_CHARS).contains(&chars) {
        let edits = if chars >= TWO_EDITS_FROM { 2 } else { 1 };
        if let Ok(automaton) = Levenshtein::new(&query, edits) {
            let mut found = BTreeMap::new();
            let mut stream = keys.search(automaton.starts_with()).into_stream();
            let mut read = 0;
            while let Some((_, value)) = stream.next() {
                read += 1;
                if read > MAX_KEYS_READ {
                    break;
                }
                note(value, Match::Suggestion, &mut found);
            }
            for (entry, matched) in found {
                best.entry(entry).or_insert(matched);
            }
        }
    }
    best
}
