//! The portal's store over D1 (`KEYS`, `edge-worker/migrations/0002_portal.sql`; its
//! rows in [`super::portal_rows`]). A ceremony is taken by a `DELETE ... RETURNING`,
//! so two requests cannot both finish it.

use chrono::{DateTime, Utc};
use serde::Deserialize;
use worker::wasm_bindgen::JsValue;
use worker::{D1Database, D1PreparedStatement};

use super::WorkerBackend;
use super::portal_rows::{
    AuditRow, CeremonyRow, Count, KeyListRow, PartnerRow, PasskeyRow, SessionRow, audit_entries,
    fail, insert_key_sql, insert_key_values, optional_time, parse_time, time,
};
use crate::api::portal::ceremonies::CEREMONY_LIFETIME;

use crate::api::access::keys::Tier;
use crate::api::backend_error::BackendError;
use crate::api::partners::store::{
    AuditEntry, Ceremony, CeremonyKind, KeyCap, NewKey, Partner, PartnerKey, PartnerStatus,
    Passkey, PortalStore, Session,
};

impl WorkerBackend {
    fn db(&self) -> Result<D1Database, BackendError> {
        self.env.d1("KEYS").map_err(fail)
    }

    async fn run(&self, sql: &str, values: &[JsValue]) -> Result<(), BackendError> {
        self.db()?
            .prepare(sql)
            .bind(values)
            .map_err(fail)?
            .run()
            .await
            .map_err(fail)?;
        Ok(())
    }

    async fn first<T: for<'de> Deserialize<'de>>(
        &self,
        sql: &str,
        values: &[JsValue],
    ) -> Result<Option<T>, BackendError> {
        self.db()?
            .prepare(sql)
            .bind(values)
            .map_err(fail)?
            .first(None)
            .await
            .map_err(fail)
    }

    async fn all<T: for<'de> Deserialize<'de>>(
        &self,
        sql: &str,
        values: &[JsValue],
    ) -> Result<Vec<T>, BackendError> {
        self.db()?
            .prepare(sql)
            .bind(values)
            .map_err(fail)?
            .all()
            .await
            .map_err(fail)?
            .results()
            .map_err(fail)
    }
}

const PASSKEY_COLUMNS: &str = "credential_id, partner_id, stored, created_at, last_used_at";

impl PortalStore for WorkerBackend {
    async fn put_ceremony(&self, c: &Ceremony) -> Result<(), BackendError> {
        // Expired ceremonies are swept as new ones arrive (this one began now).
        self.run(
            "DELETE FROM ceremonies WHERE expires_at < ?1",
            &[time(c.expires_at - CEREMONY_LIFETIME)],
        )
        .await?;
        self.run(
            "INSERT INTO ceremonies (id, kind, state, pending, expires_at) VALUES (?1, ?2, ?3, ?4, ?5)",
            &[
                c.id.as_str().into(),
                c.kind.code().into(),
                c.state.as_str().into(),
                c.pending.as_deref().map_or(JsValue::NULL, Into::into),
                time(c.expires_at),
            ],
        )
        .await
    }

    async fn take_ceremony(&self, id: &str) -> Result<Option<Ceremony>, BackendError> {
        let row: Option<CeremonyRow> = self
            .first(
                "DELETE FROM ceremonies WHERE id = ?1 RETURNING id, kind, state, pending, expires_at",
                &[id.into()],
            )
            .await?;
        row.map(|r| {
            Ok(Ceremony {
                kind: CeremonyKind::parse(&r.kind).ok_or_else(|| fail("unknown ceremony"))?,
                expires_at: parse_time(&r.expires_at)?,
                id: r.id,
                state: r.state,
                pending: r.pending,
            })
        })
        .transpose()
    }

    async fn create_partner(
        &self,
        p: &Partner,
        key: &Passkey,
        audit: &[AuditEntry],
    ) -> Result<(), BackendError> {
        let db = self.db()?;
        let partner = db
            .prepare(
                "INSERT INTO partners (id, user_handle, organisation, email, intended_use, status, role, \
                 tier, daily_limit, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            )
            .bind(&[
                p.id.as_str().into(),
                hex::encode(&p.user_handle).into(),
                p.organisation.as_str().into(),
                p.email.as_str().into(),
                p.intended_use.as_str().into(),
                p.status.code().into(),
                p.role.code().into(),
                p.tier.code().into(),
                p.daily_limit.map_or(JsValue::NULL, |l| f64::from(l).into()),
                time(p.created_at),
            ])
            .map_err(fail)?;
        let passkey = db
            .prepare(format!(
                "INSERT INTO passkeys ({PASSKEY_COLUMNS}) VALUES (?1, ?2, ?3, ?4, NULL)"
            ))
            .bind(&[
                key.credential_id.as_str().into(),
                key.partner_id.as_str().into(),
                key.stored.as_str().into(),
                time(key.created_at),
            ])
            .map_err(fail)?;
        // One transaction: an account never exists without its passkey, nor
        // without the line saying it applied.
        let mut batch = vec![partner, passkey];
        batch.extend(audit_statements(&db, audit)?);
        db.batch(batch).await.map_err(fail)?;
        Ok(())
    }

    async fn partner(&self, id: &str) -> Result<Option<Partner>, BackendError> {
        let row: Option<PartnerRow> = self
            .first(
                "SELECT id, user_handle, organisation, email, intended_use, status, role, tier, \
                 daily_limit, created_at FROM partners WHERE id = ?1",
                &[id.into()],
            )
            .await?;
        row.map(PartnerRow::into_partner).transpose()
    }

    async fn passkey(&self, credential_id: &str) -> Result<Option<Passkey>, BackendError> {
        let row: Option<PasskeyRow> = self
            .first(
                &format!("SELECT {PASSKEY_COLUMNS} FROM passkeys WHERE credential_id = ?1"),
                &[credential_id.into()],
            )
            .await?;
        row.map(PasskeyRow::into_passkey).transpose()
    }

    async fn passkeys_of(&self, partner_id: &str) -> Result<Vec<Passkey>, BackendError> {
        let rows: Vec<PasskeyRow> = self
            .all(
                &format!(
                    "SELECT {PASSKEY_COLUMNS} FROM passkeys WHERE partner_id = ?1 ORDER BY created_at"
                ),
                &[partner_id.into()],
            )
            .await?;
        rows.into_iter().map(PasskeyRow::into_passkey).collect()
    }

    async fn add_passkey(&self, key: &Passkey, audit: &[AuditEntry]) -> Result<(), BackendError> {
        let db = self.db()?;
        let insert = db
            .prepare(format!(
                "INSERT INTO passkeys ({PASSKEY_COLUMNS}) VALUES (?1, ?2, ?3, ?4, NULL)"
            ))
            .bind(&[
                key.credential_id.as_str().into(),
                key.partner_id.as_str().into(),
                key.stored.as_str().into(),
                time(key.created_at),
            ])
            .map_err(fail)?;
        with_audit(&db, insert, audit).await.map(drop)
    }

    async fn remove_passkey(
        &self,
        partner_id: &str,
        credential_id: &str,
        audit: &[AuditEntry],
    ) -> Result<bool, BackendError> {
        // One statement: the count it checks is the one it changes.
        let db = self.db()?;
        let delete = db
            .prepare(
                "DELETE FROM passkeys WHERE partner_id = ?1 AND credential_id = ?2 \
                 AND (SELECT COUNT(*) FROM passkeys WHERE partner_id = ?1) > 1",
            )
            .bind(&[partner_id.into(), credential_id.into()])
            .map_err(fail)?;
        with_audit(&db, delete, audit).await
    }

    async fn enrolment(
        &self,
        digest: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<String>, BackendError> {
        let row: Option<serde_json::Value> = self
            .first(
                "SELECT partner_id FROM enrolments WHERE digest = ?1 AND used_at IS NULL AND expires_at > ?2",
                &[digest.into(), time(now)],
            )
            .await?;
        Ok(row.and_then(|r| r["partner_id"].as_str().map(str::to_owned)))
    }

    async fn use_enrolment(&self, digest: &str, now: DateTime<Utc>) -> Result<bool, BackendError> {
        let used: Option<serde_json::Value> = self
            .first(
                "UPDATE enrolments SET used_at = ?2 WHERE digest = ?1 AND used_at IS NULL \
                 AND expires_at > ?2 RETURNING digest",
                &[digest.into(), time(now)],
            )
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
            .first(
                "UPDATE passkeys SET stored = ?2, last_used_at = ?3 \
                 WHERE credential_id = ?1 AND stored = ?4 RETURNING credential_id",
                &[
                    credential_id.into(),
                    stored.into(),
                    time(at),
                    previous.into(),
                ],
            )
            .await?;
        Ok(written.is_some())
    }

    async fn put_session(&self, s: &Session, audit: &[AuditEntry]) -> Result<(), BackendError> {
        let db = self.db()?;
        let insert = db
            .prepare(
                "INSERT INTO sessions (digest, partner_id, created_at, last_seen_at, ended_at, credential_id) \
                 VALUES (?1, ?2, ?3, ?4, NULL, ?5)",
            )
            .bind(&[
                s.digest.as_str().into(),
                s.partner_id.as_str().into(),
                time(s.created_at),
                time(s.last_seen_at),
                s.credential_id.as_deref().map_or(JsValue::NULL, JsValue::from),
            ])
            .map_err(fail)?;
        with_audit(&db, insert, audit).await.map(|_| ())
    }

    async fn session(&self, digest: &str) -> Result<Option<Session>, BackendError> {
        let row: Option<SessionRow> = self
            .first(
                "SELECT digest, partner_id, credential_id, created_at, last_seen_at, ended_at FROM sessions WHERE digest = ?1",
                &[digest.into()],
            )
            .await?;
        row.map(|r| {
            Ok(Session {
                created_at: parse_time(&r.created_at)?,
                last_seen_at: parse_time(&r.last_seen_at)?,
                ended_at: optional_time(r.ended_at.as_deref())?,
                digest: r.digest,
                partner_id: r.partner_id,
                credential_id: r.credential_id,
            })
        })
        .transpose()
    }

    async fn touch_session(&self, digest: &str, at: DateTime<Utc>) -> Result<(), BackendError> {
        self.run(
            "UPDATE sessions SET last_seen_at = ?2 WHERE digest = ?1",
            &[digest.into(), time(at)],
        )
        .await
    }

    async fn end_session(
        &self,
        digest: &str,
        at: DateTime<Utc>,
        audit: &[AuditEntry],
    ) -> Result<(), BackendError> {
        let db = self.db()?;
        let end = db
            .prepare("UPDATE sessions SET ended_at = ?2 WHERE digest = ?1 AND ended_at IS NULL")
            .bind(&[digest.into(), time(at)])
            .map_err(fail)?;
        with_audit(&db, end, audit).await.map(|_| ())
    }

    async fn end_sessions(
        &self,
        partner_id: &str,
        started_by: Option<&str>,
        at: DateTime<Utc>,
        audit: &[AuditEntry],
    ) -> Result<(), BackendError> {
        let db = self.db()?;
        let end = db
            .prepare(
                "UPDATE sessions SET ended_at = ?2 WHERE partner_id = ?1 AND ended_at IS NULL \
                 AND (?3 IS NULL OR credential_id = ?3)",
            )
            .bind(&[
                partner_id.into(),
                time(at),
                started_by.map_or(JsValue::NULL, JsValue::from),
            ])
            .map_err(fail)?;
        with_audit(&db, end, audit).await.map(|_| ())
    }

    async fn sweep(
        &self,
        sessions_before: DateTime<Utc>,
        keys_before: DateTime<Utc>,
    ) -> Result<(u32, u32), BackendError> {
        let db = self.db()?;
        let sessions = db
            .prepare("DELETE FROM sessions WHERE created_at < ?1 OR ended_at < ?1")
            .bind(&[time(sessions_before)])
            .map_err(fail)?;
        let keys = db
            .prepare("DELETE FROM api_keys WHERE revoked_at < ?1 OR expires_at < ?1")
            .bind(&[time(keys_before)])
            .map_err(fail)?;
        let results = db.batch(vec![sessions, keys]).await.map_err(fail)?;
        let changes = |i: usize| {
            results
                .get(i)
                .and_then(|r| r.meta().ok().flatten())
                .and_then(|m| m.changes)
                .map_or(0, |n| u32::try_from(n).unwrap_or(u32::MAX))
        };
        Ok((changes(0), changes(1)))
    }

    async fn keys_of(&self, partner_id: &str) -> Result<Vec<PartnerKey>, BackendError> {
        let rows: Vec<KeyListRow> = self
            .all(
                "SELECT id, digest, label, kind, tier, daily_limit, apis, origins, ip_ranges, issued_at, \
                 expires_at, revoked_at, rolled_to FROM api_keys WHERE partner_id = ?1 ORDER BY issued_at DESC",
                &[partner_id.into()],
            )
            .await?;
        rows.into_iter().map(KeyListRow::into_key).collect()
    }

    async fn insert_key(
        &self,
        key: &NewKey,
        cap: KeyCap,
        audit: &[AuditEntry],
    ) -> Result<bool, BackendError> {
        // The count and the insert are one statement: concurrent creates cannot pass
        // the cap together.
        // Values ?1 to ?12 are the key's (?10 its partner); ?13 the time, ?14 the cap.
        let db = self.db()?;
        let mut values = insert_key_values(key);
        values.extend([time(cap.now), JsValue::from(cap.max as f64)]);
        let guard = format!("({}) < ?14", in_force_count("?10", "?13"));
        let insert = db
            .prepare(insert_key_sql(&guard))
            .bind(&values)
            .map_err(fail)?;
        with_audit(&db, insert, audit).await
    }

    async fn revoke_key(
        &self,
        partner_id: &str,
        id: &str,
        at: DateTime<Utc>,
        audit: &[AuditEntry],
    ) -> Result<bool, BackendError> {
        let db = self.db()?;
        let revoke = db
            .prepare(
                "UPDATE api_keys SET revoked_at = ?3 WHERE partner_id = ?1 AND id = ?2 \
                 AND revoked_at IS NULL",
            )
            .bind(&[partner_id.into(), id.into(), time(at)])
            .map_err(fail)?;
        with_audit(&db, revoke, audit).await
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
        let db = self.db()?;
        // The cap is checked in the update that the insert depends on: a roll is a
        // creation, and a rolled key counts until it stops.
        let freed = usize::from(old_expires_at <= cap.now);
        let update = db
            .prepare(format!(
                "UPDATE api_keys SET rolled_to = ?3, expires_at = ?4 WHERE partner_id = ?1 AND id = ?2 \
                 AND revoked_at IS NULL AND rolled_to IS NULL AND ({}) - ?6 < ?7",
                in_force_count("?1", "?5")
            ))
            .bind(&[
                partner_id.into(),
                old.into(),
                new.key.id.as_str().into(),
                time(old_expires_at),
                time(cap.now),
                JsValue::from(freed as f64),
                JsValue::from(cap.max as f64),
            ])
            .map_err(fail)?;
        // Stored only if the update above named it as the replacement.
        let mut values = insert_key_values(new);
        values.push(old.into());
        let insert = db
            .prepare(insert_key_sql(
                "(SELECT rolled_to FROM api_keys WHERE id = ?13) = ?1",
            ))
            .bind(&values)
            .map_err(fail)?;
        let mut batch = vec![update, insert];
        batch.extend(audit_statements(&db, audit)?);
        let results = db.batch(batch).await.map_err(fail)?;
        Ok(changes(&results, 1) > 0)
    }

    async fn count_request(
        &self,
        bucket: &str,
        window: DateTime<Utc>,
    ) -> Result<u32, BackendError> {
        let db = self.db()?;
        let sweep = db
            .prepare("DELETE FROM portal_requests WHERE window_start < ?1")
            .bind(&[time(window - chrono::TimeDelta::hours(1))])
            .map_err(fail)?;
        let count = db
            .prepare(
                "INSERT INTO portal_requests (bucket, window_start, count) VALUES (?1, ?2, 1) \
                 ON CONFLICT (bucket, window_start) DO UPDATE SET count = count + 1 RETURNING count",
            )
            .bind(&[bucket.into(), time(window)])
            .map_err(fail)?;
        let results = db.batch(vec![sweep, count]).await.map_err(fail)?;
        let counted: Vec<Count> = results
            .get(1)
            .ok_or_else(|| fail("no count"))?
            .results()
            .map_err(fail)?;
        Ok(counted.first().map_or(1, |c| c.count))
    }

    async fn audit(&self, e: &AuditEntry) -> Result<(), BackendError> {
        self.run(
            "INSERT INTO audit_log (at, partner_id, actor, action, subject, address) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            &audit_values(e),
        )
        .await
    }

    async fn audit_of(
        &self,
        partner_id: &str,
        limit: u32,
    ) -> Result<Vec<AuditEntry>, BackendError> {
        let rows: Vec<AuditRow> = self
            .all(
                "SELECT at, partner_id, actor, action, subject, address FROM audit_log \
                 WHERE partner_id = ?1 ORDER BY seq DESC LIMIT ?2",
                &[partner_id.into(), f64::from(limit).into()],
            )
            .await?;
        audit_entries(rows)
    }

    async fn audit_all(&self, limit: u32) -> Result<Vec<AuditEntry>, BackendError> {
        let rows: Vec<AuditRow> = self
            .all(
                "SELECT at, partner_id, actor, action, subject, address FROM audit_log \
                 ORDER BY seq DESC LIMIT ?1",
                &[f64::from(limit).into()],
            )
            .await?;
        audit_entries(rows)
    }

    async fn partners_page(
        &self,
        after: Option<(DateTime<Utc>, &str)>,
        limit: u32,
    ) -> Result<Vec<Partner>, BackendError> {
        // Keyset paging: the order's key, so a page holds whatever is added between
        // two requests at its place, never twice.
        let (at, id) = after.map_or((JsValue::NULL, JsValue::NULL), |(at, id)| {
            (time(at), id.into())
        });
        let rows: Vec<PartnerRow> = self
            .all(
                "SELECT id, user_handle, organisation, email, intended_use, status, role, tier, \
                 daily_limit, created_at FROM partners \
                 WHERE ?1 IS NULL OR (created_at, id) > (?1, ?2) ORDER BY created_at, id LIMIT ?3",
                &[at, id, JsValue::from(f64::from(limit))],
            )
            .await?;
        rows.into_iter().map(PartnerRow::into_partner).collect()
    }

    async fn set_partner_status(
        &self,
        id: &str,
        from: &[PartnerStatus],
        to: PartnerStatus,
        audit: &[AuditEntry],
    ) -> Result<bool, BackendError> {
        // One statement: the status it checks is the one it changes.
        let allowed = from
            .iter()
            .map(|s| format!("'{}'", s.code()))
            .collect::<Vec<_>>();
        let db = self.db()?;
        let update = db
            .prepare(format!(
                "UPDATE partners SET status = ?2 WHERE id = ?1 AND status IN ({})",
                allowed.join(", ")
            ))
            .bind(&[id.into(), to.code().into()])
            .map_err(fail)?;
        with_audit(&db, update, audit).await
    }

    async fn set_partner_tier(
        &self,
        id: &str,
        tier: Tier,
        daily_limit: Option<u32>,
        audit: &[AuditEntry],
    ) -> Result<(), BackendError> {
        let limit = daily_limit.map_or(JsValue::NULL, |n| f64::from(n).into());
        let db = self.db()?;
        let update = db
            .prepare("UPDATE partners SET tier = ?2, daily_limit = ?3 WHERE id = ?1")
            .bind(&[id.into(), tier.code().into(), limit])
            .map_err(fail)?;
        with_audit(&db, update, audit).await.map(drop)
    }
}

/// The SQL count of the keys of the partner `partner` (a placeholder) in force at
/// `now` (a placeholder): neither revoked nor expired, as `PartnerKey::is_in_force`.
fn in_force_count(partner: &str, now: &str) -> String {
    format!(
        "SELECT COUNT(*) FROM api_keys WHERE partner_id = {partner} \
         AND (revoked_at IS NULL OR revoked_at > {now}) AND (expires_at IS NULL OR expires_at > {now})"
    )
}

/// Runs `change` and, in the same batch (one transaction), `audit`'s lines if it
/// changed a row; whether it did.
async fn with_audit(
    db: &D1Database,
    change: D1PreparedStatement,
    audit: &[AuditEntry],
) -> Result<bool, BackendError> {
    let mut batch = vec![change];
    batch.extend(audit_statements(db, audit)?);
    let results = db.batch(batch).await.map_err(fail)?;
    Ok(changes(&results, 0) > 0)
}

/// Statements writing `audit`'s lines when the statement before them in a batch
/// changed a row (`changes()`; each line written makes it true for the next).
fn audit_statements(
    db: &D1Database,
    audit: &[AuditEntry],
) -> Result<Vec<D1PreparedStatement>, BackendError> {
    audit
        .iter()
        .map(|e| {
            db.prepare(
                "INSERT INTO audit_log (at, partner_id, actor, action, subject, address) \
                 SELECT ?1, ?2, ?3, ?4, ?5, ?6 WHERE changes() > 0",
            )
            .bind(&audit_values(e))
            .map_err(fail)
        })
        .collect()
}

fn audit_values(e: &AuditEntry) -> [JsValue; 6] {
    [
        time(e.at),
        e.partner_id.as_str().into(),
        e.actor.as_str().into(),
        e.action.as_str().into(),
        e.subject.as_deref().map_or(JsValue::NULL, Into::into),
        e.address.as_deref().map_or(JsValue::NULL, Into::into),
    ]
}

/// The rows the batch's statement `i` changed.
fn changes(results: &[worker::D1Result], i: usize) -> usize {
    results
        .get(i)
        .and_then(|r| r.meta().ok().flatten())
        .and_then(|m| m.changes)
        .unwrap_or(0)
}
