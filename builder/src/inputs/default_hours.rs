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
mod tests {
    use super::*;

    fn smooth() -> [u64; 24] {
        core::array::from_fn(|h| 100 + 10 * (h as u64 % 5))
    }

    #[test]
    fn a_spike_at_midnight_is_weighed_down_to_its_neighbours() {
        let mut counts = smooth();
        counts[0] = 300; // neighbours 23 h (130) and 01 h (110): mean 120
        let weights = default_hour_weights(&counts);
        assert!((weights[0] - 120.0 / 300.0).abs() < 1e-12);
        assert!(weights[1..].iter().all(|&w| w == 1.0));
        assert_eq!(default_hours(&counts), vec![0]);
    }

    #[test]
    fn a_smooth_or_small_histogram_keeps_every_hour() {
        assert_eq!(default_hour_weights(&smooth()), [1.0; 24]);
        let mut small = [10; 24];
        small[12] = 40; // a spike, but only 270 incidents in all
        assert_eq!(default_hour_weights(&small), [1.0; 24]);
    }

    #[test]
    fn an_empty_neighbour_or_noise_is_no_default_hour() {
        // No incident at midnight (written NA): 23 h and 01 h are compared with their
        // other neighbour only.
        let mut gap = [500; 24];
        gap[0] = 0;
        gap[23] = 520;
        gap[1] = 380;
        assert!(default_hours(&gap).is_empty());
        // 70 against a mean of 52 is 1.35 times, but within 3 √52 ≈ 21.6.
        let mut noisy = [52; 24];
        noisy[9] = 70;
        assert!(default_hours(&noisy).is_empty());
        noisy[9] = 90;
        assert_eq!(default_hours(&noisy), vec![9]);
    }

    #[test]
    fn hours_outside_the_day_are_not_counted() {
        let counts = histogram([Some(3), None, Some(24), Some(3)].into_iter());
        assert_eq!(counts[3], 2);
        assert_eq!(counts.iter().sum::<u64>(), 2);
    }
}
