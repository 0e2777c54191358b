//! The blocks of quota an isolate holds ([`crate::api::access::gate::quota_blocks`]), one per key
//! at most, and the requests it decides with them without calling the key's gate.
//!
//! A request of a key with a current block is decided here exactly as the gate
//! would with the record the block came with: expiry, the key's APIs and its browser
//! origins are checked, refusals are counted for the gate, and an admitted request
//! spends one request of the block. A key with no current block asks its gate, with
//! what its ended blocks left, and takes the block the gate grants; while one such
//! call is under way, other requests of the key ask for none, so an isolate never
//! holds two.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Utc};

use super::daily_quota::{self, QuotaState};
use super::gate::quota_blocks::{Grant, Return};
use super::gate::{Admission, GateRequest};
use super::ip_ranges;
use super::keys::KeyRecord;
use crate::api::plumbing::cors;

/// Keys an isolate holds blocks of at most; past that, new keys take none.
pub const MAX_KEYS: usize = 1_024;

/// A block being spent.
#[derive(Debug, Clone)]
struct Lease {
    record: KeyRecord,
    grant: Grant,
    spent: u32,
    refused: Return,
}

impl Lease {
    fn current(&self, now: DateTime<Utc>) -> bool {
        now < self.grant.until && daily_quota::day_of(now) == self.grant.day
    }

    fn into_return(self) -> Return {
        Return {
            day: self.grant.day,
            unspent: self.grant.size - self.spent,
            block: self.grant.id,
            ..self.refused
        }
    }
}

/// An isolate's blocks, by key digest, and what ended ones still owe their gates.
#[derive(Debug, Default)]
pub struct HeldBlocks {
    blocks: BTreeMap<String, Lease>,
    /// Ended blocks not yet returned, by digest.
    ended: BTreeMap<String, Vec<Return>>,
    /// Digests whose gate is being asked for a block.
    asking: BTreeSet<String>,
    /// Blocks granted since [`Self::take_granted`] was last called: digest and end.
    granted: Vec<(String, DateTime<Utc>)>,
}

impl HeldBlocks {
    /// Decides `request` with the key's current block, or `None` when the gate must
    /// decide it (no block, or it ended: spent, past its time or another day).
    pub fn admit(&mut self, request: &GateRequest) -> Option<Admission> {
        let lease = self.blocks.get_mut(&request.digest)?;
        let spendable = lease.spent < lease.grant.size;
        if !lease.current(request.now) || !spendable {
            let ended = self.blocks.remove(&request.digest)?;
            self.ended
                .entry(request.digest.clone())
                .or_default()
                .push(ended.into_return());
            return None;
        }
        let record = &lease.record;
        if let Some(reason) = record.refusal(request.now) {
            lease.refused.refused_key += 1;
            return Some(Admission::KeyRefused { reason });
        }
        if !record.may_call(request.api) {
            lease.refused.refused_api += 1;
            return Some(Admission::ApiRefused);
        }
        if let Some(origin) = &request.origin
            && !cors::origin_listed(&record.origins, origin)
        {
            lease.refused.refused_origin += 1;
            return Some(Admission::OriginRefused);
        }
        if !record.ip_ranges.is_empty()
            && !ip_ranges::listed(&record.ip_ranges, request.address.as_deref())
        {
            lease.refused.refused_address += 1;
            return Some(Admission::AddressRefused);
        }
        lease.spent += 1;
        Some(Admission::Counted {
            record: Box::new(record.clone()),
            quota: QuotaState {
                allowed: true,
                used: lease.grant.used_before + lease.spent,
                limit: lease.grant.limit,
            },
            block: None,
        })
    }

    /// Readies `request` for the key's gate: it carries the key's ended blocks
    /// (taken from the book) and asks for a block unless another request of the key
    /// already does or the book is full.
    pub fn prepare(&mut self, request: &mut GateRequest) {
        request.returned = self.ended.remove(&request.digest).unwrap_or_default();
        let room = self.blocks.len() + self.asking.len() < MAX_KEYS;
        request.want_block = room && !self.asking.contains(&request.digest);
        if request.want_block {
            self.asking.insert(request.digest.clone());
        }
    }

    /// Takes the gate's answer to a request [`Self::prepare`]d: keeps a block it
    /// granted. On `None` (the call failed) the blocks it carried are owed again.
    pub fn settle(&mut self, request: &GateRequest, answer: Option<&Admission>) {
        if request.want_block {
            self.asking.remove(&request.digest);
        }
        let Some(answer) = answer else {
            self.owe(&request.digest, request.returned.clone());
            return;
        };
        if let Admission::Counted {
            record,
            block: Some(grant),
            ..
        } = answer
        {
            let lease = Lease {
                record: (**record).clone(),
                grant: *grant,
                spent: 0,
                refused: Return::default(),
            };
            self.granted.push((request.digest.clone(), grant.until));
            // Never two blocks of a key: one already held is owed back.
            if let Some(held) = self.blocks.insert(request.digest.clone(), lease) {
                self.ended
                    .entry(request.digest.clone())
                    .or_default()
                    .push(held.into_return());
            }
        }
    }
}

impl HeldBlocks {
    /// The blocks granted since the last call, each with its key's digest and the
    /// time it ends: the glue returns each once it has ended, whether or not another
    /// request of the key comes.
    pub fn take_granted(&mut self) -> Vec<(String, DateTime<Utc>)> {
        std::mem::take(&mut self.granted)
    }

    /// What the key `digest` owes its gate at `now`: its block if it has ended (taken
    /// from the book) and the ended blocks not yet returned. Empty while the block
    /// runs, or once a request has returned it.
    pub fn due(&mut self, digest: &str, now: DateTime<Utc>) -> Vec<Return> {
        if self.blocks.get(digest).is_some_and(|l| !l.current(now))
            && let Some(ended) = self.blocks.remove(digest)
        {
            self.ended
                .entry(digest.to_owned())
                .or_default()
                .push(ended.into_return());
        }
        self.ended.remove(digest).unwrap_or_default()
    }

    /// Owes `returned` to the key `digest`'s gate again (sending them failed).
    pub fn owe(&mut self, digest: &str, returned: Vec<Return>) {
        if !returned.is_empty() {
            self.ended
                .entry(digest.to_owned())
                .or_default()
                .extend(returned);
        }
    }
}

#[cfg(test)]
mod tests;
