use super::*;

#[test]
fn replaces_the_file_and_leaves_no_temporary() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sub/out.json");
    write(&path, b"old").unwrap();
    write(&path, b"new").unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), b"new");
    let names: Vec<_> = std::fs::read_dir(dir.path().join("sub"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["out.json"]);
}

#[test]
fn a_failed_write_keeps_the_old_content() {
    let dir = tempfile::tempdir().unwrap();
    // A directory where the file should go: the rename fails.
    let path = dir.path().join("taken");
    std::fs::create_dir(path.join("x").parent().unwrap()).unwrap();
    std::fs::write(path.join("x"), b"inside").unwrap();
    assert!(write(&path, b"new").is_err());
    assert_eq!(std::fs::read(path.join("x")).unwrap(), b"inside");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}
