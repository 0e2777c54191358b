use super::*;
use crate::artifact::fixture::tiny_graph;
use crate::roads::NetworkKind;

/// The fixture's way split in two cells' worth of ways: three ways, two in cell
/// 0 and one in cell 1, and one outside the grid.
fn three_ways() -> RoadGraph {
    let mut graph = tiny_graph();
    let way = graph.way_length_m[0];
    graph.way_length_m = vec![100.0, 300.0, 50.0, way];
    graph.way_points_start = vec![0; 5];
    graph.way_points.clear();
    graph.way_cells_start = vec![0, 1, 2, 3, 4];
    graph.way_cells = vec![0, 0, 1, crate::roads::OUTSIDE_GRID];
    graph.way_cell_m = vec![100.0, 300.0, 50.0, way];
    graph.way_name = vec![1; 4];
    graph
}

#[test]
fn shares_round_trip_within_a_step_and_each_cell_sums_to_one() {
    let graph = three_ways();
    let shares = [0.8, 0.2, 1.0, 0.0];
    let codes = encode_shares(&graph, 2, &shares);
    // 0.8 against a length share of 0.25: 8 · log2(3.2) = 13.4; 0.2 against 0.75.
    assert_eq!(codes, [13, -15, 0, NO_CELL]);
    let decoded = decode_shares(&graph, 2, &codes);
    assert!((decoded[0] + decoded[1] - 1.0).abs() < 1e-12);
    assert!((decoded[2] - 1.0).abs() < 1e-12);
    assert_eq!(decoded[3], 0.0);
    for (way, share) in shares.iter().enumerate().take(2) {
        let step = libm::exp2(1.0 / SHARE_CODE_STEPS_PER_DOUBLING);
        assert!(
            decoded[way] / share < step && share / decoded[way] < step,
            "{decoded:?}"
        );
    }
}

#[test]
fn extreme_and_empty_shares_clamp_instead_of_overflowing() {
    let graph = three_ways();
    let codes = encode_shares(&graph, 2, &[1.0, 0.0, f64::NAN, 0.0]);
    assert_eq!(codes[0], 16); // 4x the length share of 0.25: two doublings.
    assert_eq!(codes[1], -127);
    assert_eq!(codes[2], -127);
    let decoded = decode_shares(&graph, 2, &codes);
    assert!(decoded[0] > 0.999 && decoded[1] < 1e-3, "{decoded:?}");
    // Ratios beyond 2^(±127/8) are clamped, not wrapped.
    let codes = encode_shares(&graph, 2, &[1e30, 1e-30, 1.0, 0.0]);
    assert_eq!(&codes[..3], &[127, -127, 0]);
}

#[test]
fn validation_refuses_codes_that_do_not_fit_the_graph() {
    let graph = three_ways();
    let all = class_bits(&CRIME_CLASSES);
    let violence = class_bits(&[CrimeClass::BatteryAssault, CrimeClass::SeriousViolent]);
    let shares = |groups: &[(u8, &[i8])]| StreetShares {
        groups: groups
            .iter()
            .map(|&(classes, codes)| ShareGroup {
                classes,
                codes: codes.to_vec(),
            })
            .collect(),
    };
    let good: &[i8] = &[1, 2, 3, NO_CELL];
    let refused = |s: StreetShares| s.validate(&graph, 2).unwrap_err().0;
    assert_eq!(
        shares(&[(all, good), (violence, good)]).validate(&graph, 2),
        Ok(())
    );
    assert_eq!(
        refused(shares(&[])),
        "street shares have no groups or too many"
    );
    assert_eq!(
        refused(shares(&vec![(all, good); MAX_SHARE_GROUPS + 1])),
        "street shares have no groups or too many"
    );
    assert_eq!(
        refused(shares(&[(all, good), (all, good)])),
        "two street share groups have the same classes"
    );
    for classes in [0, 0x80] {
        assert_eq!(
            refused(shares(&[(classes, good)])),
            "a street share group has unknown classes"
        );
    }
    assert_eq!(
        refused(shares(&[(all, &[1, 2, 3])])),
        "street share codes are not one per way"
    );
    for codes in [&[1, 2, 3, 4][..], &[NO_CELL, 2, 3, NO_CELL][..]] {
        assert_eq!(
            refused(shares(&[(all, good), (violence, codes)])),
            "a street share code disagrees with its way's cell"
        );
    }
    // A hex lattice's ways take shares as streets do.
    let mut lattice = graph.clone();
    lattice.kind = NetworkKind::HexLattice;
    assert_eq!(shares(&[(all, good)]).validate(&lattice, 2), Ok(()));
}

#[test]
fn a_group_spreads_the_classes_of_its_bits() {
    let bits = class_bits(&[CrimeClass::BatteryAssault, CrimeClass::SeriousViolent]);
    let group = ShareGroup {
        classes: bits,
        codes: Vec::new(),
    };
    assert!(group.spreads(CrimeClass::BatteryAssault));
    assert!(group.spreads(CrimeClass::SeriousViolent));
    assert!(!group.spreads(CrimeClass::TheftBurglary));
}
