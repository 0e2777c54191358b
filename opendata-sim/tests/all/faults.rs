//! Injected faults and the request log, over HTTP.

use crate::support::{LAYER, SODA, get, get_with, lock, serve};
use opendata_sim::Fault;
use serde_json::{Value, json};

fn soda_page(server: &opendata_sim::Server, offset: usize) -> Vec<i64> {
    let r = get(
        server,
        &format!("/resource/{SODA}.json?$order=n&$limit=10&$offset={offset}"),
    );
    assert_eq!(r.status, 200);
    r.json()
        .as_array()
        .expect("rows")
        .iter()
        .map(|row| row["n"].as_str().and_then(|s| s.parse().ok()).expect("n"))
        .collect()
}

#[test]
fn down_answers_503_html_for_n_requests() {
    let (world, server) = serve();
    lock(&world)
        .faults_mut()
        .inject(SODA, Fault::Down { requests: 2 });
    for _ in 0..2 {
        let r = get(&server, &format!("/resource/{SODA}.json"));
        assert_eq!(r.status, 503);
        assert!(
            r.header("Content-Type")
                .is_some_and(|t| t.starts_with("text/html"))
        );
        assert!(r.text().contains("<html>"));
    }
    assert_eq!(get(&server, &format!("/resource/{SODA}.json")).status, 200);
    // Other datasets are untouched.
    lock(&world)
        .faults_mut()
        .inject(SODA, Fault::Down { requests: 1 });
    assert_eq!(get(&server, &format!("{LAYER}?f=json")).status, 200);
    let log = lock(&world).faults().log().to_vec();
    assert_eq!(log.iter().filter(|e| e.fault == Some("down")).count(), 2);
    assert_eq!(log[0].status, 503);
    assert_eq!(log[0].dataset.as_deref(), Some(SODA));
}

#[test]
fn too_many_requests_in_each_protocols_shape() {
    let (world, server) = serve();
    lock(&world).faults_mut().inject(
        SODA,
        Fault::TooManyRequests {
            requests: 1,
            retry_after_secs: 7,
            hits_app_token: false,
        },
    );
    // A request with an app token is spared and does not consume the fault.
    let spared = get_with(
        &server,
        &format!("/resource/{SODA}.json"),
        &[("X-App-Token", "tok")],
    );
    assert_eq!(spared.status, 200);
    let r = get(&server, &format!("/resource/{SODA}.json"));
    assert_eq!(r.status, 429);
    assert_eq!(r.header("Retry-After"), Some("7"));
    assert_eq!(r.json()["error"], json!(true));
    assert_eq!(get(&server, &format!("/resource/{SODA}.json")).status, 200);

    lock(&world).faults_mut().inject(
        "test-layer",
        Fault::TooManyRequests {
            requests: 1,
            retry_after_secs: 3,
            hits_app_token: true,
        },
    );
    let r = get_with(
        &server,
        &format!("{LAYER}/query?where=1=1&f=json"),
        &[("X-App-Token", "tok")],
    );
    assert_eq!(r.status, 429);
    assert_eq!(r.json()["error"]["code"], json!(429));
}

#[test]
fn truncated_page_cuts_the_body_with_a_matching_length() {
    let (world, server) = serve();
    let whole = get(&server, &format!("/resource/{SODA}.json?$order=n"))
        .body
        .len();
    lock(&world).faults_mut().inject(SODA, Fault::TruncatedPage);
    // `crate::support::get` asserts that Content-Length matches the (cut) body.
    let r = get(&server, &format!("/resource/{SODA}.json?$order=n"));
    assert_eq!(r.status, 200);
    assert_eq!(r.body.len(), whole / 2);
    assert!(serde_json::from_slice::<Value>(&r.body).is_err());

    // ArcGIS: metadata requests do not consume a page fault; the next query page does.
    lock(&world)
        .faults_mut()
        .inject("test-layer", Fault::TruncatedPage);
    assert!(get(&server, &format!("{LAYER}?f=json")).json().is_object());
    let r = get(
        &server,
        &format!("{LAYER}/query?where=1=1&returnCountOnly=true&f=json"),
    );
    assert_eq!(r.json(), json!({"count": 25}));
    let r = get(
        &server,
        &format!("{LAYER}/query?where=1=1&outFields=*&f=json"),
    );
    assert!(serde_json::from_slice::<Value>(&r.body).is_err());
    assert!(lock(&world).faults().pending("test-layer").is_empty());
}

#[test]
fn repeated_and_skipped_rows_shift_later_pages() {
    let (world, server) = serve();
    lock(&world).faults_mut().inject(SODA, Fault::RepeatedRows);
    assert_eq!(
        soda_page(&server, 0),
        (0..10).collect::<Vec<_>>(),
        "offset 0 is not affected"
    );
    assert_eq!(
        soda_page(&server, 10),
        (5..15).collect::<Vec<_>>(),
        "overlaps the previous page"
    );
    assert_eq!(soda_page(&server, 20), (20..25).collect::<Vec<_>>());

    lock(&world).faults_mut().inject(SODA, Fault::SkippedRows);
    assert_eq!(soda_page(&server, 0), (0..10).collect::<Vec<_>>());
    assert_eq!(
        soda_page(&server, 10),
        (15..25).collect::<Vec<_>>(),
        "leaves a gap"
    );

    lock(&world)
        .faults_mut()
        .inject("test-layer", Fault::SkippedRows);
    let r = get(
        &server,
        &format!("{LAYER}/query?where=1=1&resultOffset=10&resultRecordCount=4&f=json"),
    );
    let first = r.json()["features"][0]["attributes"]["OBJECTID"].clone();
    assert_eq!(first, json!(13), "offset 10 + 4/2 -> the 13th row");
}

#[test]
fn private_until_cleared() {
    let (world, server) = serve();
    lock(&world)
        .faults_mut()
        .inject("test-layer", Fault::Private);
    lock(&world).faults_mut().inject(SODA, Fault::Private);
    for _ in 0..2 {
        let v = get(&server, &format!("{LAYER}/query?where=1=1&f=json")).json();
        assert_eq!(
            v,
            json!({"error": {"code": 499, "message": "Token Required", "details": []}})
        );
        let r = get(&server, &format!("/resource/{SODA}.json"));
        assert_eq!(r.status, 403);
        assert_eq!(r.json()["code"], json!("permission_denied"));
        assert_eq!(r.json()["error"], json!(true));
    }
    lock(&world).faults_mut().clear("test-layer");
    assert!(
        get(&server, &format!("{LAYER}/query?where=1=1&f=json"))
            .json()
            .get("features")
            .is_some()
    );
    assert_eq!(get(&server, &format!("/resource/{SODA}.json")).status, 403);
}

#[test]
fn faults_queue_in_order_and_via_control_surface() {
    let (world, server) = serve();
    let r = get(
        &server,
        &format!("/_sim/fault?dataset={SODA}&kind=down&n=1"),
    );
    assert_eq!(r.json()["pending"], json!(["down"]));
    let r = get(
        &server,
        &format!("/_sim/fault?dataset={SODA}&kind=too_many_requests&retry_after=9"),
    );
    assert_eq!(r.json()["pending"], json!(["down", "too_many_requests"]));
    assert_eq!(get(&server, &format!("/resource/{SODA}.json")).status, 503);
    let r = get(&server, &format!("/resource/{SODA}.json"));
    assert_eq!((r.status, r.header("Retry-After")), (429, Some("9")));
    assert_eq!(get(&server, &format!("/resource/{SODA}.json")).status, 200);
    assert_eq!(
        get(&server, &format!("/_sim/fault?dataset={SODA}&kind=bogus")).status,
        400
    );
    assert_eq!(
        get(&server, "/_sim/fault?dataset=nope&kind=down").status,
        404
    );
    get(&server, &format!("/_sim/fault?dataset={SODA}&kind=private"));
    assert_eq!(get(&server, &format!("/resource/{SODA}.json")).status, 403);
    get(&server, &format!("/_sim/fault?dataset={SODA}&kind=clear"));
    assert_eq!(get(&server, &format!("/resource/{SODA}.json")).status, 200);
    let log = get(&server, "/_sim/log").json();
    let statuses: Vec<u64> = log
        .as_array()
        .expect("log")
        .iter()
        .filter_map(|e| e["status"].as_u64())
        .collect();
    assert_eq!(statuses, [503, 429, 200, 403, 200]);
    assert_eq!(
        lock(&world).faults().log().len(),
        5,
        "control requests are not logged"
    );
}
