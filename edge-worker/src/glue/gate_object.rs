//! The account gate Durable Object: one per account and key kind (named
//! [`AccountQuota::gate`](crate::api::access::keys::AccountQuota)), holding the records of
//! its keys (each read from D1 at most every `HEXRISK_KEY_RECORD_TTL_SECONDS`), the
//! account's usage log and each key's. What it decides (and the blocks of quota it
//! grants isolates) is [`crate::api::access::gate::admit`]; this file only keeps state and
//! storage.
//!
//! Gates were once one per key digest. A key's log stored by such a gate is read
//! once, the first time the key's account gate sees the key, and its days added to
//! the account's ([`LEGACY_USAGE_PATH`]), so that no figure is lost.

use std::cell::RefCell;
use std::collections::HashMap;

use chrono::TimeDelta;
use worker::{DurableObject, Env, Request, Response, State, durable_object, js_sys, wasm_bindgen};

use crate::api::access::gate::directory::{GateDirectory, Lookup};
use crate::api::access::gate::{
    self, BlockReturns, GateLogs, GateRequest, KeyUsage, RecordCache, UsageLog,
};
use crate::api::access::keys::{KEY_ROW_COLUMNS, KEY_ROW_TABLES, KeyRecord, KeyRow};
use crate::api::backend_error::BackendError;

/// The Worker's binding of the gates (`wrangler.toml`).
pub(super) const BINDING: &str = "ACCOUNT_GATE";

/// Where a gate's addresses are (nothing leaves workerd).
const ORIGIN: &str = "https://account-gate.invalid";

/// The path the Worker sends a gate a request to check and count at.
pub(super) const ADMIT: &str = "/admit";

/// The path the Worker returns ended blocks of a key's quota at.
pub(super) const RETURN: &str = "/return";

/// The path the Worker asks a gate for a key's usage at (`?digest=`).
pub(super) const USAGE: &str = "/usage";

/// The path an account gate asks a gate named by a key's digest for the log it
/// kept when gates were one per key.
const LEGACY_USAGE_PATH: &str = "/legacy-usage";

/// The address of a gate's `path`.
pub(super) fn url(path: &str) -> String {
    format!("{ORIGIN}{path}")
}

/// The storage key of the account's log.
const ACCOUNT: &str = "account";

/// The storage key of a key's log: this, then its digest.
const KEY_PREFIX: &str = "key:";

/// The storage key of the log a gate kept when it was one key's.
const LEGACY_USAGE: &str = "usage";

/// The storage key of the one day's count such gates stored before they kept a log.
const LEGACY_COUNT: &str = "count";

/// Records a gate keeps at most (an account has at most 20 keys in force).
const MAX_RECORDS: usize = 256;

/// What [`LEGACY_COUNT`] holds.
#[derive(serde::Deserialize)]
struct StoredCount {
    day: chrono::NaiveDate,
    used: u32,
}

/// The record of the key whose digest is `digest`, from the key store.
pub(super) async fn key_by_digest(env: &Env, digest: &str) -> worker::Result<Option<KeyRecord>> {
    let row: Option<KeyRow> = env
        .d1("KEYS")?
        .prepare(format!(
            "SELECT {KEY_ROW_COLUMNS} FROM {KEY_ROW_TABLES} WHERE k.digest = ?1"
        ))
        .bind(&[digest.into()])?
        .first(None)
        .await?;
    Ok(row.and_then(|r| r.into_record(digest)))
}

/// The name of the gate of the key whose digest is `digest`, as the isolate's
/// `directory` knows it or, the first time, from the key store; with the record
/// read then. `None`: no key has this digest.
pub(super) async fn gate_of(
    env: &Env,
    directory: &RefCell<GateDirectory>,
    digest: &str,
    now: chrono::DateTime<chrono::Utc>,
) -> worker::Result<Option<(String, Option<KeyRecord>)>> {
    match directory.borrow().lookup(digest, now) {
        Lookup::Gate(name) => return Ok(Some((name.to_owned(), None))),
        Lookup::NoKey => return Ok(None),
        Lookup::Ask => {}
    }
    let record = key_by_digest(env, digest).await?;
    directory.borrow_mut().learn(digest, record.as_ref(), now);
    Ok(record.map(|r| (r.account.gate.clone(), Some(r))))
}

/// The gate named `name`.
pub(super) fn stub(env: &Env, name: &str) -> worker::Result<worker::Stub> {
    env.durable_object(BINDING)?.get_by_name(name)
}

/// What a gate answered, read as `T`: anything but a 200 is the gate's own failure,
/// with the cause its body gives ([`AccountGate::fetch`]).
pub(super) async fn answer_of<T: serde::de::DeserializeOwned>(
    mut answer: Response,
) -> Result<T, BackendError> {
    if answer.status_code() != 200 {
        let status = answer.status_code();
        let text = answer.text().await.unwrap_or_default();
        return Err(BackendError::new(
            "keys",
            format!("gate answered HTTP {status}: {text}"),
        ));
    }
    answer
        .json::<T>()
        .await
        .map_err(|e| BackendError::new("keys", e.to_string()))
}

/// One account's gate.
#[durable_object]
pub struct AccountGate {
    state: State,
    env: Env,
    ttl: TimeDelta,
    /// Each key's record, by digest.
    records: RefCell<HashMap<String, RecordCache>>,
    /// The logs read so far (`None` before the first request): the account's, and
    /// the keys' asked about.
    logs: RefCell<Option<GateLogs>>,
}

impl DurableObject for AccountGate {
    fn new(state: State, env: Env) -> Self {
        let ttl = env
            .var("HEXRISK_KEY_RECORD_TTL_SECONDS")
            .ok()
            .map(|v| v.to_string());
        Self {
            state,
            env,
            ttl: gate::record_ttl(ttl.as_deref()),
            records: RefCell::new(HashMap::new()),
            logs: RefCell::new(None),
        }
    }

    async fn fetch(&self, mut request: Request) -> worker::Result<Response> {
        let url = request.url()?;
        let failed = |err: worker::Error| Response::error(format!("gate: {err}"), 500);
        match url.path() {
            USAGE => {
                let digest = url
                    .query_pairs()
                    .find(|(name, _)| name == "digest")
                    .map(|(_, value)| value.into_owned())
                    .unwrap_or_default();
                match self.usage(&digest).await {
                    Ok(usage) => Response::from_json(&usage),
                    Err(err) => failed(err),
                }
            }
            LEGACY_USAGE_PATH => match self.legacy_log().await {
                Ok(log) => Response::from_json(&log),
                Err(err) => failed(err),
            },
            RETURN => {
                let Ok(returns) = request.json::<BlockReturns>().await else {
                    return Response::error("bad block returns", 400);
                };
                match self.settle(&returns).await {
                    Ok(()) => Response::ok("settled"),
                    Err(err) => failed(err),
                }
            }
            _ => {
                let Ok(asked) = request.json::<GateRequest>().await else {
                    return Response::error("bad gate request", 400);
                };
                // Answered, not thrown: `WorkerBackend::admit` logs it once, with the
                // cause.
                match self.admit(&asked).await {
                    Ok(admission) => Response::from_json(&admission),
                    Err(err) => failed(err),
                }
            }
        }
    }
}

impl AccountGate {
    /// Reads the account's log and the key `digest`'s into memory, once each. A key
    /// this gate has never stored a log of brings the log its own gate kept when
    /// gates were one per key, and its days join the account's.
    async fn load(&self, digest: &str) -> worker::Result<()> {
        let storage = self.state.storage();
        if self.logs.borrow().is_none() {
            let account: Option<UsageLog> = storage.get(ACCOUNT).await?;
            let mut logs = self.logs.borrow_mut();
            logs.get_or_insert_with(|| GateLogs {
                account: account.unwrap_or_default(),
                ..GateLogs::default()
            });
        }
        if self
            .logs
            .borrow()
            .as_ref()
            .is_some_and(|l| l.keys.contains_key(digest))
        {
            return Ok(());
        }
        let stored: Option<UsageLog> = storage.get(&format!("{KEY_PREFIX}{digest}")).await?;
        let (log, imported) = match stored {
            Some(log) => (log, false),
            None => (self.legacy_log_of(digest).await?, true),
        };
        let to_store = {
            let mut logs = self.logs.borrow_mut();
            let logs = logs.get_or_insert_with(GateLogs::default);
            // Another request of the key may have loaded it meanwhile.
            if logs.keys.contains_key(digest) {
                return Ok(());
            }
            if imported {
                for day in &log.days {
                    logs.account.add_used(day.day, day.used);
                }
            }
            logs.keys.insert(digest.to_owned(), log);
            imported.then(|| Self::entries(logs, digest)).transpose()?
        };
        if let Some(entries) = to_store {
            self.store(entries).await?;
        }
        Ok(())
    }

    /// The log the gate named `digest` kept when gates were one per key (empty if
    /// none).
    async fn legacy_log_of(&self, digest: &str) -> worker::Result<UsageLog> {
        let mut answer = stub(&self.env, digest)?
            .fetch_with_str(&url(LEGACY_USAGE_PATH))
            .await?;
        if answer.status_code() != 200 {
            return Err(worker::Error::RustError(format!(
                "a key's former gate answered HTTP {}",
                answer.status_code()
            )));
        }
        answer.json::<UsageLog>().await
    }

    /// This object's log from when it was one key's gate (from the older one-day
    /// count if that is what it stored).
    async fn legacy_log(&self) -> worker::Result<UsageLog> {
        let storage = self.state.storage();
        if let Some(log) = storage.get::<UsageLog>(LEGACY_USAGE).await? {
            return Ok(log);
        }
        Ok(storage
            .get::<StoredCount>(LEGACY_COUNT)
            .await?
            .map(|c| UsageLog::from_count(c.day, c.used))
            .unwrap_or_default())
    }

    /// The account's log and the key `digest`'s, as one write's entries.
    fn entries(logs: &GateLogs, digest: &str) -> worker::Result<js_sys::Object> {
        let entries = js_sys::Object::new();
        let put = |name: &str, log: &UsageLog| -> worker::Result<()> {
            let value = serde_wasm_bindgen::to_value(log)
                .map_err(|e| worker::Error::RustError(e.to_string()))?;
            js_sys::Reflect::set(&entries, &name.into(), &value)?;
            Ok(())
        };
        put(ACCOUNT, &logs.account)?;
        if let Some(key) = logs.keys.get(digest) {
            put(&format!("{KEY_PREFIX}{digest}"), key)?;
        }
        Ok(entries)
    }

    /// Writes `entries` at once.
    async fn store(&self, entries: js_sys::Object) -> worker::Result<()> {
        self.state.storage().put_multiple_raw(entries).await
    }

    async fn usage(&self, digest: &str) -> worker::Result<KeyUsage> {
        self.load(digest).await?;
        let logs = self.logs.borrow();
        let logs = logs.as_ref();
        Ok(KeyUsage {
            key: logs
                .and_then(|l| l.keys.get(digest))
                .cloned()
                .unwrap_or_default(),
            account: logs.map(|l| l.account.clone()).unwrap_or_default(),
        })
    }

    /// Settles blocks an isolate returned without a request, and stores the logs.
    async fn settle(&self, returns: &BlockReturns) -> worker::Result<()> {
        self.load(&returns.digest).await?;
        let to_store = {
            let mut logs = self.logs.borrow_mut();
            let logs = logs.get_or_insert_with(GateLogs::default);
            gate::settle(logs, &returns.digest, &returns.returned)
                .then(|| Self::entries(logs, &returns.digest))
                .transpose()?
        };
        if let Some(entries) = to_store {
            self.store(entries).await?;
        }
        Ok(())
    }

    /// The key's record at `asked.now`: the one kept, else the one the Worker read
    /// for this request, else a read of the key store.
    async fn record(
        &self,
        asked: &GateRequest,
    ) -> worker::Result<(Option<KeyRecord>, chrono::DateTime<chrono::Utc>)> {
        let kept = self.records.borrow().get(&asked.digest).and_then(|cache| {
            cache
                .current(asked.now)
                .map(|record| (record.cloned(), cache.until().unwrap_or(asked.now)))
        });
        if let Some(kept) = kept {
            return Ok(kept);
        }
        let read = match &asked.record {
            Some(record) => Some(record.clone()),
            None => key_by_digest(&self.env, &asked.digest)
                .await
                .map_err(|e| worker::Error::RustError(format!("key store: {e}")))?,
        };
        let mut records = self.records.borrow_mut();
        if records.len() >= MAX_RECORDS && !records.contains_key(&asked.digest) {
            records.clear();
        }
        let cache = records
            .entry(asked.digest.clone())
            .or_insert_with(|| RecordCache::new(self.ttl));
        cache.store(read.clone(), asked.now);
        Ok((read, cache.until().unwrap_or(asked.now)))
    }

    async fn admit(&self, asked: &GateRequest) -> worker::Result<gate::Admission> {
        self.load(&asked.digest).await?;
        let (record, record_until) = self.record(asked).await?;
        // Decided and counted in memory with nothing awaited in between, so
        // concurrent requests of every key of the account are counted one after
        // the other.
        let (admission, to_store) = {
            let mut logs = self.logs.borrow_mut();
            let logs = logs.get_or_insert_with(GateLogs::default);
            let (admission, changed) = gate::admit(record.as_ref(), logs, asked, record_until);
            let entries = changed.then(|| Self::entries(logs, &asked.digest));
            (admission, entries.transpose()?)
        };
        if let Some(entries) = to_store {
            self.store(entries).await?;
        }
        Ok(admission)
    }
}
