use super::*;

#[test]
fn cholesky_solves_a_known_system() {
    let mut a = [[0.0; FEATURES]; FEATURES];
    let mut b = [0.0; FEATURES];
    for i in 0..FEATURES {
        a[i][i] = 4.0;
        if i + 1 < FEATURES {
            a[i][i + 1] = 1.0;
            a[i + 1][i] = 1.0;
        }
    }
    let x_true: [f64; FEATURES] = core::array::from_fn(|i| i as f64 - 3.0);
    for i in 0..FEATURES {
        b[i] = (0..FEATURES).map(|j| a[i][j] * x_true[j]).sum();
    }
    let x = cholesky_solve(&a, &b).unwrap();
    for i in 0..FEATURES {
        assert!((x[i] - x_true[i]).abs() < 1e-10);
    }
    assert!(cholesky_solve(&[[0.0; FEATURES]; FEATURES], &b).is_none());
}

#[test]
fn size_fit_separates_poisson_from_overdispersed_counts() {
    // Counts alternating 0 and 2 around mean 1 are under-dispersed: size at the top.
    let mus = vec![1.0; 200];
    let even: Vec<f64> = (0..200).map(|i| f64::from(i % 2) * 2.0).collect();
    assert!(fit_size(&mus, &even) > 500.0);
    // Mostly zeros with occasional bursts of 10: strongly over-dispersed.
    let bursty: Vec<f64> = (0..200)
        .map(|i| if i % 10 == 0 { 10.0 } else { 0.0 })
        .collect();
    assert!(fit_size(&mus, &bursty) < 1.0);
}

#[test]
fn poisson_fit_recovers_a_constant_rate() {
    let mut row = [0.0; FEATURES];
    row[0] = 1.0;
    let rows = vec![row; 400];
    let counts: Vec<f64> = (0..400).map(|i| f64::from(i % 4)).collect(); // mean 1.5
    let beta = fit_poisson(&rows, &counts);
    assert!((beta[0].exp() - 1.5).abs() < 1e-9, "{beta:?}");
}

#[test]
fn features_never_read_the_target_week_or_later() {
    // One cell; class 0 has a count only in week 10. Rows for week 10 with data
    // before week 10 must be identical to rows computed from data with week 10 erased.
    let weeks = 20;
    let mut with = vec![0u16; weeks * CLASSES];
    for t in 0..weeks {
        with[t * CLASSES] = u16::try_from(t % 3).unwrap();
    }
    let mut without = with.clone();
    for t in 10..weeks {
        without[t * CLASSES] = 99;
    }
    let (a, b) = (
        WeeklyCounts::from_counts(weeks, 1, with),
        WeeklyCounts::from_counts(weeks, 1, without),
    );
    let nb = vec![Vec::new()];
    let (fa, fb) = (FeatureBuilder::new(&a, &nb), FeatureBuilder::new(&b, &nb));
    for target in 0..=10 {
        let (ta, tb) = (fa.city_terms(target, target), fb.city_terms(target, target));
        assert_eq!(ta, tb, "city terms at {target}");
        for class in 0..CLASSES {
            assert_eq!(fa.row(0, class, target, &ta), fb.row(0, class, target, &tb));
        }
    }
    // ...while week 11 does see week 10.
    let (ta, tb) = (fa.city_terms(11, 11), fb.city_terms(11, 11));
    assert_ne!(fa.row(0, 0, 11, &ta), fb.row(0, 0, 11, &tb));
}

mod feature_names {
    use super::super::*;

    /// Recomputes each feature as its name says, from a cell whose weekly counts are
    /// all different, and compares with the row: the names cannot drift from the code.
    #[test]
    fn every_feature_is_what_its_name_says() {
        let weeks = 120;
        let cells = 3;
        // Class 0 of cell c in week t: (7t + 3c) mod 11; other classes 1.
        let count =
            |t: usize, c: usize, class: usize| if class == 0 { (7 * t + 3 * c) % 11 } else { 1 };
        let mut table = Vec::new();
        for t in 0..weeks {
            for c in 0..cells {
                for class in 0..CLASSES {
                    table.push(u16::try_from(count(t, c, class)).unwrap());
                }
            }
        }
        let counts = WeeklyCounts::from_counts(weeks, cells, table);
        let neighbours = vec![vec![1, 2], vec![0], vec![0]];
        let features = FeatureBuilder::new(&counts, &neighbours);
        let asof = 110;
        let terms = features.city_terms(asof, asof);
        let row = features.row(0, 0, asof, &terms);
        let mean = |c: usize, span: usize| {
            (asof - span..asof)
                .map(|t| count(t, c, 0) as f64)
                .sum::<f64>()
                / span as f64
        };
        let ln = |m: f64| (OFFSET + m).ln();
        let ewma = |alpha: f64| {
            let (mut num, mut den) = (0.0, 0.0);
            for t in 0..asof {
                num = (1.0 - alpha) * num + alpha * count(t, 0, 0) as f64;
                den = (1.0 - alpha) * den + alpha;
            }
            num / den
        };
        let all13: f64 = (0..CLASSES)
            .map(|class| {
                (asof - 13..asof)
                    .map(|t| count(t, 0, class) as f64)
                    .sum::<f64>()
                    / 13.0
            })
            .sum();
        // The city-wide terms as their names write them out: `m` a span's city-wide
        // mean weekly count of class 0 (every cell together).
        let city_mean = |weeks: std::ops::Range<usize>| {
            let span = weeks.len() as f64;
            weeks
                .map(|t| (0..cells).map(|c| count(t, c, 0) as f64).sum::<f64>())
                .sum::<f64>()
                / span
        };
        let trend =
            |span: usize| (city_mean(asof - span..asof) + 1.0) / (city_mean(asof - 52..asof) + 1.0);
        // Two earlier years before week 110: k = 1 (centre 58) and k = 2 (centre 6,
        // whose year starts at week 0).
        let seasonal =
            (city_mean(56..61) + city_mean(4..9)) / (city_mean(32..84) + city_mean(0..32));
        let expected = [
            1.0,
            ln(mean(0, asof)),
            ln(mean(0, 4)),
            ln(mean(0, 13)),
            ln(mean(0, 52)),
            ln(all13),
            ln(f64::midpoint(mean(1, asof), mean(2, asof))),
            ln(f64::midpoint(mean(1, 13), mean(2, 13))),
            seasonal.ln(),
            trend(8).ln(),
            ln(count(asof - 1, 0, 0) as f64),
            trend(2).ln(),
            ln(ewma(EWMA_ALPHAS[0])),
            ln(ewma(EWMA_ALPHAS[1])),
        ];
        for (i, (got, want)) in row.iter().zip(expected).enumerate() {
            assert!(
                (got - want).abs() < 1e-9,
                "feature {i} ({}): {got} against {want}",
                FEATURE_NAMES[i]
            );
        }
        assert!(FEATURE_NAMES[12].contains(&EWMA_ALPHAS[0].to_string()));
        assert!(FEATURE_NAMES[13].contains(&EWMA_ALPHAS[1].to_string()));
    }
}
