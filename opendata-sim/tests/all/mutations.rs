//! Revisions, deletions, wholesale replacement and field renames, seen over HTTP.

use crate::support::{LAYER, SODA, at, enc, get, lock, serve};
use serde_json::{Map, Value, json};

fn soda_rows(server: &opendata_sim::Server, query: &str) -> Vec<Value> {
    let r = get(
        server,
        &format!(
            "/resource/{SODA}.json?$select={}&$order=:id{query}",
            enc(":*, *")
        ),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    r.json().as_array().cloned().expect("rows")
}

fn layer_rows(server: &opendata_sim::Server) -> Vec<Value> {
    let r = get(
        server,
        &format!("{LAYER}/query?where=1=1&outFields=*&resultRecordCount=100&f=json"),
    );
    let mut out = Vec::new();
    let mut offset = 0;
    let mut page = r.json();
    loop {
        let features = page["features"].as_array().cloned().expect("features");
        offset += features.len();
        out.extend(features);
        if page.get("exceededTransferLimit").is_none() {
            return out;
        }
        page = get(
            server,
            &format!("{LAYER}/query?where=1=1&outFields=*&resultOffset={offset}&f=json"),
        )
        .json();
    }
}

#[test]
fn socrata_wholesale_moves_updated_at_but_keeps_content() {
    let (world, server) = serve();
    let before = soda_rows(&server, "");
    lock(&world)
        .dataset_mut(SODA)
        .expect("dataset")
        .replace_wholesale(at(2021, 2, 1, 0));
    let after = soda_rows(&server, "");
    assert_eq!(before.len(), after.len());
    for (b, a) in before.iter().zip(&after) {
        assert_eq!(a[":updated_at"], json!("2021-02-01T00:00:00.000Z"));
        assert_eq!(a[":created_at"], b[":created_at"]);
        assert_eq!(a[":id"], b[":id"]);
        let content = |v: &Value| {
            let mut m = v.as_object().cloned().expect("row");
            m.retain(|k, _| !k.starts_with(':'));
            m
        };
        assert_eq!(content(a), content(b));
    }
    // An incremental client sees every row again.
    let since = format!(
        "&$where={}",
        enc(":updated_at > '2021-01-31T00:00:00.000Z'")
    );
    assert_eq!(soda_rows(&server, &since).len(), 25);
}

#[test]
fn arcgis_wholesale_gives_every_row_a_new_objectid() {
    let (world, server) = serve();
    let before = layer_rows(&server);
    lock(&world)
        .dataset_mut("test-layer")
        .expect("layer")
        .replace_wholesale(at(2021, 2, 1, 0));
    let after = layer_rows(&server);
    assert_eq!(before.len(), 25);
    assert_eq!(after.len(), 25);
    let oids = |rows: &[Value]| -> Vec<i64> {
        rows.iter()
            .map(|f| f["attributes"]["OBJECTID"].as_i64().expect("oid"))
            .collect()
    };
    let (old, new) = (oids(&before), oids(&after));
    assert!(new.iter().all(|id| !old.contains(id)), "{old:?} vs {new:?}");
    let strip = |rows: &[Value]| -> Vec<Value> {
        rows.iter()
            .map(|f| {
                let mut f = f.clone();
                f["attributes"]
                    .as_object_mut()
                    .expect("attributes")
                    .remove("OBJECTID");
                f
            })
            .collect()
    };
    assert_eq!(strip(&before), strip(&after), "content unchanged");
}

#[test]
fn revisions_and_deletions_show_in_current_rows_and_queries() {
    let (world, server) = serve();
    {
        let mut w = lock(&world);
        let ds = w.dataset_mut(SODA).expect("dataset");
        let mut changes = Map::new();
        changes.insert("name".into(), json!("renamed"));
        assert!(ds.revise("k3", &changes, None, at(2021, 3, 1, 0)));
        assert!(ds.delete("k4"));
        assert!(!ds.delete("k4"));
        assert!(!ds.revise("nope", &changes, None, at(2021, 3, 1, 0)));
    }
    let since = format!(
        "&$where={}",
        enc(":updated_at >= '2021-03-01T00:00:00.000Z'")
    );
    let changed = soda_rows(&server, &since);
    assert_eq!(changed.len(), 1);
    assert_eq!(changed[0]["name"], json!("renamed"));
    let current = get(&server, &format!("/_sim/rows?dataset={SODA}")).json();
    assert_eq!(current.as_array().map(Vec::len), Some(24));
    assert_eq!(
        current,
        Value::Array(lock(&world).dataset(SODA).expect("ds").current_rows())
    );
    assert!(
        current
            .as_array()
            .expect("rows")
            .iter()
            .all(|r| r[":id"].is_string())
    );
}

#[test]
fn rename_field_changes_the_published_name() {
    let (world, server) = serve();
    assert!(
        lock(&world)
            .dataset_mut("test-layer")
            .expect("layer")
            .rename_field("CATEGORY", "CSI_CATEGORY")
    );
    let info = get(&server, &format!("{LAYER}?f=json")).json();
    assert!(
        info["fields"]
            .as_array()
            .expect("fields")
            .iter()
            .any(|f| f["name"] == json!("CSI_CATEGORY"))
    );
    let page = get(
        &server,
        &format!("{LAYER}/query?where=1=1&outFields=*&resultRecordCount=1&f=json"),
    )
    .json();
    assert_eq!(
        page["features"][0]["attributes"]["CSI_CATEGORY"],
        json!("Assault")
    );
    assert!(page["features"][0]["attributes"].get("CATEGORY").is_none());
    // Rows published after the rename carry the value under the new name, as the
    // publisher's pipeline writes the same values into the renamed field.
    {
        let mut world = lock(&world);
        let layer = world.dataset_mut("test-layer").expect("layer");
        let fields: Map<String, Value> = [("CATEGORY".to_owned(), json!("Robbery"))]
            .into_iter()
            .collect();
        let row = opendata_sim::NewRow {
            key: "after-rename".into(),
            fields,
            point: None,
        };
        assert_eq!(layer.publish([row], at(2021, 3, 9, 12)), 1);
        let last = layer.rows().last().expect("a row");
        let position = layer.field_index("CSI_CATEGORY").expect("renamed field");
        assert_eq!(last.value(position), &json!("Robbery"));
    }
    let old = get(
        &server,
        &format!("{LAYER}/query?where=1=1&outFields=CATEGORY&f=json"),
    )
    .json();
    assert_eq!(
        old["error"]["code"],
        json!(400),
        "a client pinned to the old name fails"
    );
    // Through the control surface too, and on Socrata.
    let r = get(
        &server,
        &format!("/_sim/rename?dataset={SODA}&from=name&to=title"),
    );
    assert_eq!(r.status, 200);
    assert!(soda_rows(&server, "")[0].get("title").is_some());
    assert_eq!(
        get(
            &server,
            &format!("/_sim/rename?dataset={SODA}&from=name&to=x")
        )
        .status,
        400
    );
}

#[test]
fn control_surface_clock_and_wholesale() {
    let (_world, server) = serve();
    let clock = get(&server, "/_sim/clock").json();
    assert_eq!(
        clock,
        json!({"clock": "2021-01-05T10:00:00.000Z", "week": 0})
    );
    let adv = get(&server, "/_sim/advance?weeks=2").json();
    assert_eq!(adv["clock"], json!("2021-01-19T10:00:00.000Z"));
    assert_eq!(adv["weeks"].as_array().map(Vec::len), Some(2));
    assert_eq!(get(&server, "/_sim/advance?weeks=x").status, 400);
    let r = get(&server, &format!("/_sim/wholesale?dataset={SODA}"));
    assert_eq!(r.status, 200);
    let rows = soda_rows(&server, "");
    assert!(
        rows.iter()
            .all(|r| r[":updated_at"] == json!("2021-01-19T10:00:00.000Z"))
    );
    let datasets = get(&server, "/_sim/datasets").json();
    assert_eq!(datasets.as_array().map(Vec::len), Some(3));
    assert_eq!(get(&server, "/_sim/nope").status, 404);
}
