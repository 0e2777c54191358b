use super::*;

#[test]
fn a_second_lock_is_refused_until_the_first_is_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let held = exclusive(dir.path()).unwrap();
    // A lock through another open file description conflicts, as another process's would.
    assert!(matches!(exclusive(dir.path()), Err(LockError::Busy(_))));
    drop(held);
    assert!(exclusive(dir.path()).is_ok());
}
