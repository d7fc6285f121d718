# via_fifo bench
rtl/via_fifo.v
testbench/common/axis_source.v
testbench/common/axis_sink.v
testbench/via_fifo/tb_via_fifo.v
