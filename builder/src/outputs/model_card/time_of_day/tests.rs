use super::*;

#[test]
fn spearman_is_the_pearson_correlation_of_mid_ranks() {
    assert_eq!(ranks(&[3.0, 1.0, 2.0, 1.0]), [4.0, 1.5, 3.0, 1.5]);
    // Any increasing map keeps the ranking: 1.
    let a = [0.5, 2.0, 0.1, 7.0, 3.0];
    let b = a.map(|x: f64| x.powi(3) + 1.0);
    assert!((spearman(&a, &b) - 1.0).abs() < 1e-12);
    assert!((spearman(&a, &b.map(|x| -x)) + 1.0).abs() < 1e-12);
    // Ranks 1..5 against 2, 1, 4, 3, 5: 1 − 6 Σd² / (n(n² − 1)) = 1 − 24/120.
    let x = [1.0, 2.0, 3.0, 4.0, 5.0];
    let y = [2.0, 1.0, 4.0, 3.0, 5.0];
    assert!((spearman(&x, &y) - 0.8).abs() < 1e-12);
}
