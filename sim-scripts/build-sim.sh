#!/usr/bin/env bash
# Builds the co-simulation binaries:
#
#   build/sim/vcd/vianic-sim   Verilated via_node (the NIC and its link port, one model per
#                              node) and via_fabric (the switch) + cosim/harness, VCD waveforms
#   build/sim/fst/vianic-sim   the same with FST waveforms (a Verilated model has one format)
#   build/sim/vianic-echo      echo server, the baseline of the MMIO round-trip benchmark
#
#   sim-scripts/build-sim.sh [-f] [-q] [-P] [-j JOBS] [-r RTL_DIR] [-o OUT_DIR] [vcd] [fst] [echo]
#
# With no variant named, builds all three. A variant is skipped when its
# binary is newer than every source it is built from (rtl/*.v,
# rtl/generated/*, cosim/harness/*, firmware/include/via_bar0.h and this
# script). -f rebuilds anyway; -q prints only errors and the result; -r takes
# the Verilog sources from RTL_DIR instead of rtl/ (to try a modified via_nic;
# rtl/generated/ stays on the include path); -o puts everything under OUT_DIR
# instead of build/sim/; -j sets the C++ compile jobs (default 2); -P builds
# the profiling variant (under build/prof/ unless -o says otherwise) that
# sim-scripts/profile-sim.sh samples: Verilator's --prof-cfuncs (a C++
# function per block, named after its module and line) with -g and
# -fno-inline, without gprof's -pg; slower than the normal build. Verilator
# output and logs go to <out>/<variant>/obj/.
# Concurrent runs for the same variant wait for each other (flock); a binary
# is replaced atomically, never removed, so running simulators and tests keep
# working during a build. Exits non-zero, naming the log, on any failure.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
force=0
quiet=0
prof=0
out_set=0
rtl_dir=$root/rtl
out_root=$root/build/sim
jobs=2
usage() { echo "usage: $0 [-f] [-q] [-P] [-j JOBS] [-r RTL_DIR] [-o OUT_DIR] [vcd] [fst] [echo]" >&2; exit 2; }
while getopts "fqPj:r:o:h" opt; do
  case $opt in
    f) force=1 ;;
    q) quiet=1 ;;
    P) prof=1 ;;
    j) [[ $OPTARG =~ ^[1-9][0-9]*$ ]] || usage; jobs=$OPTARG ;;
    r) rtl_dir=$(cd "$OPTARG" 2>/dev/null && pwd) || { echo "build-sim: no directory $OPTARG" >&2; exit 2; } ;;
    o) mkdir -p "$OPTARG" && out_root=$(cd "$OPTARG" && pwd) || { echo "build-sim: cannot use $OPTARG" >&2; exit 2; }
       out_set=1 ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ $prof -eq 0 ] || [ $out_set -eq 1 ] || out_root=$root/build/prof
variants=("$@")
[ ${#variants[@]} -gt 0 ] || variants=(vcd fst echo)
for v in "${variants[@]}"; do
  case $v in vcd|fst|echo) ;; *) echo "build-sim: unknown variant '$v' (vcd, fst or echo)" >&2; usage ;; esac
done

say() { [ $quiet -eq 1 ] || echo "build-sim: $*"; }
die() { echo "build-sim: error: $*" >&2; exit 1; }

command -v verilator >/dev/null 2>&1 || die "verilator not found; run 'make deps' (installs Debian's verilator)"
command -v g++ >/dev/null 2>&1 || die "g++ not found; install g++"
vroot=$(verilator --getenv VERILATOR_ROOT 2>/dev/null || true)
[ -n "$vroot" ] && [ -f "$vroot/include/verilated.h" ] || die "Verilator runtime headers missing (VERILATOR_ROOT=$vroot); reinstall verilator"

harness=$root/cosim/harness
shopt -s nullglob
rtl_srcs=("$rtl_dir"/*.v)
harness_srcs=()
for f in "$harness"/*.cpp; do
  [ "$(basename "$f")" = echo.cpp ] || harness_srcs+=("$f")
done
shopt -u nullglob
[ ${#rtl_srcs[@]} -gt 0 ] || die "no Verilog sources in $rtl_dir"
[ -f "$rtl_dir/via_node.v" ] || die "$rtl_dir/via_node.v not found (top module via_node)"
[ -f "$rtl_dir/via_fabric.v" ] || die "$rtl_dir/via_fabric.v not found (the switch, via_fabric)"
[ ${#harness_srcs[@]} -gt 0 ] || die "no harness sources in $harness"
[ -f "$root/firmware/include/via_bar0.h" ] || die "firmware/include/via_bar0.h missing; run 'make generate'"

# true when $1 exists and is newer than every file given after it, and was
# built from the same RTL directory (recorded next to it)
up_to_date() {
  local bin=$1; shift
  [ $force -eq 0 ] && [ -x "$bin" ] || return 1
  [ "$(cat "$bin.rtl-dir" 2>/dev/null || true)" = "$rtl_dir" ] || return 1
  local newer
  newer=$(find "$@" -maxdepth 0 -newer "$bin" -print -quit 2>/dev/null)
  [ -z "$newer" ]
}

sim_deps() {
  printf '%s\n' "${rtl_srcs[@]}" "$rtl_dir"/*.vh "$root"/rtl/generated/* "$harness"/*.h "${harness_srcs[@]}" \
    "$root/firmware/include/via_bar0.h" "$root/sim-scripts/build-sim.sh"
}

# serialize builds of one output directory (run in a subshell: the lock is
# released when it exits)
with_lock() {
  local dir=$1; shift
  mkdir -p "$dir"
  if command -v flock >/dev/null 2>&1; then
    (
      exec 9>"$dir/.build-sim.lock"
      if ! flock -n 9; then
        say "$(basename "$dir"): waiting for another build of $dir..."
        flock 9
      fi
      "$@"
    )
  else
    "$@"
  fi
}

# the C++ compiles go through ccache when there is one (sim-scripts/ccache.sh)
objcache=
if . "$root/sim-scripts/ccache.sh"; then
  objcache=" OBJCACHE=ccache"
fi

build_sim() {
  local fmt=$1
  local out=$out_root/$fmt
  local bin=$out/vianic-sim
  mapfile -t deps < <(sim_deps)
  if up_to_date "$bin" "${deps[@]}"; then
    say "$fmt: up to date ($bin)"
    return 0
  fi
  local trace_flag=--trace fst_def=0
  if [ "$fmt" = fst ]; then trace_flag=--trace-fst; fst_def=1; fi
  mkdir -p "$out"
  rm -f "$bin.rtl-dir"  # until the new binary is in place: not up to date
  local log=$out/build.log
  say "$fmt: verilating via_node and via_fabric and building $bin ($jobs jobs; a minute or two)..."
  local start=$SECONDS
  # -Wno-fatal: lint is `make lint`'s job; the simulator must build whatever
  # style warnings the RTL has. --x-assign/--x-initial unique: X becomes a
  # seeded random value (--seed), as in the RTL benches; they stay (fast
  # would make X a fixed value and the seed meaningless). -O3 (Verilator's
  # own optimizations and the C++ compiler's) changes no behaviour: a few
  # percent fewer instructions per cycle. (clang++ builds a slower model.)
  local pflags="" cflags="" mflags=""
  if [ $prof -eq 1 ]; then
    pflags=--prof-cfuncs cflags=" -g -fno-inline" mflags=" CFG_CXXFLAGS_PROFILE="
  fi
  local common=("$trace_flag" -O3 $pflags -Wno-fatal --x-assign unique --x-initial unique
      -I"$rtl_dir" -I"$root/rtl/generated"
      -MAKEFLAGS "OPT_FAST=-O3 OPT_SLOW=-O1 OPT_GLOBAL=-O3${mflags}${objcache}")
  # the switch: a model of its own (16 ports; the simulator's node count is
  # its nports input), built into an archive the simulator links
  local fargs=(--cc --build "${common[@]}" --top-module via_fabric --prefix Vvia_fabric
      -GPORTS=16 -GOQ_DEPTH=1024
      -CFLAGS "-std=c++17 -O3${cflags}"
      -Mdir "$out/obj_fabric")
  local vargs=(--cc --exe --build "${common[@]}"
      --top-module via_node --prefix Vvia_node
      -CFLAGS "-std=c++17 -O3${cflags} -Wall -Wno-unused-parameter -I$harness -I$root/firmware/include -I$out/obj_fabric -DVIANIC_TRACE_FST=$fst_def"
      -Mdir "$out/obj" -o vianic-sim)
  # make rebuilds objects whose sources changed, not those whose flags did:
  # start from scratch when the command line differs from the last build's
  local sig="${fargs[*]} ${vargs[*]}"
  if [ "$(cat "$out/obj/.build-flags" 2>/dev/null || true)" != "$sig" ]; then
    rm -rf "$out/obj" "$out/obj_fabric"
  fi
  mkdir -p "$out/obj" "$out/obj_fabric"
  if ! verilator "${fargs[@]}" "${rtl_srcs[@]}" >"$out/build-fabric.log" 2>&1; then
    grep -E "%Error|error:|Error " "$out/build-fabric.log" | head -n 30 >&2 || tail -n 30 "$out/build-fabric.log" >&2
    die "$fmt: building the switch's model failed after $((SECONDS - start)) s; full log: $out/build-fabric.log"
  fi
  if ! verilator -j "$jobs" "${vargs[@]}" "${rtl_srcs[@]}" "${harness_srcs[@]}" "$out/obj_fabric/Vvia_fabric__ALL.a" >"$log" 2>&1; then
    grep -E "%Error|error:|Error " "$log" | head -n 30 >&2 || tail -n 30 "$log" >&2
    die "$fmt: build failed after $((SECONDS - start)) s; full log: $log"
  fi
  echo "$sig" >"$out/obj/.build-flags"
  [ -x "$out/obj/vianic-sim" ] || die "$fmt: verilator reported success but $out/obj/vianic-sim is missing; log: $log"
  cp "$out/obj/vianic-sim" "$bin.tmp" && mv "$bin.tmp" "$bin"
  echo "$rtl_dir" >"$bin.rtl-dir"
  local warns
  warns=$(grep -c "^%Warning" "$log" || true)
  say "$fmt: built $bin in $((SECONDS - start)) s${warns:+ ($warns Verilator warnings, see $log)}"
}

build_echo() {
  local out=$out_root
  local bin=$out/vianic-echo
  if [ $force -eq 0 ] && [ -x "$bin" ] && [ -z "$(find "$harness/echo.cpp" "$root/sim-scripts/build-sim.sh" -newer "$bin" -print -quit)" ]; then
    say "echo: up to date ($bin)"
    return 0
  fi
  mkdir -p "$out"
  say "echo: building $bin..."
  g++ -std=c++17 -O2 -Wall -Wextra -o "$bin.tmp" "$harness/echo.cpp" >"$out/echo-build.log" 2>&1 \
    || { cat "$out/echo-build.log" >&2; die "echo: build failed; log: $out/echo-build.log"; }
  mv "$bin.tmp" "$bin"
  say "echo: built $bin"
}

for v in "${variants[@]}"; do
  case $v in
    vcd|fst) with_lock "$out_root/$v" build_sim "$v" ;;
    echo) with_lock "$out_root/echo-build" build_echo ;;
  esac
done
[ $quiet -eq 0 ] || echo "build-sim: ok (${variants[*]})"
