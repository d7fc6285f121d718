#!/usr/bin/env bash
# Where the simulator's time goes, by RTL block: builds a profiling variant of
# the simulator (Verilator --prof-cfuncs: one C++ function per always block
# and assign, named after the module and line; -fno-inline keeps them apart),
# runs `vianic bench vi` on it with one evaluation thread, samples the
# simulator with `perf` while both nodes run the data-path traffic, and
# prints the share of the model's time per module and per source line.
#
#   sim-scripts/profile-sim.sh [-s SECONDS] [-n LINES] [-o OUT_DIR]
#
# -s sampling time (default 8), -n source lines listed (default 25), -o
# where the variant is built (default build/prof). Needs perf (Debian:
# linux-perf) and permission to sample (kernel.perf_event_paranoid <= 1, or
# root). Not part of `make test`; the figures are in docs/performance.md.
# The shares are of the model's evaluation only (the harness, the kernel and
# the bench's client are left out); the split into functions makes each
# block a little more expensive, so compare blocks with each other, not with
# the normal build's cycle rate.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
secs=8
lines=25
out=$root/build/prof
while getopts "s:n:o:h" opt; do
  case $opt in
    s) [[ $OPTARG =~ ^[1-9][0-9]*$ ]] || { echo "profile-sim: -s takes seconds" >&2; exit 2; }; secs=$OPTARG ;;
    n) [[ $OPTARG =~ ^[1-9][0-9]*$ ]] || { echo "profile-sim: -n takes a count" >&2; exit 2; }; lines=$OPTARG ;;
    o) mkdir -p "$OPTARG" && out=$(cd "$OPTARG" && pwd) ;;
    *) echo "usage: $0 [-s SECONDS] [-n LINES] [-o OUT_DIR]" >&2; exit 2 ;;
  esac
done
command -v perf >/dev/null 2>&1 || { echo "profile-sim: perf not found (Debian: apt-get install linux-perf)" >&2; exit 1; }

work=$(mktemp -d)
bench_pid=
cleanup() {
  if [ -n "$bench_pid" ]; then
    kill "$bench_pid" 2>/dev/null || true
    pkill -f "$out/vcd/vianic-sim" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
echo "profile-sim: building the profiling variant in $out (a few minutes the first time)..."
"$root/sim-scripts/build-sim.sh" -q -P -o "$out" vcd

cat >"$work/sim" <<EOF
#!/bin/sh
exec "$out/vcd/vianic-sim" --threads 1 "\$@"
EOF
chmod +x "$work/sim"
(cd "$root" && go build -o "$work/vianic" ./cmd/vianic)

echo "profile-sim: running 'vianic bench vi' on it; sampling ${secs} s of the two-node traffic..."
VIANIC_SIM=$work/sim "$work/vianic" bench vi -nobridge >"$work/bench.out" 2>&1 &
bench_pid=$!
for _ in $(seq 600); do
  grep -q "traffic on both nodes" "$work/bench.out" && break
  kill -0 "$bench_pid" 2>/dev/null || { cat "$work/bench.out" >&2; echo "profile-sim: the bench ended early" >&2; exit 1; }
  sleep 0.2
done
grep -q "traffic on both nodes" "$work/bench.out" || { echo "profile-sim: the bench did not reach the traffic" >&2; exit 1; }
sim_pid=$(pgrep -n -f "$out/vcd/vianic-sim") || { echo "profile-sim: simulator not found" >&2; exit 1; }
# (perf ends early, with a non-zero status, when the simulator exits first)
perf record -q -o "$work/perf.data" -p "$sim_pid" -- sleep "$secs" >"$work/perf.log" 2>&1 || true
[ -s "$work/perf.data" ] || { cat "$work/perf.log" >&2; echo "profile-sim: perf record failed (permissions? see kernel.perf_event_paranoid)" >&2; exit 1; }
kill "$bench_pid" 2>/dev/null || true
pkill -f "$out/vcd/vianic-sim" 2>/dev/null || true
wait "$bench_pid" 2>/dev/null || true
bench_pid=

# the model's functions: Vvia_nic* and Verilator's runtime helpers (VL_*,
# Vl*); a PROF function's name ends in PROF__<module>__l<line>
perf report -i "$work/perf.data" --no-children --sort symbol --stdio 2>/dev/null | awk -v nl="$lines" -v rtl="$root/rtl" '
$1 ~ /%$/ {
  p = $1; sub("%", "", p); s = $3
  if (s ~ /PROF__/) { m = s; sub(/.*PROF__/, "", m); n = split(m, a, "__l"); mod = a[1]; line = a[1] ":" a[2] }
  else if (s ~ /^Vvia_nic/ || s ~ /^VL_/ || s ~ /^Vl/) { mod = "(scheduling, helpers)"; line = "" }
  else next
  M[mod] += p; tot += p
  if (line != "") L[line] += p
}
END {
  if (tot == 0) { print "profile-sim: no samples in the model" > "/dev/stderr"; exit 1 }
  printf "share of the model'"'"'s time by module (%d modules; instances of a module together)\n", length(M)
  for (k in M) printf "%6.1f %%  %s\n", 100 * M[k] / tot, k | "sort -rn"
  close("sort -rn")
  printf "\nhottest source lines (an always block is named by its first line)\n"
  cmd = "sort -rn | head -n " nl
  for (k in L) {
    split(k, b, ":"); src = ""
    f = rtl "/" b[1] ".v"
    for (i = 0; i < b[2] && (getline t < f) > 0; i++) src = t
    close(f)
    gsub(/^[ \t]+/, "", src)
    printf "%6.1f %%  %-26s %s\n", 100 * L[k] / tot, k, substr(src, 1, 70) | cmd
  }
  close(cmd)
}'
