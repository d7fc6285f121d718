// tb_via_vi_tx: self-checking bench of the send engine via_vi_tx.
//
// Runs tb_via_vi_tx_env (a real via_tpt and via_desc_fetch, an AXI4 memory
// model, context model, work driver and frame sink) on configurations side
// by side:
//   a: 64-bit datapath, read latency 20, every case, with and without
//      back-pressure
//   b: 256-bit datapath, read latency 16, every case
//   c: 512-bit datapath, 32-bit addresses, 2 ID bits, read latency 12,
//      every case (a beat holds a whole 64-byte block)
//   t: 64-bit datapath, read latency 125 (500 ns at 250 MHz): the 32 KiB
//      throughput figure (>= 90 % of one beat per cycle required)
// Plusargs: +seed=N (default 1), +vcd=PATH, +short (the random pass with
// back-pressure only, for make test's run in Icarus). Prints PASS; failures
// $fatal.

`timescale 1ns / 1ps

module tb_via_vi_tx;

localparam TIMEOUT_CYCLES = 3000000;

reg clk = 1'b0;
reg rst = 1'b1;
wire fin_a, fin_b, fin_c, fin_t;

always #2 clk = ~clk;

wire clk_a = clk & (fin_a !== 1'b1);
wire clk_b = clk & (fin_b !== 1'b1);
wire clk_c = clk & (fin_c !== 1'b1);
wire clk_t = clk & (fin_t !== 1'b1);

tb_via_vi_tx_env #(
    .DATA_WIDTH(64),
    .READ_LATENCY(20),
    .READY_PROB(60),
    .MODE(0),
    .RANDOM_SENDS(40),
    .SALT(1)
) env_a (
    .clk(clk_a),
    .rst(rst),
    .finished(fin_a)
);

tb_via_vi_tx_env #(
    .DATA_WIDTH(256),
    .ADDR_WIDTH(40),
    .READ_LATENCY(16),
    .READY_PROB(50),
    .MODE(0),
    .RANDOM_SENDS(20),
    .SALT(2)
) env_b (
    .clk(clk_b),
    .rst(rst),
    .finished(fin_b)
);

tb_via_vi_tx_env #(
    .DATA_WIDTH(512),
    .ADDR_WIDTH(32),
    .ID_WIDTH(2),
    .READ_LATENCY(12),
    .READY_PROB(50),
    .MODE(0),
    .RANDOM_SENDS(12),
    .SALT(4)
) env_c (
    .clk(clk_c),
    .rst(rst),
    .finished(fin_c)
);

tb_via_vi_tx_env #(
    .DATA_WIDTH(64),
    .READ_LATENCY(125),
    .READY_PROB(100),
    .MODE(1),
    .SALT(3)
) env_t (
    .clk(clk_t),
    .rst(rst),
    .finished(fin_t)
);

reg [1023:0] vcd_path;

initial begin
    if ($value$plusargs("vcd=%s", vcd_path)) begin
        $dumpfile(vcd_path);
        $dumpvars(0, tb_via_vi_tx);
    end
    repeat (10) @(posedge clk);
    #1 rst = 1'b0;
end

initial begin
    wait (rst === 1'b0 && fin_a === 1'b1 && fin_b === 1'b1 && fin_c === 1'b1 && fin_t === 1'b1);
    repeat (2) @(posedge clk);
    $display("PASS");
    $finish;
end

integer cycle_count = 0;
always @(posedge clk) begin
    cycle_count <= cycle_count + 1;
    if (cycle_count >= TIMEOUT_CYCLES) begin
        $fatal(1, "tb_via_vi_tx: timeout after %0d cycles (finished: a %b b %b c %b t %b)", TIMEOUT_CYCLES, fin_a, fin_b, fin_c, fin_t);
    end
end

endmodule
