// via_ram: generic simple dual-port RAM, WIDTH bits x WORDS words.
//
// One write port (wr_en, wr_addr, wr_data) and one synchronous read port:
// rd_data is the word addressed by rd_addr in the last cycle in which rd_en
// was 1, and holds its value while rd_en is 0. A read of the word written in
// the same cycle returns undefined data (the model returns the old word, as
// a read-first block RAM would); users must not rely on it (via_tpt never
// uses such a read). The array has no reset and no initial contents, so
// synthesis can map it to block RAM; the NIC's synthesis flow
// (sim-scripts/synth.ys) reads this module as a blackbox and
// sim-scripts/synth.sh lists the bits of its instances.
//
// Users: via_tpt (the region table and the page-list cache).

`timescale 1ns / 1ps
`default_nettype none

`include "via_param_check.vh"
module via_ram #(
    parameter WIDTH = 32,    // bits per word (1 .. 4096)
    parameter WORDS = 1024,  // number of words (2 .. 2**24)
    // derived, do not override
    parameter AW    = $clog2(WORDS)
) (
    input  wire             clk,

    // write port
    input  wire             wr_en,
    input  wire [AW-1:0]    wr_addr,
    input  wire [WIDTH-1:0] wr_data,

    // read port (synchronous)
    input  wire             rd_en,
    input  wire [AW-1:0]    rd_addr,
    output reg  [WIDTH-1:0] rd_data
);

generate
    if (WIDTH < 1 || WIDTH > 4096) begin : g_bad_width
        `VIA_PARAM_FAIL(("via_ram: WIDTH=%0d, must be 1..4096", WIDTH))
    end
    if (WORDS < 2 || WORDS > (1 << 24)) begin : g_bad_words
        `VIA_PARAM_FAIL(("via_ram: WORDS=%0d, must be 2 .. 2**24", WORDS))
    end
    if (AW != $clog2(WORDS)) begin : g_bad_aw
        `VIA_PARAM_FAIL(("via_ram: AW=%0d is derived, must be $clog2(WORDS=%0d)", AW, WORDS))
    end
endgenerate

reg [WIDTH-1:0] mem [0:WORDS-1];

always @(posedge clk) begin
    if (wr_en) begin
        mem[wr_addr] <= wr_data;
    end
    if (rd_en) begin
        rd_data <= mem[rd_addr];
    end
end

endmodule

`default_nettype wire
