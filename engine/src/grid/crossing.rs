//! Which cells a polyline crosses, and how many metres of it lie in each.

use alloc::vec::Vec;

use h3o::{Boundary, CellIndex, LatLng, Resolution};

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
    trace(
        points,
        |_, from, to| distance_m(from, to),
        CellIndex::boundary,
        resolution,
    )
}

/// [`cells_crossed`] with what is known already: `segment_m[i]` is
/// `distance_m(points[i], points[i + 1])`, as a route's geometry keeps them from its
/// network's index (a missing length is computed), and `boundary(cell)` is
/// `cell.boundary()`, as a city keeps its cells'. The answer is the same, with less
/// trigonometry.
#[must_use]
pub fn cells_crossed_measured(
    points: &[LatLng],
    segment_m: &[f64],
    boundary: impl Fn(CellIndex) -> Boundary,
    resolution: Resolution,
) -> Vec<(CellIndex, f64)> {
    let length = |i: usize, from, to| {
        segment_m
            .get(i)
            .copied()
            .unwrap_or_else(|| distance_m(from, to))
    };
    trace(points, length, boundary, resolution)
}

/// [`cells_crossed`] with `length(i, from, to)` the metres of segment `i` and
/// `boundary(cell)` each cell's boundary.
fn trace(
    points: &[LatLng],
    length: impl Fn(usize, LatLng, LatLng) -> f64,
    boundary: impl Fn(CellIndex) -> Boundary,
    resolution: Resolution,
) -> Vec<(CellIndex, f64)> {
    let mut out: Vec<(CellIndex, f64)> = Vec::new();
    let push = |cell: CellIndex, metres: f64, out: &mut Vec<(CellIndex, f64)>| match out.last_mut()
    {
        Some((previous, m)) if *previous == cell => *m += metres,
        _ => out.push((cell, metres)),
    };
    if let [only] = points {
        push(only.to_cell(resolution), 0.0, &mut out);
    }
    // Each point's cell once: a segment starts in the cell the previous one ended in,
    // and a point well inside that cell needs no H3 lookup.
    let mut boundaries = Boundaries::new(boundary);
    // The cell the last segment ended in, replaced (not moved: it is a few hundred
    // bytes) only when a segment ends in another.
    let mut end_cell: Option<Interior> = points.first().map(|p| {
        let cell = p.to_cell(resolution);
        Interior::with_boundary(cell, &boundaries.of(cell))
    });
    // One segment's pieces, pushed once its end cell is certain.
    let mut pieces: Vec<(CellIndex, f64)> = Vec::new();
    for (i, pair) in points.windows(2).enumerate() {
        let (from, to) = (pair[0], pair[1]);
        let length = length(i, from, to);
        let Some(previous) = &end_cell else {
            break;
        };
        let start = previous.cell;
        if previous.holds(to) {
            push(start, length, &mut out);
            continue;
        }
        let segment = Segment {
            frame: SegmentFrame::new(from, to),
            to,
            length,
            resolution,
        };
        let (end, interior) = segment.walk(start, &mut boundaries, &mut pieces);
        for &(cell, metres) in &pieces {
            push(cell, metres, &mut out);
        }
        if end != start {
            end_cell =
                Some(interior.unwrap_or_else(|| Interior::with_boundary(end, &boundaries.of(end))));
        }
    }
    out
}

/// A segment leaving the cell it starts in, as [`trace`] follows it.
struct Segment {
    frame: SegmentFrame,
    to: LatLng,
    length: f64,
    resolution: Resolution,
}

impl Segment {
    /// Follows the segment from `start` (whose interior does not hold its end) to the
    /// cell of its end, its pieces (cell, metres, in order) into `pieces`: that cell,
    /// and its interior when the walk built it.
    ///
    /// The end's cell is the first cell entered whose interior holds the end, which
    /// needs no H3 lookup; only a cell that cannot tell, or a segment that does not
    /// leave `start` in the plane, asks H3. If H3 then puts the end in `start` (the
    /// plane and H3 disagree within millimetres of an edge), the whole segment is
    /// `start`'s, as when H3 was asked first.
    fn walk<F: Fn(CellIndex) -> Boundary>(
        &self,
        start: CellIndex,
        boundaries: &mut Boundaries<F>,
        pieces: &mut Vec<(CellIndex, f64)>,
    ) -> (CellIndex, Option<Interior>) {
        let (frame, length) = (&self.frame, self.length);
        pieces.clear();
        let mut end: Option<CellIndex> = None;
        let lookup = || self.to.to_cell(self.resolution);
        let mut cell = start;
        let mut t = 0.0;
        // Every step enters a new cell or moves a probe forward, so this is bounded.
        let max_steps = 64 + (length / 10.0) as usize;
        for _ in 0..max_steps {
            if let Some(end) = end {
                if cell == end {
                    break;
                }
            } else if cell != start {
                let interior = Interior::with_boundary(cell, &boundaries.of(cell));
                if interior.holds(self.to) {
                    pieces.push((cell, (1.0 - t) * length));
                    return (cell, Some(interior));
                }
                let found = lookup();
                if found == start {
                    pieces.clear();
                    pieces.push((start, length));
                    return (start, None);
                }
                end = Some(found);
                if cell == found {
                    break;
                }
            }
            let exit = frame.exit_parameter(&boundaries.of(cell)).clamp(t, 1.0);
            // The first point past the boundary decides the next cell; widen the probe
            // if rounding leaves it in the same cell.
            let mut probe_m = 0.01;
            let mut next = cell;
            let mut probe = exit;
            while next == cell && probe < 1.0 {
                probe = (exit + probe_m / length.max(1e-9)).min(1.0);
                next = frame.at(probe).map_or_else(
                    || *end.get_or_insert_with(lookup),
                    |p| p.to_cell(self.resolution),
                );
                probe_m *= 4.0;
            }
            if next == start {
                // Nothing past `start`'s boundary in the plane, or no probe left it:
                // H3 decides.
                if *end.get_or_insert_with(lookup) == start {
                    pieces.clear();
                    pieces.push((start, length));
                    return (start, None);
                }
            }
            pieces.push((cell, (exit - t) * length));
            if !cell.is_neighbor_with(next).unwrap_or(false) {
                // A probe jumped past a sliver of another cell: list the cells between.
                if let Ok(path) = cell.grid_path_cells(next) {
                    for between in path.flatten().skip(1) {
                        if between != next {
                            pieces.push((between, 0.0));
                        }
                    }
                }
            }
            cell = next;
            t = exit;
        }
        let end = end.unwrap_or_else(lookup);
        pieces.push((end, (1.0 - t) * length));
        (end, None)
    }
}

/// Cell boundaries a line has met, most recent last, at most [`BOUNDARIES_KEPT`]:
/// tracing asks for each cell's at least twice (entering it and leaving it), more
/// along a street that follows a cell edge back and forth, and H3 computes a boundary
/// with trigonometry (a city's kept ones cost a lookup).
struct Boundaries<F> {
    met: Vec<(CellIndex, Boundary)>,
    boundary: F,
}

/// Boundaries a line keeps: a few, so a lookup stays a short scan.
const BOUNDARIES_KEPT: usize = 8;

impl<F: Fn(CellIndex) -> Boundary> Boundaries<F> {
    const fn new(boundary: F) -> Self {
        Self {
            met: Vec::new(),
            boundary,
        }
    }

    /// The boundary of `cell`, from the kept ones when met before.
    fn of(&mut self, cell: CellIndex) -> Boundary {
        if let Some((_, boundary)) = self.met.iter().rev().find(|(c, _)| *c == cell) {
            return *boundary;
        }
        let boundary = (self.boundary)(cell);
        if self.met.len() == BOUNDARIES_KEPT {
            self.met.remove(0);
        }
        self.met.push((cell, boundary));
        boundary
    }
}

/// Most corners of a cell's boundary (H3's own limit, with distortion vertices).
const MAX_CORNERS: usize = 10;

/// A cell's corners in the plane with longitude scaled by `scale`, without
/// allocating: at most [`MAX_CORNERS`].
struct Corners {
    points: [[f64; 2]; MAX_CORNERS],
    len: usize,
    /// `1` when the corners run anticlockwise, `-1` otherwise.
    orientation: f64,
}

impl Corners {
    fn new(boundary: &Boundary, scale: f64) -> Self {
        let mut points = [[0.0; 2]; MAX_CORNERS];
        let mut len = 0;
        for (point, v) in points.iter_mut().zip(boundary.iter()) {
            *point = [v.lng() * scale, v.lat()];
            len += 1;
        }
        // Twice the signed area: positive when the corners run anticlockwise.
        let mut area = 0.0;
        for i in 0..len {
            let (a, b) = (points[i], points[(i + 1) % len]);
            area += a[0] * b[1] - b[0] * a[1];
        }
        let orientation = if area >= 0.0 { 1.0 } else { -1.0 };
        Self {
            points,
            len,
            orientation,
        }
    }

    /// The edges, each as its start and end corner.
    fn edges(&self) -> impl Iterator<Item = ([f64; 2], [f64; 2])> + '_ {
        (0..self.len).map(|i| (self.points[i], self.points[(i + 1) % self.len]))
    }
}

/// Degrees a point must lie inside every edge of a cell's hexagon for the plane's
/// answer to stand (about a metre; the plane is exact to millimetres at city scale).
const INTERIOR_MARGIN_DEG: f64 = 1e-5;

/// A cell's boundary in a local plane (longitude scaled by the cosine of latitude),
/// to tell cheaply that a point lies well inside it.
pub(super) struct Interior {
    pub(super) cell: CellIndex,
    scale: f64,
    /// Edges as (start corner, unit inward normal); `len` of them.
    edges: [([f64; 2], [f64; 2]); MAX_CORNERS],
    len: usize,
}

impl Interior {
    #[cfg(test)]
    pub(super) fn new(cell: CellIndex) -> Self {
        Self::with_boundary(cell, &cell.boundary())
    }

    /// The cell with its `boundary` (`cell.boundary()`, perhaps kept from before).
    fn with_boundary(cell: CellIndex, boundary: &Boundary) -> Self {
        // The corners' mean latitude: within metres of the centre's, which is plenty
        // for a test with a metre's margin, and no H3 lookup.
        let corners = boundary.len().max(1) as f64;
        let lat = boundary.iter().map(|v| v.lat()).sum::<f64>() / corners;
        let scale = libm::cos(lat.to_radians());
        let corners = Corners::new(boundary, scale);
        let mut interior = Self {
            cell,
            scale,
            edges: [([0.0; 2], [0.0; 2]); MAX_CORNERS],
            len: 0,
        };
        for (a, b) in corners.edges() {
            let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
            let norm = libm::sqrt(dx * dx + dy * dy);
            if norm > 0.0 {
                let o = corners.orientation;
                interior.edges[interior.len] = (a, [-dy * o / norm, dx * o / norm]);
                interior.len += 1;
            }
        }
        interior
    }

    /// `true` when `p` lies inside every edge by more than [`INTERIOR_MARGIN_DEG`]:
    /// then its cell is this one. `false` says nothing (H3 decides).
    pub(super) fn holds(&self, p: LatLng) -> bool {
        let q = [p.lng() * self.scale, p.lat()];
        self.len > 0
            && self.edges[..self.len].iter().all(|(a, normal)| {
                (q[0] - a[0]) * normal[0] + (q[1] - a[1]) * normal[1] > INTERIOR_MARGIN_DEG
            })
    }
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

    /// The parameter at which the segment leaves a convex cell, given by its
    /// `boundary` (Cyrus-Beck clipping).
    fn exit_parameter(&self, boundary: &Boundary) -> f64 {
        let corners = Corners::new(boundary, self.scale);
        let mut exit = f64::INFINITY;
        for (a, b) in corners.edges() {
            let edge = [b[0] - a[0], b[1] - a[1]];
            let cross = |v: [f64; 2]| corners.orientation * (edge[0] * v[1] - edge[1] * v[0]);
            let towards = cross(self.direction);
            if towards < 0.0 {
                let inside = cross([self.origin[0] - a[0], self.origin[1] - a[1]]);
                exit = exit.min(-inside / towards);
            }
        }
        if exit.is_finite() { exit } else { 1.0 }
    }
}
