rtl/via_axi_rd_mux.v
rtl/via_axi_wr_mux.v
testbench/common/axi_ram_model.v
testbench/via_axi_mux/tb_via_axi_mux_master.v
testbench/via_axi_mux/tb_via_axi_mux_env.v
testbench/via_axi_mux/tb_via_axi_mux.v
