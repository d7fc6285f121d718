// tb_fabric_delay: a link's latency for the via_fabric bench (not
// synthesizable). q is d delayed by lat cycles (1 .. MAXL), chosen at run
// time; change lat only during reset. Every stage resets to zero, so no
// symbol is in flight after a reset.

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
integer s;

always @(posedge clk) begin
    for (s = MAXL - 1; s > 0; s = s - 1) begin
        sr[s] <= rst ? {W{1'b0}} : sr[s-1];
    end
    sr[0] <= rst ? {W{1'b0}} : d;
end

assign q = sr[lat - 6'd1];

endmodule
