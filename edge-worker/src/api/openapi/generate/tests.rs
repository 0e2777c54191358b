//! The served documents are the generated ones: each test fails on a document that
//! differs from what the route table and the types give, and `UPDATE_OPENAPI=1`
//! (`make openapi`) writes it instead.

use std::path::PathBuf;

use super::{Api, document};
use crate::api::openapi::{PORTAL_OPENAPI, PREDICTION_OPENAPI, ROUTER_OPENAPI};

const fn served(api: Api) -> &'static str {
    match api {
        Api::Prediction => PREDICTION_OPENAPI,
        Api::Router => ROUTER_OPENAPI,
        Api::Portal => PORTAL_OPENAPI,
    }
}

fn generated(api: Api) -> String {
    let document = document(api).unwrap_or_else(|why| panic!("{why}"));
    let mut text = serde_json::to_string_pretty(&document).expect("a document serialises");
    text.push('\n');
    text
}

fn check(api: Api) {
    let text = generated(api);
    if std::env::var_os("UPDATE_OPENAPI").is_some() {
        write_whole(
            &PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(api.file()),
            &text,
        );
        return;
    }
    assert!(
        served(api) == text,
        "edge-worker/{} is not what the route table and the types give: run `make openapi` \
         and commit the result",
        api.file()
    );
}

/// Writes `text` whole: a temporary file, then a rename, so a failed run leaves the
/// last document (the workspace's rule for every file written, clippy.toml).
#[allow(
    clippy::disallowed_methods,
    reason = "the Worker has no hexrisk_builder::atomic; this is the same temporary file and rename"
)]
fn write_whole(path: &std::path::Path, text: &str) {
    let temporary = path.with_extension("json.partial");
    std::fs::write(&temporary, text).expect("the document is written");
    std::fs::rename(&temporary, path).expect("the document is put in place");
}

#[test]
fn the_prediction_document_is_generated() {
    check(Api::Prediction);
}

#[test]
fn the_router_document_is_generated() {
    check(Api::Router);
}

#[test]
fn the_portal_document_is_generated() {
    check(Api::Portal);
}
