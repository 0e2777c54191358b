//! The outline of a set of cells: polygons with holes, as GeoJSON wants them.
//!
//! Every cell contributes its boundary edges between H3 vertexes; an edge two cells
//! of the set share appears once each way and cancels, so what remains is the
//! boundary of the union. The edges are chained into rings by their vertexes (exact
//! ids, so no tolerance is needed), exteriors anticlockwise and holes clockwise
//! (RFC 7946), each hole in the exterior that contains it.

use alloc::collections::BTreeMap;
use alloc::vec::Vec;

use h3o::{CellIndex, LatLng, VertexIndex};

/// A polygon: its exterior ring, then its holes; each ring closed (first position
/// repeated last).
pub type Polygon = Vec<Vec<LatLng>>;

/// The polygons covering exactly `cells` (duplicates ignored), largest first.
#[must_use]
pub fn outline(cells: &[CellIndex]) -> Vec<Polygon> {
    let mut cells = cells.to_vec();
    crate::sorting::sort(&mut cells);
    cells.dedup();
    // Directed edges left after shared ones cancel, by their start vertex.
    let mut edges: BTreeMap<(u64, u64), (VertexIndex, VertexIndex)> = BTreeMap::new();
    for cell in &cells {
        let vertexes: Vec<VertexIndex> = cell.vertexes().collect();
        for (i, &a) in vertexes.iter().enumerate() {
            let b = vertexes[(i + 1) % vertexes.len()];
            if edges.remove(&(u64::from(b), u64::from(a))).is_none() {
                edges.insert((u64::from(a), u64::from(b)), (a, b));
            }
        }
    }
    let mut next: BTreeMap<u64, Vec<VertexIndex>> = BTreeMap::new();
    for &(a, b) in edges.values() {
        next.entry(u64::from(a)).or_default().push(b);
    }
    let mut rings: Vec<Vec<LatLng>> = Vec::new();
    while let Some((&start, _)) = next.iter().find(|(_, ends)| !ends.is_empty()) {
        let mut ring = Vec::new();
        let mut at = start;
        // Each step uses up one edge, so the walk ends.
        while let Some(to) = next.get_mut(&at).and_then(Vec::pop) {
            ring.push(LatLng::from(to));
            at = u64::from(to);
            if at == start {
                break;
            }
        }
        if ring.len() >= 3 {
            if let Some(&first) = ring.last() {
                ring.insert(0, first);
            }
            rings.push(ring);
        }
    }
    assemble(rings)
}

/// Twice the signed area of a ring in degrees (positive when anticlockwise).
fn signed_area(ring: &[LatLng]) -> f64 {
    ring.windows(2)
        .map(|w| w[0].lng() * w[1].lat() - w[1].lng() * w[0].lat())
        .sum()
}

fn contains(ring: &[LatLng], point: LatLng) -> bool {
    let mut inside = false;
    for w in ring.windows(2) {
        let (a, b) = (w[0], w[1]);
        if (a.lat() > point.lat()) != (b.lat() > point.lat()) {
            let lng = a.lng() + (point.lat() - a.lat()) / (b.lat() - a.lat()) * (b.lng() - a.lng());
            if point.lng() < lng {
                inside = !inside;
            }
        }
    }
    inside
}

/// Exteriors anticlockwise, each with the holes it contains, largest first.
fn assemble(rings: Vec<Vec<LatLng>>) -> Vec<Polygon> {
    // Cell boundaries all turn the same way, so exteriors share a sign and holes
    // have the other; the largest ring is an exterior whatever the convention.
    let largest = rings
        .iter()
        .map(|r| signed_area(r))
        .max_by(|a, b| libm::fabs(*a).total_cmp(&libm::fabs(*b)))
        .unwrap_or(0.0);
    let exterior_sign = if largest < 0.0 { -1.0 } else { 1.0 };
    let (mut exteriors, mut holes): (Vec<Vec<LatLng>>, Vec<Vec<LatLng>>) = rings
        .into_iter()
        .map(|mut ring| {
            if exterior_sign < 0.0 {
                ring.reverse();
            }
            ring
        })
        .partition(|ring| signed_area(ring) > 0.0);
    crate::sorting::sort_by(&mut exteriors, |a, b| {
        signed_area(b).total_cmp(&signed_area(a))
    });
    let mut polygons: Vec<Polygon> = exteriors.into_iter().map(|e| alloc::vec![e]).collect();
    for hole in holes.drain(..) {
        // The smallest exterior holding the hole: exteriors are sorted largest first.
        if let Some(polygon) = polygons
            .iter_mut()
            .rev()
            .find(|p| hole.get(1).is_some_and(|&point| contains(&p[0], point)))
        {
            polygon.push(hole);
        }
    }
    polygons
}
