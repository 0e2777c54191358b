#!/usr/bin/env bash
# Moves one city's update state between this machine and the R2 bucket that keeps
# it between scheduled runs (docs/REFRESH.md, .github/workflows/update.yml):
#
#   <code>/store.sqlite        the incident store       <-> build/store/<code>.sqlite
#   <code>/ledger.json         the intake ledger        <-> build/intake/<code>/ledger.json
#   <code>/manifest.json       the city's own manifest  <-> build/artifacts/manifest.json
#   <code>/history.json        its version history      <-> build/artifacts/history.json
#   data.tar.gz                the data directory (boundaries, roads; pull only)
#
#   scripts/state.sh pull|push CODE [--local [--persist-to DIR]] [--remote]
#
# The bucket is $HEXRISK_STATE_BUCKET (default hexrisk-state). A file missing from
# the bucket on pull is a first run: update then pulls in full and builds. The
# incident store is the one thing that cannot be had again from the services (a
# rolling layer forgets what aged out): push it after every update, failed or not.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
(($# >= 2)) || { echo "usage: state.sh pull|push CODE [--local|--remote]" >&2; exit 2; }
direction=$1 code=$2
shift 2
[[ $direction == pull || $direction == push ]] || { echo "state: pull or push, not $direction" >&2; exit 2; }
[[ $code =~ ^city_[a-z]{2}_[a-z0-9]+$ ]] || { echo "state: $code is not a city code" >&2; exit 2; }
where=(--local --persist-to "$root/.state/wrangler")
while (($#)); do
  case $1 in
    --local) ;;
    --persist-to) where=(--local --persist-to "$2"); shift ;;
    --remote) where=(--remote) ;;
    *) echo "state: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
bucket=${HEXRISK_STATE_BUCKET:-hexrisk-state}
files=(
  "$code/store.sqlite=build/store/$code.sqlite"
  "$code/ledger.json=build/intake/$code/ledger.json"
  "$code/manifest.json=build/artifacts/manifest.json"
  "$code/history.json=build/artifacts/history.json"
)
r2() { (cd "$root/edge-worker" && wrangler r2 object "$@" "${where[@]}" >/dev/null); }
if [[ $direction == pull ]]; then
  for pair in "${files[@]}" "data.tar.gz=build/data.tar.gz"; do
    key=${pair%%=*} file=$root/${pair#*=}
    mkdir -p "$(dirname "$file")"
    if r2 get "$bucket/$key" --file "$file.part" 2>/dev/null; then
      mv "$file.part" "$file"
      echo "pulled $key"
    else
      rm -f "$file.part"
      echo "no $key in $bucket: a first run"
    fi
  done
  if [[ -f $root/build/data.tar.gz ]]; then
    mkdir -p "$root/build/data" && tar -xzf "$root/build/data.tar.gz" -C "$root/build/data"
  fi
else
  # Push after update has exited: SQLite folds its write-ahead log into the store
  # file when the last connection closes, so the file alone is the whole store.
  for pair in "${files[@]}"; do
    key=${pair%%=*} file=$root/${pair#*=}
    if [[ -f $file ]]; then
      r2 put "$bucket/$key" --file "$file" --content-type application/octet-stream
      echo "pushed $key"
    fi
  done
fi
