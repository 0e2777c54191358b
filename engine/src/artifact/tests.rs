use alloc::vec;

use super::fixture::CityFixture;
use super::*;

#[test]
fn round_trips_and_is_deterministic() {
    let artifact = CityFixture::default().build();
    let bytes = encode(&artifact).unwrap();
    assert_eq!(bytes, encode(&artifact).unwrap());
    assert_eq!(decode(&bytes).unwrap(), artifact);
}

#[test]
fn every_truncation_is_an_error() {
    let bytes = encode(&CityFixture::default().build()).unwrap();
    for len in 0..bytes.len() {
        assert!(decode(&bytes[..len]).is_err(), "length {len}");
    }
}

#[test]
fn a_bad_utc_offset_table_is_refused() {
    // Found by the `artifact_fields` fuzz target: an empty table panicked in
    // `CityModel::utc_offset`.
    let mut empty = CityFixture::default().build();
    empty.utc_offsets.clear();
    let mut unordered = CityFixture::default().build();
    unordered.utc_offsets = vec![(100, 0), (50, 0)];
    let mut too_far = CityFixture::default().build();
    too_far.utc_offsets = vec![(0, 19 * 3600)];
    for artifact in [empty, unordered, too_far] {
        assert_eq!(
            validate(&artifact),
            Err(ArtifactError::Inconsistent("bad UTC offset table"))
        );
    }
}

#[test]
fn bad_bounds_and_far_graph_points_are_refused() {
    let mut nan = CityFixture::default().build();
    nan.bounds.north = f64::NAN;
    let mut inverted = CityFixture::default().build();
    inverted.bounds.west = inverted.bounds.east + 1.0;
    for artifact in [nan, inverted] {
        assert_eq!(
            validate(&artifact),
            Err(ArtifactError::Inconsistent("bad bounds"))
        );
    }
    // Found by the `artifact_fields` fuzz target: a node at 1,410 degrees made one
    // route take 19 s.
    let mut far = CityFixture::default().build();
    if let Some(graph) = far.road_graph.as_mut() {
        graph.nodes[0] = MicroDegrees([-79_380_000, 1_410_253_619]);
    }
    assert_eq!(
        validate(&far),
        Err(ArtifactError::Inconsistent(
            "a road graph point lies far outside the city"
        ))
    );
}

#[test]
fn bands_that_do_not_cut_the_day_are_refused_not_divided_by() {
    // Bands of 0 hours would divide by zero while the profiles are checked (a
    // case the `artifact_fuzz` proptest reaches).
    for band_hours in [0, 5, 25] {
        let mut artifact = CityFixture::default().build();
        artifact.profiles.bands.band_hours = band_hours;
        assert_eq!(
            validate(&artifact),
            Err(ArtifactError::Inconsistent(
                "time-of-day profiles do not fit the cells, or a share table does not sum to 1"
            ))
        );
    }
}

#[test]
fn a_broken_graph_is_refused_even_with_a_good_checksum() {
    let mut artifact = CityFixture::default().build();
    assert!(artifact.road_graph.is_some());
    assert_eq!(decode(&encode(&artifact).unwrap()).map(|_| ()), Ok(()));
    if let Some(graph) = artifact.road_graph.as_mut() {
        graph.edge_target[0] = 99;
    }
    assert_eq!(
        decode(&encode(&artifact).unwrap()).map(|_| ()),
        Err(ArtifactError::Inconsistent("edge target out of range"))
    );
}

#[test]
fn street_names_travel_with_their_graph_and_bad_ones_are_refused() {
    let artifact = CityFixture::default().build();
    let decoded = decode(&encode(&artifact).unwrap()).unwrap();
    let graph = decoded.road_graph.expect("the fixture has roads");
    assert_eq!(graph.way_name(0), Some("Queen St W"));
    let mut unsorted = artifact;
    if let Some(graph) = unsorted.road_graph.as_mut() {
        graph.names.push("King St W".into());
    }
    assert_eq!(
        decode(&encode(&unsorted).unwrap()).map(|_| ()),
        Err(ArtifactError::Inconsistent(
            "street names are not strictly ascending"
        ))
    );
}

#[test]
fn street_shares_travel_with_their_graph_and_must_fit_it() {
    use crate::roads::{ShareGroup, StreetShares, class_bits};
    let mut artifact = CityFixture::default().build();
    let graph = artifact.road_graph.clone().expect("the fixture has roads");
    let codes = crate::roads::encode_shares(&graph, artifact.cells.len(), &[1.0]);
    artifact.street_shares = Some(StreetShares {
        groups: vec![ShareGroup {
            classes: class_bits(&crate::forecast::CRIME_CLASSES),
            codes,
        }],
    });
    let decoded = decode(&encode(&artifact).unwrap()).unwrap();
    assert_eq!(decoded.street_shares, artifact.street_shares);

    let mut short = artifact.clone();
    short.street_shares.as_mut().unwrap().groups[0]
        .codes
        .clear();
    assert_eq!(
        decode(&encode(&short).unwrap()).map(|_| ()),
        Err(ArtifactError::Inconsistent(
            "street share codes are not one per way"
        ))
    );
    // The graph is checked first: shares never read a broken graph's tables.
    let mut broken = artifact.clone();
    if let Some(graph) = broken.road_graph.as_mut() {
        graph.way_cells_start.pop();
    }
    assert_eq!(
        validate(&broken),
        Err(ArtifactError::Inconsistent("way cell offsets"))
    );
    let mut orphan = artifact;
    orphan.road_graph = None;
    assert_eq!(
        validate(&orphan),
        Err(ArtifactError::Inconsistent(
            "street shares without a road graph"
        ))
    );
}

#[test]
fn every_single_byte_corruption_is_an_error() {
    let bytes = encode(&CityFixture::default().build()).unwrap();
    for i in 0..bytes.len() {
        let mut bad = bytes.clone();
        bad[i] ^= 0x5a;
        // Reserved bytes are not checked; everything else must be.
        if (6..8).contains(&i) {
            continue;
        }
        assert!(decode(&bad).is_err(), "byte {i}");
    }
}

#[test]
fn wrong_version_magic_and_trailing_bytes_are_named() {
    let bytes = encode(&CityFixture::default().build()).unwrap();
    let mut wrong = bytes.clone();
    wrong[4] = 9;
    assert_eq!(
        decode(&wrong),
        Err(ArtifactError::WrongVersion {
            found: 9,
            expected: FORMAT_VERSION
        })
    );
    let mut magic = bytes.clone();
    magic[0] = b'X';
    assert_eq!(decode(&magic), Err(ArtifactError::BadMagic));
    let mut long = bytes;
    long.push(0);
    assert_eq!(decode(&long), Err(ArtifactError::TrailingBytes(1)));
}

#[test]
fn inconsistent_tables_are_refused() {
    let mut artifact = CityFixture::default().build();
    artifact.rates.pop();
    assert!(matches!(
        decode(&encode(&artifact).unwrap()),
        Err(ArtifactError::Inconsistent(_))
    ));
    let mut artifact = CityFixture::default().build();
    artifact.cells.swap(0, 1);
    assert!(matches!(
        decode(&encode(&artifact).unwrap()),
        Err(ArtifactError::Inconsistent(_))
    ));
    let mut artifact = CityFixture::default().build();
    artifact.precinct_of[0] = 7;
    assert!(matches!(
        decode(&encode(&artifact).unwrap()),
        Err(ArtifactError::Inconsistent(_))
    ));
}

#[test]
fn quantisation_keeps_rates_within_a_tenth_of_a_percent() {
    assert_eq!(quantise_rate(0.0), 0);
    assert_eq!(quantise_rate(f64::NAN), 0);
    assert_eq!(dequantise_rate(0), 0.0);
    for rate in [1e-5, 0.001, 0.0421, 0.5, 1.0, 7.3, 120.0] {
        let back = dequantise_rate(quantise_rate(rate));
        assert!((back / rate - 1.0).abs() < 5e-4, "{rate} -> {back}");
    }
}
