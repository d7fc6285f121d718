# via_net bench: two network blocks cabled to each other
rtl/via_fifo.v
rtl/via_ram.v
rtl/via_wire_crc.v
rtl/via_wire_tx.v
rtl/via_wire_rx.v
rtl/generated/via_bar0_net_regs.v
rtl/via_cm_tx.v
rtl/via_net.v
testbench/via_net/tb_via_net.v
