//! The page: served with its own content security policy, and written so that the
//! policy holds (no inline script or style, no event-handler attributes).

use http::Method;

use super::super::page::PAGE_CSP;
use super::Call;
use crate::api::test_support::MemoryBackend;

#[test]
fn the_page_is_served_under_a_policy_it_keeps() {
    let backend = MemoryBackend::new();
    for (path, content_type) in [
        ("/portal", "text/html; charset=utf-8"),
        ("/portal/", "text/html; charset=utf-8"),
        ("/portal/portal.js", "text/javascript; charset=utf-8"),
        ("/portal/portal.css", "text/css; charset=utf-8"),
    ] {
        let (status, _, answer) = Call::new(Method::GET, path, None).send(&backend);
        assert_eq!(status, 200, "{path}");
        let headers = answer.headers();
        assert_eq!(headers["content-type"], content_type);
        assert_eq!(headers["content-security-policy"], PAGE_CSP);
        assert_eq!(headers["x-frame-options"], "DENY");
        assert_eq!(headers["referrer-policy"], "no-referrer");
        assert_eq!(headers["x-content-type-options"], "nosniff");
    }
    assert!(PAGE_CSP.contains("script-src 'self'") && !PAGE_CSP.contains("unsafe"));
    let (_, _, page) = Call::new(Method::GET, "/portal", None).send(&backend);
    let html = String::from_utf8(page.body().to_vec()).unwrap();
    // Every script is a file of the page's own, and no element carries a handler.
    for (i, _) in html.match_indices("<script") {
        assert!(
            html[i..]
                .split('>')
                .next()
                .unwrap()
                .contains("src=\"/portal/"),
            "inline script at {i}"
        );
    }
    assert!(!html.contains("<style") && !html.contains(" style="));
    for tag in html
        .split('<')
        .skip(1)
        .map(|t| t.split('>').next().unwrap().to_ascii_lowercase())
    {
        let handler = tag.split_whitespace().skip(1).any(|attribute| {
            attribute.starts_with("on")
                && attribute
                    .split('=')
                    .next()
                    .is_some_and(|n| n.len() > 2 && n.bytes().all(|b| b.is_ascii_lowercase()))
                && attribute.contains('=')
        });
        assert!(!handler, "an event-handler attribute in <{tag}>");
    }
    assert_eq!(
        Call::new(Method::GET, "/portal/other.js", None)
            .send(&backend)
            .0,
        404
    );
}
