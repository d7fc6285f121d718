// via_fw_log: the firmware log (FW_LOG, FW_LOG_LEVEL of rtl/layouts/bar0.layout,
// block fw_log).
//
// A via_fifo of DEPTH 32-bit words, filled by push (the firmware's stores to
// its LOG register; a push into a full FIFO is dropped and counted in
// FW_LOG_LEVEL.DROPPED, saturating) and popped by the host's reads of FW_LOG
// (zero when empty). A read of FW_LOG_LEVEL clears DROPPED; a drop in the
// same cycle counts after the clear. Reads that are not consumed by the host
// (the firmware's BAR0 view) have no side effect: FW_LOG shows the head word.
// rst is the NIC's block reset only, so the log of a crashed firmware
// survives CPU_CTRL.RUN=0.
//
// Register bus: see docs/rtl.md ("Register blocks").

`timescale 1ns / 1ps
`default_nettype none

`include "via_bar0.vh"
`include "via_param_check.vh"

module via_fw_log #(
    parameter DEPTH = `VIA_DEFAULT_FW_LOG_DEPTH  // words (2..65535)
) (
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

    // from the firmware (via_cpu_periph)
    input  wire        push,
    input  wire [31:0] push_data,
    output wire [15:0] space       // free words
);

generate
    if (DEPTH < 2 || DEPTH > 65535) begin : g_bad_depth
        `VIA_PARAM_FAIL(("via_fw_log: DEPTH=%0d, must be 2..65535", DEPTH))
    end
endgenerate

localparam LEVEL_WIDTH = $clog2(DEPTH + 1);
localparam [31:0] DEPTH32 = DEPTH;

wire                   fifo_ready;
wire [31:0]            fifo_head;
wire                   fifo_valid;
wire [LEVEL_WIDTH-1:0] fifo_level;
wire                   log_re;
wire                   level_re;

via_fifo #(
    .WIDTH(32),
    .DEPTH(DEPTH)
) fifo_inst (
    .clk(clk),
    .rst(rst),
    .s_data(push_data),
    .s_valid(push),
    .s_ready(fifo_ready),
    .m_data(fifo_head),
    .m_valid(fifo_valid),
    .m_ready(log_re),
    .level(fifo_level)
);

/* verilator lint_off UNUSEDSIGNAL */
// the level as a word; DEPTH < 2**16
reg [31:0] level32;
/* verilator lint_on UNUSEDSIGNAL */

always @* begin
    level32 = 32'd0;
    level32[LEVEL_WIDTH-1:0] = fifo_level;
end

wire drop = push && !fifo_ready;

reg [15:0] dropped_reg, dropped_next;

always @* begin
    dropped_next = dropped_reg;
    if (level_re) begin
        dropped_next = 16'd0;
    end
    if (drop && dropped_next != 16'hffff) begin
        dropped_next = dropped_next + 16'd1;
    end
end

always @(posedge clk) begin
    if (rst) begin
        dropped_reg <= 16'd0;
    end else begin
        dropped_reg <= dropped_next;
    end
end

via_bar0_fw_log_regs regs_inst (
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
    .fw_log_i(fifo_valid ? fifo_head : 32'd0),
    .fw_log_re(log_re),
    .fw_log_level_words_i(level32[15:0]),
    .fw_log_level_dropped_i(dropped_reg),
    .fw_log_level_re(level_re)
);

assign space = DEPTH32[15:0] - level32[15:0];

endmodule

`default_nettype wire
