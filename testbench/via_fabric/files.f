# via_fabric bench: PORTS 4 switch, a via_link_port per node, delay lines on every link symbol
rtl/via_fifo.v
rtl/via_link_gate.v
rtl/via_link_port.v
rtl/via_fabric.v
testbench/via_fabric/tb_fabric_delay.v
testbench/via_fabric/tb_fabric_env.v
testbench/via_fabric/tb_fabric_msg.v
testbench/via_fabric/tb_via_fabric.v
