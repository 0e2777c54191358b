//! ArcGIS REST layer info and query behaviour over HTTP.

use std::collections::HashSet;

use crate::support::{LAYER, MAP_LAYER, get, serve};
use serde_json::{Value, json};

fn query(server: &opendata_sim::Server, layer: &str, params: &str) -> Value {
    let r = get(server, &format!("{layer}/query?{params}"));
    assert_eq!(r.status, 200);
    r.json()
}

fn assert_arcgis_error(v: &Value, code: u64) {
    assert_eq!(v["error"]["code"], json!(code), "{v}");
    assert!(v["error"]["message"].is_string());
    assert!(v["error"]["details"].is_array());
}

#[test]
fn layer_info_describes_paging() {
    let (_world, server) = serve();
    let info = get(&server, &format!("{LAYER}?f=json")).json();
    assert_eq!(info["currentVersion"], json!(10.91));
    assert_eq!(info["id"], json!(0));
    assert_eq!(info["type"], json!("Feature Layer"));
    assert_eq!(info["objectIdField"], json!("OBJECTID"));
    assert_eq!(info["maxRecordCount"], json!(10));
    assert_eq!(
        info["advancedQueryCapabilities"]["supportsPagination"],
        json!(true)
    );
    let fields: Vec<(&str, &str)> = info["fields"]
        .as_array()
        .expect("fields")
        .iter()
        .map(|f| {
            (
                f["name"].as_str().unwrap_or_default(),
                f["type"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        fields,
        [
            ("OBJECTID", "esriFieldTypeOID"),
            ("CATEGORY", "esriFieldTypeString"),
            ("OCC_DATE", "esriFieldTypeDate"),
            ("SCORE", "esriFieldTypeDouble")
        ]
    );
    let pretty = get(&server, &format!("{LAYER}/?f=pjson")).text();
    assert!(
        pretty.starts_with("{\n \"currentVersion\": 10.91,"),
        "{pretty}"
    );
    assert_eq!(
        get(&server, &format!("{MAP_LAYER}?f=json")).json()["id"],
        json!(3)
    );
}

#[test]
fn esri_json_paging_flags_more_rows_at_top_level() {
    let (_world, server) = serve();
    let mut ids = Vec::new();
    let mut offset = 0;
    loop {
        let page = query(
            &server,
            LAYER,
            &format!("where=1%3D1&outFields=*&resultOffset={offset}&f=json"),
        );
        let features = page["features"].as_array().expect("features");
        assert!(features.len() <= 10, "capped at maxRecordCount");
        for f in features {
            ids.push(f["attributes"]["OBJECTID"].as_i64().expect("oid"));
            assert!(f["geometry"]["x"].is_f64() && f["geometry"]["y"].is_f64());
            assert!(f["attributes"]["OCC_DATE"].is_i64(), "dates are epoch ms");
        }
        assert_eq!(page["objectIdFieldName"], json!("OBJECTID"));
        offset += features.len();
        if offset < 25 {
            assert_eq!(
                page["exceededTransferLimit"],
                json!(true),
                "full page at {offset}"
            );
        } else {
            assert!(
                page.get("exceededTransferLimit").is_none(),
                "no flag at the end"
            );
            break;
        }
    }
    assert_eq!(ids.len(), 25);
    assert_eq!(ids.iter().collect::<HashSet<_>>().len(), 25);
    // resultRecordCount above maxRecordCount is capped; an empty one means the default.
    let page = query(&server, LAYER, "where=1=1&resultRecordCount=500&f=json");
    assert_eq!(page["features"].as_array().map(Vec::len), Some(10));
    let page = query(
        &server,
        LAYER,
        "where=0%3D0&resultRecordCount=&outFields=CATEGORY&f=json",
    );
    assert_eq!(
        page["features"][0]["attributes"],
        json!({"CATEGORY": "Assault"})
    );
}

#[test]
fn geojson_paging_flags_more_rows_under_properties() {
    let (_world, server) = serve();
    let first = query(
        &server,
        LAYER,
        "where=1=1&outFields=*&outSR=4326&resultOffset=0&f=geojson",
    );
    assert_eq!(first["type"], json!("FeatureCollection"));
    assert_eq!(first["properties"]["exceededTransferLimit"], json!(true));
    assert!(
        first.get("exceededTransferLimit").is_none(),
        "not at the top level in GeoJSON"
    );
    let f = &first["features"][0];
    assert_eq!(f["geometry"]["type"], json!("Point"));
    assert_eq!(f["properties"]["CATEGORY"], json!("Assault"));
    let last = query(
        &server,
        LAYER,
        "where=1=1&outFields=*&resultOffset=20&f=geojson",
    );
    assert_eq!(last["features"].as_array().map(Vec::len), Some(5));
    assert!(last.pointer("/properties/exceededTransferLimit").is_none());
}

#[test]
fn ids_and_counts_and_ordering() {
    let (_world, server) = serve();
    let ids = query(&server, LAYER, "where=1=1&returnIdsOnly=true&f=json");
    assert_eq!(ids["objectIdFieldName"], json!("OBJECTID"));
    assert_eq!(
        ids["objectIds"].as_array().map(Vec::len),
        Some(25),
        "not capped by maxRecordCount"
    );
    // Ordered as asked, as Esri documents `orderByFields` with `returnIdsOnly`.
    let down = query(
        &server,
        LAYER,
        "where=1=1&returnIdsOnly=true&orderByFields=OBJECTID+DESC&f=json",
    );
    let down: Vec<i64> = down["objectIds"]
        .as_array()
        .expect("ids")
        .iter()
        .filter_map(serde_json::Value::as_i64)
        .collect();
    assert!(
        down.windows(2).all(|w| w[0] > w[1]) && down.len() == 25,
        "{down:?}"
    );
    let count = query(&server, LAYER, "where=1=1&returnCountOnly=true&f=pjson");
    assert_eq!(count, json!({"count": 25}));
    let page = query(
        &server,
        LAYER,
        "where=1=1&outFields=SCORE&orderByFields=SCORE+DESC&resultRecordCount=2&f=json",
    );
    assert_eq!(page["features"][0]["attributes"]["SCORE"], json!(6.0));
    let page = query(
        &server,
        LAYER,
        "where=1=1&outFields=*&orderByFields=CATEGORY,OBJECTID%20DESC&resultRecordCount=1&f=json",
    );
    assert_eq!(
        page["features"][0]["attributes"]["CATEGORY"],
        json!("Assault")
    );
    assert_eq!(page["features"][0]["attributes"]["OBJECTID"], json!(25));
}

#[test]
fn mapserver_answers_like_the_houston_sample() {
    let (_world, server) = serve();
    let page = query(
        &server,
        MAP_LAYER,
        "where=1=1&outFields=*&resultRecordCount=2&f=pjson",
    );
    assert_eq!(page["displayFieldName"], json!("CATEGORY"));
    assert_eq!(page["fieldAliases"]["OBJECTID"], json!("OBJECTID"));
    assert_eq!(page["exceededTransferLimit"], json!(true));
    let page = query(
        &server,
        MAP_LAYER,
        "where=1=1&outFields=*&returnGeometry=false&f=json",
    );
    assert!(page["features"][0].get("geometry").is_none());
    assert!(page.get("exceededTransferLimit").is_none());
}

#[test]
fn bad_queries_answer_arcgis_errors_with_http_200() {
    let (_world, server) = serve();
    for params in [
        "where=CATEGORY%3D'x'&f=json",
        "f=json",
        "where=1=1&outFields=NOPE&f=json",
        "where=1=1&orderByFields=NOPE&f=json",
        "where=1=1&orderByFields=SCORE%20SIDEWAYS&f=json",
        "where=1=1&resultOffset=-1&f=json",
        "where=1=1&resultRecordCount=many&f=json",
        "where=1=1&f=xml",
    ] {
        let v = query(&server, LAYER, params);
        assert_arcgis_error(&v, 400);
        assert_eq!(
            v["error"]["message"],
            json!("Unable to complete operation."),
            "{params}"
        );
    }
    let v = get(
        &server,
        "/nope/arcgis/rest/services/X/FeatureServer/0/query?where=1=1&f=json",
    )
    .json();
    assert_arcgis_error(&v, 400);
    let html = get(&server, &format!("{LAYER}/query?where=1=1"));
    assert!(
        html.header("Content-Type")
            .is_some_and(|t| t.starts_with("text/html"))
    );
}
