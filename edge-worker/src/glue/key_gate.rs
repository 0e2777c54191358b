//! The key gate Durable Object: one per key digest, holding the key's record (read
//! from D1 at most every `HEXRISK_KEY_RECORD_TTL_SECONDS`) and its daily count. What
//! it decides (and the blocks of quota it grants isolates) is
//! [`crate::api::gate::admit`]; this file only keeps state and storage.

use std::cell::RefCell;

use worker::{DurableObject, Env, Request, Response, State, durable_object, wasm_bindgen};

use crate::api::gate::{self, BlockReturns, GateRequest, RecordCache, UsageLog};
use crate::api::keys::{KEY_ROW_COLUMNS, KEY_ROW_TABLES, KeyRecord, KeyRow};

/// The Worker's binding of the gates (`wrangler.toml`).
pub(super) const BINDING: &str = "KEY_GATE";

/// The address the Worker sends a gate a request to check and count at.
pub(super) const URL: &str = "https://key-gate.invalid/admit";

/// The address the Worker returns ended blocks of a key's quota at.
pub(super) const RETURN_URL: &str = "https://key-gate.invalid/return";

/// The address the Worker asks a gate for its key's usage log at.
pub(super) const USAGE_URL: &str = "https://key-gate.invalid/usage";

/// The storage key of the usage log.
const USAGE: &str = "usage";

/// The storage key of the one day's count gates stored before they kept a log.
const COUNT: &str = "count";

/// What [`COUNT`] holds.
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

/// One key's gate.
#[durable_object]
pub struct KeyGate {
    state: State,
    env: Env,
    record: RefCell<RecordCache>,
    /// The stored usage log, once read (`None` before the first request).
    log: RefCell<Option<UsageLog>>,
}

impl DurableObject for KeyGate {
    fn new(state: State, env: Env) -> Self {
        let ttl = env
            .var("HEXRISK_KEY_RECORD_TTL_SECONDS")
            .ok()
            .map(|v| v.to_string());
        Self {
            state,
            env,
            record: RefCell::new(RecordCache::new(gate::record_ttl(ttl.as_deref()))),
            log: RefCell::new(None),
        }
    }

    async fn fetch(&self, mut request: Request) -> worker::Result<Response> {
        if request.url()?.as_str() == USAGE_URL {
            return match self.load_log().await {
                Ok(()) => Response::from_json(&self.log.borrow().clone().unwrap_or_default()),
                Err(err) => Response::error(format!("gate: {err}"), 500),
            };
        }
        if request.url()?.as_str() == RETURN_URL {
            let Ok(returns) = request.json::<BlockReturns>().await else {
                return Response::error("bad block returns", 400);
            };
            return match self.settle(&returns).await {
                Ok(()) => Response::ok("settled"),
                Err(err) => Response::error(format!("gate: {err}"), 500),
            };
        }
        let Ok(asked) = request.json::<GateRequest>().await else {
            return Response::error("bad gate request", 400);
        };
        match self.admit(&asked).await {
            Ok(admission) => Response::from_json(&admission),
            // Answered, not thrown: `WorkerBackend::admit` logs it once, with the cause.
            Err(err) => Response::error(format!("gate: {err}"), 500),
        }
    }
}

impl KeyGate {
    /// Reads the stored log into memory once (from the older one-day count if that
    /// is what the object stored).
    async fn load_log(&self) -> worker::Result<()> {
        if self.log.borrow().is_some() {
            return Ok(());
        }
        let storage = self.state.storage();
        let stored: Option<UsageLog> = storage.get(USAGE).await?;
        let log = match stored {
            Some(log) => log,
            None => storage
                .get::<StoredCount>(COUNT)
                .await?
                .map(|c| UsageLog::from_count(c.day, c.used))
                .unwrap_or_default(),
        };
        self.log.borrow_mut().get_or_insert(log);
        Ok(())
    }

    /// Settles blocks an isolate returned without a request, and stores the log.
    async fn settle(&self, returns: &BlockReturns) -> worker::Result<()> {
        self.load_log().await?;
        let to_store = {
            let mut log = self.log.borrow_mut();
            let log = log.get_or_insert_with(UsageLog::default);
            gate::settle(log, &returns.returned).then(|| log.clone())
        };
        if let Some(log) = to_store {
            self.state.storage().put(USAGE, log).await?;
        }
        Ok(())
    }

    async fn admit(&self, asked: &GateRequest) -> worker::Result<gate::Admission> {
        self.load_log().await?;
        let cached = self
            .record
            .borrow()
            .current(asked.now)
            .map(Option::<&KeyRecord>::cloned);
        let record = if let Some(record) = cached {
            record
        } else {
            let read = key_by_digest(&self.env, &asked.digest)
                .await
                .map_err(|e| worker::Error::RustError(format!("key store: {e}")))?;
            self.record.borrow_mut().store(read.clone(), asked.now);
            read
        };
        // Decided and counted in memory with nothing awaited in between, so
        // concurrent requests are counted one after the other.
        let record_until = self.record.borrow().until().unwrap_or(asked.now);
        let (admission, to_store) = {
            let mut log = self.log.borrow_mut();
            let log = log.get_or_insert_with(UsageLog::default);
            let (admission, changed) = gate::admit(record.as_ref(), log, asked, record_until);
            (admission, changed.then(|| log.clone()))
        };
        if let Some(log) = to_store {
            self.state.storage().put(USAGE, log).await?;
        }
        Ok(admission)
    }
}
