//! HTTP/1.1 messages: the parsed [`Request`], the [`Response`] to send, and parsing a
//! request head: the request line and headers, the path and the query percent-decoded
//! (`+` is a space in the query). Malformed input gets the 400 (or 405) to answer with.

use serde_json::Value;

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
