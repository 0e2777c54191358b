use super::*;
use hexrisk_engine::artifact::fixture::CityFixture;

fn city(code: &str, version: &str) -> CachedCity {
    let artifact = CityFixture::default().code(code).build();
    CachedCity {
        code: code.into(),
        version: version.into(),
        model: Arc::new(CityModel::from_artifact(artifact)),
    }
}

#[test]
fn the_least_recently_used_city_goes_first() {
    let mut cache = CityCache::new(2);
    cache.insert(city("a", "1"));
    cache.insert(city("b", "1"));
    assert!(cache.get("a", "1").is_some());
    cache.insert(city("c", "1"));
    assert_eq!(
        cache.contents(),
        [("a".into(), "1".into()), ("c".into(), "1".into())]
    );
    assert!(cache.get("b", "1").is_none());
}

#[test]
fn a_new_version_replaces_the_old_one() {
    let mut cache = CityCache::new(2);
    cache.insert(city("a", "1"));
    cache.insert(city("a", "2"));
    assert_eq!(cache.contents(), [("a".into(), "2".into())]);
    assert!(cache.get("a", "1").is_none());
}

#[test]
fn a_bound_of_zero_still_keeps_one_city() {
    let mut cache = CityCache::new(0);
    cache.insert(city("a", "1"));
    cache.insert(city("b", "1"));
    assert_eq!(cache.contents(), [("b".into(), "1".into())]);
}
