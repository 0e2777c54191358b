#!/usr/bin/env bash
# Runs hexrisk-build (the builder CLI) with the given arguments, building it first if
# anything changed. `make`, the Node tests and the scheduled update workflow run it so
# (bench/wasm/route-ab-base.sh builds another checkout, f7a14f3, as that one did).
#
# It is built with the whole workspace and its dev-dependencies (`--workspace --bins
# --examples`), so that every crate resolves to the features `cargo test --workspace`
# gives it, and the tests reuse each compiled crate. `cargo run -p hexrisk-builder`
# resolves features for that one package and compiles about 30 crates (syn, rustls and
# SQLite among them) a second time; `make lint` checks that nothing runs it so.
#
#   bash scripts/build-tool.sh build --city city_ca_tor
#   bash scripts/build-tool.sh --built-only     # build it, run nothing
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cargo build --quiet --manifest-path "$root/Cargo.toml" --workspace --bins --examples
[ "${1:-}" = --built-only ] && exit 0
exec "${CARGO_TARGET_DIR:-$root/target}/debug/hexrisk-build" "$@"
