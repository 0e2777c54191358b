//! Legs merged into the steps a walker would notice: a depart, one step per change
//! of street (or turn at a junction along one), an arrive. Continuations of one
//! name and bends along it are one step, and so are unnamed ways that bend less than
//! a turn; a leg shorter than [`SHORT_CONNECTOR_M`] (a connector, a slip across a
//! junction) never starts a step, and the next maneuver is judged from the bearing
//! the walker had before it.

use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

use super::legs::Leg;
use super::maneuver::{ManeuverType, Modifier, TURN_DEG, classify, turn};

/// A way shorter than this between two stretches of the same street is not a step.
pub const SHORT_CONNECTOR_M: f64 = 15.0;

/// A step before its duration and instruction are set.
#[derive(Debug, Clone, PartialEq)]
pub struct RawStep {
    /// Its maneuver.
    pub maneuver: ManeuverType,
    /// Its direction (`None` for depart and arrive).
    pub modifier: Option<Modifier>,
    /// The street it follows (`None`: a way without a name).
    pub name: Option<String>,
    /// Metres along it.
    pub distance_m: f64,
    /// Bearings before and after the maneuver, degrees from north.
    pub bearings: [f64; 2],
    /// First and last index of its stretch of the route's line.
    pub points: [usize; 2],
    /// Its expected incidents, where known.
    pub incidents: Option<f64>,
}

impl RawStep {
    fn extend(&mut self, leg: &Leg<'_>) {
        self.distance_m += leg.metres;
        self.points[1] = leg.points[1];
        self.incidents = match (self.incidents, leg.incidents) {
            (Some(a), Some(b)) => Some(a + b),
            (a, b) => a.or(b),
        };
    }
}

/// Whether `leg` carries on `step`, arrived at with bearing `arrival`.
fn carries_on(step: &RawStep, arrival: f64, leg: &Leg<'_>) -> bool {
    let bend = libm::fabs(turn(arrival, leg.bearings[0]));
    match (step.name.as_deref(), leg.name) {
        // One street, bends and all, unless it turns at a junction that goes on.
        (Some(a), Some(b)) if a == b => !(bend >= TURN_DEG && goes_ahead(arrival, leg)),
        // Unnamed ways that bend less than a turn.
        (None, None) => bend < TURN_DEG,
        _ => false,
    }
}

/// Whether another way leaves `leg`'s junction straight ahead of `arrival`.
fn goes_ahead(arrival: f64, leg: &Leg<'_>) -> bool {
    leg.others
        .iter()
        .any(|&o| libm::fabs(turn(arrival, o)) <= TURN_DEG)
}

/// The steps of a route's `legs`: a depart, the maneuvers, an arrive at the last
/// point.
#[must_use]
pub fn steps(legs: &[Leg<'_>]) -> Vec<RawStep> {
    let Some(first) = legs.first() else {
        return Vec::new();
    };
    let mut steps = vec![RawStep {
        maneuver: ManeuverType::Depart,
        modifier: None,
        name: first.name.map(ToString::to_string),
        distance_m: first.metres,
        bearings: [0.0, first.bearings[0]],
        points: first.points,
        incidents: first.incidents,
    }];
    // The walker's bearing coming into the next junction.
    let mut arrival = first.bearings[1];
    for leg in &legs[1..] {
        if let Some(step) = steps.last_mut()
            && (leg.metres < SHORT_CONNECTOR_M || carries_on(step, arrival, leg))
        {
            step.extend(leg);
            if leg.metres >= SHORT_CONNECTOR_M {
                arrival = leg.bearings[1];
            }
            continue;
        }
        let same_name = steps
            .last()
            .is_some_and(|s| s.name.is_some() && s.name.as_deref() == leg.name);
        let (maneuver, modifier) = classify(arrival, leg.bearings[0], &leg.others, same_name);
        steps.push(RawStep {
            maneuver,
            modifier: Some(modifier),
            name: leg.name.map(ToString::to_string),
            distance_m: leg.metres,
            bearings: [arrival, leg.bearings[0]],
            points: leg.points,
            incidents: leg.incidents,
        });
        arrival = leg.bearings[1];
    }
    let end = legs.last().map_or([0, 0], |l| [l.points[1], l.points[1]]);
    steps.push(RawStep {
        maneuver: ManeuverType::Arrive,
        modifier: None,
        name: legs.last().and_then(|l| l.name).map(ToString::to_string),
        distance_m: 0.0,
        bearings: [arrival, 0.0],
        points: end,
        incidents: first.incidents.map(|_| 0.0),
    });
    steps
}
