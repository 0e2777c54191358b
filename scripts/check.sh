#!/usr/bin/env bash
# `make check`, the quick loop while changing Rust: format, clippy, and the unit tests
# (each crate's `--lib` tests) of the crates the change touches and of those that
# depend on them. "The change" is the work tree against CHECK_BASE (default HEAD:
# what is not committed yet), untracked files included.
#
# Every cargo call takes the whole workspace, as `make test` does, so that a crate
# compiled here is the one `make test` reuses (scripts/build-tool.sh says why); what
# narrows the loop is which test binaries run, and cargo's own reuse of every crate
# the change did not touch. Not here: the builder's integration tests, the wasm and
# no_std clippy runs, the Node suites (all in `make test`).
set -euo pipefail
cd "$(dirname "$0")/.."
base=${CHECK_BASE:-HEAD}

changed=$({ git diff --name-only "$base" --; git ls-files --others --exclude-standard; } | sort -u)
# Each crate's folder, and the folders of the crates that use it.
declare -A users=(
  [engine]="engine edge-worker builder"
  [edge-worker]="edge-worker"
  [builder]="builder"
  [opendata-sim]="opendata-sim builder"
)
declare -A run=()
while IFS= read -r path; do
  [ -n "$path" ] || continue
  case "$path" in
    Cargo.toml | Cargo.lock | clippy.toml | rust-toolchain.toml)
      for crate in "${!users[@]}"; do for p in ${users[$crate]}; do run[$p]=1; done; done ;;
    */*)
      crate=${path%%/*}
      if [ -n "${users[$crate]:-}" ]; then for p in ${users[$crate]}; do run[$p]=1; done; fi ;;
  esac
done <<< "$changed"

echo "check: format"
cargo fmt --all -- --check
echo "check: clippy"
cargo clippy --workspace --all-targets --quiet -- -D warnings
if [ ${#run[@]} -eq 0 ]; then
  echo "check: no crate changed against $base; no unit tests to run"
  exit 0
fi
echo "check: unit tests of ${!run[*]}"
# The unit-test binaries, with the folder of the crate each belongs to.
binaries=$(cargo test --workspace --lib --no-run --quiet --message-format=json |
  python3 -c '
import json, os, sys
for line in sys.stdin:
    if line.startswith("{"):
        m = json.loads(line)
        if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"]:
            print(os.path.basename(os.path.dirname(m["manifest_path"])), m["executable"])
')
failed=0
while read -r crate executable; do
  [ -n "${run[$crate]:-}" ] || continue
  "$executable" -q || failed=1
done <<< "$binaries"
exit $failed
