//! The place index an artifact stores: the city's named places other than its
//! streets (neighbourhoods, police divisions or districts, points of interest), and
//! every name's search keys, sorted, with their postings.
//!
//! An entry is a street name of the road graph (ids `0..names`, the graph's own
//! name table) or one of [`PlaceIndex::places`] (ids from `names` on). Each entry
//! is keyed by its normal form ([`super::normal`]) and by each ending of it that
//! starts at a later word other than a street word ("st george st" is also found as
//! "george st", never as "st"). Each key has a run of postings: the entries with
//! that key, each with a bit saying whether the key starts at a later word.
//!
//! The keys are stored as text, not as the finite-state map search reads: the map is
//! built from them when a city is first searched ([`super::gazetteer`]), so a crafted
//! file can only hold keys that [`PlaceIndex::validate`] checks, never a map whose
//! traversal fails. Streets' positions and intersections are not stored either: they
//! are the graph's.

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
    /// Every key, strictly ascending (byte order).
    pub keys: Vec<String>,
    /// Per key, where its run of postings starts; a run ends where the next key's
    /// starts (the last at the end of `postings`). Strictly ascending from 0.
    pub runs: Vec<u32>,
    /// Runs of postings: an entry id shifted left by one, plus 1 when the key starts
    /// at a later word of the entry's name.
    pub postings: Vec<u32>,
}

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
        crate::sorting::sort(&mut keyed);
        keyed.dedup();
        let mut keys: Vec<String> = Vec::new();
        let mut runs = Vec::new();
        let mut postings = Vec::with_capacity(keyed.len());
        for (key, posting) in keyed {
            if keys.last() != Some(&key) {
                runs.push(
                    u32::try_from(postings.len())
                        .map_err(|_| PlaceIndexError("too many postings"))?,
                );
                keys.push(key);
            }
            postings.push(posting);
        }
        Ok(Self {
            places,
            keys,
            runs,
            postings,
        })
    }

    /// The postings of key `key` (its position in [`Self::keys`]).
    #[must_use]
    pub fn postings_of(&self, key: usize) -> &[u32] {
        let start = self.runs.get(key).map_or(0, |&s| s as usize);
        let end = self
            .runs
            .get(key + 1)
            .map_or(self.postings.len(), |&e| e as usize);
        self.postings.get(start..end).unwrap_or(&[])
    }

    /// Checks the index against the graph's name count: keys strictly ascending and
    /// not empty, one non-empty run each, every posting naming an entry, every place
    /// a name within the limits.
    ///
    /// # Errors
    /// [`PlaceIndexError`] naming what does not fit.
    pub fn validate(&self, street_names: usize) -> Result<(), PlaceIndexError> {
        if self.keys.iter().any(String::is_empty)
            || self.keys.windows(2).any(|pair| pair[0] >= pair[1])
        {
            return Err(PlaceIndexError("keys are empty or not strictly ascending"));
        }
        let starts_ok = self.runs.len() == self.keys.len()
            && self.runs.first().is_none_or(|&first| first == 0)
            && self.runs.windows(2).all(|pair| pair[0] < pair[1])
            && self
                .runs
                .last()
                .is_none_or(|&last| (last as usize) < self.postings.len())
            && (self.keys.is_empty() == self.postings.is_empty());
        if !starts_ok {
            return Err(PlaceIndexError(
                "runs do not cover the postings one key at a time",
            ));
        }
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
        Ok(())
    }
}
