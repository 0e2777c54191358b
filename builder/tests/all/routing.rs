//! Routing on the real networks the build makes: the engine's contraction hierarchy
//! and its A* must both find routes exactly as cheap as a plain reference Dijkstra
//! (petgraph) on hundreds of random pairs per city, and route answers must hold
//! together.
//!
//! The cities' models come from `support/city_models.rs`.

// Zero-length routes have exactly zero length.
#![allow(clippy::float_cmp)]

use std::sync::OnceLock;

use h3o::LatLng;
use hexrisk_builder::inputs::config;
use hexrisk_builder::references::routes::Reference;
use hexrisk_engine::city::CityModel;
use hexrisk_engine::corridor::{self, TravelMode};
use hexrisk_engine::grid::{self, MicroDegrees};
use hexrisk_engine::plan::{
    self, RouteAnswer, RouteError, RouteObjective, RouteOption, RouteRequest,
};
use hexrisk_engine::roads::NetworkKind;
use hexrisk_engine::routing::{self, CostModel, RouteMethod};
use hexrisk_engine::scoring::{CityScores, Intent, ScoringParams, StreetRisk};

use crate::support::city_models;

const CITIES: [&str; 3] = ["city_ca_tor", "city_us_sfo", "city_us_hou"];
const PAIRS_PER_CITY: usize = 320;
/// Random points are drawn in a city's bounding box and many fall too far from its
/// network (Lake Ontario, the bay) to snap: up to this many draws per pair wanted.
const TRIES_PER_PAIR: usize = 20;

fn models() -> &'static [CityModel] {
    static MODELS: OnceLock<Vec<CityModel>> = OnceLock::new();
    MODELS.get_or_init(|| {
        config::load_all(&config::default_config_dir())
            .unwrap()
            .iter()
            .map(city_models::city_model)
            .collect()
    })
}

fn model(code: &str) -> &'static CityModel {
    models()
        .iter()
        .find(|m| m.artifact().city.code == code)
        .unwrap()
}

/// A small deterministic generator (xorshift), so failures reproduce.
struct Random(u64);

impl Random {
    fn unit(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1_u64 << 53) as f64
    }

    fn point(&mut self, model: &CityModel) -> LatLng {
        let b = &model.artifact().bounds;
        LatLng::new(
            b.south + self.unit() * (b.north - b.south),
            b.west + self.unit() * (b.east - b.west),
        )
        .unwrap()
    }
}

#[test]
fn routes_are_as_cheap_as_a_reference_dijkstra_in_every_city() {
    let mut random = Random(0x5eed_cafe);
    for code in CITIES {
        let model = model(code);
        let network = model.road_network().expect("every city has a network");
        let (graph, index) = (network.graph, network.index);
        let week = model.week_count() - 1;
        // Four cost models per city: the three methods and a night walk.
        let settings = [
            (Intent::Overall, RouteMethod::Safest),
            (Intent::Driving, RouteMethod::Balanced),
            (Intent::Overall, RouteMethod::Shortest),
            (Intent::Night, RouteMethod::Safest),
        ];
        let (mut checked, mut unreachable) = (0, 0);
        let started = std::time::Instant::now();
        for (intent, method) in settings {
            let params = ScoringParams {
                intent,
                ..ScoringParams::default()
            };
            let scores = CityScores::compute(model, week, &params);
            let street = StreetRisk::of(model, &scores, &network);
            let costs = CostModel::from_risks(street.risks(), method.alpha());
            let mut reference = Reference::new(graph, &costs);
            let wanted = PAIRS_PER_CITY / settings.len();
            let (mut pairs, mut tries) = (0, 0);
            while pairs < wanted && tries < TRIES_PER_PAIR * wanted {
                tries += 1;
                let (a, b) = (random.point(model), random.point(model));
                let (Ok(from), Ok(to)) = (index.snap(graph, a), index.snap(graph, b)) else {
                    continue;
                };
                let path = index.search(graph, &costs, &from, &to);
                let astar = index.astar(graph, &costs, None, &from, &to);
                let Some(expected) = reference.cost(graph, index, &costs, &from, &to) else {
                    // Houston's lattice has islands: all three must agree there is no path.
                    assert!(
                        path.is_none() && astar.is_none(),
                        "{code}: a path where none is"
                    );
                    unreachable += 1;
                    continue;
                };
                let (Some(path), Some(astar)) = (path, astar) else {
                    panic!("{code} {method} {a:?} -> {b:?}: no path found, Dijkstra {expected}");
                };
                for (name, found) in [("hierarchy", &path), ("A*", &astar)] {
                    assert!(
                        (found.cost - expected).abs() <= 1e-9 * expected.max(1.0),
                        "{code} {method} {a:?} -> {b:?}: {name} {} vs Dijkstra {expected}",
                        found.cost
                    );
                }
                // The pieces join up: each ends where the next begins (a piece of no
                // length, at a way's end, has no direction to check).
                let ends = |p: &routing::Piece| {
                    let [s, e] = index.way_nodes(p.way as usize);
                    if p.to_m > p.from_m {
                        Some((s, e))
                    } else if p.to_m < p.from_m {
                        Some((e, s))
                    } else {
                        None
                    }
                };
                for pair in path.pieces.windows(2) {
                    if let (Some((_, end)), Some((begin, _))) = (ends(&pair[0]), ends(&pair[1])) {
                        assert_eq!(end, begin, "{code}: broken path");
                    }
                }
                pairs += 1;
            }
            assert_eq!(
                pairs, wanted,
                "{code} {method}: only {pairs} of {wanted} pairs snapped to the network in {tries} draws"
            );
            checked += pairs;
        }
        eprintln!(
            "{code}: {checked} pairs ({unreachable} of them unreachable) in {:.1?}",
            started.elapsed()
        );
    }
}

/// The build numbers every road network's nodes in their contraction order (and its
/// ways as their first edges come), so that a route reads nearby memory
/// (`hexrisk_builder::roads::locality`): the order then stored is `0, 1, …`, and an edge
/// mostly joins nodes numbered close together.
#[test]
fn road_networks_are_numbered_in_their_contraction_order() {
    const MAX_MEDIAN_EDGE_SPAN: u32 = 16;
    let mut checked = 0;
    for code in CITIES {
        let graph = model(code).artifact().road_graph.as_ref().unwrap();
        if graph.kind != NetworkKind::Roads {
            continue;
        }
        let identity: Vec<u32> = (0..graph.node_count() as u32).collect();
        assert_eq!(graph.stored_order(), Some(identity.as_slice()), "{code}");
        let mut next_way = 0;
        let mut spans = Vec::new();
        for node in 0..graph.node_count() as u32 {
            for e in graph.out_edges(node) {
                let (way, _) = graph.edge_way(e);
                assert!(
                    way <= next_way,
                    "{code}: way {way} comes before way {next_way}"
                );
                next_way = next_way.max(way + 1);
                spans.push(graph.edge_target[e].abs_diff(node));
            }
        }
        spans.sort_unstable();
        // 4 in Toronto and 7 in San Francisco; 57 and 600 as the streets came.
        let median = spans[spans.len() / 2];
        assert!(
            median <= MAX_MEDIAN_EDGE_SPAN,
            "{code}: an edge's ends are a median {median} numbers apart"
        );
        checked += 1;
    }
    assert!(checked >= 2, "Toronto and San Francisco have roads");
}

fn request(origin: LatLng, destination: LatLng) -> RouteRequest {
    RouteRequest {
        origin,
        destination,
        objective: RouteObjective::Method(RouteMethod::Safest),
        week: 0,
        params: ScoringParams::default(),
        alternatives: 3,
        snap_to_roads: true,
        mode: TravelMode::Walking,
    }
}

#[test]
fn a_toronto_route_answer_holds_together() {
    let model = model("city_ca_tor");
    let scores = CityScores::compute(model, model.week_count() - 1, &ScoringParams::default());
    // Union Station to Christie Pits, about 5 km.
    let origin = LatLng::new(43.6453, -79.3806).unwrap();
    let destination = LatLng::new(43.6645, -79.4206).unwrap();
    let answer = plan::route(model, &scores, &request(origin, destination)).unwrap();
    assert_eq!(answer.network, NetworkKind::Roads);
    let best = &answer.best;
    let line = best.geometry.as_ref().unwrap();
    assert!(line[0].distance_m(origin) < routing::MAX_SNAP_DISTANCE_M);
    // The corridor is every cell the line crosses, once each, in order of entry.
    let crossed = hexrisk_engine::grid::cells_crossed(line, hexrisk_engine::grid::RESOLUTION);
    let mut firsts = Vec::new();
    for (cell, _) in crossed {
        if !firsts.contains(&cell) {
            firsts.push(cell);
        }
    }
    assert_eq!(best.evaluation.hex_path, firsts);
    assert_eq!(
        best.evaluation.hex_path_with_tiers.len(),
        best.evaluation.hex_path.len()
    );
    // Corridor metrics are exactly the hex path's own evaluation.
    let own = corridor::evaluate_hex_path(
        model,
        &scores,
        &best.evaluation.hex_path,
        TravelMode::Walking,
    )
    .unwrap();
    assert_eq!(best.corridor_metrics, Some(own.metrics));
    assert_eq!(own.hex_path_with_tiers, best.evaluation.hex_path_with_tiers);
    // Metrics: at least the straight-line distance, a detour of at least zero.
    let m = best.evaluation.metrics;
    assert!(m.distance_m >= origin.distance_m(destination) - 2.0 * routing::MAX_SNAP_DISTANCE_M);
    assert!(m.detour_pct.unwrap() >= -1e-9);
    assert!(m.worst_safety.unwrap() <= m.mean_safety.unwrap());
    // Alternatives: more expensive, bounded stretch and overlap.
    assert!(!answer.alternatives.is_empty());
    for alternative in &answer.alternatives {
        let (cost, best_cost) = (alternative.cost.unwrap(), best.cost.unwrap());
        assert!(cost >= best_cost - 1e-9);
        assert!(cost <= routing::ALTERNATIVE_MAX_STRETCH * best_cost + 1e-9);
        assert_ne!(alternative.evaluation.hex_path, best.evaluation.hex_path);
    }
    // The safest route is never riskier per metre than the shortest one.
    let shortest = shortest_route(model, &scores, origin, destination);
    let per_km = |o: &RouteOption| o.evaluation.metrics.exposure / o.evaluation.metrics.distance_m;
    assert!(per_km(best) <= per_km(&shortest.best) + 1e-12);
    assert!(shortest.best.evaluation.metrics.distance_m <= m.distance_m + 1e-6);
    assert_eq!(shortest.best.evaluation.metrics.detour_pct, Some(0.0));
}

#[test]
fn routes_without_roads_houston_lattice_and_same_cell_trips() {
    let toronto = model("city_ca_tor");
    let scores = CityScores::compute(toronto, 0, &ScoringParams::default());
    let origin = LatLng::new(43.6453, -79.3806).unwrap();
    let destination = LatLng::new(43.6645, -79.4206).unwrap();
    let hexes = plan::route(
        toronto,
        &scores,
        &RouteRequest {
            snap_to_roads: false,
            ..request(origin, destination)
        },
    )
    .unwrap();
    assert!(hexes.best.geometry.is_none());
    assert_eq!(hexes.network, NetworkKind::HexLattice);
    corridor::check_hex_path(&hexes.best.evaluation.hex_path).unwrap();

    let houston = model("city_us_hou");
    let scores = CityScores::compute(houston, 0, &ScoringParams::default());
    let answer = plan::route(
        houston,
        &scores,
        &request(
            LatLng::new(29.7604, -95.3698).unwrap(),
            LatLng::new(29.7350, -95.3900).unwrap(),
        ),
    )
    .unwrap();
    assert_eq!(answer.network, NetworkKind::HexLattice);
    assert!(answer.best.geometry.as_ref().unwrap().len() > 2);

    // Origin and destination in one cell still give a corridor with a tier.
    let near = LatLng::new(43.6455, -79.3804).unwrap();
    let short = plan::route(toronto, &scores_for(toronto), &request(origin, near)).unwrap();
    assert!(!short.best.evaluation.hex_path_with_tiers.is_empty());
    assert!(short.best.evaluation.hex_path_with_tiers[0].tier.is_some());
    // The same point twice is a route of no length, not an error.
    let same = plan::route(toronto, &scores_for(toronto), &request(origin, origin)).unwrap();
    assert_eq!(same.best.evaluation.metrics.distance_m, 0.0);
    assert_eq!(same.best.evaluation.hex_path.len(), 1);
}

/// The shortest route between two points, without alternatives.
fn shortest_route(
    model: &CityModel,
    scores: &CityScores,
    origin: LatLng,
    destination: LatLng,
) -> RouteAnswer {
    let request = RouteRequest {
        objective: RouteObjective::Method(RouteMethod::Shortest),
        alternatives: 0,
        ..request(origin, destination)
    };
    plan::route(model, scores, &request).unwrap()
}

fn scores_for(model: &CityModel) -> CityScores {
    CityScores::compute(model, 0, &ScoringParams::default())
}

#[test]
fn points_far_from_any_road_are_refused_with_the_distance() {
    let toronto = model("city_ca_tor");
    let scores = scores_for(toronto);
    // Out in Lake Ontario, 3 km south of the shore.
    let lake = LatLng::new(43.60, -79.38).unwrap();
    let land = LatLng::new(43.6453, -79.3806).unwrap();
    match plan::route(toronto, &scores, &request(lake, land)) {
        Err(RouteError::OriginTooFar(d)) => assert!(d > routing::MAX_SNAP_DISTANCE_M),
        other => panic!("expected OriginTooFar, got {other:?}"),
    }
    match plan::route(toronto, &scores, &request(land, lake)) {
        Err(RouteError::DestinationTooFar(d)) => assert!(d > routing::MAX_SNAP_DISTANCE_M),
        other => panic!("expected DestinationTooFar, got {other:?}"),
    }
    let too_many = RouteRequest {
        alternatives: 4,
        ..request(land, land)
    };
    assert_eq!(
        plan::route(toronto, &scores, &too_many).unwrap_err(),
        RouteError::TooManyAlternatives(4)
    );
}

#[test]
fn toronto_tradeoffs_run_shortest_to_safest_and_explain_themselves() {
    let toronto = model("city_ca_tor");
    let scores = scores_for(toronto);
    let place = |lat, lng| LatLng::new(lat, lng).unwrap();
    // Union Station, Christie Pits, the Danforth, Liberty Village, Yonge and Eglinton.
    let pairs = [
        (place(43.6453, -79.3806), place(43.6645, -79.4206)),
        (place(43.6453, -79.3806), place(43.6780, -79.3490)),
        (place(43.6645, -79.4206), place(43.6385, -79.4200)),
        (place(43.7070, -79.3985), place(43.6453, -79.3806)),
        (place(43.6780, -79.3490), place(43.6385, -79.4200)),
    ];
    let mut cells_explained = 0;
    for (origin, destination) in pairs {
        let tradeoff = RouteRequest {
            objective: RouteObjective::Tradeoff,
            alternatives: 0,
            ..request(origin, destination)
        };
        let answer = plan::route(toronto, &scores, &tradeoff).unwrap();
        let summary = answer.tradeoff.as_ref().unwrap();
        assert!(summary.complete);
        assert_eq!(answer.alpha, None);
        let set: Vec<&RouteOption> = answer.alternatives.iter().chain([&answer.best]).collect();
        assert!(!set.is_empty() && set.len() <= routing::TRADEOFF_MAX_ROUTES);
        assert_eq!(summary.steps.len(), set.len());
        assert!(summary.corners >= set.len());
        // The set's first route is the shortest route: nothing avoided, no detour.
        let shortest = shortest_route(toronto, &scores, origin, destination);
        let first = &set[0].evaluation.metrics;
        assert!((first.distance_m - shortest.best.evaluation.metrics.distance_m).abs() < 1.0);
        assert_eq!(set[0].explanation.extra_m, 0.0);
        assert!(set[0].explanation.avoided_cells.is_empty());
        // Each later route is longer and less exposed than the one before it, and says
        // what a step costs.
        for (i, pair) in set.windows(2).enumerate() {
            let (before, after) = (&pair[0].evaluation.metrics, &pair[1].evaluation.metrics);
            assert!(after.distance_m > before.distance_m, "route {i}");
            assert!(after.exposure < before.exposure, "route {i}");
            let paid = summary.steps[i + 1].metres_per_exposure_avoided.unwrap();
            let expected =
                (after.distance_m - before.distance_m) / (before.exposure - after.exposure);
            assert!((paid - expected).abs() < 1e-9 * expected.abs().max(1.0));
        }
        // Every route's explanation against the shortest.
        for option in &set {
            let why = &option.explanation;
            let this = &option.evaluation.metrics;
            assert!((why.exposure_avoided - (first.exposure - this.exposure)).abs() < 1e-9);
            assert!((why.extra_m - (this.distance_m - first.distance_m)).abs() < 1e-6);
            assert!(why.avoided_cells.len() <= plan::MAX_EXPLAINED_CELLS);
            for pair in why.avoided_cells.windows(2) {
                assert!(pair[0].safety_score <= pair[1].safety_score);
            }
            for cell in &why.avoided_cells {
                assert!(set[0].evaluation.hex_path.contains(&cell.h3));
                assert!(!option.evaluation.hex_path.contains(&cell.h3));
                assert!(cell.driven_by.is_some() && cell.driven_by_share > 0.0);
            }
            cells_explained += why.avoided_cells.len();
        }
        // Alternatives belong to methods; the set holds its own.
        assert_eq!(
            plan::route(
                toronto,
                &scores,
                &RouteRequest {
                    alternatives: 1,
                    ..tradeoff
                }
            )
            .unwrap_err(),
            RouteError::AlternativesWithTradeoff
        );
    }
    assert!(cells_explained > 0);
}

#[test]
fn a_toronto_walk_reaches_cells_within_its_budget_and_refuses_bad_budgets() {
    let toronto = model("city_ca_tor");
    let scores = scores_for(toronto);
    let union = LatLng::new(43.6453, -79.3806).unwrap();
    let walk = |minutes: f64, mode| plan::ReachRequest {
        origin: union,
        minutes,
        mode,
    };
    let started = std::time::Instant::now();
    let answer = plan::reach(toronto, &scores, &walk(15.0, TravelMode::Walking)).unwrap();
    eprintln!(
        "15-minute walk: {} cells in {:.1?}",
        answer.cells.len(),
        started.elapsed()
    );
    assert_eq!(answer.network, NetworkKind::Roads);
    assert!((answer.budget_m - 1250.0).abs() < 1e-6);
    // 1.25 km reaches the origin's cell and some of its neighbours, not the city.
    assert!(
        answer.cells.len() >= 3 && answer.cells.len() <= 19,
        "{}",
        answer.cells.len()
    );
    let origin_cell = union.to_cell(hexrisk_engine::grid::RESOLUTION);
    assert_eq!(answer.cells[0].cell, origin_cell);
    assert!(answer.cells[0].minutes < 1.0);
    for pair in answer.cells.windows(2) {
        assert!(pair[0].minutes <= pair[1].minutes);
    }
    for cell in &answer.cells {
        assert!(cell.minutes <= 15.0 + 1e-9);
        // At most every metre of the budget at the highest risk.
        assert!(cell.exposure >= 0.0 && cell.exposure <= 1.25 + 1e-9);
        let centre = LatLng::from(cell.cell);
        assert!(centre.distance_m(union) < 1250.0 + 1000.0);
    }
    // The boundary outlines the reached cells: one polygon per connected patch.
    assert!(!answer.boundary.is_empty() && answer.boundary.len() <= answer.cells.len());
    // A longer walk reaches more, and every cell of the shorter one no later.
    let longer = plan::reach(toronto, &scores, &walk(30.0, TravelMode::Walking)).unwrap();
    assert!(longer.cells.len() > answer.cells.len());
    for cell in &answer.cells {
        let same = longer.cells.iter().find(|c| c.cell == cell.cell).unwrap();
        assert!((same.minutes - cell.minutes).abs() < 1e-9);
        // More budget can only find a less exposed way.
        assert!(same.exposure <= cell.exposure + 1e-12);
    }
    for (minutes, mode) in [
        (0.0, TravelMode::Walking),
        (-5.0, TravelMode::Walking),
        (61.0, TravelMode::Walking),
    ] {
        assert_eq!(
            plan::reach(toronto, &scores, &walk(minutes, mode)).unwrap_err(),
            plan::ReachError::Minutes(minutes)
        );
    }
    assert!(matches!(
        plan::reach(toronto, &scores, &walk(15.0, TravelMode::Driving)),
        Err(plan::ReachError::TooFar(_))
    ));
    let lake = plan::ReachRequest {
        origin: LatLng::new(43.60, -79.38).unwrap(),
        ..walk(15.0, TravelMode::Walking)
    };
    assert!(matches!(
        plan::reach(toronto, &scores, &lake),
        Err(plan::ReachError::Route(RouteError::OriginTooFar(_)))
    ));
}

#[test]
fn a_shortest_route_evaluated_again_avoids_nothing() {
    // `/evaluate` of a shortest route's own line compares it with the shortest route
    // found again between its ends: the same streets, whose figures may differ in the
    // last bits. That is no exposure avoided and no metres paid for it.
    let mut checked = 0;
    for (i, &code) in CITIES.iter().enumerate() {
        let city = model(code);
        let scores = scores_for(city);
        let mut random = Random(0x5EED_0000 + i as u64);
        for _ in 0..60 {
            let shortest = RouteRequest {
                objective: RouteObjective::Method(RouteMethod::Shortest),
                alternatives: 0,
                ..request(random.point(city), random.point(city))
            };
            let Ok(answer) = plan::route(city, &scores, &shortest) else {
                continue;
            };
            let line = answer.best.geometry.expect("a road route has a line");
            let (first, last) = (line[0], line[line.len() - 1]);
            let Some(again) =
                plan::shortest_route(city, &scores, (first, last), TravelMode::Walking, |_| true)
            else {
                continue;
            };
            let mut evaluation = corridor::evaluate_line(city, &scores, &line, TravelMode::Walking);
            if let Some(on_streets) = plan::line_exposure(city, &scores, &line) {
                evaluation.metrics.exposure = on_streets.incidents;
            }
            let why = plan::explain(
                city,
                0,
                &ScoringParams::default(),
                &evaluation,
                &again.evaluation,
            );
            assert_eq!(why.exposure_avoided, 0.0, "{code}: {why:?}");
            assert_eq!(why.extra_m, 0.0, "{code}: {why:?}");
            assert_eq!(why.metres_per_exposure_avoided, None, "{code}: {why:?}");
            checked += 1;
        }
    }
    assert!(checked >= 60, "{checked} routes checked");
}

#[test]
fn a_route_line_runs_through_the_ways_own_points_with_exact_segment_lengths() {
    let mut lines = 0;
    for (i, &code) in CITIES.iter().enumerate() {
        let city = model(code);
        let Some(network) = city.road_network() else {
            continue;
        };
        let (graph, index) = (network.graph, network.index);
        let scores = scores_for(city);
        let costs = CostModel::from_risks(StreetRisk::of(city, &scores, &network).risks(), 4.0);
        let mut random = Random(0x11E5_0000 + i as u64);
        for _ in 0..80 {
            let (Ok(from), Ok(to)) = (
                index.snap(graph, random.point(city)),
                index.snap(graph, random.point(city)),
            ) else {
                continue;
            };
            let Some(path) = index.search(graph, &costs, &from, &to) else {
                continue;
            };
            let line = index.line(graph, &path);
            let points = &line.points;
            assert_eq!(line.segment_m.len(), points.len().saturating_sub(1));
            // Only the two snapped ends are cut out of a way; every point between them
            // is a node or way point as stored (in micro-degrees), not a point
            // interpolated a hair from it.
            for (k, p) in points
                .iter()
                .enumerate()
                .skip(1)
                .take(points.len().saturating_sub(2))
            {
                let stored = MicroDegrees::from_degrees(p.lat(), p.lng()).to_lat_lng();
                assert_eq!(*p, stored, "{code}: point {k} of {}", points.len());
            }
            for (k, pair) in points.windows(2).enumerate() {
                assert_eq!(
                    line.segment_m[k],
                    pair[0].distance_m(pair[1]),
                    "{code}: {k}"
                );
                assert!(
                    line.segment_m[k] > 0.0,
                    "{code}: segment {k} repeats a point"
                );
            }
            // The known lengths and the city's kept boundaries trace the same cells
            // and metres as H3 alone.
            assert_eq!(
                grid::cells_crossed_measured(
                    points,
                    &line.segment_m,
                    |cell| city.cell_boundary(cell),
                    grid::RESOLUTION
                ),
                grid::cells_crossed(points, grid::RESOLUTION)
            );
            lines += 1;
        }
    }
    assert!(lines >= 60, "{lines} lines checked");
}
