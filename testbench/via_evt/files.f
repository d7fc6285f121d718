# via_evt bench
rtl/via_evt.v
rtl/generated/via_bar0_evt_regs.v
testbench/via_evt/tb_via_evt_env.v
testbench/via_evt/tb_via_evt.v
