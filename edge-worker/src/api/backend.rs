//! What the API needs from its environment: the key gates, the key store and the
//! model files. The Worker implements it over Durable Objects, D1 and R2; tests
//! implement it in memory.

use super::gate::{Admission, GateRequest};
use super::models::ModelStore;

/// A failure of a dependency (store, counter or model files).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{component} unavailable: {reason}")]
pub struct BackendError {
    /// `database`, `keys` (a key's gate) or `models`.
    pub component: &'static str,
    /// What went wrong (logged through [`Backend::log_failure`], never sent to
    /// clients).
    pub reason: String,
}

impl BackendError {
    /// An error of `component`.
    #[must_use]
    pub fn new(component: &'static str, reason: impl Into<String>) -> Self {
        Self {
            component,
            reason: reason.into(),
        }
    }
}

/// The environment of the API.
#[allow(async_fn_in_trait)] // used single-threaded, on workerd and in tests
pub trait Backend {
    /// Asks the gate of the key whose digest is `request.digest` to check and count
    /// one request ([`super::gate::admit`]): the one storage round trip of an
    /// authenticated request.
    async fn admit(&self, request: &GateRequest) -> Result<Admission, BackendError>;

    /// A file of the model bucket (`manifest.json`, `<code>/<version>.hxrk`), `None`
    /// when there is no such file; a file larger than `limit` bytes is an error, found
    /// before its body is read.
    async fn read_model_file(&self, key: &str, limit: u64)
    -> Result<Option<Vec<u8>>, BackendError>;

    /// The SHA-256 of `bytes`, lowercase hex. The Worker asks the runtime's Web
    /// Crypto (native code: hashing a 2 MB artifact in wasm took 87 ms of a cold
    /// isolate's first answer, see docs/BENCHMARKS.md).
    async fn sha256_hex(&self, bytes: &[u8]) -> Result<String, BackendError>;

    /// Inflates a zlib stream (checking its Adler-32), refusing more than `limit`
    /// bytes of output. The Worker uses the runtime's `DecompressionStream` (native
    /// code, several times faster than inflating in wasm).
    async fn inflate_zlib(&self, compressed: &[u8], limit: usize) -> Result<Vec<u8>, BackendError>;

    /// Waits `ms` milliseconds on this request's own timer (a request waiting for
    /// another request's read looks again after each pause).
    async fn pause(&self, ms: u32);

    /// The isolate's model store, which reads through [`Backend::read_model_file`].
    fn models(&self) -> &ModelStore;

    /// Whether some usable key lists `origin` (for CORS preflights, which carry no
    /// key).
    async fn origin_listed(&self, origin: &str) -> Result<bool, BackendError>;

    /// Whether the key store answers, and if not why.
    async fn check_database(&self) -> Result<(), BackendError>;

    /// Records a failure of a dependency with its cause. The dispatcher calls it
    /// exactly once for each failure it turns into `INTERNAL_ERROR` or an unhealthy
    /// component; clients never see the cause. The Worker writes it to the Workers
    /// console.
    fn log_failure(&self, err: &BackendError);
}
