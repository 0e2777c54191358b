//! Occurrence hours of poor quality. Police files put an incident whose hour nobody
//! knows at a default hour, usually midnight or noon: Toronto's MCI file has 1.46
//! times as many incidents at 00 h as the mean of 23 h and 01 h, and 1.48 times at
//! 12 h; Houston 1.43 and 1.28; San Francisco's clock times pile up at `00:01` and
//! `12:00`. Taken at face value those hours would teach every profile a false peak.
//!
//! The rule, per source and from its own histogram: an hour holding more than
//! [`DEFAULT_HOUR_EXCESS`] times the mean of its neighbouring hours, and more than
//! [`NOISE_SIGMAS`] Poisson standard deviations above it, is a default hour, and each
//! incident at it counts in the profiles as `neighbour mean / count` of an incident,
//! so that the hour weighs what its neighbours suggest and the excess (the incidents
//! of unknown hour) spreads like the rest. A neighbouring hour with no incident at all
//! is left out of the mean: the Toronto shootings have none at 00 h (midnight is
//! written `NA`), which is a gap, not a quiet hour. Incidents without
//! an hour (the Toronto homicides, shootings with `OCC_HOUR` `NA`) do not count in
//! the profiles at all. Every incident counts fully in the weekly rates.

/// How far above the mean of its neighbours an hour's count must be to be taken as a
/// default hour.
pub const DEFAULT_HOUR_EXCESS: f64 = 1.25;

/// How many Poisson standard deviations (`√mean`) above the neighbour mean an hour
/// must be, so that the noise of a small source is not taken for a default hour.
pub const NOISE_SIGMAS: f64 = 3.0;

/// Fewer incidents with an hour than this and no hour is judged a default one (the
/// histogram is too noisy to tell).
pub const MIN_INCIDENTS_FOR_DEFAULTS: u64 = 24 * 50;

/// Incidents per local hour of the day.
#[must_use]
pub fn histogram(hours: impl Iterator<Item = Option<u8>>) -> [u64; 24] {
    let mut counts = [0; 24];
    for hour in hours.flatten() {
        if let Some(slot) = counts.get_mut(usize::from(hour)) {
            *slot += 1;
        }
    }
    counts
}

/// The profile weight of one incident at each hour: 1, or `neighbour mean / count`
/// at a default hour.
#[must_use]
pub fn default_hour_weights(histogram: &[u64; 24]) -> [f64; 24] {
    let mut weights = [1.0; 24];
    if histogram.iter().sum::<u64>() < MIN_INCIDENTS_FOR_DEFAULTS {
        return weights;
    }
    for (hour, weight) in weights.iter_mut().enumerate() {
        let count = histogram[hour] as f64;
        let around: Vec<f64> = [histogram[(hour + 23) % 24], histogram[(hour + 1) % 24]]
            .into_iter()
            .filter(|&n| n > 0)
            .map(|n| n as f64)
            .collect();
        if around.is_empty() {
            continue;
        }
        let mean = around.iter().sum::<f64>() / around.len() as f64;
        if count > DEFAULT_HOUR_EXCESS * mean && count - mean > NOISE_SIGMAS * mean.sqrt() {
            *weight = mean / count;
        }
    }
    weights
}

/// The default hours of a histogram, for the model card.
#[must_use]
pub fn default_hours(histogram: &[u64; 24]) -> Vec<u8> {
    default_hour_weights(histogram)
        .iter()
        .zip(0_u8..)
        .filter(|(w, _)| **w < 1.0)
        .map(|(_, h)| h)
        .collect()
}

#[cfg(test)]
mod tests;
