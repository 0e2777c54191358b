use super::*;

#[test]
fn a_week_written_out() {
    // 100 cells; the forecast ranks cell i by −i; incidents: cell 0 has 3, cell 1
    // none, cell 2 has 5, cell 50 has 12.
    let forecast: Vec<f64> = (0..100).map(|i| -f64::from(i)).collect();
    let mut observed = vec![0.0; 100];
    observed[0] = 3.0;
    observed[2] = 5.0;
    observed[50] = 12.0;
    let mut board = HotspotBoard::default();
    board.add_week(&forecast, &observed);
    let f = board.figures();
    // 1 %: cell 0 (3 of 20); 5 %: cells 0-4 (8); 10 %: cells 0-9 (8).
    assert_eq!(f.hit_rate, [3.0 / 20.0, 8.0 / 20.0, 8.0 / 20.0]);
    assert!((f.pai[0] - 15.0).abs() < 1e-12);
    assert!((f.pai[1] - 8.0).abs() < 1e-12);
    assert!((f.pai[2] - 4.0).abs() < 1e-12);
    // The busiest cell alone (12) holds the 3 and the 8: a* = 1 of 1, 5 and 10.
    assert_eq!(f.pei_star, [1.0, 0.2, 0.1]);
    // One week: no stability yet.
    assert!(f.stability.is_nan());
}

#[test]
fn stability_is_the_mean_jaccard_of_consecutive_top_lists() {
    let cells = 40; // 5 %: the top 2.
    let week = |top: [usize; 2]| -> Vec<f64> {
        (0..cells)
            .map(|i| if top.contains(&i) { 1.0 } else { 0.0 })
            .collect()
    };
    let observed = vec![1.0; cells];
    let mut board = HotspotBoard::default();
    board.add_week(&week([0, 1]), &observed);
    board.add_week(&week([0, 1]), &observed); // same: 1
    board.add_week(&week([1, 2]), &observed); // 1 shared of 3: 1/3
    board.add_week(&week([3, 4]), &observed); // none: 0
    let f = board.figures();
    assert!((f.stability - (1.0 + 1.0 / 3.0 + 0.0) / 3.0).abs() < 1e-12);
    // Every cell as busy: any list is the best, PEI* 1.
    assert_eq!(f.pei_star, [1.0; 3]);
}

#[test]
fn ties_go_to_the_earlier_cell_and_empty_weeks_count_nowhere() {
    let mut board = HotspotBoard::default();
    let mut observed = vec![0.0; 100];
    observed[1] = 4.0;
    // Every forecast equal: the 1 % list is cell 0, which has none.
    board.add_week(&[1.0; 100], &observed);
    assert_eq!(board.figures().hit_rate[0], 0.0);
    assert_eq!(board.figures().pei_star[0], 0.0);
    // A week without incidents adds area but no hits.
    board.add_week(&[1.0; 100], &[0.0; 100]);
    assert_eq!(board.figures().hit_rate[1], 1.0);
    assert!((board.figures().pai[1] - 20.0).abs() < 1e-12);
}
