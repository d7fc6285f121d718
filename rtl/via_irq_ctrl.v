// via_irq_ctrl: the interrupt controller (IRQ_STATUS, IRQ_ENABLE, IRQ_FORCE,
// IRQ_PENDING of rtl/layouts/bar0.layout, block irq).
//
// IRQ_STATUS bit i is set by irq_set[i] (the hardware causes, gathered by
// via_regfile) or by writing 1 to IRQ_FORCE bit i, and cleared by writing 1
// to it. A hardware set wins over a clear in the same cycle, so no event is
// lost; while reset_busy (a soft reset drains the NIC) hardware causes are
// ignored. irq[i] = IRQ_STATUS[i] & IRQ_ENABLE[i], from a flip-flop; it
// changes in the same cycle as IRQ_PENDING. Bits NUM_IRQ and up do not
// exist: they read as zero and writes to them are ignored.
//
// Register bus: see docs/rtl.md ("Register blocks").

`timescale 1ns / 1ps
`default_nettype none

`include "via_bar0.vh"
`include "via_param_check.vh"

module via_irq_ctrl #(
    parameter NUM_IRQ = `VIA_DEFAULT_NUM_IRQ  // interrupt outputs (1..32)
) (
    input  wire               clk,
    input  wire               rst,
    input  wire               reset_busy,

    // register bus
    input  wire               wr_en,
    input  wire [15:0]        wr_addr,
    /* verilator lint_off UNUSEDSIGNAL */
    // bits NUM_IRQ and up of IRQ_ENABLE do not exist
    input  wire [31:0]        wr_data,
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire [3:0]         wr_strb,
    output wire               wr_hit,
    input  wire               rd_en,
    input  wire [15:0]        rd_addr,
    input  wire               rd_fire,
    output wire               rd_hit,
    output wire [31:0]        rd_data,

    input  wire [NUM_IRQ-1:0] irq_set,   // hardware causes, one cycle each
    output wire [NUM_IRQ-1:0] irq
);

generate
    if (NUM_IRQ < 1 || NUM_IRQ > 32) begin : g_bad_num_irq
        `VIA_PARAM_FAIL(("via_irq_ctrl: NUM_IRQ=%0d, must be 1..32", NUM_IRQ))
    end
endgenerate

reg [NUM_IRQ-1:0] status_reg, status_next;
reg [NUM_IRQ-1:0] enable_reg, enable_next;
reg [NUM_IRQ-1:0] irq_reg;

// the registers as 32-bit words (bits NUM_IRQ and up read as zero)
reg [31:0] status_word;
reg [31:0] enable_word;

always @* begin
    status_word = 32'd0;
    enable_word = 32'd0;
    status_word[NUM_IRQ-1:0] = status_reg;
    enable_word[NUM_IRQ-1:0] = enable_reg;
end

/* verilator lint_off UNUSEDSIGNAL */
// bits NUM_IRQ and up do not exist
wire [31:0] status_w1;
wire [31:0] force_w1;
/* verilator lint_on UNUSEDSIGNAL */
wire        enable_we;

via_bar0_irq_regs regs_inst (
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
    .irq_status_w1(status_w1),
    .irq_status_diag_done_i(status_word[`VIA_IRQ_STATUS_DIAG_DONE_RANGE]),
    .irq_status_fw_fault_i(status_word[`VIA_IRQ_STATUS_FW_FAULT_RANGE]),
    .irq_status_admin_done_i(status_word[`VIA_IRQ_STATUS_ADMIN_DONE_RANGE]),
    .irq_status_fw_log_i(status_word[`VIA_IRQ_STATUS_FW_LOG_RANGE]),
    .irq_status_vi_done_i(status_word[`VIA_IRQ_STATUS_VI_DONE_RANGE]),
    .irq_status_fw_event_i(status_word[`VIA_IRQ_STATUS_FW_EVENT_RANGE]),
    .irq_status_async_err_i(status_word[`VIA_IRQ_STATUS_ASYNC_ERR_RANGE]),
    .irq_status_spare_i(status_word[`VIA_IRQ_STATUS_SPARE_RANGE]),
    .irq_status_vec_i(status_word[`VIA_IRQ_STATUS_VEC_RANGE]),
    .irq_status_other_i(status_word[`VIA_IRQ_STATUS_OTHER_RANGE]),
    .irq_enable_we(enable_we),
    .irq_enable_i(enable_word),
    .irq_force_w1(force_w1),
    .irq_pending_i(status_word & enable_word)
);

/* verilator lint_off UNUSEDSIGNAL */
// bits NUM_IRQ and up do not exist
wire [31:0] wr_mask = {{8{wr_strb[3]}}, {8{wr_strb[2]}}, {8{wr_strb[1]}}, {8{wr_strb[0]}}};
/* verilator lint_on UNUSEDSIGNAL */

always @* begin
    enable_next = enable_reg;
    if (enable_we) begin
        enable_next = (enable_reg & ~wr_mask[NUM_IRQ-1:0]) | (wr_data[NUM_IRQ-1:0] & wr_mask[NUM_IRQ-1:0]);
    end
    // IRQ_STATUS and IRQ_FORCE are different offsets: at most one acts
    status_next = (status_reg & ~status_w1[NUM_IRQ-1:0]) | force_w1[NUM_IRQ-1:0];
    if (!reset_busy) begin
        status_next = status_next | irq_set;
    end
end

always @(posedge clk) begin
    if (rst) begin
        status_reg <= {NUM_IRQ{1'b0}};
        enable_reg <= {NUM_IRQ{1'b0}};
        irq_reg    <= {NUM_IRQ{1'b0}};
    end else begin
        status_reg <= status_next;
        enable_reg <= enable_next;
        irq_reg    <= status_next & enable_next;
    end
end

assign irq = irq_reg;

endmodule

`default_nettype wire
