# via_nic top-level bench
rtl/via_fifo.v
rtl/via_net_loopback.v
rtl/via_axil_slave.v
rtl/via_regfile.v
rtl/via_soft_reset.v
rtl/via_dma_diag.v
rtl/via_cpu_ram.v
rtl/via_cpu.v
rtl/via_cpu_periph.v
rtl/via_nic.v
testbench/common/axil_master.v
testbench/common/axi_ram_model.v
testbench/common/axis_source.v
testbench/common/axis_sink.v
testbench/via_nic/tb_via_nic.v
