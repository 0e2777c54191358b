use super::*;

#[test]
fn committed_configs_parse_and_name_three_cities() {
    let cities = load_all(&default_config_dir()).unwrap();
    let codes: Vec<&str> = cities.iter().map(|c| c.code.as_str()).collect();
    assert_eq!(codes, ["city_ca_tor", "city_us_hou", "city_us_sfo"]);
    for city in &cities {
        assert!(city.code.starts_with("city_"));
        assert!(city.span.start < city.span.end);
        assert!(!city.sources.is_empty());
    }
}

#[test]
fn overrides_win_over_the_category_default() {
    let cities = load_all(&default_config_dir()).unwrap();
    let sf = cities.iter().find(|c| c.code == "city_us_sfo").unwrap();
    let source = &sf.sources["incidents"];
    assert_eq!(
        source.map("ASSAULT", Some("BATTERY")),
        Some(Mapped::BatteryAssault)
    );
    assert_eq!(
        source.map("ASSAULT", Some("AGGRAVATED ASSAULT WITH A GUN")),
        Some(Mapped::SeriousViolent)
    );
    assert_eq!(
        source.map("LARCENY/THEFT", Some("GRAND THEFT FROM LOCKED AUTO")),
        Some(Mapped::VehicleDamage)
    );
    assert_eq!(source.map("NON-CRIMINAL", None), Some(Mapped::NotAnOffence));
    assert_eq!(source.map("NO SUCH CATEGORY", None), None);
}

#[test]
fn wildcard_maps_every_value() {
    let cities = load_all(&default_config_dir()).unwrap();
    let tor = cities.iter().find(|c| c.code == "city_ca_tor").unwrap();
    assert_eq!(
        tor.sources["shootings"].map("anything", None),
        Some(Mapped::SeriousViolent)
    );
    assert_eq!(
        tor.sources["mci"].map("Theft Over", None),
        Some(Mapped::TheftBurglary)
    );
    assert_eq!(tor.sources["mci"].map("Theft Under", None), None);
}

#[test]
fn street_premises_are_configured_where_the_source_records_premises() {
    let cities = load_all(&default_config_dir()).unwrap();
    let city = |code: &str| cities.iter().find(|c| c.code == code).unwrap();
    let mci = &city("city_ca_tor").sources["mci"];
    assert_eq!(mci.premises_field(), Some("premises_type"));
    let street = mci.street.as_ref().unwrap();
    assert!(street.is_street("Outside") && street.is_street(" Transit "));
    assert!(!street.is_street("House") && !street.is_street("outside"));
    assert_eq!(city("city_ca_tor").sources["shootings"].street, None);
    let houston = city("city_us_hou").sources["crime"]
        .street
        .as_ref()
        .unwrap();
    assert_eq!(houston.field, "location");
    assert!(houston.is_street("road / street / sidewalk"));
    assert!(!houston.is_street("residence / house") && !houston.is_street("driveway"));
    assert!(
        city("city_us_sfo")
            .sources
            .values()
            .all(|s| s.street.is_none())
    );
}
