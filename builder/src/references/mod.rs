//! Native references for checking other builds of the engine: forecasts and route
//! answers sampled from the built artifacts, and a plain Dijkstra to check that the
//! engine's routes are optimal.

pub mod routes;
pub mod samples;
