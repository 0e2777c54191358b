#!/usr/bin/env bash
# Starts the edge Worker under `wrangler dev` and the demo page; stops both on Ctrl-C.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
state="$root/.state"
mkdir -p "$state"

node "$root/scripts/serve-demo.mjs" &
demo_pid=$!
trap 'kill "$demo_pid" 2>/dev/null || true' EXIT

cat <<MSG

  hexrisk is starting:
    prediction API  http://127.0.0.1:${PORT}/v1/health
    router API      http://127.0.0.1:${PORT}/health
    demo page       http://127.0.0.1:${DEMO_PORT}/
  Keys: none are needed yet (only the health endpoints are served).
  Stop with Ctrl-C.

MSG
cd "$root/edge-worker"
wrangler dev --ip 127.0.0.1 --port "$PORT" --persist-to "$state/wrangler" --show-interactive-dev-session=false
