//! Blocks of quota spent by isolates against one gate: the limit is never passed,
//! the count settles exactly, refusals reach the gate, blocks end with the record.

use chrono::{DateTime, TimeDelta, Utc};

use super::HeldBlocks;
use crate::api::access::gate::quota_blocks::{BLOCK_SECONDS, EXACT_BLOCKS, block_size};
use crate::api::access::gate::tests::{at, key};
use crate::api::access::gate::{self, Admission, GateLogs, GateRequest};
use crate::api::access::keys::{AccountQuota, KeyApi, KeyRecord, KeyRefusal};

/// The digest of the test key, half of it (repeated to 64 hex digits).
const DIGEST: &str = "cd";

/// One key's account gate: the key's record, read afresh every `ttl`, and the logs.
struct Gate {
    record: KeyRecord,
    log: GateLogs,
    ttl: TimeDelta,
    calls: u32,
}

impl Gate {
    fn new(record: KeyRecord) -> Self {
        Self {
            record,
            log: GateLogs::default(),
            ttl: TimeDelta::seconds(60),
            calls: 0,
        }
    }

    fn used(&self, now: DateTime<Utc>) -> u32 {
        self.log
            .account
            .on(crate::api::access::daily_quota::day_of(now))
            .map_or(0, |d| d.used)
    }
}

/// A request through an isolate's `book`, as `dispatch::authenticate` makes it.
fn call(
    book: &mut HeldBlocks,
    gate: &mut Gate,
    now: DateTime<Utc>,
    origin: Option<&str>,
) -> Admission {
    let mut request = GateRequest {
        digest: DIGEST.repeat(32),
        now,
        origin: origin.map(Into::into),
        address: None,
        api: KeyApi::Router,
        returned: Vec::new(),
        want_block: false,
        record: None,
    };
    if let Some(local) = book.admit(&request) {
        return local;
    }
    book.prepare(&mut request);
    gate.calls += 1;
    // The gate's record is a read of at most `ttl` ago: here, read at every minute.
    let read_at = now - TimeDelta::seconds(now.timestamp() % gate.ttl.num_seconds());
    let (answer, _) = gate::admit(
        Some(&gate.record),
        &mut gate.log,
        &request,
        read_at + gate.ttl,
    );
    book.settle(&request, Some(&answer));
    answer
}

/// The unspent part of the blocks `book` holds.
fn unspent(book: &HeldBlocks) -> u32 {
    book.blocks.values().map(|l| l.grant.size - l.spent).sum()
}

fn admitted(answer: &Admission) -> bool {
    matches!(answer, Admission::Counted { quota, .. } if quota.allowed)
}

#[test]
fn a_quiet_key_is_decided_by_its_gate_request_by_request() {
    let mut gate = Gate::new(key(10_000));
    let mut book = HeldBlocks::default();
    let now = at("2026-11-26T10:00:00Z");
    let size = block_size(10_000);
    let quiet = size * EXACT_BLOCKS - 1;
    for _ in 0..quiet {
        assert!(admitted(&call(&mut book, &mut gate, now, None)));
    }
    assert_eq!(gate.calls, quiet);
    assert_eq!(gate.used(now), quiet);
}

#[test]
fn a_busy_key_spends_blocks_without_its_gate_and_its_count_settles_exactly() {
    let mut gate = Gate::new(key(10_000));
    let mut book = HeldBlocks::default();
    let start = at("2026-11-26T10:00:00Z");
    let size = block_size(10_000);
    for i in 0..5_000 {
        let now = start + TimeDelta::milliseconds(i);
        assert!(admitted(&call(&mut book, &mut gate, now, None)));
    }
    // The first blocks' worth one by one, then one call per block.
    let quiet = size * EXACT_BLOCKS;
    assert!(
        gate.calls < quiet + (5_000 - quiet) / size + 2,
        "{} calls",
        gate.calls
    );
    // The block still out counts as used until it is returned.
    assert!(gate.used(start) >= 5_000 && gate.used(start) <= 5_000 + size);
    // Once it ends, the next call returns its unspent part: exact again.
    let later = start + TimeDelta::seconds(5 + BLOCK_SECONDS + 1);
    assert!(unspent(&book) > 0, "a block is out, partly spent");
    assert!(admitted(&call(&mut book, &mut gate, later, None)));
    assert!(gate.used(later) <= 5_001 + size);
    assert_eq!(gate.used(later) - unspent(&book), 5_001);
}

#[test]
fn isolates_hammering_one_key_never_admit_more_than_its_limit() {
    let limit = 3_000;
    let mut gate = Gate::new(key(limit));
    let mut books: Vec<HeldBlocks> = (0..5).map(|_| HeldBlocks::default()).collect();
    let start = at("2026-11-26T10:00:00Z");
    let mut admitted_total = 0;
    // A fixed pseudo-random order of isolates, the clock moving 3 ms a request.
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    for i in 0..4_000 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let book = &mut books[(seed % 5) as usize];
        let now = start + TimeDelta::milliseconds(3 * i);
        if admitted(&call(book, &mut gate, now, None)) {
            admitted_total += 1;
        }
        assert!(
            gate.used(now) <= limit,
            "count {} over the limit",
            gate.used(now)
        );
    }
    assert!(admitted_total <= limit);
    // Every isolate's last block ends and comes back: the count is what was admitted.
    let later = start + TimeDelta::seconds(60);
    for book in &mut books {
        if admitted(&call(book, &mut gate, later, None)) {
            admitted_total += 1;
        }
    }
    let out: u32 = books.iter().map(unspent).sum();
    assert_eq!(gate.used(later) - out, admitted_total);
    assert!(admitted_total <= limit);
}

#[test]
fn refusals_decided_with_a_block_reach_the_gate_with_the_block() {
    let mut gate = Gate::new(key(10_000));
    let mut book = HeldBlocks::default();
    let now = at("2026-11-26T10:00:00Z");
    while book.blocks.is_empty() {
        call(&mut book, &mut gate, now, None);
    }
    let calls = gate.calls;
    for _ in 0..3 {
        let answer = call(&mut book, &mut gate, now, Some("https://elsewhere.example"));
        assert_eq!(answer, Admission::OriginRefused);
    }
    assert_eq!(gate.calls, calls, "refused with the block, not by the gate");
    let later = now + TimeDelta::seconds(BLOCK_SECONDS + 1);
    call(&mut book, &mut gate, later, None);
    let day = gate.log.keys[&DIGEST.repeat(32)]
        .on(crate::api::access::daily_quota::day_of(now))
        .unwrap();
    assert_eq!(day.refused_origin, 3);
}

#[test]
fn a_revoked_key_stops_once_its_gate_rereads_the_record() {
    let mut gate = Gate::new(key(10_000));
    let mut book = HeldBlocks::default();
    let now = at("2026-11-26T10:00:00Z");
    while book.blocks.is_empty() {
        call(&mut book, &mut gate, now, None);
    }
    let until = book.blocks.values().next().unwrap().grant.until;
    assert!(
        until <= now + gate.ttl,
        "a block outlives the gate's record"
    );
    gate.record.revoked_at = Some(now);
    // Within the record's time to live the block may still be spent; after, never.
    assert_eq!(
        call(&mut book, &mut gate, until, None),
        Admission::KeyRefused {
            reason: KeyRefusal::Revoked
        }
    );
}

#[test]
fn a_key_asks_for_one_block_at_a_time() {
    let mut book = HeldBlocks::default();
    let request = |want| GateRequest {
        digest: DIGEST.repeat(32),
        now: at("2026-11-26T10:00:00Z"),
        origin: None,
        address: None,
        api: KeyApi::Router,
        returned: Vec::new(),
        want_block: want,
        record: None,
    };
    let (mut first, mut second) = (request(false), request(false));
    book.prepare(&mut first);
    book.prepare(&mut second);
    assert!(first.want_block);
    assert!(!second.want_block, "a second request while the first asks");
    book.settle(&first, None);
    let mut third = request(false);
    book.prepare(&mut third);
    assert!(third.want_block);
}

#[test]
fn an_ended_block_is_owed_to_its_gate_without_another_request() {
    let mut gate = Gate::new(key(10_000));
    let mut book = HeldBlocks::default();
    let now = at("2026-11-26T10:00:00Z");
    while book.blocks.is_empty() {
        call(&mut book, &mut gate, now, None);
    }
    let granted = book.take_granted();
    assert_eq!(granted.len(), 1, "the one block granted");
    assert!(book.take_granted().is_empty(), "taken once");
    let (digest, until) = granted[0].clone();
    // Spent in part, then nothing: while it runs nothing is owed.
    for _ in 0..7 {
        call(&mut book, &mut gate, now, None);
    }
    assert!(book.due(&digest, until - TimeDelta::seconds(1)).is_empty());
    let before = gate.used(now);
    let owed = book.due(&digest, until);
    assert_eq!(owed.len(), 1);
    assert_eq!(owed[0].unspent, block_size(10_000) - 7);
    assert!(book.due(&digest, until).is_empty(), "owed once");
    // Settled at the gate on their own, the count is what was admitted.
    let mut settled = gate.log.clone();
    assert!(gate::settle(&mut settled, &digest, &owed));
    let day = crate::api::access::daily_quota::day_of(now);
    let used = |logs: &GateLogs| {
        let key = logs.keys[&digest].on(day).unwrap().used;
        (key, logs.account.on(day).unwrap().used)
    };
    let expected = before - owed[0].unspent;
    assert_eq!(used(&settled), (expected, expected));
    // Sent again after its answer was lost, it is settled once: the block's number.
    assert_ne!(owed[0].block, 0);
    assert!(
        !gate::settle(&mut settled, &digest, &owed),
        "nothing changed"
    );
    assert_eq!(used(&settled), (expected, expected));
    // Or, sending them failed: still owed, they go with the key's next gate call.
    book.owe(&digest, owed.clone());
    let later = until + TimeDelta::seconds(1);
    assert!(admitted(&call(&mut book, &mut gate, later, None)));
    assert_eq!(
        gate.used(later) - unspent(&book),
        before - owed[0].unspent + 1
    );
}

/// A request of the key `digest` whose record is `record` (as its account's gate
/// reads it now), through an isolate's `book`, decided with the account gate's
/// `logs`.
fn call_key(
    book: &mut HeldBlocks,
    logs: &mut GateLogs,
    record: &KeyRecord,
    digest: &str,
    now: DateTime<Utc>,
) -> Admission {
    let mut request = GateRequest {
        digest: digest.to_owned(),
        now,
        origin: None,
        address: None,
        api: KeyApi::Router,
        returned: Vec::new(),
        want_block: false,
        record: None,
    };
    if let Some(local) = book.admit(&request) {
        return local;
    }
    book.prepare(&mut request);
    let read_at = now - TimeDelta::seconds(now.timestamp() % 60);
    let (answer, _) = gate::admit(
        Some(record),
        logs,
        &request,
        read_at + TimeDelta::seconds(60),
    );
    book.settle(&request, Some(&answer));
    answer
}

#[test]
fn isolates_hammering_keys_of_one_account_made_and_rolled_meanwhile_admit_its_limit_once() {
    let limit = 3_000;
    let account = AccountQuota {
        gate: "account:p1:live".into(),
        daily_limit: limit,
    };
    let new_key = |n: usize| {
        let record = KeyRecord {
            id: format!("key-{n}"),
            account: account.clone(),
            ..key(limit)
        };
        (format!("{n:064x}"), record)
    };
    let mut keys: Vec<(String, KeyRecord)> = (0..2).map(new_key).collect();
    let mut logs = GateLogs::default();
    let mut books: Vec<HeldBlocks> = (0..5).map(|_| HeldBlocks::default()).collect();
    let start = at("2026-11-26T10:00:00Z");
    let day = crate::api::access::daily_quota::day_of(start);
    let used = |logs: &GateLogs| logs.account.on(day).map_or(0, |d| d.used);
    let mut admitted_total = 0;
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    for i in 0..8_000_i64 {
        let now = start + TimeDelta::milliseconds(3 * i);
        // While the load runs the partner makes a key now and then, and rolls its
        // oldest in force with a minute's grace.
        if i % 900 == 450 {
            keys.push(new_key(keys.len()));
        }
        if i % 900 == 0 && i > 0 {
            if let Some((_, old)) = keys.iter_mut().find(|(_, r)| r.revoked_at.is_none()) {
                old.revoked_at = Some(now + TimeDelta::seconds(60));
            }
            keys.push(new_key(keys.len()));
        }
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let (digest, record) = &keys[(seed >> 8) as usize % keys.len()];
        let book = &mut books[(seed % 5) as usize];
        if admitted(&call_key(book, &mut logs, record, digest, now)) {
            admitted_total += 1;
        }
        assert!(used(&logs) <= limit, "count {} over the limit", used(&logs));
    }
    assert!(keys.len() > 10, "{} keys", keys.len());
    // Every isolate's blocks end and come back: the count is what was admitted,
    // the account's limit exactly (the demand was well above it), and the keys'
    // own counts add up to the account's.
    let later = start + TimeDelta::seconds(60);
    let out_before: u32 = books.iter().map(unspent).sum();
    assert!(out_before > 0 || used(&logs) == admitted_total);
    for book in &mut books {
        for (digest, _) in &keys {
            let returned = book.due(digest, later);
            gate::settle(&mut logs, digest, &returned);
        }
    }
    assert_eq!(used(&logs), admitted_total);
    assert_eq!(admitted_total, limit);
    let by_keys: u32 = logs
        .keys
        .values()
        .map(|log| log.on(day).map_or(0, |d| d.used))
        .sum();
    assert_eq!(by_keys, limit);
}
