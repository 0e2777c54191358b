//! The store against an in-memory bucket: per-city loading, the cache bound, swaps
//! at the manifest's pace, refusal of bad versions with fallback, and rollback.

use super::*;
use crate::api::test_support::{MemoryBackend, bucket};
use futures_executor::block_on;
use hexrisk_engine::artifact::fixture::CityFixture;
use std::collections::HashMap;

fn at(seconds: i64) -> DateTime<Utc> {
    DateTime::from_timestamp(1_700_000_000 + seconds, 0).unwrap()
}

/// Toronto and San Francisco fixtures; `rate` sets every expected count, so two
/// versions differ in their bytes.
fn two_cities(rate: f64) -> Atlas {
    Atlas::new(vec![
        CityModel::from_artifact(CityFixture::default().rates_by_index(move |_| rate).build()),
        CityModel::from_artifact(
            CityFixture::default()
                .code("city_us_sfo")
                .cells_at(&[(37.78, -122.41), (37.77, -122.42)])
                .rates_by_index(move |_| rate)
                .build(),
        ),
    ])
}

/// The in-memory backend over `files`, with a store of `settings`.
fn backend(settings: StoreSettings, files: HashMap<String, Vec<u8>>) -> MemoryBackend {
    MemoryBackend {
        files: RefCell::new(files),
        store: ModelStore::new(settings),
        ..MemoryBackend::new()
    }
}

/// A backend over two cities whose every bucket read waits once, as a network read
/// would (so concurrent requests interleave), and Toronto's manifest entry.
fn slow_two_cities() -> (MemoryBackend, ManifestCity) {
    let files = bucket(&two_cities(0.1));
    let toronto = manifest_of(&files).city("city_ca_tor").unwrap().clone();
    let backend = MemoryBackend {
        slow_reads: true,
        ..backend(settings(30, 8), files)
    };
    (backend, toronto)
}

fn settings(ttl: i64, max_cities: usize) -> StoreSettings {
    StoreSettings {
        manifest_ttl_seconds: ttl,
        max_cities,
    }
}

fn only(code: &str) -> impl FnOnce(&Manifest) -> CityNeeds {
    let code = code.to_owned();
    move |_| CityNeeds::Some(BTreeSet::from([code]))
}

fn manifest_of(files: &HashMap<String, Vec<u8>>) -> Manifest {
    serde_json::from_slice(&files[Manifest::FILE_NAME]).unwrap()
}

/// The version a bucket's manifest names for `code`.
fn version_of(files: &HashMap<String, Vec<u8>>, code: &str) -> String {
    manifest_of(files).city(code).unwrap().version.clone()
}

/// Publishes `files` over what the bucket holds (old versions stay, as in R2).
fn publish(backend: &MemoryBackend, files: HashMap<String, Vec<u8>>) {
    backend.files.borrow_mut().extend(files);
}

fn served(snapshot: &Snapshot) -> Vec<(String, String)> {
    snapshot.versions.clone()
}

#[test]
fn a_request_for_one_city_reads_that_city_only() {
    let files = bucket(&two_cities(0.1));
    let toronto = manifest_of(&files).city("city_ca_tor").unwrap().clone();
    let backend = backend(settings(30, 8), files);
    let snapshot = block_on(backend.store.snapshot(&backend, only("city_ca_tor"), at(0))).unwrap();
    assert_eq!(snapshot.atlas.cities().len(), 1);
    assert_eq!(
        *backend.reads.borrow(),
        [Manifest::FILE_NAME.to_owned(), toronto.file.clone()]
    );
    // Answers name the published version.
    assert_eq!(
        snapshot.atlas.cities()[0].artifact().model.version,
        toronto.version
    );
    // Cached: the next request reads nothing.
    block_on(backend.store.snapshot(&backend, only("city_ca_tor"), at(1))).unwrap();
    assert_eq!(backend.reads.borrow().len(), 2);
}

#[test]
fn a_bound_of_one_city_evicts_the_other() {
    let backend = backend(settings(30, 1), bucket(&two_cities(0.1)));
    block_on(backend.store.snapshot(&backend, only("city_ca_tor"), at(0))).unwrap();
    block_on(backend.store.snapshot(&backend, only("city_us_sfo"), at(1))).unwrap();
    let cached: Vec<String> = backend.store.cached().into_iter().map(|(c, _)| c).collect();
    assert_eq!(cached, ["city_us_sfo"]);
    // Toronto is read again when needed again.
    let reads = backend.reads.borrow().len();
    block_on(backend.store.snapshot(&backend, only("city_ca_tor"), at(2))).unwrap();
    assert_eq!(backend.reads.borrow().len(), reads + 1);
}

#[test]
fn a_new_version_is_served_once_the_manifest_is_reread() {
    let old = bucket(&two_cities(0.1));
    let new = bucket(&two_cities(0.2));
    let old_version = version_of(&old, "city_ca_tor");
    let new_version = version_of(&new, "city_ca_tor");
    assert_ne!(old_version, new_version);
    let backend = backend(settings(30, 8), old);
    let get = |t| block_on(backend.store.snapshot(&backend, only("city_ca_tor"), at(t))).unwrap();
    let before = get(0);
    publish(&backend, new);
    // Within the interval the old manifest holds; the snapshot taken before the
    // swap keeps its version whatever happens later.
    assert_eq!(served(&get(29))[0].1, old_version);
    assert_eq!(served(&get(30))[0].1, new_version);
    assert_eq!(served(&before)[0].1, old_version);
    assert_eq!(
        before.atlas.cities()[0].artifact().model.version,
        old_version
    );
}

#[test]
fn a_corrupt_version_is_refused_the_old_one_serves_and_status_says_why() {
    let old = bucket(&two_cities(0.1));
    let mut bad = bucket(&two_cities(0.3));
    let entry = manifest_of(&bad).city("city_ca_tor").unwrap().clone();
    let file = bad.get_mut(&entry.file).unwrap();
    let middle = file.len() / 2;
    file[middle] ^= 0xff;
    let old_version = version_of(&old, "city_ca_tor");
    let backend = backend(settings(0, 8), old);
    block_on(backend.store.snapshot(&backend, only("city_ca_tor"), at(0))).unwrap();
    publish(&backend, bad);
    let snapshot = block_on(backend.store.snapshot(&backend, only("city_ca_tor"), at(1))).unwrap();
    assert_eq!(served(&snapshot)[0].1, old_version);
    let status = block_on(backend.store.status(&backend, at(1))).unwrap();
    assert_eq!(status.problems.len(), 1, "{status:?}");
    let problem = &status.problems[0];
    assert_eq!(problem.city.as_deref(), Some("city_ca_tor"));
    assert_eq!(problem.version.as_deref(), Some(entry.version.as_str()));
    assert!(problem.reason.contains("SHA-256"), "{}", problem.reason);
    let toronto = status
        .cities
        .iter()
        .find(|c| c.code == "city_ca_tor")
        .unwrap();
    assert_eq!(toronto.serving.as_deref(), Some(old_version.as_str()));
    assert!(
        backend
            .logged()
            .iter()
            .any(|e| e.reason.contains("refused"))
    );
}

#[test]
fn health_finds_a_corrupt_version_before_any_request_needs_it() {
    let old = bucket(&two_cities(0.1));
    let mut bad = bucket(&two_cities(0.3));
    let entry = manifest_of(&bad).city("city_us_sfo").unwrap().clone();
    bad.remove(&entry.file);
    let backend = backend(settings(0, 8), old);
    assert!(
        block_on(backend.store.status(&backend, at(0)))
            .unwrap()
            .problems
            .is_empty()
    );
    publish(&backend, bad);
    let status = block_on(backend.store.status(&backend, at(1))).unwrap();
    assert_eq!(status.problems.len(), 1, "{status:?}");
    assert!(status.problems[0].reason.contains("missing"));
    // San Francisco then answers from the version the previous manifest named.
    let snapshot = block_on(backend.store.snapshot(&backend, only("city_us_sfo"), at(2))).unwrap();
    assert_ne!(served(&snapshot)[0].1, entry.version);
}

#[test]
fn a_broken_manifest_leaves_the_previous_one_in_force() {
    let files = bucket(&two_cities(0.1));
    let version = manifest_of(&files).version;
    let backend = backend(settings(0, 8), files);
    block_on(backend.store.snapshot(&backend, only("city_ca_tor"), at(0))).unwrap();
    backend
        .files
        .borrow_mut()
        .insert(Manifest::FILE_NAME.into(), b"{\"cities\": [".to_vec());
    let snapshot = block_on(backend.store.snapshot(&backend, only("city_ca_tor"), at(1))).unwrap();
    assert_eq!(snapshot.manifest_version, version);
    let status = block_on(backend.store.status(&backend, at(2))).unwrap();
    assert_eq!(status.problems.len(), 1);
    assert_eq!(status.problems[0].city, None);
    // A good manifest again clears it.
    publish(&backend, bucket(&two_cities(0.1)));
    assert!(
        block_on(backend.store.status(&backend, at(3)))
            .unwrap()
            .problems
            .is_empty()
    );
}

#[test]
fn pointing_the_manifest_back_rolls_back() {
    let old = bucket(&two_cities(0.1));
    let new = bucket(&two_cities(0.2));
    let old_manifest = old[Manifest::FILE_NAME].clone();
    let old_version = version_of(&old, "city_ca_tor");
    let backend = backend(settings(0, 8), old);
    publish(&backend, new);
    let get = |t| block_on(backend.store.snapshot(&backend, only("city_ca_tor"), at(t))).unwrap();
    assert_ne!(served(&get(1))[0].1, old_version);
    backend
        .files
        .borrow_mut()
        .insert(Manifest::FILE_NAME.into(), old_manifest);
    assert_eq!(served(&get(2))[0].1, old_version);
}

#[test]
fn files_larger_than_the_manifest_says_are_refused_unread() {
    let mut files = bucket(&two_cities(0.1));
    let entry = manifest_of(&files).city("city_ca_tor").unwrap().clone();
    files.get_mut(&entry.file).unwrap().extend([0; 64]);
    let padded = backend(settings(0, 8), files);
    let err = block_on(padded.store.snapshot(&padded, only("city_ca_tor"), at(0))).unwrap_err();
    assert!(err.reason.contains("more than"), "{}", err.reason);
    // A manifest over the limit is refused too.
    let mut files = bucket(&two_cities(0.1));
    files.insert(
        Manifest::FILE_NAME.into(),
        vec![b' '; usize::try_from(MAX_MANIFEST_BYTES).unwrap() + 1],
    );
    let oversized = backend(settings(0, 8), files);
    let err = block_on(
        oversized
            .store
            .snapshot(&oversized, only("city_ca_tor"), at(0)),
    )
    .unwrap_err();
    assert!(err.reason.contains("manifest.json has"), "{}", err.reason);
}

#[test]
fn no_manifest_at_all_is_an_error() {
    let backend = backend(settings(0, 8), HashMap::new());
    let err = block_on(backend.store.snapshot(&backend, only("city_ca_tor"), at(0))).unwrap_err();
    assert_eq!(err.component, "models");
    assert!(err.reason.contains("missing"), "{}", err.reason);
}

#[test]
fn concurrent_requests_in_a_cold_isolate_share_one_manifest_read_and_one_decode() {
    // Three requests arrive together at a fresh isolate; every bucket read waits once,
    // so they interleave: none may fail for want of a manifest, and the manifest and
    // Toronto's file are each read once, the city decoded once for all three.
    let (backend, toronto) = slow_two_cities();
    let request = || backend.store.snapshot(&backend, only("city_ca_tor"), at(0));
    let (a, (b, c)) = block_on(futures_util::future::join(
        request(),
        futures_util::future::join(request(), request()),
    ));
    let (a, b, c) = (a.unwrap(), b.unwrap(), c.unwrap());
    let reads = backend.reads.borrow().clone();
    let count = |name: &str| reads.iter().filter(|r| *r == name).count();
    assert_eq!(count(Manifest::FILE_NAME), 1, "{reads:?}");
    assert_eq!(count(&toronto.file), 1, "{reads:?}");
    let model = |s: &Snapshot| Arc::clone(&s.atlas.cities()[0]);
    assert!(Arc::ptr_eq(&model(&a), &model(&b)) && Arc::ptr_eq(&model(&b), &model(&c)));
    // The two that waited did so on their own timers, never on a wake-up from the
    // request doing the read (workerd cancels such a request as hung).
    assert!(backend.pauses.get() > 0);
}

#[test]
fn a_request_gone_midway_through_a_load_leaves_no_one_waiting_for_it() {
    // A request starts loading Toronto and is dropped (its client went away) while
    // the file is being read: the next request loads the city itself.
    let (backend, toronto) = slow_two_cities();
    let mut gone = Box::pin(backend.store.snapshot(&backend, only("city_ca_tor"), at(0)));
    let waker = futures_util::task::noop_waker();
    let mut cx = std::task::Context::from_waker(&waker);
    while !backend.reads.borrow().contains(&toronto.file) {
        assert!(gone.as_mut().poll(&mut cx).is_pending());
    }
    drop(gone);
    let next = block_on(backend.store.snapshot(&backend, only("city_ca_tor"), at(0))).unwrap();
    assert_eq!(next.atlas.cities().len(), 1);
    assert_eq!(backend.pauses.get(), 0, "the next request did not wait");
    let reads = backend.reads.borrow();
    assert_eq!(
        reads.iter().filter(|r| **r == toronto.file).count(),
        2,
        "{reads:?}"
    );
}

#[test]
fn with_no_manifest_in_force_the_next_request_reads_again() {
    // A cold isolate whose first read fails (the manifest not yet uploaded, or a
    // transient error) must not wait out the interval before it can serve.
    let backend = backend(settings(30, 8), HashMap::new());
    assert!(block_on(backend.store.snapshot(&backend, only("city_ca_tor"), at(0))).is_err());
    publish(&backend, bucket(&two_cities(0.1)));
    let snapshot = block_on(backend.store.snapshot(&backend, only("city_ca_tor"), at(1))).unwrap();
    assert_eq!(snapshot.atlas.cities().len(), 1);
}

#[test]
fn settings_come_from_the_variables_with_defaults() {
    assert_eq!(
        StoreSettings::from_vars(Some("5"), Some("1")),
        settings(5, 1)
    );
    assert_eq!(
        StoreSettings::from_vars(Some("soon"), Some("0")),
        StoreSettings::default()
    );
    assert_eq!(
        StoreSettings::from_vars(None, None),
        StoreSettings::default()
    );
}
