#!/usr/bin/env bash
# The hardware half of `make test`, as one pool of single-threaded jobs
# (sim-scripts/jobs.sh: as many at a time as CPUs, longest first): lint,
# synthesis (its coarse check, synth.sh -c; `make synth` maps to gates),
# every RTL unit bench in both simulators (the short variants
# under Icarus, benches.sh -S), the firmware's native
# tests, and the co-simulation models the Go tests use (VCD and FST builds,
# the echo server). One pool keeps every core busy without running more
# jobs than cores (Yosys, Icarus and Verilator's own passes are
# single-threaded). The benches keep the waveforms internal/vcd's tests read
# in build/bench-dumps/ (benches.sh -W; emptied first, so that only this
# run's are there): make test's Go half reads them (VIANIC_BENCH_DUMPS)
# instead of simulating those benches again.
#
#   sim-scripts/test-hw.sh [-j JOBS]
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
jobs=()
while getopts "j:" opt; do
  case $opt in
    j) jobs=(-j "$OPTARG") ;;
    *) echo "usage: $0 [-j jobs]" >&2; exit 2 ;;
  esac
done
q=$(printf '%q' "$root")
dumps=$root/build/bench-dumps
rm -rf "$dumps"
mkdir -p "$dumps"
{
  echo "0 lint $q/sim-scripts/lint.sh"
  echo "0 synth $q/sim-scripts/synth.sh -c"
  echo "0 synth-blocks $q/sim-scripts/synth-blocks.sh"
  echo "0 firmware make --no-print-directory -C $q/firmware test"
  echo "0 sim-vcd $q/sim-scripts/build-sim.sh -j 1 vcd"
  echo "0 sim-fst $q/sim-scripts/build-sim.sh -j 1 fst"
  echo "0 sim-echo $q/sim-scripts/build-sim.sh echo"
  "$root/sim-scripts/benches.sh" -S -W "$dumps" -l
} | "$root/sim-scripts/jobs.sh" "${jobs[@]}" -n "lint, synth, benches, firmware, simulator"
