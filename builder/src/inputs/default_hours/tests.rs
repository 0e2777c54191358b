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
