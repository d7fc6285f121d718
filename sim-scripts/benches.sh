#!/usr/bin/env bash
# Runs every RTL unit bench (testbench/*/files.f) in Verilator and Icarus and
# prints a summary.
#
#   sim-scripts/benches.sh [-s verilator|icarus] [-r SEED] [-j JOBS] [-S] [-l] [-W DIR] [NAME...]
#
# -s runs one simulator only, -r sets the seed (default 1), NAME... runs only
# those benches. -S passes +short to the Icarus runs: the benches that have
# a short variant (via_dma_diag, via_fabric, via_vi_rx, via_vi_tx, via_cq,
# via_evt, via_axi_mux, via_desc_pipe, via_vi_queues: fewer steps of their
# longest random phases) run it there, the others ignore it; make test
# uses it (the Verilator runs stay whole; Icarus is 50 to 100 times slower). The runs go through sim-scripts/jobs.sh: JOBS at a time
# (default: the number of CPUs, at most 4), longest first, each Verilator
# build with one compile job, so that single-threaded Icarus runs and
# Verilator's own passes never leave a core idle; each run's output is
# printed whole as it finishes. -l prints the job list instead of running it
# (sim-scripts/test-hw.sh runs the benches in one pool with the other jobs).
# -W DIR keeps the +short waveforms that internal/vcd's tests read (the
# runs named in kept_dumps below; bench.sh -W) in DIR: make test points
# those tests at them (VIANIC_BENCH_DUMPS) instead of their simulating the
# same benches again.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
sims=(verilator icarus)
seed=1
jobs=()
list_only=0
short=0
keep_dir=""
# the bench runs whose waveforms internal/vcd's tests read (hdl_test.go's
# benchVCD: seed 1, +short): TestRTLBenchHandshakes (via_dma_diag in both
# simulators), TestSaveFilesMatchDumps and TestWaveShot (via_nic, and
# via_dma_diag, in Verilator)
kept_dumps=" via_dma_diag-verilator via_dma_diag-icarus via_nic-verilator "
usage() { echo "usage: $0 [-s verilator|icarus] [-r seed] [-j jobs] [-S] [-l] [-W dir] [NAME...]" >&2; exit 2; }
while getopts "s:r:j:SlW:" opt; do
  case $opt in
    W) keep_dir=$(realpath -m "$OPTARG") ;;
    s) sims=("$OPTARG") ;;
    r) seed=$OPTARG ;;
    j) jobs=(-j "$OPTARG") ;;
    S) short=1 ;;
    l) list_only=1 ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[[ $seed =~ ^[0-9]+$ ]] || usage
if [ $# -gt 0 ]; then
  names=("$@")
else
  mapfile -t names < <(cd "$root/testbench" && ls -d */files.f 2>/dev/null | sed 's|/files.f||' | sort)
fi
[ ${#names[@]} -gt 0 ] || { echo "benches: none found under testbench/" >&2; exit 1; }
for name in "${names[@]}"; do
  [[ $name =~ ^[A-Za-z0-9_]+$ ]] || { echo "benches: bad bench name '$name'" >&2; exit 2; }
done

q=$(printf '%q' "$root")
joblist() {
  for name in "${names[@]}"; do
    for sim in "${sims[@]}"; do
      extra=
      [ $short -eq 1 ] && [ "$sim" = icarus ] && extra=" -a +short"
      # (the kept dumps are seed 1's, the seed of internal/vcd's runs)
      [ -n "$keep_dir" ] && [ "$seed" = 1 ] && [[ $kept_dumps == *" $name-$sim "* ]] && extra+=" -W $(printf '%q' "$keep_dir")"
      echo "0 bench-$name-$sim $q/sim-scripts/bench.sh -q -j 1 -s $sim -r $seed$extra $name"
    done
  done
}
if [ $list_only -eq 1 ]; then
  joblist
  exit 0
fi
joblist | "$root/sim-scripts/jobs.sh" "${jobs[@]}" -n "benches (${names[*]} x ${sims[*]}, seed $seed)"
