//! An in-memory [`Backend`]: two keys, their gates' counts, a model bucket, the
//! portal's tables in SQLite ([`Sqlite`]), and the failures it is asked to log.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use hexrisk_engine::artifact;
use sha2::{Digest, Sha256};

use super::fixtures::{atlas, bucket, now};
use super::portal_tables::PortalTables;
use super::sqlite::Sqlite;
use crate::api::access::gate::{self, Admission, GateLogs, GateRequest, KeyUsage};
use crate::api::access::held_blocks::HeldBlocks;
use crate::api::access::keys::{
    AccountQuota, KEY_ROW_COLUMNS, KEY_ROW_TABLES, KeyApi, KeyKind, KeyRecord, KeyRow,
    PresentedKey, Tier,
};
use crate::api::backend::Backend;
use crate::api::backend_error::BackendError;
use crate::api::models::{ModelEnvironment, ModelStore, StoreSettings};
use crate::api::partners::config::{ClientAddress, PortalConfig};
use crate::api::partners::sql::{Outcome, SqlDatabase, SqlError, Statement};

/// A sandbox key with a daily limit of 3 and no origins.
pub(crate) const SANDBOX_KEY: &str = "hexrisk_sandbox_AbCdEfGhIjKlMnOpQrStUvWxYz012345";
/// A live partner key that lists [`DEMO_ORIGIN`].
pub(crate) const LIVE_KEY: &str = "hexrisk_live_0123456789abcdefghijABCDEFGHIJKL";
/// The one browser origin a key lists.
pub(crate) const DEMO_ORIGIN: &str = "http://127.0.0.1:8080";
/// The portal's origin.
pub(crate) const PORTAL_ORIGIN: &str = "http://localhost:8787";

/// An in-memory backend that keeps the failures it is asked to log.
pub(crate) struct MemoryBackend {
    pub(crate) keys: HashMap<String, KeyRecord>,
    /// What each account's gate keeps, by the gate's name.
    pub(crate) gates: RefCell<HashMap<String, GateLogs>>,
    /// The model bucket: file name to bytes.
    pub(crate) files: RefCell<HashMap<String, Vec<u8>>>,
    /// The bucket files read, in order.
    pub(crate) reads: RefCell<Vec<String>>,
    pub(crate) store: ModelStore,
    /// The key store (keys, origins) answers.
    pub(crate) database_up: bool,
    /// The key gates answer.
    pub(crate) gates_up: bool,
    /// The failures passed to `log_failure`, in order.
    pub(crate) logged: RefCell<Vec<BackendError>>,
    /// The refusals passed to `log_refusal`, as `area: why`, in order.
    pub(crate) refusals: RefCell<Vec<String>>,
    /// Bucket reads wait once, as a network read would, so that concurrent requests
    /// interleave.
    pub(crate) slow_reads: bool,
    /// The pauses requests took on their own timers.
    pub(crate) pauses: Cell<usize>,
    /// The isolate's blocks of keys' quotas.
    pub(crate) held_blocks: RefCell<HeldBlocks>,
    /// Where the portal is served ([`PORTAL_ORIGIN`]), or no portal.
    pub(crate) portal: Option<PortalConfig>,
    /// The portal's database, and the key store of the keys made in the portal.
    pub(crate) portal_db: Sqlite,
    /// The data centre's cache of computed answers, by key.
    pub(crate) answers: RefCell<HashMap<String, bytes::Bytes>>,
    /// How many answers that cache gave back.
    pub(crate) answer_hits: Cell<usize>,
}

/// A future that is pending once, then ready.
struct YieldOnce(bool);

impl Future for YieldOnce {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            Poll::Ready(())
        } else {
            self.0 = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }
}

fn record(id: &str, kind: KeyKind, tier: Tier, limit: u32) -> KeyRecord {
    KeyRecord {
        id: id.into(),
        kind,
        tier,
        daily_limit: limit,
        issued_at: now() - chrono::Duration::days(1),
        expires_at: (kind == KeyKind::Sandbox).then(|| now() + chrono::Duration::days(29)),
        revoked_at: None,
        origins: Vec::new(),
        apis: KeyApi::ALL.to_vec(),
        suspended: false,
        ip_ranges: Vec::new(),
        account: AccountQuota::of_key(id, kind, limit, None),
    }
}

impl MemoryBackend {
    /// Both keys, every dependency up, the bucket serving [`atlas`].
    pub(crate) fn new() -> Self {
        let mut keys = HashMap::new();
        keys.insert(
            PresentedKey::new(SANDBOX_KEY).digest(),
            record("sandbox-1", KeyKind::Sandbox, Tier::Sandbox, 3),
        );
        keys.insert(
            PresentedKey::new(LIVE_KEY).digest(),
            KeyRecord {
                origins: vec![DEMO_ORIGIN.to_owned()],
                ..record("live-1", KeyKind::Live, Tier::Partner, 10_000)
            },
        );
        Self {
            keys,
            gates: RefCell::new(HashMap::new()),
            held_blocks: RefCell::new(HeldBlocks::default()),
            files: RefCell::new(bucket(&atlas())),
            reads: RefCell::new(Vec::new()),
            store: ModelStore::new(StoreSettings::default()),
            database_up: true,
            gates_up: true,
            logged: RefCell::new(Vec::new()),
            refusals: RefCell::new(Vec::new()),
            slow_reads: false,
            pauses: Cell::new(0),
            // The tests play the platform's CF-Connecting-IP on a local origin.
            portal: PortalConfig::from_var(Some(PORTAL_ORIGIN)).map(|c| PortalConfig {
                client_address: ClientAddress::Platform,
                ..c
            }),
            portal_db: Sqlite::migrated(),
            answers: RefCell::new(HashMap::new()),
            answer_hits: Cell::new(0),
        }
    }

    /// Removes every model file (the bucket is empty).
    pub(crate) fn without_models(self) -> Self {
        self.files.borrow_mut().clear();
        self
    }

    /// The record of the key whose digest is `digest`: one of the two fixed keys
    /// or one made in the portal, read as a gate reads it.
    pub(crate) fn record(&self, digest: &str) -> Option<KeyRecord> {
        self.keys.get(digest).cloned().or_else(|| {
            let sql = format!("SELECT {KEY_ROW_COLUMNS} FROM {KEY_ROW_TABLES} WHERE k.digest = ?1");
            let rows: Vec<KeyRow> = self.portal_db.rows(&sql, &[digest.into()]);
            rows.into_iter().next()?.into_record(digest)
        })
    }

    /// What the portal's tables hold now.
    pub(crate) fn tables(&self) -> PortalTables {
        PortalTables::of(&self.portal_db)
    }

    /// The portal's database answers, unless the test has it down.
    fn portal_up(&self) -> Result<(), SqlError> {
        if self.database_up {
            Ok(())
        } else {
            Err(SqlError::Database("down".to_owned()))
        }
    }

    /// The failures logged so far.
    pub(crate) fn logged(&self) -> Vec<BackendError> {
        self.logged.borrow().clone()
    }

    /// The refusals logged so far.
    pub(crate) fn refusals(&self) -> Vec<String> {
        self.refusals.borrow().clone()
    }
}

impl ModelEnvironment for MemoryBackend {
    async fn read_model_file(
        &self,
        key: &str,
        limit: u64,
    ) -> Result<Option<Vec<u8>>, BackendError> {
        self.reads.borrow_mut().push(key.to_owned());
        if self.slow_reads {
            YieldOnce(false).await;
        }
        match self.files.borrow().get(key) {
            Some(bytes) if bytes.len() as u64 > limit => Err(BackendError::new(
                "models",
                format!("{key} has {} bytes, more than {limit}", bytes.len()),
            )),
            found => Ok(found.cloned()),
        }
    }

    async fn sha256_hex(&self, bytes: &[u8]) -> Result<String, BackendError> {
        Ok(hex::encode(Sha256::digest(bytes)))
    }

    async fn inflate_zlib(&self, compressed: &[u8], limit: usize) -> Result<Vec<u8>, BackendError> {
        artifact::inflate(compressed)
            .ok()
            .filter(|plain| plain.len() <= limit)
            .ok_or_else(|| BackendError::new("models", "artifact body cannot be decompressed"))
    }

    async fn pause(&self, _ms: u32) {
        // Another task runs meanwhile, as another request would.
        self.pauses.set(self.pauses.get() + 1);
        YieldOnce(false).await;
    }

    fn log_failure(&self, err: &BackendError) {
        self.logged.borrow_mut().push(err.clone());
    }
}

/// The portal's database ([`Sqlite`]), unless the test has it down.
impl SqlDatabase for MemoryBackend {
    async fn execute(&self, statement: &Statement) -> Result<Outcome, SqlError> {
        self.portal_up()?;
        self.portal_db.execute(statement).await
    }

    async fn batch(&self, statements: &[Statement]) -> Result<Vec<Outcome>, SqlError> {
        self.portal_up()?;
        self.portal_db.batch(statements).await
    }
}

impl Backend for MemoryBackend {
    async fn admit(&self, request: &GateRequest) -> Result<Admission, BackendError> {
        if !self.gates_up {
            return Err(BackendError::new("keys", "gate unreachable"));
        }
        // A gate reading a key record from a failing store.
        if !self.database_up {
            return Err(BackendError::new("database", "down"));
        }
        let Some(record) = self.record(&request.digest) else {
            return Ok(Admission::UnknownKey);
        };
        let mut gates = self.gates.borrow_mut();
        let logs = gates.entry(record.account.gate.clone()).or_default();
        // A gate that rereads its record every minute, as the Worker's default.
        let record_until =
            request.now + chrono::TimeDelta::seconds(i64::from(gate::DEFAULT_RECORD_TTL_SECONDS));
        Ok(gate::admit(Some(&record), logs, request, record_until).0)
    }

    fn held_blocks(&self) -> &RefCell<HeldBlocks> {
        &self.held_blocks
    }

    async fn usage(&self, digest: &str) -> Result<KeyUsage, BackendError> {
        if !self.gates_up {
            return Err(BackendError::new("keys", "gate unreachable"));
        }
        let Some(record) = self.record(digest) else {
            return Ok(KeyUsage::default());
        };
        let gates = self.gates.borrow();
        let Some(logs) = gates.get(&record.account.gate) else {
            return Ok(KeyUsage::default());
        };
        Ok(KeyUsage {
            key: logs.keys.get(digest).cloned().unwrap_or_default(),
            account: logs.account.clone(),
        })
    }

    fn models(&self) -> &ModelStore {
        &self.store
    }

    fn portal(&self) -> Option<&PortalConfig> {
        self.portal.as_ref()
    }

    async fn cached_answer(&self, key: &str) -> Option<bytes::Bytes> {
        let kept = self.answers.borrow().get(key).cloned();
        if kept.is_some() {
            self.answer_hits.set(self.answer_hits.get() + 1);
        }
        kept
    }

    async fn keep_answer(&self, key: &str, bytes: &bytes::Bytes) {
        self.answers
            .borrow_mut()
            .insert(key.to_owned(), bytes.clone());
    }

    fn log_refusal(&self, area: &str, why: &str) {
        self.refusals.borrow_mut().push(format!("{area}: {why}"));
    }

    async fn check_database(&self) -> Result<(), BackendError> {
        if self.database_up {
            Ok(())
        } else {
            Err(BackendError::new("database", "down"))
        }
    }
}
