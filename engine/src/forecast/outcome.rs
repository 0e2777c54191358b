//! From expected weekly counts per crime class to the probabilities of a cell-week's
//! outcome.
//!
//! The outcome of a cell-week is the class with the most incidents that week, ties
//! broken by higher severity and then by API order (so `THEFT_BURGLARY` beats
//! `VEHICLE_DAMAGE`, both severity 3), or `NO_CRIME` when there are none.
//!
//! The model forecasts an expected count `λ_c` for each of the five crime classes and
//! a dispersion (size) `r_c`; counts are taken as independent negative binomial
//! variables with mean `λ` and variance `λ + λ²/r` (Poisson when `r` is infinite),
//! and the outcome distribution is computed exactly:
//!
//! - `P(NO_CRIME) = Π_c P(N_c = 0)`
//! - `P(c) = Σ_{n≥1} P(N_c = n) · Π_{d≠c} P(N_d ≤ n)` when `c` wins ties against `d`,
//!   with `P(N_d ≤ n − 1)` instead when `d` wins them.
//!
//! The series is summed until the remaining tail of `N_c` is below `1e-15`, and the
//! six values are then normalised so they sum to 1 to rounding.
//!
//! All maths goes through `libm`, so native and WebAssembly builds give bit-identical
//! numbers.

use super::classes::CrimeClass;

/// The five classes that count incidents, in API order (every class but `NO_CRIME`).
pub const CRIME_CLASSES: [CrimeClass; 5] = [
    CrimeClass::TheftBurglary,
    CrimeClass::BatteryAssault,
    CrimeClass::VehicleDamage,
    CrimeClass::SeriousViolent,
    CrimeClass::Other,
];

/// Largest expected weekly count accepted per class; larger values are clamped.
/// Far above any cell-week in the data, and small enough that `exp(-λ)` stays normal.
pub const MAX_RATE: f64 = 500.0;

/// Expected weekly incident counts, indexed like [`CRIME_CLASSES`].
pub type ClassRates = [f64; 5];

/// Negative binomial sizes per class, indexed like [`CRIME_CLASSES`];
/// `f64::INFINITY` means Poisson.
pub type Dispersion = [f64; 5];

/// Poisson counts for every class.
pub const POISSON: Dispersion = [f64::INFINITY; 5];

/// Probabilities of the six outcomes, indexed like [`CrimeClass::ALL`].
pub type OutcomeProbabilities = [f64; 6];

/// Whether class `a` wins a tie against class `b`: higher severity, then API order.
#[must_use]
pub fn wins_tie(a: CrimeClass, b: CrimeClass) -> bool {
    (a.severity(), core::cmp::Reverse(a.index())) > (b.severity(), core::cmp::Reverse(b.index()))
}

/// Sanitises one rate: NaN and negatives become 0, large values are clamped.
fn clean(rate: f64) -> f64 {
    if rate.is_nan() || rate <= 0.0 {
        0.0
    } else {
        rate.min(MAX_RATE)
    }
}

/// `P(N = 0)` and the factor `f(n)` with `P(N = n) = P(N = n − 1) · f(n)`.
struct CountLaw {
    zero: f64,
    rate: f64,
    size: f64,
}

impl CountLaw {
    fn new(rate: f64, size: f64) -> Self {
        let zero = if size.is_finite() {
            // (r / (r + λ))^r
            libm::exp(-size * libm::log1p(rate / size))
        } else {
            libm::exp(-rate)
        };
        Self { zero, rate, size }
    }

    fn step(&self, n: f64) -> f64 {
        if self.size.is_finite() {
            (n - 1.0 + self.size) / n * (self.rate / (self.size + self.rate))
        } else {
            self.rate / n
        }
    }
}

/// Sanitises a size: NaN, zero and negatives mean Poisson.
fn clean_size(size: f64) -> f64 {
    if size.is_nan() || size <= 0.0 {
        f64::INFINITY
    } else {
        size
    }
}

/// The exact outcome distribution for independent Poisson class counts.
///
/// ```
/// use hexrisk_engine::forecast::outcome_distribution;
/// let p = outcome_distribution(&[0.2, 0.1, 0.05, 0.01, 0.0]);
/// assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12);
/// assert!((p[5] - (-0.36f64).exp()).abs() < 1e-12); // NO_CRIME
/// ```
#[must_use]
pub fn outcome_distribution(rates: &ClassRates) -> OutcomeProbabilities {
    outcome_distribution_with(rates, &POISSON)
}

/// The exact outcome distribution for independent negative binomial class counts
/// with the given sizes (see the module docs).
#[must_use]
pub fn outcome_distribution_with(
    rates: &ClassRates,
    dispersion: &Dispersion,
) -> OutcomeProbabilities {
    let rates = rates.map(clean);
    let laws: [CountLaw; 5] =
        core::array::from_fn(|i| CountLaw::new(rates[i], clean_size(dispersion[i])));
    let mut probabilities = [0.0; 6];
    probabilities[CrimeClass::NoCrime.index()] = laws.iter().map(|l| l.zero).product();

    for (i, &class) in CRIME_CLASSES.iter().enumerate() {
        let rate = rates[i];
        if rate == 0.0 {
            continue;
        }
        // Running pmf/cdf of every class at n (for ties won) and n - 1 (for ties lost).
        let mut pmf: [f64; 5] = core::array::from_fn(|d| laws[d].zero);
        let mut cdf = pmf;
        let mut tail = 1.0 - pmf[i];
        let mut sum = 0.0;
        let mut n = 0.0;
        while tail > 1e-15 {
            n += 1.0;
            let cdf_previous = cdf;
            for (d, law) in laws.iter().enumerate() {
                pmf[d] *= law.step(n);
                cdf[d] += pmf[d];
            }
            let mut term = pmf[i];
            for (d, &other) in CRIME_CLASSES.iter().enumerate() {
                if d != i {
                    term *= if wins_tie(class, other) {
                        cdf[d]
                    } else {
                        cdf_previous[d]
                    };
                }
            }
            sum += term;
            tail -= pmf[i];
            // Guards the loop against rounding leaving `tail` stuck just above the limit,
            // and bounds the work for extreme dispersion.
            if n > 20.0 * MAX_RATE {
                break;
            }
        }
        probabilities[class.index()] = sum;
    }

    let sum: f64 = probabilities.iter().sum();
    probabilities.map(|p| p / sum)
}

/// The `q`-quantile (`0 < q < 1`) of the week's total incident count: the smallest
/// `n` with `P(total ≤ n) ≥ q`, the class counts being independent as above.
/// The median (`q = 0.5`) is the point forecast that minimises absolute error.
#[must_use]
pub fn total_count_quantile(rates: &ClassRates, dispersion: &Dispersion, q: f64) -> u32 {
    let q = if q.is_nan() {
        0.5
    } else {
        q.clamp(1e-9, 1.0 - 1e-9)
    };
    let rates = rates.map(clean);
    // pmf of the running total, convolved class by class; each class's pmf is cut
    // where its remaining tail drops below 1e-12.
    let mut total = alloc::vec![1.0];
    for (i, &rate) in rates.iter().enumerate() {
        if rate == 0.0 {
            continue;
        }
        let law = CountLaw::new(rate, clean_size(dispersion[i]));
        let mut pmf = alloc::vec![law.zero];
        let mut tail = 1.0 - law.zero;
        while tail > 1e-12 && pmf.len() < 20 * MAX_RATE as usize {
            let next = pmf[pmf.len() - 1] * law.step(pmf.len() as f64);
            tail -= next;
            pmf.push(next);
        }
        let mut next = alloc::vec![0.0; total.len() + pmf.len() - 1];
        for (a, &pa) in total.iter().enumerate() {
            for (b, &pb) in pmf.iter().enumerate() {
                next[a + b] += pa * pb;
            }
        }
        total = next;
    }
    let mut cumulative = 0.0;
    for (n, p) in total.iter().enumerate() {
        cumulative += p;
        if cumulative >= q {
            return n as u32;
        }
    }
    (total.len() - 1) as u32
}

#[cfg(test)]
mod tests {
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
}
