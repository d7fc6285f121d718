// tb_via_cq: self-checking bench for rtl/via_cq.v (completion queues).
//
// Runs tb_via_cq_env (the block, event sources that keep to done_ready's
// promise adversarially, an axi_ram_model behind a W buffer, a reference
// model of the CQs, the bindings and the counters, and the directed and
// random sequence described there) on three configurations side by side:
//   a: 64-bit data, 48-bit addresses, NUM_VI 8, NUM_CQ 16, MAX_LOG2 12;
//      in Verilator also the wrap from RESET (2**16 + 1029 entries into a
//      4096-entry ring: SEQ, PROD and CONS through 2**16; every environment
//      passes 2**16 from a preset count)
//   b: 128-bit data (an entry is one 8-byte lane of the beat), 48-bit
//      addresses, NUM_VI 64 (the NIC's default), NUM_CQ 16, MAX_LOG2 12
//   c: 256-bit data, 32-bit addresses (CQ_BASE_HI keeps nothing), NUM_VI 5
//      (VIs 5..7 fit the index but do not exist), NUM_CQ 3 (CQ_SEL 3
//      names nothing though it fits the index), MAX_LOG2 4
// Plusargs: +seed=N (default 1), +vcd=PATH (dump a waveform), +short (a
// third of the random events, no wrap from RESET), +debug (the model's
// decisions and the events, printed).
// Prints PASS when every environment has finished; any failure is a $fatal.

`timescale 1ns / 1ps

module tb_via_cq;

// clock cycles after which the bench declares a hang
localparam TIMEOUT_CYCLES = 2000000;

reg clk = 1'b0;
always #5 clk = ~clk;

wire fin_a, fin_b, fin_c;
// a finished environment gets no more clock edges
wire clk_a = clk & (fin_a !== 1'b1);
wire clk_b = clk & (fin_b !== 1'b1);
wire clk_c = clk & (fin_c !== 1'b1);

tb_via_cq_env #(
    .DATA_WIDTH(64),
    .ADDR_WIDTH(48),
    .NUM_VI(8),
    .NUM_CQ(16),
    .MAX_LOG2(12),
    .MEM_BYTES(131072),
    .WRAP_BASE(32'h18000),
    .WRITE_LATENCY(3),
    .ROUNDS(3),
    .RAND_EVENTS(800),
    .WRAP(1),
    .WR_ID(4'd6),
    .SALT(1),
    .NAME("a")
) env_a (
    .clk(clk_a),
    .fin(fin_a)
);

tb_via_cq_env #(
    .DATA_WIDTH(128),
    .ADDR_WIDTH(48),
    .NUM_VI(64),
    .NUM_CQ(16),
    .MAX_LOG2(12),
    .MEM_BYTES(81920),
    .WRITE_LATENCY(6),
    .ROUNDS(3),
    .RAND_EVENTS(800),
    .WRAP(0),
    .WR_ID(4'd9),
    .SALT(2),
    .NAME("b")
) env_b (
    .clk(clk_b),
    .fin(fin_b)
);

tb_via_cq_env #(
    .DATA_WIDTH(256),
    .ADDR_WIDTH(32),
    .NUM_VI(5),
    .NUM_CQ(3),
    .MAX_LOG2(4),
    .MEM_BYTES(16384),
    .WRITE_LATENCY(1),
    .ROUNDS(3),
    .RAND_EVENTS(600),
    .WRAP(0),
    .WR_ID(4'd15),
    .SALT(3),
    .NAME("c")
) env_c (
    .clk(clk_c),
    .fin(fin_c)
);

reg [1023:0] vcd_path;
initial begin
    if ($value$plusargs("vcd=%s", vcd_path)) begin
        $dumpfile(vcd_path);
        $dumpvars(0, tb_via_cq);
    end
end

initial begin
    #100;
    wait (fin_a === 1'b1 && fin_b === 1'b1 && fin_c === 1'b1);
    repeat (2) @(posedge clk);
    $display("PASS");
    $finish;
end

// watchdog: no hang may outlive this (counted in cycles: a long # delay
// overflows 32 bits in Verilator)
integer cycle_count = 0;
always @(posedge clk) begin
    cycle_count <= cycle_count + 1;
    if (cycle_count >= TIMEOUT_CYCLES)
        $fatal(1, "tb_via_cq: timeout after %0d cycles (finished: a %b b %b c %b)", TIMEOUT_CYCLES, fin_a, fin_b, fin_c);
end

endmodule
