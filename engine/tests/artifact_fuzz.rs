//! Property-based fuzzing of the artifact decoder: arbitrary and mutated inputs give
//! an error or a valid model, never a panic.

use hexrisk_engine::artifact::{self, Bounds, CityArtifact, CityInfo, ForecastCalendar, ModelInfo};
use hexrisk_engine::model::CityModel;
use proptest::prelude::*;

fn valid() -> Vec<u8> {
    artifact::encode(&valid_artifact()).unwrap()
}

/// Wraps a (possibly broken) postcard body in a correct header, compression and checksum.
fn wrap(plain: &[u8]) -> Vec<u8> {
    let body = miniz_oxide::deflate::compress_to_vec_zlib(plain, 6);
    let mut bytes = b"HXRK\x02\x00\x00\x00".to_vec();
    bytes.extend_from_slice(&u32::try_from(body.len()).unwrap().to_le_bytes());
    bytes.extend_from_slice(&crc32(&body).to_le_bytes());
    bytes.extend_from_slice(&body);
    bytes
}

fn valid_artifact() -> CityArtifact {
    let cells: Vec<u64> = {
        let mut cells: Vec<u64> = [(43.65, -79.38), (43.70, -79.40)]
            .iter()
            .map(|&(lat, lng)| u64::from(hexrisk_engine::grid::cell_at(lat, lng).unwrap()))
            .collect();
        cells.sort_unstable();
        cells
    };
    CityArtifact {
        city: CityInfo {
            code: "city_ca_tor".into(),
            name: "Toronto".into(),
            country: "Canada".into(),
            timezone: "America/Toronto".into(),
        },
        model: ModelInfo {
            version: "fuzz".into(),
            mae: 0.5,
            last_updated: chrono::NaiveDate::from_ymd_opt(2021, 12, 31).unwrap(),
            note: Some("note".into()),
        },
        calendar: ForecastCalendar {
            first_week: chrono::NaiveDate::from_ymd_opt(2021, 12, 20).unwrap(),
            weeks: 2,
            observed_weeks: 1,
        },
        bounds: Bounds {
            north: 43.8,
            south: 43.6,
            east: -79.3,
            west: -79.5,
        },
        precinct_of: vec![u16::MAX; cells.len()],
        precincts: Vec::new(),
        rates: (0..2 * cells.len() * 5)
            .map(|i| artifact::quantise_rate(0.1 * i as f64))
            .collect(),
        dispersion: vec![[1.0; 5]; 2],
        utc_offsets: vec![(0, -5 * 3600)],
        road_graph: None,
        cells,
    }
}

/// Decoding must not panic; when it succeeds, every query must be answerable.
fn exercise(bytes: &[u8]) {
    if let Ok(model) = CityModel::from_bytes(bytes) {
        for week in 0..model.week_count() {
            for position in 0..model.cell_count() {
                let p = model.forecast(position, week).probabilities;
                assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-9);
            }
        }
    }
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
        let mut bytes = b"HXRK\x02\x00\x00\x00".to_vec();
        bytes.extend_from_slice(&u32::try_from(body.len()).unwrap().to_le_bytes());
        bytes.extend_from_slice(&crc32(&body).to_le_bytes());
        bytes.extend_from_slice(&body);
        exercise(&bytes);
    }

    #[test]
    fn mutated_bodies_with_valid_wrapping_never_panic(
        flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
    ) {
        // Past the checksum and decompression: the decoder and the validation see it.
        let mut plain = postcard::to_allocvec(&valid_artifact()).unwrap();
        for (index, value) in flips {
            let i = index.index(plain.len());
            plain[i] ^= value;
        }
        exercise(&wrap(&plain));
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

/// CRC-32 (IEEE), bitwise; only for building test inputs.
fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in data {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

#[test]
fn the_valid_artifact_decodes_also_when_wrapped_by_hand() {
    assert!(CityModel::from_bytes(&valid()).is_ok());
    let plain = postcard::to_allocvec(&valid_artifact()).unwrap();
    assert!(CityModel::from_bytes(&wrap(&plain)).is_ok());
}
