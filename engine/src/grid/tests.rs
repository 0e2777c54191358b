//! Unit tests of the grid helpers and of the cells a line crosses (against a sampling oracle).

use super::*;
use alloc::string::ToString;

/// Test oracle for [`cells_crossed`]: the cells a straight segment crosses, found by
/// sampling every `step_m` metres (so a cell clipped by less than a step is missed),
/// each with the metres of segment inside it.
fn cells_along(from: LatLng, to: LatLng, step_m: f64) -> Vec<(CellIndex, f64)> {
    let length = distance_m(from, to);
    let steps = if step_m > 0.0 && length.is_finite() {
        libm::ceil(length / step_m).max(1.0) as usize
    } else {
        1
    };
    let piece = length / steps as f64;
    let mut out: Vec<(CellIndex, f64)> = Vec::new();
    for i in 0..steps {
        // Midpoint of each piece, interpolated linearly (segments are city-scale).
        let t = (i as f64 + 0.5) / steps as f64;
        let lat = from.lat() + (to.lat() - from.lat()) * t;
        let lng = from.lng() + (to.lng() - from.lng()) * t;
        let Ok(point) = LatLng::new(lat, lng) else {
            continue;
        };
        let cell = point.to_cell(RESOLUTION);
        match out.last_mut() {
            Some((previous, metres)) if *previous == cell => *metres += piece,
            _ => out.push((cell, piece)),
        }
    }
    if out.is_empty() {
        out.push((from.to_cell(RESOLUTION), 0.0));
    }
    out
}

/// A deterministic source of uniform numbers in 0..1 (xorshift), so failures reproduce.
fn uniform(mut state: u64) -> impl FnMut() -> f64 {
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1_u64 << 53) as f64
    }
}

#[test]
fn known_cells_of_the_three_cities() {
    // Reference ids computed with the h3-js npm package (latLngToCell, res 8).
    let cases = [
        (43.6532, -79.3832, "882b9bc46dfffff"),
        (37.7749, -122.4194, "8828308281fffff"),
        (29.7604, -95.3698, "88446ca995fffff"),
    ];
    for (lat, lng, expected) in cases {
        assert_eq!(cell_at(lat, lng).unwrap().to_string(), expected);
    }
}

#[test]
fn out_of_range_and_non_finite_coordinates_are_errors() {
    assert_eq!(
        cell_at(90.5, 0.0),
        Err(CoordinateError::LatitudeOutOfRange(90.5))
    );
    assert_eq!(
        cell_at(-91.0, 0.0),
        Err(CoordinateError::LatitudeOutOfRange(-91.0))
    );
    assert_eq!(
        cell_at(0.0, 180.01),
        Err(CoordinateError::LongitudeOutOfRange(180.01))
    );
    assert_eq!(
        cell_at(0.0, -181.0),
        Err(CoordinateError::LongitudeOutOfRange(-181.0))
    );
    assert_eq!(
        cell_at(f64::NAN, 0.0),
        Err(CoordinateError::NotFinite(CoordinateField::Latitude))
    );
    assert_eq!(
        cell_at(0.0, f64::INFINITY),
        Err(CoordinateError::NotFinite(CoordinateField::Longitude))
    );
}

#[test]
fn range_edges_are_valid() {
    for (lat, lng) in [(90.0, 180.0), (-90.0, -180.0), (0.0, 0.0)] {
        assert!(cell_at(lat, lng).is_ok(), "{lat},{lng}");
    }
}

#[test]
fn error_messages_name_the_field_and_range() {
    let err = cell_at(95.0, 0.0).unwrap_err();
    assert_eq!(err.to_string(), "latitude must be between -90 and 90");
    assert_eq!(err.field().valid_range(), [-90.0, 90.0]);
    let err = cell_at(0.0, 200.0).unwrap_err();
    assert_eq!(err.field().name(), "longitude");
}

#[test]
fn disks_have_the_hexagon_count_and_start_with_the_centre() {
    let cell = cell_at(43.6532, -79.3832).unwrap();
    for k in [0, 1, 5, 41] {
        let cells = disk(cell, k).unwrap();
        assert_eq!(cells.len(), disk_size(k), "k={k}");
        assert_eq!(cells[0], cell);
    }
    assert_eq!(disk_size(41), 5167);
    assert_eq!(disk(cell, 42), Err(RingError::DistanceTooLarge(42)));
}

#[test]
fn parse_cell_checks_text_and_resolution() {
    let cell = cell_at(29.7604, -95.3698).unwrap();
    assert_eq!(parse_cell(&cell.to_string()), Ok(cell));
    assert_eq!(parse_cell("not-a-cell"), Err(RingError::InvalidCell));
    assert_eq!(parse_cell(""), Err(RingError::InvalidCell));
    let parent = cell.parent(Resolution::Seven).unwrap();
    assert_eq!(
        parse_cell(&parent.to_string()),
        Err(RingError::WrongResolution(7))
    );
}

#[test]
fn boundary_is_a_hexagon_around_the_centre() {
    let cell = cell_at(43.6532, -79.3832).unwrap();
    let corners = cell_boundary(cell);
    assert_eq!(corners.len(), 6);
    let (lat, lng) = cell_centre(cell);
    for (corner_lat, corner_lng) in corners {
        // Resolution-8 edges are about 0.46 km: corners lie within 0.01 degrees.
        assert!((corner_lat - lat).abs() < 0.01 && (corner_lng - lng).abs() < 0.01);
    }
}

#[test]
fn cells_along_a_segment_are_contiguous_and_sum_to_its_length() {
    let a = validate(43.6450, -79.3900).unwrap();
    let b = validate(43.6700, -79.3500).unwrap();
    let cells = cells_along(a, b, 25.0);
    let total: f64 = cells.iter().map(|(_, m)| m).sum();
    assert!((total - distance_m(a, b)).abs() < 1e-6);
    assert_eq!(cells[0].0, a.to_cell(RESOLUTION));
    assert_eq!(cells.last().unwrap().0, b.to_cell(RESOLUTION));
    for pair in cells.windows(2) {
        assert!(
            pair[0].0.is_neighbor_with(pair[1].0).unwrap_or(false),
            "{pair:?}"
        );
    }
    // A zero-length segment is its one cell.
    assert_eq!(
        cells_along(a, a, 25.0),
        alloc::vec![(a.to_cell(RESOLUTION), 0.0)]
    );
}

#[test]
fn crossed_cells_are_contiguous_and_catch_corner_clips() {
    let a = validate(43.6450, -79.3900).unwrap();
    let b = validate(43.6700, -79.3500).unwrap();
    let c = validate(43.6500, -79.3300).unwrap();
    let crossed = cells_crossed(&[a, b, c], RESOLUTION);
    let total: f64 = crossed.iter().map(|(_, m)| m).sum();
    let length = distance_m(a, b) + distance_m(b, c);
    assert!(
        (total - length).abs() < 1e-6 * length,
        "{total} vs {length}"
    );
    assert_eq!(crossed[0].0, a.to_cell(RESOLUTION));
    assert_eq!(crossed.last().unwrap().0, c.to_cell(RESOLUTION));
    for pair in crossed.windows(2) {
        assert!(pair[0].0.is_neighbor_with(pair[1].0).unwrap(), "{pair:?}");
    }
    // Dense sampling never finds a cell the traversal missed.
    let sampled = cells_along(a, b, 0.5);
    for (cell, _) in &sampled {
        assert!(crossed.iter().any(|(c, _)| c == cell), "{cell} missed");
    }
    // Metres per cell agree with fine sampling to within a couple of sample steps.
    for (cell, metres) in cells_crossed(&[a, b], RESOLUTION) {
        let sampled_m: f64 = sampled
            .iter()
            .filter(|(c, _)| *c == cell)
            .map(|(_, m)| m)
            .sum();
        assert!(
            (metres - sampled_m).abs() < 2.0,
            "{cell}: {metres} vs {sampled_m}"
        );
    }
}

#[test]
fn crossing_a_corner_lists_the_clipped_cell() {
    // A short segment through a point just beside a hexagon corner.
    let cell = cell_at(43.6532, -79.3832).unwrap();
    let corner = *cell.boundary().first().unwrap();
    let (lat, lng) = (corner.lat(), corner.lng());
    let from = validate(lat - 0.0004, lng - 0.0004).unwrap();
    let to = validate(lat + 0.0004, lng + 0.0004).unwrap();
    let crossed = cells_crossed(&[from, to], RESOLUTION);
    let sampled = cells_along(from, to, 0.05);
    for (cell, _) in &sampled {
        assert!(crossed.iter().any(|(c, _)| c == cell), "{cell} missed");
    }
    for pair in crossed.windows(2) {
        assert!(pair[0].0.is_neighbor_with(pair[1].0).unwrap(), "{pair:?}");
    }
    // One point and repeated points are their one cell.
    assert_eq!(
        cells_crossed(&[from], RESOLUTION),
        [(from.to_cell(RESOLUTION), 0.0)]
    );
    assert_eq!(
        cells_crossed(&[from, from], RESOLUTION),
        [(from.to_cell(RESOLUTION), 0.0)]
    );
    assert!(cells_crossed(&[], RESOLUTION).is_empty());
}

#[test]
fn centre_lies_in_its_own_cell() {
    let cell = cell_at(37.7749, -122.4194).unwrap();
    let (lat, lng) = cell_centre(cell);
    assert_eq!(cell_at(lat, lng).unwrap(), cell);
}

fn ring_area(ring: &[LatLng]) -> f64 {
    ring.windows(2)
        .map(|w| w[0].lng() * w[1].lat() - w[1].lng() * w[0].lat())
        .sum()
}

#[test]
fn outlines_are_closed_anticlockwise_rings_with_clockwise_holes() {
    let centre = cell_at(43.6532, -79.3832).unwrap();
    // A disk: one polygon, one ring of its 18 outer vertexes.
    let disk1 = disk(centre, 1).unwrap();
    let polygons = outline(&disk1);
    assert_eq!(polygons.len(), 1);
    assert_eq!(polygons[0].len(), 1);
    let ring = &polygons[0][0];
    assert_eq!(ring.len(), 19);
    assert_eq!(ring.first(), ring.last());
    assert!(ring_area(ring) > 0.0);
    // A disk without its centre: the centre's six vertexes are a clockwise hole.
    let annulus: Vec<CellIndex> = disk(centre, 2)
        .unwrap()
        .into_iter()
        .filter(|&c| c != centre)
        .collect();
    let polygons = outline(&annulus);
    assert_eq!(polygons.len(), 1);
    assert_eq!(polygons[0].len(), 2);
    assert_eq!(polygons[0][1].len(), 7);
    assert!(ring_area(&polygons[0][1]) < 0.0);
    // Two cells far apart: two polygons of one cell each.
    let far = cell_at(43.70, -79.30).unwrap();
    let polygons = outline(&[centre, far, centre]);
    assert_eq!(polygons.len(), 2);
    assert!(polygons.iter().all(|p| p.len() == 1 && p[0].len() == 7));
    assert!(outline(&[]).is_empty());
}

#[test]
fn a_point_the_plane_puts_well_inside_a_cell_is_in_that_cell() {
    use super::crossing::Interior;
    // Points around Toronto, San Francisco and Houston, each against the cells of a
    // ring around it: wherever the plane says "inside", H3 agrees.
    let mut unit = uniform(0x2545_f491_4f6c_dd1d_u64);
    let (mut inside, mut checked) = (0, 0);
    for (lat, lng) in [
        (43.6532, -79.3832),
        (37.7749, -122.4194),
        (29.7604, -95.3698),
    ] {
        let centre = cell_at(lat, lng).unwrap();
        let cells: Vec<Interior> = disk(centre, 2)
            .unwrap()
            .into_iter()
            .map(Interior::new)
            .collect();
        for _ in 0..3_000 {
            let p =
                h3o::LatLng::new(lat + (unit() - 0.5) * 0.04, lng + (unit() - 0.5) * 0.05).unwrap();
            let cell = p.to_cell(RESOLUTION);
            for interior in &cells {
                checked += 1;
                if interior.holds(p) {
                    inside += 1;
                    assert_eq!(interior.cell, cell, "{p:?}");
                }
            }
        }
    }
    // Not a vacuous test: most points are well inside one of the cells.
    assert!(inside > 5_000, "{inside} of {checked}");
}

#[test]
fn segments_ending_anywhere_near_cell_edges_are_traced_to_their_end_cell() {
    // Tracing finds a segment's end cell by walking into it, asking H3 only when a
    // cell's interior cannot tell: segments that end a hair inside or outside the cell
    // they start in, or just past an edge, must still end in H3's cell for their end
    // and miss no cell a fine sampling finds.
    let mut unit = uniform(0x9e37_79b9_7f4a_7c15_u64);
    let mut checked = 0;
    for (lat, lng) in [
        (43.6532, -79.3832),
        (37.7749, -122.4194),
        (29.7604, -95.3698),
    ] {
        for _ in 0..150 {
            let cell = cell_at(lat + (unit() - 0.5) * 0.05, lng + (unit() - 0.5) * 0.05).unwrap();
            let boundary = cell.boundary();
            let k = (unit() * boundary.len() as f64) as usize % boundary.len();
            let (a, b) = (boundary[k], boundary[(k + 1) % boundary.len()]);
            // A point on one edge, then a hair (−0.5 m to +0.5 m) across it along the
            // line from the centre.
            let s = 0.1 + 0.8 * unit();
            let on_edge = (
                a.lat() + (b.lat() - a.lat()) * s,
                a.lng() + (b.lng() - a.lng()) * s,
            );
            let centre = LatLng::from(cell);
            let outward = (on_edge.0 - centre.lat(), on_edge.1 - centre.lng());
            let edge_m = distance_m(centre, LatLng::new(on_edge.0, on_edge.1).unwrap());
            let hair = (unit() - 0.5) / edge_m;
            let end =
                LatLng::new(on_edge.0 + outward.0 * hair, on_edge.1 + outward.1 * hair).unwrap();
            // From somewhere in or around the cell, 50 to 900 m away.
            let angle = unit() * core::f64::consts::TAU;
            let reach = (50.0 + 850.0 * unit()) / 111_000.0;
            let start = LatLng::new(
                end.lat() + reach * libm::sin(angle),
                end.lng() + reach * libm::cos(angle) / libm::cos(end.lat().to_radians()),
            )
            .unwrap();
            for (from, to) in [(start, end), (end, start)] {
                let crossed = cells_crossed(&[from, to], RESOLUTION);
                assert_eq!(crossed[0].0, from.to_cell(RESOLUTION));
                assert_eq!(
                    crossed.last().unwrap().0,
                    to.to_cell(RESOLUTION),
                    "{from:?} → {to:?}"
                );
                let total: f64 = crossed.iter().map(|(_, m)| m).sum();
                let length = distance_m(from, to);
                assert!((total - length).abs() < 1e-6 * length.max(1.0));
                for pair in crossed.windows(2) {
                    assert!(pair[0].0.is_neighbor_with(pair[1].0).unwrap(), "{pair:?}");
                }
                for (sampled, _) in cells_along(from, to, 0.25) {
                    assert!(
                        crossed.iter().any(|(c, _)| *c == sampled),
                        "{sampled} missed"
                    );
                }
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 900);
}
