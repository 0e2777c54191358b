//! Routes costed by their streets, on Toronto's shipped artifact: the explanation
//! names the streets a route avoids, and a route's own line, evaluated as any line
//! is (matched to the streets piece by piece), has the route's exposure.

use hexrisk_builder::inputs::config;
use hexrisk_builder::references::samples::{ROUTE_SAMPLE_NOW, route_pairs};
use hexrisk_engine::city::Atlas;
use hexrisk_engine::operations;
use serde_json::{Map, Value, json};

use crate::support::city_models;

fn toronto() -> Atlas {
    let cities = config::load_all(&config::default_config_dir()).unwrap();
    let city = cities.iter().find(|c| c.code == "city_ca_tor").unwrap();
    Atlas::new(vec![city_models::city_model(city)])
}

fn body(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => unreachable!("request bodies are objects"),
    }
}

#[test]
fn a_route_names_the_streets_it_avoids_and_its_line_evaluates_to_its_exposure() {
    let atlas = toronto();
    let pairs = route_pairs(&atlas.cities()[0], 40, 11, 2_000.0..=6_000.0);
    let (mut explained, mut named) = (0, 0);
    for (a, b) in &pairs {
        let answer = operations::route(
            &atlas,
            &body(json!({
                "origin": {"lat": a.lat(), "lng": a.lng()},
                "destination": {"lat": b.lat(), "lng": b.lng()},
            })),
            ROUTE_SAMPLE_NOW,
        )
        .map(|answer| serde_json::to_value(answer).unwrap())
        .unwrap();
        let best = &answer["best"];
        let explanation = &best["explanation"];
        let streets = explanation["avoidedStreets"].as_array().unwrap();
        let route_exposure = best["metrics"]["exposure"].as_f64().unwrap();
        if explanation["exposureAvoided"].as_f64().unwrap() > 0.0 {
            explained += 1;
            assert!(!streets.is_empty(), "a safer route avoids some street");
            let exposures: Vec<f64> = streets
                .iter()
                .map(|s| s["exposure"].as_f64().unwrap())
                .collect();
            assert!(exposures.windows(2).all(|w| w[0] >= w[1]), "{exposures:?}");
            for street in streets {
                let (metres, exposure) = (
                    street["distanceM"].as_f64().unwrap(),
                    street["exposure"].as_f64().unwrap(),
                );
                let per_km = street["incidentsPerKm"].as_f64().unwrap();
                assert!((per_km - exposure / metres * 1000.0).abs() <= 1e-9 * per_km);
                named += usize::from(street["name"].is_string());
            }
            // What the streets avoided carry is at most the shortest route's exposure.
            let shortest = explanation["shortest"]["exposure"].as_f64().unwrap();
            assert!(exposures.iter().sum::<f64>() <= shortest * (1.0 + 1e-9));
        } else {
            assert!(streets.is_empty(), "the shortest route avoids no street");
        }
        // The route's own line, matched to the streets, has the route's exposure: its
        // pieces fall on the route's own ways, measured by great circle rather than
        // by the ways' stored lengths.
        let evaluated = operations::evaluate(
            &atlas,
            &body(json!({"geometry": best["geometry"]})),
            ROUTE_SAMPLE_NOW,
        )
        .map(|answer| serde_json::to_value(answer).unwrap())
        .unwrap();
        let line_exposure = evaluated["metrics"]["exposure"].as_f64().unwrap();
        assert!(
            (line_exposure - route_exposure).abs() <= 1e-6 * route_exposure,
            "line {line_exposure} against route {route_exposure}"
        );
    }
    assert!(
        explained >= 15,
        "{explained} of {} routes avoid exposure",
        pairs.len()
    );
    assert!(
        named >= explained,
        "{named} named streets over {explained} routes"
    );
}
