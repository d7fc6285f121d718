#!/usr/bin/env bash
# Runs every RTL unit bench (testbench/*/files.f) in Verilator and Icarus and
# prints a summary. Options: -s SIM to run one simulator, -r SEED, NAME... to
# run only those benches.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
sims=(verilator icarus)
seed=1
while getopts "s:r:" opt; do
  case $opt in
    s) sims=("$OPTARG") ;;
    r) seed=$OPTARG ;;
    *) echo "usage: $0 [-s verilator|icarus] [-r seed] [NAME...]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
if [ $# -gt 0 ]; then
  names=("$@")
else
  mapfile -t names < <(cd "$root/testbench" && ls -d */files.f 2>/dev/null | sed 's|/files.f||' | sort)
fi
[ ${#names[@]} -gt 0 ] || { echo "benches: none found under testbench/" >&2; exit 1; }

fails=()
total=$(( ${#names[@]} * ${#sims[@]} ))
n=0
for name in "${names[@]}"; do
  for sim in "${sims[@]}"; do
    n=$((n + 1))
    printf '[%d/%d] ' "$n" "$total"
    "$root/sim-scripts/bench.sh" -q -s "$sim" -r "$seed" "$name" || fails+=("$name[$sim]")
  done
done
if [ ${#fails[@]} -gt 0 ]; then
  echo "benches: FAILED: ${fails[*]}" >&2
  exit 1
fi
echo "benches: all $total runs passed (${names[*]} x ${sims[*]}, seed $seed)"
