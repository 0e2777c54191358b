//! The CKAN and CSV feeds against a small local server answering as those
//! services document (CKAN's DataStore API `datastore_search`: `{"success",
//! "result": {"records", "total"}}`, errors as `{"success": false, "error":
//! {"message", "__type"}}`; a CSV file: a header and rows). opendata-sim speaks
//! Socrata and ArcGIS only; these answers are written here from the CKAN docs.

#![allow(clippy::disallowed_methods)]

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use hexrisk_builder::feeds::http::{HttpClient, Patience};
use hexrisk_builder::feeds::sync::{SyncError, SyncOptions, Synced, sync_source};
use hexrisk_builder::inputs::feed_config::{FeedConfig, FeedFields, OccurredAs, Protocol};
use hexrisk_builder::store::IncidentStore;
use serde_json::json;

/// Serves `answer(path_and_query)` → (status, body) on a local port, forever.
fn serve(answer: impl Fn(&str) -> (u16, String) + Send + 'static) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            if reader.read_line(&mut line).is_err() {
                continue;
            }
            // The rest of the head.
            let mut header = String::new();
            while reader.read_line(&mut header).is_ok_and(|n| n > 2) {
                header.clear();
            }
            let target = line.split_whitespace().nth(1).unwrap_or("/").to_owned();
            let (status, body) = answer(&target);
            let mut stream = stream;
            let _ = write!(
                stream,
                "HTTP/1.1 {status} X\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    url
}

fn fields() -> FeedFields {
    FeedFields {
        id: "_id".into(),
        event: None,
        occurred: "OCCURRED_ON".into(),
        occurred_as: OccurredAs::Instant,
        hour: None,
        reported: None,
        offence: vec!["OFFENSE".into()],
        description: None,
        premises: None,
        latitude: "Lat".into(),
        longitude: "Long".into(),
    }
}

fn feed(protocol: Protocol, url: String) -> FeedConfig {
    FeedConfig {
        protocol,
        url,
        page_size: Some(2),
        token_env: None,
        lag_days: 0,
        stale_after_days: 21,
        window_days: None,
        lookback_days: 7,
        reference: "test".into(),
        fields: fields(),
        classes: None,
        vocabulary: None,
        fold_case: false,
    }
}

fn client() -> HttpClient {
    HttpClient::new(Patience {
        attempts: 2,
        first_pause: Duration::from_millis(1),
        longest_pause: Duration::from_millis(5),
        timeout: Duration::from_secs(10),
    })
}

fn now() -> DateTime<Utc> {
    "2024-03-04T12:00:00Z".parse().unwrap()
}

/// One sync of source `incidents` from `feed`.
fn sync(
    store: &mut IncidentStore,
    feed: &FeedConfig,
    tz: Tz,
    options: SyncOptions,
) -> Result<Synced, SyncError> {
    sync_source(store, "incidents", feed, tz, &client(), now(), options)
}

fn query_value<'a>(target: &'a str, name: &str) -> Option<&'a str> {
    target
        .split_once('?')?
        .1
        .split('&')
        .find_map(|pair| pair.strip_prefix(&format!("{name}=")))
}

#[test]
fn ckan_pages_by_offset_sorted_by_id_and_deletes_what_it_no_longer_serves() {
    let rows = Arc::new(Mutex::new(vec![
        json!({"_id": 1, "OFFENSE": "LARCENY", "OCCURRED_ON": "2024-03-01T10:00:00", "Lat": "42.35", "Long": "-71.06"}),
        json!({"_id": 2, "OFFENSE": "ROBBERY", "OCCURRED_ON": "2024-03-02T11:00:00", "Lat": "42.36", "Long": "-71.05"}),
        json!({"_id": 3, "OFFENSE": "LARCENY", "OCCURRED_ON": "2024-03-03T12:00:00", "Lat": "42.34", "Long": "-71.07"}),
    ]));
    let served = Arc::clone(&rows);
    let url = serve(move |target| {
        let rows = served.lock().unwrap();
        // Pages (not the count, `limit=0`) are sorted by the DataStore's `_id`.
        let offset = query_value(target, "offset").map(|v| v.parse::<usize>().unwrap());
        if offset.is_some() && query_value(target, "sort") != Some("_id%20asc") {
            return (409, format!("unsorted page: {target}"));
        }
        let offset = offset.unwrap_or(0);
        let limit: usize = query_value(target, "limit").unwrap().parse().unwrap();
        let records: Vec<_> = rows.iter().skip(offset).take(limit).cloned().collect();
        let body = json!({"success": true, "result": {"records": records, "total": rows.len()}});
        (200, body.to_string())
    });
    let feed = feed(
        Protocol::Ckan,
        format!("{url}/api/3/action/datastore_search?resource_id=abc"),
    );
    let tz = "America/New_York".parse().unwrap();
    let mut store = IncidentStore::in_memory().unwrap();
    let synced = sync(&mut store, &feed, tz, SyncOptions::default()).unwrap();
    assert_eq!((synced.pull.counts.added, synced.records), (3, 3));
    rows.lock().unwrap().remove(1);
    let synced = sync(&mut store, &feed, tz, SyncOptions::default()).unwrap_err();
    // A third of the resource gone at once is refused until the operator accepts.
    assert!(
        synced
            .to_string()
            .contains("no longer serves 1 of the 3 rows"),
        "{synced}"
    );
    assert_eq!(store.live_records("incidents").unwrap().len(), 3);
    let accept = SyncOptions {
        accept_mass_deletion: true,
        ..SyncOptions::default()
    };
    let synced = sync(&mut store, &feed, tz, accept).unwrap();
    assert_eq!((synced.pull.counts.deleted, synced.records), (1, 2));
    let ids: Vec<String> = store
        .live_records("incidents")
        .unwrap()
        .into_iter()
        .map(|r| r.id)
        .collect();
    assert_eq!(ids, ["1", "3"]);
}

#[test]
fn ckan_errors_come_back_in_its_own_shape_naming_the_source() {
    let url = serve(|_| {
        let body = json!({"success": false, "error": {"message": "Access denied", "__type": "Authorization Error"}});
        (403, body.to_string())
    });
    let feed = feed(
        Protocol::Ckan,
        format!("{url}/api/3/action/datastore_search?resource_id=abc"),
    );
    let mut store = IncidentStore::in_memory().unwrap();
    let error = sync(
        &mut store,
        &feed,
        "UTC".parse().unwrap(),
        SyncOptions::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(error.starts_with("source incidents: "), "{error}");
    assert!(
        error.contains("not public any more (Access denied)"),
        "{error}"
    );
}

#[test]
fn a_csv_file_is_read_whole_and_a_broken_one_is_refused_naming_its_line() {
    let body = Arc::new(Mutex::new(String::from(
        "_id,OFFENSE,OCCURRED_ON,Lat,Long\n1,LARCENY,2024-03-01T10:00:00,42.35,-71.06\n2,ROBBERY,2024-03-02,42.36,-71.05\n",
    )));
    let served = Arc::clone(&body);
    let url = serve(move |_| (200, served.lock().unwrap().clone()));
    let feed = feed(Protocol::CsvUrl, format!("{url}/incidents.csv"));
    let tz = "America/New_York".parse().unwrap();
    let mut store = IncidentStore::in_memory().unwrap();
    let synced = sync(&mut store, &feed, tz, SyncOptions::default()).unwrap();
    assert_eq!(synced.records, 2);
    let second = &store.live_records("incidents").unwrap()[1];
    assert_eq!(
        (second.offence.as_str(), second.lat),
        ("ROBBERY", Some(42.36))
    );
    body.lock().unwrap().push_str("3,LARCENY\n");
    let error = sync(&mut store, &feed, tz, SyncOptions::default())
        .unwrap_err()
        .to_string();
    assert!(error.contains("line 4"), "{error}");
    assert_eq!(
        store.live_records("incidents").unwrap().len(),
        2,
        "nothing lost"
    );
}
