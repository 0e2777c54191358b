//! What the API's tests share: an in-memory [`Backend`](super::backend::Backend)
//! with two keys, a model bucket and the portal's tables in SQLite, the small
//! Toronto its bucket serves, and requests sent through
//! [`handle`](crate::api::serving::dispatch::handle).

mod authenticator;
mod fixtures;
mod memory_backend;
mod portal_tables;
mod requests;
mod sqlite;

pub(crate) use authenticator::{FLAG_UP, FLAG_UV, Forgery, SoftAuthenticator};
pub(crate) use fixtures::{atlas, atlas_with_roads, body, bucket, now};
pub(crate) use memory_backend::{DEMO_ORIGIN, LIVE_KEY, MemoryBackend, PORTAL_ORIGIN, SANDBOX_KEY};
pub(crate) use requests::{call, ctx, get, get_with, json_of, send, send_bytes};
