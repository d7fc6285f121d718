// via_wire_crc: the wire format's CRC-32 over a stream of 64-bit beats
// (docs/wire.md: IEEE 802.3, reflected, initial value and final XOR
// 32'hFFFFFFFF), 1..8 bytes per beat, one beat per cycle, for the NIC's
// packetizer (which appends it) and depacketizer (which checks it).
//
//   init          start a new CRC: the register becomes 32'hFFFFFFFF; with
//                 valid in the same cycle, the beat is the new CRC's first
//   valid, data, nbytes
//                 a beat: its first nbytes bytes (data[7:0] first) enter
//                 the CRC; nbytes 0 or above 8 leaves it unchanged
//   crc           the CRC of every byte given since init (registered: the
//                 beat of cycle t shows in cycle t+1)
//   crc_next      the same including this cycle's beat (combinational)
//
// The update is the generated parallel function of via_wire_crc.vh (an XOR
// tree per bit; rtl/layouts/wire.layout's CRC_POLY).

`timescale 1ns / 1ps
`default_nettype none

module via_wire_crc (
    input  wire        clk,
    input  wire        rst,
    input  wire        init,
    input  wire        valid,
    input  wire [63:0] data,
    input  wire [3:0]  nbytes,
    output wire [31:0] crc,
    output wire [31:0] crc_next
);

`include "via_wire_crc.vh"

reg  [31:0] reg_q;
wire [31:0] start = init ? 32'hFFFF_FFFF : reg_q;
// (an if, not a ?: : the simulator then runs the XOR trees only on the
// cycles that carry a beat)
reg  [31:0] upd;
always @(*) begin
    upd = start;
    if (valid) upd = via_wire_crc32_d64(start, data, nbytes);
end

always @(posedge clk) begin
    if (rst) begin
        reg_q <= 32'hFFFF_FFFF;
    end else begin
        reg_q <= upd;
    end
end

assign crc = ~reg_q;
assign crc_next = ~upd;

endmodule

`default_nettype wire
