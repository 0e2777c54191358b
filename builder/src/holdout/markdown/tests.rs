use super::*;
use crate::holdout::report::{
    self, Conditions, CostingRoutes, HeldOut, Measured, PairResult, Rejected, Seconds,
};

fn report() -> Report {
    let m = |length_m: f64, all: u32, street: u32| Measured {
        length_m,
        all,
        street,
    };
    let routes = |safest: Measured, within: [Measured; 3]| CostingRoutes {
        safest,
        within: within.to_vec(),
        corners: 4,
        complete: true,
    };
    let pairs = vec![
        PairResult {
            from: [43.65, -79.40],
            to: [43.70, -79.38],
            crow_m: 5_800.0,
            shortest: m(7_000.0, 70, 14),
            old: routes(
                m(7_700.0, 63, 12),
                [m(7_000.0, 70, 14), m(7_400.0, 66, 13), m(7_700.0, 63, 12)],
            ),
            new: routes(
                m(9_800.0, 20, 2),
                [m(7_300.0, 50, 9), m(7_650.0, 35, 7), m(8_200.0, 30, 5)],
            ),
        },
        PairResult {
            from: [43.75, -79.30],
            to: [43.72, -79.28],
            crow_m: 3_900.0,
            shortest: m(4_500.0, 0, 0),
            old: routes(m(4_600.0, 0, 0), [m(4_500.0, 0, 0); 3]),
            new: routes(
                m(5_600.0, 1, 0),
                [m(4_500.0, 0, 0), m(4_900.0, 1, 0), m(4_900.0, 1, 0)],
            ),
        },
    ];
    let kinds = report::kinds(&pairs);
    Report {
        conditions: Conditions {
            date: "2026-01-02".into(),
            machine: "2 × Test CPU".into(),
            command: "hexrisk-build holdout-routes --pairs 2".into(),
            city: "city_ca_tor".into(),
            city_name: "Toronto".into(),
            cut: "2019-12-31".into(),
            fit_from: "2014-01-06".into(),
            fit_through: "2019-12-29".into(),
            scoring_week: "2019-12-30".into(),
            held_out_from: "2020-01-01".into(),
            held_out_through: "2021-12-31".into(),
            pairs: pairs.len(),
            seed: 7,
            distance_m: [2_000.0, 10_000.0],
            buffer_m: 30.0,
            rejected: Rejected::default(),
            seconds: Seconds {
                fit: 100.0,
                held_out: 10.0,
                routes: 20.0,
                total: 130.0,
            },
        },
        held_out: HeldOut {
            all: 60_000,
            street: 15_000,
            positions: 12_000,
        },
        shortest: report::shortest(&pairs),
        aims: report::aims(&kinds),
        kinds,
        pairs,
    }
}

#[test]
fn the_table_reads_its_figures_from_the_report() {
    let text = section(&report());
    // Today's trade-off within +10 %: 66 over 7.4 km against 10 per km; pooled,
    // 66 over 11.9 km against 70 over 11.5; 5.7 % and 0 % longer.
    assert!(
        text.contains(
            "| trade-off within +10 % | today's (cell rank) | 2.9 % | 10.8 % (8.9 %) | 12.2 % (10.3 %) |"
        ),
        "{text}"
    );
    // Street-level: 35 over 7.65 km, 54.2 % fewer; pooled 36 over 12.55 km;
    // 9.3 % and 8.9 % longer.
    assert!(
        text.contains(
            "| trade-off within +10 % | street-level | 9.1 % | 54.2 % (52.9 %) | 54.2 % (54.2 %) |"
        ),
        "{text}"
    );
    assert!(
        text.contains("| safest (α = 4) | street-level | 32.2 % |"),
        "{text}"
    );
    assert!(
        text.contains("1 of 2 (all incidents), 1 of 2 (street premises)"),
        "{text}"
    );
    assert!(text.contains("median 4 hull corners with today's costing, 4 street-level; sets stopped by the search budget before finding every corner: 0 and 0."), "{text}");
    // 54.2 % is at least 25 % and 3 × 10.81 % = 32.4 %.
    assert!(
        text.contains("at least 25 % fewer incidents per km than the shortest (median) | all incidents | 54.2 % | ≥ 25.0 % | met |"),
        "{text}"
    );
    assert!(
        text.contains("today's costing's (its trade-off within +10 %) | all incidents | 54.2 % | ≥ 32.4 % | met |"),
        "{text}"
    );
    assert!(
        text.contains("60000 in all, 15000 on street premises"),
        "{text}"
    );
    assert!(text.contains("2 random pairs 2–10 km apart"), "{text}");
}

#[test]
fn splicing_replaces_only_the_marked_section_and_reads_back() {
    let doc = format!("# Title\n\nbefore\n\n{START}\nold table\n{END}\n\nafter\n");
    let new = splice(&doc, "new table\n").unwrap();
    assert_eq!(
        new,
        format!("# Title\n\nbefore\n\n{START}\nnew table\n{END}\n\nafter\n")
    );
    assert_eq!(current(&new), Some("new table"));
    assert_eq!(splice(&new, "new table").unwrap(), new);
    assert!(splice("no markers", "x").is_err());
    assert!(splice(&format!("{END}\n{START}\n"), "x").is_err());
}

#[test]
fn a_report_read_back_from_json_gives_the_same_section() {
    let report = report();
    let json = serde_json::to_string(&report).unwrap();
    let back: Report = serde_json::from_str(&json).unwrap();
    assert_eq!(section(&back), section(&report));
}
