// via_admin_mbox: the admin mailbox (ADMIN_DOORBELL, ADMIN_STATUS of
// rtl/layouts/bar0.layout, block admin) and its two windows, ADMIN_CMD_WIN
// and ADMIN_RSP_WIN (64-word RAMs; docs/admin.md).
//
// An ADMIN_DOORBELL write while BUSY, or while the core is held in reset
// (run=0: nothing would take the event), is REJECTED; otherwise it sets
// BUSY, clears DONE and REJECTED and sends admin_event (a one-cycle pulse in the
// next cycle) to the firmware's event queue. complete (the firmware's
// ADMIN_COMPLETE) while BUSY clears BUSY, sets DONE and raises done_irq in
// the same cycle (ignored when not BUSY). run=0 clears BUSY: the command is
// abandoned with the firmware.
//
// Windows: ADMIN_CMD is read/write for the host (port A, byte strobes) and
// read-only for the firmware (port B); ADMIN_RSP is read/write for the
// firmware (port A) and read-only for the host (port B). Reads are
// synchronous (data the cycle after the enable). via_regfile routes the
// host's window accesses here (host_*).
//
// Register bus: see docs/rtl.md ("Register blocks").

`timescale 1ns / 1ps
`default_nettype none

`include "via_bar0.vh"

module via_admin_mbox (
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

    input  wire        run,          // CPU_CTRL.RUN
    output wire        admin_event,  // an accepted doorbell (one cycle)
    input  wire        complete,     // the firmware completed the command
    output wire        done_irq,     // IRQ_STATUS.ADMIN_DONE cause

    // host side of the windows (word addresses in the window)
    input  wire        host_cmd_wr,
    input  wire        host_cmd_rd,
    input  wire        host_rsp_rd,
    input  wire [5:0]  host_wr_word,
    input  wire [5:0]  host_rd_word,
    output wire [31:0] host_cmd_rdata,
    output wire [31:0] host_rsp_rdata,

    // firmware side of the windows
    input  wire        fw_cmd_en,
    input  wire [5:0]  fw_cmd_addr,
    output wire [31:0] fw_cmd_rdata,
    input  wire        fw_rsp_en,
    input  wire [3:0]  fw_rsp_we,
    input  wire [5:0]  fw_rsp_addr,
    input  wire [31:0] fw_rsp_wdata,
    output wire [31:0] fw_rsp_rdata
);

wire doorbell_we;

reg busy_reg, busy_next;
reg done_reg, done_next;
reg rej_reg, rej_next;
reg event_reg, event_next;
reg done_irq_r;

via_bar0_admin_regs regs_inst (
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
    .admin_doorbell_we(doorbell_we),
    .admin_status_busy_i(busy_reg),
    .admin_status_done_i(done_reg),
    .admin_status_rejected_i(rej_reg)
);

always @* begin
    busy_next  = busy_reg;
    done_next  = done_reg;
    rej_next   = rej_reg;
    event_next = 1'b0;
    done_irq_r = 1'b0;
    if (doorbell_we) begin
        if (busy_reg || !run) begin
            rej_next = 1'b1;
        end else begin
            busy_next  = 1'b1;
            done_next  = 1'b0;
            rej_next   = 1'b0;
            event_next = 1'b1;
        end
    end
    // the firmware completes the command
    if (complete && busy_reg) begin
        busy_next  = 1'b0;
        done_next  = 1'b1;
        done_irq_r = 1'b1;
    end
    // the core held in reset abandons it
    if (!run) begin
        busy_next = 1'b0;
    end
end

always @(posedge clk) begin
    if (rst) begin
        busy_reg  <= 1'b0;
        done_reg  <= 1'b0;
        rej_reg   <= 1'b0;
        event_reg <= 1'b0;
    end else begin
        busy_reg  <= busy_next;
        done_reg  <= done_next;
        rej_reg   <= rej_next;
        event_reg <= event_next;
    end
end

assign admin_event = event_reg;
assign done_irq    = done_irq_r;

via_cpu_ram #(
    .WORDS(64),
    .AW(6)
) cmd_ram_inst (
    .clk(clk),
    .a_en(host_cmd_wr || host_cmd_rd),
    .a_we(host_cmd_wr ? wr_strb : 4'd0),
    .a_addr(host_cmd_wr ? host_wr_word : host_rd_word),
    .a_wdata(wr_data),
    .a_rdata(host_cmd_rdata),
    .b_en(fw_cmd_en),
    .b_we(1'b0),
    .b_addr(fw_cmd_addr),
    .b_wdata(32'd0),
    .b_rdata(fw_cmd_rdata)
);

via_cpu_ram #(
    .WORDS(64),
    .AW(6)
) rsp_ram_inst (
    .clk(clk),
    .a_en(fw_rsp_en),
    .a_we(fw_rsp_we),
    .a_addr(fw_rsp_addr),
    .a_wdata(fw_rsp_wdata),
    .a_rdata(fw_rsp_rdata),
    .b_en(host_rsp_rd),
    .b_we(1'b0),
    .b_addr(host_rd_word),
    .b_wdata(32'd0),
    .b_rdata(host_rsp_rdata)
);

endmodule

`default_nettype wire
