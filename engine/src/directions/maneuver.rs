//! What a walker does at a junction: a maneuver's type and modifier, from the
//! bearings into and out of it and the other ways that leave it.

use serde::Serialize;

use h3o::LatLng;

/// Below this turn (degrees either way) a maneuver goes straight on.
pub const STRAIGHT_DEG: f64 = 15.0;
/// From this turn on, a change of street is a turn rather than a new name.
pub const TURN_DEG: f64 = 30.0;
/// A way leaving within this of straight ahead would have let the walker go on.
const AHEAD_DEG: f64 = 30.0;
/// Two ways leaving ahead within this of each other make a fork.
const FORK_SPREAD_DEG: f64 = 40.0;
/// Ways leaving within this of straight ahead are candidates for a fork.
const FORK_AHEAD_DEG: f64 = 50.0;

/// The type of a maneuver (the names OSRM and Valhalla clients know).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ManeuverType {
    /// The start of the route.
    Depart,
    /// A turn onto another street.
    Turn,
    /// The street's name changes with no turn to speak of.
    NewName,
    /// The route turns at a junction but stays on the same street.
    Continue,
    /// The way splits ahead and the route takes one branch.
    Fork,
    /// The street ends ahead; the route turns.
    EndOfRoad,
    /// The end of the route.
    Arrive,
}

impl ManeuverType {
    /// The wire name.
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            Self::Depart => "depart",
            Self::Turn => "turn",
            Self::NewName => "new name",
            Self::Continue => "continue",
            Self::Fork => "fork",
            Self::EndOfRoad => "end of road",
            Self::Arrive => "arrive",
        }
    }
}

/// Which way a maneuver goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Modifier {
    /// Within [`STRAIGHT_DEG`] of straight on.
    Straight,
    /// Up to 45° left.
    SlightLeft,
    /// 45° to 135° left.
    Left,
    /// 135° to 170° left.
    SharpLeft,
    /// Up to 45° right.
    SlightRight,
    /// 45° to 135° right.
    Right,
    /// 135° to 170° right.
    SharpRight,
    /// More than 170° either way: back the way one came.
    Uturn,
}

impl Modifier {
    /// The modifier of a turn of `degrees` (positive to the right, −180 to 180).
    #[must_use]
    pub fn of_turn(degrees: f64) -> Self {
        let size = libm::fabs(degrees);
        let right = degrees > 0.0;
        match size {
            s if s < STRAIGHT_DEG => Self::Straight,
            s if s < 45.0 => {
                if right {
                    Self::SlightRight
                } else {
                    Self::SlightLeft
                }
            }
            s if s < 135.0 => {
                if right {
                    Self::Right
                } else {
                    Self::Left
                }
            }
            s if s <= 170.0 => {
                if right {
                    Self::SharpRight
                } else {
                    Self::SharpLeft
                }
            }
            _ => Self::Uturn,
        }
    }

    /// The words of an instruction: "left", "slight right", "straight", "U-turn".
    #[must_use]
    pub const fn words(self) -> &'static str {
        match self {
            Self::Straight => "straight",
            Self::SlightLeft => "slight left",
            Self::Left => "left",
            Self::SharpLeft => "sharp left",
            Self::SlightRight => "slight right",
            Self::Right => "right",
            Self::SharpRight => "sharp right",
            Self::Uturn => "U-turn",
        }
    }
}

impl Serialize for ManeuverType {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.code())
    }
}

impl Serialize for Modifier {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.words())
    }
}

impl ManeuverType {
    /// Every type.
    pub const ALL: [Self; 7] = [
        Self::Depart,
        Self::Turn,
        Self::NewName,
        Self::Continue,
        Self::Fork,
        Self::EndOfRoad,
        Self::Arrive,
    ];
}

impl Modifier {
    /// Every modifier.
    pub const ALL: [Self; 8] = [
        Self::Straight,
        Self::SlightLeft,
        Self::Left,
        Self::SharpLeft,
        Self::SlightRight,
        Self::Right,
        Self::SharpRight,
        Self::Uturn,
    ];
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for ManeuverType {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> alloc::borrow::Cow<'static, str> {
        "ManeuverType".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let names: alloc::vec::Vec<&str> = Self::ALL.iter().map(|t| t.code()).collect();
        schemars::json_schema!({ "enum": names })
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for Modifier {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> alloc::borrow::Cow<'static, str> {
        "Modifier".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let words: alloc::vec::Vec<&str> = Self::ALL.iter().map(|m| m.words()).collect();
        schemars::json_schema!({ "enum": words })
    }
}

/// The initial great-circle bearing from `a` to `b`, in degrees from north, 0 to 360.
#[must_use]
pub fn bearing(a: LatLng, b: LatLng) -> f64 {
    let (lat1, lat2) = (a.lat_radians(), b.lat_radians());
    let dlng = b.lng_radians() - a.lng_radians();
    let y = libm::sin(dlng) * libm::cos(lat2);
    let x = libm::cos(lat1) * libm::sin(lat2) - libm::sin(lat1) * libm::cos(lat2) * libm::cos(dlng);
    let degrees = libm::atan2(y, x).to_degrees();
    if degrees < 0.0 {
        degrees + 360.0
    } else {
        degrees
    }
}

/// The turn from bearing `before` to bearing `after`: −180 to 180, positive right.
#[must_use]
pub fn turn(before: f64, after: f64) -> f64 {
    let mut d = after - before;
    while d > 180.0 {
        d -= 360.0;
    }
    while d <= -180.0 {
        d += 360.0;
    }
    d
}

/// The maneuver where the route goes from a way it arrived on at `before` onto one
/// leaving at `after`, with `others` the bearings of the junction's other ways
/// leaving it (not the one arrived on), and whether the street's name stays.
#[must_use]
pub fn classify(
    before: f64,
    after: f64,
    others: &[f64],
    same_name: bool,
) -> (ManeuverType, Modifier) {
    let taken = turn(before, after);
    let modifier = Modifier::of_turn(taken);
    let ahead = others
        .iter()
        .any(|&o| libm::fabs(turn(before, o)) <= AHEAD_DEG);
    let fork = libm::fabs(taken) <= FORK_AHEAD_DEG
        && others.iter().any(|&o| {
            libm::fabs(turn(before, o)) <= FORK_AHEAD_DEG
                && libm::fabs(turn(after, o)) <= FORK_SPREAD_DEG
        });
    let kind = if same_name {
        ManeuverType::Continue
    } else if fork {
        ManeuverType::Fork
    } else if libm::fabs(taken) >= TURN_DEG && !ahead && !others.is_empty() {
        ManeuverType::EndOfRoad
    } else if libm::fabs(taken) >= TURN_DEG {
        ManeuverType::Turn
    } else {
        ManeuverType::NewName
    };
    (kind, modifier)
}

#[cfg(test)]
mod tests;
