//! The key gate Durable Object: one per key digest, holding the key's record (read
//! from D1 at most every `HEXRISK_KEY_RECORD_TTL_SECONDS`) and its daily count. What
//! it decides is [`crate::api::gate::admit`]; this file only keeps state and storage.

use std::cell::RefCell;

use worker::{DurableObject, Env, Request, Response, State, durable_object, wasm_bindgen};

use crate::api::gate::{self, DailyCount, GateRequest, RecordCache};
use crate::api::keys::{KEY_ROW_COLUMNS, KEY_ROW_TABLES, KeyRecord, KeyRow};

/// The Worker's binding of the gates (`wrangler.toml`).
pub(super) const BINDING: &str = "KEY_GATE";

/// The address the Worker sends a gate its question at (a gate has one operation).
pub(super) const URL: &str = "https://key-gate.invalid/admit";

/// The storage key of the daily count.
const COUNT: &str = "count";

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
    /// The stored count, once read (`None` before the first request).
    count: RefCell<Option<DailyCount>>,
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
            count: RefCell::new(None),
        }
    }

    async fn fetch(&self, mut request: Request) -> worker::Result<Response> {
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
    async fn admit(&self, asked: &GateRequest) -> worker::Result<gate::Admission> {
        if self.count.borrow().is_none() {
            let stored: Option<DailyCount> = self.state.storage().get(COUNT).await?;
            self.count
                .borrow_mut()
                .get_or_insert(stored.unwrap_or_default());
        }
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
        let (admission, to_store) = {
            let mut count = self.count.borrow_mut();
            let count = count.get_or_insert_with(DailyCount::default);
            let (admission, counted) = gate::admit(record.as_ref(), count, asked);
            (admission, counted.then_some(*count))
        };
        if let Some(count) = to_store {
            self.state.storage().put(COUNT, count).await?;
        }
        Ok(admission)
    }
}
