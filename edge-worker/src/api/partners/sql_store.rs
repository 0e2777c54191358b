//! The portal's store in SQL, over any [`SqlDatabase`]: D1 in the Worker, SQLite in
//! the native tests, the same text on both. The store only stores: what may change
//! and when (caps, statuses, step-up windows, audit lines) is the handlers' to say,
//! and comes here as values. What must hold whatever runs meanwhile is checked in the
//! statement that makes the change, so two requests cannot both pass it: a ceremony
//! taken by a `DELETE ... RETURNING`, the key cap counted in the key's insert, the
//! last passkey kept, compare-and-set of a passkey's counter, and audit lines written
//! in the change's transaction only if it changed a row.

use chrono::{DateTime, TimeDelta, Utc};

use super::rows::{
    AuditRow, CeremonyRow, Count, KeyListRow, PartnerRow, PasskeyRow, SessionRow, audit_values,
    key_values, partner_values, passkey_values, time,
};
use super::sql::{SqlDatabase, SqlError, SqlValue, Statement};
use super::store::{
    AuditEntry, Ceremony, KeyCap, NewKey, Partner, PartnerKey, PartnerStatus, Passkey, PortalStore,
    Session,
};
use crate::api::access::keys::Tier;
use crate::api::backend_error::BackendError;

const PARTNER_COLUMNS: &str = "id, user_handle, organisation, email, intended_use, status, \
     role, tier, daily_limit, created_at";

const INSERT_PARTNER: &str = "INSERT INTO partners (id, user_handle, organisation, email, \
     intended_use, status, role, tier, daily_limit, created_at) \
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)";

const PASSKEY_COLUMNS: &str = "credential_id, partner_id, stored, created_at, last_used_at";

const INSERT_PASSKEY: &str = "INSERT INTO passkeys (credential_id, partner_id, stored, \
     created_at, last_used_at) VALUES (?1, ?2, ?3, ?4, NULL)";

const AUDIT_COLUMNS: &str = "at, partner_id, actor, action, subject, address";

/// Windows of [`PortalStore::count_request`] older than this are dropped.
const REQUEST_WINDOWS_KEPT: TimeDelta = TimeDelta::hours(1);

impl<S: SqlDatabase> PortalStore for S {
    async fn put_ceremony(&self, c: &Ceremony, now: DateTime<Utc>) -> Result<(), BackendError> {
        self.run(&Statement::new(
            "DELETE FROM ceremonies WHERE expires_at < ?1",
            [time(now)],
        ))
        .await?;
        self.run(&Statement::new(
            "INSERT INTO ceremonies (id, kind, state, pending, expires_at) \
             VALUES (?1, ?2, ?3, ?4, ?5)",
            [
                c.id.as_str().into(),
                c.kind.code().into(),
                c.state.as_str().into(),
                c.pending.as_deref().into(),
                time(c.expires_at),
            ],
        ))
        .await?;
        Ok(())
    }

    async fn take_ceremony(&self, id: &str) -> Result<Option<Ceremony>, BackendError> {
        let row: Option<CeremonyRow> = self
            .first(&Statement::new(
                "DELETE FROM ceremonies WHERE id = ?1 \
                 RETURNING id, kind, state, pending, expires_at",
                [id.into()],
            ))
            .await?;
        Ok(row.map(CeremonyRow::into_ceremony).transpose()?)
    }

    async fn create_partner(
        &self,
        p: &Partner,
        key: &Passkey,
        audit: &[AuditEntry],
    ) -> Result<(), BackendError> {
        // One transaction: an account never exists without its passkey, nor without
        // the line saying it applied.
        let mut batch = vec![
            Statement::new(INSERT_PARTNER, partner_values(p)),
            Statement::new(INSERT_PASSKEY, passkey_values(key)),
        ];
        batch.extend(audit_statements(audit));
        self.batch(&batch).await?;
        Ok(())
    }

    async fn partner(&self, id: &str) -> Result<Option<Partner>, BackendError> {
        let row: Option<PartnerRow> = self
            .first(&Statement::new(
                format!("SELECT {PARTNER_COLUMNS} FROM partners WHERE id = ?1"),
                [id.into()],
            ))
            .await?;
        Ok(row.map(PartnerRow::into_partner).transpose()?)
    }

    async fn passkey(&self, credential_id: &str) -> Result<Option<Passkey>, BackendError> {
        let row: Option<PasskeyRow> = self
            .first(&Statement::new(
                format!("SELECT {PASSKEY_COLUMNS} FROM passkeys WHERE credential_id = ?1"),
                [credential_id.into()],
            ))
            .await?;
        Ok(row.map(PasskeyRow::into_passkey).transpose()?)
    }

    async fn passkeys_of(&self, partner_id: &str) -> Result<Vec<Passkey>, BackendError> {
        let rows: Vec<PasskeyRow> = self
            .all(&Statement::new(
                format!(
                    "SELECT {PASSKEY_COLUMNS} FROM passkeys WHERE partner_id = ?1 \
                     ORDER BY created_at"
                ),
                [partner_id.into()],
            ))
            .await?;
        Ok(every(rows, PasskeyRow::into_passkey)?)
    }

    async fn add_passkey(&self, key: &Passkey, audit: &[AuditEntry]) -> Result<(), BackendError> {
        let insert = Statement::new(INSERT_PASSKEY, passkey_values(key));
        with_audit(self, insert, audit).await?;
        Ok(())
    }

    async fn remove_passkey(
        &self,
        partner_id: &str,
        credential_id: &str,
        audit: &[AuditEntry],
    ) -> Result<bool, BackendError> {
        // One statement: the count it checks is the one it changes.
        let delete = Statement::new(
            "DELETE FROM passkeys WHERE partner_id = ?1 AND credential_id = ?2 \
             AND (SELECT COUNT(*) FROM passkeys WHERE partner_id = ?1) > 1",
            [partner_id.into(), credential_id.into()],
        );
        Ok(with_audit(self, delete, audit).await?)
    }

    async fn enrolment(
        &self,
        digest: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<String>, BackendError> {
        let row: Option<serde_json::Value> = self
            .first(&Statement::new(
                "SELECT partner_id FROM enrolments WHERE digest = ?1 AND used_at IS NULL \
                 AND expires_at > ?2",
                [digest.into(), time(now)],
            ))
            .await?;
        Ok(row.and_then(|r| r["partner_id"].as_str().map(str::to_owned)))
    }

    async fn use_enrolment(&self, digest: &str, now: DateTime<Utc>) -> Result<bool, BackendError> {
        let used: Option<serde_json::Value> = self
            .first(&Statement::new(
                "UPDATE enrolments SET used_at = ?2 WHERE digest = ?1 AND used_at IS NULL \
                 AND expires_at > ?2 RETURNING digest",
                [digest.into(), time(now)],
            ))
            .await?;
        Ok(used.is_some())
    }

    async fn passkey_used(
        &self,
        credential_id: &str,
        (previous, stored): (&str, &str),
        at: DateTime<Utc>,
    ) -> Result<bool, BackendError> {
        let written: Option<serde_json::Value> = self
            .first(&Statement::new(
                "UPDATE passkeys SET stored = ?2, last_used_at = ?3 \
                 WHERE credential_id = ?1 AND stored = ?4 RETURNING credential_id",
                [
                    credential_id.into(),
                    stored.into(),
                    time(at),
                    previous.into(),
                ],
            ))
            .await?;
        Ok(written.is_some())
    }

    async fn put_session(&self, s: &Session, audit: &[AuditEntry]) -> Result<(), BackendError> {
        let insert = Statement::new(
            "INSERT INTO sessions (digest, partner_id, created_at, last_seen_at, ended_at, \
             credential_id) VALUES (?1, ?2, ?3, ?4, NULL, ?5)",
            [
                s.digest.as_str().into(),
                s.partner_id.as_str().into(),
                time(s.created_at),
                time(s.last_seen_at),
                s.credential_id.as_deref().into(),
            ],
        );
        with_audit(self, insert, audit).await?;
        Ok(())
    }

    async fn session(&self, digest: &str) -> Result<Option<Session>, BackendError> {
        let row: Option<SessionRow> = self
            .first(&Statement::new(
                "SELECT digest, partner_id, credential_id, created_at, last_seen_at, ended_at \
                 FROM sessions WHERE digest = ?1",
                [digest.into()],
            ))
            .await?;
        Ok(row.map(SessionRow::into_session).transpose()?)
    }

    async fn touch_session(&self, digest: &str, at: DateTime<Utc>) -> Result<(), BackendError> {
        self.run(&Statement::new(
            "UPDATE sessions SET last_seen_at = ?2 WHERE digest = ?1",
            [digest.into(), time(at)],
        ))
        .await?;
        Ok(())
    }

    async fn end_session(
        &self,
        digest: &str,
        at: DateTime<Utc>,
        audit: &[AuditEntry],
    ) -> Result<(), BackendError> {
        let end = Statement::new(
            "UPDATE sessions SET ended_at = ?2 WHERE digest = ?1 AND ended_at IS NULL",
            [digest.into(), time(at)],
        );
        with_audit(self, end, audit).await?;
        Ok(())
    }

    async fn end_sessions(
        &self,
        partner_id: &str,
        started_by: Option<&str>,
        at: DateTime<Utc>,
        audit: &[AuditEntry],
    ) -> Result<(), BackendError> {
        let end = Statement::new(
            "UPDATE sessions SET ended_at = ?2 WHERE partner_id = ?1 AND ended_at IS NULL \
             AND (?3 IS NULL OR credential_id = ?3)",
            [partner_id.into(), time(at), started_by.into()],
        );
        with_audit(self, end, audit).await?;
        Ok(())
    }

    async fn sweep(
        &self,
        sessions_before: DateTime<Utc>,
        keys_before: DateTime<Utc>,
    ) -> Result<(u32, u32), BackendError> {
        let done = self
            .batch(&[
                Statement::new(
                    "DELETE FROM sessions WHERE created_at < ?1 OR ended_at < ?1",
                    [time(sessions_before)],
                ),
                Statement::new(
                    "DELETE FROM api_keys WHERE revoked_at < ?1 OR expires_at < ?1",
                    [time(keys_before)],
                ),
            ])
            .await?;
        let changes = |i: usize| {
            done.get(i)
                .map_or(0, |o| u32::try_from(o.changes).unwrap_or(u32::MAX))
        };
        Ok((changes(0), changes(1)))
    }

    async fn keys_of(&self, partner_id: &str) -> Result<Vec<PartnerKey>, BackendError> {
        let rows: Vec<KeyListRow> = self
            .all(&Statement::new(
                "SELECT id, digest, label, kind, tier, daily_limit, apis, origins, ip_ranges, \
                 issued_at, expires_at, revoked_at, rolled_to FROM api_keys \
                 WHERE partner_id = ?1 ORDER BY issued_at DESC",
                [partner_id.into()],
            ))
            .await?;
        Ok(every(rows, KeyListRow::into_key)?)
    }

    async fn insert_key(
        &self,
        key: &NewKey,
        cap: KeyCap,
        audit: &[AuditEntry],
    ) -> Result<bool, BackendError> {
        // The count and the insert are one statement: concurrent creates cannot pass
        // the cap together. ?1 to ?12 are the key's (?10 its partner); ?13 the time,
        // ?14 the count it must be below.
        let mut values = key_values(key);
        values.extend([time(cap.now), cap.below_for_create().into()]);
        let guard = format!("({}) < ?14", in_force_count("?10", "?13"));
        let insert = Statement::new(insert_key_sql(&guard), values);
        Ok(with_audit(self, insert, audit).await?)
    }

    async fn revoke_key(
        &self,
        partner_id: &str,
        id: &str,
        at: DateTime<Utc>,
        audit: &[AuditEntry],
    ) -> Result<bool, BackendError> {
        let revoke = Statement::new(
            "UPDATE api_keys SET revoked_at = ?3 WHERE partner_id = ?1 AND id = ?2 \
             AND revoked_at IS NULL",
            [partner_id.into(), id.into(), time(at)],
        );
        Ok(with_audit(self, revoke, audit).await?)
    }

    async fn roll_key(
        &self,
        partner_id: &str,
        old: &str,
        new: &NewKey,
        old_expires_at: DateTime<Utc>,
        cap: KeyCap,
        audit: &[AuditEntry],
    ) -> Result<bool, BackendError> {
        // The cap is checked in the update that the insert depends on: a roll is a
        // creation, and a rolled key counts until it stops.
        let update = Statement::new(
            format!(
                "UPDATE api_keys SET rolled_to = ?3, expires_at = ?4 WHERE partner_id = ?1 \
                 AND id = ?2 AND revoked_at IS NULL AND rolled_to IS NULL AND ({}) < ?6",
                in_force_count("?1", "?5")
            ),
            [
                partner_id.into(),
                old.into(),
                new.key.id.as_str().into(),
                time(old_expires_at),
                time(cap.now),
                cap.below_for_roll(old_expires_at).into(),
            ],
        );
        // Stored only if the update above named it as the replacement.
        let mut values = key_values(new);
        values.push(old.into());
        let insert = Statement::new(
            insert_key_sql("(SELECT rolled_to FROM api_keys WHERE id = ?13) = ?1"),
            values,
        );
        let mut batch = vec![update, insert];
        batch.extend(audit_statements(audit));
        let done = self.batch(&batch).await?;
        Ok(done.get(1).is_some_and(|o| o.changes > 0))
    }

    async fn count_request(
        &self,
        bucket: &str,
        window: DateTime<Utc>,
    ) -> Result<u32, BackendError> {
        let done = self
            .batch(&[
                Statement::new(
                    "DELETE FROM portal_requests WHERE window_start < ?1",
                    [time(window - REQUEST_WINDOWS_KEPT)],
                ),
                Statement::new(
                    "INSERT INTO portal_requests (bucket, window_start, count) \
                     VALUES (?1, ?2, 1) ON CONFLICT (bucket, window_start) \
                     DO UPDATE SET count = count + 1 RETURNING count",
                    [bucket.into(), time(window)],
                ),
            ])
            .await?;
        let counted: Option<Count> = done
            .into_iter()
            .nth(1)
            .ok_or_else(|| SqlError::Database("no count".to_owned()))?
            .first()?;
        Ok(counted.map_or(1, |c| c.count))
    }

    async fn audit(&self, e: &AuditEntry) -> Result<(), BackendError> {
        self.run(&Statement::new(
            format!("INSERT INTO audit_log ({AUDIT_COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6)"),
            audit_values(e),
        ))
        .await?;
        Ok(())
    }

    async fn audit_of(
        &self,
        partner_id: &str,
        limit: u32,
    ) -> Result<Vec<AuditEntry>, BackendError> {
        let rows: Vec<AuditRow> = self
            .all(&Statement::new(
                format!(
                    "SELECT {AUDIT_COLUMNS} FROM audit_log WHERE partner_id = ?1 \
                     ORDER BY seq DESC LIMIT ?2"
                ),
                [partner_id.into(), limit.into()],
            ))
            .await?;
        Ok(every(rows, AuditRow::into_entry)?)
    }

    async fn audit_all(&self, limit: u32) -> Result<Vec<AuditEntry>, BackendError> {
        let rows: Vec<AuditRow> = self
            .all(&Statement::new(
                format!("SELECT {AUDIT_COLUMNS} FROM audit_log ORDER BY seq DESC LIMIT ?1"),
                [limit.into()],
            ))
            .await?;
        Ok(every(rows, AuditRow::into_entry)?)
    }

    async fn partners_page(
        &self,
        after: Option<(DateTime<Utc>, &str)>,
        limit: u32,
    ) -> Result<Vec<Partner>, BackendError> {
        // Keyset paging: the order's key, so a page holds whatever is added between
        // two requests at its place, never twice.
        let (at, id) = after.map_or((SqlValue::Null, SqlValue::Null), |(at, id)| {
            (time(at), id.into())
        });
        let rows: Vec<PartnerRow> = self
            .all(&Statement::new(
                format!(
                    "SELECT {PARTNER_COLUMNS} FROM partners WHERE ?1 IS NULL \
                     OR (created_at, id) > (?1, ?2) ORDER BY created_at, id LIMIT ?3"
                ),
                [at, id, limit.into()],
            ))
            .await?;
        Ok(every(rows, PartnerRow::into_partner)?)
    }

    async fn set_partner_status(
        &self,
        id: &str,
        from: &[PartnerStatus],
        to: PartnerStatus,
        audit: &[AuditEntry],
    ) -> Result<bool, BackendError> {
        // One statement: the status it checks is the one it changes.
        let allowed: Vec<String> = (3..3 + from.len()).map(|i| format!("?{i}")).collect();
        let mut values = vec![id.into(), to.code().into()];
        values.extend(from.iter().map(|s| s.code().into()));
        let update = Statement::new(
            format!(
                "UPDATE partners SET status = ?2 WHERE id = ?1 AND status IN ({})",
                allowed.join(", ")
            ),
            values,
        );
        Ok(with_audit(self, update, audit).await?)
    }

    async fn set_partner_tier(
        &self,
        id: &str,
        tier: Tier,
        daily_limit: Option<u32>,
        audit: &[AuditEntry],
    ) -> Result<(), BackendError> {
        let update = Statement::new(
            "UPDATE partners SET tier = ?2, daily_limit = ?3 WHERE id = ?1",
            [id.into(), tier.code().into(), daily_limit.into()],
        );
        with_audit(self, update, audit).await?;
        Ok(())
    }
}

/// Each row converted, or the first that does not convert.
fn every<R, T>(
    rows: Vec<R>,
    convert: impl Fn(R) -> Result<T, SqlError>,
) -> Result<Vec<T>, SqlError> {
    rows.into_iter().map(convert).collect()
}

/// The SQL count of the keys of the partner `partner` (a placeholder) in force at
/// `now` (a placeholder): neither revoked nor expired, as `PartnerKey::is_in_force`.
fn in_force_count(partner: &str, now: &str) -> String {
    format!(
        "SELECT COUNT(*) FROM api_keys WHERE partner_id = {partner} \
         AND (revoked_at IS NULL OR revoked_at > {now}) \
         AND (expires_at IS NULL OR expires_at > {now})"
    )
}

/// The statement that stores a key (values of [`key_values`]), only if `guard` (SQL)
/// holds.
fn insert_key_sql(guard: &str) -> String {
    format!(
        "INSERT INTO api_keys (id, digest, kind, tier, daily_limit, issued_at, expires_at, \
         revoked_at, origins, label, partner_id, apis, ip_ranges) \
         SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, NULL, ?8, ?9, ?10, ?11, ?12 WHERE {guard}"
    )
}

/// Runs `change` and, in the same transaction, `audit`'s lines if it changed a row;
/// whether it did.
async fn with_audit<S: SqlDatabase>(
    db: &S,
    change: Statement,
    audit: &[AuditEntry],
) -> Result<bool, SqlError> {
    let mut batch = vec![change];
    batch.extend(audit_statements(audit));
    let done = db.batch(&batch).await?;
    Ok(done.first().is_some_and(|o| o.changes > 0))
}

/// Statements writing `audit`'s lines when the statement before them in a batch
/// changed a row (`changes()`; each line written makes it true for the next).
fn audit_statements(audit: &[AuditEntry]) -> impl Iterator<Item = Statement> + '_ {
    audit.iter().map(|e| {
        Statement::new(
            format!(
                "INSERT INTO audit_log ({AUDIT_COLUMNS}) \
                 SELECT ?1, ?2, ?3, ?4, ?5, ?6 WHERE changes() > 0"
            ),
            audit_values(e),
        )
    })
}

#[cfg(test)]
mod tests;
