//! Which cells a polyline crosses, and how many metres of it lie in each.

use alloc::vec::Vec;

use h3o::{CellIndex, LatLng, Resolution};

use super::distance_m;

/// The cells a polyline crosses at `resolution`, in the order the line enters them,
/// each with the metres of line inside it.
///
/// Each segment is followed from cell to cell across the hexagon boundaries (in a
/// local equirectangular frame, which at city scale is exact to well under a metre),
/// so a cell the line only clips at a corner is still listed. A cell is listed again
/// when the line leaves and re-enters it; consecutive pieces in one cell are merged.
/// The metres sum to the great-circle length of the line.
#[must_use]
pub fn cells_crossed(points: &[LatLng], resolution: Resolution) -> Vec<(CellIndex, f64)> {
    let mut out: Vec<(CellIndex, f64)> = Vec::new();
    let push = |cell: CellIndex, metres: f64, out: &mut Vec<(CellIndex, f64)>| match out.last_mut()
    {
        Some((previous, m)) if *previous == cell => *m += metres,
        _ => out.push((cell, metres)),
    };
    if let [only] = points {
        push(only.to_cell(resolution), 0.0, &mut out);
    }
    for pair in points.windows(2) {
        let (from, to) = (pair[0], pair[1]);
        let length = distance_m(from, to);
        let (start, end) = (from.to_cell(resolution), to.to_cell(resolution));
        if start == end {
            push(start, length, &mut out);
            continue;
        }
        let frame = SegmentFrame::new(from, to);
        let mut cell = start;
        let mut t = 0.0;
        // Every step enters a new cell or moves a probe forward, so this is bounded.
        let max_steps = 64 + (length / 10.0) as usize;
        for _ in 0..max_steps {
            if cell == end {
                break;
            }
            let exit = frame.exit_parameter(cell).clamp(t, 1.0);
            // The first point past the boundary decides the next cell; widen the probe
            // if rounding leaves it in the same cell.
            let mut probe_m = 0.01;
            let mut next = cell;
            let mut probe = exit;
            while next == cell && probe < 1.0 {
                probe = (exit + probe_m / length.max(1e-9)).min(1.0);
                next = frame.at(probe).map_or(end, |p| p.to_cell(resolution));
                probe_m *= 4.0;
            }
            push(cell, (exit - t) * length, &mut out);
            if !cell.is_neighbor_with(next).unwrap_or(false) {
                // A probe jumped past a sliver of another cell: list the cells between.
                if let Ok(path) = cell.grid_path_cells(next) {
                    for between in path.flatten().skip(1) {
                        if between != next {
                            push(between, 0.0, &mut out);
                        }
                    }
                }
            }
            cell = next;
            t = exit;
        }
        push(end, (1.0 - t) * length, &mut out);
    }
    out
}

/// A segment in a local planar frame: x is longitude scaled by cos(latitude), y latitude.
struct SegmentFrame {
    from: LatLng,
    to: LatLng,
    scale: f64,
    origin: [f64; 2],
    direction: [f64; 2],
}

impl SegmentFrame {
    fn new(from: LatLng, to: LatLng) -> Self {
        let scale = libm::cos(from.lat().to_radians());
        let origin = [from.lng() * scale, from.lat()];
        let direction = [to.lng() * scale - origin[0], to.lat() - origin[1]];
        Self {
            from,
            to,
            scale,
            origin,
            direction,
        }
    }

    fn at(&self, t: f64) -> Option<LatLng> {
        LatLng::new(
            self.from.lat() + (self.to.lat() - self.from.lat()) * t,
            self.from.lng() + (self.to.lng() - self.from.lng()) * t,
        )
        .ok()
    }

    /// The parameter at which the segment leaves a convex cell (Cyrus-Beck clipping).
    fn exit_parameter(&self, cell: CellIndex) -> f64 {
        let corners: Vec<[f64; 2]> = cell
            .boundary()
            .iter()
            .map(|v| [v.lng() * self.scale, v.lat()])
            .collect();
        let n = corners.len();
        // Twice the signed area: positive when the corners run anticlockwise.
        let area: f64 = (0..n)
            .map(|i| {
                let (a, b) = (corners[i], corners[(i + 1) % n]);
                a[0] * b[1] - b[0] * a[1]
            })
            .sum();
        let orientation = if area >= 0.0 { 1.0 } else { -1.0 };
        let mut exit = f64::INFINITY;
        for i in 0..n {
            let (a, b) = (corners[i], corners[(i + 1) % n]);
            let edge = [b[0] - a[0], b[1] - a[1]];
            let cross = |v: [f64; 2]| orientation * (edge[0] * v[1] - edge[1] * v[0]);
            let towards = cross(self.direction);
            if towards < 0.0 {
                let inside = cross([self.origin[0] - a[0], self.origin[1] - a[1]]);
                exit = exit.min(-inside / towards);
            }
        }
        if exit.is_finite() { exit } else { 1.0 }
    }
}
