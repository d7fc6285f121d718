rtl/via_vi_tx.v
# via_desc_pipe: the bench's stand-in until rtl/via_desc_pipe.v exists
testbench/via_vi_tx/via_desc_pipe_stub.v
rtl/via_desc_fetch.v
rtl/via_ram.v
rtl/via_tpt.v
rtl/via_axi_rd_arb.v
testbench/common/axi_ram_model.v
testbench/via_vi_tx/tb_via_vi_tx_env.v
testbench/via_vi_tx/tb_via_vi_tx.v
