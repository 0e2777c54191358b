//! City networks for routing: the road graph an artifact carries (streets, or a
//! lattice over the H3 cells where a city has no road data) and its accessors.
//!
//! This module knows nothing of costs or searches; [`crate::routing`] does.

mod graph;
mod lattice;

pub use graph::{GraphError, NetworkKind, OUTSIDE_GRID, REVERSED, RoadGraph};
pub use lattice::hex_lattice;
