#!/usr/bin/env bash
# Runs make targets one after the other, timing each, and prints a table of the
# times at the end, whether the run passed or stopped at a failing step. The table
# also goes to build/step-times.txt, so a run's times can be read after it.
#   scripts/timed-steps.sh NAME TARGET...   (NAME heads the table: "make test")
set -uo pipefail
name=$1; shift
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$root/build"
table="$root/build/step-times.txt"
rows=() started=$(date +%s) status=0 failed=

report() {
  {
    printf '\n%s: step times (%s)\n' "$name" "$(date -u '+%Y-%m-%d %H:%M UTC')"
    printf '  %-22s %7s\n' step seconds
    for row in "${rows[@]}"; do printf '  %s\n' "$row"; done
    printf '  %-22s %7d\n' total $(( $(date +%s) - started ))
    if [ -n "$failed" ]; then printf '  stopped at %s (exit %d)\n' "$failed" "$status"; fi
  } | tee "$table"
}
trap report EXIT

for target in "$@"; do
  t0=$(date +%s)
  ${MAKE:-make} --no-print-directory "$target"
  status=$?
  rows+=("$(printf '%-22s %7d' "$target" $(( $(date +%s) - t0 )))")
  if [ $status -ne 0 ]; then failed=$target; exit $status; fi
done
