//! Golden-section search: the maximiser of a unimodal function of one variable, used
//! for the one-parameter likelihood fits (a negative binomial size, a recent level).

/// The argument in `[lo, hi]` maximising `f`, assumed unimodal there, to within
/// `(hi − lo) · 0.618^iterations`.
#[must_use]
pub fn maximise(f: impl Fn(f64) -> f64, (mut lo, mut hi): (f64, f64), iterations: u32) -> f64 {
    let golden = (5f64.sqrt() - 1.0) / 2.0;
    let (mut a, mut b) = (hi - golden * (hi - lo), lo + golden * (hi - lo));
    let (mut fa, mut fb) = (f(a), f(b));
    for _ in 0..iterations {
        if fa > fb {
            hi = b;
            (b, fb) = (a, fa);
            a = hi - golden * (hi - lo);
            fa = f(a);
        } else {
            lo = a;
            (a, fa) = (b, fb);
            b = lo + golden * (hi - lo);
            fb = f(b);
        }
    }
    f64::midpoint(lo, hi)
}

#[cfg(test)]
mod tests;
