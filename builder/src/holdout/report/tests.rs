use super::*;

fn measured(length_m: f64, all: u32, street: u32) -> Measured {
    Measured {
        length_m,
        all,
        street,
    }
}

fn costing(safest: Measured, within: [Measured; 3]) -> CostingRoutes {
    CostingRoutes {
        safest,
        within: within.to_vec(),
        corners: 3,
        complete: true,
    }
}

fn pair(shortest: Measured, old: CostingRoutes, new: CostingRoutes) -> PairResult {
    PairResult {
        from: [43.7, -79.4],
        to: [43.72, -79.38],
        crow_m: 2_700.0,
        shortest,
        old,
        new,
    }
}

#[test]
fn medians_take_the_middle_or_the_mean_of_the_middle_two() {
    assert_eq!(median(&[]), None);
    assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
    assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
}

#[test]
fn reductions_are_per_km_paired_and_leave_out_pairs_with_none_on_the_shortest() {
    let same = measured(1_000.0, 10, 2);
    let pairs = vec![
        // 10 per km on the shortest; the new trade-off within +10 %: 5 over 1.1 km.
        pair(
            measured(1_000.0, 10, 2),
            costing(same, [same; 3]),
            costing(same, [same, measured(1_100.0, 5, 1), same]),
        ),
        // Nothing on the shortest route: left out of the median, counted apart.
        pair(
            measured(2_000.0, 0, 0),
            costing(measured(2_000.0, 0, 0), [measured(2_000.0, 0, 0); 3]),
            costing(
                measured(2_000.0, 0, 0),
                [
                    measured(2_000.0, 0, 0),
                    measured(2_100.0, 1, 0),
                    measured(2_000.0, 0, 0),
                ],
            ),
        ),
    ];
    let kinds = kinds(&pairs);
    let new10 = kinds
        .iter()
        .find(|k| k.costing == "new" && k.route == "within_10")
        .unwrap();
    let expected = 100.0 * (1.0 - (5.0 / 1.1) / 10.0);
    assert!((new10.all.median_reduction_pct.unwrap() - expected).abs() < 1e-9);
    assert_eq!(new10.all.pairs, 1);
    assert_eq!(new10.all.zero_at_shortest, 1);
    assert_eq!(new10.all.zero_at_shortest_but_here, 1);
    // Street: 2 per km against 1 over 1.1 km.
    let expected = 100.0 * (1.0 - (1.0 / 1.1) / 2.0);
    assert!((new10.street.median_reduction_pct.unwrap() - expected).abs() < 1e-9);
    // Pooled: 6 over 3.2 km against 10 over 3 km.
    let pooled = 100.0 * (1.0 - (6.0 / 3.2) / (10.0 / 3.0));
    assert!((new10.all.pooled_reduction_pct.unwrap() - pooled).abs() < 1e-9);
    // Extra length: 10 % and 5 %.
    assert!((new10.median_extra_length_pct.unwrap() - 7.5).abs() < 1e-9);
    let old10 = kinds
        .iter()
        .find(|k| k.costing == "old" && k.route == "within_10")
        .unwrap();
    assert_eq!(old10.all.median_reduction_pct, Some(0.0));
}

#[test]
fn aims_need_a_quarter_fewer_and_three_times_todays_reduction() {
    let kind = |costing: &str, reduction: Option<f64>| KindFigures {
        costing: costing.into(),
        route: within(AIM_STRETCH),
        median_extra_length_pct: Some(4.0),
        all: SetFigures {
            median_reduction_pct: reduction,
            mean_reduction_pct: reduction,
            pooled_reduction_pct: reduction,
            pairs: 10,
            zero_at_shortest: 0,
            zero_at_shortest_but_here: 0,
        },
        street: SetFigures {
            median_reduction_pct: Some(0.0),
            mean_reduction_pct: Some(0.0),
            pooled_reduction_pct: Some(0.0),
            pairs: 10,
            zero_at_shortest: 0,
            zero_at_shortest_but_here: 0,
        },
    };
    let judged = aims(&[kind("old", Some(8.0)), kind("new", Some(25.0))]);
    let met: Vec<(String, bool)> = judged.iter().map(|a| (a.set.clone(), a.met)).collect();
    assert_eq!(
        met,
        vec![
            ("all".into(), true),
            ("all".into(), true),
            ("street".into(), false),
            ("street".into(), false),
        ]
    );
    let judged = aims(&[kind("old", Some(9.0)), kind("new", Some(26.0))]);
    assert!(judged[0].met && !judged[1].met);
    assert_eq!(judged[1].threshold, Some(27.0));
}
