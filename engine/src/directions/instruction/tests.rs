use super::*;

#[test]
fn each_maneuver_reads_as_a_walker_would_say_it() {
    let cases = [
        (
            ManeuverType::Depart,
            None,
            Some("King St W"),
            268.0,
            "Head west on King St W",
        ),
        (
            ManeuverType::Turn,
            Some(Modifier::Left),
            Some("Spadina Ave"),
            0.0,
            "Turn left onto Spadina Ave",
        ),
        (
            ManeuverType::NewName,
            Some(Modifier::Straight),
            Some("Queen St E"),
            0.0,
            "Continue onto Queen St E",
        ),
        (
            ManeuverType::Continue,
            Some(Modifier::Right),
            Some("Bay St"),
            0.0,
            "Turn right to stay on Bay St",
        ),
        (
            ManeuverType::Fork,
            Some(Modifier::SlightRight),
            None,
            0.0,
            "Keep right at the fork onto the path",
        ),
        (
            ManeuverType::EndOfRoad,
            Some(Modifier::Left),
            Some("Front St"),
            0.0,
            "At the end of the road, turn left onto Front St",
        ),
        (
            ManeuverType::Turn,
            Some(Modifier::Uturn),
            Some("Front St"),
            0.0,
            "Make a U-turn onto Front St",
        ),
        (
            ManeuverType::Arrive,
            None,
            None,
            0.0,
            "Arrive at your destination",
        ),
    ];
    for (maneuver, modifier, name, bearing, text) in cases {
        assert_eq!(instruction(maneuver, modifier, name, bearing), text);
    }
    assert_eq!(compass(359.0), "north");
    assert_eq!(compass(135.0), "southeast");
}
