use super::*;
use hexrisk_engine::artifact::fixture::tiny_graph;

#[test]
fn the_projection_measures_metres() {
    let projection = LocalProjection::centred_on(43.7, -79.4);
    assert_eq!(projection.project(43.7, -79.4), [0.0, 0.0]);
    // One degree of latitude is R·π/180; a degree of longitude that times cos φ.
    let [x, y] = projection.project(44.7, -78.4);
    assert!((y - 111_195.08).abs() < 0.01, "{y}");
    assert!(
        (x - 111_195.08 * 43.7_f64.to_radians().cos()).abs() < 0.01,
        "{x}"
    );
}

#[test]
fn near_the_fixture_way_an_incident_is_on_it_and_far_away_off_it() {
    let graph = tiny_graph();
    let network = StreetNetwork::new(&graph, 1);
    let attributor = Attributor::new(&graph, &network);
    let mut pieces = Vec::new();
    let start = graph.node(0);
    // At the start node: the only way there takes all of it.
    assert_eq!(
        attributor.attribute(start.lat(), start.lng(), &mut pieces),
        Placement::Node
    );
    assert_eq!(
        pieces,
        [Piece {
            way: 0,
            fraction: 1.0
        }]
    );
    // Ten kilometres north: off the network.
    assert_eq!(
        attributor.attribute(start.lat() + 0.09, start.lng(), &mut pieces),
        Placement::OffNetwork
    );
    assert!(pieces.is_empty());
}

#[test]
fn on_a_lattice_every_point_of_its_cells_goes_wholly_to_the_nearest_way() {
    use hexrisk_engine::roads::hex_lattice;
    let cell = h3o::LatLng::new(29.76, -95.37)
        .unwrap()
        .to_cell(h3o::Resolution::Eight);
    let children: Vec<h3o::CellIndex> = cell.children(h3o::Resolution::Nine).collect();
    let graph = hex_lattice(&children, &[u64::from(cell)], "test");
    let network = StreetNetwork::new(&graph, 1);
    let attributor = Attributor::new(&graph, &network);
    let radii = attributor.radii();
    assert_eq!(radii.node_m, 0.0);
    assert!(radii.way_m > 300.0 && radii.way_m < 450.0, "{radii:?}");
    // Brute force: the distance to every assigned way's straight line.
    let projection = LocalProjection::of_graph(&graph);
    let ends = graph.way_ends();
    let distance = |p: [f64; 2], way: usize| {
        let [a, b] = ends[way].map(|n| projection.project_stored(graph.node(n)));
        let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
        let t = (((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / (dx * dx + dy * dy)).clamp(0.0, 1.0);
        (p[0] - a[0] - t * dx).hypot(p[1] - a[1] - t * dy)
    };
    let mut pieces = Vec::new();
    let points: Vec<h3o::LatLng> = cell
        .children(h3o::Resolution::Eleven)
        .map(h3o::LatLng::from)
        .collect();
    assert_eq!(points.len(), 343);
    for point in points {
        let placement = attributor.attribute(point.lat(), point.lng(), &mut pieces);
        assert_eq!(placement, Placement::Way, "{point}");
        let [piece] = pieces[..] else {
            panic!("{pieces:?}")
        };
        assert_eq!(piece.fraction, 1.0);
        let here = projection.project(point.lat(), point.lng());
        let nearest = (0..graph.way_count())
            .map(|way| distance(here, way))
            .fold(f64::INFINITY, f64::min);
        assert!(
            (distance(here, piece.way as usize) - nearest).abs() < 1e-6,
            "{point}: way {} is not the nearest",
            piece.way
        );
    }
}
