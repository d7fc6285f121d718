#!/usr/bin/env bash
# Instructions the model executes per node and cycle, counted (not timed):
# runs `vianic bench vi -quick -nobridge` on the simulator under
# valgrind's callgrind, counting only inside the model's evaluation
# (Vvia_node::eval_step), and prints the count per evaluation (one
# evaluation per node and cycle without a waveform). The count repeats to
# within a few evaluations whatever else the machine does, so it can
# compare two versions of the RTL where wall-clock rates cannot; the
# time per cycle follows it roughly (docs/performance.md).
#
#   sim-scripts/count-instr.sh [-b SIM_BINARY]
#
# -b the simulator to count (default build/sim/vcd/vianic-sim, built if
# missing). Needs valgrind (Debian: valgrind). About two minutes. Not
# part of `make test`.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
bin=
while getopts "b:h" opt; do
  case $opt in
    b) bin=$OPTARG ;;
    *) echo "usage: $0 [-b SIM_BINARY]" >&2; exit 2 ;;
  esac
done
command -v valgrind >/dev/null 2>&1 || { echo "count-instr: valgrind not found (Debian: apt-get install valgrind)" >&2; exit 1; }
if [ -z "$bin" ]; then
  "$root/sim-scripts/build-sim.sh" -q vcd
  bin=$root/build/sim/vcd/vianic-sim
fi
[ -x "$bin" ] || { echo "count-instr: $bin is not an executable" >&2; exit 1; }
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/sim" <<EOF
#!/bin/sh
exec valgrind --tool=callgrind --callgrind-out-file=$work/cg.%p --collect-atstart=no \
  --toggle-collect='Vvia_node::eval_step*' "$bin" --threads 1 "\$@"
EOF
chmod +x "$work/sim"
(cd "$root" && go build -o "$work/vianic" ./cmd/vianic)
echo "count-instr: running 'vianic bench vi -quick -nobridge' under callgrind (about two minutes)..."
if ! (cd "$root" && VIANIC_SIM=$work/sim "$work/vianic" bench vi -quick -nobridge >"$work/bench.out" 2>&1); then
  tail -n 20 "$work/bench.out" >&2
  echo "count-instr: the bench failed" >&2
  exit 1
fi
# the bench starts two simulators: the traffic's, then the --quantum one
n=0
for f in $(ls -tr "$work"/cg.* 2>/dev/null); do
  n=$((n + 1))
  tot=$(awk '/^totals:/ {print $2}' "$f")
  evals=$(awk '/^fn=.*Vvia_node::eval_step/ {f = 1} f && /^calls=/ {split($1, a, "="); print a[2]; exit}' "$f")
  [ -n "$tot" ] && [ -n "$evals" ] && [ "$evals" -gt 0 ] || { echo "count-instr: no evaluations counted in $f" >&2; exit 1; }
  label="simulator $n"
  [ $n -eq 1 ] && label="every cycle"
  [ $n -eq 2 ] && label="--quantum 25"
  printf 'count-instr: %-12s %d instructions in %d evaluations: %d per node and cycle\n' "$label" "$tot" "$evals" $((tot / evals))
done
[ $n -gt 0 ] || { echo "count-instr: callgrind wrote no profile" >&2; exit 1; }
