# via_wire_crc bench
rtl/via_wire_crc.v
testbench/via_wire_crc/tb_via_wire_crc.v
