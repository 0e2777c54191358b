//! The place index an artifact stores: the city's named places other than its
//! streets (neighbourhoods, police divisions or districts, points of interest), and
//! every name's search keys in a finite-state map (the `fst` crate's format).
//!
//! An entry is a street name of the road graph (ids `0..names`, the graph's own
//! name table) or one of [`PlaceIndex::places`] (ids from `names` on). Each entry
//! is keyed by its normal form ([`super::normal`]) and by each ending of it that
//! starts at a later word other than a street word ("st george st" is also found as
//! "george st", never as "st"). A key's value points at its run of postings: the
//! entries with that key, each with a bit saying whether the key starts at a later
//! word. Streets' positions and intersections are not stored: they are the graph's
//! (see [`super::gazetteer`]).

use alloc::string::String;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use crate::grid::MicroDegrees;
use crate::roads::MAX_STREET_NAME_BYTES;

/// What kind of place a stored entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum StoredKind {
    /// A neighbourhood of the city's own scheme.
    Neighbourhood,
    /// A police division or district (the artifact's precincts).
    Precinct,
    /// A named point of interest.
    PointOfInterest,
}

/// A named place with one position.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NamedPlace {
    /// What it is.
    pub kind: StoredKind,
    /// As the source spells it.
    pub name: String,
    /// A point inside it (an area's interior point).
    pub point: MicroDegrees,
}

/// A city's place index (see the module documentation).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlaceIndex {
    /// Named places other than streets, by entry id minus the graph's name count.
    pub places: Vec<NamedPlace>,
    /// The key map: an `fst::Map` whose value for a key is its postings' start
    /// shifted left by [`RUN_BITS`], plus their count.
    pub keys: Vec<u8>,
    /// Runs of postings: an entry id shifted left by one, plus 1 when the key starts
    /// at a later word of the entry's name.
    pub postings: Vec<u32>,
}

/// Bits of a key's value that hold its postings' count.
pub const RUN_BITS: u32 = 24;

/// A posting: which entry, and whether the key starts at a later word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Posting {
    /// The entry id.
    pub entry: u32,
    /// Whether the key starts at a later word of the name.
    pub later_word: bool,
}

impl Posting {
    /// Decodes a stored posting.
    #[must_use]
    pub const fn from_stored(stored: u32) -> Self {
        Self {
            entry: stored >> 1,
            later_word: stored & 1 == 1,
        }
    }

    /// Encodes a posting.
    #[must_use]
    pub const fn stored(self) -> u32 {
        (self.entry << 1) | self.later_word as u32
    }
}

/// The postings' range of a key's value.
#[must_use]
pub fn run_of(value: u64) -> core::ops::Range<usize> {
    let start = (value >> RUN_BITS) as usize;
    start..start + (value & ((1 << RUN_BITS) - 1)) as usize
}

/// Why a stored index does not fit its artifact.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("place index is inconsistent: {0}")]
pub struct PlaceIndexError(pub &'static str);

/// The keys of one name: its normal form and each ending that starts at a later,
/// not generic, word; the flag says which.
#[must_use]
pub fn keys_of(name: &str) -> Vec<(String, bool)> {
    let words = super::normal::words(name);
    (0..words.len())
        .filter(|&i| i == 0 || !super::normal::is_generic(&words[i]))
        .map(|i| (words[i..].join(" "), i > 0))
        .collect()
}

impl PlaceIndex {
    /// The index of a graph's street names and `places` (their names trimmed and
    /// cut as a graph's are; a place without one left out).
    ///
    /// # Errors
    /// More entries or postings than the format holds.
    #[cfg(feature = "std")]
    pub fn build(
        street_names: &[String],
        places: Vec<NamedPlace>,
    ) -> Result<Self, PlaceIndexError> {
        let names = street_names.iter().map(String::as_str);
        let mut keyed: Vec<(String, u32)> = Vec::new();
        for (entry, name) in names
            .chain(places.iter().map(|p| p.name.as_str()))
            .enumerate()
        {
            let entry = u32::try_from(entry)
                .ok()
                .filter(|&e| e < u32::MAX >> 1)
                .ok_or(PlaceIndexError("too many entries"))?;
            for (key, later_word) in keys_of(name) {
                keyed.push((key, Posting { entry, later_word }.stored()));
            }
        }
        keyed.sort_unstable();
        keyed.dedup();
        let mut postings = Vec::with_capacity(keyed.len());
        let mut map = fst::MapBuilder::memory();
        let mut at = 0;
        while at < keyed.len() {
            let key = &keyed[at].0;
            let run = keyed[at..].iter().take_while(|(k, _)| k == key).count();
            let start = u64::try_from(postings.len()).unwrap_or(u64::MAX);
            if run >= 1 << RUN_BITS || start >= 1 << (64 - RUN_BITS) {
                return Err(PlaceIndexError("too many postings"));
            }
            postings.extend(keyed[at..at + run].iter().map(|(_, p)| *p));
            map.insert(key, (start << RUN_BITS) | run as u64)
                .map_err(|_| PlaceIndexError("keys out of order"))?;
            at += run;
        }
        let keys = map
            .into_inner()
            .map_err(|_| PlaceIndexError("key map cannot be written"))?;
        Ok(Self {
            places,
            keys,
            postings,
        })
    }

    /// Checks the index against the graph's name count: every posting names an
    /// entry, every place a name within the limits, and (with `std`) the key map
    /// reads as one and points only at postings.
    ///
    /// # Errors
    /// [`PlaceIndexError`] naming what does not fit.
    pub fn validate(&self, street_names: usize) -> Result<(), PlaceIndexError> {
        let entries = street_names + self.places.len();
        if self
            .postings
            .iter()
            .any(|&p| Posting::from_stored(p).entry as usize >= entries)
        {
            return Err(PlaceIndexError("a posting names no entry"));
        }
        if self
            .places
            .iter()
            .any(|p| p.name.trim().is_empty() || p.name.len() > MAX_STREET_NAME_BYTES)
        {
            return Err(PlaceIndexError("a place name is empty or too long"));
        }
        #[cfg(feature = "std")]
        {
            // Not `verify()`: the artifact's CRC-32 already covers these bytes.
            let map = fst::Map::new(self.keys.as_slice())
                .map_err(|_| PlaceIndexError("the key map is not an fst map"))?;
            let mut stream = fst::IntoStreamer::into_stream(&map);
            while let Some((_, value)) = fst::Streamer::next(&mut stream) {
                if run_of(value).end > self.postings.len() {
                    return Err(PlaceIndexError("a key points past the postings"));
                }
            }
        }
        Ok(())
    }
}
