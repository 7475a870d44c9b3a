#!/usr/bin/env bash
# Alternates `bench/batch-bench.ts N --api python --no-reference` between checkouts of geo-reports (each a folder
# with its node_modules), round after round, and prints one table row per run with the load average beside it.
#   bench/compare-releases.sh [--rounds 2] [--projects 50] label=/path/to/checkout label=/path/to/checkout ...
# e.g. bench/compare-releases.sh previous=/tmp/rel-6737151 main=/tmp/main this=.
set -euo pipefail
rounds=2
projects=50
checkouts=()
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds="$2"; shift 2 ;;
    --projects) projects="$2"; shift 2 ;;
    *=*) checkouts+=("$1"); shift ;;
    *) echo "Unknown argument: $1 (expected label=/path/to/checkout, --rounds N or --projects N)" >&2; exit 2 ;;
  esac
done
if [ ${#checkouts[@]} -eq 0 ]; then
  echo "Name at least one checkout: label=/path/to/checkout (a folder of geo-reports with node_modules)" >&2
  exit 2
fi
log=$(mktemp -d)
echo "| date (UTC) | load (1 min) before | release | end to end | CPU per report: Node + Chromium | end to end / floor | contents prints / reports |"
echo "|---|---|---|---|---|---|---|"
for round in $(seq 1 "$rounds"); do
  for entry in "${checkouts[@]}"; do
    label="${entry%%=*}"
    dir="${entry#*=}"
    out="$log/$label-$round.txt"
    (cd "$dir" && node --import tsx bench/batch-bench.ts "$projects" --api python --no-reference >"$out" 2>&1) || {
      echo "| $(date -u +%H:%M) | | $label | failed: see $out | | | |"
      continue
    }
    load=$(sed -n 's/.*load average (1, 5, 15 min): \([0-9.]*\).*/\1/p' "$out")
    e2e=$(sed -n 's/.*end to end: \([0-9.]* s\).*/\1/p' "$out" | head -1)
    node=$(sed -n 's/.*cpu per report: node \([0-9]*\) ms.*/\1/p' "$out")
    chromium=$(sed -n 's/.*· chromium \([0-9]*\) ms.*/\1/p' "$out")
    floor=$(sed -n 's/.*end to end \/ floor: \([0-9.]*\).*/\1/p' "$out")
    books=$(sed -n 's/.*contents page: \([0-9]*\) reports with sections to list, \([0-9]*\) prints.*/\2 \/ \1/p' "$out")
    echo "| $(date -u +%H:%M) | $load | $label | $e2e | $node + $chromium ms | $floor | ${books:-not counted} |"
  done
done
echo "Full outputs: $log" >&2
