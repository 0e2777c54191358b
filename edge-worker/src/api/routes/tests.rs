use super::*;

#[test]
fn every_route_is_found_at_its_own_path_and_method() {
    for route in &ROUTES {
        let path = example_path(route);
        let found = Table::WITH_BASELINES.find(&path, &route.method).unwrap();
        assert!(std::ptr::eq(found.route, route), "{}", route.path);
        assert_eq!(
            found.id.is_some(),
            route.path.contains("{id}") || route.path.contains("{city}")
        );
        assert_eq!(found.tile.is_some(), route.path.contains("{z}"));
    }
}

#[test]
fn no_two_routes_share_a_path_and_method() {
    for (i, a) in ROUTES.iter().enumerate() {
        for b in &ROUTES[i + 1..] {
            assert!(
                a.path != b.path || a.method != b.method,
                "{} {}",
                a.method,
                a.path
            );
        }
    }
}

#[test]
fn other_methods_get_the_allowed_ones_and_unknown_paths_none() {
    assert_eq!(
        Table::SERVED
            .find("/portal/api/keys", &Method::PUT)
            .unwrap_err(),
        [Method::GET, Method::POST]
    );
    assert_eq!(
        Table::SERVED
            .find("/v1/predict/", &Method::GET)
            .unwrap_err(),
        [Method::POST]
    );
    assert!(
        Table::SERVED
            .find("/nowhere", &Method::GET)
            .unwrap_err()
            .is_empty()
    );
    assert!(
        Table::SERVED
            .methods_at("/portal/api/keys/a%2Fb")
            .is_empty()
    );
    // The benchmark baselines only when enabled.
    assert!(Table::SERVED.methods_at("/__bench/noop").is_empty());
    assert_eq!(
        Table::WITH_BASELINES.methods_at("/__bench/noop"),
        [Method::GET]
    );
    // A spelled-out path is no id.
    assert_eq!(
        Table::SERVED.methods_at("/portal/api/passkeys/options"),
        [Method::POST]
    );
    assert_eq!(
        Table::SERVED
            .find("/portal/api/keys/abc/roll", &Method::POST)
            .unwrap()
            .id,
        Some("abc")
    );
}
