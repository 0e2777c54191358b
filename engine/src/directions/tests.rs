//! Steps from hand-made legs: every maneuver type, and what is merged.

use alloc::vec;
use alloc::vec::Vec;

use super::legs::Leg;
use super::steps::{RawStep, steps};
use super::{ManeuverType, Modifier};

/// A leg of `metres` on `name`, heading `bearing` throughout (`end`: bearing at its
/// end when it bends), starting at a junction whose other ways leave at `others`.
fn leg(name: Option<&'static str>, metres: f64, bearing: f64, others: &[f64]) -> Leg<'static> {
    Leg {
        name,
        points: [0, 0],
        metres,
        bearings: [bearing, bearing],
        others: others.to_vec(),
        incidents: Some(metres / 1000.0),
    }
}

/// `legs` with consecutive point ranges, as a route's line gives them.
fn chained(mut legs: Vec<Leg<'static>>) -> Vec<Leg<'static>> {
    let mut at = 0;
    for leg in &mut legs {
        let end = at + 2;
        leg.points = [at, end];
        at = end;
    }
    legs
}

fn kinds(steps: &[RawStep]) -> Vec<(ManeuverType, Option<Modifier>, Option<&str>)> {
    steps
        .iter()
        .map(|s| (s.maneuver, s.modifier, s.name.as_deref()))
        .collect()
}

#[test]
fn every_maneuver_type_from_its_junction() {
    use ManeuverType::*;
    let route = chained(vec![
        leg(Some("King St"), 200.0, 90.0, &[]),
        // A cross: turn left (north) onto Bay; King goes on east.
        leg(Some("Bay St"), 150.0, 0.0, &[90.0, 180.0]),
        // Straight on as the name changes.
        leg(Some("Yonge Blvd"), 120.0, 2.0, &[90.0, 270.0]),
        // A Y: two ways ahead, 30° apart; keep right.
        leg(Some("Avenue Rd"), 90.0, 20.0, &[350.0]),
        // A T: nothing ahead, the road ends; turn left.
        leg(Some("Bloor St"), 300.0, 290.0, &[110.0]),
        // Bloor turns right at a junction where a way goes straight on.
        leg(Some("Bloor St"), 80.0, 20.0, &[290.0]),
        // Back the way it came: a U-turn onto a path.
        leg(None, 40.0, 200.0, &[20.0]),
    ]);
    let steps = steps(&route);
    assert_eq!(
        kinds(&steps),
        [
            (Depart, None, Some("King St")),
            (Turn, Some(Modifier::Left), Some("Bay St")),
            (NewName, Some(Modifier::Straight), Some("Yonge Blvd")),
            (Fork, Some(Modifier::SlightRight), Some("Avenue Rd")),
            (EndOfRoad, Some(Modifier::Left), Some("Bloor St")),
            (Continue, Some(Modifier::Right), Some("Bloor St")),
            (Turn, Some(Modifier::Uturn), None),
            (Arrive, None, None),
        ]
    );
    // Distances, incidents and coordinates cover the route exactly, in order.
    let total: f64 = route.iter().map(|l| l.metres).sum();
    assert!((steps.iter().map(|s| s.distance_m).sum::<f64>() - total).abs() < 1e-9);
    let incidents: f64 = steps.iter().filter_map(|s| s.incidents).sum();
    assert!((incidents - total / 1000.0).abs() < 1e-9);
    for pair in steps.windows(2) {
        assert_eq!(pair[0].points[1], pair[1].points[0]);
    }
}

#[test]
fn what_a_walker_would_not_notice_is_one_step() {
    use ManeuverType::*;
    let route = chained(vec![
        leg(Some("Queen St W"), 100.0, 90.0, &[]),
        // The street bends 40° with no other way ahead: the same step.
        leg(Some("Queen St W"), 100.0, 130.0, &[310.0]),
        // A 9 m connector across a junction, then Queen St W again: the same step.
        leg(None, 9.0, 200.0, &[130.0, 40.0]),
        leg(Some("Queen St W"), 150.0, 130.0, &[]),
        // A 12 m slip onto another street is no step; the turn is judged from Queen.
        leg(Some("Ossington Ave"), 12.0, 180.0, &[130.0]),
        leg(Some("Dundas St"), 200.0, 220.0, &[]),
        // Unnamed ways bending less than a turn: one step.
        leg(None, 60.0, 300.0, &[225.0, 130.0]),
        leg(None, 60.0, 320.0, &[]),
    ]);
    let steps = steps(&route);
    assert_eq!(
        kinds(&steps),
        [
            (Depart, None, Some("Queen St W")),
            (Turn, Some(Modifier::Right), Some("Dundas St")),
            (Turn, Some(Modifier::Right), None),
            (Arrive, None, None),
        ]
    );
    assert!(
        (steps[0].distance_m - 371.0).abs() < 1e-9,
        "{}",
        steps[0].distance_m
    );
    assert_eq!(steps[1].bearings, [130.0, 220.0]);
    assert!(
        steps[1..steps.len() - 1]
            .iter()
            .all(|s| s.distance_m >= super::SHORT_CONNECTOR_M)
    );
}

#[test]
fn no_legs_no_steps_and_one_leg_departs_and_arrives() {
    assert!(steps(&[]).is_empty());
    let one = steps(&chained(vec![leg(Some("Front St"), 50.0, 0.0, &[])]));
    assert_eq!(
        kinds(&one),
        [
            (ManeuverType::Depart, None, Some("Front St")),
            (ManeuverType::Arrive, None, Some("Front St")),
        ]
    );
}
