use super::*;

/// Monte-Carlo-free check: enumerate every count vector up to a bound.
fn brute_force(rates: &ClassRates, max_count: u32) -> OutcomeProbabilities {
    let mut out = [0.0; 6];
    let pmf = |r: f64, k: u32| {
        let mut p = libm::exp(-r);
        for j in 1..=k {
            p *= r / f64::from(j);
        }
        p
    };
    let bound = max_count + 1;
    for code in 0..bound.pow(5) {
        let mut counts = [0u32; 5];
        let mut rest = code;
        for c in &mut counts {
            *c = rest % bound;
            rest /= bound;
        }
        let p: f64 = counts.iter().zip(rates).map(|(&k, &r)| pmf(r, k)).product();
        let winner = if counts.iter().all(|&k| k == 0) {
            CrimeClass::NoCrime
        } else {
            let mut best = 0;
            for d in 1..5 {
                if counts[d] > counts[best]
                    || (counts[d] == counts[best]
                        && wins_tie(CRIME_CLASSES[d], CRIME_CLASSES[best]))
                {
                    best = d;
                }
            }
            CRIME_CLASSES[best]
        };
        out[winner.index()] += p;
    }
    out
}

#[test]
fn matches_enumeration_of_all_count_vectors() {
    for rates in [
        [0.3, 0.2, 0.1, 0.05, 0.02],
        [0.9, 0.9, 0.9, 0.0, 0.4],
        [0.05, 0.0, 0.0, 0.0, 0.0],
        [0.6, 0.4, 0.6, 0.4, 0.6],
    ] {
        let exact = outcome_distribution(&rates);
        let enumerated = brute_force(&rates, 9);
        for k in 0..6 {
            assert!(
                (exact[k] - enumerated[k]).abs() < 1e-6,
                "{rates:?} class {k}: {exact:?} vs {enumerated:?}"
            );
        }
    }
}

#[test]
fn sums_to_one_for_small_and_large_rates() {
    for rates in [
        [0.0; 5],
        [1e-9; 5],
        [3.0, 7.0, 1.0, 0.5, 2.0],
        [60.0, 55.0, 40.0, 10.0, 80.0],
    ] {
        let p = outcome_distribution(&rates);
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12, "{rates:?}");
        assert!(p.iter().all(|&x| (0.0..=1.0).contains(&x)), "{p:?}");
    }
}

#[test]
fn negative_binomial_matches_enumeration_and_tends_to_poisson() {
    let rates = [0.4, 0.3, 0.2, 0.1, 0.3];
    let sizes = [0.8, 1.5, 0.5, 2.0, 1.0];
    let p = outcome_distribution_with(&rates, &sizes);
    assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    // P(NO_CRIME) is the product of (r/(r+λ))^r.
    let zero: f64 = rates
        .iter()
        .zip(&sizes)
        .map(|(l, r)| (r / (r + l)).powf(*r))
        .product();
    assert!((p[CrimeClass::NoCrime.index()] - zero).abs() < 1e-12);
    // Overdispersion makes a quiet week more likely than Poisson says.
    assert!(zero > (-rates.iter().sum::<f64>()).exp());
    let near_poisson = outcome_distribution_with(&rates, &[1e9; 5]);
    let poisson = outcome_distribution(&rates);
    for k in 0..6 {
        assert!((near_poisson[k] - poisson[k]).abs() < 1e-7);
    }
    // Bad sizes fall back to Poisson.
    assert_eq!(
        outcome_distribution_with(&rates, &[f64::NAN, 0.0, -1.0, f64::INFINITY, f64::INFINITY]),
        poisson
    );
}

#[test]
fn total_count_median_matches_the_poisson_median() {
    // Poisson(0.6): P(0) = 0.549 ≥ 0.5, so the median is 0; Poisson(0.7): P(0) = 0.497.
    assert_eq!(
        total_count_quantile(&[0.6, 0.0, 0.0, 0.0, 0.0], &POISSON, 0.5),
        0
    );
    assert_eq!(
        total_count_quantile(&[0.3, 0.4, 0.0, 0.0, 0.0], &POISSON, 0.5),
        1
    );
    assert_eq!(
        total_count_quantile(&[2.0, 2.0, 2.0, 2.0, 2.0], &POISSON, 0.5),
        10
    );
    assert_eq!(total_count_quantile(&[0.0; 5], &POISSON, 0.5), 0);
    // Overdispersion moves the median down for the same mean.
    assert!(total_count_quantile(&[3.0; 5], &[0.3; 5], 0.5) < 15);
}

#[test]
fn no_rates_means_certainly_no_crime() {
    let p = outcome_distribution(&[0.0; 5]);
    assert_eq!(p[CrimeClass::NoCrime.index()], 1.0);
}

#[test]
fn bad_rates_are_cleaned_not_propagated() {
    let p = outcome_distribution(&[f64::NAN, -1.0, f64::INFINITY, 0.0, 0.0]);
    assert!(p.iter().all(|x| x.is_finite()));
    assert!(p[CrimeClass::VehicleDamage.index()] > 0.99);
}

#[test]
fn tie_order_is_severity_then_api_order() {
    use CrimeClass::*;
    assert!(wins_tie(SeriousViolent, BatteryAssault));
    assert!(wins_tie(BatteryAssault, TheftBurglary));
    assert!(wins_tie(TheftBurglary, VehicleDamage));
    assert!(!wins_tie(VehicleDamage, TheftBurglary));
    assert!(wins_tie(VehicleDamage, Other));
}

#[test]
fn equal_rates_favour_the_tie_winner() {
    let p = outcome_distribution(&[0.5; 5]);
    let sv = p[CrimeClass::SeriousViolent.index()];
    let other = p[CrimeClass::Other.index()];
    assert!(sv > other);
}
