#!/usr/bin/env bash
# Lints the NIC's RTL with Verilator -Wall; any warning fails.
#
#   sim-scripts/lint.sh
#
# Runs, with rtl/ and rtl/generated/ on the include and module search path:
#   - the top via_nic with everything under it, default parameters, and a few
#     other parameter sets (edge cases of widths and depths);
#   - every module of rtl/*.v and rtl/generated/*.v on its own (each file
#     holds one module named after it), default parameters;
# then sim-scripts/param-check.sh, which proves that Verilator, Icarus and
# Yosys each reject an out-of-range parameter with the module's message.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

opts=(--lint-only -Wall -Irtl -Irtl/generated -y rtl -y rtl/generated)
fail=0

lint() {
  local top=$1; shift
  local label="$top${*:+ $*}"
  local file=rtl/$top.v
  [ -f "$file" ] || file=rtl/generated/$top.v
  if out=$(verilator "${opts[@]}" --top-module "$top" "$@" "$file" 2>&1) && [ -z "$out" ]; then
    echo "lint $label: ok"
  else
    echo "$out" >&2
    echo "lint $label: FAILED" >&2
    fail=1
  fi
}

lint via_nic
lint via_nic -GNUM_VI=1 -GNUM_IRQ=32 -GAXIL_ADDR_WIDTH=32 -GSOFT_RESET_CYCLES=1
lint via_nic -GNUM_VI=64 -GNUM_IRQ=1 -GAXIL_ADDR_WIDTH=24 -GNET_FIFO_DEPTH=5
lint via_nic -GDATA_WIDTH=128 -GDMA_MAX_BURST=256 -GDMA_MAX_OUTSTANDING=15 -GNET_FIFO_DEPTH=2 -GSOFT_RESET_CYCLES=1000
lint via_nic -GCPU_IMEM_BYTES=1024 -GCPU_DMEM_BYTES=262144 -GFW_LOG_DEPTH=5 -GFW_EVENT_DEPTH=2 -GNUM_IRQ=3
lint via_nic -GCPU_IMEM_BYTES=262144 -GCPU_DMEM_BYTES=1024 -GFW_LOG_DEPTH=1000 -GFW_EVENT_DEPTH=64
lint via_nic -GTPT_REGIONS=16 -GTPT_CACHE_ENTRIES=64 -GDMA_ADDR_WIDTH=32 -GDMA_ID_WIDTH=3 -GDATA_WIDTH=512
lint via_nic -GTPT_REGIONS=65536 -GTPT_CACHE_ENTRIES=16384 -GDMA_ADDR_WIDTH=64 -GDMA_ID_WIDTH=32

# the TPT is not under via_nic yet: its edge cases here
lint via_tpt -GREGIONS=16 -GCACHE_ENTRIES=64 -GADDR_WIDTH=32 -GDATA_WIDTH=128 -GTAG_WIDTH=1 -GID_WIDTH=1
lint via_tpt -GREGIONS=65536 -GCACHE_ENTRIES=16384 -GADDR_WIDTH=64 -GDATA_WIDTH=512 -GTAG_WIDTH=32

# the fabric switch and the link port are not under via_nic: their edge cases here
lint via_fabric -GPORTS=2 -GNRULES=1 -GIN_DEPTH=2 -GOQ_DEPTH=2 -GCREDITS=1
lint via_fabric -GPORTS=16 -GNRULES=7 -GBW_NUM=2 -GBW_DEN=3 -GOQ_DEPTH=65536
lint via_link_port -GCREDITS=65535 -GRX_DEPTH=2 -GBW_NUM=1 -GBW_DEN=65535

for f in rtl/*.v rtl/generated/*.v; do
  m=$(basename "$f" .v)
  [ "$m" = via_nic ] && continue
  lint "$m"
done

sim-scripts/param-check.sh || fail=1

[ $fail -eq 0 ] || { echo "lint: FAILED" >&2; exit 1; }
echo "lint: ok"
