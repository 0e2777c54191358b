//! Routes on a city network, for any per-request cost.
//!
//! - **Cost** of travelling a way ([`cost`]): its length times `1 + α · risk`, where
//!   the way's risk is its expected incidents per metre relative to the city's mean
//!   for the request (worked out by [`crate::scoring::StreetRisk`]), and
//!   [`OUTSIDE_COVERAGE_RISK`] outside the city grid. `α` comes from the
//!   [`RouteMethod`].
//! - **Snapping** ([`RouteIndex::snap`]): origin and destination move to the nearest
//!   point on any way (a point on a segment, not only a node), at most
//!   [`MAX_SNAP_DISTANCE_M`] away.
//! - **Search** ([`RouteIndex::search`]): on road networks, a customisable contraction
//!   hierarchy ([`cch`]; a hex lattice, without small separators, uses the A* below): its order is built once per network (offline, stored in the
//!   artifact), its metric once per cost model (cached), and each query walks the
//!   elimination tree from both ends. Exact for any per-request weights.
//! - **Single-use search** ([`RouteIndex::astar`]): A* with landmark lower bounds (ALT),
//!   for costs a request uses once (penalised alternatives, the trade-off's weights).
//!   Landmarks hold exact network distances in metres, and every metre costs at least
//!   the smallest way factor, so the bound stays admissible for any per-request
//!   weights and the route found is optimal for its cost. Landmarks are computed once
//!   per network.
//! - **Alternatives** ([`RouteIndex::search_with_alternatives`]): the penalty method.
//!   Ways of routes found so far cost [`ALTERNATIVE_PENALTY`] times more, the search
//!   runs again, and a candidate is kept when at most [`ALTERNATIVE_MAX_OVERLAP`] of
//!   its length is shared with each kept route and its true cost is at most
//!   [`ALTERNATIVE_MAX_STRETCH`] times the best route's.
//!
//! - **Trade-off** ([`RouteIndex::tradeoff`], [`thin`]): the routes not dominated in
//!   (length, exposure), by a parametric search over `α` (exact for the hull's
//!   corners; see [`tradeoff`](RouteIndex::tradeoff)), each search an A* bounded by
//!   the hierarchy's exact remaining length and exposure.
//!
//! - **Safe reach** ([`RouteIndex::safe_reach`]): every cell within a length budget,
//!   with the shortest way and the least exposure within the budget (exact bicriteria
//!   labels).
//!
//! This module works on a [`RoadGraph`](crate::roads::RoadGraph) and per-way risks
//! only: planning a route for a city request (scores, corridor, answer) is
//! [`crate::plan`]'s job.

pub mod cch;
mod cost;
mod dijkstra;
mod distances;
mod heap;
mod hierarchy_search;
mod index;
mod landmarks;
mod path;
mod safe_reach;
mod search;
mod segments;
mod snap;
mod tradeoff;

pub use cost::{CostModel, RouteMethod, UnknownMethod, way_risks_from_cells};
pub use index::RouteIndex;
pub use path::{Path, Piece, RouteLine};
pub use safe_reach::{CellReach, MAX_REACH_LABELS, TooManyLabels};
pub use snap::Snap;
pub use tradeoff::{
    TRADEOFF_MAX_ROUTES, TRADEOFF_MAX_SEARCHES, TRADEOFF_MAX_STRETCH, TRADEOFF_MIN_DIFFERENCE,
    Tradeoff, TradeoffRoute, thin,
};

/// Farthest a request point may be from the network, in metres.
pub const MAX_SNAP_DISTANCE_M: f64 = 500.0;

/// Risk charged for metres outside the city grid, where there is no forecast: the
/// city's mean.
pub const OUTSIDE_COVERAGE_RISK: f64 = 1.0;

/// Longest line accepted for evaluation, in metres.
pub const MAX_LINE_LENGTH_M: f64 = 200_000.0;

/// Most alternatives a request may ask for.
pub const MAX_ALTERNATIVES: usize = 3;

/// Largest share of an alternative's length that may run along another route.
pub const ALTERNATIVE_MAX_OVERLAP: f64 = 0.6;

/// Largest cost of an alternative relative to the best route.
pub const ALTERNATIVE_MAX_STRETCH: f64 = 1.4;

/// Cost multiplier on the ways of routes already found, per use.
pub const ALTERNATIVE_PENALTY: f64 = 1.6;

#[cfg(test)]
mod test_lattice;
#[cfg(test)]
mod tests;
