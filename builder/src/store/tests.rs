//! The store's bookkeeping: pulls, pages, revisions, deletions, re-keyed rows
//! and resuming, on hand-made records.

use std::collections::HashSet;

use chrono::{DateTime, NaiveDate, TimeZone, Utc};

use super::IncidentStore;
use super::pulls::{PageFault, PullCounts, PullKind, PullState};
use super::reconcile::{Close, ReconcileFault};
use super::record::{FeedRecord, MarkedRecord};

fn at(day: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2021, 1, day, 12, 0, 0).unwrap()
}

fn record(id: &str, offence: &str) -> FeedRecord {
    FeedRecord {
        id: id.into(),
        event: None,
        occurred_date: NaiveDate::from_ymd_opt(2021, 1, 1),
        occurred_hour: Some(3),
        reported: None,
        offence: offence.into(),
        description: None,
        premises: None,
        lat: Some(43.7),
        lng: Some(-79.4),
    }
}

fn marked(records: &[FeedRecord], mark: Option<&str>) -> Vec<MarkedRecord> {
    records
        .iter()
        .map(|r| MarkedRecord {
            record: r.clone(),
            mark: mark.map(str::to_owned),
        })
        .collect()
}

/// One full pull of `pages`, closed.
fn full_pull(store: &mut IncidentStore, pages: &[Vec<FeedRecord>], day: u32) -> PullCounts {
    let pull = store
        .begin_pull("s", PullKind::Full, None, None, at(day))
        .unwrap();
    for page in pages {
        let current = store.running_pull("s").unwrap().unwrap();
        store
            .apply_page(&current, &marked(page, None))
            .unwrap()
            .unwrap();
    }
    let current = store.running_pull("s").unwrap().unwrap();
    assert_eq!(current.id, pull.id);
    store
        .finish_pull(&current, accepting(), at(day))
        .unwrap()
        .unwrap()
        .counts
}

/// A close that accepts any deletion (the bookkeeping tests delete a third of
/// a handful of rows).
fn accepting() -> Close<'static> {
    Close {
        accept_mass_deletion: true,
        ..Close::default()
    }
}

/// [`accepting`] with the service's list of ids.
fn served_only(served: &HashSet<String>) -> Close<'_> {
    Close {
        served: Some(served),
        ..accepting()
    }
}

fn live_ids(store: &IncidentStore) -> Vec<String> {
    store
        .live_records("s")
        .unwrap()
        .into_iter()
        .map(|r| r.id)
        .collect()
}

#[test]
fn full_pulls_add_revise_delete_and_restore() {
    let mut store = IncidentStore::in_memory().unwrap();
    let first = full_pull(
        &mut store,
        &[
            vec![record("1", "Assault"), record("2", "Robbery")],
            vec![record("3", "Assault")],
        ],
        1,
    );
    assert_eq!((first.fetched, first.added, first.deleted), (3, 3, 0));

    // Row 2 revised, row 3 gone, row 1 served again unchanged.
    let second = full_pull(
        &mut store,
        &[vec![record("1", "Assault"), record("2", "Assault")]],
        8,
    );
    assert_eq!(
        (
            second.unchanged,
            second.revised,
            second.deleted,
            second.added
        ),
        (1, 1, 1, 0)
    );
    assert_eq!(live_ids(&store), ["1", "2"]);
    assert_eq!(
        store.revisions_of("s", "2").unwrap(),
        [record("2", "Robbery")]
    );
    let all = store.all_records("s").unwrap();
    assert!(all.iter().any(|(r, deleted)| r.id == "3" && *deleted));

    // Row 3 back: restored, not added.
    let third = full_pull(
        &mut store,
        &[vec![
            record("1", "Assault"),
            record("2", "Assault"),
            record("3", "Assault"),
        ]],
        15,
    );
    assert_eq!((third.restored, third.added, third.unchanged), (1, 0, 2));
    assert_eq!(live_ids(&store), ["1", "2", "3"]);
}

#[test]
fn a_page_that_repeats_an_id_is_refused_whole() {
    let mut store = IncidentStore::in_memory().unwrap();
    let pull = store
        .begin_pull("s", PullKind::Full, None, None, at(1))
        .unwrap();
    let within = marked(&[record("1", "A"), record("1", "A")], None);
    assert_eq!(
        store.apply_page(&pull, &within).unwrap(),
        Err(PageFault::RepeatsWithin("1".into()))
    );
    assert!(live_ids(&store).is_empty());

    store
        .apply_page(&pull, &marked(&[record("1", "A"), record("2", "A")], None))
        .unwrap()
        .unwrap();
    let overlapping = marked(&[record("2", "A"), record("3", "A")], None);
    assert_eq!(
        store.apply_page(&pull, &overlapping).unwrap(),
        Err(PageFault::RepeatsEarlierPage("2".into()))
    );
    assert_eq!(
        live_ids(&store),
        ["1", "2"],
        "row 3 of the refused page was not stored"
    );
    let running = store.running_pull("s").unwrap().unwrap();
    assert_eq!((running.next_offset, running.counts.fetched), (2, 2));
}

#[test]
fn a_row_changed_while_the_pull_runs_is_a_later_version_not_a_repeat() {
    let mut store = IncidentStore::in_memory().unwrap();
    let pull = store
        .begin_pull("s", PullKind::Changed, Some("m0"), None, at(1))
        .unwrap();
    store
        .apply_page(&pull, &marked(&[record("1", "A")], Some("m1")))
        .unwrap()
        .unwrap();
    let counts = store
        .apply_page(&pull, &marked(&[record("1", "B")], Some("m2")))
        .unwrap()
        .unwrap();
    assert_eq!(counts.revised, 1);
    assert_eq!(
        store.running_pull("s").unwrap().unwrap().mark.as_deref(),
        Some("m2")
    );
}

#[test]
fn a_pull_stopped_midway_resumes_with_nothing_counted_twice() {
    let folder = tempfile::tempdir().unwrap();
    let pages = [
        vec![record("1", "A"), record("2", "A")],
        vec![record("3", "A"), record("4", "A")],
    ];
    {
        let mut store = IncidentStore::open(folder.path(), "city").unwrap();
        let pull = store
            .begin_pull("s", PullKind::Full, None, None, at(1))
            .unwrap();
        store
            .apply_page(&pull, &marked(&pages[0], None))
            .unwrap()
            .unwrap();
        // The process dies here: the store is dropped with the pull running.
    }
    let mut store = IncidentStore::open(folder.path(), "city").unwrap();
    let resumed = store.running_pull("s").unwrap().unwrap();
    assert_eq!(
        (resumed.next_offset, resumed.state),
        (2, PullState::Running)
    );
    store
        .apply_page(&resumed, &marked(&pages[1], None))
        .unwrap()
        .unwrap();
    let current = store.running_pull("s").unwrap().unwrap();
    let closed = store
        .finish_pull(&current, Close::default(), at(1))
        .unwrap()
        .unwrap();
    assert_eq!((closed.counts.fetched, closed.counts.added), (4, 4));
    assert_eq!(live_ids(&store), ["1", "2", "3", "4"]);
    assert!(store.running_pull("s").unwrap().is_none());
}

#[test]
fn a_wholesale_renumbering_keeps_each_record_and_its_history() {
    let mut store = IncidentStore::in_memory().unwrap();
    full_pull(
        &mut store,
        &[vec![record("1", "A"), record("2", "B"), record("3", "C")]],
        1,
    );
    full_pull(
        &mut store,
        &[vec![record("1", "A"), record("2", "Z"), record("3", "C")]],
        8,
    );
    // Truncate-and-append: the same three rows under new ids 11, 12, 13.
    let counts = full_pull(
        &mut store,
        &[vec![
            record("11", "A"),
            record("12", "Z"),
            record("13", "C"),
        ]],
        15,
    );
    assert_eq!((counts.rekeyed, counts.added, counts.deleted), (3, 0, 0));
    assert_eq!(live_ids(&store), ["11", "12", "13"]);
    assert_eq!(store.revisions_of("s", "12").unwrap(), [record("2", "B")]);
    let last = store.last_done_pull("s").unwrap().unwrap();
    assert!(last.replacement);
    assert_eq!(
        store.all_records("s").unwrap().len(),
        3,
        "no history duplicated"
    );
}

#[test]
fn a_changed_pull_finds_deletions_and_missing_rows_from_the_list_of_ids() {
    let mut store = IncidentStore::in_memory().unwrap();
    full_pull(&mut store, &[vec![record("1", "A"), record("2", "A")]], 1);
    let pull = store
        .begin_pull("s", PullKind::Changed, Some("m"), None, at(8))
        .unwrap();
    store
        .apply_page(&pull, &marked(&[record("3", "A")], Some("n")))
        .unwrap()
        .unwrap();
    let current = store.running_pull("s").unwrap().unwrap();
    let served: HashSet<String> = ["1", "3", "4"].map(String::from).into();
    let fault = store
        .finish_pull(&current, served_only(&served), at(8))
        .unwrap();
    assert!(fault.is_err(), "row 4 is served and was never received");
    assert_eq!(
        live_ids(&store),
        ["1", "2", "3"],
        "nothing deleted by a refused close"
    );

    let served: HashSet<String> = ["1", "3"].map(String::from).into();
    let closed = store
        .finish_pull(&current, served_only(&served), at(8))
        .unwrap()
        .unwrap();
    assert_eq!((closed.counts.added, closed.counts.deleted), (1, 1));
    assert_eq!(live_ids(&store), ["1", "3"]);
    assert_eq!(closed.mark.as_deref(), Some("n"));
}

#[test]
fn a_changed_pull_serving_everything_again_unchanged_is_a_replacement() {
    let mut store = IncidentStore::in_memory().unwrap();
    let rows: Vec<FeedRecord> = (0..20).map(|i| record(&i.to_string(), "A")).collect();
    full_pull(&mut store, std::slice::from_ref(&rows), 1);
    let pull = store
        .begin_pull("s", PullKind::Changed, Some("m"), None, at(8))
        .unwrap();
    store
        .apply_page(&pull, &marked(&rows, Some("n")))
        .unwrap()
        .unwrap();
    let current = store.running_pull("s").unwrap().unwrap();
    let closed = store
        .finish_pull(&current, Close::default(), at(8))
        .unwrap()
        .unwrap();
    assert!(closed.replacement);
    assert_eq!((closed.counts.unchanged, closed.counts.revised), (20, 0));
    assert!(store.revisions_of("s", "3").unwrap().is_empty());
}

#[test]
fn freshness_ignores_dates_after_the_last_pull() {
    let mut store = IncidentStore::in_memory().unwrap();
    let mut typo = record("2", "A");
    typo.occurred_date = NaiveDate::from_ymd_opt(2102, 1, 1);
    full_pull(&mut store, &[vec![record("1", "A"), typo]], 9);
    let fresh = store.freshness("s").unwrap();
    assert_eq!(fresh.data_through, NaiveDate::from_ymd_opt(2021, 1, 1));
    assert_eq!(fresh.records, 2);
    assert_eq!(fresh.last_success.as_deref(), Some("2021-01-09T12:00:00Z"));
}

#[test]
fn rows_aged_out_of_a_rolling_window_are_kept() {
    let mut store = IncidentStore::in_memory().unwrap();
    let mut old = record("1", "A");
    old.occurred_date = NaiveDate::from_ymd_opt(2020, 11, 1);
    full_pull(
        &mut store,
        &[vec![old, record("2", "A"), record("3", "A")]],
        1,
    );
    // The layer now serves row 3 only: row 1 aged out of its 30 days, row 2 was
    // withdrawn.
    let pull = store
        .begin_pull("s", PullKind::Full, None, None, at(8))
        .unwrap();
    store
        .apply_page(&pull, &marked(&[record("3", "A")], None))
        .unwrap()
        .unwrap();
    let current = store.running_pull("s").unwrap().unwrap();
    let window_start = NaiveDate::from_ymd_opt(2020, 12, 9);
    let closed = store
        .finish_pull(
            &current,
            Close {
                aged_out_before: window_start,
                ..accepting()
            },
            at(8),
        )
        .unwrap()
        .unwrap();
    assert_eq!(closed.counts.deleted, 1);
    assert_eq!(live_ids(&store), ["1", "3"]);
}

#[test]
fn a_pull_that_would_delete_a_fifth_or_more_is_refused_until_accepted() {
    let mut store = IncidentStore::in_memory().unwrap();
    let rows: Vec<FeedRecord> = (0..10).map(|i| record(&i.to_string(), "A")).collect();
    full_pull(&mut store, std::slice::from_ref(&rows), 1);
    // The data set comes back with 7 of its 10 rows: 3 deletions, 30 %.
    let pull = store
        .begin_pull("s", PullKind::Full, None, None, at(8))
        .unwrap();
    store
        .apply_page(&pull, &marked(&rows[..7], None))
        .unwrap()
        .unwrap();
    let current = store.running_pull("s").unwrap().unwrap();
    let refused = store
        .finish_pull(&current, Close::default(), at(8))
        .unwrap();
    assert_eq!(
        refused,
        Err(ReconcileFault::MassDeletion { count: 3, of: 10 })
    );
    assert_eq!(live_ids(&store).len(), 10, "nothing deleted");
    let accepted = Close {
        accept_mass_deletion: true,
        ..Close::default()
    };
    let closed = store
        .finish_pull(&current, accepted, at(8))
        .unwrap()
        .unwrap();
    assert_eq!(closed.counts.deleted, 3);
    assert_eq!(live_ids(&store).len(), 7);
}

#[test]
fn repairs_count_what_the_store_did_not_hold_and_keep_the_offset() {
    let mut store = IncidentStore::in_memory().unwrap();
    let pull = store
        .begin_pull("s", PullKind::Changed, Some("m0"), Some("m1"), at(1))
        .unwrap();
    store
        .apply_page(&pull, &marked(&[record("a", "X")], Some("m2")))
        .unwrap()
        .unwrap();
    let running = store.running_pull("s").unwrap().unwrap();
    // "a" again with a newer mark (no fault), "b" new, "c" re-stamped unchanged
    // after it is stored.
    let counts = store
        .apply_repairs(
            &running,
            &marked(&[record("a", "Y"), record("b", "X")], Some("m3")),
        )
        .unwrap();
    assert_eq!((counts.reconciled, counts.revised, counts.added), (2, 1, 1));
    let again = store
        .apply_repairs(&running, &marked(&[record("b", "X")], Some("m4")))
        .unwrap();
    assert_eq!((again.reconciled, again.unchanged), (0, 1));
    let running = store.running_pull("s").unwrap().unwrap();
    assert_eq!(running.next_offset, 1, "repairs do not move the offset");
    assert_eq!(running.counts.reconciled, 2);
    assert_eq!(running.mark.as_deref(), Some("m4"));
    let marks = store.live_marks("s").unwrap();
    assert_eq!(marks["b"].as_deref(), Some("m4"));
    let closed = store
        .finish_pull(&running, accepting(), at(1))
        .unwrap()
        .unwrap();
    assert_eq!(closed.counts.reconciled, 2);
    let divergence = store.divergence("s").unwrap();
    assert_eq!((divergence.last, divergence.pulls_repairing), (2, 1));
}

#[test]
fn a_pull_that_sees_no_row_keeps_the_last_high_water_mark() {
    let mut store = IncidentStore::in_memory().unwrap();
    let pull = store
        .begin_pull("s", PullKind::Changed, Some("m0"), Some("m1"), at(1))
        .unwrap();
    let closed = store
        .finish_pull(&pull, accepting(), at(1))
        .unwrap()
        .unwrap();
    assert_eq!(closed.mark.as_deref(), Some("m1"));
}

#[test]
fn a_store_of_layout_1_is_brought_forward_and_a_newer_one_refused() {
    let dir = tempfile::tempdir().unwrap();
    let store = IncidentStore::open(dir.path(), "c").unwrap();
    store
        .connection
        .execute_batch("ALTER TABLE pulls DROP COLUMN reconciled; PRAGMA user_version = 1;")
        .unwrap();
    drop(store);
    let mut store = IncidentStore::open(dir.path(), "c").unwrap();
    full_pull(&mut store, &[vec![record("a", "X")]], 1);
    assert_eq!(
        store
            .last_done_pull("s")
            .unwrap()
            .unwrap()
            .counts
            .reconciled,
        0
    );
    store
        .connection
        .execute_batch("PRAGMA user_version = 3;")
        .unwrap();
    drop(store);
    let error = IncidentStore::open(dir.path(), "c").unwrap_err();
    assert!(error.to_string().contains("has layout 3"), "{error}");
}
