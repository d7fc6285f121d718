rtl/via_desc_pipe.v
rtl/via_fifo.v
rtl/via_ram.v
rtl/via_tpt.v
rtl/via_axi_rd_arb.v
testbench/common/axi_ram_model.v
testbench/via_desc_pipe/tb_via_desc_pipe_env.v
testbench/via_desc_pipe/tb_via_desc_pipe.v
