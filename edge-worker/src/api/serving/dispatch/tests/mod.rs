//! The dispatcher's tests, one file per suite, over the in-memory backend of
//! [`crate::api::test_support`].

mod caching;
mod geojson;
mod hardening;
mod new_endpoint;
mod requests;
mod router_api;
mod tiles;
