//! What the partner portal keeps and where it is served: its records and the
//! [`store::PortalStore`] trait the [`super::backend::Backend`] implements, kept in
//! SQL (`sql_store.rs`) over any [`sql::SqlDatabase`], and its [`config::PortalConfig`].
//! Apart from the portal's handlers (`super::portal`), so that the backend can name
//! them without the two modules importing each other.
//!
//! module-cycles: ordered. Each module uses only those declared above it.

// Where the portal is served, and the client's address.
pub mod config;
// The portal's records, and the trait its handlers keep them through.
pub mod store;
// The SQLite database the store runs on: D1, or SQLite in the native tests.
pub mod sql;
// The tables' rows, bound and read.
pub(crate) mod rows;
// The store in SQL, for every database.
mod sql_store;
