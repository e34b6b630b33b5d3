#!/usr/bin/env bash
# Times `axe hlo summary` on a generated ~50 MB partitioned module against `wc -l` reading
# the same file, and prints MB/s for both (docs/performance.md quotes the numbers).
#
#   bench/hlo_throughput.sh [AXE_BINARY] [MB]
set -euo pipefail
axe=${1:-build/release/tools/axe/axe}
mb=${2:-50}
here=$(cd "$(dirname "$0")" && pwd)
module=$(mktemp --suffix=.hlo)
trap 'rm -f "$module"' EXIT
python3 "$here/gen_hlo_module.py" --mb "$mb" >"$module"
bytes=$(stat -c %s "$module")

# Best of three wall-clock runs, in seconds.
best() {
  local best_s=""
  for _ in 1 2 3; do
    local start end s
    start=$(date +%s.%N)
    "$@" >/dev/null
    end=$(date +%s.%N)
    s=$(echo "$end - $start" | bc -l)
    if [[ -z $best_s ]] || (($(echo "$s < $best_s" | bc -l))); then best_s=$s; fi
  done
  echo "$best_s"
}

wc_s=$(best wc -l "$module")
axe_s=$(best "$axe" hlo summary "@$module")
printf 'module: %d bytes (%s lines)\n' "$bytes" "$(wc -l <"$module")"
printf 'wc -l:            %8.3f s  %8.1f MB/s\n' "$wc_s" "$(echo "$bytes / $wc_s / 1e6" | bc -l)"
printf 'axe hlo summary:  %8.3f s  %8.1f MB/s\n' "$axe_s" "$(echo "$bytes / $axe_s / 1e6" | bc -l)"
