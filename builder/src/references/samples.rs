//! Reference forecasts and route answers computed natively from the built
//! artifacts, for checking that the WebAssembly build gives identical answers from
//! the same artifacts, and the route pairs the routing benchmarks time.

use std::path::Path;

use hexrisk_engine::CrimeClass;
use hexrisk_engine::artifact::Manifest;
use hexrisk_engine::city::{Atlas, CityModel};
use serde_json::{Value, json};

/// splitmix64: a tiny seeded generator, enough to pick sample cells and weeks.
#[derive(Debug, Clone)]
pub struct SplitMix(u64);

impl SplitMix {
    /// A generator from a seed.
    #[must_use]
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A uniform index below `n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// The current artifact file of a city in an artifacts folder (a path that does not
/// exist when the folder has no manifest or no such city).
#[must_use]
pub fn current_file(dir: &Path, code: &str) -> std::path::PathBuf {
    let file = crate::outputs::artifacts::current_manifest(dir)
        .and_then(|m| m.city(code).map(|c| c.file.clone()))
        .unwrap_or_else(|| format!("{code}: not in {}", Manifest::FILE_NAME));
    dir.join(file)
}

/// `count` origin–destination pairs of a city for routing benchmarks: points near
/// random covered cell centres (within about 200 m), `metres` apart as the crow
/// flies, both within snapping distance of the road network. Deterministic for a
/// seed. Empty when the city has no road network.
///
/// # Panics
/// Never for a decoded city: every drawn position is a cell of its grid.
#[must_use]
pub fn route_pairs(
    model: &hexrisk_engine::city::CityModel,
    count: usize,
    seed: u64,
    metres: std::ops::RangeInclusive<f64>,
) -> Vec<(h3o::LatLng, h3o::LatLng)> {
    let Some(network) = model.road_network() else {
        return Vec::new();
    };
    let (graph, index) = (network.graph, network.index);
    let mut random = SplitMix::new(seed);
    let unit = |r: &mut SplitMix| (r.next_u64() >> 11) as f64 / (1_u64 << 53) as f64;
    let mut pairs = Vec::new();
    // A bound on draws, so that a city too small for the range cannot loop forever.
    for _ in 0..count * 1_000 {
        if pairs.len() >= count {
            break;
        }
        let mut point = || {
            let cell = model
                .cell(random.below(model.cell_count()))
                .expect("in the grid");
            let (lat, lng) = hexrisk_engine::grid::cell_centre(cell);
            let lat = lat + (unit(&mut random) - 0.5) * 0.004;
            let lng = lng + (unit(&mut random) - 0.5) * 0.004;
            h3o::LatLng::new(lat, lng).expect("a valid point")
        };
        let (a, b) = (point(), point());
        if metres.contains(&a.distance_m(b))
            && index.snap(graph, a).is_ok()
            && index.snap(graph, b).is_ok()
        {
            pairs.push((a, b));
        }
    }
    pairs
}

/// Loads every artifact a manifest lists.
///
/// # Errors
/// I/O errors and artifacts that do not decode.
pub fn load_atlas(dir: &Path) -> anyhow::Result<Atlas> {
    let manifest: Manifest =
        serde_json::from_slice(&std::fs::read(dir.join(Manifest::FILE_NAME))?)?;
    let mut atlas = Atlas::default();
    for city in &manifest.cities {
        atlas.insert(CityModel::from_bytes(&std::fs::read(
            dir.join(&city.file),
        )?)?);
    }
    Ok(atlas)
}

/// `per_city` random (cell centre, week) forecasts per city, as JSON.
#[must_use]
pub fn reference_forecasts(atlas: &Atlas, per_city: usize, seed: u64) -> Value {
    let mut random = SplitMix::new(seed);
    let mut samples = Vec::new();
    for city in atlas.cities() {
        for _ in 0..per_city {
            let position = random.below(city.cell_count());
            let week = random.below(city.week_count());
            let Some(cell) = city.cell(position) else {
                continue;
            };
            let (lat, lng) = hexrisk_engine::grid::cell_centre(cell);
            // Any day of the week selects it; use a random weekday.
            let date = city.week_monday(week) + chrono::Days::new(random.below(7) as u64);
            let forecast = city.forecast(position, week);
            let probabilities: serde_json::Map<String, Value> = CrimeClass::ALL
                .iter()
                .map(|c| {
                    (
                        c.code().to_owned(),
                        json!(forecast.probabilities[c.index()]),
                    )
                })
                .collect();
            samples.push(json!({
                "latitude": lat,
                "longitude": lng,
                "date": date.to_string(),
                "city": city.artifact().city.code,
                "cell": cell.to_string(),
                "weekOf": city.week_monday(week).to_string(),
                "rates": forecast.rates,
                "probabilities": probabilities,
                "dominantType": forecast.dominant().code(),
                "riskLevel": forecast.risk_level().code(),
            }));
        }
    }
    Value::Array(samples)
}

/// A clock inside every city's forecasts: 2022-01-03 12:00 UTC (the demo's pinned
/// clock), so default weeks are reproducible.
pub const ROUTE_SAMPLE_NOW: i64 = 1_641_211_200;

/// `per_city` random route requests per city (points near covered cell centres,
/// 2 to 15 km apart, varied methods, intents, alternatives and `snapToRoads`) with the
/// native answers: `[{request, response}]`, where `response` is the answer or the
/// error.
#[must_use]
pub fn reference_routes(atlas: &Atlas, per_city: usize, seed: u64) -> Value {
    let mut random = SplitMix::new(seed);
    let unit = |r: &mut SplitMix| (r.next_u64() >> 11) as f64 / (1_u64 << 53) as f64;
    let methods = ["safest", "balanced", "shortest"];
    let intents = ["overall", "walking", "driving", "night"];
    let mut samples = Vec::new();
    for city in atlas.cities() {
        let mut made = 0;
        // Bounded: a city too small for the distance range yields fewer samples.
        for _ in 0..per_city * 200 {
            if made == per_city {
                break;
            }
            // A covered cell's centre, moved up to about 200 m.
            let point = |r: &mut SplitMix| {
                let (lat, lng) =
                    hexrisk_engine::grid::cell_centre(city.cell(r.below(city.cell_count()))?);
                Some((lat + (unit(r) - 0.5) * 0.004, lng + (unit(r) - 0.5) * 0.004))
            };
            let (Some(a), Some(z)) = (point(&mut random), point(&mut random)) else {
                continue;
            };
            let (Ok(pa), Ok(pz)) = (
                hexrisk_engine::grid::validate(a.0, a.1),
                hexrisk_engine::grid::validate(z.0, z.1),
            ) else {
                continue;
            };
            let distance = pa.distance_m(pz);
            if !(2_000.0..=15_000.0).contains(&distance) {
                continue;
            }
            let request = json!({
                "origin": {"lat": a.0, "lng": a.1},
                "destination": {"lat": z.0, "lng": z.1},
                "method": methods[random.below(methods.len())],
                "intent": intents[random.below(intents.len())],
                "alternatives": random.below(4),
                "snapToRoads": random.below(5) != 0,
            });
            let Value::Object(body) = &request else {
                continue;
            };
            let response = match hexrisk_engine::operations::route(atlas, body, ROUTE_SAMPLE_NOW) {
                // The answer's JSON value, as the Worker writes it.
                Ok(answer) => serde_json::to_value(answer).unwrap_or_default(),
                Err(err) => json!({"error": err}),
            };
            samples.push(json!({"request": request, "response": response}));
            made += 1;
        }
    }
    Value::Array(samples)
}
