// tb_via_blocks: unit bench of the hand-written register blocks that
// via_regfile routes to, each driven on its own register-block bus
// (docs/rtl.md, "Register blocks") by a checker of its own:
//   tb_via_blocks_irq            via_irq_ctrl (NUM_IRQ 5)
//   tb_via_blocks_fw_log         via_fw_log (DEPTH 3)
//   tb_via_blocks_cpu_ctrl       via_cpu_ctrl
//   tb_via_blocks_cpu_host_port  via_cpu_host_port
//   tb_via_blocks_admin          via_admin_mbox
// Every checker checks its block's reset values and decode against the
// generated register table (testbench/common/via_bar0_reg_table.vh), then
// what the block does (see each checker). One bench for all of them: every
// bench directory costs a Verilator build in `make test`.
//
// A failed check stops the simulation with $fatal; PASS is printed only
// when every checker has run to its end. Plusargs: +vcd=PATH.

`timescale 1ns / 1ps

module tb_via_blocks;

localparam TIMEOUT_CYCLES = 20000;

reg clk = 1'b0;
always #5 clk = ~clk;

wire done_irq, done_fw_log, done_cpu_ctrl, done_cpu_host_port, done_admin;

tb_via_blocks_irq irq_chk (.clk(clk), .done(done_irq));
tb_via_blocks_fw_log fw_log_chk (.clk(clk), .done(done_fw_log));
tb_via_blocks_cpu_ctrl cpu_ctrl_chk (.clk(clk), .done(done_cpu_ctrl));
tb_via_blocks_cpu_host_port cpu_host_port_chk (.clk(clk), .done(done_cpu_host_port));
tb_via_blocks_admin admin_chk (.clk(clk), .done(done_admin));

reg [1023:0] vcd_path;

initial begin
    if ($value$plusargs("vcd=%s", vcd_path)) begin
        $dumpfile(vcd_path);
        $dumpvars(0, tb_via_blocks);
    end
end

initial begin
    wait (done_irq === 1'b1 && done_fw_log === 1'b1 && done_cpu_ctrl === 1'b1
          && done_cpu_host_port === 1'b1 && done_admin === 1'b1);
    if (irq_chk.checks < 1 || fw_log_chk.checks < 1 || cpu_ctrl_chk.checks < 1
        || cpu_host_port_chk.checks < 1 || admin_chk.checks < 1) begin
        $fatal(1, "tb_via_blocks: a checker ran no check");
    end
    $display("tb_via_blocks: %0d checks", irq_chk.checks + fw_log_chk.checks + cpu_ctrl_chk.checks
             + cpu_host_port_chk.checks + admin_chk.checks);
    $display("PASS");
    $finish;
end

integer cycle_count = 0;
always @(posedge clk) begin
    cycle_count <= cycle_count + 1;
    if (cycle_count >= TIMEOUT_CYCLES) begin
        $fatal(1, "tb_via_blocks: timeout after %0d cycles (done: irq %b fw_log %b cpu_ctrl %b cpu_host_port %b admin %b)",
               TIMEOUT_CYCLES, done_irq, done_fw_log, done_cpu_ctrl, done_cpu_host_port, done_admin);
    end
end

endmodule
