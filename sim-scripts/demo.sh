#!/usr/bin/env bash
# The main job, as far as it exists: runs the via_nic top-level bench (BAR0
# bring-up, a DMA diagnostic copy, interrupts, network loopback) in Verilator
# with a waveform, and prints how to look at it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/build/demo
mkdir -p "$out"
vcd=$out/via_nic.vcd
echo "demo: running the via_nic bench in Verilator (waveform: $vcd)"
"$root/sim-scripts/bench.sh" -s verilator -w "$vcd" via_nic
echo
echo "demo: waveform written to $vcd ($(du -h "$vcd" | cut -f1))"
echo "demo: open it with:"
echo "  gtkwave -a $root/sim-scripts/gtkwave/via_nic.gtkw $vcd"
