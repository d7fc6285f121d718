# via_cq bench
rtl/via_cq.v
rtl/generated/via_bar0_cq_regs.v
testbench/common/axi_ram_model.v
testbench/via_cq/tb_via_cq_env.v
testbench/via_cq/tb_via_cq.v
