use super::*;

#[test]
fn modifiers_follow_the_turn() {
    for (degrees, modifier) in [
        (0.0, Modifier::Straight),
        (-14.0, Modifier::Straight),
        (30.0, Modifier::SlightRight),
        (-30.0, Modifier::SlightLeft),
        (90.0, Modifier::Right),
        (-90.0, Modifier::Left),
        (150.0, Modifier::SharpRight),
        (-150.0, Modifier::SharpLeft),
        (179.0, Modifier::Uturn),
    ] {
        assert_eq!(Modifier::of_turn(degrees), modifier, "{degrees}");
    }
    assert_eq!(turn(350.0, 10.0), 20.0);
    assert_eq!(turn(10.0, 350.0), -20.0);
}

#[test]
fn bearings_point_the_way() {
    let a = LatLng::new(43.65, -79.38).unwrap();
    let north = LatLng::new(43.66, -79.38).unwrap();
    let east = LatLng::new(43.65, -79.37).unwrap();
    assert!(bearing(a, north) < 0.01 || bearing(a, north) > 359.99);
    assert!((bearing(a, east) - 90.0).abs() < 0.1);
    assert!((bearing(north, a) - 180.0).abs() < 0.01);
}

#[test]
fn each_junction_gives_its_maneuver() {
    // A cross: ways ahead (0), left (270) and right (90); turning right is a turn.
    assert_eq!(
        classify(0.0, 90.0, &[0.0, 270.0], false),
        (ManeuverType::Turn, Modifier::Right)
    );
    // A T: nothing ahead, the street ends; turning left.
    assert_eq!(
        classify(0.0, 270.0, &[90.0], false),
        (ManeuverType::EndOfRoad, Modifier::Left)
    );
    // A Y: two ways ahead, 25° apart.
    assert_eq!(
        classify(0.0, 340.0, &[15.0], false),
        (ManeuverType::Fork, Modifier::SlightLeft)
    );
    // Straight on as the name changes.
    assert_eq!(
        classify(0.0, 5.0, &[90.0, 270.0], false),
        (ManeuverType::NewName, Modifier::Straight)
    );
    // The street turns at a junction where going straight would leave it.
    assert_eq!(
        classify(0.0, 90.0, &[0.0], true),
        (ManeuverType::Continue, Modifier::Right)
    );
    // A bend with no other way: a turn onto the next street, not an end of road.
    assert_eq!(
        classify(0.0, 90.0, &[], false),
        (ManeuverType::Turn, Modifier::Right)
    );
}
