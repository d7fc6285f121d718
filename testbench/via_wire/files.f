# via_wire bench: packetizer and depacketizer back to back
rtl/via_fifo.v
rtl/via_ram.v
rtl/via_wire_crc.v
rtl/via_wire_tx.v
rtl/via_wire_rx.v
testbench/via_wire/tb_via_wire.v
