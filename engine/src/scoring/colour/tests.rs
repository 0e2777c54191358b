use super::*;
use alloc::string::ToString;

#[test]
fn band_edges_are_equal_width() {
    for band in 0..BAND_COUNT {
        let lower = band as f64 * 100.0 / BAND_COUNT as f64;
        assert_eq!(
            ColourIndex::from_safety_score(lower + 1e-9).get(),
            band as i8
        );
        if band > 0 {
            assert_eq!(
                ColourIndex::from_safety_score(lower - 1e-9).get(),
                band as i8 - 1
            );
        }
    }
}

#[test]
fn ends_and_out_of_range_scores_clamp() {
    assert_eq!(ColourIndex::from_safety_score(0.0).get(), 0);
    assert_eq!(ColourIndex::from_safety_score(100.0).get(), 16);
    assert_eq!(ColourIndex::from_safety_score(-5.0).get(), 0);
    assert_eq!(ColourIndex::from_safety_score(250.0).get(), 16);
    assert_eq!(ColourIndex::from_safety_score(f64::INFINITY).get(), 16);
    assert_eq!(ColourIndex::from_safety_score(f64::NEG_INFINITY).get(), 0);
}

#[test]
fn no_data_has_no_colour_and_an_na_label() {
    let none = ColourIndex::from_safety_score(f64::NAN);
    assert!(!none.has_data());
    assert_eq!(none.colour(), None);
    assert_eq!(none.legend_label().to_string(), "N/A");
    let safest = ColourIndex::from_safety_score(99.0);
    assert_eq!(safest.colour(), Some("#006837"));
    assert_eq!(safest.legend_label().to_string(), "17");
}

#[test]
fn palette_is_seventeen_distinct_hex_colours() {
    for (i, colour) in PALETTE.iter().enumerate() {
        assert_eq!(colour.len(), 7);
        assert!(colour.starts_with('#'));
        assert!(colour[1..].chars().all(|c| c.is_ascii_hexdigit()));
        assert!(!PALETTE[..i].contains(colour), "duplicate {colour}");
    }
}

#[test]
fn index_serializes_as_a_plain_number() {
    assert_eq!(serde_json::to_string(&ColourIndex::NO_DATA).unwrap(), "-1");
    assert_eq!(
        serde_json::to_string(&ColourIndex::from_safety_score(50.0)).unwrap(),
        "8"
    );
}
