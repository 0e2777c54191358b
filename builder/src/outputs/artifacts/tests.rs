use hexrisk_engine::artifact::fixture::CityFixture;

use super::*;

/// The manifest of one encoded fixture artifact named `code`, `weeks` long.
fn one(code: &str, weeks: usize) -> Manifest {
    let mut artifact = CityFixture::small_toronto().weeks(weeks).build();
    artifact.city.code = code.to_owned();
    let bytes = artifact::encode(&artifact).unwrap();
    manifest_of(vec![manifest_entry(&artifact, &bytes)])
}

#[test]
fn merging_replaces_the_updated_cities_and_keeps_the_others() {
    let base = merge(one("city_a", 10), &[one("city_b", 10)]).unwrap();
    assert_eq!(base.cities.len(), 2);
    let updated_b = one("city_b", 11);
    let merged = merge(base.clone(), std::slice::from_ref(&updated_b)).unwrap();
    assert_eq!(merged.city("city_a"), base.city("city_a"));
    assert_eq!(merged.city("city_b"), updated_b.city("city_b"));
    assert_ne!(merged.version, base.version, "the label follows the cities");
    assert!(merged.validate().is_ok());
    let mut other_format = one("city_c", 10);
    other_format.format_version += 1;
    assert!(merge(base, &[other_format]).is_err());
}
