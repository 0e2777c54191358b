//! A minimal HTTP/1.1 server on 127.0.0.1: one thread per connection, GET and HEAD only.
//!
//! It reads at most 64 KiB of request head, parses the request line and headers,
//! percent-decodes the path and the query (`+` is a space in the query), hands the
//! request to the router and answers with `Connection: close` and an exact
//! `Content-Length`. Malformed input gets a 400; nothing a client sends makes it panic.

use std::fmt::Write as _;
use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use serde_json::Value;

use crate::script::World;

/// The most request head (request line and headers) the server reads.
const MAX_HEAD: usize = 64 * 1024;

/// A parsed request.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Request {
    /// `GET` or `HEAD`.
    pub method: String,
    /// The decoded path.
    pub path: String,
    /// The raw query string (after `?`, undecoded), for the request log.
    pub raw_query: String,
    /// Decoded query parameters in order.
    pub query: Vec<(String, String)>,
    /// Headers, names lower-cased.
    pub headers: Vec<(String, String)>,
}

impl Request {
    /// The first value of query parameter `name`.
    #[must_use]
    pub fn param(&self, name: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
    /// The first value of header `name` (lower case).
    #[must_use]
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A response to send.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Response {
    /// Status code.
    pub status: u16,
    /// Extra headers (Content-Length and Connection are added when sending).
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Vec<u8>,
}

impl Response {
    /// A body with a content type.
    #[must_use]
    pub fn new(status: u16, content_type: &str, body: impl Into<Vec<u8>>) -> Response {
        Response {
            status,
            headers: vec![("Content-Type".into(), content_type.into())],
            body: body.into(),
        }
    }
    /// A compact JSON body.
    #[must_use]
    pub fn json(status: u16, value: &Value) -> Response {
        Response::new(status, "application/json; charset=utf-8", value.to_string())
    }
    /// A plain-text body.
    #[must_use]
    pub fn text(status: u16, text: &str) -> Response {
        Response::new(status, "text/plain; charset=utf-8", text)
    }
    /// Adds a header.
    #[must_use]
    pub fn with_header(mut self, name: &str, value: &str) -> Response {
        self.headers.push((name.into(), value.into()));
        self
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        429 => "Too Many Requests",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Unknown",
    }
}

/// A running server; dropping it stops it.
#[derive(Debug)]
pub struct Server {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Server {
    /// Starts serving `state` on a free port of 127.0.0.1.
    ///
    /// # Errors
    /// When the socket cannot be bound.
    pub fn start(state: Arc<Mutex<World>>) -> io::Result<Server> {
        Server::start_on(state, 0)
    }

    /// Starts serving `state` on `port` of 127.0.0.1 (0: any free port).
    ///
    /// # Errors
    /// When the socket cannot be bound.
    pub fn start_on(state: Arc<Mutex<World>>, port: u16) -> io::Result<Server> {
        let listener = TcpListener::bind(("127.0.0.1", port))?;
        let addr = listener.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let thread = std::thread::Builder::new()
            .name("opendata-sim-accept".into())
            .spawn(move || {
                for stream in listener.incoming() {
                    if flag.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(stream) = stream else { continue };
                    let state = Arc::clone(&state);
                    // A connection that cannot get a thread is dropped; the client sees a reset.
                    let _ = std::thread::Builder::new().spawn(move || serve(stream, &state));
                }
            })?;
        Ok(Server {
            addr,
            stop,
            thread: Some(thread),
        })
    }

    /// `http://127.0.0.1:PORT`.
    #[must_use]
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The bound port.
    #[must_use]
    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// Stops accepting connections and waits for the accept thread to end.
    pub fn stop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(thread) = self.thread.take() {
            // Wake the blocking accept so it sees the flag.
            let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
            let _ = thread.join();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}

fn serve(mut stream: TcpStream, state: &Arc<Mutex<World>>) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let _ = stream.set_write_timeout(Some(Duration::from_secs(10)));
    let (response, head_only) = match read_head(&mut stream) {
        Ok(None) => return,
        Ok(Some(head)) => match parse_head(&head) {
            Ok(req) => {
                let head_only = req.method == "HEAD";
                let response = catch_unwind(AssertUnwindSafe(|| {
                    let mut world = state.lock().unwrap_or_else(PoisonError::into_inner);
                    crate::router::route(&mut world, &req)
                }))
                .unwrap_or_else(|_| Response::text(500, "internal error\n"));
                (response, head_only)
            }
            Err(resp) => (resp, false),
        },
        Err(resp) => (resp, false),
    };
    let _ = write_response(&mut stream, &response, head_only);
}

/// Reads up to the blank line ending the head. `Ok(None)` when the peer sent nothing.
fn read_head(stream: &mut TcpStream) -> Result<Option<Vec<u8>>, Response> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 4096];
    loop {
        if let Some(end) = find_head_end(&buf) {
            buf.truncate(end);
            return Ok(Some(buf));
        }
        if buf.len() >= MAX_HEAD {
            return Err(Response::text(431, "request head over 64 KiB\n"));
        }
        let want = chunk.len().min(MAX_HEAD - buf.len());
        match stream.read(&mut chunk[..want]) {
            Ok(n) if n > 0 => buf.extend_from_slice(&chunk[..n]),
            _ if buf.is_empty() => return Ok(None),
            _ => return Err(Response::text(400, "incomplete request head\n")),
        }
    }
}

fn find_head_end(buf: &[u8]) -> Option<usize> {
    let crlf = buf.windows(4).position(|w| w == b"\r\n\r\n");
    let lf = buf.windows(2).position(|w| w == b"\n\n");
    match (crlf, lf) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

fn bad(msg: &str) -> Response {
    Response::text(400, &format!("bad request: {msg}\n"))
}

/// Parses a request head (without the closing blank line).
///
/// # Errors
/// The response to send when the head is malformed or asks for something unsupported.
pub fn parse_head(head: &[u8]) -> Result<Request, Response> {
    let text = std::str::from_utf8(head).map_err(|_| bad("head is not UTF-8"))?;
    let mut lines = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l));
    let line = lines.next().unwrap_or_default();
    let parts: Vec<&str> = line.split(' ').collect();
    let [method, target, version] = parts[..] else {
        return Err(bad("malformed request line"));
    };
    if !version.starts_with("HTTP/1.") || version.len() != 8 {
        return Err(bad("unsupported HTTP version"));
    }
    if method.is_empty() || !method.bytes().all(|b| b.is_ascii_uppercase()) {
        return Err(bad("malformed method"));
    }
    if method != "GET" && method != "HEAD" {
        return Err(Response::text(405, "only GET and HEAD\n").with_header("Allow", "GET, HEAD"));
    }
    let target = strip_authority(target).ok_or_else(|| bad("malformed target"))?;
    let (raw_path, raw_query) = target.split_once('?').unwrap_or((target, ""));
    let raw_query = raw_query.split('#').next().unwrap_or_default();
    let path = decode(raw_path, false).ok_or_else(|| bad("malformed path encoding"))?;
    let mut query = Vec::new();
    for pair in raw_query.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        let k = decode(k, true).ok_or_else(|| bad("malformed query encoding"))?;
        let v = decode(v, true).ok_or_else(|| bad("malformed query encoding"))?;
        query.push((k, v));
    }
    let mut headers = Vec::new();
    for line in lines.filter(|l| !l.is_empty()) {
        let (name, value) = line
            .split_once(':')
            .ok_or_else(|| bad("malformed header"))?;
        if name.is_empty() || name.contains(|c: char| c.is_whitespace()) {
            return Err(bad("malformed header name"));
        }
        headers.push((name.to_ascii_lowercase(), value.trim().to_owned()));
    }
    Ok(Request {
        method: method.to_owned(),
        path,
        raw_query: raw_query.to_owned(),
        query,
        headers,
    })
}

/// Accepts origin-form (`/p`) and absolute-form (`http://host/p`) targets.
fn strip_authority(target: &str) -> Option<&str> {
    if target.starts_with('/') {
        return Some(target);
    }
    let rest = target
        .strip_prefix("http://")
        .or_else(|| target.strip_prefix("https://"))?;
    rest.find('/').map(|i| &rest[i..])
}

/// Percent-decodes `s` (and `+` as space when `plus` is set); None on bad escapes or
/// bytes that are not UTF-8.
#[must_use]
pub fn decode(s: &str, plus: bool) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = bytes.get(i + 1..i + 3)?;
                if !hex.iter().all(u8::is_ascii_hexdigit) {
                    return None;
                }
                let hex = std::str::from_utf8(hex).ok()?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 3;
            }
            b'+' if plus => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

fn write_response(stream: &mut TcpStream, resp: &Response, head_only: bool) -> io::Result<()> {
    let mut out = format!("HTTP/1.1 {} {}\r\n", resp.status, reason(resp.status));
    for (name, value) in &resp.headers {
        let _ = write!(out, "{name}: {value}\r\n");
    }
    let _ = write!(
        out,
        "Content-Length: {}\r\nConnection: close\r\n\r\n",
        resp.body.len()
    );
    let mut bytes = out.into_bytes();
    if !head_only {
        bytes.extend_from_slice(&resp.body);
    }
    stream.write_all(&bytes)?;
    stream.flush()?;
    let _ = stream.shutdown(std::net::Shutdown::Write);
    Ok(())
}
