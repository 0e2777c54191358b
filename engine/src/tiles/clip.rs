//! Clipping to a tile grown by its buffer: rings by Sutherland–Hodgman (exact for
//! the convex hexagons; a ring that leaves the box and comes back keeps a seam
//! along the box's edge, outside the tile's visible area), lines by
//! Liang–Barsky, split into parts where they leave the box.

use alloc::vec::Vec;

use super::TilePoint;

/// An axis-aligned box in tile units: `min` to `max` on both axes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClipBox {
    /// Smallest x and y.
    pub min: f64,
    /// Largest x and y.
    pub max: f64,
}

#[derive(Clone, Copy)]
enum Edge {
    Left,
    Right,
    Top,
    Bottom,
}

impl ClipBox {
    fn inside(self, p: TilePoint, edge: Edge) -> bool {
        match edge {
            Edge::Left => p.x >= self.min,
            Edge::Right => p.x <= self.max,
            Edge::Top => p.y >= self.min,
            Edge::Bottom => p.y <= self.max,
        }
    }

    fn crossing(self, a: TilePoint, b: TilePoint, edge: Edge) -> TilePoint {
        let at_x = |x: f64| TilePoint {
            x,
            y: a.y + (b.y - a.y) * (x - a.x) / (b.x - a.x),
        };
        let at_y = |y: f64| TilePoint {
            x: a.x + (b.x - a.x) * (y - a.y) / (b.y - a.y),
            y,
        };
        match edge {
            Edge::Left => at_x(self.min),
            Edge::Right => at_x(self.max),
            Edge::Top => at_y(self.min),
            Edge::Bottom => at_y(self.max),
        }
    }

    /// The part of the closed ring `ring` (first point not repeated) inside the box;
    /// empty if none.
    #[must_use]
    pub fn ring(self, ring: &[TilePoint]) -> Vec<TilePoint> {
        let mut points: Vec<TilePoint> = ring.to_vec();
        for edge in [Edge::Left, Edge::Right, Edge::Top, Edge::Bottom] {
            let Some(&last) = points.last() else {
                break;
            };
            let mut kept = Vec::with_capacity(points.len() + 2);
            let mut previous = last;
            for &point in &points {
                match (self.inside(previous, edge), self.inside(point, edge)) {
                    (true, true) => kept.push(point),
                    (true, false) => kept.push(self.crossing(previous, point, edge)),
                    (false, true) => {
                        kept.push(self.crossing(previous, point, edge));
                        kept.push(point);
                    }
                    (false, false) => {}
                }
                previous = point;
            }
            points = kept;
        }
        points
    }

    /// The parts of the line `line` inside the box, in order; each has at least two
    /// points.
    #[must_use]
    pub fn line(self, line: &[TilePoint]) -> Vec<Vec<TilePoint>> {
        let mut parts: Vec<Vec<TilePoint>> = Vec::new();
        let mut current: Vec<TilePoint> = Vec::new();
        for pair in line.windows(2) {
            let Some((a, b)) = self.segment(pair[0], pair[1]) else {
                if current.len() >= 2 {
                    parts.push(core::mem::take(&mut current));
                }
                current.clear();
                continue;
            };
            if current.last() != Some(&a) {
                if current.len() >= 2 {
                    parts.push(core::mem::take(&mut current));
                }
                current.clear();
                current.push(a);
            }
            current.push(b);
            // Leaving the box ends the part.
            if b != pair[1] {
                parts.push(core::mem::take(&mut current));
            }
        }
        if current.len() >= 2 {
            parts.push(current);
        }
        parts
    }

    /// The part of the segment `a`–`b` inside the box (Liang–Barsky).
    fn segment(self, a: TilePoint, b: TilePoint) -> Option<(TilePoint, TilePoint)> {
        let (dx, dy) = (b.x - a.x, b.y - a.y);
        let (mut t0, mut t1) = (0.0_f64, 1.0_f64);
        for (p, q) in [
            (-dx, a.x - self.min),
            (dx, self.max - a.x),
            (-dy, a.y - self.min),
            (dy, self.max - a.y),
        ] {
            if p == 0.0 {
                if q < 0.0 {
                    return None;
                }
            } else {
                let r = q / p;
                if p < 0.0 {
                    t0 = t0.max(r);
                } else {
                    t1 = t1.min(r);
                }
            }
        }
        if t0 > t1 {
            return None;
        }
        let at = |t: f64| {
            if t <= 0.0 {
                a
            } else if t >= 1.0 {
                b
            } else {
                TilePoint {
                    x: a.x + t * dx,
                    y: a.y + t * dy,
                }
            }
        };
        Some((at(t0), at(t1)))
    }
}

#[cfg(test)]
mod tests;
