//! The builder's integration tests, one binary: each module is what was a test file
//! of its own. One binary links once, and its tests share the test threads, so a long
//! test (a refresh that builds Toronto three times) runs beside the others instead of
//! after them.

mod support;

mod data_dir;
mod feeds;
mod feeds_ckan_csv;
mod fuzz_seeds;
mod holdout_doc;
mod model_build;
mod new_city;
mod places;
mod refresh;
mod roads;
mod routing;
mod street_routes;
mod update;
