// tb_via_desc_fetch: self-checking bench of the descriptor fetch unit.
//
// Runs tb_via_desc_fetch_env (a real via_tpt, via_axi_rd_arb, an AXI4
// memory model with random back-pressure, and a reference model of the
// unit) on two configurations side by side:
//   a: the NIC's default datapath (64-bit, 48-bit addresses), MAX_SEGS 16
//   b: 256-bit datapath, 40-bit addresses, MAX_SEGS 5 (several words and
//      segments per beat, beats that cover bytes outside the descriptor)
// a runs its directed sequence without and with back-pressure, the others
// with back-pressure only; then each its random fetches and the fence test.
// Plusargs: +seed=N (default 1), +vcd=PATH (dump a waveform).
// Prints PASS when every environment has finished; any failure is a $fatal.

`timescale 1ns / 1ps

module tb_via_desc_fetch;

// clock cycles after which the bench declares a hang
localparam TIMEOUT_CYCLES = 2000000;

reg clk = 1'b0;
reg rst = 1'b1;
wire fin_a, fin_b, fin_c, fin_d;

always #5 clk = ~clk;

// a finished environment gets no more clock edges
wire clk_a = clk & (fin_a !== 1'b1);
wire clk_b = clk & (fin_b !== 1'b1);
wire clk_c = clk & (fin_c !== 1'b1);
wire clk_d = clk & (fin_d !== 1'b1);

tb_via_desc_fetch_env #(
    .DATA_WIDTH(64),
    .ADDR_WIDTH(48),
    .MAX_SEGS(16),
    .READ_LATENCY(10),
    .READY_PROB(50),
    .RANDOM_FETCHES(160),
    .SALT(1)
) env_a (
    .clk(clk_a),
    .rst(rst),
    .finished(fin_a)
);

tb_via_desc_fetch_env #(
    .DATA_WIDTH(256),
    .ADDR_WIDTH(40),
    .MAX_SEGS(5),
    .READ_LATENCY(16),
    .READY_PROB(40),
    .RANDOM_FETCHES(60),
    .PASSES(1),
    .SALT(2)
) env_b (
    .clk(clk_b),
    .rst(rst),
    .finished(fin_b)
);

// the longest descriptors (MAX_SEGS 124: 2032 bytes, bursts of 254 beats),
// 64-bit addresses, one ID bit
tb_via_desc_fetch_env #(
    .DATA_WIDTH(64),
    .ADDR_WIDTH(64),
    .ID_WIDTH(1),
    .MAX_SEGS(124),
    .READ_LATENCY(8),
    .READY_PROB(75),
    .RANDOM_FETCHES(8),
    .PASSES(1),
    .SALT(3)
) env_c (
    .clk(clk_c),
    .rst(rst),
    .finished(fin_c)
);

// the widest datapath (a beat holds a whole 64-byte block), 32-bit
// addresses
tb_via_desc_fetch_env #(
    .DATA_WIDTH(512),
    .ADDR_WIDTH(32),
    .MAX_SEGS(4),
    .READ_LATENCY(12),
    .READY_PROB(50),
    .RANDOM_FETCHES(60),
    .PASSES(1),
    .SALT(4)
) env_d (
    .clk(clk_d),
    .rst(rst),
    .finished(fin_d)
);

reg [1023:0] vcd_path;

initial begin
    if ($value$plusargs("vcd=%s", vcd_path)) begin
        $dumpfile(vcd_path);
        $dumpvars(0, tb_via_desc_fetch);
    end
    repeat (10) @(posedge clk);
    #1 rst = 1'b0;
end

initial begin
    // (after reset: an environment's finished starts at 0 only once it runs)
    wait (rst === 1'b0 && fin_a === 1'b1 && fin_b === 1'b1 && fin_c === 1'b1 && fin_d === 1'b1);
    repeat (2) @(posedge clk);
    $display("PASS");
    $finish;
end

// watchdog, counted in cycles
integer cycle_count = 0;
always @(posedge clk) begin
    cycle_count <= cycle_count + 1;
    if (cycle_count >= TIMEOUT_CYCLES) begin
        $fatal(1, "tb_via_desc_fetch: timeout after %0d cycles (finished: a %b b %b c %b d %b)", TIMEOUT_CYCLES, fin_a, fin_b, fin_c, fin_d);
    end
end

endmodule
