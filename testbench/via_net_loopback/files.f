# via_net_loopback bench
rtl/via_fifo.v
rtl/via_net_loopback.v
rtl/generated/via_bar0_net_regs.v
testbench/common/axis_source.v
testbench/common/axis_sink.v
testbench/via_net_loopback/tb_via_net_loopback.v
