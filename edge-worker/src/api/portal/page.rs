//! The portal's page: three static files (`edge-worker/portal/`) and the product's
//! icon (`web-demo/icon.svg`, so that a page load asks for nothing it lacks), built
//! into the Worker and served with a content security policy that allows their own script
//! and style only (no inline script, no other origin, no framing).

use bytes::Bytes;
use http::header::{CACHE_CONTROL, CONTENT_SECURITY_POLICY, CONTENT_TYPE, HeaderValue};
use http::{Response, StatusCode};

use crate::api::plumbing::response;

/// The page's content security policy.
pub const PAGE_CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
     connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'self'; \
     frame-ancestors 'none'";

/// Path, content type and body of each file.
const FILES: [(&str, &str, &str); 5] = [
    (
        "/portal",
        "text/html; charset=utf-8",
        include_str!("../../../portal/index.html"),
    ),
    (
        "/portal/",
        "text/html; charset=utf-8",
        include_str!("../../../portal/index.html"),
    ),
    (
        "/portal/portal.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../portal/portal.js"),
    ),
    (
        "/portal/portal.css",
        "text/css; charset=utf-8",
        include_str!("../../../portal/portal.css"),
    ),
    (
        "/portal/icon.svg",
        "image/svg+xml",
        include_str!("../../../../web-demo/icon.svg"),
    ),
];

/// The file at `path`, if it is one of the page's.
#[must_use]
pub fn file(path: &str) -> Option<Response<Bytes>> {
    let (_, content_type, body) = FILES.iter().find(|(p, _, _)| *p == path)?;
    let mut answer = response::json_bytes(StatusCode::OK, Bytes::from_static(body.as_bytes()));
    let headers = answer.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(CONTENT_SECURITY_POLICY, HeaderValue::from_static(PAGE_CSP));
    // Revalidated on every load, so a new Worker's page is used at once.
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    Some(answer)
}
