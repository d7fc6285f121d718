rtl/via_desc_fetch.v
rtl/via_ram.v
rtl/via_tpt.v
rtl/via_axi_rd_arb.v
testbench/common/axi_ram_model.v
testbench/via_desc_fetch/tb_via_desc_fetch_env.v
testbench/via_desc_fetch/tb_via_desc_fetch.v
