//! What the API needs from its environment: the key gates, the key store, the
//! portal's store ([`PortalStore`]), and the model store with what it reads through
//! ([`ModelEnvironment`]). The Worker
//! implements it over Durable Objects, D1 and R2; tests in memory, the portal's store
//! on SQLite.

use std::cell::RefCell;

use bytes::Bytes;

use super::backend_error::BackendError;
use super::models::{ModelEnvironment, ModelStore};
use super::partners::config::PortalConfig;
use super::partners::store::PortalStore;
use crate::api::access::gate::{Admission, GateRequest, KeyUsage};
use crate::api::access::held_blocks::HeldBlocks;

/// How long the data centre's cache keeps a computed answer. Its key names the
/// artifact and the code it was made from, so a new model or deploy never meets an
/// old answer; the lifetime only bounds what the cache holds.
pub const CACHED_ANSWER_SECONDS: u32 = 7 * 24 * 3600;

/// The environment of the API: the model store's environment, the portal's
/// store, and the rest.
#[allow(async_fn_in_trait)] // used single-threaded, on workerd and in tests
pub trait Backend: ModelEnvironment + PortalStore {
    /// Where the partner portal is served, or `None` when this deployment has no
    /// portal (`HEXRISK_PORTAL_ORIGIN`).
    fn portal(&self) -> Option<&PortalConfig>;

    /// Asks the gate of the account of the key whose digest is `request.digest` to
    /// check and count one request ([`crate::api::access::gate::admit`]): the one storage round
    /// trip of an authenticated request that has no block of the key's quota to
    /// spend (and, the first time an isolate sees the key, a read of the key store
    /// to learn its account: [`crate::api::access::gate::directory`]).
    async fn admit(&self, request: &GateRequest) -> Result<Admission, BackendError>;

    /// The isolate's blocks of keys' quotas ([`HeldBlocks`]), kept across requests.
    fn held_blocks(&self) -> &RefCell<HeldBlocks>;

    /// The usage logs of the key whose digest is `digest` and of its account, as
    /// their gate keeps them (empty for a key never asked about).
    async fn usage(&self, digest: &str) -> Result<KeyUsage, BackendError>;

    /// The isolate's model store, which reads through this backend's
    /// [`ModelEnvironment`].
    fn models(&self) -> &ModelStore;

    /// The bytes the data centre's cache of computed answers (the Workers cache)
    /// keeps under `key`, a URL; `None` on a miss. A cache that fails is a miss,
    /// logged: the answer is computed again.
    async fn cached_answer(&self, key: &str) -> Option<Bytes>;

    /// Keeps `bytes` under `key` in that cache for [`CACHED_ANSWER_SECONDS`], at
    /// the latest once the answer is sent (the Worker writes after it). A failure is
    /// logged and otherwise ignored, as a miss is.
    async fn keep_answer(&self, key: &str, bytes: &Bytes);

    /// Whether the key store answers, and if not why.
    async fn check_database(&self) -> Result<(), BackendError>;

    /// Notes a request refused for a reason its client is not told (a sign-in with
    /// an unknown passkey, an application's failed ceremony): a warning for whoever
    /// watches for attacks, not a failure of the service.
    fn log_refusal(&self, area: &str, why: &str);
}
