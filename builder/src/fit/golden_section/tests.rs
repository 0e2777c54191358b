use super::*;

#[test]
fn finds_the_top_of_a_parabola_anywhere_in_the_range() {
    for top in [-2.9, -1.0, 0.0, 0.37, 2.5] {
        let x = maximise(|x| -(x - top) * (x - top), (-3.0, 3.0), 60);
        assert!((x - top).abs() < 1e-9, "{x} against {top}");
    }
}

#[test]
fn a_rising_function_ends_at_the_upper_bound() {
    let x = maximise(|x| x, (0.0, 1.0), 60);
    assert!((x - 1.0).abs() < 1e-9);
}
