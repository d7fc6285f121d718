// tb_via_fabric: self-checking bench for rtl/via_fabric.v and
// rtl/via_link_port.v (docs/fabric.md, "The switch and the links").
//
// Two switch configurations run side by side, each a tb_fabric_env (its
// header lists the phases: random traffic, hot spot, a stalled sink, a bad
// dst_node, every fault action and selection, at link latency 25 and 1):
//   e4  PORTS 4, IN_DEPTH 64, RX_DEPTH 64, OQ_DEPTH 512, line rate
//       everywhere: the hot spot and one sender run at >= 0.95 beats/cycle;
//   e2  PORTS 2, OQ_DEPTH 256, the switch's outputs limited to 3 beats per 4
//       cycles and the link ports to 2 per 3: the hot spot runs at the
//       switch's limit (0.70 .. 0.76), one sender at its link port's
//       (0.62 .. 0.675).
// A third part, tb_fabric_msg, tests the message hold (one message at a time
// per output). PASS when all are done; any failure is a $fatal.
// Plusargs: +vcd=PATH, +seed=N, +short (a sixth of the random traffic (a
// quarter in the message-hold part) and
// half the hot spot at L=25, for make test's run in Icarus; the run in
// the other simulator stays whole).

`timescale 1ns / 1ps

module tb_via_fabric;

reg [8*256-1:0] vcd_file;
initial begin
    if ($value$plusargs("vcd=%s", vcd_file)) begin
        $dumpfile(vcd_file);
        $dumpvars(0, tb_via_fabric);
    end
end

initial begin
    #20000000;
    $fatal(1, "tb_via_fabric: watchdog timeout");
end

wire done4, done2, done_msg;

// the message hold (MSG_HOLD 1), with frames whose flags byte is FIRST/LAST
tb_fabric_msg m4 (
    .done(done_msg)
);

tb_fabric_env #(
    .P(4)
) e4 (
    .done(done4)
);

tb_fabric_env #(
    .P(2),
    .OQ_DEPTH(256),
    .FAB_BW_NUM(3),
    .FAB_BW_DEN(4),
    .LP_BW_NUM(2),
    .LP_BW_DEN(3),
    .HS_MIN(700),
    .HS_MAX(760),
    .SS_MIN(620),
    .SS_MAX(675)
) e2 (
    .done(done2)
);

initial begin
    wait (done4 && done2 && done_msg);
    $display("PASS");
    $finish;
end

endmodule
