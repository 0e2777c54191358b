//! The street-level backtest: the ranking and the length budget of one week, the
//! groups, and the rolling shares against a from-scratch recomputation on the
//! hand-made network (`fixture.rs`).

use chrono::NaiveDate;
use hexrisk_engine::forecast::CRIME_CLASSES;

use super::*;
use crate::fit::streets::fixture::{self, POINTS};

/// Ways of 10, 40, 50 and 900 m in one cell: 1 % of the length is 10 m, 5 % 50 m
/// and 10 % 100 m.
fn four_ways() -> StreetNetwork {
    StreetNetwork {
        way_cell: vec![Some(0); 4],
        way_length_m: vec![10.0, 40.0, 50.0, 900.0],
        cell_length_m: vec![1000.0],
        total_length_m: 1000.0,
    }
}

#[test]
fn whole_ways_are_taken_by_density_while_they_fit_the_budget() {
    let network = four_ways();
    let density = [3.0, 2.0, 4.0, 1.0];
    let observed = [(0, 1.0), (2, 2.5), (3, 0.5)];
    let [one, five, ten] = capture_week(&network, &observed, |way, _| density[way]);
    // 1 %: way 2 (50 m) comes first and does not fit in 10 m; nothing after it is
    // taken, though way 0 alone would fit.
    assert_eq!((one.hits, one.taken_fraction_sum), (0.0, 0.0));
    // 5 %: way 2 exactly fills 50 m.
    assert_eq!((five.hits, five.taken_fraction_sum), (2.5, 0.05));
    // 10 %: ways 2, 0 and 1 (100 m).
    assert_eq!((ten.hits, ten.taken_fraction_sum), (3.5, 0.1));
    assert!(
        [one, five, ten]
            .iter()
            .all(|c| c.incidents == 4.0 && c.weeks == 1)
    );
    assert_eq!(five.hit_rate(), 2.5 / 4.0);
    assert!((ten.pai() - 3.5 / 4.0 / 0.1).abs() < 1e-12);
}

#[test]
fn equal_densities_rank_by_way_index() {
    let network = four_ways();
    // Ways 0 and 1 tie: way 0 (10 m) first fills the 1 % budget.
    let [one, ..] = capture_week(&network, &[(0, 1.0), (1, 1.0)], |way, _| {
        if way < 2 { 5.0 } else { 1.0 }
    });
    assert_eq!((one.hits, one.taken_fraction_sum), (1.0, 0.01));
}

fn incident(class: CrimeClass, street: Option<bool>) -> Incident {
    Incident {
        date: NaiveDate::from_ymd_opt(2020, 1, 6).unwrap(),
        class,
        lat: 0.0,
        lng: 0.0,
        cell: 0,
        hour: None,
        hour_weight: 0.0,
        street,
        reported: None,
    }
}

#[test]
fn street_violence_is_violence_whose_premises_are_the_street() {
    let group = StreetGroup::StreetViolence;
    assert!(group.includes(&incident(CrimeClass::BatteryAssault, Some(true))));
    assert!(group.includes(&incident(CrimeClass::SeriousViolent, Some(true))));
    assert!(!group.includes(&incident(CrimeClass::SeriousViolent, Some(false))));
    assert!(!group.includes(&incident(CrimeClass::SeriousViolent, None)));
    assert!(!group.includes(&incident(CrimeClass::TheftBurglary, Some(true))));
    assert!(StreetGroup::All.includes(&incident(CrimeClass::Other, None)));
    // The forecasts add the group's classes' expected counts.
    let rates: ClassRates = [1.0, 10.0, 100.0, 1000.0, 10_000.0];
    let violence: f64 = CRIME_CLASSES
        .iter()
        .zip(rates)
        .filter(|(c, _)| VIOLENCE_CLASSES.contains(c))
        .map(|(_, r)| r)
        .sum();
    assert_eq!(group.forecast(&rates), violence);
    assert_eq!(StreetGroup::All.forecast(&rates), rates.iter().sum::<f64>());
}

/// The rows of `weeks - start` backtest weeks of two cells, cell 0's forecast
/// growing week by week.
fn rows(weeks: &Weeks, start: usize) -> Vec<BacktestRow> {
    let cell = hexrisk_engine::grid::cell_at(43.7, -79.4).unwrap();
    (start..weeks.count)
        .flat_map(|t| {
            (0..2).map(move |c| BacktestRow {
                week: weeks.start_of(t),
                cell,
                rates: core::array::from_fn(|i| (1 + i + (1 - c) * t) as f64 * 0.1),
                probabilities: [0.0; 6],
                dispersion: [1.0; 5],
                level: 1.0,
                counts: [0; 5],
                baselines: [0.0; 4],
                baseline_rates: [[0.0; 5]; 2],
            })
        })
        .collect()
}

#[test]
fn rolling_shares_are_those_learnt_from_scratch_before_each_origin() {
    let graph = fixture::graph();
    let weeks = Weeks {
        first: NaiveDate::from_ymd_opt(2020, 1, 6).unwrap(),
        count: 40,
    };
    // Every point in many weeks, half the incidents on the 30 m stub (the last
    // point), violence on the street in some.
    let incidents: Vec<Incident> = (0..weeks.count * 3)
        .map(|i| {
            let point = if i % 2 == 0 {
                POINTS.len() - 1
            } else {
                (i * 7 + i / 5) % POINTS.len()
            };
            let (lat, lng) = POINTS[point];
            Incident {
                date: weeks.start_of(i / 3) + chrono::Days::new((i % 7) as u64),
                lat,
                lng,
                street: Some(i % 2 == 0),
                reported: None,
                ..incident(CRIME_CLASSES[i % CRIME_CLASSES.len()], None)
            }
        })
        .collect();
    let (start, refit_every) = (6, 13);
    let rows = rows(&weeks, start);
    let inputs = StreetInputs {
        graph: &graph,
        cells: 2,
        incidents: &incidents,
        weeks: &weeks,
        rows: &rows,
        start,
        refit_every,
    };
    let result = run(&inputs).unwrap();
    assert_eq!(result.groups.len(), 2);
    for group in &result.groups {
        let k = group.shrinkage.k;
        let origins = origin_shares(&result.network, &group.counts, (start..weeks.count, 13), k);
        assert_eq!(origins.iter().map(|o| o.0).collect::<Vec<_>>(), [6, 19, 32]);
        for (origin, shares) in &origins {
            let from_scratch =
                shares::shares(&result.network, &group.counts.totals(0..*origin, 6), k);
            assert_eq!(shares.len(), from_scratch.len());
            for (a, b) in shares.iter().zip(&from_scratch) {
                assert!((a - b).abs() < 1e-12, "origin {origin}: {a} vs {b}");
            }
        }
        let mut uniform = [Capture::default(); 3];
        let mut street = [Capture::default(); 3];
        for t in start..weeks.count {
            let origin = start + (t - start) / refit_every * refit_every;
            let history = group.counts.totals(0..origin, 6);
            let shares = shares::shares(&result.network, &history, k);
            let forecast: Vec<f64> = rows[(t - start) * 2..(t - start + 1) * 2]
                .iter()
                .map(|r| group.group.forecast(&r.rates))
                .collect();
            let observed = &group.counts.weeks[t];
            let network = &result.network;
            let a = capture_week(network, observed, |_, c| {
                forecast[c] / network.cell_length_m[c]
            });
            let b = capture_week(network, observed, |w, c| {
                forecast[c] * shares[w] / network.way_length_m[w]
            });
            for i in 0..3 {
                uniform[i].add(&a[i]);
                street[i].add(&b[i]);
            }
        }
        // The 30 m stub fits in 10 % of the length: some weeks score.
        if group.group == StreetGroup::All {
            assert!(group.street[2].hits > 0.0);
        }
        for i in 0..3 {
            assert!((group.uniform[i].hits - uniform[i].hits).abs() < 1e-9);
            assert!((group.street[i].hits - street[i].hits).abs() < 1e-9, "{i}");
            assert_eq!(group.street[i].weeks, weeks.count - start);
        }
    }
    // Two points of the nine are off the network.
    let all = &result.groups[0];
    assert_eq!(all.placements.total(), incidents.len() as u64);
    assert!(all.placements.off_network > 0);
}

#[test]
fn rows_that_do_not_cover_the_backtest_are_an_error() {
    let graph = fixture::graph();
    let weeks = Weeks {
        first: NaiveDate::from_ymd_opt(2020, 1, 6).unwrap(),
        count: 10,
    };
    let rows = rows(&weeks, 5);
    let inputs = StreetInputs {
        graph: &graph,
        cells: 2,
        incidents: &[],
        weeks: &weeks,
        rows: &rows[1..],
        start: 5,
        refit_every: 13,
    };
    assert_eq!(
        run(&inputs).unwrap_err(),
        StreetError::Rows {
            rows: 9,
            weeks: 5,
            cells: 2
        }
    );
    // Without premises, no street-violence group.
    let inputs = StreetInputs {
        rows: &rows,
        ..inputs
    };
    let result = run(&inputs).unwrap();
    assert_eq!(result.groups.len(), 1);
    assert_eq!(result.violence_with_premises, 0);
}
