#!/usr/bin/env bash
# Runs jobs side by side, a fixed number at a time, longest first, and
# prints each job's output whole when it finishes.
#
#   sim-scripts/jobs.sh [-j JOBS] [-n NAME] < JOBLIST
#
# JOBLIST has one job per line: "SECONDS LABEL COMMAND...", where SECONDS is
# the expected duration (the order: longest first; ties in list order),
# LABEL names the job (no spaces) and COMMAND is run by bash. A job that
# succeeds records its duration in build/jobs/LABEL.secs; the order goes by
# that, else by sim-scripts/durations.txt ("LABEL SECONDS" lines measured
# on a 2-core machine from a clean clone: what a first run goes by), else by
# the list's SECONDS. -j defaults to the number of CPUs (at
# most 4); the jobs should be single-threaded, so that JOBS of them keep
# that many cores busy and no more. Exits non-zero, naming the failed jobs,
# if any failed; the others still run. -n names the set in the summary.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ncpu=$(nproc 2>/dev/null || echo 1)
jobs=$(( ncpu < 4 ? ncpu : 4 ))
set_name=jobs
while getopts "j:n:" opt; do
  case $opt in
    j) jobs=$OPTARG ;;
    n) set_name=$OPTARG ;;
    *) echo "usage: $0 [-j jobs] [-n name] < joblist" >&2; exit 2 ;;
  esac
done
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "jobs: -j wants a positive number" >&2; exit 2; }
mkdir -p "$root/build/jobs"

declare -A hint=()
if [ -f "$root/sim-scripts/durations.txt" ]; then
  while read -r l t _; do
    [[ -z $l || $l = \#* ]] || hint[$l]=$t
  done <"$root/sim-scripts/durations.txt"
fi
list=()
i=0
while read -r secs label cmd; do
  [ -n "${secs:-}" ] || continue
  [[ $secs =~ ^[0-9]+$ && $label =~ ^[A-Za-z0-9_.-]+$ && -n ${cmd:-} ]] || {
    echo "jobs: bad job line '$secs ${label:-} ${cmd:-}' (want: SECONDS LABEL COMMAND...)" >&2
    exit 2
  }
  known=$(cat "$root/build/jobs/$label.secs" 2>/dev/null || echo "${hint[$label]:-$secs}")
  [[ $known =~ ^[0-9]+$ ]] || known=0
  list+=("$(printf '%08d %05d' $((99999999 - known)) "$i")"$'\t'"$label"$'\t'"$cmd")
  i=$((i + 1))
done
total=${#list[@]}
[ "$total" -gt 0 ] || { echo "jobs: no jobs" >&2; exit 2; }
mapfile -t list < <(printf '%s\n' "${list[@]}" | sort -t $'\t' -k1,1)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
start=$SECONDS
fails=()
declare -A pid_label=()
done_n=0

reap() {
  local pid=$1 rc=$2
  local label=${pid_label[$pid]}
  unset "pid_label[$pid]"
  done_n=$((done_n + 1))
  printf '[%d/%d] ' "$done_n" "$total"
  cat "$tmp/$label.out"
  [ "$rc" -eq 0 ] || { fails+=("$label"); echo "jobs: $label FAILED (exit $rc)"; }
}

for entry in "${list[@]}"; do
  IFS=$'\t' read -r _ label cmd <<<"$entry"
  while [ ${#pid_label[@]} -ge "$jobs" ]; do
    wait -n -p pid
    rc=$?
    reap "$pid" "$rc"
  done
  (
    t0=$SECONDS
    bash -c "$cmd" >"$tmp/$label.out" 2>&1
    rc=$?
    [ $rc -ne 0 ] || echo $((SECONDS - t0)) >"$root/build/jobs/$label.secs"
    exit $rc
  ) &
  pid_label[$!]=$label
done
while [ ${#pid_label[@]} -gt 0 ]; do
  wait -n -p pid
  rc=$?
  reap "$pid" "$rc"
done

if [ ${#fails[@]} -gt 0 ]; then
  echo "$set_name: FAILED: ${fails[*]}" >&2
  exit 1
fi
echo "$set_name: all $total passed in $((SECONDS - start)) s, $jobs at a time"
