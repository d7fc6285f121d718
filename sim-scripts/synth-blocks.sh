#!/usr/bin/env bash
# Yosys check of the blocks in rtl/ outside via_nic (sim-scripts/synth-blocks.ys:
# the fabric switch and the link port with small buffers). A job of `make test`
# of its own, beside sim-scripts/synth.sh. Fails, naming the log, on any
# error, latch, combinational loop or driver conflict.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=build/synth
mkdir -p "$out"
start=$(date +%s)
if ! yosys -q -l "$out/yosys-blocks.log" sim-scripts/synth-blocks.ys >/dev/null 2>&1; then
  grep -E "ERROR|Assert|assert" "$out/yosys-blocks.log" >&2 || tail -n 20 "$out/yosys-blocks.log" >&2
  echo "synth-blocks: FAILED (log $out/yosys-blocks.log)" >&2
  exit 1
fi
echo "synth-blocks: via_fabric, via_link_port: ok ($(( $(date +%s) - start )) s)"
