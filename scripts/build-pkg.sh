#!/usr/bin/env bash
# Builds the npm package in pkg/dist from the engine, in two engines: the grid engine
# (the package's default entry: forecasts, scores, lookups, tiles; pkg/dist/web and
# pkg/dist/node) and the roads engine (`hexrisk/roads`: all that and routes, reach,
# evaluation, places and streets; pkg/dist/roads/web and pkg/dist/roads/node). Each is
# one wasm-bindgen build for browsers and bundlers (ES module, `web` target) and one
# for Node (ES module that loads the wasm synchronously), sharing one wasm shrunk with
# wasm-opt from the npm `binaryen`; and the tile style `hexrisk/maplibre` exports.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
wasm_bindgen=${WASM_BINDGEN_BIN:-$root/.tools/bin/wasm-bindgen}
wasm_opt=${WASM_OPT_BIN:-$root/node_modules/.bin/wasm-opt}

rm -rf pkg/dist
mkdir -p pkg/dist
# The Rust toolchain's default wasm features; wasm-opt must accept what it emits.
features=(--enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext
  --enable-mutable-globals --enable-reference-types --enable-multivalue)
# Rust's wasm leaves the first KiB of memory unused (its data start at 1024) and the
# module owns a memory that starts zeroed: two facts -Oz may build on, which with
# --converge's repeated passes take about 4 KB off the gzipped wasm.
size_flags=(-Oz --converge --low-memory-unused --zero-filled-memory)

# build_engine FEATURE OUT: the engine with cargo feature FEATURE, bound into OUT/web
# and OUT/node.
build_engine() {
  local feature=$1 out=$2
  cargo rustc -p hexrisk-engine --lib --crate-type cdylib --features "$feature" \
    --target wasm32-unknown-unknown --profile wasm-release --quiet
  local wasm=target/wasm32-unknown-unknown/wasm-release/hexrisk_engine.wasm
  "$wasm_bindgen" --target web --out-dir "$out/web" --out-name hexrisk_engine "$wasm"
  "$wasm_bindgen" --target experimental-nodejs-module --out-dir "$out/node" --out-name hexrisk_engine "$wasm"
  # The engine's one JavaScript helper (unpacking answers, engine/src/wasm/answer.rs) is
  # written by wasm-bindgen under snippets/<crate>-<hash>/: moved beside the glue under a
  # name that does not change with the engine's version, for the package's file list and
  # the map app's offline cache.
  local dir snippets from
  for dir in "$out/web" "$out/node"; do
    snippets=("$dir"/snippets/hexrisk-engine-*/inline0.js)
    [[ ${#snippets[@]} -eq 1 && -f ${snippets[0]} ]] || { echo "build-pkg: expected one snippet in $dir/snippets" >&2; exit 1; }
    mv "${snippets[0]}" "$dir/unpack.js"
    rm -r "$dir/snippets"
    from="./${snippets[0]#"$dir"/}"
    grep -qF "from '$from';" "$dir/hexrisk_engine.js" || { echo "build-pkg: $dir/hexrisk_engine.js does not import $from" >&2; exit 1; }
    sed -i "s|from '$from';|from './unpack.js';|" "$dir/hexrisk_engine.js"
  done
  # Both targets bind the same wasm: shrunk once, copied to the other.
  cmp -s "$out/web/hexrisk_engine_bg.wasm" "$out/node/hexrisk_engine_bg.wasm" \
    || { echo "build-pkg: the web and node builds of $out differ in their wasm" >&2; exit 1; }
  "$wasm_opt" "${size_flags[@]}" "${features[@]}" "$out/web/hexrisk_engine_bg.wasm" -o "$out/web/hexrisk_engine_bg.wasm"
  cp "$out/web/hexrisk_engine_bg.wasm" "$out/node/hexrisk_engine_bg.wasm"
  local bytes gzipped
  bytes=$(wc -c < "$out/web/hexrisk_engine_bg.wasm")
  gzipped=$(gzip -9 -c "$out/web/hexrisk_engine_bg.wasm" | wc -c)
  echo "pkg: $out/web/hexrisk_engine_bg.wasm ${bytes} bytes, ${gzipped} gzipped"
}

build_engine wasm pkg/dist
build_engine wasm-roads pkg/dist/roads
# The tile style, from the engine natively: JSON the wasm need not carry.
cargo run --example tile_style --quiet > pkg/dist/style.js.partial
mv pkg/dist/style.js.partial pkg/dist/style.js
