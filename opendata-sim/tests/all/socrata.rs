//! Socrata SODA behaviour over HTTP.

use std::collections::HashSet;

use crate::support::{SODA, enc, get, serve};
use serde_json::{Value, json};

fn rows(v: &Value) -> &Vec<Value> {
    v.as_array().expect("array of rows")
}

#[test]
fn ordered_paging_returns_every_row_once() {
    let (_world, server) = serve();
    let mut seen = Vec::new();
    for offset in (0..40).step_by(7) {
        let r = get(
            &server,
            &format!("/resource/{SODA}.json?$select=:id,name&$order=:id&$limit=7&$offset={offset}"),
        );
        assert_eq!(r.status, 200);
        for row in rows(&r.json()) {
            seen.push(row[":id"].as_str().expect(":id").to_owned());
        }
    }
    assert_eq!(seen.len(), 25);
    let unique: HashSet<_> = seen.iter().collect();
    assert_eq!(unique.len(), 25);
    let mut sorted = seen.clone();
    sorted.sort();
    assert_eq!(seen, sorted, "$order=:id sorts by :id");
}

#[test]
fn order_by_columns_with_direction() {
    let (_world, server) = serve();
    let body = get(
        &server,
        &format!("/resource/{SODA}.json?$order={}&$limit=3", enc("n DESC")),
    )
    .json();
    let names: Vec<&str> = rows(&body)
        .iter()
        .map(|r| r["name"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(names, ["row 24", "row 23", "row 22"]);
    let body = get(
        &server,
        &format!(
            "/resource/{SODA}.json?$order={}&$limit=2",
            enc("note ASC, n DESC")
        ),
    )
    .json();
    let names: Vec<&str> = rows(&body)
        .iter()
        .map(|r| r["name"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(
        names,
        ["row 24", "row 22"],
        "nulls sort last; ties by the next key"
    );
}

#[test]
fn unordered_results_differ_between_requests() {
    let (_world, server) = serve();
    let first = get(&server, &format!("/resource/{SODA}.json")).json();
    let second = get(&server, &format!("/resource/{SODA}.json")).json();
    assert_eq!(rows(&first).len(), 25);
    assert_ne!(first, second, "without $order the order must not be stable");
    let key = |v: &Value| {
        let mut names: Vec<String> = rows(v).iter().map(|r| r["name"].to_string()).collect();
        names.sort();
        names
    };
    assert_eq!(key(&first), key(&second), "same rows, another order");
}

#[test]
fn rows_render_as_soda_json() {
    let (_world, server) = serve();
    let r = get(
        &server,
        &format!(
            "/resource/{SODA}.json?$select={}&$order=n&$limit=2",
            enc(":*, *")
        ),
    );
    assert_eq!(r.status, 200);
    let fields: Vec<String> =
        serde_json::from_str(r.header("X-SODA2-Fields").expect("fields header")).expect("json");
    assert_eq!(
        fields,
        [
            ":id",
            ":created_at",
            ":updated_at",
            ":version",
            "name",
            "n",
            "x",
            "when",
            "note"
        ]
    );
    let types: Vec<String> =
        serde_json::from_str(r.header("X-SODA2-Types").expect("types header")).expect("json");
    assert_eq!(
        types[4..],
        ["text", "number", "number", "floating_timestamp", "text"]
    );
    let body = r.json();
    let first = &rows(&body)[0];
    assert_eq!(first["n"], json!("0"), "numbers are strings");
    assert_eq!(first["x"], json!("0.5"));
    assert_eq!(
        first["when"],
        json!("2020-12-31T10:00:00.000"),
        "floating timestamps have no zone"
    );
    assert_eq!(first[":created_at"], json!("2021-01-01T00:00:00.000Z"));
    assert!(
        first[":id"]
            .as_str()
            .is_some_and(|id| id.starts_with("row-") && id.len() == 18)
    );
    assert!(
        first[":version"]
            .as_str()
            .is_some_and(|v| v.starts_with("rv-"))
    );
    let second = &rows(&body)[1];
    assert!(second.get("note").is_none(), "nulls are omitted: {second}");
    // Without $select, system fields are hidden.
    let plain = get(&server, &format!("/resource/{SODA}.json?$limit=1")).json();
    assert!(rows(&plain)[0].get(":id").is_none());
    // Default limit 1000 / offset 0 and the body framing.
    assert!(
        get(&server, &format!("/resource/{SODA}.json?$order=n"))
            .text()
            .contains("}\n,{")
    );
}

#[test]
fn updated_at_where_clause_filters() {
    let (_world, server) = serve();
    let count = |clause: &str| {
        let r = get(
            &server,
            &format!("/resource/{SODA}.json?$where={}&$limit=100", enc(clause)),
        );
        assert_eq!(r.status, 200, "{}", r.text());
        rows(&r.json()).len()
    };
    // Row i was published at 2021-01-01T00:00Z + i hours.
    assert_eq!(count(":updated_at > '2021-01-01T10:00:00.000Z'"), 14);
    assert_eq!(count(":updated_at >= '2021-01-01T10:00:00.000Z'"), 15);
    assert_eq!(count(":updated_at>'2021-01-01T10:00:00.000'"), 14);
    assert_eq!(count(":updated_at > '2030-01-01T00:00:00.000Z'"), 0);
    // Both bounds, as a window of change marks is asked for.
    assert_eq!(
        count(
            ":updated_at >= '2021-01-01T10:00:00.000Z' AND :updated_at < '2021-01-01T13:00:00.000Z'"
        ),
        3
    );
    assert_eq!(
        count(":updated_at > '2021-01-01T10:00:00.000Z' and :updated_at <= '2021-01-01T13:00:00'"),
        3
    );
    assert_eq!(count(":created_at < '2021-01-01T02:00:00.000Z'"), 2);
}

#[test]
fn in_lists_fetch_rows_by_key() {
    let (_world, server) = serve();
    let ids_of = |clause: &str| -> Vec<(String, String)> {
        let query = if clause.is_empty() {
            String::new()
        } else {
            format!("&$where={}", enc(clause))
        };
        let r = get(
            &server,
            &format!("/resource/{SODA}.json?$select=:id,name&$order=:id{query}"),
        );
        assert_eq!(r.status, 200, "{}", r.text());
        rows(&r.json())
            .iter()
            .map(|r| {
                (
                    r[":id"].as_str().unwrap().to_owned(),
                    r["name"].as_str().unwrap().to_owned(),
                )
            })
            .collect()
    };
    let all = ids_of("");
    let (a, b) = (&all[3], &all[17]);
    let list = format!("'{}', '{}', 'row-none-such'", a.0, b.0);
    assert_eq!(
        ids_of(&format!(":id IN ({list})")),
        vec![a.clone(), b.clone()]
    );
    assert_eq!(
        ids_of(&format!(":id in ({list}) AND name = '{}'", b.1)),
        vec![b.clone()]
    );
    assert_eq!(ids_of(&format!("name IN ('{}')", a.1)), vec![a.clone()]);
}

fn assert_soda_error(r: &crate::support::Reply, status: u16, code: &str) {
    assert_eq!(r.status, status, "{}", r.text());
    let body = r.json();
    assert_eq!(body["code"], json!(code), "{body}");
    assert_eq!(body["error"], json!(true));
    assert!(body["message"].is_string());
    assert_eq!(body["data"], json!({}));
}

#[test]
fn limits_and_bad_queries_answer_in_socrata_shape() {
    let (_world, server) = serve();
    let r = get(&server, &format!("/resource/{SODA}.json?$limit=50001"));
    assert_soda_error(&r, 400, "query.soql.invalid-limit");
    assert_eq!(
        get(&server, &format!("/resource/{SODA}.json?$limit=50000")).status,
        200
    );
    let r = get(&server, &format!("/resource/{SODA}.json?$select=name,nope"));
    assert_soda_error(&r, 400, "query.soql.no-such-column");
    let r = get(&server, &format!("/resource/{SODA}.json?$order=nope"));
    assert_soda_error(&r, 400, "query.soql.no-such-column");
    let r = get(
        &server,
        &format!("/resource/{SODA}.json?$where={}", enc("nope > '3'")),
    );
    assert_soda_error(&r, 400, "query.soql.no-such-column");
    for unsupported in [
        "n > '3'",
        "n > 3",
        ":updated_at < '2021-01-01' OR n = '1'",
        ":version = 'x'",
    ] {
        let r = get(
            &server,
            &format!("/resource/{SODA}.json?$where={}", enc(unsupported)),
        );
        assert_soda_error(&r, 400, "query.compiler.malformed");
    }
    let r = get(
        &server,
        &format!(
            "/resource/{SODA}.json?$where={}",
            enc(":updated_at > 'soon'")
        ),
    );
    assert_soda_error(&r, 400, "query.soql.type-mismatch");
    let r = get(&server, &format!("/resource/{SODA}.json?$limit=ten"));
    assert_soda_error(&r, 400, "query.soql.type-mismatch");
    let r = get(&server, &format!("/resource/{SODA}.json?$group=name"));
    assert_soda_error(&r, 400, "query.soql.invalid-parameters");
    let r = get(&server, "/resource/nope-nope.json");
    assert_soda_error(&r, 404, "not_found");
}

#[test]
fn equality_filters_and_app_token_parameter() {
    let (_world, server) = serve();
    let r = get(
        &server,
        &format!("/resource/{SODA}.json?note=even&$$app_token=abc"),
    );
    assert_eq!(rows(&r.json()).len(), 13);
    let r = get(&server, &format!("/resource/{SODA}.json?n=7"));
    assert_eq!(rows(&r.json())[0]["name"], json!("row 07"));
}
