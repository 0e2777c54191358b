//! What the partner portal keeps and where it is served: its records and the
//! [`store::PortalStore`] trait the [`super::backend::Backend`] implements, and its
//! [`config::PortalConfig`]. Apart from the portal's handlers (`super::portal`), so
//! that the backend can name them without the two modules importing each other.

pub mod config;
pub mod store;
