//! Telling incidents apart across files, so that overlapping files count each
//! incident once.
//!
//! Every row gets a key from its source's [`Identity`]: the incident-number columns
//! where the source has them, else the whole row. Several rows may share a key
//! (separate offences of one event published as identical rows, a homicide's
//! victims under one event id); they are kept apart by their occurrence number. Files
//! are merged by taking, per key, the largest number of rows any one set of files
//! has: the configured files of a source count as one set (they are a split of one
//! extract, not overlapping copies), every file taken in later as another. A row is
//! new exactly when its occurrence number exceeds what the sets before it had.

use std::collections::HashMap;

use sha2::{Digest, Sha256};

use super::columns::Identity;
use crate::inputs::sources::Records;

/// A row's identity: the SHA-256 of its identifying text (32 bytes instead of the
/// whole row, since the Toronto MCI alone has 240,000 rows).
pub(crate) type Key = [u8; 32];

/// The key of every record, in order.
pub(crate) fn keys(identity: &Identity, records: &Records) -> Vec<Key> {
    let names: Vec<&str> = records.headers.iter().map(str::trim).collect();
    // Columns by name, so that the same row keys the same in a file whose columns
    // come in another order.
    let mut by_name: Vec<usize> = (0..names.len()).collect();
    by_name.sort_by_key(|&i| names[i]);
    let id_columns: Option<Vec<usize>> = match identity {
        Identity::Columns(columns) => columns
            .iter()
            .map(|c| names.iter().position(|n| n == c))
            .collect(),
        Identity::Content => None,
    };
    records
        .records
        .iter()
        .map(|record| {
            let value = |i: usize| record.get(i).unwrap_or("").trim();
            let mut hash = Sha256::new();
            match &id_columns {
                Some(columns) if columns.iter().all(|&i| !value(i).is_empty()) => {
                    hash.update(b"id");
                    for &i in columns {
                        hash.update([0x1f]);
                        hash.update(value(i).as_bytes());
                    }
                }
                _ => {
                    hash.update(b"row");
                    for &i in &by_name {
                        hash.update([0x1e]);
                        hash.update(names[i].as_bytes());
                        hash.update([0x1f]);
                        hash.update(value(i).as_bytes());
                    }
                }
            }
            hash.finalize().into()
        })
        .collect()
}

/// The most rows of each key that any one set of files taken so far has.
#[derive(Debug, Clone, Default)]
pub(crate) struct Multiplicity {
    most: HashMap<Key, u32>,
}

impl Multiplicity {
    /// Takes in one set of rows (one file, or a source's configured files together)
    /// and says, per row, whether it is new: its occurrence number among the set's
    /// rows of the same key exceeds the most any earlier set had.
    pub(crate) fn take(&mut self, keys: &[Key]) -> Vec<bool> {
        let mut here: HashMap<Key, u32> = HashMap::new();
        keys.iter()
            .map(|key| {
                let occurrence = here.entry(*key).or_default();
                *occurrence += 1;
                let most = self.most.entry(*key).or_default();
                if *occurrence > *most {
                    *most = *occurrence;
                    true
                } else {
                    false
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests;
