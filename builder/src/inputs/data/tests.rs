use super::*;
use std::io::Write;

const EMPTY_SHA256: &str = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

#[test]
fn parses_both_sum_forms_and_rejects_garbage() {
    let text = format!("{EMPTY_SHA256}  a/b.csv\n\n{EMPTY_SHA256} *c.gz\n");
    let entries = parse_sums(&text).unwrap();
    assert_eq!(entries[0].1, "a/b.csv");
    assert_eq!(entries[1].1, "c.gz");
    assert!(matches!(
        parse_sums("abc  file"),
        Err(DataError::MalformedSums { line: 1 })
    ));
    assert!(parse_sums(EMPTY_SHA256).is_err());
}

#[test]
fn verify_reports_good_bad_and_missing_files() {
    let dir = tempfile::tempdir().unwrap();
    File::create(dir.path().join("empty.csv")).unwrap();
    File::create(dir.path().join("changed.csv"))
        .unwrap()
        .write_all(b"x")
        .unwrap();
    let sums = format!(
        "{EMPTY_SHA256}  empty.csv\n{EMPTY_SHA256}  changed.csv\n{EMPTY_SHA256}  gone.csv\n"
    );
    std::fs::write(dir.path().join("SHA256SUMS"), sums).unwrap();
    let checks = verify(dir.path()).unwrap();
    let ok: Vec<bool> = checks.iter().map(FileCheck::is_ok).collect();
    assert_eq!(ok, [true, false, false]);
    assert_eq!(checks[2].actual, None);
    assert!(checks[1].actual.is_some());
}
