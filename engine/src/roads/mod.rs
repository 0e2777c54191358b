//! City networks for routing: the road graph an artifact carries (streets, or a
//! lattice over the H3 cells where a city has no road data), its accessors, and the
//! street shares that spread a cell's expected incidents over its ways.
//!
//! This module knows nothing of costs or searches; [`crate::routing`] does.

mod graph;
mod lattice;
mod street_shares;

pub use graph::{
    GraphError, MAX_STREET_NAME_BYTES, NetworkKind, OUTSIDE_GRID, REVERSED, RoadGraph, clip_name,
};
pub use lattice::hex_lattice;
pub use street_shares::{
    MAX_SHARE_GROUPS, NO_CELL, SHARE_CODE_STEPS_PER_DOUBLING, ShareGroup, StreetShares,
    cell_lengths, class_bits, decode_shares, encode_shares,
};
