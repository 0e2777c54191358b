//! Unit tests of the searches on small hex lattices.

use alloc::vec;
use alloc::vec::Vec;

use h3o::LatLng;

use super::test_lattice::plain_lattice;
use super::*;

#[test]
fn methods_parse_and_weigh_risk_in_order() {
    for method in RouteMethod::ALL {
        assert_eq!(method.name().parse(), Ok(method));
    }
    assert_eq!("fastest".parse::<RouteMethod>(), Err(UnknownMethod));
    assert!(RouteMethod::Safest.alpha() > RouteMethod::Balanced.alpha());
    assert_eq!(RouteMethod::Shortest.alpha(), 0.0);
}

#[test]
fn way_costs_split_exactly_at_any_offset() {
    let (graph, _) = plain_lattice(2);
    let risks = way_risks_from_cells(&graph, |p| f64::from(p % 5) / 4.0, OUTSIDE_COVERAGE_RISK);
    assert_eq!(risks.len(), graph.way_count());
    let model = CostModel::from_risks(&risks, 4.0);
    for way in 0..graph.way_count() {
        let length = f64::from(graph.way_length_m[way]);
        let whole = model.way_cost(&graph, way);
        assert!(whole >= length * model.min_factor() - 1e-9);
        for cut in [0.0, 0.3, 0.5, 0.99] {
            let split = model.way_cost_between(way, 0.0, cut * length)
                + model.way_cost_between(way, length, cut * length);
            assert!((split - whole).abs() < 1e-9 * whole.max(1.0), "way {way}");
        }
    }
}

#[test]
fn routes_avoid_risky_cells_when_asked() {
    let (graph, grid) = plain_lattice(4);
    let index = RouteIndex::new(&graph);
    let centre = crate::grid::cell_at(43.6532, -79.3832).unwrap();
    // The centre cell and its ring are dangerous; everything else is safe.
    let dangerous = crate::grid::disk(centre, 1).unwrap();
    let risks = way_risks_from_cells(
        &graph,
        |p| {
            let cell = grid[p as usize];
            if dangerous.iter().any(|&r| u64::from(r) == cell) {
                1.0
            } else {
                0.0
            }
        },
        OUTSIDE_COVERAGE_RISK,
    );
    let ring = crate::grid::disk(centre, 3).unwrap();
    let (west, east) = ring.iter().map(|&c| LatLng::from(c)).fold(
        (LatLng::from(centre), LatLng::from(centre)),
        |(w, e), p| {
            (
                if p.lng() < w.lng() { p } else { w },
                if p.lng() > e.lng() { p } else { e },
            )
        },
    );
    let from = index.snap(&graph, west).unwrap();
    let to = index.snap(&graph, east).unwrap();
    assert!(from.distance_m < 1.0 && to.distance_m < 1.0);
    let shortest = index
        .search(&graph, &CostModel::from_risks(&risks, 0.0), &from, &to)
        .unwrap();
    let safest = index
        .search(&graph, &CostModel::from_risks(&risks, 4.0), &from, &to)
        .unwrap();
    assert!(safest.length_m() > shortest.length_m());
    let crosses_risk = |path: &Path| {
        index.geometry(&graph, path).iter().any(|p| {
            let cell = p.to_cell(crate::grid::RESOLUTION);
            dangerous.contains(&cell)
        })
    };
    assert!(crosses_risk(&shortest));
    assert!(!crosses_risk(&safest));
    // The geometry starts and ends at the snapped points.
    let line = index.geometry(&graph, &safest);
    assert!(line[0].distance_m(from.point) < 0.5);
    assert!(line.last().unwrap().distance_m(to.point) < 0.5);
}

#[test]
fn alternatives_are_distinct_and_within_the_stretch() {
    let (graph, _) = plain_lattice(6);
    let index = RouteIndex::new(&graph);
    let model = CostModel::from_risks(&vec![0.5; graph.way_count()], 1.0);
    let centre = crate::grid::cell_at(43.6532, -79.3832).unwrap();
    let ends: Vec<LatLng> = crate::grid::disk(centre, 5)
        .unwrap()
        .iter()
        .map(|&c| LatLng::from(c))
        .collect();
    let from = index.snap(&graph, ends[ends.len() - 1]).unwrap();
    let to = index.snap(&graph, ends[ends.len() - 16]).unwrap();
    let (best, alternatives) = index
        .search_with_alternatives(&graph, &model, &from, &to, 3)
        .unwrap();
    assert!(!alternatives.is_empty());
    for (i, alternative) in alternatives.iter().enumerate() {
        assert!(alternative.cost <= ALTERNATIVE_MAX_STRETCH * best.cost + 1e-9);
        assert!(alternative.cost >= best.cost - 1e-9);
        for other in core::iter::once(&best).chain(&alternatives[..i]) {
            assert!(
                alternative.shared_m(other) <= ALTERNATIVE_MAX_OVERLAP * alternative.length_m()
            );
        }
    }
}

#[test]
fn snapping_refuses_far_points_and_lands_on_segments() {
    let (graph, _) = plain_lattice(1);
    let index = RouteIndex::new(&graph);
    let far = LatLng::new(43.70, -79.3832).unwrap();
    let err = index.snap(&graph, far).unwrap_err();
    assert!(err > MAX_SNAP_DISTANCE_M);
    // A point just off the middle of a way snaps onto the way, not a node.
    let [start, end] = index.way_nodes(0);
    let (a, b) = (graph.node(start).to_lat_lng(), graph.node(end).to_lat_lng());
    let middle = LatLng::new(
        f64::midpoint(a.lat(), b.lat()) + 0.0001,
        f64::midpoint(a.lng(), b.lng()),
    )
    .unwrap();
    let snap = index.snap(&graph, middle).unwrap();
    let length = f64::from(graph.way_length_m[snap.way as usize]);
    assert!(snap.offset_m > 0.1 * length && snap.offset_m < 0.9 * length);
    assert!(snap.distance_m < 12.0);
}

#[test]
fn a_route_within_one_way_goes_straight_along_it() {
    let (graph, _) = plain_lattice(1);
    let index = RouteIndex::new(&graph);
    let model = CostModel::from_risks(&vec![0.2; graph.way_count()], 4.0);
    let length = f64::from(graph.way_length_m[0]);
    let [start, end] = index.way_nodes(0);
    let (a, b) = (graph.node(start).to_lat_lng(), graph.node(end).to_lat_lng());
    let at = |t: f64| {
        LatLng::new(
            a.lat() + (b.lat() - a.lat()) * t,
            a.lng() + (b.lng() - a.lng()) * t,
        )
        .unwrap()
    };
    let from = index.snap(&graph, at(0.7)).unwrap();
    let to = index.snap(&graph, at(0.2)).unwrap();
    let path = index.search(&graph, &model, &from, &to).unwrap();
    assert_eq!(path.pieces.len(), 1);
    assert!(
        (path.length_m() - 0.5 * length).abs() < 1.0,
        "{}",
        path.length_m()
    );
    // Same point twice: an empty route of one point.
    let same = index.search(&graph, &model, &from, &from).unwrap();
    assert_eq!(same.length_m(), 0.0);
    assert_eq!(index.geometry(&graph, &same).len(), 1);
}
