// via_cpu_ram: true dual-port RAM of 32-bit words for the control processor
// (its instruction and data memories; via_regfile also uses it for the
// 64-word admin command and response windows).
//
// Port A (the core) writes with byte enables, port B (the host port) whole
// words. Both ports read synchronously: rdata is the word addressed in the
// last cycle in which the port's en was 1 and holds its value while en is 0.
// A read returns the word as it was before a write in the same cycle on the
// same port (read-first). When both ports address the same word in the same
// cycle and one of them writes, the other port's read data is undefined (as
// in a block RAM) and if both write, port B wins in simulation; via_cpu never
// relies on either case. The array has no reset and no initial contents, so
// synthesis maps it to block RAM (Yosys infers one $mem with two write and
// two read ports).

`timescale 1ns / 1ps
`default_nettype none

`include "via_param_check.vh"
module via_cpu_ram #(
    parameter WORDS = 1024,  // number of 32-bit words (>= 2)
    parameter AW    = 10     // address bits, $clog2(WORDS)
) (
    input  wire          clk,

    // port A: core, byte write enables
    input  wire          a_en,
    input  wire [3:0]    a_we,
    input  wire [AW-1:0] a_addr,
    input  wire [31:0]   a_wdata,
    output reg  [31:0]   a_rdata,

    // port B: host, word writes
    input  wire          b_en,
    input  wire          b_we,
    input  wire [AW-1:0] b_addr,
    input  wire [31:0]   b_wdata,
    output reg  [31:0]   b_rdata
);

generate
    if (WORDS < 2) begin : g_bad_words
        `VIA_PARAM_FAIL(("via_cpu_ram: WORDS=%0d, must be >= 2", WORDS))
    end
    if (AW != $clog2(WORDS)) begin : g_bad_aw
        `VIA_PARAM_FAIL(("via_cpu_ram: AW=%0d, must be $clog2(WORDS=%0d)", AW, WORDS))
    end
endgenerate

reg [31:0] mem [0:WORDS-1];

// Both write ports live in one process: the simulators and Yosys then agree
// on a single driver for the array.
always @(posedge clk) begin
    if (a_en) begin
        if (a_we[0]) mem[a_addr][7:0]   <= a_wdata[7:0];
        if (a_we[1]) mem[a_addr][15:8]  <= a_wdata[15:8];
        if (a_we[2]) mem[a_addr][23:16] <= a_wdata[23:16];
        if (a_we[3]) mem[a_addr][31:24] <= a_wdata[31:24];
        a_rdata <= mem[a_addr];
    end
    if (b_en) begin
        if (b_we) mem[b_addr] <= b_wdata;
        b_rdata <= mem[b_addr];
    end
end

endmodule

`default_nettype wire
