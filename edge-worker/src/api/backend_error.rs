//! The failure of a dependency of the API (key store, key gate or model files):
//! logged with its cause, never sent to clients.

/// A failure of a dependency (store, counter or model files).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{component} unavailable: {reason}")]
pub struct BackendError {
    /// `database`, `keys` (a key's gate) or `models`.
    pub component: &'static str,
    /// What went wrong (logged through
    /// [`ModelEnvironment::log_failure`](super::models::ModelEnvironment::log_failure),
    /// never sent to clients).
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
