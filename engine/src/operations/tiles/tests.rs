use alloc::vec;

#[test]
fn the_style_fills_hexes_and_draws_streets_with_the_palette() {
    let style = serde_json::to_value(super::tile_style(
        serde_json::json!({"type": "vector", "url": "u"}),
    ))
    .unwrap();
    assert_eq!(style["version"], 8);
    assert_eq!(style["sources"]["hexrisk"]["url"], "u");
    let fill = style["layers"][0]["paint"]["fill-color"]
        .as_array()
        .unwrap();
    assert_eq!(fill.len(), 2 + 2 * crate::scoring::PALETTE.len() + 1);
    assert_eq!(fill[3], crate::scoring::PALETTE[0]);
    assert_eq!(style["layers"][1]["paint"]["line-color"][1][1], "band");
    assert_eq!(style["layers"][1]["minzoom"], super::STREETS_MIN_ZOOM);
    assert_eq!(
        style["layers"][0]["paint"]["fill-opacity"][0],
        "interpolate"
    );
}

use super::*;
use crate::artifact::fixture::CityFixture;
use crate::city::CityModel;

const NOW: i64 = 1_640_995_200; // 2022-01-01

fn atlas() -> Atlas {
    Atlas::new(vec![CityModel::from_artifact(
        CityFixture::default().build(),
    )])
}

fn code(atlas: &Atlas) -> alloc::string::String {
    atlas.cities()[0].artifact().city.code.clone()
}

#[test]
fn a_tile_over_the_city_holds_its_hexes_and_one_far_away_holds_nothing() {
    let atlas = atlas();
    let city = &atlas.cities()[0];
    let (lat, lng) = crate::grid::cell_centre(city.cell(0).unwrap());
    let n = f64::from(1_u32 << 14);
    let x = ((lng + 180.0) / 360.0 * n) as u64;
    let y_of = |lat: f64| {
        let sin = libm::sin(lat.to_radians());
        ((0.5 - libm::log((1.0 + sin) / (1.0 - sin)) / (4.0 * core::f64::consts::PI)) * n) as u64
    };
    let here = tile_id("14", &x.to_string(), &y_of(lat).to_string()).unwrap();
    let bytes = tile(&atlas, &code(&atlas), here, &Map::new(), NOW).unwrap();
    assert!(!bytes.is_empty());
    let text = alloc::string::String::from_utf8_lossy(&bytes);
    assert!(text.contains("hexes") && text.contains(&city.cell(0).unwrap().to_string()));
    let far = TileId::new(14, 0, 0).unwrap();
    assert!(
        tile(&atlas, &code(&atlas), far, &Map::new(), NOW)
            .unwrap()
            .is_empty()
    );
}

#[test]
fn tiles_outside_the_served_pyramid_and_unknown_cities_are_refused() {
    assert_eq!(tile_id("7", "0", "0").unwrap_err().field, "z");
    assert_eq!(tile_id("17", "0", "0").unwrap_err().field, "z");
    assert_eq!(tile_id("8", "256", "0").unwrap_err().field, "x,y");
    assert_eq!(tile_id("8", "-1", "0").unwrap_err().field, "x");
    // The message names the served zooms: the constants, written out once.
    let message = tile_id("7", "0", "0").unwrap_err().message;
    assert!(
        message.contains(&alloc::format!("zoom {MIN_ZOOM} to {MAX_ZOOM}")),
        "{message}"
    );
    let atlas = atlas();
    let id = TileId::new(8, 0, 0).unwrap();
    let err = tile(&atlas, "city_xx_nowhere", id, &Map::new(), NOW).unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);
}

#[test]
fn content_keys_follow_what_the_bytes_are_made_from_not_how_options_are_spelt() {
    let atlas = atlas();
    let city = code(&atlas);
    let id = TileId::new(8, 71, 93).unwrap();
    let request = |pairs: &[(&str, &str)]| {
        let params: Map<String, Value> = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), Value::from(*v)))
            .collect();
        TileRequest::new(&atlas, &city, id, &params, NOW).unwrap()
    };
    let plain = request(&[]);
    let week = atlas.cities()[0]
        .week_monday(plain.scoring.week)
        .to_string();
    // The default week named, and the classes in another order: the same tile.
    let named = request(&[("week", &week)]);
    assert_eq!(plain.content_key(), named.content_key());
    let codes = request(&[("activeCodes", "THEFT_BURGLARY,BATTERY_ASSAULT")]);
    let reordered = request(&[("activeCodes", "BATTERY_ASSAULT, THEFT_BURGLARY")]);
    assert_eq!(codes.content_key(), reordered.content_key());
    // Each option that changes the picture changes the key.
    let keys = [
        plain.content_key(),
        codes.content_key(),
        request(&[("intent", "night")]).content_key(),
        request(&[("time", "30")]).content_key(),
        TileRequest::new(
            &atlas,
            &city,
            TileId::new(8, 71, 94).unwrap(),
            &Map::new(),
            NOW,
        )
        .unwrap()
        .content_key(),
    ];
    for (i, a) in keys.iter().enumerate() {
        for b in &keys[i + 1..] {
            assert_ne!(a, b);
        }
    }
    assert!(
        plain
            .content_key()
            .starts_with(&alloc::format!("{city}/8/71/93/"))
    );
}

#[test]
fn the_tilejson_credits_the_data_s_publisher_when_known() {
    let atlas = atlas();
    let city = code(&atlas);
    let credited = tilejson(
        &atlas,
        &city,
        &Map::new(),
        "u",
        Some("City Police open data"),
        NOW,
    )
    .map(|tilejson| serde_json::to_value(tilejson).unwrap())
    .unwrap();
    let text = credited["attribution"].as_str().unwrap();
    assert!(
        text.contains("from City Police open data, data through"),
        "{text}"
    );
    let unnamed =
        serde_json::to_value(tilejson(&atlas, &city, &Map::new(), "u", None, NOW).unwrap())
            .unwrap();
    let text = unnamed["attribution"].as_str().unwrap();
    assert!(text.contains("from police-reported incidents of"), "{text}");
    assert_eq!(unnamed["tiles"][0], "u");
}

#[test]
fn the_tile_path_and_query_are_what_a_tile_request_reads() {
    let atlas = atlas();
    let city = code(&atlas);
    let week = atlas.cities()[0].week_monday(0).to_string();
    let path = serde_json::json!({"city": city, "z": 12, "x": 1144, "y": 1494});
    crate::operations::described::check::<TilePath, _>(&path, true, |params| {
        let text = |name: &str| params[name].as_str().unwrap_or_default();
        let id = tile_id(text("z"), text("x"), text("y"))?;
        TileRequest::new(&atlas, text("city"), id, &Map::new(), NOW)
    });
    let query = serde_json::json!({
        "intent": "driving", "activeCodes": "OTHER", "week": week, "time": "2022-01-04T08:00:00",
        "v": "2022-01-01.0123456789ab",
    });
    // An ISO time names its own week: the two are checked apart.
    let mut without_week = query.clone();
    without_week["week"] = Value::Null;
    crate::operations::described::check::<TileQuery, _>(&query, true, |params| {
        let mut params = params.clone();
        params.remove("time");
        TileRequest::new(&atlas, &city, served_tile(12, 1144, 1494)?, &params, NOW)
    });
    let Value::Object(mut params) = without_week else {
        unreachable!("an object")
    };
    params.remove("week");
    params.insert("time".into(), Value::from("2022-01-04T08:00:00"));
    assert!(
        TileRequest::new(
            &atlas,
            &city,
            served_tile(12, 1144, 1494).unwrap(),
            &params,
            NOW
        )
        .is_ok()
    );
    let path = serde_json::json!({ "city": city });
    crate::operations::described::check::<CityPath, _>(&path, true, |params| {
        tilejson(
            &atlas,
            params["city"].as_str().unwrap_or_default(),
            &Map::new(),
            "u",
            None,
            NOW,
        )
    });
}
