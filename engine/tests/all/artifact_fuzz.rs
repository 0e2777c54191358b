//! Property-based fuzzing of the artifact decoder: arbitrary and mutated inputs give
//! an error or a valid model, never a panic.

use std::sync::atomic::{AtomicUsize, Ordering};

use chrono::NaiveDate;
use hexrisk_engine::artifact::fixture::CityFixture;
use hexrisk_engine::artifact::{self, Bounds, CityArtifact, FORMAT_VERSION, HEADER_LEN, MAGIC};
use hexrisk_engine::city::CityModel;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

fn valid() -> Vec<u8> {
    artifact::encode(&valid_artifact()).unwrap()
}

/// The artifact header for a body, from the engine's own constants.
fn header(body: &[u8]) -> Vec<u8> {
    let mut header = MAGIC.to_vec();
    header.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    header.extend_from_slice(&[0, 0]);
    header.extend_from_slice(&u32::try_from(body.len()).unwrap().to_le_bytes());
    header.extend_from_slice(&crc32fast::hash(body).to_le_bytes());
    assert_eq!(header.len(), HEADER_LEN);
    header
}

/// Wraps a (possibly broken) postcard body in a correct header, compression and checksum.
fn wrap(plain: &[u8]) -> Vec<u8> {
    let body = miniz_oxide::deflate::compress_to_vec_zlib(plain, 9);
    let mut bytes = header(&body);
    bytes.extend_from_slice(&body);
    bytes
}

/// Two cells, two weeks, no precincts and no roads.
fn valid_artifact() -> CityArtifact {
    let date = |y, m, d| NaiveDate::from_ymd_opt(y, m, d).unwrap();
    CityFixture::default()
        .cells_at(&[(43.65, -79.38), (43.70, -79.40)])
        .weeks(2)
        .first_week(date(2021, 12, 20))
        .rates_by_index(|n| 0.1 * n as f64)
        .dispersion([1.0; 5])
        .model("fuzz", Some("note"), date(2021, 12, 31))
        .bounds(Bounds {
            north: 43.8,
            south: 43.6,
            east: -79.3,
            west: -79.5,
        })
        .fixed_utc_offset(-5 * 3600)
        .without_precincts()
        .without_roads()
        .build()
}

/// Decoding must not panic; when it succeeds, every query must be answerable.
/// Returns whether the bytes decoded.
fn exercise(bytes: &[u8]) -> bool {
    let Ok(model) = CityModel::from_bytes(bytes) else {
        return false;
    };
    for week in 0..model.week_count() {
        for position in 0..model.cell_count() {
            let p = model.forecast(position, week).probabilities;
            assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-9);
        }
    }
    true
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        exercise(&bytes);
    }

    #[test]
    fn arbitrary_bodies_behind_a_valid_header_never_panic(body in proptest::collection::vec(any::<u8>(), 0..512)) {
        // A correct header and checksum, so the decompressor and decoder see the noise.
        let mut bytes = header(&body);
        bytes.extend_from_slice(&body);
        exercise(&bytes);
    }

    #[test]
    fn mutated_artifacts_never_panic(
        flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
        cut in any::<prop::sample::Index>(),
        truncate in any::<bool>(),
    ) {
        let mut bytes = valid();
        for (index, value) in flips {
            let i = index.index(bytes.len());
            bytes[i] ^= value;
        }
        if truncate {
            let len = cut.index(bytes.len());
            bytes.truncate(len);
        }
        exercise(&bytes);
    }
}

/// Past the checksum and decompression: the decoder and the validation see the
/// mutations. A good share of the mutated bodies must still decode, or the cases
/// would stop at the first check and never reach the model behind it.
#[test]
fn mutated_bodies_with_valid_wrapping_never_panic_and_many_decode() {
    const CASES: u32 = 2000;
    let plain = postcard::to_allocvec(&valid_artifact()).unwrap();
    let flips = proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6);
    let decoded = AtomicUsize::new(0);
    let mut runner = TestRunner::new(Config::with_cases(CASES));
    runner
        .run(&flips, |flips| {
            let mut plain = plain.clone();
            for (index, value) in flips {
                let i = index.index(plain.len());
                plain[i] ^= value;
            }
            if exercise(&wrap(&plain)) {
                decoded.fetch_add(1, Ordering::Relaxed);
            }
            Ok(())
        })
        .unwrap();
    let decoded = decoded.into_inner();
    assert!(
        decoded >= CASES as usize / 10,
        "only {decoded} of {CASES} mutated bodies decoded"
    );
}

#[test]
fn the_hand_wrapping_is_the_engines_encoding() {
    let plain = postcard::to_allocvec(&valid_artifact()).unwrap();
    assert_eq!(wrap(&plain), valid());
    assert!(exercise(&valid()));
}
