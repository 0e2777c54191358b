//! Turn-by-turn directions for a route on a named network: named steps with their
//! maneuver (type and modifier from the bearings in and out of each junction),
//! distance, duration, bearings, the stretch of the route's coordinates they cover,
//! an English instruction written from those fields, and, where the ways carry risks
//! of their own, each step's expected incidents and the riskiest step.
//!
//! A route's pieces become legs ([`legs`]), legs are merged into the steps a walker
//! would notice ([`steps`]), and each step gets its words ([`instruction`]).

use alloc::string::String;
use alloc::vec::Vec;

use serde::Serialize;

use h3o::LatLng;

use crate::corridor::TravelMode;
use crate::roads::RoadGraph;
use crate::routing::{Path, RouteIndex, RouteLine};
use crate::scoring::StreetRisk;

pub mod instruction;
pub mod legs;
pub mod maneuver;
pub mod steps;

pub use maneuver::{ManeuverType, Modifier};
pub use steps::SHORT_CONNECTOR_M;

/// One step of a route's directions.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// What the walker does where the step starts.
    #[serde(rename = "type")]
    pub maneuver: ManeuverType,
    /// Which way; null for depart and arrive.
    pub modifier: Option<Modifier>,
    /// The street followed, as the network's source spells it; null where it has no
    /// name.
    pub name: Option<String>,
    /// Metres along the step.
    #[cfg_attr(feature = "schema", schemars(range(min = 0)))]
    pub distance_m: f64,
    /// Seconds along it in the request's travel mode.
    #[cfg_attr(feature = "schema", schemars(range(min = 0)))]
    pub duration_s: f64,
    /// Bearing into the maneuver, degrees from north (0 at the depart).
    #[cfg_attr(feature = "schema", schemars(range(min = 0, max = 360)))]
    pub bearing_before: f64,
    /// Bearing out of it (0 at the arrive).
    #[cfg_attr(feature = "schema", schemars(range(min = 0, max = 360)))]
    pub bearing_after: f64,
    /// first and last index of the geometry's coordinates the step covers
    pub coordinates: [usize; 2],
    /// Expected incidents along the step, where the ways carry risks of their own.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(with = "f64", range(min = 0)))]
    pub incidents: Option<f64>,
    /// An English instruction written from the fields above.
    pub instruction: String,
}

/// A route's steps, and which of them passes the most expected incidents.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Directions {
    /// Depart, the maneuvers, arrive.
    pub steps: Vec<Step>,
    /// The index in `steps` of the step with the most expected incidents, where the
    /// steps carry them.
    pub riskiest_step: Option<usize>,
}

/// The directions of `path` on `graph`, whose line is `line`, in travel `mode`;
/// `risk` prices the ways where they carry risks of their own.
#[must_use]
pub fn directions(
    graph: &RoadGraph,
    index: &RouteIndex,
    (path, line): (&Path, &RouteLine),
    risk: Option<&StreetRisk>,
    mode: TravelMode,
) -> Directions {
    written(&legs::legs(graph, index, path, line, risk), mode)
}

/// The steps of `legs` with their words, durations in `mode`, and the riskiest.
fn written(legs: &[legs::Leg<'_>], mode: TravelMode) -> Directions {
    let steps: Vec<Step> = steps::steps(legs)
        .into_iter()
        .map(|raw| Step {
            instruction: instruction::instruction(
                raw.maneuver,
                raw.modifier,
                raw.name.as_deref(),
                raw.bearings[1],
            ),
            maneuver: raw.maneuver,
            modifier: raw.modifier,
            duration_s: raw.distance_m / mode.speed_m_per_s(),
            distance_m: raw.distance_m,
            bearing_before: raw.bearings[0],
            bearing_after: raw.bearings[1],
            coordinates: raw.points,
            incidents: raw.incidents,
            name: raw.name,
        })
        .collect();
    let riskiest_step = steps
        .iter()
        .enumerate()
        .filter_map(|(i, s)| s.incidents.filter(|&x| x > 0.0).map(|x| (i, x)))
        .fold(None::<(usize, f64)>, |best, (i, x)| match best {
            Some((_, most)) if most >= x => best,
            _ => Some((i, x)),
        })
        .map(|(i, _)| i);
    Directions {
        steps,
        riskiest_step,
    }
}

/// The directions of a line drawn by anyone (`points`, `segment_m` the metres of each
/// segment), matched to the ways of `graph` ([`legs::line_legs`]); `risk` prices the
/// ways where they carry risks of their own, and stretches on no way count none.
#[must_use]
pub fn line_directions(
    graph: &RoadGraph,
    index: &RouteIndex,
    (points, segment_m): (&[LatLng], &[f64]),
    risk: Option<&StreetRisk>,
    mode: TravelMode,
) -> Directions {
    written(
        &legs::line_legs(graph, index, (points, segment_m), risk),
        mode,
    )
}

#[cfg(test)]
mod tests;
