use super::*;

#[test]
fn table_matches_the_specification() {
    let table: [(&str, &str, u8); 6] = [
        ("THEFT_BURGLARY", "Theft & Burglary", 3),
        ("BATTERY_ASSAULT", "Assault & Battery", 4),
        ("VEHICLE_DAMAGE", "Vehicle & Property Damage", 3),
        ("SERIOUS_VIOLENT", "Serious Violent Crime", 5),
        ("OTHER", "Other", 2),
        ("NO_CRIME", "No Significant Crime", 0),
    ];
    assert_eq!(CrimeClass::ALL.len(), table.len());
    for (class, (code, name, severity)) in CrimeClass::ALL.into_iter().zip(table) {
        assert_eq!(class.code(), code);
        assert_eq!(class.name(), name);
        assert_eq!(class.severity(), severity);
    }
}

#[test]
fn descriptions_are_single_sentences() {
    for class in CrimeClass::ALL {
        let text = class.description();
        assert!(text.ends_with('.'), "{class}: {text}");
        assert_eq!(text.matches(". ").count(), 0, "{class}: {text}");
        assert!(text.len() > 20, "{class}: {text}");
    }
}

#[test]
fn codes_round_trip_and_unknown_codes_fail() {
    for class in CrimeClass::ALL {
        assert_eq!(class.code().parse::<CrimeClass>(), Ok(class));
        assert_eq!(CrimeClass::ALL[class.index()], class);
    }
    assert_eq!(
        "theft_burglary".parse::<CrimeClass>(),
        Err(UnknownClassError)
    );
    assert_eq!("".parse::<CrimeClass>(), Err(UnknownClassError));
}

#[test]
fn serializes_as_the_api_code() {
    let json = serde_json::to_string(&CrimeClass::VehicleDamage).unwrap();
    assert_eq!(json, "\"VEHICLE_DAMAGE\"");
    let record = serde_json::to_value(ClassRecord::from(CrimeClass::Other)).unwrap();
    assert_eq!(record["code"], "OTHER");
    assert_eq!(record["severity"], 2);
}
