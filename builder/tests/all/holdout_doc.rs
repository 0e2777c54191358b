//! The held-out routing section of `docs/ROUTING.md` is what `hexrisk-build
//! holdout-routes` writes from its report: when `build/bench/holdout-routes.json`
//! is there, the section must be its table exactly (a run that wrote the JSON but
//! not the document, or an edit by hand, fails here).

use std::path::PathBuf;

use hexrisk_builder::holdout::markdown;
use hexrisk_builder::holdout::report::Report;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

#[test]
fn routing_doc_has_the_section_of_the_last_holdout_report() {
    let doc = std::fs::read_to_string(root().join("docs/ROUTING.md")).unwrap();
    let section = markdown::current(&doc).expect("docs/ROUTING.md has the holdout-routes markers");
    let json = root().join("build/bench/holdout-routes.json");
    let Ok(bytes) = std::fs::read(&json) else {
        eprintln!("no {}: nothing to compare", json.display());
        return;
    };
    let report: Report = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(
        section,
        markdown::section(&report).trim_matches('\n'),
        "docs/ROUTING.md's holdout-routes section differs from {}; rerun `make bench-holdout`",
        json.display()
    );
}
