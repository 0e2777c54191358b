//! What the portal's database holds, read back through the store's own rows: what a
//! test looks at after its requests. A copy: changes go through SQL
//! ([`Sqlite::exec`]), as `scripts/operator.mjs` makes them.

use std::collections::HashMap;

use super::sqlite::Sqlite;
use crate::api::partners::rows::{
    AuditRow, CeremonyRow, KeyListRow, PartnerRow, PasskeyRow, SessionRow,
};
use crate::api::partners::sql::SqlError;
use crate::api::partners::store::{AuditEntry, Ceremony, Partner, PartnerKey, Passkey, Session};

/// The portal's tables at one moment.
#[derive(Debug)]
pub(crate) struct PortalTables {
    /// Ceremonies not yet taken.
    pub(crate) ceremonies: Vec<Ceremony>,
    /// Accounts by id.
    pub(crate) partners: HashMap<String, Partner>,
    /// Passkeys, in the order they were stored.
    pub(crate) passkeys: Vec<Passkey>,
    /// Sessions by digest.
    pub(crate) sessions: HashMap<String, Session>,
    /// The audit log, oldest first.
    pub(crate) audit: Vec<AuditEntry>,
    /// Keys made in the portal, in the order they were stored.
    pub(crate) keys: Vec<PartnerKey>,
}

/// Every row of `table`, in the order stored, converted.
fn read<R: serde::de::DeserializeOwned, T>(
    db: &Sqlite,
    table: &str,
    convert: impl Fn(R) -> Result<T, SqlError>,
) -> Vec<T> {
    db.rows(&format!("SELECT * FROM {table} ORDER BY rowid"), &[])
        .into_iter()
        .map(|row| convert(row).unwrap_or_else(|e| panic!("{table}: {e}")))
        .collect()
}

impl PortalTables {
    /// What `db` holds now.
    pub(crate) fn of(db: &Sqlite) -> Self {
        Self {
            ceremonies: read(db, "ceremonies", CeremonyRow::into_ceremony),
            partners: read(db, "partners", PartnerRow::into_partner)
                .into_iter()
                .map(|p| (p.id.clone(), p))
                .collect(),
            passkeys: read(db, "passkeys", PasskeyRow::into_passkey),
            sessions: read(db, "sessions", SessionRow::into_session)
                .into_iter()
                .map(|s| (s.digest.clone(), s))
                .collect(),
            audit: read(db, "audit_log", AuditRow::into_entry),
            keys: read(db, "api_keys", KeyListRow::into_key),
        }
    }
}
