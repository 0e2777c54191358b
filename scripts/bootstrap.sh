#!/usr/bin/env bash
# Installs the tools a make target needs, each only when it is missing or at the wrong
# version, into git-ignored folders of the repository. The options name what to install:
#   --run      what `make run` needs: node_modules (Node 22, wrangler, binaryen's wasm-opt,
#              h3-js, playwright-core, sirv, Leaflet), the wasm32 Rust target, and in
#              .tools/bin wasm-bindgen (the version in Cargo.lock) and worker-build
#              (the version of `worker` in Cargo.lock)
#   --lint     the Rust targets `make lint` builds for: wasm32 and thumbv7em-none-eabihf
#              (a target without std, which proves the engine is no_std)
#   --fuzz     cargo-fuzz in .tools/bin
#   --schema   schemathesis and openapi-core in .tools/venv
#   --browser  Debian's chromium (as root)
#   --wrk      Debian's wrk (as root)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
tools="$root/.tools"
mkdir -p "$tools/bin"

want_run=false want_lint=false want_fuzz=false want_schema=false want_browser=false want_wrk=false
[ $# -gt 0 ] || { echo "usage: bootstrap.sh --run|--lint|--fuzz|--schema|--browser|--wrk..." >&2; exit 2; }
for arg in "$@"; do
  case "$arg" in
    --run) want_run=true ;;
    --lint) want_lint=true ;;
    --fuzz) want_fuzz=true ;;
    --schema) want_schema=true ;;
    --browser) want_browser=true ;;
    --wrk) want_wrk=true ;;
    *) echo "bootstrap: unknown option $arg" >&2; exit 2 ;;
  esac
done

say() { printf 'bootstrap: %s\n' "$*"; }

lock_version() { # version of a package in Cargo.lock
  awk -v name="$1" '$0 == "name = \"" name "\"" { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock
}

rust_target() { # adds a Rust target to the toolchain when it is missing
  if ! rustup target list --installed | grep -qx "$1"; then
    say "adding the $1 Rust target"
    rustup target add "$1"
  fi
}

# The downloads (apt, npm, PyPI) run as background jobs beside the cargo installs;
# each job's output goes to its log, shown if it fails.
jobs_pids=() jobs_names=()
background() { # background NAME COMMAND...: runs COMMAND with output in .tools/NAME.log
  local name=$1; shift
  "$@" > "$tools/$name.log" 2>&1 &
  jobs_pids+=($!) jobs_names+=("$name")
}
# A failing step stops the background installs too.
trap 'status=$?; if [ $status -ne 0 ] && [ ${#jobs_pids[@]} -gt 0 ]; then kill "${jobs_pids[@]}" 2>/dev/null || true; fi' EXIT

apt_packages=()
if $want_browser && ! [ -x /usr/bin/chromium ]; then apt_packages+=(chromium); fi
if $want_wrk && ! command -v wrk >/dev/null; then apt_packages+=(wrk); fi
if [ ${#apt_packages[@]} -gt 0 ]; then
  say "installing ${apt_packages[*]} from Debian (in the background)"
  background apt bash -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null' \
    apt "${apt_packages[@]}"
fi

# npm packages: reinstall only when package-lock.json changed since the last install.
# Not `npm ci`: npm leaves other platforms' optional workerd packages out of the
# lock file and then refuses it; `install --no-save` follows the lock as written.
if $want_run && { ! [ -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; }; then
  say "installing npm packages from package-lock.json (in the background)"
  background npm npm install --no-save --no-audit --no-fund --loglevel=error
fi

# PyPI packages for the API tests against the OpenAPI documents, pinned, in a venv of
# their own: schemathesis (generated requests) and openapi-core (an independent
# validator of real answers). Only those missing or at another version are installed,
# in one pip run so that their shared dependencies are resolved together.
schemathesis_version=4.32.5
openapi_core_version=0.23.1
pypi_version() { # version of a package in .tools/venv, empty when absent
  "$tools/venv/bin/python" -c 'import importlib.metadata as m, sys; print(m.version(sys.argv[1]))' "$1" 2>/dev/null || true
}
pypi_wanted=()
if $want_schema; then
  [ "$(pypi_version schemathesis)" = "$schemathesis_version" ] || pypi_wanted+=("schemathesis==$schemathesis_version")
  [ "$(pypi_version openapi-core)" = "$openapi_core_version" ] || pypi_wanted+=("openapi-core==$openapi_core_version")
fi
if [ ${#pypi_wanted[@]} -gt 0 ]; then
  say "installing ${pypi_wanted[*]} from PyPI (in the background)"
  background pypi bash -c 'venv=$1; shift; python3 -m venv "$venv" &&
    "$venv/bin/pip" install --quiet --disable-pip-version-check "$@"' \
    pypi "$tools/venv" "${pypi_wanted[@]}"
fi

if $want_run || $want_lint; then rust_target wasm32-unknown-unknown; fi
if $want_lint; then rust_target thumbv7em-none-eabihf; fi

# The cargo installs share one target folder so common dependencies build once.
export CARGO_TARGET_DIR="$tools/cargo-target"
# These tools' own run time is small beside the builds they drive, so they are built
# at opt-level 0 without debug info: wasm-bindgen-cli and worker-build compile in 215 s
# of CPU instead of 517 s at opt-level 1, and wasm-bindgen then takes 0.8 s instead of
# 0.25 s on the Worker's 2.4 MB wasm (same output). Only `cargo install` sees these settings.
cargo_install() {
  CARGO_PROFILE_RELEASE_OPT_LEVEL=0 CARGO_PROFILE_RELEASE_DEBUG=false \
    CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
    cargo install "$@" --root "$tools" --force --quiet
}
if $want_run; then
  bindgen_version=$(lock_version wasm-bindgen)
  if [ "$("$tools/bin/wasm-bindgen" --version 2>/dev/null | awk '{print $NF}')" != "$bindgen_version" ]; then
    say "installing wasm-bindgen-cli $bindgen_version (about a minute)"
    # Only the wasm-bindgen binary, without the TLS stack (rustls, ring) that the
    # default features add for the test runner's downloads.
    cargo_install wasm-bindgen-cli --version "$bindgen_version" --no-default-features --bin wasm-bindgen
  fi
  worker_version=$(lock_version worker)
  if [ "$("$tools/bin/worker-build" --version 2>/dev/null | awk '{print $NF}')" != "$worker_version" ]; then
    say "installing worker-build $worker_version (about 2 minutes)"
    cargo_install worker-build --version "$worker_version" --bin worker-build
  fi
fi

# cargo-fuzz for `make fuzz` (and the short pass in `make test`).
cargo_fuzz_version=0.13.1
if $want_fuzz && [ "$("$tools/bin/cargo-fuzz" --version 2>/dev/null | awk '{print $NF}')" != "$cargo_fuzz_version" ]; then
  say "installing cargo-fuzz $cargo_fuzz_version"
  cargo_install cargo-fuzz --version "$cargo_fuzz_version"
fi

failed=false
for i in "${!jobs_pids[@]}"; do
  if ! wait "${jobs_pids[$i]}"; then
    cat "$tools/${jobs_names[$i]}.log" >&2
    say "${jobs_names[$i]} install failed (log above, in .tools/${jobs_names[$i]}.log)"
    failed=true
  fi
done
if $failed; then exit 1; fi
say "tools ready"
