//! The hand-written rows are the rows [`HexScoreRow`] and [`LookupCell`] describe:
//! each answer's bytes read back into the describing type, with no member left over,
//! and written again from it, are the same JSON: the same members in the same order,
//! the same numbers (to the last bit or two, which `serde_json` may round in reading).

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use serde_json::{Map, Value, json};

use super::{HexScoreRow, LookupCell};
use crate::artifact::fixture::CityFixture;
use crate::city::{Atlas, CityModel};
use crate::grid;
use crate::operations::{hexes_lookup, hexes_score};

const NOW: i64 = 1_640_995_200; // 2022-01-01

fn atlas() -> Atlas {
    Atlas::new(alloc::vec![CityModel::from_artifact(
        CityFixture::default().build(),
    )])
}

/// Whether two JSON texts have the same members in the same order and the same
/// values, numbers within a few units of their last place.
fn same_json(a: &str, b: &str) {
    fn same(a: &Value, b: &Value, at: &str) {
        match (a, b) {
            (Value::Object(a), Value::Object(b)) => {
                let keys = |m: &Map<String, Value>| m.keys().cloned().collect::<Vec<_>>();
                assert_eq!(keys(a), keys(b), "members of {at}");
                for (key, value) in a {
                    same(value, &b[key], &alloc::format!("{at}.{key}"));
                }
            }
            (Value::Array(a), Value::Array(b)) => {
                assert_eq!(a.len(), b.len(), "items of {at}");
                for (i, (x, y)) in a.iter().zip(b).enumerate() {
                    same(x, y, &alloc::format!("{at}[{i}]"));
                }
            }
            (Value::Number(x), Value::Number(y)) => {
                let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
                assert!(
                    (x - y).abs() <= 1e-14 * x.abs().max(y.abs()),
                    "{at}: {x} {y}"
                );
            }
            _ => assert_eq!(a, b, "{at}"),
        }
    }
    same(
        &serde_json::from_str(a).unwrap(),
        &serde_json::from_str(b).unwrap(),
        "",
    );
}

fn body(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

#[test]
fn score_rows_are_hex_score_rows() {
    let atlas = atlas();
    let city = &atlas.cities()[0];
    let mut ids: Vec<String> = (0..city.cell_count())
        .filter_map(|p| city.cell(p))
        .map(|c| c.to_string())
        .collect();
    // A cell outside every city: a row of no data.
    ids.push(grid::cell_at(10.0, 10.0).unwrap().to_string());
    let rows = hexes_score(&atlas, &body(json!({ "hexIds": ids })), NOW).unwrap();
    let written = serde_json::to_string(&rows).unwrap();
    let read: Vec<HexScoreRow> = serde_json::from_str(&written).unwrap();
    assert_eq!(read.len(), ids.len());
    assert_eq!(
        read.last().map(|r| (r.safety_score, r.color_index)),
        Some((None, -1))
    );
    same_json(&serde_json::to_string(&read).unwrap(), &written);
}

#[test]
fn ring_cells_are_lookup_cells_with_and_without_their_breakdowns() {
    let atlas = atlas();
    let centre = grid::cell_centre(atlas.cities()[0].cell(0).unwrap());
    for detail in [false, true] {
        let request = json!({"lat": centre.0, "lng": centre.1, "ring": 3, "detail": detail});
        let lookup = hexes_lookup(&atlas, &body(request), NOW).unwrap();
        let written = serde_json::to_value(&lookup).unwrap();
        let cells = serde_json::to_string(&written["cells"]).unwrap();
        let read: Vec<LookupCell> = serde_json::from_str(&cells).unwrap();
        assert_eq!(read.len(), lookup.count());
        // Ring 3 reaches past the city: rows of no data too.
        assert!(read.iter().any(|cell| cell.safety_score.is_none()));
        assert_eq!(
            read.iter().all(|cell| cell.breakdown.is_some()),
            detail,
            "breakdowns with detail only"
        );
        same_json(&serde_json::to_string(&read).unwrap(), &cells);
    }
}
