use super::*;

fn entry(code: &str, sha: &str) -> ManifestCity {
    let data_through = NaiveDate::from_ymd_opt(2021, 12, 26).unwrap();
    let version = ManifestCity::version_label(data_through, sha);
    ManifestCity {
        bounds: Bounds {
            north: 43.9,
            south: 43.5,
            east: -79.1,
            west: -79.7,
        },
        bytes: 10,
        cells: 3,
        code: code.into(),
        data_through,
        file: ManifestCity::file_name(code, &version),
        name: code.into(),
        precincts: 1,
        sha256: sha.into(),
        version,
        attribution: None,
        grid: None,
        freshness: None,
    }
}

fn manifest(cities: Vec<ManifestCity>) -> Manifest {
    Manifest {
        cities,
        format_version: FORMAT_VERSION,
        model_version: "m".into(),
        version: "v".into(),
    }
}

#[test]
fn names_follow_from_date_and_digest() {
    let city = entry("city_ca_tor", &"ab".repeat(32));
    assert_eq!(city.version, "2021-12-26.abababababab");
    assert_eq!(city.file, "city_ca_tor/2021-12-26.abababababab.hxrk");
    assert_eq!(manifest(vec![city]).validate(), Ok(()));
}

#[test]
fn bad_entries_are_refused() {
    let good = entry("city_ca_tor", &"ab".repeat(32));
    let renamed = ManifestCity {
        file: "city_ca_tor.hxrk".into(),
        ..good.clone()
    };
    assert!(matches!(
        manifest(vec![renamed]).validate(),
        Err(ManifestError::BadName { .. })
    ));
    let upper = entry("city_ca_tor", &"AB".repeat(32));
    assert_eq!(
        manifest(vec![upper]).validate(),
        Err(ManifestError::BadDigest("city_ca_tor".into()))
    );
    assert_eq!(
        manifest(vec![good.clone(), good.clone()]).validate(),
        Err(ManifestError::DuplicateCity("city_ca_tor".into()))
    );
    assert_eq!(manifest(vec![]).validate(), Err(ManifestError::Empty));
    let old = Manifest {
        format_version: FORMAT_VERSION - 1,
        ..manifest(vec![good])
    };
    assert!(matches!(
        old.validate(),
        Err(ManifestError::WrongFormat { .. })
    ));
}

#[test]
fn a_grid_file_is_named_after_the_full_files_version_and_listed_with_it() {
    let plain = entry("city_ca_tor", &"ab".repeat(32));
    assert_eq!(plain.files().collect::<Vec<_>>(), [plain.file.as_str()]);
    // Without a grid file the field is left out, so older readers see no change.
    assert!(!serde_json::to_string(&plain).unwrap().contains("grid"));
    let city = plain.with_grid(4, "cd".repeat(32));
    assert_eq!(
        city.grid.as_ref().map(|g| g.file.as_str()),
        Some("city_ca_tor/2021-12-26.abababababab.grid.hxrk")
    );
    assert_eq!(
        city.files().collect::<Vec<_>>(),
        [
            "city_ca_tor/2021-12-26.abababababab.hxrk",
            "city_ca_tor/2021-12-26.abababababab.grid.hxrk"
        ]
    );
    let text = serde_json::to_string(&city).unwrap();
    assert_eq!(serde_json::from_str::<ManifestCity>(&text).unwrap(), city);
    assert_eq!(manifest(vec![city.clone()]).validate(), Ok(()));

    let mut renamed = city.clone();
    renamed.grid.as_mut().unwrap().file = "city_ca_tor/other.grid.hxrk".into();
    let refused = manifest(vec![renamed]).validate().unwrap_err();
    assert_eq!(
        refused.to_string(),
        "city_ca_tor: expected version 2021-12-26.abababababab in file \
         city_ca_tor/2021-12-26.abababababab.grid.hxrk"
    );
    let mut upper = city;
    upper.grid.as_mut().unwrap().sha256 = "CD".repeat(32);
    assert_eq!(
        manifest(vec![upper]).validate(),
        Err(ManifestError::BadDigest("city_ca_tor".into()))
    );
}

#[test]
fn the_label_changes_with_any_city_version() {
    let a = entry("city_ca_tor", &"ab".repeat(32));
    let b = entry("city_us_sfo", &"cd".repeat(32));
    let input = Manifest::label_input(&[a.clone(), b.clone()]);
    assert_eq!(input, Manifest::label_input(&[b.clone(), a.clone()]));
    let c = entry("city_us_sfo", &"ce".repeat(32));
    assert_ne!(input, Manifest::label_input(&[a.clone(), c]));
    assert_eq!(
        Manifest::label(&[a, b], &"0123456789abcdef".repeat(4)),
        "2021-12-26.0123456789ab"
    );
}

#[test]
fn the_label_changes_with_a_city_s_publisher() {
    let plain = entry("city_ca_tor", &"ab".repeat(32));
    let credited = |publisher: &str| ManifestCity {
        attribution: Some(publisher.into()),
        ..plain.clone()
    };
    let label = |city: &ManifestCity| Manifest::label_input(core::slice::from_ref(city));
    assert_ne!(label(&credited("City Police")), label(&plain));
    assert_ne!(
        label(&credited("City Police")),
        label(&credited("Town Police"))
    );
    assert_eq!(
        label(&plain),
        alloc::format!("city_ca_tor={}\n", plain.version)
    );
}

#[test]
fn the_label_changes_with_a_city_s_feed_state() {
    let plain = entry("city_ca_tor", &"ab".repeat(32));
    let fed = |last_sync: &str, failing: Vec<FailingFeed>| ManifestCity {
        freshness: Some(Freshness {
            diverging: Vec::new(),
            failing,
            last_sync: Some(last_sync.into()),
            stale_after_days: 21,
            unmapped: Vec::new(),
        }),
        ..plain.clone()
    };
    let synced = Manifest::label_input(&[fed("2026-11-23T06:00:00Z", vec![])]);
    assert_ne!(synced, Manifest::label_input(core::slice::from_ref(&plain)));
    assert_ne!(
        synced,
        Manifest::label_input(&[fed("2026-11-30T06:00:00Z", vec![])])
    );
    let failing = FailingFeed {
        error: "source mci: down".into(),
        since: "2026-11-30T06:00:00Z".into(),
        source: "mci".into(),
    };
    assert_ne!(
        synced,
        Manifest::label_input(&[fed("2026-11-23T06:00:00Z", vec![failing])])
    );
    let mut diverging = fed("2026-11-23T06:00:00Z", vec![]);
    let record = diverging.freshness.as_mut().unwrap();
    record.diverging.push(DivergingFeed {
        last_sync: 3,
        repaired: 3,
        source: "incidents".into(),
        syncs: 2,
        syncs_repairing: 1,
    });
    let with_divergence = Manifest::label_input(core::slice::from_ref(&diverging));
    assert_ne!(synced, with_divergence);
    diverging
        .freshness
        .as_mut()
        .unwrap()
        .unmapped
        .push(UnmappedOffence {
            rows: 4,
            source: "incidents".into(),
            value: "Case Closure".into(),
        });
    assert_ne!(with_divergence, Manifest::label_input(&[diverging]));
}

#[test]
fn bounds_with_a_margin_say_which_cities_may_cover_a_point() {
    let city = entry("city_ca_tor", &"ab".repeat(32));
    assert!(city.may_cover(43.65, -79.38, 0.0));
    assert!(!city.may_cover(43.95, -79.38, 0.0));
    assert!(city.may_cover(43.95, -79.38, 0.1));
}
