//! The attribution and the shares on the hand-made network (`fixture.rs`),
//! against brute-force references.

use super::*;
use crate::fit::streets::attribution::{Attributor, Placement};
use crate::fit::streets::fixture::{self, POINTS};

fn attributor() -> (StreetNetwork, Attributor) {
    let graph = fixture::graph();
    let network = StreetNetwork::new(&graph, 2);
    let attributor = Attributor::new(&graph, &network);
    (network, attributor)
}

fn attributed(attributor: &Attributor, lat: f64, lng: f64) -> (Placement, Vec<(usize, f64)>) {
    let mut pieces = Vec::new();
    let placement = attributor.attribute(lat, lng, &mut pieces);
    let mut out: Vec<(usize, f64)> = pieces
        .iter()
        .map(|p| (p.way as usize, p.fraction))
        .collect();
    out.sort_by_key(|&(way, _)| way);
    (placement, out)
}

fn close(a: &[(usize, f64)], b: &[(usize, f64)]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| x.0 == y.0 && (x.1 - y.1).abs() < 1e-12)
}

#[test]
fn the_hand_made_network_is_assigned_as_drawn() {
    let (network, _) = attributor();
    let by_hand: Vec<Option<u32>> = fixture::WAY_CELL
        .iter()
        .map(|c| c.map(|c| c as u32))
        .collect();
    assert_eq!(network.way_cell, by_hand);
    assert_eq!(network.cell_length_m, [111.0 + 121.0 + 30.0, 111.0 + 210.0]);
}

#[test]
fn every_point_is_attributed_as_the_brute_force_search_does() {
    let (_, attributor) = attributor();
    let expected_placements = [
        Placement::Node,
        Placement::Node,
        Placement::Way,
        Placement::Way,
        Placement::OffNetwork,
        Placement::OffNetwork,
        Placement::Node,
        Placement::Way,
        Placement::Node,
    ];
    for (i, &(lat, lng)) in POINTS.iter().enumerate() {
        let (placement, pieces) = attributed(&attributor, lat, lng);
        let reference = fixture::brute_force_attribution(lat, lng);
        assert!(
            close(&pieces, &reference),
            "point {i}: {pieces:?} vs {reference:?}"
        );
        assert_eq!(placement, expected_placements[i], "point {i}");
    }
    // The split at C is by length over the three ways meeting there.
    let (_, at_centre) = attributed(&attributor, POINTS[0].0, POINTS[0].1);
    assert!(close(
        &at_centre,
        &[(0, 111.0 / 343.0), (1, 121.0 / 343.0), (2, 111.0 / 343.0)]
    ));
    // The point beside the bend is on way 3 through its interior point.
    assert_eq!(
        attributed(&attributor, POINTS[3].0, POINTS[3].1).1,
        [(3, 1.0)]
    );
}

/// Weekly counts of the points: point `i` occurs `i + 1` times in week `i % weeks`.
fn weekly_counts(attributor: &Attributor, weeks: usize) -> WayCounts {
    let pieces: Vec<(usize, Vec<Piece>)> = POINTS
        .iter()
        .enumerate()
        .flat_map(|(i, &(lat, lng))| {
            let mut pieces = Vec::new();
            attributor.attribute(lat, lng, &mut pieces);
            std::iter::repeat_n((i % weeks, pieces), i + 1)
        })
        .collect();
    WayCounts::collect(weeks, pieces.iter().map(|(w, p)| (*w, p.as_slice())))
}

fn brute_force_totals(weeks: usize, range: Range<usize>) -> Vec<f64> {
    let mut totals = vec![0.0; 6];
    for (i, &(lat, lng)) in POINTS.iter().enumerate() {
        if range.contains(&(i % weeks)) {
            for (way, fraction) in fixture::brute_force_attribution(lat, lng) {
                totals[way] += (i + 1) as f64 * fraction;
            }
        }
    }
    totals
}

#[test]
fn shares_equal_the_formula_written_out_for_every_k() {
    let (network, attributor) = attributor();
    let counts = weekly_counts(&attributor, 3);
    for range in [0..1, 0..2, 0..3, 1..3] {
        let history = counts.totals(range.clone(), 6);
        let reference = brute_force_totals(3, range.clone());
        for (a, b) in history.iter().zip(&reference) {
            assert!(
                (a - b).abs() < 1e-12,
                "{range:?}: {history:?} vs {reference:?}"
            );
        }
        for k in SHRINKAGE_GRID {
            let ours = shares(&network, &history, k);
            let theirs = fixture::brute_force_shares(&reference, k);
            for (w, (a, b)) in ours.iter().zip(&theirs).enumerate() {
                assert!((a - b).abs() < 1e-12, "k {k}, way {w}: {a} vs {b}");
            }
            // A cell's shares sum to 1.
            assert!((ours[0] + ours[1] + ours[5] - 1.0).abs() < 1e-12);
            assert!((ours[2] + ours[3] - 1.0).abs() < 1e-12);
            assert_eq!(ours[4], 0.0);
        }
    }
    // A range reaching past the last week stops at it.
    assert_eq!(counts.totals(1..9, 6), counts.totals(1..3, 6));
    assert_eq!(counts.total(2..9), counts.total(2..3));
    assert_eq!(counts.totals(5..9, 6), [0.0; 6]);
    // Without history every share is the length-proportional one.
    let flat = shares(&network, &[0.0; 6], 1.0);
    assert!((flat[3] - 210.0 / 321.0).abs() < 1e-12);
}

#[test]
fn the_shrinkage_chosen_has_the_lowest_validation_cross_entropy() {
    let (network, attributor) = attributor();
    // Four weeks and the backtest from week 4: weeks 2 and 3 validate, 0 and 1 teach.
    let counts = weekly_counts(&attributor, 4);
    let choice = choose_shrinkage(&network, &counts, 4);
    assert_eq!(
        (choice.history.clone(), choice.validation.clone()),
        (0..2, 2..4)
    );
    let learnt = brute_force_totals(4, 0..2);
    let observed = brute_force_totals(4, 2..4);
    let mut best = (f64::INFINITY, 0.0);
    for (i, k) in SHRINKAGE_GRID.into_iter().enumerate() {
        let shares = fixture::brute_force_shares(&learnt, k);
        let (mut loss, mut total) = (0.0, 0.0);
        for w in 0..6 {
            loss -= observed[w]
                * if observed[w] > 0.0 {
                    shares[w].ln()
                } else {
                    0.0
                };
            total += observed[w];
        }
        let score = loss / total;
        assert!((choice.cross_entropy[i] - score).abs() < 1e-12, "k {k}");
        if score < best.0 {
            best = (score, k);
        }
    }
    assert_eq!(choice.k, best.1);
    assert!((choice.validation_incidents - observed.iter().sum::<f64>()).abs() < 1e-12);
}

#[test]
fn counts_merge_by_way_and_drop_weeks_outside() {
    let pieces = [
        Piece {
            way: 2,
            fraction: 0.5,
        },
        Piece {
            way: 1,
            fraction: 0.5,
        },
    ];
    let counts = WayCounts::collect(2, [(0, &pieces[..]), (0, &pieces[..1]), (5, &pieces[..])]);
    assert_eq!(counts.weeks, [vec![(1, 0.5), (2, 1.0)], vec![]]);
    assert_eq!(counts.total(0..2), 1.5);
    assert_eq!(counts.total(3..9), 0.0);
}

#[test]
fn validation_is_at_most_half_the_weeks_before_the_backtest() {
    assert_eq!(validation_weeks(313), 261..313);
    assert_eq!(validation_weeks(26), 13..26);
    assert_eq!(validation_weeks(1), 1..1);
    assert_eq!(validation_weeks(0), 0..0);
}
