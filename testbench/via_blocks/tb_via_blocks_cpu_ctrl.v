// tb_via_blocks_cpu_ctrl: checker of via_cpu_ctrl (block cpu) for
// tb_via_blocks.
//
// Reset values and decode from the generated table; CPU_CTRL.RUN drives run
// (byte strobes honoured); CPU_STATUS.RUNNING = RUN and not halted,
// HALTED, WFI; CPU_TRAP_CAUSE/PC/VAL, CPU_PC, CPU_RETIRED read their inputs;
// FW_READY reads the firmware's word only while RUN is 1; fault_event is one
// pulse on each rising edge of halted; rst clears RUN.

`timescale 1ns / 1ps

`include "via_bar0.vh"

module tb_via_blocks_cpu_ctrl (
    input  wire clk,
    output reg  done
);

`include "tb_via_blocks_bus.vh"

reg         rst = 1'b1;
reg         halted = 1'b0, wfi = 1'b0;
reg  [4:0]  trap_cause = 5'd0;
reg  [31:0] trap_pc = 32'd0, trap_val = 32'd0, pc = 32'd0, retired = 32'd0, fw_ready = 32'd0;
wire        run, fault_event;

via_cpu_ctrl dut (
    .clk(clk),
    .rst(rst),
    .wr_en(wr_en),
    .wr_addr(wr_addr),
    .wr_data(wr_data),
    .wr_strb(wr_strb),
    .wr_hit(wr_hit),
    .rd_en(rd_en),
    .rd_addr(rd_addr),
    .rd_fire(rd_fire),
    .rd_hit(rd_hit),
    .rd_data(rd_data),
    .run(run),
    .halted(halted),
    .wfi(wfi),
    .trap_cause(trap_cause),
    .trap_pc(trap_pc),
    .trap_val(trap_val),
    .pc(pc),
    .retired(retired),
    .fw_ready(fw_ready),
    .fault_event(fault_event)
);

// fault_event pulses, counted at the rising edge
integer faults = 0;
always @(posedge clk) begin
    if (!rst && fault_event === 1'b1) faults = faults + 1;
end

reg [31:0] w, st;

task expect_status;
    input exp_running;
    input exp_halted;
    input exp_wfi;
    begin
        bus_peek(`VIA_REG_CPU_STATUS, st);
        `BLK_CHECK(st[`VIA_CPU_STATUS_RUNNING_LSB] === exp_running, "CPU_STATUS.RUNNING")
        `BLK_CHECK(st[`VIA_CPU_STATUS_HALTED_LSB] === exp_halted, "CPU_STATUS.HALTED")
        `BLK_CHECK(st[`VIA_CPU_STATUS_WFI_LSB] === exp_wfi, "CPU_STATUS.WFI")
    end
endtask

initial begin
    done = 1'b0;
    repeat (3) @(negedge clk);
    rst = 1'b0;
    check_reset_values(`VIA_REG_CPU_CTRL);
    check_decode(`VIA_REG_CPU_CTRL);
    `BLK_CHECK(run === 1'b0, "run after reset")

    // the status inputs
    trap_cause = 5'd11;
    trap_pc = 32'h81828384;
    trap_val = 32'h91929394;
    pc = 32'ha1a2a3a4;
    retired = 32'hb1b2b3b4;
    fw_ready = 32'h56460102;
    wfi = 1'b1;
    bus_peek(`VIA_REG_CPU_TRAP_CAUSE, w);
    `BLK_CHECK(w === 32'd11, "CPU_TRAP_CAUSE")
    bus_peek(`VIA_REG_CPU_TRAP_PC, w);
    `BLK_CHECK(w === 32'h81828384, "CPU_TRAP_PC")
    bus_peek(`VIA_REG_CPU_TRAP_VAL, w);
    `BLK_CHECK(w === 32'h91929394, "CPU_TRAP_VAL")
    bus_peek(`VIA_REG_CPU_PC, w);
    `BLK_CHECK(w === 32'ha1a2a3a4, "CPU_PC")
    bus_peek(`VIA_REG_CPU_RETIRED, w);
    `BLK_CHECK(w === 32'hb1b2b3b4, "CPU_RETIRED")
    bus_peek(`VIA_REG_FW_READY, w);
    `BLK_CHECK(w === 32'd0, "FW_READY while RUN=0")
    expect_status(1'b0, 1'b0, 1'b1);

    // RUN: no strobe on byte 0, no change
    bus_wr(`VIA_REG_CPU_CTRL, 32'hffffffff, 4'he);
    `BLK_CHECK(run === 1'b0, "a write without byte 0's strobe set RUN")
    bus_wr(`VIA_REG_CPU_CTRL, 32'd1 << `VIA_CPU_CTRL_RUN_LSB, 4'h1);
    `BLK_CHECK(run === 1'b1, "run after RUN=1")
    bus_peek(`VIA_REG_CPU_CTRL, w);
    `BLK_CHECK(w === (32'd1 << `VIA_CPU_CTRL_RUN_LSB), "CPU_CTRL reads back")
    expect_status(1'b1, 1'b0, 1'b1);
    bus_peek(`VIA_REG_FW_READY, w);
    `BLK_CHECK(w === 32'h56460102, "FW_READY while RUN=1")

    // halted: RUNNING drops, one fault_event per rising edge
    `BLK_CHECK(faults == 0, "fault_event without a halt")
    @(negedge clk);
    halted = 1'b1;
    wfi = 1'b0;
    repeat (3) @(negedge clk);
    `BLK_CHECK(faults == 1, "not exactly one fault_event for a halt")
    expect_status(1'b0, 1'b1, 1'b0);
    halted = 1'b0;
    @(negedge clk);
    halted = 1'b1;
    @(negedge clk);
    `BLK_CHECK(faults == 2, "no fault_event for the second halt")
    halted = 1'b0;
    expect_status(1'b1, 1'b0, 1'b0);

    // RUN=0, then rst clears a RUN of 1
    bus_wr(`VIA_REG_CPU_CTRL, 32'd0, 4'hf);
    `BLK_CHECK(run === 1'b0, "run after RUN=0")
    bus_peek(`VIA_REG_FW_READY, w);
    `BLK_CHECK(w === 32'd0, "FW_READY after RUN=0")
    bus_wr(`VIA_REG_CPU_CTRL, 32'd1, 4'hf);
    @(negedge clk);
    rst = 1'b1;
    @(negedge clk);
    rst = 1'b0;
    `BLK_CHECK(run === 1'b0, "run after rst")
    $display("%m: %0d checks ok", checks);
    done = 1'b1;
end

endmodule
