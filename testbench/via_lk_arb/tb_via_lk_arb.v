// tb_via_lk_arb: self-checking bench of via_lk_arb.
//
// Runs tb_via_lk_arb_env (PORTS random requesters, via_lk_arb, a model of
// via_tpt's lookup port with random lk_ready, latency and rs_valid gaps) in
// four configurations side by side:
//   a: 2 ports, 1-bit inner tags, 48-bit addresses (the defaults)
//   b: 3 ports, 4-bit tags, 64-bit addresses, a slow TPT, eager requesters
//   c: 8 ports, 2-bit tags, 32-bit addresses
//   d: 5 ports, 3-bit tags, a TPT that never stalls and requesters that
//      always ask (most contention, back-to-back lookups)
// Plusargs: +seed=N (default 1), +vcd=PATH. Prints PASS when every
// environment has finished; any failure is a $fatal.

`timescale 1ns / 1ps

module tb_via_lk_arb;

localparam TIMEOUT_CYCLES = 2000000;

reg clk = 1'b0;
reg rst = 1'b1;
wire fin_a, fin_b, fin_c, fin_d;

always #5 clk = ~clk;

wire clk_a = clk & (fin_a !== 1'b1);
wire clk_b = clk & (fin_b !== 1'b1);
wire clk_c = clk & (fin_c !== 1'b1);
wire clk_d = clk & (fin_d !== 1'b1);

tb_via_lk_arb_env #(
    .PORTS(2), .ADDR_WIDTH(48), .TAG_WIDTH(1), .N(400), .SALT(1)
) env_a (.clk(clk_a), .rst(rst), .finished(fin_a));

tb_via_lk_arb_env #(
    .PORTS(3), .ADDR_WIDTH(64), .TAG_WIDTH(4), .N(300), .LK_PROB(30), .RS_PROB(40), .VALID_PROB(80), .SALT(2)
) env_b (.clk(clk_b), .rst(rst), .finished(fin_b));

tb_via_lk_arb_env #(
    .PORTS(8), .ADDR_WIDTH(32), .TAG_WIDTH(2), .N(150), .SALT(3)
) env_c (.clk(clk_c), .rst(rst), .finished(fin_c));

tb_via_lk_arb_env #(
    .PORTS(5), .ADDR_WIDTH(48), .TAG_WIDTH(3), .N(200), .LK_PROB(100), .RS_PROB(100), .VALID_PROB(100), .SALT(4)
) env_d (.clk(clk_d), .rst(rst), .finished(fin_d));

reg [1023:0] vcd_path;

initial begin
    if ($value$plusargs("vcd=%s", vcd_path)) begin
        $dumpfile(vcd_path);
        $dumpvars(0, tb_via_lk_arb);
    end
    repeat (10) @(posedge clk);
    #1 rst = 1'b0;
end

initial begin
    wait (rst === 1'b0 && fin_a === 1'b1 && fin_b === 1'b1 && fin_c === 1'b1 && fin_d === 1'b1);
    repeat (2) @(posedge clk);
    $display("PASS");
    $finish;
end

integer cycle_count = 0;
always @(posedge clk) begin
    cycle_count <= cycle_count + 1;
    if (cycle_count >= TIMEOUT_CYCLES) begin
        $fatal(1, "tb_via_lk_arb: timeout after %0d cycles (finished: a %b b %b c %b d %b)", TIMEOUT_CYCLES, fin_a, fin_b, fin_c, fin_d);
    end
end

endmodule
