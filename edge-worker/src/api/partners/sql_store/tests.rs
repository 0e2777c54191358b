//! What only the SQL decides, on SQLite: the transactions and the guards that hold
//! whatever runs between a read and a write. The handlers' suites (`portal/tests/`)
//! go through the same store.

use chrono::TimeDelta;
use futures_executor::block_on;

use crate::api::access::keys::Tier;
use crate::api::partners::store::{
    AuditEntry, Ceremony, CeremonyKind, Partner, PartnerStatus, Passkey, PortalStore, Role,
};
use crate::api::test_support::{MemoryBackend, now};

fn partner(id: &str) -> Partner {
    Partner {
        id: id.to_owned(),
        user_handle: id.as_bytes().to_vec(),
        organisation: "Transit Co".to_owned(),
        email: "ops@transit.example".to_owned(),
        intended_use: "night routes".to_owned(),
        status: PartnerStatus::Applied,
        role: Role::Partner,
        tier: Tier::Sandbox,
        daily_limit: None,
        created_at: now(),
    }
}

fn passkey(credential_id: &str, partner_id: &str) -> Passkey {
    Passkey {
        credential_id: credential_id.to_owned(),
        partner_id: partner_id.to_owned(),
        stored: "counter 0".to_owned(),
        created_at: now(),
        last_used_at: None,
    }
}

fn line(partner_id: &str, action: &str) -> AuditEntry {
    AuditEntry {
        at: now(),
        partner_id: partner_id.to_owned(),
        actor: partner_id.to_owned(),
        action: action.to_owned(),
        subject: None,
        address: None,
    }
}

#[test]
fn of_two_sign_ins_that_read_the_same_counter_one_is_written() {
    let backend = MemoryBackend::new();
    block_on(backend.create_partner(&partner("a"), &passkey("k", "a"), &[])).unwrap();
    let at = now() + TimeDelta::minutes(1);
    let first = block_on(backend.passkey_used("k", ("counter 0", "counter 1"), at));
    let second = block_on(backend.passkey_used("k", ("counter 0", "counter 1'"), at));
    assert_eq!((first, second), (Ok(true), Ok(false)));
    let stored = block_on(backend.passkey("k")).unwrap().unwrap();
    assert_eq!(
        (stored.stored.as_str(), stored.last_used_at),
        ("counter 1", Some(at))
    );
}

#[test]
fn an_account_is_stored_whole_or_not_at_all() {
    let backend = MemoryBackend::new();
    let applied = [line("a", "applied")];
    block_on(backend.create_partner(&partner("a"), &passkey("k", "a"), &applied)).unwrap();
    // The same passkey again: its insert fails, and takes the account and its line
    // with it.
    let again = [line("b", "applied")];
    assert!(block_on(backend.create_partner(&partner("b"), &passkey("k", "b"), &again)).is_err());
    let tables = backend.tables();
    assert_eq!(tables.partners.keys().collect::<Vec<_>>(), ["a"]);
    assert_eq!(tables.audit, applied);
}

#[test]
fn audit_lines_are_written_only_with_a_change() {
    let backend = MemoryBackend::new();
    block_on(backend.create_partner(&partner("a"), &passkey("k", "a"), &[])).unwrap();
    let approve = |from: &[PartnerStatus]| {
        let approved = [line("a", "approved")];
        block_on(backend.set_partner_status("a", from, PartnerStatus::Approved, &approved)).unwrap()
    };
    assert!(
        !approve(&[PartnerStatus::Suspended]),
        "not a status it may leave"
    );
    assert!(backend.tables().audit.is_empty());
    assert!(approve(&[PartnerStatus::Applied, PartnerStatus::Suspended]));
    assert!(!approve(&[PartnerStatus::Applied]), "approved already");
    assert_eq!(backend.tables().audit.len(), 1);
    assert_eq!(
        backend.tables().partners["a"].status,
        PartnerStatus::Approved
    );
}

#[test]
fn a_new_ceremony_drops_those_expired_before_it_began() {
    let backend = MemoryBackend::new();
    let ceremony = |id: &str, expires_at| Ceremony {
        id: id.to_owned(),
        kind: CeremonyKind::SignIn,
        state: "{}".to_owned(),
        pending: None,
        expires_at,
    };
    let later = now() + TimeDelta::minutes(10);
    block_on(backend.put_ceremony(&ceremony("old", now()), now())).unwrap();
    block_on(backend.put_ceremony(&ceremony("live", later), now())).unwrap();
    block_on(backend.put_ceremony(&ceremony("new", later), now() + TimeDelta::minutes(1))).unwrap();
    let mut kept: Vec<String> = backend
        .tables()
        .ceremonies
        .into_iter()
        .map(|c| c.id)
        .collect();
    kept.sort();
    assert_eq!(kept, ["live", "new"]);
    assert_eq!(block_on(backend.take_ceremony("old")), Ok(None));
}
