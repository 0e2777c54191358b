use alloc::vec;

use h3o::CellIndex;

use super::*;
use crate::artifact::fixture::CityFixture;
use crate::forecast::CrimeClass;
use crate::roads::{NetworkKind, ShareGroup, StreetShares, class_bits, encode_shares};
use crate::scoring::ScoringParams;

/// A city of the cells within two rings of central Toronto whose streets are the
/// lattice over them, with each class's rate its own per cell, and these share
/// groups (each its classes and a share per way before normalising).
fn city(groups: &[(u8, &dyn Fn(usize) -> f64)]) -> CityModel {
    let mut artifact = CityFixture::default()
        .disk_around(43.6532, -79.3832, 2)
        .rates(|_, position, _, class| 0.01 * (1 + position + 3 * class) as f64)
        .build();
    let cells: Vec<CellIndex> = artifact
        .cells
        .iter()
        .map(|&c| CellIndex::try_from(c).unwrap())
        .collect();
    let mut graph = crate::roads::hex_lattice(&cells, &artifact.cells, "test");
    graph.kind = NetworkKind::Roads;
    let n = cells.len();
    let shares = (!groups.is_empty()).then(|| StreetShares {
        groups: groups
            .iter()
            .map(|(classes, share)| {
                let raw: Vec<f64> = (0..graph.way_count()).map(share).collect();
                // Normalised per home cell, as the build writes them.
                let (homes, _) = crate::roads::cell_lengths(&graph, n);
                let mut totals = vec![0.0; n];
                for (way, home) in homes.iter().enumerate() {
                    if let Some(cell) = home {
                        totals[*cell as usize] += raw[way];
                    }
                }
                let normalised: Vec<f64> = homes
                    .iter()
                    .enumerate()
                    .map(|(way, home)| home.map_or(0.0, |c| raw[way] / totals[c as usize]))
                    .collect();
                ShareGroup {
                    classes: *classes,
                    codes: encode_shares(&graph, n, &normalised),
                }
            })
            .collect(),
    });
    artifact.road_graph = Some(graph);
    artifact.street_shares = shares;
    CityModel::from_artifact(artifact)
}

fn risk_of(model: &CityModel, params: &ScoringParams) -> (StreetRisk, CityScores) {
    let scores = CityScores::compute(model, 0, params);
    let network = model.road_network().unwrap();
    (StreetRisk::of(model, &scores, &network), scores)
}

fn only(class: CrimeClass) -> ScoringParams {
    ScoringParams {
        active: core::array::from_fn(|i| CRIME_CLASSES[i] == class),
        ..ScoringParams::default()
    }
}

#[test]
fn shares_spread_each_cells_incidents_over_its_ways_exactly() {
    let all = class_bits(&CRIME_CLASSES);
    let uneven = |way: usize| 1.0 + (way % 7) as f64;
    let model = city(&[(all, &uneven)]);
    let (risk, scores) = risk_of(&model, &ScoringParams::default());
    let graph = model.artifact().road_graph.as_ref().unwrap();
    let layer = model.street_layer();
    let mut per_cell = vec![0.0; model.cell_count()];
    for way in 0..graph.way_count() {
        let home = layer.homes[way];
        if home != OUTSIDE_GRID {
            let metres = f64::from(graph.way_length_m[way]);
            per_cell[home as usize] += risk.incidents(risk.risks()[way] * metres);
        }
    }
    let mut spread = 0;
    for (position, incidents) in per_cell.iter().enumerate() {
        if layer.home_metres[position] > 0.0 {
            let expected: f64 = scores.counts(position).iter().sum();
            // Decoded shares are kept as `f32`.
            let close = (incidents - expected).abs() < 1e-6 * expected;
            assert!(close, "cell {position}: {incidents} against {expected}");
            spread += 1;
        }
    }
    assert!(spread > 10, "{spread} cells with ways");
    // Uneven shares make uneven risks inside a cell.
    let risks = risk.risks();
    assert!(
        risks.iter().copied().fold(0.0, f64::max)
            > 2.0 * risks.iter().copied().fold(f64::MAX, f64::min)
    );
}

#[test]
fn a_class_of_no_group_spreads_over_its_cells_ways_by_length() {
    let violence = class_bits(&[CrimeClass::BatteryAssault, CrimeClass::SeriousViolent]);
    let hot = |way: usize| if way.is_multiple_of(5) { 50.0 } else { 1.0 };
    let model = city(&[(violence, &hot)]);
    let graph = model.artifact().road_graph.as_ref().unwrap();
    let layer = model.street_layer();
    let (theft, scores) = risk_of(&model, &only(CrimeClass::TheftBurglary));
    let mut per_cell = vec![0.0; model.cell_count()];
    for way in 0..graph.way_count() {
        let home = layer.homes[way];
        if home == OUTSIDE_GRID {
            continue;
        }
        let home = home as usize;
        // Every way of a cell: the cell's thefts per metre of its ways.
        let expected = scores.counts(home).iter().sum::<f64>() / layer.home_metres[home];
        let risk = theft.risks()[way];
        assert!(
            (theft.incidents(risk) - expected).abs() < 1e-12 * expected,
            "way {way}"
        );
        per_cell[home] += theft.incidents(risk * f64::from(graph.way_length_m[way]));
    }
    for (position, incidents) in per_cell.iter().enumerate() {
        if layer.home_metres[position] > 0.0 {
            let expected: f64 = scores.counts(position).iter().sum();
            assert!((incidents - expected).abs() < 1e-9 * expected, "{position}");
        }
    }
    // The violence shares still set the assaults apart.
    let (assault, _) = risk_of(&model, &only(CrimeClass::BatteryAssault));
    assert_ne!(assault.risks(), theft.risks());
}

#[test]
fn each_class_takes_the_smallest_group_that_holds_it() {
    let all = class_bits(&CRIME_CLASSES);
    let violence = class_bits(&[CrimeClass::BatteryAssault, CrimeClass::SeriousViolent]);
    let even = |_: usize| 1.0;
    let hot = |way: usize| if way.is_multiple_of(5) { 50.0 } else { 1.0 };
    let model = city(&[(all, &even), (violence, &hot)]);
    let graph = model.artifact().road_graph.as_ref().unwrap();
    let layer = model.street_layer();
    // Assaults follow the violence shares: a hot way of a cell is riskier than
    // its neighbours there; thefts follow the even shares: every way of a cell
    // is as risky per metre as another of the same cell.
    let (assault, _) = risk_of(&model, &only(CrimeClass::BatteryAssault));
    let (theft, _) = risk_of(&model, &only(CrimeClass::TheftBurglary));
    let mut compared = 0;
    for a in 0..graph.way_count() {
        for b in 0..graph.way_count() {
            let (home_a, home_b) = (layer.homes[a], layer.homes[b]);
            if home_a != home_b
                || home_a == OUTSIDE_GRID
                || !a.is_multiple_of(5)
                || b.is_multiple_of(5)
            {
                continue;
            }
            // Incidents on each way: its risk (per metre) times its length.
            let on = |risk: &StreetRisk, way: usize| {
                risk.risks()[way] * f64::from(graph.way_length_m[way])
            };
            let ratio = |risk: &StreetRisk| on(risk, a) / on(risk, b);
            assert!(
                (ratio(&assault) / 50.0 - 1.0).abs() < 0.1,
                "{}",
                ratio(&assault)
            );
            assert!((ratio(&theft) - 1.0).abs() < 0.1, "{}", ratio(&theft));
            compared += 1;
        }
    }
    assert!(compared > 5, "{compared}");
}

#[test]
fn without_shares_ways_take_the_density_of_the_cells_they_cross() {
    let model = city(&[]);
    let (risk, scores) = risk_of(&model, &ScoringParams::default());
    let graph = model.artifact().road_graph.as_ref().unwrap();
    for way in 0..graph.way_count() {
        let (mut metres, mut incidents) = (0.0, 0.0);
        for (position, m) in graph.way_cells(way) {
            let m = f64::from(m);
            metres += m;
            incidents +=
                m * scores.density_or_mean((position != OUTSIDE_GRID).then_some(position as usize));
        }
        let expected = incidents / metres;
        let got = risk.per_km(way) / 1000.0;
        assert!((got - expected).abs() < 1e-12 * expected, "way {way}");
    }
    // The mean is the city's incidents over its street metres.
    let layer = model.street_layer();
    let total: f64 = (0..model.cell_count())
        .map(|p| scores.counts(p).iter().sum::<f64>())
        .sum();
    let metres: f64 = layer.cell_metres.iter().sum();
    assert!((scores.mean_density() - total / metres).abs() < 1e-12 * total / metres);
}

#[test]
fn street_safety_scores_rank_by_risk_weighed_by_length() {
    let mut graph = crate::artifact::fixture::tiny_graph();
    graph.way_length_m = vec![100.0, 100.0, 100.0, 100.0, 0.0];
    let risk = StreetRisk {
        risks: Arc::from([1.0, 2.0, 2.0, 4.0, 3.0]),
        mean_density: 1.0,
        by_shares: false,
        own: false,
    };
    let scores = risk.safety_scores(&graph);
    // 300 m riskier than the first; the two at 2 share 100 m below, 100 m tied,
    // 100 m above; the last has nothing riskier.
    assert_eq!(scores[0], 100.0);
    assert!((scores[1] - 50.0).abs() < 1e-12 && (scores[2] - 50.0).abs() < 1e-12);
    assert_eq!(scores[3], 0.0);
    // A way of no length: 100 m riskier of 400.
    assert!((scores[4] - 25.0).abs() < 1e-12, "{scores:?}");
}
