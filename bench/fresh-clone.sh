#!/usr/bin/env bash
# Times `make test` as a newcomer runs it: a fresh clone of this repository's HEAD in a
# temporary folder, with ../shared beside it (a link to this checkout's), and empty
# cargo, npm and pip caches (CARGO_HOME and npm_config_cache inside that folder,
# PIP_NO_CACHE_DIR). Then runs it a second time with nothing changed. Prints both
# step-time tables; the clone is left in the folder printed first.
#
#   bash bench/fresh-clone.sh            # cold, then warm
#
# Rust targets (rustup) and Debian packages (chromium) already on the machine are
# reused; for a figure from a machine that has none, remove them first
# (`rustup target remove wasm32-unknown-unknown thumbv7em-none-eabihf`,
# `apt-get remove chromium`), as for the figures in docs/BENCHMARKS.md.
set -euo pipefail
# shellcheck source=bench/fresh-env.sh
source "$(dirname "$0")/fresh-env.sh" fresh
for run in cold warm; do
  echo "make test, $run:"
  CI=true make test > "$dir/make-test-$run.log" 2>&1 || { tail -40 "$dir/make-test-$run.log"; exit 1; }
  cat build/step-times.txt
done
