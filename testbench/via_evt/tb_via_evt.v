// tb_via_evt: self-checking bench for rtl/via_evt.v (interrupt vectors).
//
// Runs tb_via_evt_env (the block on the register bus and its three
// completion ports, a cycle-level reference model of the routes, arms,
// moderation and counts checked every cycle, and the directed and random
// sequence described there) on three configurations side by side:
//   a: NUM_VI 64, NUM_CQ 16, NUM_VEC 8 (the NIC's), IRQ_LSB 8; also the
//      decode of the whole register space
//   b: NUM_VI 5 (VIs 5..7 fit the index but do not exist), NUM_CQ 3 (CQ 3
//      fits the index), NUM_VEC 3 (vectors 3..7 fit EVT_MAP.VEC), IRQ_LSB 8
//   c: NUM_VI 1, NUM_CQ 1, NUM_VEC 1, IRQ_LSB 20 (one of everything)
// Plusargs: +seed=N (default 1), +vcd=PATH (dump a waveform), +short (a
// third of the random cycles), +debug (the model's raises).
// Prints PASS when every environment has finished; any failure is a $fatal.

`timescale 1ns / 1ps

module tb_via_evt;

// clock cycles after which the bench declares a hang
localparam TIMEOUT_CYCLES = 200000;

reg clk = 1'b0;
always #5 clk = ~clk;

wire fin_a, fin_b, fin_c;
// a finished environment gets no more clock edges
wire clk_a = clk & (fin_a !== 1'b1);
wire clk_b = clk & (fin_b !== 1'b1);
wire clk_c = clk & (fin_c !== 1'b1);

tb_via_evt_env #(
    .NUM_VI(64),
    .NUM_CQ(16),
    .NUM_VEC(8),
    .IRQ_LSB(8),
    .ROUNDS(4),
    .RAND_CYCLES(3000),
    .DECODE(1),
    .SALT(1),
    .NAME("a")
) env_a (
    .clk(clk_a),
    .fin(fin_a)
);

tb_via_evt_env #(
    .NUM_VI(5),
    .NUM_CQ(3),
    .NUM_VEC(3),
    .IRQ_LSB(8),
    .ROUNDS(4),
    .RAND_CYCLES(3000),
    .DECODE(0),
    .SALT(2),
    .NAME("b")
) env_b (
    .clk(clk_b),
    .fin(fin_b)
);

tb_via_evt_env #(
    .NUM_VI(1),
    .NUM_CQ(1),
    .NUM_VEC(1),
    .IRQ_LSB(20),
    .ROUNDS(2),
    .RAND_CYCLES(1500),
    .DECODE(0),
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
        $dumpvars(0, tb_via_evt);
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
        $fatal(1, "tb_via_evt: timeout after %0d cycles (finished: a %b b %b c %b)", TIMEOUT_CYCLES, fin_a, fin_b, fin_c);
end

endmodule
