use super::*;

#[test]
fn windows_sum_the_right_weeks() {
    // 3 weeks, 2 cells: cell 1 has class-0 counts 1, 2, 3.
    let mut counts = vec![0u16; 3 * 2 * CLASSES];
    for (t, n) in [1u16, 2, 3].into_iter().enumerate() {
        counts[(t * 2 + 1) * CLASSES] = n;
    }
    counts[4] = 7; // week 0, cell 0, class 4
    let table = WeeklyCounts::from_counts(3, 2, counts);
    assert_eq!(table.window(1, 0, 0, 3), 6);
    assert_eq!(table.window(1, 0, 1, 3), 5);
    assert_eq!(table.window(1, 0, 2, 99), 3);
    assert_eq!(table.window(1, 0, 5, 2), 0);
    assert_eq!(table.city_window(0, 0, 3), 6);
    assert_eq!(table.city_window(4, 0, 1), 7);
    assert_eq!(table.get(2, 1, 0), 3);
    assert_eq!(table.cell_week(0, 0), [0, 0, 0, 0, 7]);
}
