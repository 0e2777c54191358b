use super::*;
use crate::references::samples::SplitMix;

fn unit(r: &mut SplitMix) -> f64 {
    (r.next_u64() >> 11) as f64 / (1_u64 << 53) as f64
}

const CENTRE: (f64, f64) = (43.7, -79.4);

/// The point `east` and `north` metres from the centre.
fn offset(projection: &Projection, east: f64, north: f64) -> (f64, f64) {
    let (x0, y0) = projection.project(CENTRE.0, CENTRE.1);
    let (x1, y1) = projection.project(CENTRE.0 + 1.0, CENTRE.1 + 1.0);
    (
        CENTRE.0 + (north - y0) / (y1 - y0),
        CENTRE.1 + (east - x0) / (x1 - x0),
    )
}

#[test]
fn segment_distance_is_to_the_nearest_point_of_the_segment() {
    assert_eq!(point_segment_m((5.0, 3.0), (0.0, 0.0), (10.0, 0.0)), 3.0);
    assert_eq!(point_segment_m((14.0, 3.0), (0.0, 0.0), (10.0, 0.0)), 5.0);
    assert_eq!(point_segment_m((-3.0, -4.0), (0.0, 0.0), (10.0, 0.0)), 5.0);
    assert_eq!(point_segment_m((3.0, 4.0), (0.0, 0.0), (0.0, 0.0)), 5.0);
}

#[test]
fn a_made_up_street_keeps_what_lies_within_thirty_metres() {
    let projection = Projection::new(CENTRE.0, CENTRE.1);
    // A street 200 m east, then 100 m north.
    let line = [
        offset(&projection, 0.0, 0.0),
        offset(&projection, 200.0, 0.0),
        offset(&projection, 200.0, 100.0),
    ];
    let points = [
        offset(&projection, 100.0, 29.9),  // 0: beside the first leg
        offset(&projection, 100.0, -30.1), // 1: just too far
        offset(&projection, 225.0, 50.0),  // 2: beside the second leg
        offset(&projection, -20.0, 20.0),  // 3: 28.3 m from the start, before it
        offset(&projection, 200.0, 131.0), // 4: 31 m past the end
        offset(&projection, 180.0, 20.0),  // 5: inside the corner, near both legs
        offset(&projection, 500.0, 500.0), // 6: far away
    ];
    let index = NearIndex::new(projection, &points, 30.0);
    assert_eq!(index.within(&line, 30.0), vec![0, 2, 3, 5]);
    assert_eq!(
        within_brute(projection, &points, &line, 30.0),
        vec![0, 2, 3, 5]
    );
}

#[test]
fn the_buckets_find_what_checking_every_point_finds() {
    let projection = Projection::new(CENTRE.0, CENTRE.1);
    let mut random = SplitMix::new(11);
    for round in 0..40 {
        // Points over about 2 km, some on exactly the same spot, as the police's
        // intersection points are.
        let mut points: Vec<(f64, f64)> = (0..400)
            .map(|_| {
                offset(
                    &projection,
                    unit(&mut random) * 2_000.0,
                    unit(&mut random) * 2_000.0,
                )
            })
            .collect();
        points.extend_from_within(..20);
        let steps = 1 + random.below(30);
        let (mut east, mut north) = (unit(&mut random) * 2_000.0, unit(&mut random) * 2_000.0);
        let mut line = vec![offset(&projection, east, north)];
        for _ in 1..steps {
            // Legs of up to 400 m, some of 0 m.
            let length = if random.below(5) == 0 {
                0.0
            } else {
                unit(&mut random) * 400.0
            };
            let angle = unit(&mut random) * std::f64::consts::TAU;
            east += length * angle.cos();
            north += length * angle.sin();
            line.push(offset(&projection, east, north));
        }
        let bucket = [10.0, 30.0, 75.0][round % 3];
        let index = NearIndex::new(projection, &points, bucket);
        for radius in [0.0, 5.0, 30.0, 120.0] {
            assert_eq!(
                index.within(&line, radius),
                within_brute(projection, &points, &line, radius),
                "round {round}, radius {radius}, bucket {bucket}"
            );
        }
    }
}

#[test]
fn the_projection_measures_metres() {
    let projection = Projection::new(CENTRE.0, CENTRE.1);
    let a = h3o::LatLng::new(43.70, -79.40).unwrap();
    let b = h3o::LatLng::new(43.71, -79.41).unwrap();
    let (xa, ya) = projection.project(a.lat(), a.lng());
    let (xb, yb) = projection.project(b.lat(), b.lng());
    let planar = (xb - xa).hypot(yb - ya);
    assert!((planar - a.distance_m(b)).abs() < 0.01 * planar, "{planar}");
}
