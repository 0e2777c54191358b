#!/usr/bin/env bash
# Times `make run` as a newcomer runs it: a fresh clone of this repository's HEAD in a
# temporary folder, ../shared beside it, empty cargo and npm caches (as in
# bench/fresh-clone.sh), until `GET /v1/health` answers on $PORT; then stops it and
# times a second `make run` in the same clone the same way.
#
#   bash bench/fresh-run.sh
#
# Rust targets and Debian packages already on the machine are reused; remove them
# first for a figure from a machine that has none (bench/fresh-clone.sh says how).
set -euo pipefail
# shellcheck source=bench/fresh-env.sh
source "$(dirname "$0")/fresh-env.sh" run
export PORT=${PORT:-8787}
for run in cold again; do
  start=$(date +%s)
  setsid make run > "$dir/make-run-$run.log" 2>&1 &
  pid=$!
  until curl -fs "http://127.0.0.1:$PORT/v1/health" > /dev/null; do
    kill -0 "$pid" 2> /dev/null || { tail -40 "$dir/make-run-$run.log"; exit 1; }
    sleep 1
  done
  echo "make run, $run: serving after $(($(date +%s) - start)) s"
  kill -- "-$pid" 2> /dev/null || true
  wait "$pid" 2> /dev/null || true
done
