# via_regfile bench (with the AXI-Lite front end)
rtl/via_axil_slave.v
rtl/via_cpu_ram.v
rtl/via_regfile.v
testbench/common/axil_master.v
testbench/via_regfile/tb_via_regfile.v
