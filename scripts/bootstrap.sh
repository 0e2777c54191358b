#!/usr/bin/env bash
# Installs every tool the build and the tests need, each only when it is missing
# or at the wrong version, into git-ignored folders of the repository:
#   .tools/bin     wasm-bindgen (the version in Cargo.lock), worker-build, cargo-fuzz
#   .tools/venv    schemathesis
#   node_modules   Node 22, wrangler, binaryen (wasm-opt), h3-js, playwright-core, sirv
# plus the wasm32 Rust target and, with --browser, Debian's chromium (as root).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
tools="$root/.tools"
mkdir -p "$tools/bin"

want_browser=false
want_wrk=false
for arg in "$@"; do
  case "$arg" in
    --browser) want_browser=true ;;
    --wrk) want_wrk=true ;;
    *) echo "bootstrap: unknown option $arg" >&2; exit 2 ;;
  esac
done

say() { printf 'bootstrap: %s\n' "$*"; }

lock_version() { # version of a package in Cargo.lock
  awk -v name="$1" '$0 == "name = \"" name "\"" { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock
}

apt_packages=()
if $want_browser && ! [ -x /usr/bin/chromium ]; then apt_packages+=(chromium); fi
if $want_wrk && ! command -v wrk >/dev/null; then apt_packages+=(wrk); fi
apt_pid=
if [ ${#apt_packages[@]} -gt 0 ]; then
  say "installing ${apt_packages[*]} from Debian (in the background)"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${apt_packages[@]}" >/dev/null) \
    > "$tools/apt.log" 2>&1 &
  apt_pid=$!
fi

# npm packages: reinstall only when package-lock.json changed since the last install.
if ! [ -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  say "installing npm packages from package-lock.json"
  # Not `npm ci`: npm leaves other platforms' optional workerd packages out of the
  # lock file and then refuses it; `install --no-save` follows the lock as written.
  npm install --no-save --no-audit --no-fund --loglevel=error
fi

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32-unknown-unknown Rust target"
  rustup target add wasm32-unknown-unknown
fi

# The cargo installs share one target folder so common dependencies build once.
export CARGO_TARGET_DIR="$tools/cargo-target"
# These tools' own run time is small beside the builds they drive, so they are built
# at opt-level 1 without debug info: a fifth less time on a cold machine (measured on
# worker-build: 235 s against 293 s). Only `cargo install` sees these settings.
cargo_install() {
  CARGO_PROFILE_RELEASE_OPT_LEVEL=1 CARGO_PROFILE_RELEASE_DEBUG=false \
    CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
    cargo install "$@" --root "$tools" --force --quiet
}
bindgen_version=$(lock_version wasm-bindgen)
if [ "$("$tools/bin/wasm-bindgen" --version 2>/dev/null | awk '{print $NF}')" != "$bindgen_version" ]; then
  say "installing wasm-bindgen-cli $bindgen_version (about 3 minutes)"
  cargo_install wasm-bindgen-cli --version "$bindgen_version"
fi
# schemathesis (PyPI) for the schema-driven API tests, pinned, in a venv of its own.
schemathesis_version=4.32.5
if [ "$("$tools/venv/bin/schemathesis" --version 2>/dev/null | awk '{print $NF}')" != "$schemathesis_version" ]; then
  say "installing schemathesis $schemathesis_version from PyPI"
  python3 -m venv "$tools/venv"
  "$tools/venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$schemathesis_version"
fi

# cargo-fuzz for `make fuzz` (and the short pass in `make test`).
cargo_fuzz_version=0.13.1
if [ "$("$tools/bin/cargo-fuzz" --version 2>/dev/null | awk '{print $NF}')" != "$cargo_fuzz_version" ]; then
  say "installing cargo-fuzz $cargo_fuzz_version"
  cargo_install cargo-fuzz --version "$cargo_fuzz_version"
fi

worker_version=$(lock_version worker)
if [ "$("$tools/bin/worker-build" --version 2>/dev/null | awk '{print $NF}')" != "$worker_version" ]; then
  say "installing worker-build $worker_version (about 4 minutes)"
  cargo_install worker-build --version "$worker_version"
fi

if [ -n "$apt_pid" ]; then
  if ! wait "$apt_pid"; then
    cat "$tools/apt.log" >&2
    say "apt-get install ${apt_packages[*]} failed"
    exit 1
  fi
fi
say "tools ready"
