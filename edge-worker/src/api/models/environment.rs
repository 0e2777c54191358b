//! What the model store needs from the Worker: the bucket's files, hashing and
//! inflating in the runtime's native code, a timer of the request's own, and the
//! failure log (which the whole API writes to, through
//! [`Backend`](crate::api::backend::Backend), which extends this trait).

use crate::api::backend_error::BackendError;

/// The model store's environment.
#[allow(async_fn_in_trait)] // used single-threaded, on workerd and in tests
pub trait ModelEnvironment {
    /// A file of the model bucket (`manifest.json`, `<code>/<version>.hxrk`), `None`
    /// when there is no such file; a file larger than `limit` bytes is an error, found
    /// before its body is read.
    async fn read_model_file(&self, key: &str, limit: u64)
    -> Result<Option<Vec<u8>>, BackendError>;

    /// The SHA-256 of `bytes`, lowercase hex. The Worker asks the runtime's Web
    /// Crypto: native code, where hashing a 2 MB artifact in wasm costs much of a cold
    /// isolate's first answer (see docs/BENCHMARKS.md).
    async fn sha256_hex(&self, bytes: &[u8]) -> Result<String, BackendError>;

    /// Inflates a zlib stream (checking its Adler-32), refusing more than `limit`
    /// bytes of output. The Worker uses the runtime's `DecompressionStream` (native
    /// code, several times faster than inflating in wasm).
    async fn inflate_zlib(&self, compressed: &[u8], limit: usize) -> Result<Vec<u8>, BackendError>;

    /// Waits `ms` milliseconds on this request's own timer (a request waiting for
    /// another request's read looks again after each pause).
    async fn pause(&self, ms: u32);

    /// Records a failure of a dependency with its cause. The dispatcher calls it
    /// exactly once for each failure it turns into `INTERNAL_ERROR` or an unhealthy
    /// component; clients never see the cause. The Worker writes it to the Workers
    /// console.
    fn log_failure(&self, err: &BackendError);
}
