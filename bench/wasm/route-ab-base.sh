#!/usr/bin/env bash
# Builds an earlier commit's npm package and artifacts in a worktree at build/ab/REV,
# for bench/wasm/route-ab.mjs to time against this tree's. The worktree borrows this
# tree's node_modules and .tools (the same wasm-bindgen and wasm-opt) and runs that
# commit's own model build and package script; a second run finds them built.
#
#   bash bench/wasm/route-ab-base.sh REV
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
rev=${1:?usage: route-ab-base.sh REV}
tree="$root/build/ab/$rev"
if [ ! -d "$tree" ]; then
  git -C "$root" worktree add --force --detach "$tree" "$rev" >/dev/null
fi
ln -sfn "$root/node_modules" "$tree/node_modules"
mkdir -p "$tree/.tools"
ln -sfn "$root/.tools/bin" "$tree/.tools/bin"
if [ -f "$tree/pkg/dist/node/hexrisk_engine_bg.wasm" ] && [ -f "$tree/build/artifacts/manifest.json" ]; then
  echo "route-ab: $rev already built in $tree"
  exit 0
fi
cd "$tree"
# The builder's own profile at that commit, if it had one; the release profile else.
profile=$(grep -q '^\[profile.native-tool\]' Cargo.toml && echo native-tool || echo release)
cargo run --quiet --profile "$profile" -p hexrisk-builder -- build
WASM_BINDGEN_BIN="$root/.tools/bin/wasm-bindgen" bash scripts/build-pkg.sh
