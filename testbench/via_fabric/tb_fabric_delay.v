// tb_fabric_delay: a link's latency for the via_fabric bench (not
// synthesizable). q is d delayed by lat cycles (1 .. MAXL), chosen at run
// time; change lat only during reset. Every stage resets to zero, so no
// symbol is in flight after a reset.
//
// A ring of MAXL words with a write pointer rather than a shift register:
// one word is written per cycle instead of MAXL moved, which is most of
// what 40 of these cost Icarus every cycle (the same q either way).

`timescale 1ns / 1ps

module tb_fabric_delay #(
    parameter W    = 1,
    parameter MAXL = 32
) (
    input  wire         clk,
    input  wire         rst,
    input  wire [5:0]   lat,
    input  wire [W-1:0] d,
    output wire [W-1:0] q
);

reg [W-1:0] sr [0:MAXL-1];
integer wp = 0;   // the word the next d goes to; sr[wp - k] holds d of k cycles ago
integer s;

always @(posedge clk) begin
    if (rst) begin
        for (s = 0; s < MAXL; s = s + 1) begin
            sr[s] <= {W{1'b0}};
        end
        wp <= 0;
    end else begin
        sr[wp] <= d;
        wp <= (wp + 1) % MAXL;
    end
end

assign q = sr[(wp + MAXL - lat) % MAXL];

endmodule
