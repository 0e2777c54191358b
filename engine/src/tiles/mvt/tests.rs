use alloc::vec;

use super::*;

fn p(x: f64, y: f64) -> TilePoint {
    TilePoint { x, y }
}

#[test]
fn the_specification_s_examples_encode_as_it_shows() {
    // MVT 2.1, 4.3.5: a line (2,2) (2,10) (10,10) is [9, 4, 4, 18, 0, 16, 16, 0].
    let line = Shape::Lines(vec![vec![p(2.0, 2.0), p(2.0, 10.0), p(10.0, 10.0)]]);
    assert_eq!(geometry(&line), Some((2, vec![9, 4, 4, 18, 0, 16, 16, 0])));
    // 4.3.5: a polygon (3,6) (8,12) (20,34) is [9, 6, 12, 18, 10, 12, 24, 44, 15].
    let polygon = Shape::Polygon(vec![vec![p(3.0, 6.0), p(8.0, 12.0), p(20.0, 34.0)]]);
    assert_eq!(
        geometry(&polygon),
        Some((3, vec![9, 6, 12, 18, 10, 12, 24, 44, 15]))
    );
}

/// The rings a polygon's commands draw, back in integer units.
fn rings(commands: &[u32]) -> Vec<Vec<(i64, i64)>> {
    let unzig = |v: u32| i64::from(v >> 1) ^ -i64::from(v & 1);
    let (mut rings, mut cursor, mut i) = (Vec::new(), (0, 0), 0);
    while i < commands.len() {
        let (id, count) = (commands[i] & 7, (commands[i] >> 3) as usize);
        i += 1;
        match id {
            1 => rings.push(Vec::new()),
            7 => continue,
            _ => {}
        }
        for _ in 0..count {
            cursor = (
                cursor.0 + unzig(commands[i]),
                cursor.1 + unzig(commands[i + 1]),
            );
            i += 2;
            rings.last_mut().unwrap().push(cursor);
        }
    }
    rings
}

#[test]
fn exterior_rings_come_out_clockwise_on_screen_and_collapsed_ones_are_dropped() {
    let anticlockwise = Shape::Polygon(vec![vec![p(20.0, 34.0), p(8.0, 12.0), p(3.0, 6.0)]]);
    let (kind, commands) = geometry(&anticlockwise).unwrap();
    assert_eq!(kind, 3);
    let drawn = rings(&commands);
    assert_eq!(drawn.len(), 1);
    assert!(doubled_area(&drawn[0]) > 0, "{drawn:?}");
    let flat = Shape::Polygon(vec![vec![p(0.0, 0.0), p(5.0, 0.0), p(5.2, 0.1)]]);
    assert_eq!(geometry(&flat), None);
}

#[test]
fn keys_and_values_are_kept_once_a_layer() {
    let mut layer = Layer::new("hexes");
    let square = Shape::Polygon(vec![vec![
        p(0.0, 0.0),
        p(9.0, 0.0),
        p(9.0, 9.0),
        p(0.0, 9.0),
    ]]);
    let props = [("tier", PropertyValue::Uint(2))];
    assert!(layer.add(1, &props, &square));
    assert!(layer.add(2, &props, &square));
    assert_eq!(
        (layer.keys.len(), layer.values.len(), layer.len()),
        (1, 1, 2)
    );
    assert!(!encode(&[layer]).is_empty());
    assert!(encode(&[Layer::new("empty")]).is_empty());
}
