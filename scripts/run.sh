#!/usr/bin/env bash
# Publishes the built models to the local bucket and starts the edge Worker under
# `wrangler dev` and the demo page, with fresh demo keys; stops both on Ctrl-C. The forecasting clock is pinned to 2022-01-03, Toronto's first
# forecast week after its data (HEXRISK_CLOCK= to override, empty for real time).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
state="$root/.state/wrangler"
mkdir -p "$state"
clock=${HEXRISK_CLOCK-2022-01-03}

issue() { node "$root/scripts/operator.mjs" issue --state "$state" "$@" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).key))'; }
sandbox_key=$(issue --kind sandbox --label demo-sandbox --origin "http://127.0.0.1:${DEMO_PORT}" --origin "http://localhost:${DEMO_PORT}")
live_key=$(issue --kind live --label demo-live --origin "http://127.0.0.1:${DEMO_PORT}" --origin "http://localhost:${DEMO_PORT}")

# The operator's account (made on the first run) and a fresh link for its passkey.
operator_link=$(HEXRISK_PORTAL_ORIGIN="http://localhost:${PORT}" node "$root/scripts/operator.mjs" operator --email operator@localhost --state "$state" | sed -n 2p)

# The models go to the local R2 bucket the Worker reads (as make publish does), unless
# this very manifest is the one published there last (a restart with nothing rebuilt).
published="$state/published-manifest.json"
if cmp -s "$root/build/artifacts/manifest.json" "$published"; then
  echo "models: the local bucket already serves this manifest"
else
  bash "$root/scripts/publish.sh" --persist-to "$state"
  cp "$root/build/artifacts/manifest.json" "$published.tmp" && mv "$published.tmp" "$published"
fi

node "$root/scripts/serve-demo.mjs" &
demo_pid=$!
trap 'kill "$demo_pid" 2>/dev/null || true' EXIT

cat <<MSG

  hexrisk is starting:
    prediction API  http://127.0.0.1:${PORT}/v1   (health: /v1/health)
    router API      http://127.0.0.1:${PORT}/     (health: /health)
    map app         http://127.0.0.1:${DEMO_PORT}/  (the engine in the page; installable, and works with
                    no network once opened; with the online switch to the APIs:
                    http://127.0.0.1:${DEMO_PORT}/?api=http://127.0.0.1:${PORT}&key=${live_key}&clock=${clock})
    risk as map layers, one small page per library (tiles made in the page; add
                    ?api=http://127.0.0.1:${PORT}&key=${live_key} for the API's tiles):
                    http://127.0.0.1:${DEMO_PORT}/examples/maplibre.html?clock=${clock}
                    http://127.0.0.1:${DEMO_PORT}/examples/deckgl.html?clock=${clock}
                    http://127.0.0.1:${DEMO_PORT}/examples/openlayers.html?clock=${clock}
                    http://127.0.0.1:${DEMO_PORT}/examples/leaflet.html?clock=${clock}
    partner portal  http://localhost:${PORT}/portal   (apply and sign in with a passkey; approve an
                    application with: node scripts/operator.mjs partners, then approve --partner ID)
                    operator's passkey, once: ${operator_link}
  Demo keys (new on every start; the store keeps only their digests):
    sandbox  ${sandbox_key}
    live     ${live_key}
  Try:
    curl -H "Authorization: Bearer ${live_key}" -H 'Content-Type: application/json' \\
      -d '{"latitude":43.6532,"longitude":-79.3832}' http://127.0.0.1:${PORT}/v1/predict
    curl -H "X-API-Key: ${live_key}" -H 'Content-Type: application/json' \\
      -d '{"origin":{"lat":43.6453,"lng":-79.3806},"destination":{"lat":43.6645,"lng":-79.4206}}' \\
      http://127.0.0.1:${PORT}/route
  Forecast clock: ${clock:-real time}. Stop with Ctrl-C.

MSG
cd "$root/edge-worker"
wrangler dev --ip 127.0.0.1 --port "$PORT" --persist-to "$state" --show-interactive-dev-session=false \
  --var "HEXRISK_CLOCK:${clock}" --var "HEXRISK_PORTAL_ORIGIN:http://localhost:${PORT}"
