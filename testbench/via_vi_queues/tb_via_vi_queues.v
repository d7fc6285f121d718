// tb_via_vi_queues: self-checking bench for rtl/via_vi_queues.v.
//
// Runs tb_via_vi_queues_env (the block, a host model, an engine model and
// a reference model of the queues, the pool and the fallback chain) on two
// configurations side by side, both NUM_VI 6 (VIs 6 and 7 of the 3-bit
// index out of range), MAX_DESC 8:
//   a: POOL 256, MAX_INFLIGHT 4: the pool never fills (12 queues x 8)
//   b: POOL 16, MAX_INFLIGHT 3: the pool fills all the time, so the
//      fallback chain (fb, succ, pending, Next) carries much of the traffic
// Plusargs: +seed=N (default 1), +vcd=PATH (dump a waveform), +debug, +short
// (a third of the random phase's posts, for make test's run in Icarus; the
// run in the other simulator stays whole).
// Prints PASS when both environments have finished; any failure is a $fatal.

`timescale 1ns / 1ps

module tb_via_vi_queues;

reg clk = 1'b0;
always #5 clk = ~clk;

wire fin_a, fin_b;
wire clk_a = clk & (fin_a !== 1'b1);
wire clk_b = clk & (fin_b !== 1'b1);

reg [8*256-1:0] vcd_file;
integer seed;
initial begin
    if (!$value$plusargs("seed=%d", seed)) seed = 1;
    if ($value$plusargs("vcd=%s", vcd_file)) begin
        $dumpfile(vcd_file);
        $dumpvars(0, tb_via_vi_queues);
    end
end

initial begin
    #20000000;
    $fatal(1, "tb_via_vi_queues: watchdog timeout");
end

tb_via_vi_queues_env #(.POOL(256), .MAXIF(4), .SALT(1), .NAME("a")) u_a (.clk(clk_a), .seed(seed), .fin(fin_a));
tb_via_vi_queues_env #(.POOL(16),  .MAXIF(3), .SALT(2), .NAME("b")) u_b (.clk(clk_b), .seed(seed), .fin(fin_b));

initial begin
    #100;
    wait (fin_a === 1'b1 && fin_b === 1'b1);
    $display("PASS");
    $finish;
end

endmodule
