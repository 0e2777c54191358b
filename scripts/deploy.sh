#!/usr/bin/env bash
# Deploys hexrisk to Cloudflare with wrangler (docs/DEPLOY.md says every step):
#   bash scripts/deploy.sh [--dry-run] [--skip-build]
# needs CLOUDFLARE_API_TOKEN and CLOUDFLARE_ACCOUNT_ID (not with --dry-run). It builds the
# Worker and the artifacts, checks the bundle and wrangler.toml, finds or creates the D1
# key store and writes build/wrangler.deploy.toml (wrangler.toml with its real id and
# production vars; the committed file is never edited), applies the D1 migrations, creates
# the R2 buckets that are missing, publishes the artifacts, deploys the Worker (its Durable
# Object migrations apply on deploy) and prints the commands that issue the first keys.
# Every step reuses what exists, so a second run changes only the code and the artifacts.
#
# --dry-run touches no Cloudflare resource: it prints the wrangler commands a deploy would
# run, writes the deploy config with a made-up database id (HEXRISK_D1_ID to choose one)
# and bundles it with `wrangler deploy --dry-run --outdir`. HEXRISK_DEPLOY_DIR moves the
# generated files (default build/); HEXRISK_WORKERS_PLAN=paid uses the Paid size budget;
# HEXRISK_D1_LOCATION passes a location hint (weur, enam, ...) when the database is created.
# HEXRISK_PORTAL_ORIGIN (`make deploy PORTAL_ORIGIN=https://host`) serves the partner
# portal at that public origin; without it the deployment has no portal.
# HEXRISK_WRANGLER and HEXRISK_PUBLISH replace wrangler and scripts/publish.sh (the tests
# run the whole script against a fake account that way: tests/deploy/).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

dry_run=0
build=1
for arg in "$@"; do
  case "$arg" in
    --dry-run) dry_run=1 ;;
    --skip-build) build=0 ;;
    -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "deploy: unknown option $arg (--dry-run, --skip-build)" >&2; exit 2 ;;
  esac
done

fail() { echo "deploy: $*" >&2; exit 1; }

# Nothing runs before the credentials are known to be there.
if [[ $dry_run == 0 ]]; then
  missing=()
  [[ -n ${CLOUDFLARE_API_TOKEN:-} ]] || missing+=(CLOUDFLARE_API_TOKEN)
  [[ -n ${CLOUDFLARE_ACCOUNT_ID:-} ]] || missing+=(CLOUDFLARE_ACCOUNT_ID)
  if ((${#missing[@]})); then
    fail "missing ${missing[*]}: export an API token (Workers Scripts, D1 and Workers R2 Storage: Edit) and the account id, see docs/DEPLOY.md#account-settings (or run with --dry-run)"
  fi
  [[ -f ${HEXRISK_PUBLISH:-scripts/publish.sh} ]] || fail "${HEXRISK_PUBLISH:-scripts/publish.sh} is missing: it uploads the artifacts to R2"
fi

export PATH="$root/node_modules/.bin:$root/.tools/bin:$PATH"
export WRANGLER_SEND_METRICS=false CLOUDFLARE_CF_FETCH_ENABLED=false
node="$root/node_modules/.bin/node"
[[ -x $node ]] || node=node
out_dir=${HEXRISK_DEPLOY_DIR:-$root/build}
config="$out_dir/wrangler.deploy.toml"
database=hexrisk-keys
wrangler=${HEXRISK_WRANGLER:-wrangler}
publish=${HEXRISK_PUBLISH:-scripts/publish.sh}
create_args=()
[[ -z ${HEXRISK_D1_LOCATION:-} ]] || create_args+=(--location "$HEXRISK_D1_LOCATION")

step() { printf '\n== %s\n' "$*"; }
# Runs a wrangler command in edge-worker/, or prints it under --dry-run.
wrangler_run() {
  if [[ $dry_run == 1 ]]; then
    printf 'would run: (cd edge-worker && wrangler'
    printf ' %q' "$@"
    printf ')\n'
  else
    (cd "$root/edge-worker" && "$wrangler" "$@")
  fi
}

if [[ $build == 1 ]]; then
  step "build: make worker artifacts"
  make --no-print-directory worker artifacts
fi

step "check: the bundle against the Workers limits, wrangler.toml against placeholders"
"$node" scripts/deploy-config.mjs check
"$node" scripts/check-deploy-bundle.mjs

step "D1: the key store $database"
if [[ $dry_run == 1 ]]; then
  wrangler_run d1 list --json
  wrangler_run d1 create "$database" "${create_args[@]}"
  echo "(the create runs only when the list lacks $database)"
  database_id=${HEXRISK_D1_ID:-$("$node" -e 'console.log(crypto.randomUUID())')}
  echo "(dry run: made-up database id $database_id)"
else
  database_id=$(cd edge-worker && "$wrangler" d1 list --json | "$node" "$root/scripts/deploy-config.mjs" d1-uuid "$database")
  if [[ -z $database_id ]]; then
    echo "creating D1 database $database"
    wrangler_run d1 create "$database" "${create_args[@]}"
    database_id=$(cd edge-worker && "$wrangler" d1 list --json | "$node" "$root/scripts/deploy-config.mjs" d1-uuid "$database")
    [[ -n $database_id ]] || fail "created $database but wrangler d1 list does not show it"
  else
    echo "reusing D1 database $database ($database_id)"
  fi
fi

step "config: $config (wrangler.toml with the database id and production vars)"
"$node" scripts/deploy-config.mjs write --database-id "$database_id" --portal-origin "${HEXRISK_PORTAL_ORIGIN:-}" --out "$config"

step "D1: migrations (edge-worker/migrations), remote"
CI=true wrangler_run d1 migrations apply "$database" --remote -c "$config"

step "R2: buckets"
mapfile -t buckets < <("$node" scripts/deploy-config.mjs r2-buckets --config "$config")
if ((${#buckets[@]} == 0)); then
  echo "no [[r2_buckets]] in wrangler.toml"
elif [[ $dry_run == 1 ]]; then
  wrangler_run r2 bucket list
  for bucket in "${buckets[@]}"; do wrangler_run r2 bucket create "$bucket"; done
  echo "(each create runs only when the list lacks the bucket)"
else
  listed=$(cd edge-worker && "$wrangler" r2 bucket list)
  for bucket in "${buckets[@]}"; do
    if "$node" scripts/deploy-config.mjs r2-has "$bucket" <<<"$listed"; then
      echo "reusing R2 bucket $bucket"
    else
      wrangler_run r2 bucket create "$bucket"
    fi
  done
fi

step "artifacts: $publish --remote (versioned files, then manifest.json)"
export HEXRISK_WRANGLER_CONFIG="$config"
if [[ $dry_run == 1 ]]; then
  echo "would run: bash $publish --remote"
else
  bash "$publish" --remote
fi

step "Worker: deploy (Durable Object migrations apply with it)"
if [[ $dry_run == 1 ]]; then
  wrangler_run deploy -c "$config"
  echo "dry run: wrangler deploy --dry-run --outdir $out_dir/deploy-dry-run"
  (cd edge-worker && wrangler deploy --dry-run --outdir "$out_dir/deploy-dry-run" -c "$config")
else
  wrangler_run deploy -c "$config"
fi

keys="node scripts/operator.mjs"
remote="--remote"
[[ $config == "$root/build/wrangler.deploy.toml" ]] || remote+=" --config $config"
cat <<MSG

  hexrisk is $([[ $dry_run == 1 ]] && echo "ready to deploy (dry run: nothing was deployed)" || echo deployed).
  Issue the first production keys (each printed once; the store keeps only digests):
    $keys issue $remote --kind live --label first-live
    $keys issue $remote --kind live --tier partner --label <partner> --origin https://<their site>
    $keys issue $remote --kind sandbox --label first-sandbox
  Check them, revoke one:
    $keys list $remote
    $keys revoke $remote --id <id>
  Roll back the code: (cd edge-worker && wrangler rollback); models: see docs/DEPLOY.md.
MSG
