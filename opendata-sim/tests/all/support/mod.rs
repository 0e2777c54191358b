//! Shared test helpers: a tiny std-only HTTP client and small hand-made datasets.
#![allow(dead_code, unreachable_pub)]

pub mod cities;

use std::fmt::Write as _;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::{DateTime, TimeZone, Utc};
use opendata_sim::{Dataset, Field, FieldType, NewRow, Point, Server, World};
use serde_json::{Map, Value, json};

/// A parsed HTTP response.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// Sends raw bytes and returns everything the server answered.
pub fn raw(server: &Server, request: &[u8]) -> Vec<u8> {
    let addr = server.base_url().trim_start_matches("http://").to_owned();
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .expect("timeout");
    // The server may answer (and close) before reading everything of a bad request.
    let _ = stream.write_all(request);
    let _ = stream.shutdown(std::net::Shutdown::Write);
    let mut out = Vec::new();
    let _ = stream.read_to_end(&mut out);
    out
}

/// Parses a response, checking that `Content-Length` matches the body.
pub fn parse(bytes: &[u8], head_only: bool) -> Reply {
    let end = bytes
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("response head");
    let head = std::str::from_utf8(&bytes[..end]).expect("UTF-8 head");
    let mut lines = head.split("\r\n");
    let status_line = lines.next().expect("status line");
    assert!(status_line.starts_with("HTTP/1.1 "), "{status_line}");
    let status = status_line[9..12].parse().expect("status");
    let headers: Vec<(String, String)> = lines
        .map(|l| {
            let (k, v) = l.split_once(": ").expect("header");
            (k.to_owned(), v.to_owned())
        })
        .collect();
    let body = bytes[end + 4..].to_vec();
    let reply = Reply {
        status,
        headers,
        body,
    };
    let length: usize = reply
        .header("Content-Length")
        .expect("Content-Length")
        .parse()
        .expect("length");
    if head_only {
        assert!(reply.body.is_empty());
    } else {
        assert_eq!(
            length,
            reply.body.len(),
            "Content-Length must match the body"
        );
    }
    assert_eq!(reply.header("Connection"), Some("close"));
    reply
}

/// Percent-encodes what a URL query cannot carry as is.
pub fn enc(s: &str) -> String {
    s.replace('%', "%25")
        .replace(' ', "%20")
        .replace('\'', "%27")
        .replace('>', "%3E")
        .replace('=', "%3D")
}

/// `GET target` (target already encoded).
pub fn get(server: &Server, target: &str) -> Reply {
    get_with(server, target, &[])
}

/// `GET target` with extra headers.
pub fn get_with(server: &Server, target: &str, headers: &[(&str, &str)]) -> Reply {
    let mut req = format!("GET {target} HTTP/1.1\r\nHost: localhost\r\n");
    for (k, v) in headers {
        let _ = write!(req, "{k}: {v}\r\n");
    }
    req.push_str("\r\n");
    parse(&raw(server, req.as_bytes()), false)
}

pub fn at(y: i32, m: u32, d: u32, h: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(y, m, d, h, 0, 0)
        .single()
        .expect("valid time")
}

pub const SODA: &str = "test-soda";
pub const LAYER: &str = "/test/arcgis/rest/services/Test_Layer/FeatureServer/0";
pub const MAP_LAYER: &str = "/test/arcgis/rest/services/Map_Layer/MapServer/3";

fn small(i: usize) -> i64 {
    i64::try_from(i).expect("small number")
}

fn fields(map: &Value) -> Map<String, Value> {
    map.as_object().cloned().expect("object")
}

/// A Socrata dataset of `n` rows, row `i` published at 2021-01-01 + i hours.
pub fn socrata_dataset(n: usize) -> Dataset {
    let mut ds = Dataset::socrata(
        SODA,
        "Test",
        vec![
            Field::new("name", FieldType::Text),
            Field::new("n", FieldType::Integer),
            Field::new("x", FieldType::Double),
            Field::new("when", FieldType::Date),
            Field::new("note", FieldType::Text),
        ],
    );
    for i in 0..n {
        let note = if i % 2 == 0 {
            json!("even")
        } else {
            Value::Null
        };
        let row = NewRow {
            key: format!("k{i}"),
            fields: fields(
                &json!({"name": format!("row {i:02}"), "n": i, "x": 0.5 + i as f64,
                                  "when": "2020-12-31T10:00:00.000", "note": note}),
            ),
            point: None,
        };
        ds.publish([row], at(2021, 1, 1, 0) + chrono::Duration::hours(small(i)));
    }
    ds
}

const CATEGORIES: [&str; 3] = ["Assault", "Robbery", "Auto Theft"];

/// An ArcGIS layer (max record count 10) of `n` rows with points.
pub fn arcgis_dataset(name: &str, path: &str, n: usize) -> Dataset {
    let mut ds = Dataset::arcgis(
        name,
        "Test layer",
        path,
        vec![
            Field::new("CATEGORY", FieldType::Text),
            Field::new("OCC_DATE", FieldType::Date),
            Field::new("SCORE", FieldType::Double),
        ],
        true,
    )
    .with_max_record_count(10);
    let rows = (0..n).map(|i| NewRow {
        key: format!("a{i}"),
        fields: fields(&json!({"CATEGORY": CATEGORIES[i % 3],
                              "OCC_DATE": 1_609_477_200_000_i64 + small(i) * 86_400_000,
                              "SCORE": i as f64 / 4.0})),
        point: Some(Point {
            x: -79.4 + i as f64 * 0.001,
            y: 43.7,
        }),
    });
    ds.publish(rows, at(2021, 1, 5, 10));
    ds
}

/// A world with the Socrata dataset (25 rows), a FeatureServer layer (25 rows) and a
/// MapServer layer (5 rows), and a server for it.
pub fn serve() -> (Arc<Mutex<World>>, Server) {
    let mut world = World::new(at(2021, 1, 5, 10), 42);
    world.add_dataset(socrata_dataset(25));
    world.add_dataset(arcgis_dataset("test-layer", LAYER, 25));
    world.add_dataset(arcgis_dataset("map-layer", MAP_LAYER, 5));
    let world = world.into_shared();
    let server = Server::start(Arc::clone(&world)).expect("server starts");
    (world, server)
}

/// Locks the world.
pub fn lock(world: &Arc<Mutex<World>>) -> std::sync::MutexGuard<'_, World> {
    world.lock().expect("world lock")
}
