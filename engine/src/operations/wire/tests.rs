use alloc::string::ToString;

use serde_json::json;

use super::*;

#[test]
fn numbers_per_class_and_intent_are_keyed_in_the_api_s_order() {
    let classes = serde_json::to_string(&PerClass([1.0, 2.0, 3.0, 4.0, f64::NAN])).unwrap();
    assert_eq!(
        classes,
        r#"{"THEFT_BURGLARY":1.0,"BATTERY_ASSAULT":2.0,"VEHICLE_DAMAGE":3.0,"SERIOUS_VIOLENT":4.0,"OTHER":null}"#
    );
    let intents = serde_json::to_value(PerIntent([1.0, 2.0, 3.0, 4.0])).unwrap();
    assert_eq!(
        intents,
        json!({"overall": 1.0, "walking": 2.0, "driving": 3.0, "night": 4.0})
    );
}

#[test]
fn constant_texts_and_cells_are_written_as_text() {
    assert_eq!(
        serde_json::to_value(FeatureCollectionType).unwrap(),
        "FeatureCollection"
    );
    let cell = crate::grid::cell_at(43.65, -79.38).unwrap();
    assert_eq!(
        serde_json::to_value(CellText(cell)).unwrap(),
        cell.to_string()
    );
}

#[cfg(feature = "schema")]
#[test]
fn the_schemas_of_names_list_the_names_the_code_answers() {
    use schemars::JsonSchema;
    let mut generator = schemars::SchemaGenerator::default();
    let codes = serde_json::to_value(ClassCode::json_schema(&mut generator)).unwrap();
    assert_eq!(
        codes,
        json!({"enum": ["THEFT_BURGLARY", "BATTERY_ASSAULT", "VEHICLE_DAMAGE", "SERIOUS_VIOLENT", "OTHER"]})
    );
    let per_class = serde_json::to_value(PerClass::json_schema(&mut generator)).unwrap();
    assert_eq!(per_class["required"], codes["enum"]);
    let methods = serde_json::to_value(RouteMethodName::json_schema(&mut generator)).unwrap();
    assert_eq!(
        methods,
        json!({"enum": ["safest", "balanced", "shortest", "tradeoff"]})
    );
    let cell = crate::grid::cell_at(43.65, -79.38).unwrap().to_string();
    let pattern = serde_json::to_value(CellId::json_schema(&mut generator)).unwrap();
    assert_eq!(pattern["pattern"], "^[0-9a-f]{15}$");
    assert!(
        cell.len() == 15
            && cell
                .bytes()
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
    );
}
