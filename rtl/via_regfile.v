// via_regfile: BAR0 address decoder and global register file.
//
// Sits behind via_axil_slave's register port. BAR0 is decoded as follows
// (offsets from rtl/generated/via_bar0.vh):
//
//   [0, VIA_GLOBAL_BYTES)               global registers. A register of
//                                       bar0.layout answers OKAY; any other
//                                       offset answers SLVERR (reads 0,
//                                       writes have no effect). Writes to ro
//                                       registers are ignored (OKAY); wo,
//                                       w1s registers read as 0.
//   VIA_DOORBELL_BASE + k*STRIDE, k < NUM_VI
//                                       doorbell page of VI k: OKAY. Writes
//                                       go out on the db_wr_* port (VI index,
//                                       offset in the page, data, strobes)
//                                       and complete when db_wr_ready; reads
//                                       return 0.
//   anything else                       DECERR (reads 0, writes ignored).
//
// Address bits 1:0 are ignored (AXI-Lite is word-wide). rw registers honour
// wstrb byte by byte; for wo command bits, w1c and w1s only bytes with their
// strobe set count.
//
// Interrupts: IRQ_STATUS bit i is set by irq_set[i] (hardware causes; bit 0
// is the DMA diagnostic engine's done pulse) or by writing 1 to IRQ_FORCE bit
// i, and cleared by writing 1 to it. A hardware set wins over a clear in the
// same cycle, so no event is lost. irq[i] = IRQ_STATUS[i] & IRQ_ENABLE[i],
// from a flip-flop; it changes in the same cycle as IRQ_PENDING.
//
// Soft reset: rst is the NIC's block reset (hard reset or the hold phase of a
// soft reset); it returns every register here to its reset value. The
// register port stays answered throughout because its handshake is purely
// combinational here. While reset_busy (STATUS.RESET_BUSY) is 1, writes are
// answered OKAY but have no effect, DIAG_CTRL.START is not passed on,
// doorbell writes are dropped and hardware interrupt causes are ignored, so
// that nothing starts and nothing interrupts while the NIC drains.
// Command bits (CTRL.SOFT_RESET, DIAG_CTRL.START/ABORT) become one-cycle
// pulses on soft_reset_req, diag_start and diag_abort in the cycle after the
// write.

`timescale 1ns / 1ps
`default_nettype none

`include "via_bar0.vh"

module via_regfile #(
    parameter ADDR_WIDTH          = `VIA_DEFAULT_AXIL_ADDR_WIDTH,     // BAR0 address bits (17..32)
    parameter NUM_VI              = `VIA_DEFAULT_NUM_VI,              // doorbell pages (VIs)
    parameter NUM_IRQ             = `VIA_DEFAULT_NUM_IRQ,             // interrupt outputs (1..32)
    // reported in the CAP_* registers only
    parameter DATA_WIDTH          = `VIA_DEFAULT_DATA_WIDTH,          // datapath width
    parameter DMA_ADDR_WIDTH      = `VIA_DEFAULT_DMA_ADDR_WIDTH,      // DMA address bits
    parameter DMA_ID_WIDTH        = `VIA_DEFAULT_DMA_ID_WIDTH,        // DMA ID bits
    parameter DMA_MAX_BURST       = `VIA_DEFAULT_DMA_MAX_BURST,       // DMA burst beats
    parameter DMA_MAX_OUTSTANDING = `VIA_DEFAULT_DMA_MAX_OUTSTANDING, // DMA reads in flight
    parameter NET_FIFO_DEPTH      = `VIA_DEFAULT_NET_FIFO_DEPTH,      // loopback FIFO beats
    parameter SOFT_RESET_CYCLES   = `VIA_DEFAULT_SOFT_RESET_CYCLES,   // soft reset hold cycles
    // derived, do not override
    parameter VI_WIDTH            = (NUM_VI > 1) ? $clog2(NUM_VI) : 1,  // VI index bits
    parameter DB_OFFSET_WIDTH     = $clog2(`VIA_DOORBELL_STRIDE)        // offset bits in a doorbell page
) (
    input  wire                       clk,
    input  wire                       rst,
    input  wire                       reset_busy,

    // register port (from via_axil_slave)
    /* verilator lint_off UNUSEDSIGNAL */
    // bits 1:0 select a byte inside a word; registers are word-wide
    input  wire [ADDR_WIDTH-1:0]      reg_wr_addr,
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire [31:0]                reg_wr_data,
    input  wire [3:0]                 reg_wr_strb,
    input  wire                       reg_wr_en,
    output wire                       reg_wr_ack,
    output wire [1:0]                 reg_wr_resp,
    /* verilator lint_off UNUSEDSIGNAL */
    // see reg_wr_addr
    input  wire [ADDR_WIDTH-1:0]      reg_rd_addr,
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire                       reg_rd_en,
    output wire                       reg_rd_ack,
    output wire [31:0]                reg_rd_data,
    output wire [1:0]                 reg_rd_resp,

    // doorbell write port (one write per db_wr_valid && db_wr_ready)
    output wire                       db_wr_valid,
    input  wire                       db_wr_ready,
    output wire [VI_WIDTH-1:0]        db_wr_vi,
    output wire [DB_OFFSET_WIDTH-1:0] db_wr_offset,
    output wire [31:0]                db_wr_data,
    output wire [3:0]                 db_wr_strb,

    // global control
    output wire                       soft_reset_req,

    // DMA diagnostic engine
    output wire [63:0]                diag_src,
    output wire [63:0]                diag_dst,
    output wire [31:0]                diag_len,
    output wire                       diag_start,
    output wire                       diag_abort,
    output wire [8:0]                 diag_cfg_max_burst,
    output wire [3:0]                 diag_cfg_max_outstanding,
    input  wire                       diag_busy,
    input  wire                       diag_done,
    input  wire                       diag_error,
    input  wire                       diag_bad_param,
    input  wire                       diag_rd_err,
    input  wire                       diag_wr_err,
    input  wire                       diag_aborted,
    input  wire [1:0]                 diag_err_resp,
    input  wire [31:0]                diag_cycles,
    input  wire [31:0]                diag_bytes,
    input  wire [63:0]                diag_err_addr,
    input  wire [31:0]                diag_rd_bursts,
    input  wire [31:0]                diag_wr_bursts,
    input  wire [7:0]                 diag_max_inflight,

    // network port
    input  wire [31:0]                net_rx_frames,
    input  wire [31:0]                net_tx_frames,

    // interrupts
    input  wire [NUM_IRQ-1:0]         irq_set,
    output wire [NUM_IRQ-1:0]         irq
);

localparam [1:0] RESP_OKAY   = 2'b00;
localparam [1:0] RESP_SLVERR = 2'b10;
localparam [1:0] RESP_DECERR = 2'b11;

localparam [31:0] GLOBAL_BYTES = `VIA_GLOBAL_BYTES;
localparam [31:0] DB_BASE      = `VIA_DOORBELL_BASE;
localparam [31:0] DB_STRIDE    = `VIA_DOORBELL_STRIDE;
localparam [31:0] DB_END       = DB_BASE + NUM_VI * DB_STRIDE;

localparam [63:0] MAP_HASH = `VIA_BAR0_HASH;

// capability values, as 32-bit constants to slice fields from
localparam [31:0] CAP_DATA_WIDTH      = DATA_WIDTH;
localparam [31:0] CAP_NUM_VI          = NUM_VI;
localparam [31:0] CAP_AXIL_ADDR_WIDTH = ADDR_WIDTH;
localparam [31:0] CAP_DMA_ADDR_WIDTH  = DMA_ADDR_WIDTH;
localparam [31:0] CAP_DMA_ID_WIDTH    = DMA_ID_WIDTH;
localparam [31:0] CAP_DMA_MAX_OUT     = DMA_MAX_OUTSTANDING;
localparam [31:0] CAP_DMA_MAX_BURST   = DMA_MAX_BURST;
localparam [31:0] CAP_NUM_IRQ         = NUM_IRQ;
localparam [31:0] CAP_NET_FIFO_DEPTH  = NET_FIFO_DEPTH;
localparam [31:0] CAP_RESET_CYCLES    = SOFT_RESET_CYCLES;

// ---------------------------------------------------------------- decode

// 1 for every offset of the global region that holds a register
function is_global_reg;
    input [15:0] off;
    begin
        case (off)
            `VIA_REG_MAGIC, `VIA_REG_HW_VERSION, `VIA_REG_MAP_HASH_LO,
            `VIA_REG_MAP_HASH_HI, `VIA_REG_SCRATCH,
            `VIA_REG_CAP_DATAPATH, `VIA_REG_CAP_VI, `VIA_REG_CAP_DB_BASE,
            `VIA_REG_CAP_DB_STRIDE, `VIA_REG_CAP_BAR, `VIA_REG_CAP_DMA,
            `VIA_REG_CAP_DMA_BURST, `VIA_REG_CAP_IRQ, `VIA_REG_CAP_NET,
            `VIA_REG_CAP_RESET,
            `VIA_REG_CTRL, `VIA_REG_STATUS,
            `VIA_REG_IRQ_STATUS, `VIA_REG_IRQ_ENABLE, `VIA_REG_IRQ_FORCE,
            `VIA_REG_IRQ_PENDING,
            `VIA_REG_DIAG_SRC_LO, `VIA_REG_DIAG_SRC_HI, `VIA_REG_DIAG_DST_LO,
            `VIA_REG_DIAG_DST_HI, `VIA_REG_DIAG_LEN, `VIA_REG_DIAG_CTRL,
            `VIA_REG_DIAG_CFG, `VIA_REG_DIAG_STATUS, `VIA_REG_DIAG_CYCLES,
            `VIA_REG_DIAG_BYTES, `VIA_REG_DIAG_ERR_ADDR_LO,
            `VIA_REG_DIAG_ERR_ADDR_HI, `VIA_REG_DIAG_RD_BURSTS,
            `VIA_REG_DIAG_WR_BURSTS, `VIA_REG_DIAG_MAX_INFLIGHT,
            `VIA_REG_NET_RX_FRAMES, `VIA_REG_NET_TX_FRAMES:
                is_global_reg = 1'b1;
            default:
                is_global_reg = 1'b0;
        endcase
    end
endfunction

// zero-extended 32-bit byte addresses
reg [31:0] wr_addr32;
reg [31:0] rd_addr32;

always @* begin
    wr_addr32 = 32'd0;
    wr_addr32[ADDR_WIDTH-1:0] = reg_wr_addr;
    rd_addr32 = 32'd0;
    rd_addr32[ADDR_WIDTH-1:0] = reg_rd_addr;
end

wire        wr_is_global = wr_addr32 < GLOBAL_BYTES;
wire        wr_is_db     = wr_addr32 >= DB_BASE && wr_addr32 < DB_END;
wire [15:0] wr_off       = {wr_addr32[15:2], 2'b00};
wire        wr_is_reg    = wr_is_global && is_global_reg(wr_off);

wire        rd_is_global = rd_addr32 < GLOBAL_BYTES;
wire        rd_is_db     = rd_addr32 >= DB_BASE && rd_addr32 < DB_END;
wire [15:0] rd_off       = {rd_addr32[15:2], 2'b00};
wire        rd_is_reg    = rd_is_global && is_global_reg(rd_off);

/* verilator lint_off UNUSEDSIGNAL */
// only the VI index and in-page offset bits of the doorbell-relative address
// matter; the rest is zero by construction of wr_is_db
wire [31:0] wr_db_rel = wr_addr32 - DB_BASE;
/* verilator lint_on UNUSEDSIGNAL */

// ------------------------------------------------------------ doorbells

assign db_wr_valid  = reg_wr_en && wr_is_db && !reset_busy;
assign db_wr_vi     = wr_db_rel[DB_OFFSET_WIDTH +: VI_WIDTH];
assign db_wr_offset = {wr_db_rel[DB_OFFSET_WIDTH-1:2], 2'b00};
assign db_wr_data   = reg_wr_data;
assign db_wr_strb   = reg_wr_strb;

// ----------------------------------------------------------- write side

// a write completes at once, except a doorbell write, which waits for the
// doorbell port (or is dropped during a soft reset)
assign reg_wr_ack  = reg_wr_en && (!wr_is_db || reset_busy || db_wr_ready);
assign reg_wr_resp = wr_is_reg ? RESP_OKAY :
                     wr_is_db ? RESP_OKAY :
                     wr_is_global ? RESP_SLVERR : RESP_DECERR;

wire wr_fire = reg_wr_en && reg_wr_ack && wr_is_reg && !reset_busy;

wire [31:0] wr_mask = {{8{reg_wr_strb[3]}}, {8{reg_wr_strb[2]}},
                       {8{reg_wr_strb[1]}}, {8{reg_wr_strb[0]}}};
/* verilator lint_off UNUSEDSIGNAL */
// the written ones, for command, w1c and w1s bits (bits of IRQ_STATUS beyond
// NUM_IRQ do not exist)
wire [31:0] wr_ones = reg_wr_data & wr_mask;
/* verilator lint_on UNUSEDSIGNAL */

// new value of a rw register after a write with strobes
function [31:0] merge;
    input [31:0] old;
    input [31:0] data;
    input [31:0] mask;
    begin
        merge = (old & ~mask) | (data & mask);
    end
endfunction

reg [31:0]        scratch_reg, scratch_next;
reg [NUM_IRQ-1:0] irq_enable_reg, irq_enable_next;
reg [NUM_IRQ-1:0] irq_status_reg, irq_status_next;
reg [NUM_IRQ-1:0] irq_reg;
reg [31:0]        diag_src_lo_reg, diag_src_lo_next;
reg [31:0]        diag_src_hi_reg, diag_src_hi_next;
reg [31:0]        diag_dst_lo_reg, diag_dst_lo_next;
reg [31:0]        diag_dst_hi_reg, diag_dst_hi_next;
reg [31:0]        diag_len_reg, diag_len_next;
reg [8:0]         diag_cfg_burst_reg, diag_cfg_burst_next;
reg [3:0]         diag_cfg_out_reg, diag_cfg_out_next;
reg               soft_reset_req_reg, soft_reset_req_next;
reg               diag_start_reg, diag_start_next;
reg               diag_abort_reg, diag_abort_next;

// DIAG_CFG as a word, for strobe handling
reg [31:0] diag_cfg_word;
/* verilator lint_off UNUSEDSIGNAL */
// reserved bits of DIAG_CFG are not stored
reg [31:0] diag_cfg_merged;
/* verilator lint_on UNUSEDSIGNAL */

always @* begin
    scratch_next        = scratch_reg;
    irq_enable_next     = irq_enable_reg;
    irq_status_next     = irq_status_reg;
    diag_src_lo_next    = diag_src_lo_reg;
    diag_src_hi_next    = diag_src_hi_reg;
    diag_dst_lo_next    = diag_dst_lo_reg;
    diag_dst_hi_next    = diag_dst_hi_reg;
    diag_len_next       = diag_len_reg;
    diag_cfg_burst_next = diag_cfg_burst_reg;
    diag_cfg_out_next   = diag_cfg_out_reg;
    soft_reset_req_next = 1'b0;
    diag_start_next     = 1'b0;
    diag_abort_next     = 1'b0;

    diag_cfg_word = 32'd0;
    diag_cfg_word[`VIA_DIAG_CFG_MAX_BURST_RANGE] = diag_cfg_burst_reg;
    diag_cfg_word[`VIA_DIAG_CFG_MAX_OUTSTANDING_RANGE] = diag_cfg_out_reg;
    diag_cfg_merged = merge(diag_cfg_word, reg_wr_data, wr_mask);

    if (wr_fire) begin
        case (wr_off)
            `VIA_REG_SCRATCH:     scratch_next     = merge(scratch_reg, reg_wr_data, wr_mask);
            `VIA_REG_IRQ_ENABLE:  irq_enable_next  = irq_enable_reg & ~wr_mask[NUM_IRQ-1:0]
                                                   | reg_wr_data[NUM_IRQ-1:0] & wr_mask[NUM_IRQ-1:0];
            `VIA_REG_IRQ_STATUS:  irq_status_next  = irq_status_reg & ~wr_ones[NUM_IRQ-1:0];
            `VIA_REG_IRQ_FORCE:   irq_status_next  = irq_status_reg | wr_ones[NUM_IRQ-1:0];
            `VIA_REG_DIAG_SRC_LO: diag_src_lo_next = merge(diag_src_lo_reg, reg_wr_data, wr_mask);
            `VIA_REG_DIAG_SRC_HI: diag_src_hi_next = merge(diag_src_hi_reg, reg_wr_data, wr_mask);
            `VIA_REG_DIAG_DST_LO: diag_dst_lo_next = merge(diag_dst_lo_reg, reg_wr_data, wr_mask);
            `VIA_REG_DIAG_DST_HI: diag_dst_hi_next = merge(diag_dst_hi_reg, reg_wr_data, wr_mask);
            `VIA_REG_DIAG_LEN:    diag_len_next    = merge(diag_len_reg, reg_wr_data, wr_mask);
            `VIA_REG_DIAG_CFG: begin
                diag_cfg_burst_next = diag_cfg_merged[`VIA_DIAG_CFG_MAX_BURST_RANGE];
                diag_cfg_out_next   = diag_cfg_merged[`VIA_DIAG_CFG_MAX_OUTSTANDING_RANGE];
            end
            `VIA_REG_CTRL: begin
                soft_reset_req_next = wr_ones[`VIA_CTRL_SOFT_RESET_LSB];
            end
            `VIA_REG_DIAG_CTRL: begin
                diag_start_next = wr_ones[`VIA_DIAG_CTRL_START_LSB];
                diag_abort_next = wr_ones[`VIA_DIAG_CTRL_ABORT_LSB];
            end
            default: begin
                // ro registers: writes are ignored
            end
        endcase
    end

    // hardware causes win over a clear in the same cycle; while a soft reset
    // runs they are dropped (the aborted DMA copy finishing while the NIC
    // drains must not interrupt the driver that asked for the reset)
    if (!reset_busy) begin
        irq_status_next = irq_status_next | irq_set;
    end
end

always @(posedge clk) begin
    if (rst) begin
        scratch_reg        <= 32'd0;
        irq_enable_reg     <= {NUM_IRQ{1'b0}};
        irq_status_reg     <= {NUM_IRQ{1'b0}};
        irq_reg            <= {NUM_IRQ{1'b0}};
        diag_src_lo_reg    <= 32'd0;
        diag_src_hi_reg    <= 32'd0;
        diag_dst_lo_reg    <= 32'd0;
        diag_dst_hi_reg    <= 32'd0;
        diag_len_reg       <= 32'd0;
        diag_cfg_burst_reg <= 9'd0;
        diag_cfg_out_reg   <= 4'd0;
        soft_reset_req_reg <= 1'b0;
        diag_start_reg     <= 1'b0;
        diag_abort_reg     <= 1'b0;
    end else begin
        scratch_reg        <= scratch_next;
        irq_enable_reg     <= irq_enable_next;
        irq_status_reg     <= irq_status_next;
        irq_reg            <= irq_status_next & irq_enable_next;
        diag_src_lo_reg    <= diag_src_lo_next;
        diag_src_hi_reg    <= diag_src_hi_next;
        diag_dst_lo_reg    <= diag_dst_lo_next;
        diag_dst_hi_reg    <= diag_dst_hi_next;
        diag_len_reg       <= diag_len_next;
        diag_cfg_burst_reg <= diag_cfg_burst_next;
        diag_cfg_out_reg   <= diag_cfg_out_next;
        soft_reset_req_reg <= soft_reset_req_next;
        diag_start_reg     <= diag_start_next;
        diag_abort_reg     <= diag_abort_next;
    end
end

assign soft_reset_req           = soft_reset_req_reg;
assign diag_src                 = {diag_src_hi_reg, diag_src_lo_reg};
assign diag_dst                 = {diag_dst_hi_reg, diag_dst_lo_reg};
assign diag_len                 = diag_len_reg;
assign diag_start               = diag_start_reg;
assign diag_abort               = diag_abort_reg;
assign diag_cfg_max_burst       = diag_cfg_burst_reg;
assign diag_cfg_max_outstanding = diag_cfg_out_reg;
assign irq                      = irq_reg;

// ------------------------------------------------------------ read side

reg [31:0] rd_data;

always @* begin
    rd_data = 32'd0;
    if (rd_is_global) begin
        case (rd_off)
            `VIA_REG_MAGIC:
                rd_data = `VIA_MAGIC_VALUE_RESET;
            `VIA_REG_HW_VERSION: begin
                rd_data[`VIA_HW_VERSION_MAJOR_RANGE] = `VIA_HW_VERSION_MAJOR_RESET;
                rd_data[`VIA_HW_VERSION_MINOR_RANGE] = `VIA_HW_VERSION_MINOR_RESET;
                rd_data[`VIA_HW_VERSION_PATCH_RANGE] = `VIA_HW_VERSION_PATCH_RESET;
            end
            `VIA_REG_MAP_HASH_LO:
                rd_data = MAP_HASH[31:0];
            `VIA_REG_MAP_HASH_HI:
                rd_data = MAP_HASH[63:32];
            `VIA_REG_SCRATCH:
                rd_data = scratch_reg;
            `VIA_REG_CAP_DATAPATH:
                rd_data[`VIA_CAP_DATAPATH_DATA_WIDTH_RANGE] = CAP_DATA_WIDTH[`VIA_CAP_DATAPATH_DATA_WIDTH_WIDTH-1:0];
            `VIA_REG_CAP_VI:
                rd_data[`VIA_CAP_VI_NUM_VI_RANGE] = CAP_NUM_VI[`VIA_CAP_VI_NUM_VI_WIDTH-1:0];
            `VIA_REG_CAP_DB_BASE:
                rd_data = DB_BASE;
            `VIA_REG_CAP_DB_STRIDE:
                rd_data = DB_STRIDE;
            `VIA_REG_CAP_BAR:
                rd_data[`VIA_CAP_BAR_ADDR_WIDTH_RANGE] = CAP_AXIL_ADDR_WIDTH[`VIA_CAP_BAR_ADDR_WIDTH_WIDTH-1:0];
            `VIA_REG_CAP_DMA: begin
                rd_data[`VIA_CAP_DMA_ADDR_WIDTH_RANGE] = CAP_DMA_ADDR_WIDTH[`VIA_CAP_DMA_ADDR_WIDTH_WIDTH-1:0];
                rd_data[`VIA_CAP_DMA_ID_WIDTH_RANGE] = CAP_DMA_ID_WIDTH[`VIA_CAP_DMA_ID_WIDTH_WIDTH-1:0];
                rd_data[`VIA_CAP_DMA_MAX_OUTSTANDING_RANGE] = CAP_DMA_MAX_OUT[`VIA_CAP_DMA_MAX_OUTSTANDING_WIDTH-1:0];
            end
            `VIA_REG_CAP_DMA_BURST:
                rd_data[`VIA_CAP_DMA_BURST_MAX_BURST_RANGE] = CAP_DMA_MAX_BURST[`VIA_CAP_DMA_BURST_MAX_BURST_WIDTH-1:0];
            `VIA_REG_CAP_IRQ:
                rd_data[`VIA_CAP_IRQ_NUM_IRQ_RANGE] = CAP_NUM_IRQ[`VIA_CAP_IRQ_NUM_IRQ_WIDTH-1:0];
            `VIA_REG_CAP_NET:
                rd_data[`VIA_CAP_NET_FIFO_DEPTH_RANGE] = CAP_NET_FIFO_DEPTH[`VIA_CAP_NET_FIFO_DEPTH_WIDTH-1:0];
            `VIA_REG_CAP_RESET:
                rd_data[`VIA_CAP_RESET_CYCLES_RANGE] = CAP_RESET_CYCLES[`VIA_CAP_RESET_CYCLES_WIDTH-1:0];
            `VIA_REG_STATUS:
                rd_data[`VIA_STATUS_RESET_BUSY_RANGE] = reset_busy;
            `VIA_REG_IRQ_STATUS:
                rd_data[NUM_IRQ-1:0] = irq_status_reg;
            `VIA_REG_IRQ_ENABLE:
                rd_data[NUM_IRQ-1:0] = irq_enable_reg;
            `VIA_REG_IRQ_PENDING:
                rd_data[NUM_IRQ-1:0] = irq_status_reg & irq_enable_reg;
            `VIA_REG_DIAG_SRC_LO:
                rd_data = diag_src_lo_reg;
            `VIA_REG_DIAG_SRC_HI:
                rd_data = diag_src_hi_reg;
            `VIA_REG_DIAG_DST_LO:
                rd_data = diag_dst_lo_reg;
            `VIA_REG_DIAG_DST_HI:
                rd_data = diag_dst_hi_reg;
            `VIA_REG_DIAG_LEN:
                rd_data = diag_len_reg;
            `VIA_REG_DIAG_CFG: begin
                rd_data[`VIA_DIAG_CFG_MAX_BURST_RANGE] = diag_cfg_burst_reg;
                rd_data[`VIA_DIAG_CFG_MAX_OUTSTANDING_RANGE] = diag_cfg_out_reg;
            end
            `VIA_REG_DIAG_STATUS: begin
                rd_data[`VIA_DIAG_STATUS_BUSY_RANGE] = diag_busy;
                rd_data[`VIA_DIAG_STATUS_DONE_RANGE] = diag_done;
                rd_data[`VIA_DIAG_STATUS_ERROR_RANGE] = diag_error;
                rd_data[`VIA_DIAG_STATUS_BAD_PARAM_RANGE] = diag_bad_param;
                rd_data[`VIA_DIAG_STATUS_RD_ERR_RANGE] = diag_rd_err;
                rd_data[`VIA_DIAG_STATUS_WR_ERR_RANGE] = diag_wr_err;
                rd_data[`VIA_DIAG_STATUS_ABORTED_RANGE] = diag_aborted;
                rd_data[`VIA_DIAG_STATUS_RESP_RANGE] = diag_err_resp;
            end
            `VIA_REG_DIAG_CYCLES:
                rd_data = diag_cycles;
            `VIA_REG_DIAG_BYTES:
                rd_data = diag_bytes;
            `VIA_REG_DIAG_ERR_ADDR_LO:
                rd_data = diag_err_addr[31:0];
            `VIA_REG_DIAG_ERR_ADDR_HI:
                rd_data = diag_err_addr[63:32];
            `VIA_REG_DIAG_RD_BURSTS:
                rd_data = diag_rd_bursts;
            `VIA_REG_DIAG_WR_BURSTS:
                rd_data = diag_wr_bursts;
            `VIA_REG_DIAG_MAX_INFLIGHT:
                rd_data[7:0] = diag_max_inflight;
            `VIA_REG_NET_RX_FRAMES:
                rd_data = net_rx_frames;
            `VIA_REG_NET_TX_FRAMES:
                rd_data = net_tx_frames;
            default: begin
                // CTRL, DIAG_CTRL, IRQ_FORCE read as zero; unmapped offsets
                // read as zero with SLVERR
            end
        endcase
    end
end

assign reg_rd_ack  = reg_rd_en;
assign reg_rd_data = rd_data;
assign reg_rd_resp = rd_is_reg ? RESP_OKAY :
                     rd_is_db ? RESP_OKAY :
                     rd_is_global ? RESP_SLVERR : RESP_DECERR;

endmodule

`default_nettype wire
