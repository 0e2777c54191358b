//! The model the tests answer from and the files a bucket holds for it.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use hexrisk_engine::artifact::fixture::CityFixture;
use hexrisk_engine::artifact::{self, Manifest, ManifestCity};
use hexrisk_engine::city::{Atlas, CityModel};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

/// The shared small Toronto ([`CityFixture::small_toronto`]) without roads.
pub(crate) fn atlas() -> Atlas {
    Atlas::new(vec![CityModel::from_artifact(
        CityFixture::small_toronto().without_roads().build(),
    )])
}

/// The small Toronto of [`atlas`] with the fixture's tiny road network (two nodes
/// east of city hall), so that road-only operations (`/reach`) can answer.
pub(crate) fn atlas_with_roads() -> Atlas {
    Atlas::new(vec![CityModel::from_artifact(
        CityFixture::small_toronto().build(),
    )])
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
