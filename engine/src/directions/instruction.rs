//! An English instruction from a step's typed fields, so that a client can write its
//! own in another language from the same fields.

use alloc::format;
use alloc::string::String;

use super::maneuver::{ManeuverType, Modifier};

/// The eight compass points, from north clockwise.
const COMPASS: [&str; 8] = [
    "north",
    "northeast",
    "east",
    "southeast",
    "south",
    "southwest",
    "west",
    "northwest",
];

/// The compass point nearest a bearing in degrees.
#[must_use]
pub fn compass(bearing: f64) -> &'static str {
    let mut degrees = libm::fmod(bearing, 360.0);
    if degrees < 0.0 {
        degrees += 360.0;
    }
    let sector = libm::round(degrees / 45.0) as usize % 8;
    COMPASS[sector]
}

/// The side a fork keeps to: left, right or straight.
fn side(modifier: Modifier) -> &'static str {
    match modifier {
        Modifier::SlightLeft | Modifier::Left | Modifier::SharpLeft => "left",
        Modifier::SlightRight | Modifier::Right | Modifier::SharpRight => "right",
        Modifier::Straight | Modifier::Uturn => "straight",
    }
}

/// The instruction of a step: its maneuver and modifier, the street it follows
/// (`None`: an unnamed way, "the path") and its bearing after the maneuver.
#[must_use]
pub fn instruction(
    maneuver: ManeuverType,
    modifier: Option<Modifier>,
    name: Option<&str>,
    bearing_after: f64,
) -> String {
    let street = name.unwrap_or("the path");
    let modifier = modifier.unwrap_or(Modifier::Straight);
    match maneuver {
        ManeuverType::Depart => format!("Head {} on {street}", compass(bearing_after)),
        ManeuverType::Arrive => match name {
            Some(name) => format!("Arrive at your destination, on {name}"),
            None => String::from("Arrive at your destination"),
        },
        _ if modifier == Modifier::Uturn => format!("Make a U-turn onto {street}"),
        ManeuverType::Turn if modifier == Modifier::Straight => {
            format!("Go straight onto {street}")
        }
        ManeuverType::Turn => format!("Turn {} onto {street}", modifier.words()),
        ManeuverType::NewName => format!("Continue onto {street}"),
        ManeuverType::Continue => format!("Turn {} to stay on {street}", modifier.words()),
        ManeuverType::Fork => format!("Keep {} at the fork onto {street}", side(modifier)),
        ManeuverType::EndOfRoad => format!(
            "At the end of the road, turn {} onto {street}",
            modifier.words()
        ),
    }
}

#[cfg(test)]
mod tests;
