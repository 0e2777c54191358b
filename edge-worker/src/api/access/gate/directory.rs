//! Which account's gate a key's requests go to, as an isolate learns it: one read
//! of the key store the first time the isolate sees a digest, then none.
//!
//! A key belongs to one account for its whole life, so a digest's gate is kept as
//! long as the isolate lives. A digest that is no key is kept for
//! [`UNKNOWN_SECONDS`], so that a flood of made-up keys costs one read each a
//! minute rather than one a request; a key made after its digest was first tried
//! is not a case to serve (its secret has 190 random bits). At most
//! [`MAX_DIGESTS`] digests are kept; past that the isolate starts afresh.

use std::collections::HashMap;

use chrono::{DateTime, TimeDelta, Utc};

use crate::api::access::keys::KeyRecord;

/// Digests an isolate keeps at most.
pub const MAX_DIGESTS: usize = 10_000;

/// How long a digest that is no key is taken as none without asking the store.
pub const UNKNOWN_SECONDS: i64 = 60;

/// What the directory knows of a digest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lookup<'a> {
    /// The key's account gate.
    Gate(&'a str),
    /// No key has this digest (asked lately).
    NoKey,
    /// Not known: read the key store and [`GateDirectory::learn`].
    Ask,
}

/// An isolate's map of key digests to the name of their account's gate.
#[derive(Debug, Default)]
pub struct GateDirectory {
    entries: HashMap<String, Entry>,
}

#[derive(Debug)]
enum Entry {
    Gate(String),
    NoKeyUntil(DateTime<Utc>),
}

impl GateDirectory {
    /// What is known of `digest` at `now`.
    #[must_use]
    pub fn lookup(&self, digest: &str, now: DateTime<Utc>) -> Lookup<'_> {
        match self.entries.get(digest) {
            Some(Entry::Gate(name)) => Lookup::Gate(name),
            Some(Entry::NoKeyUntil(until)) if now < *until => Lookup::NoKey,
            _ => Lookup::Ask,
        }
    }

    /// Keeps what the key store said of `digest` at `now`: its record, or none.
    pub fn learn(&mut self, digest: &str, record: Option<&KeyRecord>, now: DateTime<Utc>) {
        if self.entries.len() >= MAX_DIGESTS && !self.entries.contains_key(digest) {
            self.entries.clear();
        }
        let entry = match record {
            Some(record) => Entry::Gate(record.account.gate.clone()),
            None => Entry::NoKeyUntil(now + TimeDelta::seconds(UNKNOWN_SECONDS)),
        };
        self.entries.insert(digest.to_owned(), entry);
    }
}

#[cfg(test)]
mod tests;
