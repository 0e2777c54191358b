#!/usr/bin/env bash
# Publishes a model version to the Worker's R2 bucket (binding MODELS): every artifact
# file the manifest names, the manifest's copy under manifests/, and manifest.json
# last, so a Worker that rereads the manifest always finds complete files. Artifact
# files are immutable (named by data-through date and digest), so uploading one again
# changes nothing.
#
#   scripts/publish.sh [--local [--persist-to DIR]] [--remote] [--artifacts DIR]
#                      [--manifest FILE] [--partial]
#
# --local (default) writes the bucket of `wrangler dev --persist-to DIR` (default
# .state/wrangler, as make run); --remote the deployed bucket (with the config deploy
# writes, $HEXRISK_WRANGLER_CONFIG). --manifest publishes another manifest of the
# artifacts folder, for example manifests/<version>.json to roll back. --partial
# publishes a manifest merged from the published one (hexrisk-build merge-manifests,
# the scheduled workflow): a file it names that is not in the artifacts folder is
# taken to be in the bucket already; every file that is there is checked as usual.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
where=(--local --persist-to "$root/.state/wrangler")
artifacts="$root/build/artifacts"
manifest=""
partial=0
while (($#)); do
  case $1 in
    --local) where=(--local --persist-to "${where[2]:-$root/.state/wrangler}") ;;
    --persist-to) where=(--local --persist-to "$(cd "$2" 2>/dev/null && pwd || echo "$2")"); shift ;;
    --remote) where=(--remote) ;;
    --artifacts) artifacts=$(cd "$2" && pwd); shift ;;
    --manifest) manifest=$2; shift ;;
    --partial) partial=1 ;;
    *) echo "publish: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
manifest=${manifest:-$artifacts/manifest.json}
[[ -f $manifest ]] || { echo "publish: no manifest at $manifest (run make artifacts)" >&2; exit 1; }
config=()
if [[ ${where[0]} == --remote && -n ${HEXRISK_WRANGLER_CONFIG:-} ]]; then
  config=(--config "$HEXRISK_WRANGLER_CONFIG")
fi
bucket=hexrisk-models

# The files the manifest names, checked against its sizes and digests before any upload.
mapfile -t files < <(node - "$manifest" "$artifacts" "$partial" <<'JS'
const { existsSync, readFileSync } = require('node:fs');
const { createHash } = require('node:crypto');
const path = require('node:path');
const [manifestPath, dir, partial] = process.argv.slice(2);
const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
// Each city's artifact and, when the build wrote one, its grid file (the version
// without its road network, which the map app opens first).
for (const entry of manifest.cities.flatMap((city) => [city, city.grid].filter(Boolean))) {
  if (partial === '1' && !existsSync(path.join(dir, entry.file))) continue;
  const bytes = readFileSync(path.join(dir, entry.file));
  const digest = createHash('sha256').update(bytes).digest('hex');
  if (bytes.length !== entry.bytes || digest !== entry.sha256) {
    console.error(`publish: ${entry.file} does not match the manifest; nothing was uploaded`);
    process.exit(1);
  }
  console.log(entry.file);
}
console.log(`manifests/${manifest.version}.json`);
JS
)
version=${files[-1]#manifests/}
version=${version%.json}

put() {
  (cd "$root/edge-worker" && wrangler r2 object put "$bucket/$1" --file "$2" \
    --content-type "$3" "${where[@]}" "${config[@]}" >/dev/null)
}
# The artifact files in one wrangler run (`r2 bulk put`, uploads side by side): each
# run of wrangler costs a second or two of starting, whatever it uploads.
artifact_files=("${files[@]::${#files[@]}-1}")
if ((${#artifact_files[@]})); then
  list=$(mktemp)
  trap 'rm -f "$list"' EXIT
  node -e 'const [out, dir, ...keys] = process.argv.slice(1);
    const objects = keys.map((key) => ({ key, file: require("node:path").join(dir, key) }));
    require("node:fs").writeFileSync(out, JSON.stringify(objects));' "$list" "$artifacts" "${artifact_files[@]}"
  (cd "$root/edge-worker" && wrangler r2 bulk put "$bucket" --filename "$list" \
    --content-type application/octet-stream "${where[@]}" "${config[@]}" >/dev/null)
fi
# The manifests after every file they name, manifest.json last.
put "manifests/$version.json" "$manifest" application/json
put manifest.json "$manifest" application/json
echo "published model version $version (${#files[@]} files) to $bucket ${where[*]}"
