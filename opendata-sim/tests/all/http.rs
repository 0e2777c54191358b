//! The HTTP layer: bad input gets 400 (never a panic), HEAD, decoding, shutdown.

use crate::support::{SODA, get, parse, raw, serve};
use opendata_sim::http::{decode, parse_head};

#[test]
fn garbage_request_lines_get_400_and_the_server_survives() {
    let (_world, server) = serve();
    let garbage: Vec<Vec<u8>> = vec![
        b"\r\n\r\n".to_vec(),
        b"GET\r\n\r\n".to_vec(),
        b"GET /\r\n\r\n".to_vec(),
        b"GET / HTTP/1.1 extra\r\n\r\n".to_vec(),
        b"GET / FTP/1.0\r\n\r\n".to_vec(),
        b"get / HTTP/1.1\r\n\r\n".to_vec(),
        b"GET nothing HTTP/1.1\r\n\r\n".to_vec(),
        b"GET /resource/x.json?$limit=%G1 HTTP/1.1\r\n\r\n".to_vec(),
        b"GET /resource/x.json?$limit=%+1 HTTP/1.1\r\n\r\n".to_vec(),
        b"GET /resource/%FF.json HTTP/1.1\r\n\r\n".to_vec(),
        b"GET /?a=%E2%82 HTTP/1.1\r\n\r\n".to_vec(),
        b"GET / HTTP/1.1\r\nno colon here\r\n\r\n".to_vec(),
        b"GET / HTTP/1.1\r\nbad name: x\r\n\r\n".to_vec(),
        vec![0xFF, 0xFE, b'\r', b'\n', b'\r', b'\n'],
        b"\x00\x01\x02 / HTTP/1.1\r\n\r\n".to_vec(),
        b"GET / HTTP/1.1\r\nHost: x".to_vec(),
    ];
    for request in &garbage {
        let reply = parse(&raw(&server, request), false);
        assert_eq!(reply.status, 400, "{:?}", String::from_utf8_lossy(request));
    }
    // A pseudo-random byte soup, deterministic.
    let mut state = 0x1234_5678_u64;
    for _ in 0..60 {
        let mut bytes = Vec::new();
        for _ in 0..(state % 80) {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            bytes.push((state >> 33) as u8);
        }
        bytes.extend_from_slice(b"\r\n\r\n");
        let answer = raw(&server, &bytes);
        assert!(
            answer.is_empty() || answer.starts_with(b"HTTP/1.1 "),
            "{answer:?}"
        );
    }
    assert_eq!(
        get(&server, &format!("/resource/{SODA}.json?$limit=1")).status,
        200
    );
}

#[test]
fn other_methods_oversized_heads_and_unknown_paths() {
    let (_world, server) = serve();
    let reply = parse(
        &raw(
            &server,
            b"POST /resource/x.json HTTP/1.1\r\nContent-Length: 0\r\n\r\n",
        ),
        false,
    );
    assert_eq!(reply.status, 405);
    assert_eq!(reply.header("Allow"), Some("GET, HEAD"));
    let mut huge = b"GET /?a=".to_vec();
    huge.extend(std::iter::repeat_n(b'a', 70 * 1024));
    huge.extend_from_slice(b" HTTP/1.1\r\n\r\n");
    assert_eq!(parse(&raw(&server, &huge), false).status, 431);
    assert_eq!(get(&server, "/nothing/here").status, 404);
    // Absolute-form targets are accepted.
    assert_eq!(
        get(
            &server,
            &format!("http://127.0.0.1/resource/{SODA}.json?$limit=1")
        )
        .status,
        200
    );
    // Bare LF line endings are accepted.
    let reply = parse(
        &raw(
            &server,
            format!("GET /resource/{SODA}.json?$limit=1 HTTP/1.0\n\n").as_bytes(),
        ),
        false,
    );
    assert_eq!(reply.status, 200);
}

#[test]
fn head_sends_the_length_without_a_body() {
    let (_world, server) = serve();
    let full = get(&server, &format!("/resource/{SODA}.json?$order=n"));
    let bytes = raw(
        &server,
        format!("HEAD /resource/{SODA}.json?$order=n HTTP/1.1\r\n\r\n").as_bytes(),
    );
    let head = parse(&bytes, true);
    assert_eq!(head.status, 200);
    assert_eq!(
        head.header("Content-Length"),
        Some(full.body.len().to_string().as_str())
    );
}

#[test]
fn decoding_rules() {
    assert_eq!(decode("a+b%20c%2B", true).as_deref(), Some("a b c+"));
    assert_eq!(decode("a+b", false).as_deref(), Some("a+b"));
    assert_eq!(decode("%zz", true), None);
    assert_eq!(decode("%4", true), None);
    assert_eq!(decode("%C3%A9", true).as_deref(), Some("é"));
    let req =
        parse_head(b"GET /p%20q?$where=%3Aupdated_at+%3E+'x'&flag HTTP/1.1\r\nX-App-Token: t\r\n")
            .expect("parses");
    assert_eq!(req.path, "/p q");
    assert_eq!(req.param("$where"), Some(":updated_at > 'x'"));
    assert_eq!(req.param("flag"), Some(""));
    assert_eq!(req.header("x-app-token"), Some("t"));
}

#[test]
fn stop_closes_the_port() {
    let (_world, mut server) = serve();
    let addr = server.base_url().trim_start_matches("http://").to_owned();
    server.stop();
    assert!(std::net::TcpStream::connect(addr).is_err());
}
