//! Native references for checking other builds of the engine: forecasts and route
//! answers sampled from the built artifacts, a plain Dijkstra to check that the
//! engine's routes are optimal, and place search measured on OpenStreetMap's names.

pub mod place_check;
pub mod routes;
pub mod samples;
