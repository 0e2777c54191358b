//! The portal API's OpenAPI document lists exactly the portal's routes in the route
//! table, and is served as it is written.

use std::collections::BTreeSet;

use http::Method;
use serde_json::Value;

use super::Call;
use crate::api::openapi::PORTAL_OPENAPI;
use crate::api::routes::{self, Access, Answer, ROUTES};
use crate::api::test_support::MemoryBackend;

#[test]
fn the_document_lists_every_route_and_no_other() {
    let doc: Value = serde_json::from_str(PORTAL_OPENAPI).unwrap();
    let documented: BTreeSet<(String, String)> = doc["paths"]
        .as_object()
        .unwrap()
        .iter()
        .flat_map(|(path, ops)| {
            ops.as_object()
                .unwrap()
                .keys()
                .map(move |m| (path.clone(), m.to_uppercase()))
        })
        .filter(|(path, _)| path != "/portal/api/openapi.json")
        .collect();
    let routed: BTreeSet<(String, String)> = ROUTES
        .iter()
        .filter(|route| matches!(route.answer, Answer::Portal(_)))
        .map(|route| (route.path.to_owned(), route.method.as_str().to_owned()))
        .collect();
    assert_eq!(documented, routed);
}

#[test]
fn the_document_marks_exactly_the_public_routes_as_needing_no_session() {
    let doc: Value = serde_json::from_str(PORTAL_OPENAPI).unwrap();
    for route in ROUTES
        .iter()
        .filter(|route| matches!(route.answer, Answer::Portal(_)))
    {
        let op = &doc["paths"][route.path][route.method.as_str().to_lowercase()];
        let open = op["security"].as_array().is_some_and(Vec::is_empty);
        assert_eq!(
            open,
            route.access == Access::Public,
            "{} {}: security {}",
            route.method,
            route.path,
            op["security"]
        );
    }
}

#[test]
fn the_document_is_served_without_a_session() {
    let backend = MemoryBackend::new();
    let mut call = Call::new(Method::GET, "/portal/api/openapi.json", None);
    call.origin = None;
    let (status, body, answer) = call.send(&backend);
    assert_eq!(status, 200);
    assert_eq!(
        answer.headers()["content-type"],
        "application/json; charset=utf-8"
    );
    assert_eq!(body["info"]["title"], "hexrisk partner portal API");
}

#[test]
fn a_path_a_route_spells_out_is_no_id_of_another() {
    let backend = MemoryBackend::new();
    // `options` is the literal route's, not a passkey's id.
    let (status, body, answer) =
        Call::new(Method::DELETE, "/portal/api/passkeys/options", None).send(&backend);
    assert_eq!(status, 405, "{body}");
    assert_eq!(answer.headers()["allow"], "POST");
}

#[test]
fn the_documents_path_ids_are_what_the_route_table_takes() {
    let doc: Value = serde_json::from_str(PORTAL_OPENAPI).unwrap();
    let mut seen = 0;
    for (path, item) in doc["paths"].as_object().unwrap() {
        for op in item.as_object().unwrap().values() {
            for parameter in op["parameters"].as_array().into_iter().flatten() {
                if parameter["in"] == "path" {
                    assert_eq!(parameter["name"], "id", "{path}");
                    assert_eq!(
                        parameter["schema"]["pattern"], "^[A-Za-z0-9_-]{1,1400}$",
                        "{path}"
                    );
                    seen += 1;
                }
            }
        }
    }
    assert!(seen > 0);
    // The pattern's alphabet and lengths, as the table finds a route by them.
    let table = routes::Table::SERVED;
    let found = |id: &str| {
        table
            .find(&format!("/portal/api/keys/{id}"), &Method::DELETE)
            .ok()
            .and_then(|found| found.id)
            .map(str::to_owned)
    };
    for id in ["a".repeat(1400), "AZaz09-_".to_owned()] {
        assert_eq!(found(&id), Some(id.clone()));
    }
    for id in ["a".repeat(1401), "a.b".to_owned(), "a~b".to_owned()] {
        assert_eq!(found(&id), None, "{id}");
    }
}
