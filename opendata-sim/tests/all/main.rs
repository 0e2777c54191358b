//! The simulator's integration tests, one binary: each module is what was a test
//! file of its own (one link, and their tests share the test threads).

mod support;

mod arcgis;
mod faults;
mod http;
mod mutations;
mod replay;
mod script;
mod socrata;
