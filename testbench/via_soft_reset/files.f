# via_soft_reset bench
rtl/via_soft_reset.v
testbench/via_soft_reset/tb_via_soft_reset.v
