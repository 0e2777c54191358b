//! The protobuf encoding of Mapbox Vector Tiles 2.1: a tile is its layers, a layer
//! its features with their keys and values kept once, a feature its id, tags and
//! geometry as commands on integer tile units (`MoveTo`, `LineTo`, `ClosePath`, each
//! point a zigzag delta from the last).

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::{EXTENT, TilePoint};

/// A property value.
#[derive(Debug, Clone, PartialEq)]
pub enum PropertyValue {
    /// Text.
    Text(String),
    /// A 64-bit float.
    Double(f64),
    /// A signed whole number (zigzag-encoded).
    Int(i64),
    /// An unsigned whole number.
    Uint(u64),
}

/// A feature's shape, in tile units (already clipped).
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    /// Lines: each part at least two points.
    Lines(Vec<Vec<TilePoint>>),
    /// A polygon's rings: the first the exterior, any others holes.
    Polygon(Vec<Vec<TilePoint>>),
}

/// One layer being built.
#[derive(Debug)]
pub struct Layer {
    name: String,
    keys: Vec<String>,
    values: Vec<PropertyValue>,
    features: Vec<u8>,
    count: usize,
}

fn varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

fn zigzag(value: i64) -> u64 {
    ((value << 1) ^ (value >> 63)) as u64
}

fn key(out: &mut Vec<u8>, field: u32, wire: u32) {
    varint(out, u64::from((field << 3) | wire));
}

fn bytes_field(out: &mut Vec<u8>, field: u32, bytes: &[u8]) {
    key(out, field, 2);
    varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

fn packed(out: &mut Vec<u8>, field: u32, values: &[u32]) {
    let mut body = Vec::with_capacity(values.len() * 2);
    for &v in values {
        varint(&mut body, u64::from(v));
    }
    bytes_field(out, field, &body);
}

const MOVE_TO: u32 = 1;
const LINE_TO: u32 = 2;
const CLOSE_PATH: u32 = 7;

fn command(id: u32, count: usize) -> u32 {
    (id & 7) | ((count as u32) << 3)
}

/// Integer tile units of a point (rounded half away from zero).
fn units(p: TilePoint) -> (i64, i64) {
    (libm::round(p.x) as i64, libm::round(p.y) as i64)
}

/// Integer points of a part, without repeats.
fn integer_points(part: &[TilePoint]) -> Vec<(i64, i64)> {
    let mut points: Vec<(i64, i64)> = Vec::with_capacity(part.len());
    for &p in part {
        let q = units(p);
        if points.last() != Some(&q) {
            points.push(q);
        }
    }
    points
}

/// Twice the signed area of a ring in tile units (y down: positive is clockwise on
/// screen, the winding MVT gives exterior rings).
fn doubled_area(ring: &[(i64, i64)]) -> i64 {
    (0..ring.len())
        .map(|i| {
            let (a, b) = (ring[i], ring[(i + 1) % ring.len()]);
            a.0 * b.1 - b.0 * a.1
        })
        .sum()
}

/// Draws one part: a `MoveTo` its first point, a `LineTo` the rest, each point a
/// zigzag delta from the cursor.
#[inline(never)]
fn draw(out: &mut Vec<u32>, cursor: &mut (i64, i64), points: &[(i64, i64)]) {
    for (i, &q) in points.iter().enumerate() {
        match i {
            0 => out.push(command(MOVE_TO, 1)),
            1 => out.push(command(LINE_TO, points.len() - 1)),
            _ => {}
        }
        out.push(zigzag(q.0 - cursor.0) as u32);
        out.push(zigzag(q.1 - cursor.1) as u32);
        *cursor = q;
    }
}

/// The geometry commands of a shape, or `None` when nothing of it is left at
/// integer precision (a ring collapsed to a line, a line to a point).
fn geometry(shape: &Shape) -> Option<(u32, Vec<u32>)> {
    let mut out = Vec::new();
    let mut cursor = (0_i64, 0_i64);
    let (Shape::Lines(parts) | Shape::Polygon(parts)) = shape;
    let polygon = matches!(shape, Shape::Polygon(_));
    for (i, part) in parts.iter().enumerate() {
        let mut points = integer_points(part);
        if polygon {
            if points.len() > 1 && points.first() == points.last() {
                points.pop();
            }
            let area = doubled_area(&points);
            if points.len() < 3 || area == 0 {
                if i == 0 {
                    return None;
                }
                continue;
            }
            // Exterior rings clockwise on screen (positive), holes the other way.
            if (area > 0) != (i == 0) {
                points.reverse();
            }
        } else if points.len() < 2 {
            continue;
        }
        draw(&mut out, &mut cursor, &points);
        if polygon {
            out.push(command(CLOSE_PATH, 1));
        }
    }
    (!out.is_empty()).then_some((if polygon { 3 } else { 2 }, out))
}

impl Layer {
    /// An empty layer named `name`.
    #[must_use]
    pub fn new(name: &str) -> Self {
        Self {
            name: name.to_string(),
            keys: Vec::new(),
            values: Vec::new(),
            features: Vec::new(),
            count: 0,
        }
    }

    /// Number of features added.
    #[must_use]
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether no feature was added.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    fn index_of<T: PartialEq>(list: &mut Vec<T>, item: T) -> u32 {
        if let Some(at) = list.iter().position(|k| *k == item) {
            return at as u32;
        }
        list.push(item);
        (list.len() - 1) as u32
    }

    /// Adds a feature with `id`, `properties` (in order) and `shape`; returns
    /// whether it was added (not when its shape is empty at integer precision).
    pub fn add(&mut self, id: u64, properties: &[(&str, PropertyValue)], shape: &Shape) -> bool {
        let Some((kind, commands)) = geometry(shape) else {
            return false;
        };
        let mut tags = Vec::with_capacity(properties.len() * 2);
        for (name, value) in properties {
            tags.push(Self::index_of(&mut self.keys, (*name).to_string()));
            tags.push(Self::index_of(&mut self.values, value.clone()));
        }
        let mut feature = Vec::new();
        key(&mut feature, 1, 0);
        varint(&mut feature, id);
        packed(&mut feature, 2, &tags);
        key(&mut feature, 3, 0);
        varint(&mut feature, u64::from(kind));
        packed(&mut feature, 4, &commands);
        bytes_field(&mut self.features, 2, &feature);
        self.count += 1;
        true
    }

    /// The layer's bytes as a field of a tile.
    fn encode(&self, tile: &mut Vec<u8>) {
        let mut layer = Vec::with_capacity(self.features.len() + 64);
        key(&mut layer, 15, 0);
        varint(&mut layer, 2);
        bytes_field(&mut layer, 1, self.name.as_bytes());
        layer.extend_from_slice(&self.features);
        for k in &self.keys {
            bytes_field(&mut layer, 3, k.as_bytes());
        }
        for v in &self.values {
            let mut value = Vec::new();
            match v {
                PropertyValue::Text(text) => bytes_field(&mut value, 1, text.as_bytes()),
                PropertyValue::Double(d) => {
                    key(&mut value, 3, 1);
                    value.extend_from_slice(&d.to_le_bytes());
                }
                PropertyValue::Int(i) => {
                    key(&mut value, 6, 0);
                    varint(&mut value, zigzag(*i));
                }
                PropertyValue::Uint(u) => {
                    key(&mut value, 5, 0);
                    varint(&mut value, *u);
                }
            }
            bytes_field(&mut layer, 4, &value);
        }
        key(&mut layer, 5, 0);
        varint(&mut layer, u64::from(EXTENT));
        bytes_field(tile, 3, &layer);
    }
}

/// The bytes of a tile of `layers`, leaving out empty ones; empty when all are.
#[must_use]
pub fn encode(layers: &[Layer]) -> Vec<u8> {
    let mut tile = Vec::new();
    for layer in layers.iter().filter(|l| !l.is_empty()) {
        layer.encode(&mut tile);
    }
    tile
}

#[cfg(test)]
mod tests;
