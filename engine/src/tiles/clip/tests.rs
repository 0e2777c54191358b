use alloc::vec;

use super::*;

fn p(x: f64, y: f64) -> TilePoint {
    TilePoint { x, y }
}

#[test]
fn a_square_across_a_corner_keeps_its_inside_quarter() {
    let square = [
        p(-10.0, -10.0),
        p(10.0, -10.0),
        p(10.0, 10.0),
        p(-10.0, 10.0),
    ];
    let clipped = ClipBox {
        min: 0.0,
        max: 100.0,
    }
    .ring(&square);
    let area: f64 = (0..clipped.len())
        .map(|i| {
            let (a, b) = (clipped[i], clipped[(i + 1) % clipped.len()]);
            a.x * b.y - b.x * a.y
        })
        .sum::<f64>()
        / 2.0;
    assert!((area.abs() - 100.0).abs() < 1e-9, "{clipped:?}");
    assert!(
        ClipBox {
            min: 200.0,
            max: 300.0
        }
        .ring(&square)
        .is_empty()
    );
}

#[test]
fn a_line_that_leaves_and_comes_back_is_two_parts() {
    let line = [p(10.0, 10.0), p(150.0, 10.0), p(150.0, 50.0), p(10.0, 50.0)];
    let parts = ClipBox {
        min: 0.0,
        max: 100.0,
    }
    .line(&line);
    assert_eq!(
        parts,
        vec![
            vec![p(10.0, 10.0), p(100.0, 10.0)],
            vec![p(100.0, 50.0), p(10.0, 50.0)]
        ]
    );
    let inside = [p(1.0, 1.0), p(2.0, 2.0), p(3.0, 1.0)];
    assert_eq!(
        ClipBox {
            min: 0.0,
            max: 100.0
        }
        .line(&inside),
        vec![inside.to_vec()]
    );
}
