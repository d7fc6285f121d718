# via_vi_rx bench
rtl/via_ram.v
rtl/via_desc_fetch.v
# stand-in for rtl/via_desc_pipe.v until it is merged
testbench/via_vi_rx/via_desc_pipe_model.v
rtl/via_vi_rx.v
testbench/common/axi_ram_model.v
testbench/via_vi_rx/tb_via_vi_rx.v
