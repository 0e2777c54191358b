//! The built artifact of a city, found through `build/artifacts/manifest.json`, for
//! the fuzz targets that start from real data.

use hexrisk_engine::artifact::Manifest;

/// The bytes of `code`'s current artifact (`make artifacts` writes them).
pub fn current(code: &str) -> Vec<u8> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../build/artifacts/");
    let manifest: Manifest = serde_json::from_slice(
        &std::fs::read(format!("{dir}{}", Manifest::FILE_NAME))
            .expect("run `make artifacts` first"),
    )
    .expect("a valid manifest");
    let file = &manifest.city(code).expect("the city is built").file;
    std::fs::read(format!("{dir}{file}")).expect("the manifest's file")
}
