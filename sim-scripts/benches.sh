#!/usr/bin/env bash
# Runs every RTL unit bench (testbench/*/files.f) in Verilator and Icarus and
# prints a summary.
#
#   sim-scripts/benches.sh [-s verilator|icarus] [-r SEED] [-j JOBS] [NAME...]
#
# -s runs one simulator only, -r sets the seed (default 1), NAME... runs only
# those benches. -j runs JOBS bench runs side by side (default: the number of
# CPUs, at most 4); each then builds with one compile job, so that a
# single-threaded Icarus run or Verilator's own (single-threaded) verilation
# never leaves a core idle. Runs start longest first, by the durations the
# last run recorded (build/bench/NAME/SIM/.secs; on a clean clone, by
# testbench/durations.txt), and their output is printed whole, one run at a
# time, as they finish.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
sims=(verilator icarus)
seed=1
ncpu=$(nproc 2>/dev/null || echo 1)
jobs=$(( ncpu < 4 ? ncpu : 4 ))
usage() { echo "usage: $0 [-s verilator|icarus] [-r seed] [-j jobs] [NAME...]" >&2; exit 2; }
while getopts "s:r:j:" opt; do
  case $opt in
    s) sims=("$OPTARG") ;;
    r) seed=$OPTARG ;;
    j) jobs=$OPTARG ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[[ $jobs =~ ^[1-9][0-9]*$ ]] || usage
if [ $# -gt 0 ]; then
  names=("$@")
else
  mapfile -t names < <(cd "$root/testbench" && ls -d */files.f 2>/dev/null | sed 's|/files.f||' | sort)
fi
[ ${#names[@]} -gt 0 ] || { echo "benches: none found under testbench/" >&2; exit 1; }

# every run, longest first: by the duration this machine's last run
# recorded, else by testbench/durations.txt (measured on a 2-core machine
# from a clean clone: what a first run goes by), else first of all
declare -A hint=()
if [ -f "$root/testbench/durations.txt" ]; then
  while read -r n s t _; do
    [[ $n = \#* || -z $n ]] || hint[$n $s]=$t
  done <"$root/testbench/durations.txt"
fi
runs=()
for name in "${names[@]}"; do
  for sim in "${sims[@]}"; do
    secs=$(cat "$root/build/bench/$name/$sim/.secs" 2>/dev/null || echo "${hint[$name $sim]:-100000}")
    runs+=("$secs $name $sim")
  done
done
mapfile -t runs < <(printf '%s\n' "${runs[@]}" | sort -k1,1nr -k2,2 -k3,3)
total=${#runs[@]}
bjobs=2
[ "$jobs" -gt 1 ] && bjobs=1

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
start=$SECONDS
fails=()
declare -A pid_run=()
done_n=0

# prints a finished run's output and records its result
reap() {
  local pid=$1 rc=$2
  local r=${pid_run[$pid]}
  unset "pid_run[$pid]"
  done_n=$((done_n + 1))
  printf '[%d/%d] ' "$done_n" "$total"
  cat "$tmp/$r.out"
  [ "$rc" -eq 0 ] || fails+=("${r/ /[}]")
}

for run in "${runs[@]}"; do
  read -r _ name sim <<<"$run"
  while [ ${#pid_run[@]} -ge "$jobs" ]; do
    wait -n -p pid
    rc=$?
    reap "$pid" "$rc"
  done
  (
    t0=$SECONDS
    "$root/sim-scripts/bench.sh" -q -j "$bjobs" -s "$sim" -r "$seed" "$name" >"$tmp/$name $sim.out" 2>&1
    rc=$?
    [ $rc -ne 0 ] || echo $((SECONDS - t0)) >"$root/build/bench/$name/$sim/.secs"
    exit $rc
  ) &
  pid_run[$!]="$name $sim"
done
while [ ${#pid_run[@]} -gt 0 ]; do
  wait -n -p pid
  rc=$?
  reap "$pid" "$rc"
done

if [ ${#fails[@]} -gt 0 ]; then
  echo "benches: FAILED: ${fails[*]}" >&2
  exit 1
fi
echo "benches: all $total runs passed in $((SECONDS - start)) s, $jobs at a time (${names[*]} x ${sims[*]}, seed $seed)"
