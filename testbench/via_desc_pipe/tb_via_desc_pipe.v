// tb_via_desc_pipe: self-checking bench of the pipelined descriptor fetch
// unit.
//
// Runs tb_via_desc_pipe_env (a real via_tpt, via_axi_rd_arb, an AXI4 memory
// model with random back-pressure, and a reference model of the unit: the
// via_desc_fetch bench's) on several configurations side by side:
//   a: the NIC's default datapath (64-bit, 48-bit addresses), MAX_SEGS 16,
//      DEPTH 8
//   b: 256-bit datapath, 40-bit addresses, MAX_SEGS 5, DEPTH 4 (several
//      words and segments per beat, beats that cover bytes outside the
//      descriptor)
//   c: the longest descriptors (MAX_SEGS 124), 64-bit addresses, one ID
//      bit, DEPTH 2
//   d: 512-bit datapath (a beat holds a whole 64-byte block), 32-bit
//      addresses, MAX_SEGS 4, DEPTH 16
//   e: 128-bit datapath (one segment per beat), MAX_SEGS 4, DEPTH 8
//   p8, p16: throughput with 125-cycle reads, DEPTH 8 and 16 (prints the
//      cycles per result)
// Plusargs: +seed=N (default 1), +vcd=PATH (dump a waveform), +short (a
// quarter of the random fetches of check 5, for make test's run in Icarus;
// the run in the other simulator stays whole).
// Prints PASS when every environment has finished; any failure is a $fatal.

`timescale 1ns / 1ps

module tb_via_desc_pipe;

// clock cycles after which the bench declares a hang
localparam TIMEOUT_CYCLES = 2000000;

reg clk = 1'b0;
reg rst = 1'b1;
wire fin_a, fin_b, fin_c, fin_d, fin_e, fin_p8, fin_p16;

always #5 clk = ~clk;

// a finished environment gets no more clock edges
wire clk_a = clk & (fin_a !== 1'b1);
wire clk_b = clk & (fin_b !== 1'b1);
wire clk_c = clk & (fin_c !== 1'b1);
wire clk_d = clk & (fin_d !== 1'b1);
wire clk_e = clk & (fin_e !== 1'b1);
wire clk_p8 = clk & (fin_p8 !== 1'b1);
wire clk_p16 = clk & (fin_p16 !== 1'b1);

tb_via_desc_pipe_env #(
    .DATA_WIDTH(64),
    .ADDR_WIDTH(48),
    .MAX_SEGS(16),
    .READ_LATENCY(10),
    .READY_PROB(50),
    .RANDOM_FETCHES(400),
    .DEPTH(8),
    .SALT(1)
) env_a (
    .clk(clk_a),
    .rst(rst),
    .finished(fin_a)
);

tb_via_desc_pipe_env #(
    .DATA_WIDTH(256),
    .ADDR_WIDTH(40),
    .MAX_SEGS(5),
    .READ_LATENCY(16),
    .READY_PROB(40),
    .RANDOM_FETCHES(200),
    .PASSES(1),
    .DEPTH(4),
    .SALT(2)
) env_b (
    .clk(clk_b),
    .rst(rst),
    .finished(fin_b)
);

tb_via_desc_pipe_env #(
    .DATA_WIDTH(64),
    .ADDR_WIDTH(64),
    .ID_WIDTH(1),
    .MAX_SEGS(124),
    .READ_LATENCY(8),
    .READY_PROB(75),
    .RANDOM_FETCHES(24),
    .PASSES(1),
    .DEPTH(2),
    .ABORTS(3),
    .SALT(3)
) env_c (
    .clk(clk_c),
    .rst(rst),
    .finished(fin_c)
);

tb_via_desc_pipe_env #(
    .DATA_WIDTH(512),
    .ADDR_WIDTH(32),
    .MAX_SEGS(4),
    .READ_LATENCY(12),
    .READY_PROB(50),
    .RANDOM_FETCHES(200),
    .PASSES(1),
    .DEPTH(16),
    .SALT(4)
) env_d (
    .clk(clk_d),
    .rst(rst),
    .finished(fin_d)
);

tb_via_desc_pipe_env #(
    .DATA_WIDTH(128),
    .ADDR_WIDTH(48),
    .MAX_SEGS(4),
    .READ_LATENCY(20),
    .READY_PROB(60),
    .RANDOM_FETCHES(150),
    .PASSES(1),
    .DEPTH(8),
    .ABORTS(4),
    .SALT(7)
) env_e (
    .clk(clk_e),
    .rst(rst),
    .finished(fin_e)
);

tb_via_desc_pipe_env #(
    .DATA_WIDTH(64),
    .ADDR_WIDTH(48),
    .MAX_SEGS(16),
    .READ_LATENCY(125),
    .READY_PROB(100),
    .DEPTH(8),
    .PERF(1),
    .SALT(5)
) env_p8 (
    .clk(clk_p8),
    .rst(rst),
    .finished(fin_p8)
);

tb_via_desc_pipe_env #(
    .DATA_WIDTH(64),
    .ADDR_WIDTH(48),
    .MAX_SEGS(16),
    .READ_LATENCY(125),
    .READY_PROB(100),
    .DEPTH(16),
    .PERF(1),
    .SALT(6)
) env_p16 (
    .clk(clk_p16),
    .rst(rst),
    .finished(fin_p16)
);

reg [1023:0] vcd_path;

initial begin
    if ($value$plusargs("vcd=%s", vcd_path)) begin
        $dumpfile(vcd_path);
        $dumpvars(0, tb_via_desc_pipe);
    end
    repeat (10) @(posedge clk);
    #1 rst = 1'b0;
end

initial begin
    // (after reset: an environment's finished starts at 0 only once it runs)
    wait (rst === 1'b0 && fin_a === 1'b1 && fin_b === 1'b1 && fin_c === 1'b1 && fin_d === 1'b1 && fin_e === 1'b1
        && fin_p8 === 1'b1 && fin_p16 === 1'b1);
    repeat (2) @(posedge clk);
    $display("PASS");
    $finish;
end

// watchdog, counted in cycles
integer cycle_count = 0;
always @(posedge clk) begin
    cycle_count <= cycle_count + 1;
    if (cycle_count >= TIMEOUT_CYCLES) begin
        $fatal(1, "tb_via_desc_pipe: timeout after %0d cycles (finished: a %b b %b c %b d %b e %b p8 %b p16 %b)", TIMEOUT_CYCLES,
            fin_a, fin_b, fin_c, fin_d, fin_e, fin_p8, fin_p16);
    end
end

endmodule
