//! The tile endpoints through the whole request path: a tile of the test city as
//! Mapbox Vector Tile bytes with its `ETag` (304 on the same), nothing in a tile far
//! away (204), tiles outside the pyramid served and unknown cities refused in the
//! error shape, and the city's `TileJSON` naming its tiles.

use http::StatusCode;

use crate::api::test_support::{LIVE_KEY, MemoryBackend, SANDBOX_KEY, get_with, json_of};

/// The test city's code and the z14 tile holding its first cell.
fn city_tile() -> (String, String) {
    let atlas = crate::api::test_support::atlas();
    let city = &atlas.cities()[0];
    let code = city.artifact().city.code.clone();
    let (lat, lng) = hexrisk_engine::grid::cell_centre(city.cell(0).unwrap());
    let n = f64::from(1_u32 << 14);
    let x = ((lng + 180.0) / 360.0 * n) as u64;
    let sin = lat.to_radians().sin();
    let y = ((0.5 - ((1.0 + sin) / (1.0 - sin)).ln() / (4.0 * std::f64::consts::PI)) * n) as u64;
    (
        code.clone(),
        format!("http://x/tiles/{code}/14/{x}/{y}.mvt"),
    )
}

#[test]
fn a_tile_is_vector_tile_bytes_with_an_etag_and_an_empty_one_is_no_content() {
    let backend = MemoryBackend::new();
    let (code, uri) = city_tile();
    let answer = get_with(&backend, &uri, &[("x-api-key", LIVE_KEY)]);
    assert_eq!(answer.status(), StatusCode::OK);
    assert_eq!(
        answer.headers()["content-type"],
        "application/vnd.mapbox-vector-tile"
    );
    assert!(!answer.body().is_empty());
    let etag = answer.headers()["etag"].to_str().unwrap().to_owned();
    let again = get_with(
        &backend,
        &uri,
        &[("x-api-key", LIVE_KEY), ("if-none-match", &etag)],
    );
    assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
    // Other options, another picture: another ETag.
    let nights = get_with(
        &backend,
        &format!("{uri}?intent=night"),
        &[("x-api-key", LIVE_KEY)],
    );
    assert_eq!(nights.status(), StatusCode::OK, "{:?}", nights.body());
    assert_ne!(nights.headers()["etag"].to_str().unwrap(), etag);
    let empty = get_with(
        &backend,
        &format!("http://x/tiles/{code}/14/0/0.mvt"),
        &[("x-api-key", LIVE_KEY)],
    );
    assert_eq!(empty.status(), StatusCode::NO_CONTENT);
    assert!(empty.body().is_empty());
    // Without a key, as every router API call.
    assert_eq!(
        get_with(&backend, &uri, &[]).status(),
        StatusCode::UNAUTHORIZED
    );
}

#[test]
fn tiles_outside_the_pyramid_and_unknown_cities_are_refused_in_the_error_shape() {
    let backend = MemoryBackend::new();
    let (code, _) = city_tile();
    for (path, status, field) in [
        (format!("/tiles/{code}/7/0/0.mvt"), 400, "z"),
        (format!("/tiles/{code}/17/0/0.mvt"), 400, "z"),
        (format!("/tiles/{code}/8/256/0.mvt"), 400, "x,y"),
        ("/tiles/city_xx_nowhere/8/0/0.mvt".to_owned(), 404, "city"),
    ] {
        let answer = get_with(
            &backend,
            &format!("http://x{path}"),
            &[("x-api-key", LIVE_KEY)],
        );
        assert_eq!(answer.status().as_u16(), status, "{path}");
        let body = json_of(&answer);
        assert_eq!(body["status"], "error", "{path}: {body}");
        assert_eq!(body["details"]["field"], field, "{path}: {body}");
    }
    // Not a tile's path at all.
    let odd = get_with(
        &backend,
        &format!("http://x/tiles/{code}/8/x/0.mvt"),
        &[("x-api-key", LIVE_KEY)],
    );
    assert_eq!(odd.status(), StatusCode::NOT_FOUND);
}

#[test]
fn the_tilejson_names_the_tiles_with_the_request_s_options() {
    let backend = MemoryBackend::new();
    let (code, _) = city_tile();
    // A `v` asked for is replaced by the version in force.
    let answer = get_with(
        &backend,
        &format!("https://api.example/tiles/{code}.json?intent=night&v=old"),
        &[("x-api-key", LIVE_KEY)],
    );
    assert_eq!(answer.status(), StatusCode::OK);
    let version = answer.headers()["hexrisk-model-version"]
        .to_str()
        .unwrap()
        .strip_prefix(&format!("{code}="))
        .unwrap()
        .to_owned();
    let doc = json_of(&answer);
    assert_eq!(doc["tilejson"], "3.0.0");
    assert_eq!(
        doc["tiles"][0],
        format!("https://api.example/tiles/{code}/{{z}}/{{x}}/{{y}}.mvt?intent=night&v={version}")
    );
    assert_eq!(doc["minzoom"], 8);
    let layers: Vec<&str> = doc["vector_layers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["id"].as_str().unwrap())
        .collect();
    assert_eq!(layers, ["hexes", "streets"]);
}

#[test]
fn the_style_draws_the_city_s_tiles_with_the_request_s_options() {
    let backend = MemoryBackend::new();
    let (code, _) = city_tile();
    let answer = get_with(
        &backend,
        &format!("https://api.example/tiles/{code}/style.json?intent=night"),
        &[("x-api-key", LIVE_KEY)],
    );
    assert_eq!(answer.status(), StatusCode::OK);
    let style = json_of(&answer);
    assert_eq!(style["version"], 8);
    // The source is the TileJSON's, inline: no round trip for it.
    let tilejson = json_of(&get_with(
        &backend,
        &format!("https://api.example/tiles/{code}.json?intent=night"),
        &[("x-api-key", LIVE_KEY)],
    ));
    let source = &style["sources"]["hexrisk"];
    assert_eq!(source["type"], "vector");
    for member in ["tiles", "minzoom", "maxzoom", "bounds", "attribution"] {
        assert_eq!(source[member], tilejson[member], "{member}");
    }
    assert!(source["tiles"][0].as_str().unwrap().starts_with(&format!(
        "https://api.example/tiles/{code}/{{z}}/{{x}}/{{y}}.mvt?intent=night&v="
    )));
    let ids: Vec<&str> = style["layers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["hexrisk-hexes", "hexrisk-streets"]);
    let unknown = get_with(
        &backend,
        "https://api.example/tiles/city_xx_nowhere/style.json",
        &[("x-api-key", LIVE_KEY)],
    );
    assert_eq!(unknown.status(), StatusCode::NOT_FOUND);
}

#[test]
fn hostile_tile_paths_and_options_get_a_client_error_in_the_error_shape() {
    let backend = MemoryBackend::new();
    let (code, _) = city_tile();
    let long = "a".repeat(2_000);
    for path in [
        format!("/tiles/{code}/99999999/0/0.mvt"),
        format!("/tiles/{code}/16/99999999/0.mvt"),
        format!("/tiles/{code}/16/0/18446744073709551616.mvt"),
        format!("/tiles/{code}/-1/0/0.mvt"),
        format!("/tiles/{code}/14/0/0.png"),
        format!("/tiles/{code}/14/0/0.mvt.mvt"),
        format!("/tiles/{code}/14/0/%30.mvt"),
        format!("/tiles/../{code}/14/0/0.mvt"),
        format!("/tiles/{long}/14/0/0.mvt"),
        format!("/tiles/{long}.json"),
        "/tiles/%F0%9F%92%A5/14/0/0.mvt".to_owned(),
        format!("/tiles/{code}/14/4579/5979.mvt?intent=nope"),
        format!("/tiles/{code}/14/4579/5979.mvt?week=2099-01-01"),
        format!("/tiles/{code}/14/4579/5979.mvt?activeCodes=%00"),
        format!("/tiles/{code}/14/4579/5979.mvt?time=%FF"),
        format!("/tiles/{code}.json?intent=nope"),
        format!("/tiles/{code}/style.json?week=yesterday"),
    ] {
        let answer = get_with(
            &backend,
            &format!("http://x{path}"),
            &[("x-api-key", LIVE_KEY)],
        );
        let status = answer.status();
        assert!(status.is_client_error(), "{path}: {status}");
        let body = json_of(&answer);
        assert_eq!(body["status"], "error", "{path}: {body}");
        assert!(
            body["code"].is_string() && body["details"].is_object(),
            "{path}: {body}"
        );
    }
}

#[test]
fn a_tile_is_made_once_per_artifact_and_served_from_the_data_centre_cache_to_any_key() {
    let backend = MemoryBackend::new();
    let (_, uri) = city_tile();
    let first = get_with(&backend, &uri, &[("x-api-key", LIVE_KEY)]);
    assert_eq!(first.status(), StatusCode::OK);
    assert_eq!(backend.answers.borrow().len(), 1);
    assert_eq!(backend.answer_hits.get(), 0);
    // The same tile however its options are spelt (the default week named), and
    // for another key: the kept bytes.
    for (query, key) in [
        ("", LIVE_KEY),
        ("?week=2022-01-03", LIVE_KEY),
        ("", SANDBOX_KEY),
    ] {
        let again = get_with(&backend, &format!("{uri}{query}"), &[("x-api-key", key)]);
        assert_eq!(again.status(), StatusCode::OK);
        assert_eq!(again.body(), first.body());
    }
    assert_eq!(backend.answer_hits.get(), 3);
    assert_eq!(backend.answers.borrow().len(), 1);
    // What the cache holds is what is served: nothing is made again.
    for kept in backend.answers.borrow_mut().values_mut() {
        *kept = bytes::Bytes::from_static(b"kept");
    }
    let served = get_with(&backend, &uri, &[("x-api-key", LIVE_KEY)]);
    assert_eq!(served.body().as_ref(), b"kept");
    // A new artifact of the city never meets the old one's tiles.
    let republished = MemoryBackend::new();
    *republished.files.borrow_mut() =
        crate::api::test_support::bucket(&crate::api::test_support::atlas_with_roads());
    *republished.answers.borrow_mut() = backend.answers.borrow().clone();
    let fresh = get_with(&republished, &uri, &[("x-api-key", LIVE_KEY)]);
    assert_eq!(fresh.status(), StatusCode::OK);
    assert_ne!(fresh.body().as_ref(), b"kept");
    assert_eq!(republished.answer_hits.get(), 0);
    assert_eq!(republished.answers.borrow().len(), 2);
}

#[test]
fn a_tile_at_its_tilejson_url_may_be_kept_by_the_browser_and_any_other_is_revalidated() {
    let backend = MemoryBackend::new();
    let (_, uri) = city_tile();
    let version =
        get_with(&backend, &uri, &[("x-api-key", LIVE_KEY)]).headers()["hexrisk-model-version"]
            .to_str()
            .unwrap()
            .split_once('=')
            .unwrap()
            .1
            .to_owned();
    for (query, cache_control) in [
        (format!("?v={version}"), "private, max-age=3600"),
        (
            format!("?intent=night&v={version}"),
            "private, max-age=3600",
        ),
        (String::new(), "private, no-cache"),
        ("?v=2021-01-01.000000000000".to_owned(), "private, no-cache"),
    ] {
        let answer = get_with(
            &backend,
            &format!("{uri}{query}"),
            &[("x-api-key", LIVE_KEY)],
        );
        assert_eq!(answer.status(), StatusCode::OK, "{query}");
        assert_eq!(answer.headers()["cache-control"], cache_control, "{query}");
        assert_eq!(
            answer.headers()["vary"],
            "Accept-Encoding, X-API-Key",
            "{query}"
        );
    }
}

#[test]
fn the_tilejson_credits_the_publisher_the_manifest_names() {
    use hexrisk_engine::artifact::Manifest;
    use sha2::{Digest, Sha256};

    let backend = MemoryBackend::new();
    let (code, _) = city_tile();
    let tilejson = |backend: &MemoryBackend| {
        json_of(&get_with(
            backend,
            &format!("https://api.example/tiles/{code}.json"),
            &[("x-api-key", LIVE_KEY)],
        ))
    };
    let unnamed = tilejson(&backend);
    assert!(
        unnamed["attribution"]
            .as_str()
            .unwrap()
            .contains("police-reported incidents")
    );
    let credited = MemoryBackend::new();
    let mut manifest: Manifest =
        serde_json::from_slice(&credited.files.borrow()[Manifest::FILE_NAME]).unwrap();
    manifest.cities[0].attribution = Some("The City's Police open data".into());
    let digest = hex::encode(Sha256::digest(Manifest::label_input(&manifest.cities)));
    let manifest = Manifest::over(manifest.cities, "test", &digest);
    credited.files.borrow_mut().insert(
        Manifest::FILE_NAME.to_owned(),
        serde_json::to_vec(&manifest).unwrap(),
    );
    let text = tilejson(&credited)["attribution"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        text.contains("from The City's Police open data, data through"),
        "{text}"
    );
}
