//! How the model card writes a figure: three decimals, a dash for a figure that
//! cannot be had (a PAI over weeks without incidents).

/// A figure to three decimals, or `–` for NaN.
pub(super) fn metric(value: f64) -> String {
    if value.is_nan() {
        "–".to_owned()
    } else {
        format!("{value:.3}")
    }
}
