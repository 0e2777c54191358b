//! Safe reach for a request in one city: the cells a traveller can reach from a point
//! within a time budget at a travel mode's speed, each with the travel time of the
//! shortest way and the least exposure of any way within the budget, and the
//! outline of the area.

use alloc::vec::Vec;

use h3o::{CellIndex, LatLng};

use super::{RouteError, SnappedPoint};
use crate::city::CityModel;
use crate::corridor::TravelMode;
use crate::grid::{Polygon, outline};
use crate::roads::NetworkKind;
use crate::routing::TooManyLabels;
use crate::scoring::{CityScores, ColourIndex, StreetRisk};

/// Longest time budget, minutes.
pub const MAX_REACH_MINUTES: f64 = 60.0;

/// Longest distance a budget may cover at its mode's speed, metres (a 60-minute
/// walk; 20 minutes cycling, 10 driving).
pub const MAX_REACH_M: f64 = 5_000.0;

/// A reach request, validated.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReachRequest {
    /// Where the traveller starts.
    pub origin: LatLng,
    /// Time budget, minutes (above 0, at most [`MAX_REACH_MINUTES`]).
    pub minutes: f64,
    /// Travel mode (its speed turns minutes into metres).
    pub mode: TravelMode,
}

/// A reachable cell.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReachedCell {
    /// The cell.
    pub cell: CellIndex,
    /// Minutes along the shortest way to it.
    pub minutes: f64,
    /// Expected incidents passed on the least exposed way to it within the budget.
    pub exposure: f64,
    /// Its safety score.
    pub safety_score: f64,
    /// Its colour band.
    pub color_index: ColourIndex,
}

/// The answer to a reach request.
#[derive(Debug, Clone, PartialEq)]
pub struct ReachAnswer {
    /// The network searched.
    pub network: NetworkKind,
    /// The snapped origin.
    pub origin: SnappedPoint,
    /// The budget as a distance, metres.
    pub budget_m: f64,
    /// Reached cells, nearest first.
    pub cells: Vec<ReachedCell>,
    /// The outline of the reached cells.
    pub boundary: Vec<Polygon>,
}

/// A reach request that cannot be answered.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
pub enum ReachError {
    /// The budget is not above 0 or is beyond [`MAX_REACH_MINUTES`].
    #[error("minutes must be above 0 and at most {max}, got {0}", max = MAX_REACH_MINUTES)]
    Minutes(f64),
    /// The budget covers more than [`MAX_REACH_M`] at the mode's speed.
    #[error("{0:.0} m at this mode's speed; the limit is {max:.0} m (a 60-minute walk)", max = MAX_REACH_M)]
    TooFar(f64),
    /// The origin cannot be routed from.
    #[error(transparent)]
    Route(#[from] RouteError),
    /// The search outgrew its guard.
    #[error("{0}; ask for fewer minutes")]
    TooLarge(#[from] TooManyLabels),
}

/// The cells reachable from `request.origin`, scored with `scores`.
///
/// # Errors
/// [`ReachError`] for a budget out of range, an origin too far from the network, or a
/// city without one.
pub fn reach(
    model: &CityModel,
    scores: &CityScores,
    request: &ReachRequest,
) -> Result<ReachAnswer, ReachError> {
    if !(request.minutes > 0.0 && request.minutes <= MAX_REACH_MINUTES) {
        return Err(ReachError::Minutes(request.minutes));
    }
    let speed = request.mode.speed_m_per_s();
    let budget_m = request.minutes * 60.0 * speed;
    if budget_m > MAX_REACH_M {
        return Err(ReachError::TooFar(budget_m));
    }
    let network = model.road_network().ok_or(RouteError::NoNetwork)?;
    let (graph, index) = (network.graph, network.index);
    let from = index
        .snap(graph, request.origin)
        .map_err(RouteError::OriginTooFar)?;
    let street_risk = StreetRisk::of(model, scores, &network);
    let reached = index.safe_reach(
        graph,
        street_risk.risks(),
        &from,
        budget_m,
        model.cell_count(),
    )?;
    let mut cells: Vec<ReachedCell> = reached
        .iter()
        .enumerate()
        .filter_map(|(position, reach)| {
            let reach = reach.as_ref()?;
            Some(ReachedCell {
                cell: model.cell(position)?,
                minutes: reach.metres / speed / 60.0,
                exposure: street_risk.incidents(reach.exposure_m),
                safety_score: scores.safety(position),
                color_index: scores.colour(position),
            })
        })
        .collect();
    crate::sorting::sort_by(&mut cells, |a, b| {
        a.minutes.total_cmp(&b.minutes).then(a.cell.cmp(&b.cell))
    });
    let ids: Vec<CellIndex> = cells.iter().map(|c| c.cell).collect();
    Ok(ReachAnswer {
        network: graph.kind,
        origin: SnappedPoint {
            lat: from.point.lat(),
            lng: from.point.lng(),
            distance_m: from.distance_m,
        },
        budget_m,
        cells,
        boundary: outline(&ids),
    })
}
