//! The portal's store in memory: what D1 keeps in the Worker, kept in
//! [`PortalTables`] by whichever test backend holds them ([`HoldsPortalTables`]).

use std::cell::RefMut;
use std::collections::HashMap;

use chrono::{DateTime, Utc};

use crate::api::access::keys::{AccountQuota, KeyRecord, Tier};
use crate::api::backend_error::BackendError;
use crate::api::partners::store::{
    AuditEntry, Ceremony, KeyCap, NewKey, Partner, PartnerKey, PartnerStatus, Passkey, PortalStore,
    Session,
};

/// An enrolment link: its account, its expiry, and when it was used.
pub(crate) type Enrolment = (String, DateTime<Utc>, Option<DateTime<Utc>>);

/// The portal's tables.
#[derive(Debug, Default)]
pub(crate) struct PortalTables {
    pub(crate) ceremonies: HashMap<String, Ceremony>,
    pub(crate) partners: HashMap<String, Partner>,
    pub(crate) passkeys: Vec<Passkey>,
    pub(crate) sessions: HashMap<String, Session>,
    pub(crate) audit: Vec<AuditEntry>,
    pub(crate) keys: Vec<NewKey>,
    /// Enrolment links by digest.
    pub(crate) enrolments: HashMap<String, Enrolment>,
    /// Requests per bucket and window.
    pub(crate) requests: HashMap<(String, DateTime<Utc>), u32>,
    /// How many times a session was read.
    pub(crate) session_reads: usize,
}

/// A test backend that keeps the portal's tables, and can play a database that is
/// down.
pub(crate) trait HoldsPortalTables {
    /// The tables, or the database's failure while it is down.
    ///
    /// # Errors
    /// A [`BackendError`] of the `database` while it is down.
    fn portal_up(&self) -> Result<RefMut<'_, PortalTables>, BackendError>;
}

impl PortalTables {
    /// The record a gate would read of a key made in the portal, with its digest.
    pub(crate) fn key_record(&self, digest: &str) -> Option<KeyRecord> {
        let new = self.keys.iter().find(|k| k.key.digest == digest)?;
        let partner = self.partners.get(&new.partner_id)?;
        let suspended = partner.status == PartnerStatus::Suspended;
        let k = &new.key;
        let account = AccountQuota::of_key(
            &k.id,
            k.kind,
            k.daily_limit,
            Some((&partner.id, partner.tier, partner.daily_limit)),
        );
        Some(KeyRecord {
            id: k.id.clone(),
            kind: k.kind,
            tier: k.tier,
            daily_limit: k.daily_limit,
            issued_at: k.issued_at,
            expires_at: k.expires_at,
            revoked_at: k.revoked_at,
            origins: k.origins.clone(),
            apis: k.apis.clone(),
            suspended,
            ip_ranges: k.ip_ranges.clone(),
            account,
        })
    }
}

impl<T: HoldsPortalTables> PortalStore for T {
    async fn put_ceremony(&self, ceremony: &Ceremony) -> Result<(), BackendError> {
        self.portal_up()?
            .ceremonies
            .insert(ceremony.id.clone(), ceremony.clone());
        Ok(())
    }

    async fn take_ceremony(&self, id: &str) -> Result<Option<Ceremony>, BackendError> {
        Ok(self.portal_up()?.ceremonies.remove(id))
    }

    async fn create_partner(
        &self,
        partner: &Partner,
        passkey: &Passkey,
        audit: &[AuditEntry],
    ) -> Result<(), BackendError> {
        let mut tables = self.portal_up()?;
        tables.partners.insert(partner.id.clone(), partner.clone());
        tables.passkeys.push(passkey.clone());
        tables.audit.extend_from_slice(audit);
        Ok(())
    }

    async fn partner(&self, id: &str) -> Result<Option<Partner>, BackendError> {
        Ok(self.portal_up()?.partners.get(id).cloned())
    }

    async fn passkey(&self, credential_id: &str) -> Result<Option<Passkey>, BackendError> {
        Ok(self
            .portal_up()?
            .passkeys
            .iter()
            .find(|p| p.credential_id == credential_id)
            .cloned())
    }

    async fn passkeys_of(&self, partner_id: &str) -> Result<Vec<Passkey>, BackendError> {
        Ok(self
            .portal_up()?
            .passkeys
            .iter()
            .filter(|p| p.partner_id == partner_id)
            .cloned()
            .collect())
    }

    async fn add_passkey(
        &self,
        passkey: &Passkey,
        audit: &[AuditEntry],
    ) -> Result<(), BackendError> {
        let mut tables = self.portal_up()?;
        tables.passkeys.push(passkey.clone());
        tables.audit.extend_from_slice(audit);
        Ok(())
    }

    async fn remove_passkey(
        &self,
        partner_id: &str,
        credential_id: &str,
        audit: &[AuditEntry],
    ) -> Result<bool, BackendError> {
        let mut tables = self.portal_up()?;
        let held = tables
            .passkeys
            .iter()
            .filter(|p| p.partner_id == partner_id)
            .count();
        let before = tables.passkeys.len();
        if held > 1 {
            tables
                .passkeys
                .retain(|p| !(p.partner_id == partner_id && p.credential_id == credential_id));
        }
        let removed = tables.passkeys.len() < before;
        if removed {
            tables.audit.extend_from_slice(audit);
        }
        Ok(removed)
    }

    async fn enrolment(
        &self,
        digest: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<String>, BackendError> {
        Ok(self
            .portal_up()?
            .enrolments
            .get(digest)
            .filter(|(_, expires, used)| used.is_none() && *expires > now)
            .map(|(partner, _, _)| partner.clone()))
    }

    async fn use_enrolment(&self, digest: &str, now: DateTime<Utc>) -> Result<bool, BackendError> {
        let mut tables = self.portal_up()?;
        let Some((_, expires, used)) = tables.enrolments.get_mut(digest) else {
            return Ok(false);
        };
        if used.is_some() || *expires <= now {
            return Ok(false);
        }
        *used = Some(now);
        Ok(true)
    }

    async fn passkey_used(
        &self,
        credential_id: &str,
        (previous, stored): (&str, &str),
        at: DateTime<Utc>,
    ) -> Result<bool, BackendError> {
        let mut tables = self.portal_up()?;
        let Some(p) = tables
            .passkeys
            .iter_mut()
            .find(|p| p.credential_id == credential_id && p.stored == previous)
        else {
            return Ok(false);
        };
        stored.clone_into(&mut p.stored);
        p.last_used_at = Some(at);
        Ok(true)
    }

    async fn put_session(
        &self,
        session: &Session,
        audit: &[AuditEntry],
    ) -> Result<(), BackendError> {
        let mut tables = self.portal_up()?;
        tables
            .sessions
            .insert(session.digest.clone(), session.clone());
        tables.audit.extend_from_slice(audit);
        Ok(())
    }

    async fn session(&self, digest: &str) -> Result<Option<Session>, BackendError> {
        let mut tables = self.portal_up()?;
        tables.session_reads += 1;
        Ok(tables.sessions.get(digest).cloned())
    }

    async fn touch_session(&self, digest: &str, at: DateTime<Utc>) -> Result<(), BackendError> {
        if let Some(s) = self.portal_up()?.sessions.get_mut(digest) {
            s.last_seen_at = at;
        }
        Ok(())
    }

    async fn end_session(
        &self,
        digest: &str,
        at: DateTime<Utc>,
        audit: &[AuditEntry],
    ) -> Result<(), BackendError> {
        let mut tables = self.portal_up()?;
        if let Some(s) = tables.sessions.get_mut(digest)
            && s.ended_at.is_none()
        {
            s.ended_at = Some(at);
            tables.audit.extend_from_slice(audit);
        }
        Ok(())
    }

    async fn end_sessions(
        &self,
        partner_id: &str,
        started_by: Option<&str>,
        at: DateTime<Utc>,
        audit: &[AuditEntry],
    ) -> Result<(), BackendError> {
        let mut tables = self.portal_up()?;
        let mut ended = false;
        for s in tables.sessions.values_mut() {
            if s.partner_id == partner_id
                && started_by.is_none_or(|c| s.credential_id.as_deref() == Some(c))
                && s.ended_at.is_none()
            {
                s.ended_at = Some(at);
                ended = true;
            }
        }
        if ended {
            tables.audit.extend_from_slice(audit);
        }
        Ok(())
    }

    async fn sweep(
        &self,
        sessions_before: DateTime<Utc>,
        keys_before: DateTime<Utc>,
    ) -> Result<(u32, u32), BackendError> {
        let mut tables = self.portal_up()?;
        let (sessions, keys) = (tables.sessions.len(), tables.keys.len());
        tables.sessions.retain(|_, s| {
            s.created_at >= sessions_before && s.ended_at.is_none_or(|t| t >= sessions_before)
        });
        tables.keys.retain(|k| {
            k.key.revoked_at.is_none_or(|t| t >= keys_before)
                && k.key.expires_at.is_none_or(|t| t >= keys_before)
        });
        let gone = |before: usize, after: usize| u32::try_from(before - after).unwrap_or(u32::MAX);
        Ok((
            gone(sessions, tables.sessions.len()),
            gone(keys, tables.keys.len()),
        ))
    }

    async fn keys_of(&self, partner_id: &str) -> Result<Vec<PartnerKey>, BackendError> {
        let mut keys: Vec<PartnerKey> = self
            .portal_up()?
            .keys
            .iter()
            .filter(|k| k.partner_id == partner_id)
            .map(|k| k.key.clone())
            .collect();
        keys.reverse();
        keys.sort_by_key(|k| std::cmp::Reverse(k.issued_at));
        Ok(keys)
    }

    async fn insert_key(
        &self,
        key: &NewKey,
        cap: KeyCap,
        audit: &[AuditEntry],
    ) -> Result<bool, BackendError> {
        let mut tables = self.portal_up()?;
        if !cap.allows(in_force(&tables.keys, &key.partner_id, cap.now), 0) {
            return Ok(false);
        }
        tables.keys.push(key.clone());
        tables.audit.extend_from_slice(audit);
        Ok(true)
    }

    async fn revoke_key(
        &self,
        partner_id: &str,
        id: &str,
        at: DateTime<Utc>,
        audit: &[AuditEntry],
    ) -> Result<bool, BackendError> {
        let mut tables = self.portal_up()?;
        let found = tables
            .keys
            .iter_mut()
            .find(|k| k.partner_id == partner_id && k.key.id == id && k.key.revoked_at.is_none());
        let revoked = found.map(|k| k.key.revoked_at = Some(at)).is_some();
        if revoked {
            tables.audit.extend_from_slice(audit);
        }
        Ok(revoked)
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
        let mut tables = self.portal_up()?;
        let held = in_force(&tables.keys, partner_id, cap.now);
        if !cap.allows(held, usize::from(old_expires_at <= cap.now)) {
            return Ok(false);
        }
        let Some(found) = tables.keys.iter_mut().find(|k| {
            k.partner_id == partner_id
                && k.key.id == old
                && k.key.revoked_at.is_none()
                && k.key.rolled_to.is_none()
        }) else {
            return Ok(false);
        };
        found.key.rolled_to = Some(new.key.id.clone());
        found.key.expires_at = Some(old_expires_at);
        tables.keys.push(new.clone());
        tables.audit.extend_from_slice(audit);
        Ok(true)
    }

    async fn count_request(
        &self,
        bucket: &str,
        window: DateTime<Utc>,
    ) -> Result<u32, BackendError> {
        let mut tables = self.portal_up()?;
        tables
            .requests
            .retain(|(_, start), _| *start > window - chrono::TimeDelta::hours(1));
        let count = tables
            .requests
            .entry((bucket.to_owned(), window))
            .or_default();
        *count += 1;
        Ok(*count)
    }

    async fn audit(&self, entry: &AuditEntry) -> Result<(), BackendError> {
        self.portal_up()?.audit.push(entry.clone());
        Ok(())
    }

    async fn audit_of(
        &self,
        partner_id: &str,
        limit: u32,
    ) -> Result<Vec<AuditEntry>, BackendError> {
        Ok(self
            .portal_up()?
            .audit
            .iter()
            .rev()
            .filter(|e| e.partner_id == partner_id)
            .take(limit as usize)
            .cloned()
            .collect())
    }

    async fn audit_all(&self, limit: u32) -> Result<Vec<AuditEntry>, BackendError> {
        Ok(self
            .portal_up()?
            .audit
            .iter()
            .rev()
            .take(limit as usize)
            .cloned()
            .collect())
    }

    async fn partners_page(
        &self,
        after: Option<(DateTime<Utc>, &str)>,
        limit: u32,
    ) -> Result<Vec<Partner>, BackendError> {
        let mut all: Vec<Partner> = self.portal_up()?.partners.values().cloned().collect();
        all.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
        all.retain(|p| after.is_none_or(|(at, id)| (p.created_at, p.id.as_str()) > (at, id)));
        all.truncate(limit as usize);
        Ok(all)
    }

    async fn set_partner_status(
        &self,
        id: &str,
        from: &[PartnerStatus],
        to: PartnerStatus,
        audit: &[AuditEntry],
    ) -> Result<bool, BackendError> {
        let mut tables = self.portal_up()?;
        let Some(partner) = tables
            .partners
            .get_mut(id)
            .filter(|p| from.contains(&p.status))
        else {
            return Ok(false);
        };
        partner.status = to;
        tables.audit.extend_from_slice(audit);
        Ok(true)
    }

    async fn set_partner_tier(
        &self,
        id: &str,
        tier: Tier,
        daily_limit: Option<u32>,
        audit: &[AuditEntry],
    ) -> Result<(), BackendError> {
        let mut tables = self.portal_up()?;
        if let Some(partner) = tables.partners.get_mut(id) {
            partner.tier = tier;
            partner.daily_limit = daily_limit;
            tables.audit.extend_from_slice(audit);
        }
        Ok(())
    }
}

/// The account's keys in force at `now`.
fn in_force(keys: &[NewKey], partner_id: &str, now: DateTime<Utc>) -> usize {
    keys.iter()
        .filter(|k| k.partner_id == partner_id && k.key.is_in_force(now))
        .count()
}
