use alloc::vec;

use serde_json::json;

use super::*;
use crate::artifact::fixture::CityFixture;

const NOW: i64 = 1_640_995_200; // 2022-01-01

fn atlas() -> Atlas {
    Atlas::new(vec![CityModel::from_artifact(
        CityFixture::default().build(),
    )])
}

fn query(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => unreachable!("queries are objects"),
    }
}

fn around_queen_street() -> Map<String, Value> {
    query(json!({"west": "-79.385", "south": "43.645", "east": "-79.365", "north": "43.655"}))
}

#[test]
fn a_box_lists_its_streets_with_name_line_and_risk() {
    let atlas = atlas();
    let answer = streets(&atlas, &around_queen_street(), NOW).unwrap();
    assert_eq!(answer.streets.len(), 1);
    let street = &answer.streets[0];
    assert_eq!(street.name.as_deref(), Some("Queen St W"));
    // Its two nodes and its interior point, west to east.
    assert_eq!(street.coordinates.len(), 3);
    assert!((street.coordinates[0][0] + 79.38).abs() < 1e-9);
    assert!((street.coordinates[2][0] + 79.37).abs() < 1e-9);
    let city = &atlas.cities()[0];
    let scores = CityScores::compute(
        city,
        answer_week(&answer, city),
        &crate::scoring::ScoringParams::default(),
    );
    let network = city.road_network().unwrap();
    let risk = StreetRisk::of(city, &scores, &network);
    assert!((street.incidents_per_km - risk.per_km(0)).abs() <= 1e-12 * risk.per_km(0));
    assert!(street.incidents_per_km > 0.0);
    assert_eq!(
        street.color_index,
        ColourIndex::from_safety_score(street.safety_score).get()
    );
    // The fixture carries no street shares: its risk is its cells'.
    assert_eq!(street.basis, "cell");
    assert_eq!(answer.scored_with.city, "city_ca_tor");
    // Serialised as the API answers it.
    let value = serde_json::to_value(&answer).unwrap();
    assert_eq!(value["streets"][0]["name"], "Queen St W");
    assert!(value["streets"][0]["incidentsPerKm"].is_number());
    assert!(value["meanIncidentsPerKm"].is_number());
}

fn answer_week(answer: &StreetsAnswer, city: &CityModel) -> usize {
    (0..city.week_count())
        .find(|&w| city.week_monday(w).to_string() == answer.scored_with.week_of)
        .unwrap()
}

#[test]
fn a_box_without_streets_lists_none_and_bad_boxes_are_refused() {
    let atlas = atlas();
    let empty = query(json!({"west": -79.46, "south": 43.68, "east": -79.45, "north": 43.69}));
    assert!(streets(&atlas, &empty, NOW).unwrap().streets.is_empty());
    let wide = query(json!({"west": -79.40, "south": 43.64, "east": -79.34, "north": 43.66}));
    let err = streets(&atlas, &wide, NOW).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidRequest);
    assert!(
        err.message.contains("at most 0.05 degrees"),
        "{}",
        err.message
    );
    let away = query(json!({"west": 2.30, "south": 48.85, "east": 2.32, "north": 48.86}));
    assert_eq!(
        streets(&atlas, &away, NOW).unwrap_err().code,
        ErrorCode::LocationNotCovered
    );
    let mut bad_class = around_queen_street();
    bad_class.insert("activeCodes".into(), json!("NOT_A_CLASS"));
    assert_eq!(
        streets(&atlas, &bad_class, NOW).unwrap_err().code,
        ErrorCode::InvalidRequest
    );
    let mut missing = around_queen_street();
    missing.remove("north");
    assert!(streets(&atlas, &missing, NOW).is_err());
}

#[test]
fn the_streets_query_is_what_streets_reads() {
    let atlas = atlas();
    let week = atlas.cities()[0].week_monday(0).to_string();
    let example = json!({
        "west": -79.385, "south": 43.645, "east": -79.365, "north": 43.655,
        "format": "geojson",
        "intent": "walking", "activeCodes": "OTHER,THEFT_BURGLARY", "week": week, "time": "30",
    });
    crate::operations::described::check::<StreetsQuery, _>(&example, true, |params| {
        crate::operations::wants_geojson(params)?;
        streets(&atlas, params, NOW)
    });
}
