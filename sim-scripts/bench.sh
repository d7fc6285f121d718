#!/usr/bin/env bash
# Runs one RTL unit bench in one simulator.
#
#   sim-scripts/bench.sh [-s verilator|icarus] [-w out.vcd] [-W DIR] [-r seed] [-a +plusarg]... [-j JOBS] [-q] NAME
#
# A bench lives in testbench/NAME/: tb_NAME.v (top module tb_NAME) and
# files.f, one source path per line relative to the repository root ('#'
# starts a comment). Include directories rtl/, rtl/generated/ and
# testbench/common/ are always on the path. The bench gets +seed=N (default 1)
# and, with -w, +vcd=PATH; it must print "PASS" on success and call $fatal on
# failure. Build products go to build/bench/NAME/SIM/. -j sets the compile
# jobs of a Verilator build (default 2; benches.sh runs benches side by side
# with 1).
#
# -W DIR keeps the waveform internal/vcd's tests read (a run with +short
# and +vcd, as their own run of the bench would be) as DIR/NAME-SIM.vcd, so
# that `make test`'s Go half reads it instead of simulating the bench again:
# when the run is itself +short (-a +short and no -w) it writes the dump;
# otherwise the built simulation runs once more with +short and the dump.
# The dump is written under a temporary name and renamed only when its run
# passed.
set -euo pipefail

sim=verilator
vcd=""
seed=1
quiet=0
extra=()
jobs=2
keep_dir=""
while getopts "s:w:W:r:a:j:q" opt; do
  case $opt in
    s) sim=$OPTARG ;;
    w) vcd=$OPTARG ;;
    W) keep_dir=$OPTARG ;;
    r) seed=$OPTARG ;;
    q) quiet=1 ;;
    a) extra+=("$OPTARG") ;;
    j) jobs=$OPTARG ;;
    *) echo "usage: $0 [-s verilator|icarus] [-w out.vcd] [-W DIR] [-r seed] [-a +plusarg]... [-j JOBS] [-q] NAME" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || { echo "usage: $0 [-s verilator|icarus] [-w out.vcd] [-W DIR] [-r seed] [-a +plusarg]... [-j JOBS] [-q] NAME" >&2; exit 2; }
name=$1

root=$(cd "$(dirname "$0")/.." && pwd)
dir=$root/testbench/$name
[ -f "$dir/files.f" ] || { echo "bench: no testbench/$name/files.f" >&2; exit 2; }
top=tb_$name
out=$root/build/bench/$name/$sim
mkdir -p "$out"
# One build directory per bench and simulator: serialize concurrent runs of
# the same bench (parallel test packages) so they never share half a build.
exec 9>"$out/.lock"
flock 9

mapfile -t srcs < <(sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$dir/files.f" | grep -v '^$' | sed "s|^|$root/|")
incs=(-I"$root/rtl" -I"$root/rtl/generated" -I"$root/testbench/common")

args=(+seed="$seed")
[ -n "$vcd" ] && args+=(+vcd="$(realpath -m "$vcd")")
args+=("${extra[@]}")
# -W: the kept dump, from this run when it is the +short run with a dump,
# else from a second run (after this one passed)
keep="" keep_tmp="" keep_again=0
if [ -n "$keep_dir" ]; then
  mkdir -p "$keep_dir"
  keep=$(realpath -m "$keep_dir/$name-$sim.vcd")
  keep_tmp=$keep.tmp.$$
  rm -f "$keep"
  is_short=0
  for a in "${extra[@]}"; do [ "$a" != +short ] || is_short=1; done
  if [ -z "$vcd" ] && [ $is_short -eq 1 ]; then
    args+=(+vcd="$keep_tmp")
  else
    keep_again=1
  fi
fi

log=$out/run.log
case $sim in
  verilator)
    # Benches are not held to -Wall (the RTL is, by `make lint`); warnings are
    # shown but not fatal. The bench's own C++ is compiled without
    # optimization: Verilator's --timing makes a bench's initial blocks one
    # huge coroutine function (3 MB of C++ for via_cpu_periph) that takes a
    # minute to optimize, while every bench runs in seconds either way. The
    # Verilator runtime library keeps its -Os. Everything goes through ccache
    # when there is one (sim-scripts/ccache.sh: the user's ccache directory,
    # paths relative to the clone, so another clone of the same sources hits).
    objcache=()
    if . "$root/sim-scripts/ccache.sh"; then
      objcache=(OBJCACHE=ccache)
    fi
    # Verilated from the clone's root with relative paths: the source paths
    # Verilator writes into the C++ ($display of a failed check, ...) are
    # then the same in every clone, so ccache hits across clones.
    (cd "$root" && verilator --binary --timing --trace -j "$jobs" -Wno-fatal -Wno-lint -Wno-style \
      -Wno-TIMESCALEMOD --x-assign unique --x-initial unique \
      -MAKEFLAGS "OPT_FAST=-O0 OPT_SLOW=-O0 ${objcache[*]}" \
      --top-module "$top" -Mdir "${out#"$root"/}/obj" -o sim -Irtl -Irtl/generated -Itestbench/common \
      "${srcs[@]#"$root"/}") \
      >"$out/build.log" 2>&1 || { cat "$out/build.log" >&2; echo "bench $name [$sim]: BUILD FAILED" >&2; exit 1; }
    run=("$out/obj/sim" "${args[@]}" +verilator+seed+"$seed" +verilator+rand+reset+2)
    ;;
  icarus)
    iverilog -g2012 -Wall -Wno-timescale -Wno-implicit-dimensions -o "$out/sim.vvp" -s "$top" "${incs[@]}" "${srcs[@]}" \
      >"$out/build.log" 2>&1 || { cat "$out/build.log" >&2; echo "bench $name [$sim]: BUILD FAILED" >&2; exit 1; }
    run=(vvp -n "$out/sim.vvp" "${args[@]}")
    ;;
  *) echo "bench: unknown simulator $sim" >&2; exit 2 ;;
esac

start=$(date +%s.%N)
set +e
"${run[@]}" >"$log" 2>&1
rc=$?
set -e
secs=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN{printf "%.1f", e-s}')
[ $quiet -eq 1 ] || cat "$log"
if [ $rc -ne 0 ] || ! grep -q '^PASS' "$log" || grep -qE '^(FAIL|ERROR)' "$log"; then
  [ $quiet -eq 1 ] && tail -n 40 "$log" >&2
  [ -z "$keep_tmp" ] || rm -f "$keep_tmp"
  echo "bench $name [$sim]: FAILED (exit $rc, ${secs}s, log $log)" >&2
  exit 1
fi
if [ -n "$keep" ]; then
  if [ $keep_again -eq 1 ]; then
    # the same simulation (built above), +short with a dump, as
    # internal/vcd's benchVCD runs it
    again=("${run[@]}")
    for i in "${!again[@]}"; do
      case ${again[$i]} in +vcd=*|+short) unset "again[$i]" ;; esac
    done
    again+=(+vcd="$keep_tmp" +short)
    if ! "${again[@]}" >"$out/keep.log" 2>&1 || ! grep -q '^PASS' "$out/keep.log" || grep -qE '^(FAIL|ERROR)' "$out/keep.log"; then
      rm -f "$keep_tmp"
      tail -n 40 "$out/keep.log" >&2
      echo "bench $name [$sim]: the +short run with a waveform FAILED (log $out/keep.log)" >&2
      exit 1
    fi
  fi
  [ -f "$keep_tmp" ] || { echo "bench $name [$sim]: passed but wrote no dump" >&2; exit 1; }
  mv "$keep_tmp" "$keep"
fi
echo "bench $name [$sim]: ok (${secs}s)${keep:+, waveform kept as $keep}"
