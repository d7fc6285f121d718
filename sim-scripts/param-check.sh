#!/usr/bin/env bash
# Proves that every tool rejects an out-of-range parameter (the modules'
# `VIA_PARAM_FAIL checks, rtl/via_param_check.vh): for each case below,
#   - verilator --lint-only -Wall fails and prints the module's message;
#   - Icarus (iverilog -g2012, the module as root, -P) builds, and the
#     simulation fails at time 0 with the message;
#   - Yosys fails in `hierarchy` with the message;
# and, for the first case, a Verilator simulation (--binary) fails at time 0.
# A control run with the default parameters passes each tool.
#
#   sim-scripts/param-check.sh        (run by sim-scripts/lint.sh)
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=build/param-check
mkdir -p "$out"
fail=0

# module  parameter  bad value (one that only the module's own check rejects,
# so that the message to expect, "MODULE: PARAM=", is its own; Yosys prints
# the message without formatting the value)
cases=(
  "via_fifo DEPTH 1"
  "via_fw_log DEPTH 70000"
  "via_irq_ctrl NUM_IRQ 33"
  "via_cpu_periph EVENT_DEPTH 70000"
  "via_cpu IMEM_BYTES 12288"
  "via_cpu_ram AW 9"
  "via_dma_diag MAX_OUTSTANDING 16"
  "via_net KEEP_WIDTH 4"
  "via_node DATA_WIDTH 128"
  "via_soft_reset CYCLES 16777217"
  "via_axil_slave ADDR_WIDTH 2"
  "via_regfile NUM_IRQ 33"
  "via_regfile EXT_BLOCKS 0"
  "via_nic_ctrl NUM_VI 70000"
  "via_nic DMA_MAX_BURST 24"
  "via_ram AW 9"
  "via_tpt CACHE_ENTRIES 100"
  "via_tpt_probe TAG_WIDTH 9"
  "via_axi_rd_arb ID_WIDTH 33"
  "via_nic TPT_REGIONS 8"
  "via_desc_fetch MAX_SEGS 125"
  "via_vi_queues MAX_DESC 1025"
  "via_vi_queues POOL 24"
  "via_vi_queues MAX_INFLIGHT 65"
  "via_desc_pipe DEPTH 3"
  "via_fabric PORTS 17"
  "via_fabric PORTS 1"
  "via_fabric IN_DEPTH 48"
  "via_fabric OQ_DEPTH 100"
  "via_fabric NRULES 8"
  "via_fabric MSG_HOLD 2"
  "via_fabric HOLD_WAIT 0"
  "via_link_port RX_DEPTH 48"
  "via_link_port BW_NUM 2"
)

bad() { echo "param-check: $*" >&2; fail=1; case_fail=1; }

run_verilator_lint() {  # mod param value -> output, status
  verilator --lint-only -Wall -Irtl -Irtl/generated -y rtl -y rtl/generated \
    --top-module "$1" ${2:+-G"$2"="$3"} "rtl/$1.v" 2>&1
}

srcs=(rtl/*.v rtl/generated/*.v)
run_icarus() {  # mod param value -> output, status of build+run
  local bin=$out/$1.vvp
  iverilog -g2012 -Irtl -Irtl/generated -s "$1" ${2:+-P"$1.$2=$3"} -o "$bin" "${srcs[@]}" 2>&1 || return 1
  vvp -n "$bin" 2>&1
}

# (Yosys reads the module's file and finds the others by name in rtl/ and
# rtl/generated/: reading every source for every case made it the slowest
# part of `make lint`. -defer and hierarchy's -chparam elaborate the module
# once, with the bad value; read_verilog then chparam elaborated it with
# its defaults first, then again: twice the time for the same message.)

run_yosys() {  # mod param value -> output, status
  local chparam=""
  [ -n "$2" ] && chparam=" -chparam $2 $3"
  yosys -q -p "read_verilog -defer -I rtl -I rtl/generated rtl/$1.v; hierarchy -libdir rtl -libdir rtl/generated -check -top $1$chparam" 2>&1
}

first=1
for c in "${cases[@]}"; do
  read -r mod param value <<<"$c"
  msg="$mod: $param="
  case_fail=0
  for tool in verilator_lint icarus yosys; do
    if o=$("run_$tool" "$mod" "$param" "$value"); then
      bad "$mod $param=$value: $tool accepted it"; echo "$o" | tail -n 5 >&2
    elif ! grep -qF -- "$msg" <<<"$o"; then
      bad "$mod $param=$value: $tool failed without the message '$msg'"; echo "$o" | tail -n 5 >&2
    fi
    if [ $first -eq 1 ] && ! o=$("run_$tool" "$mod" "" ""); then
      bad "$mod with default parameters: $tool failed"; echo "$o" | tail -n 5 >&2
    fi
  done
  if [ $first -eq 1 ]; then
    # the Verilator simulation: lint warnings are not fatal in a build
    # (the benches' and the cosim's -Wno-fatal), the check still stops it
    obj=$out/vl_$mod
    rm -rf "$obj"
    if ! verilator --binary -Wno-fatal -Wno-lint -Wno-style -Irtl -Irtl/generated -y rtl -y rtl/generated \
        --top-module "$mod" -G"$param=$value" -Mdir "$obj" -o sim "rtl/$mod.v" >"$out/vl_build.log" 2>&1; then
      bad "$mod $param=$value: the Verilator simulation did not build"; tail -n 5 "$out/vl_build.log" >&2
    elif o=$("$obj/sim" 2>&1); then
      bad "$mod $param=$value: the Verilator simulation ran through"
    elif ! grep -qF -- "$msg" <<<"$o"; then
      bad "$mod $param=$value: the Verilator simulation failed without the message"; echo "$o" | tail -n 5 >&2
    fi
  fi
  first=0
  [ $case_fail -eq 0 ] && echo "param-check $mod $param=$value: rejected by verilator lint, icarus, yosys$([ "$mod" = via_fifo ] && echo ', verilator sim')"
done

[ $fail -eq 0 ] || { echo "param-check: FAILED" >&2; exit 1; }
echo "param-check: ok (${#cases[@]} bad parameters rejected by every tool)"
