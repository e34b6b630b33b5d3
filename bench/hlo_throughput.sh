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

# Best of three runs: "wall_seconds cpu_seconds" (cpu = user + system, which a machine
# shared with other jobs inflates less than wall-clock time).
best() {
  local best_wall="" best_cpu="" line wall cpu
  for _ in 1 2 3; do
    line=$( { TIMEFORMAT='%3R %3U %3S'; time "$@" >/dev/null; } 2>&1 | tail -1)
    wall=$(echo "$line" | cut -d' ' -f1)
    cpu=$(echo "$line" | awk '{print $2 + $3}')
    if [[ -z $best_wall ]] || (($(echo "$wall < $best_wall" | bc -l))); then best_wall=$wall; fi
    if [[ -z $best_cpu ]] || (($(echo "$cpu < $best_cpu" | bc -l))); then best_cpu=$cpu; fi
  done
  echo "$best_wall $best_cpu"
}

rate() { if (($(echo "$1 > 0" | bc -l))); then echo "$bytes / $1 / 1000000" | bc -l; else echo 0; fi; }

read -r wc_wall wc_cpu < <(best wc -l "$module")
read -r axe_wall axe_cpu < <(best "$axe" hlo summary "@$module")
printf 'module: %d bytes, %s lines\n' "$bytes" "$(wc -l <"$module")"
printf '%-16s %9s %9s %11s %11s\n' "" "wall s" "cpu s" "MB/s wall" "MB/s cpu"
for tool in wc axe; do
  wall_var=${tool}_wall cpu_var=${tool}_cpu
  name=$([[ $tool == wc ]] && echo "wc -l" || echo "axe hlo summary")
  printf '%-16s %9.3f %9.3f %11.1f %11.1f\n' "$name" "${!wall_var}" "${!cpu_var}" \
    "$(rate "${!wall_var}")" "$(rate "${!cpu_var}")"
done
