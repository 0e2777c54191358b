//! The model the tests answer from and the files a bucket holds for it.

use std::collections::HashMap;

use chrono::{DateTime, NaiveDate, Utc};
use hexrisk_engine::artifact::fixture::CityFixture;
use hexrisk_engine::artifact::{self, Bounds, Manifest, ManifestCity};
use hexrisk_engine::city::{Atlas, CityModel};
use hexrisk_engine::grid;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

/// A small Toronto: every cell within 3 rings of the city hall cell, four forecast
/// weeks from 2021-12-27, busier towards the centre; EST throughout, no precincts
/// and no roads.
pub(crate) fn atlas() -> Atlas {
    Atlas::new(vec![CityModel::from_artifact(
        small_toronto().without_roads().build(),
    )])
}

/// The small Toronto of [`atlas`] with the fixture's tiny road network (two nodes
/// east of city hall), so that road-only operations (`/reach`) can answer.
pub(crate) fn atlas_with_roads() -> Atlas {
    Atlas::new(vec![CityModel::from_artifact(small_toronto().build())])
}

fn small_toronto() -> CityFixture {
    let (lat, lng) = (43.6534, -79.3841);
    let centre = grid::cell_at(lat, lng).unwrap();
    let shares = [0.3, 0.4, 0.15, 0.1, 0.05];
    let date = |day| NaiveDate::from_ymd_opt(2021, 12, day).unwrap();
    CityFixture::default()
        .disk_around(lat, lng, 3)
        .weeks(4)
        .first_week(date(27))
        .rates(move |week, _, cell, class| {
            let ring = f64::from(centre.grid_distance(cell).unwrap());
            2.0 / (1.0 + ring) * (1.0 + 0.1 * week as f64) * shares[class]
        })
        .dispersion([2.0; 5])
        .model("test-model", None, date(26))
        .bounds(Bounds {
            north: 43.68,
            south: 43.63,
            east: -79.35,
            west: -79.42,
        })
        .fixed_utc_offset(-5 * 3600)
        .without_precincts()
}

/// The clock of the tests: a Wednesday in the second forecast week.
pub(crate) fn now() -> DateTime<Utc> {
    "2022-01-05T12:00:00Z".parse().unwrap()
}

/// A JSON object literal as the body map the handlers take.
pub(crate) fn body(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

/// The files a bucket holds for `atlas`: each city's artifact under its versioned
/// name and the manifest, as the builder writes them.
pub(crate) fn bucket(atlas: &Atlas) -> HashMap<String, Vec<u8>> {
    let mut files = HashMap::new();
    let mut cities = Vec::new();
    for city in atlas.cities() {
        let bytes = artifact::encode(city.artifact()).unwrap();
        let entry = ManifestCity::describe(
            city.artifact(),
            bytes.len() as u64,
            hex::encode(Sha256::digest(&bytes)),
        );
        files.insert(entry.file.clone(), bytes);
        cities.push(entry);
    }
    let digest = hex::encode(Sha256::digest(Manifest::label_input(&cities)));
    let manifest = Manifest::over(cities, "test", &digest);
    files.insert(
        Manifest::FILE_NAME.to_owned(),
        serde_json::to_vec(&manifest).unwrap(),
    );
    files
}
