# via_vi_rx bench
rtl/via_ram.v
rtl/via_fifo.v
rtl/via_desc_pipe.v
rtl/via_vi_rx.v
testbench/common/axi_ram_model.v
testbench/via_vi_rx/tb_via_vi_rx.v
