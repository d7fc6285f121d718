// via_cpu_ctrl: run control and status of the control processor (CPU_CTRL,
// CPU_STATUS, CPU_TRAP_*, CPU_PC, CPU_RETIRED, FW_READY of
// rtl/layouts/bar0.layout, block cpu).
//
// CPU_CTRL.RUN drives run (via_nic holds the core and its peripherals in
// reset while it is 0). CPU_STATUS.RUNNING is RUN and not halted. FW_READY
// shows the firmware's READY word while RUN is 1, zero otherwise.
// fault_event is a one-cycle pulse on the rising edge of halted (the
// IRQ_STATUS.FW_FAULT cause).
//
// Register bus: see docs/rtl.md ("Register blocks").

`timescale 1ns / 1ps
`default_nettype none

`include "via_bar0.vh"

module via_cpu_ctrl (
    input  wire        clk,
    input  wire        rst,

    // register bus
    input  wire        wr_en,
    input  wire [15:0] wr_addr,
    input  wire [31:0] wr_data,
    input  wire [3:0]  wr_strb,
    output wire        wr_hit,
    input  wire        rd_en,
    input  wire [15:0] rd_addr,
    input  wire        rd_fire,
    output wire        rd_hit,
    output wire [31:0] rd_data,

    output wire        run,
    input  wire        halted,
    input  wire        wfi,
    input  wire [4:0]  trap_cause,
    input  wire [31:0] trap_pc,
    input  wire [31:0] trap_val,
    input  wire [31:0] pc,
    input  wire [31:0] retired,
    input  wire [31:0] fw_ready,     // the firmware's READY register
    output wire        fault_event
);

wire run_q;
reg  halted_prev_reg;

via_bar0_cpu_regs regs_inst (
    .clk(clk),
    .rst(rst),
    .wr_en(wr_en),
    .wr_addr(wr_addr),
    .wr_data(wr_data),
    .wr_strb(wr_strb),
    .rd_en(rd_en),
    .rd_addr(rd_addr),
    .rd_fire(rd_fire),
    .wr_hit(wr_hit),
    .rd_hit(rd_hit),
    .rd_data(rd_data),
    .cpu_ctrl_run_q(run_q),
    .cpu_status_running_i(run_q && !halted),
    .cpu_status_halted_i(halted),
    .cpu_status_wfi_i(wfi),
    .cpu_trap_cause_i({27'd0, trap_cause}),
    .cpu_trap_pc_i(trap_pc),
    .cpu_trap_val_i(trap_val),
    .cpu_pc_i(pc),
    .cpu_retired_i(retired),
    .fw_ready_version_i(run_q ? fw_ready[`VIA_FW_READY_VERSION_RANGE] : 16'd0),
    .fw_ready_magic_i(run_q ? fw_ready[`VIA_FW_READY_MAGIC_RANGE] : 16'd0)
);

always @(posedge clk) begin
    if (rst) begin
        halted_prev_reg <= 1'b0;
    end else begin
        halted_prev_reg <= halted;
    end
end

assign run         = run_q;
assign fault_event = halted && !halted_prev_reg;

endmodule

`default_nettype wire
