rtl/via_ram.v
rtl/via_tpt.v
testbench/common/axi_ram_model.v
testbench/via_tpt/tb_via_tpt_env.v
testbench/via_tpt/tb_via_tpt.v
