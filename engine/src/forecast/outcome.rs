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
mod tests;
