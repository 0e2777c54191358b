//! Prints the npm package's copy of the tile style (`scripts/build-pkg.sh` writes
//! it to `pkg/dist/style.js`): the engine's [`tile_style`], the one `GET
//! /tiles/{city}/style.json` serves, as an ES module. It lives outside the wasm,
//! where its JSON would cost every user of the package about 4 KB gzipped.

use hexrisk_engine::operations::tile_style;

fn main() {
    // The source is the caller's: the package's `hexriskStyle(source)` puts it in.
    let style = serde_json::to_value(tile_style(serde_json::Value::Null)).unwrap_or_default();
    println!(
        "// Generated from the engine's tile style by engine/examples/tile_style.rs; do not edit.\n\
         export const style = {style};"
    );
}
