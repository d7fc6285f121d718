# via_axil_slave bench
rtl/via_axil_slave.v
testbench/common/axil_master.v
testbench/via_axil_slave/tb_via_axil_slave.v
