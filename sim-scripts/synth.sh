#!/usr/bin/env bash
# Synthesizes via_nic (default parameters) with Yosys, generic gate library,
# and writes the cell counts to docs/synthesis.md.
#
#   sim-scripts/synth.sh [-f | -c]
#
# -f also flattens the netlist and optimizes it once more
# (sim-scripts/synth-flat.ys, about 100 s more) and records that total in
# docs/synthesis.md; without it the last recorded flattened total is kept.
# -c is make test's check: the same script up to the end of the coarse
# phase (synth -run coarse:fine: elaboration, proc, the word-level
# optimizations, memories), then the same checks (latches, loops, drivers);
# it writes no docs (about a quarter of the full flow's time: the gate
# mapping and its optimizations are most of it). `make synth` runs the full
# flow and updates docs/synthesis.md.
#
# The control processor's memories and the admin windows (via_cpu_ram) and
# the generic RAMs (via_ram: the TPT's region table and page-list cache) are
# blackboxes in the flow: their bits are listed in a table of their own.
#
# Fails (non-zero exit) if Yosys reports an error, a latch, a combinational
# loop or a driver conflict (see sim-scripts/synth.ys). The full log goes to
# build/synth/yosys.log.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
full=0
coarse=0
case "${1:-}" in
  -f) full=1 ;;
  -c) coarse=1 ;;
  "") ;;
  *) echo "usage: $0 [-f | -c]" >&2; exit 2 ;;
esac
cd "$root"
out=build/synth
mkdir -p "$out"
rm -f "$out/stat.txt" "$out/stat_flat.txt" "$out/rams.txt"

start=$(date +%s)
if [ $coarse -eq 1 ]; then
  # synth.ys with the coarse phase only, its outputs beside the full flow's.
  # (synth's first step, begin, is `hierarchy -check -top via_nic`, which
  # synth.ys has just run: coarse:fine skips the second elaboration.)
  script=$out/synth-coarse.ys
  sed -e 's/^synth -top via_nic$/synth -top via_nic -run coarse:fine/' \
      -e 's#build/synth/stat.txt#build/synth/stat_coarse.txt#' \
      -e 's#build/synth/rams.txt#build/synth/rams_coarse.txt#' sim-scripts/synth.ys > "$script"
  grep -q -- '-run coarse:fine' "$script" || { echo "synth: sim-scripts/synth.ys has no 'synth -top via_nic' line" >&2; exit 1; }
  if ! yosys -q -l "$out/yosys-coarse.log" "$script" >/dev/null 2>&1; then
    grep -E "ERROR|Assert|assert" "$out/yosys-coarse.log" >&2 || tail -n 20 "$out/yosys-coarse.log" >&2
    echo "synth: coarse check FAILED (log $out/yosys-coarse.log)" >&2
    exit 1
  fi
  echo "synth: coarse check ok ($(( $(date +%s) - start ))s: elaborated, no latch, loop or driver conflict; make synth for the gate counts)"
  exit 0
fi
script=sim-scripts/synth.ys
[ $full -eq 0 ] || script=sim-scripts/synth-flat.ys
if ! yosys -q -l "$out/yosys.log" "$script" >/dev/null 2>&1; then
  grep -E "ERROR|Assert|assert" "$out/yosys.log" >&2 || tail -n 20 "$out/yosys.log" >&2
  echo "synth: FAILED (log $out/yosys.log)" >&2
  exit 1
fi
secs=$(( $(date +%s) - start ))
[ -s "$out/stat.txt" ] || { echo "synth: no statistics in $out/stat.txt" >&2; exit 1; }
if [ $full -eq 1 ]; then
  [ -s "$out/stat_flat.txt" ] || { echo "synth: no statistics in $out/stat_flat.txt" >&2; exit 1; }
  flat=$(awk '/Number of cells:/ { c = $4 } $1 ~ /^\$_.*DFF.*_$/ { f += $2 } END { printf "%d cells, %d flip-flops", c, f }' "$out/stat_flat.txt")
  flat="$flat (measured $(date -u +%Y-%m-%d))"
else
  # the last total measured with -f
  flat=$(sed -n 's/^\*\*flattened: \(.*\)\*\*\.$/\1/p' docs/synthesis.md 2>/dev/null | head -n 1)
  [ -n "$flat" ] || flat="not measured yet (sim-scripts/synth.sh -f)"
fi

version=$(yosys -V | awk '{print $1, $2}')
[ -s "$out/rams.txt" ] || { echo "synth: no RAM list in $out/rams.txt" >&2; exit 1; }

# RAM blackboxes: "module NAME" starts a module of the dump; "cell
# \via_cpu_ram \INST" one instance, followed by its parameters.
rams=$(awk '
  function clean(n) {
    sub(/^\\/, "", n)
    sub(/^\$paramod(\$[0-9a-f]+)?\\/, "", n)
    sub(/\\.*$/, "", n)
    return n
  }
  function row() {
    printf "| %s.%s | %d x %d | %d |\n", mod, inst, words, width, words * width
    total += words * width
    inst = ""
  }
  $1 == "module" { mod = clean($2); next }
  # via_cpu_ram: 32-bit words; via_ram: WIDTH x WORDS
  $1 == "cell" && $2 == "\\via_cpu_ram" { inst = $3; sub(/^\\/, "", inst); width = 32; words = 0; next }
  $1 == "cell" && $2 == "\\via_ram" { inst = $3; sub(/^\\/, "", inst); width = 0; words = 0; next }
  inst != "" && $1 == "parameter" && $NF ~ /^[0-9]+$/ && $(NF-1) == "\\WORDS" {
    words = $NF
    if (width > 0) row()
    next
  }
  inst != "" && $1 == "parameter" && $NF ~ /^[0-9]+$/ && $(NF-1) == "\\WIDTH" {
    width = $NF
    if (words > 0) row()
    next
  }
  $1 == "end" { inst = "" }
  END {
    printf "| **total** | | **%d** (%.1f KiB) |\n", total, total / 8192
  }
' "$out/rams.txt")

# stat prints one block per module ("=== name ===", "Number of cells: N",
# then one line per cell type), then "=== design hierarchy ===" with the
# instance counts and the totals. Parameterised modules are named
# "$paramod$<hash>\name" or "$paramod\name\PARAM=..."; the row shows
# "name", with its parent when one module is built with several parameter
# sets (the hierarchy indents a child two spaces more than its parent).
table=$(awk '
  function clean(n) {
    sub(/^\$paramod(\$[0-9a-f]+)?\\/, "", n)
    sub(/\\.*$/, "", n)
    return n
  }
  /^=== design hierarchy ===/ { hier = 1; next }
  /^=== .* ===$/ { raw = $2; order[++nmods] = raw; base[raw] = clean(raw); nvar[base[raw]]++; next }
  !hier && /Number of cells:/ { cells[raw] = $4; next }
  !hier && $1 ~ /^\$_.*DFF.*_$/ { ffs[raw] += $2; next }
  hier && NF == 2 && $2 ~ /^[0-9]+$/ && $1 !~ /^\$_/ {
    inst[$1] += $2
    d = match($0, /[^ ]/); stack[d] = base[$1]
    if (!($1 in parent) && (d - 2) in stack) parent[$1] = stack[d - 2]
    next
  }
  hier && /Number of cells:/ { total = $4; next }
  hier && $1 ~ /^\$_.*DFF.*_$/ { totff += $2; next }
  END {
    printf "| Module | Instances | Cells | Flip-flops |\n"
    printf "|---|---:|---:|---:|\n"
    # the top first, then the blocks in the order stat listed them
    for (pass = 0; pass < 2; pass++) {
      for (i = 1; i <= nmods; i++) {
        r = order[i]; m = base[r]
        if ((m == "via_nic") != (pass == 0)) continue
        label = m
        if (nvar[m] > 1) label = m " (in " parent[r] ")"
        n = (r in inst) ? inst[r] : 1
        printf "| %s | %d | %d | %d |\n", label, n, cells[r], ffs[r]
      }
    }
    printf "| **total (via_nic, all instances)** | | **%d** | **%d** |\n", total, totff
  }
' "$out/stat.txt")

# A hand-written section "## Changes" at the end of docs/synthesis.md
# (cell counts before and after a change) is kept.
history=""
if grep -q '^## Changes' docs/synthesis.md 2>/dev/null; then
  history=$(sed -n '/^## Changes/,$p' docs/synthesis.md)
fi

cat > docs/synthesis.md <<EOM
# Synthesis

Generated by \`sim-scripts/synth.sh\` (do not edit): ${version} runs
\`sim-scripts/synth.ys\`, i.e. \`synth -top via_nic\` on the RTL with the
default parameters (the \`VIA_DEFAULT_*\` values of \`rtl/layouts/bar0.layout\`),
mapped to Yosys's generic gate library, then \`check -assert\` and a check that
no latch was inferred. Cells are generic gates and flip-flops (one cell per
bit); storage arrays (the network FIFO, the DMA engine's data buffer, the
firmware log and event FIFOs, the core's register file) are mapped to
flip-flops, so this is an upper bound for an FPGA, where they would go to
RAM. The per-module rows count one instance each, without its sub-modules;
the total counts everything under via_nic.

Modules are synthesized one by one, so a constant that crosses a module
boundary (a capability value, a register bit no one reads, a fixed event
code) still costs its gates in the table. \`sim-scripts/synth.sh -f\`
then flattens the netlist and optimizes it once more, as any flattening
flow would (\`make test\` leaves that out, about 100 s):
**flattened: ${flat}**.

The control processor's instruction and data memories and the two admin
windows are \`via_cpu_ram\` instances (true dual-port, synchronous read): the
flow reads that module as a blackbox, since any real target puts them in
block RAM (the generic flow would turn them into some 860K gates). Each
blackbox instance counts as one cell in the table above; their bits are
listed separately below.

${table}

## RAM (\`via_cpu_ram\` and \`via_ram\` blackboxes)

| Instance | Words x bits | Bits |
|---|---:|---:|
${rams}
EOM
if [ -n "$history" ]; then
  printf '\n%s\n' "$history" >> docs/synthesis.md
fi

echo "synth: ok (${secs}s), docs/synthesis.md written"
