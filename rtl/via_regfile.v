// via_regfile: BAR0 address decoder and global register file.
//
// Sits behind via_axil_slave's register port. BAR0 is decoded as follows
// (offsets from rtl/generated/via_bar0.vh):
//
//   [0, VIA_DOORBELL_BASE)              global space. A register of
//                                       bar0.layout (in [0, VIA_GLOBAL_BYTES))
//                                       and the two admin windows answer
//                                       OKAY; any other offset answers SLVERR
//                                       (reads 0, writes have no effect).
//                                       Writes to ro registers (and to
//                                       ADMIN_RSP_WIN) are ignored (OKAY); wo,
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
// Multi-cycle reads: CPU_MEM_DATA (through the core's host port, acked when
// host_rvalid comes back) and the two admin windows (64-word RAMs with a
// synchronous read, acked the cycle after the RAM read) do not answer in the
// cycle of the request. Such a read is issued in a cycle in which no write
// to the global space is presented (writes are acked at once and reg_wr_en
// then drops for at least a cycle, so a read waits at most one cycle); a
// write and a read therefore never use the host port or a window RAM in the
// same cycle, and CPU_MEM_ADDR.WORD moves at most once per cycle (a read
// increments it when it is issued).
//
// Control processor (see via_nic and via_cpu_periph): CPU_CTRL.RUN drives
// cpu_run (via_nic holds the core and via_cpu_periph in reset while it is 0).
// FW_LOG is a FIFO of FW_LOG_DEPTH words filled by fw_log_push (dropped and
// counted in FW_LOG_LEVEL.DROPPED when full) and popped by host reads of
// FW_LOG; it is reset only by rst, so the log of a crashed firmware
// survives RUN=0. The admin mailbox: an ADMIN_DOORBELL write while BUSY, or
// while the core is held in reset (RUN=0: nothing would take the event), is
// REJECTED; otherwise it sets BUSY, clears DONE/REJECTED and sends
// admin_event (a one-cycle pulse) to the peripheral block, which queues
// EV_ADMIN. fw_admin_complete while BUSY clears BUSY, sets DONE and raises
// IRQ_STATUS.ADMIN_DONE (ignored when not BUSY). RUN=0 clears BUSY (the
// command is abandoned with the firmware). Hardware interrupt causes besides
// irq_set: FW_FAULT on the rising edge of cpu_halted, ADMIN_DONE, FW_LOG on
// every fw_log_push (bits beyond NUM_IRQ do not exist).
//
// Firmware view of BAR0 (fw_bar_rd_*, the 0x8000 window of the core's
// peripheral space): a read request, held until fw_bar_rd_ack, of a global
// register offset. It shares the register read multiplexer with the host:
// the host has priority, the firmware read is acked in the first cycle in
// which no host read needs the multiplexer (the AXI-Lite slave drops
// reg_rd_en for at least a cycle after every ack, so this is at most a
// cycle or two later). A firmware read never has a side effect: FW_LOG
// returns the word at the head without popping it, FW_LOG_LEVEL is not
// cleared, CPU_MEM_DATA reads 0 (no memory access); offsets that hold no
// register answer fw_bar_rd_err (an access fault for the core), as the host
// would get SLVERR.
//
// Reads with a side effect (FW_LOG pops, FW_LOG_LEVEL clears DROPPED,
// CPU_MEM_DATA increments CPU_MEM_ADDR.WORD) have it when the host's read is
// acked, also while reset_busy.
//
// Soft reset: rst is the NIC's block reset (hard reset or the hold phase of a
// soft reset); it returns every register here to its reset value. The
// register port stays answered throughout because its handshake is purely
// combinational here (except the multi-cycle reads, which wait until rst
// ends). While reset_busy (STATUS.RESET_BUSY) is 1, writes are
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
    parameter CPU_IMEM_BYTES      = `VIA_DEFAULT_CPU_IMEM_BYTES,      // control processor memories
    parameter CPU_DMEM_BYTES      = `VIA_DEFAULT_CPU_DMEM_BYTES,
    parameter FW_LOG_DEPTH        = `VIA_DEFAULT_FW_LOG_DEPTH,        // firmware log FIFO words (2..65535)
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

    // control processor: run control, host port, status
    output wire                       cpu_run,
    output wire                       cpu_host_en,
    output wire                       cpu_host_we,
    output wire                       cpu_host_sel,
    output wire [15:0]                cpu_host_addr,
    output wire [31:0]                cpu_host_wdata,
    input  wire [31:0]                cpu_host_rdata,
    input  wire                       cpu_host_rvalid,
    input  wire                       cpu_halted,
    input  wire                       cpu_wfi,
    input  wire [4:0]                 cpu_trap_cause,
    input  wire [31:0]                cpu_trap_pc,
    input  wire [31:0]                cpu_trap_val,
    input  wire [31:0]                cpu_pc,
    input  wire [31:0]                cpu_retired,

    // firmware side (from via_cpu_periph)
    input  wire [31:0]                fw_ready,
    input  wire                       fw_log_push,
    input  wire [31:0]                fw_log_data,
    output wire [15:0]                fw_log_space,
    output wire                       fw_admin_event,
    input  wire                       fw_admin_complete,
    input  wire                       fw_cmd_en,
    input  wire [5:0]                 fw_cmd_addr,
    output wire [31:0]                fw_cmd_rdata,
    input  wire                       fw_rsp_en,
    input  wire [3:0]                 fw_rsp_we,
    input  wire [5:0]                 fw_rsp_addr,
    input  wire [31:0]                fw_rsp_wdata,
    output wire [31:0]                fw_rsp_rdata,
    input  wire                       fw_bar_rd_en,
    /* verilator lint_off UNUSEDSIGNAL */
    // a byte address; registers are word-wide
    input  wire [9:0]                 fw_bar_rd_addr,
    /* verilator lint_on UNUSEDSIGNAL */
    output wire                       fw_bar_rd_ack,
    output wire [31:0]                fw_bar_rd_data,
    output wire                       fw_bar_rd_err,

    // activity, for via_nic's idle output
    output wire                       busy,

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
localparam [31:0] CAP_IMEM_KB         = CPU_IMEM_BYTES / 1024;
localparam [31:0] CAP_DMEM_KB         = CPU_DMEM_BYTES / 1024;

localparam [31:0] CMD_BASE  = `VIA_ADMIN_CMD_WIN_BASE;
localparam [31:0] CMD_END   = `VIA_ADMIN_CMD_WIN_BASE + `VIA_ADMIN_CMD_WIN_BYTES;
localparam [31:0] RSP_BASE  = `VIA_ADMIN_RSP_WIN_BASE;
localparam [31:0] RSP_END   = `VIA_ADMIN_RSP_WIN_BASE + `VIA_ADMIN_RSP_WIN_BYTES;

// firmware log FIFO
localparam LOG_PTR_WIDTH = $clog2(FW_LOG_DEPTH);
localparam [31:0] LOG_DEPTH32 = FW_LOG_DEPTH;
localparam [31:0] LOG_LAST32  = FW_LOG_DEPTH - 1;
localparam [LOG_PTR_WIDTH-1:0] LOG_PTR_LAST = LOG_LAST32[LOG_PTR_WIDTH-1:0];
localparam [15:0] LOG_DEPTH16 = LOG_DEPTH32[15:0];

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
            `VIA_REG_CAP_RESET, `VIA_REG_CAP_CPU,
            `VIA_REG_CPU_CTRL, `VIA_REG_CPU_STATUS, `VIA_REG_CPU_TRAP_CAUSE,
            `VIA_REG_CPU_TRAP_PC, `VIA_REG_CPU_TRAP_VAL, `VIA_REG_CPU_PC,
            `VIA_REG_CPU_RETIRED, `VIA_REG_CPU_MEM_ADDR, `VIA_REG_CPU_MEM_DATA,
            `VIA_REG_FW_READY, `VIA_REG_FW_LOG, `VIA_REG_FW_LOG_LEVEL,
            `VIA_REG_ADMIN_DOORBELL, `VIA_REG_ADMIN_STATUS,
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

// global space: everything below the doorbell pages (registers, windows,
// and unmapped offsets that answer SLVERR)
wire        wr_is_global = wr_addr32 < DB_BASE;
wire        wr_is_db     = wr_addr32 >= DB_BASE && wr_addr32 < DB_END;
wire [15:0] wr_off       = {wr_addr32[15:2], 2'b00};
wire        wr_is_cmd    = wr_addr32 >= CMD_BASE && wr_addr32 < CMD_END;
wire        wr_is_rsp    = wr_addr32 >= RSP_BASE && wr_addr32 < RSP_END;
wire        wr_is_reg    = (wr_addr32 < GLOBAL_BYTES && is_global_reg(wr_off)) || wr_is_cmd || wr_is_rsp;

wire        rd_is_global = rd_addr32 < DB_BASE;
wire        rd_is_db     = rd_addr32 >= DB_BASE && rd_addr32 < DB_END;
wire [15:0] rd_off       = {rd_addr32[15:2], 2'b00};
wire        rd_is_gregs  = rd_addr32 < GLOBAL_BYTES;
wire        rd_is_cmd    = rd_addr32 >= CMD_BASE && rd_addr32 < CMD_END;
wire        rd_is_rsp    = rd_addr32 >= RSP_BASE && rd_addr32 < RSP_END;
wire        rd_is_mem    = rd_is_gregs && rd_off == `VIA_REG_CPU_MEM_DATA;
wire        rd_is_reg    = (rd_is_gregs && is_global_reg(rd_off)) || rd_is_cmd || rd_is_rsp;
// reads answered after a RAM or host-port access
wire        rd_is_slow   = rd_is_cmd || rd_is_rsp || rd_is_mem;

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

// control processor
reg               run_reg, run_next;
reg [15:0]        mem_word_reg, mem_word_next;
reg               mem_sel_reg, mem_sel_next;
reg               halted_prev_reg;
reg               admin_busy_reg, admin_busy_next;
reg               admin_done_reg, admin_done_next;
reg               admin_rej_reg, admin_rej_next;
reg               admin_event_reg, admin_event_next;
reg               admin_irq;       // ADMIN_DONE cause, this cycle
reg [15:0]        log_dropped_reg, log_dropped_next;
reg               rd_wait_reg;     // a multi-cycle read was issued

// firmware log FIFO
reg [31:0]              log_mem [0:FW_LOG_DEPTH-1];
reg [LOG_PTR_WIDTH-1:0] log_wr_ptr_reg;
reg [LOG_PTR_WIDTH-1:0] log_rd_ptr_reg;
reg [15:0]              log_count_reg;

wire log_full  = log_count_reg == LOG_DEPTH16;
wire log_empty = log_count_reg == 16'd0;
wire log_push  = fw_log_push && !log_full;
wire log_drop  = fw_log_push && log_full;

// multi-cycle reads: issued when no write to the global space is presented
wire rd_issue = reg_rd_en && rd_is_slow && !rd_wait_reg && !(reg_wr_en && wr_is_global);
wire rd_done  = reg_rd_en && reg_rd_ack;
wire log_pop  = rd_done && rd_is_gregs && rd_off == `VIA_REG_FW_LOG && !log_empty;
wire lvl_read = rd_done && rd_is_gregs && rd_off == `VIA_REG_FW_LOG_LEVEL;

// host port of the core: writes of CPU_MEM_DATA, reads issued as above
wire mem_wr   = wr_fire && wr_off == `VIA_REG_CPU_MEM_DATA;
wire mem_rd   = rd_issue && rd_is_mem;
wire cmd_wr   = wr_fire && wr_is_cmd;
wire cmd_rd   = rd_issue && rd_is_cmd;
wire rsp_rd   = rd_issue && rd_is_rsp;

// DIAG_CFG as a word, for strobe handling
reg [31:0] diag_cfg_word;
/* verilator lint_off UNUSEDSIGNAL */
// reserved bits of DIAG_CFG are not stored
reg [31:0] diag_cfg_merged;
// hardware interrupt causes as a word; bits NUM_IRQ and up do not exist
reg [31:0] hw_causes;
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
    run_next            = run_reg;
    mem_word_next       = mem_word_reg;
    mem_sel_next        = mem_sel_reg;
    admin_busy_next     = admin_busy_reg;
    admin_done_next     = admin_done_reg;
    admin_rej_next      = admin_rej_reg;
    admin_event_next    = 1'b0;
    admin_irq           = 1'b0;
    log_dropped_next    = log_dropped_reg;

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
            `VIA_REG_CPU_CTRL: begin
                if (reg_wr_strb[`VIA_CPU_CTRL_RUN_LSB / 8]) begin
                    run_next = reg_wr_data[`VIA_CPU_CTRL_RUN_LSB];
                end
            end
            `VIA_REG_CPU_MEM_ADDR: begin
                mem_word_next = (mem_word_reg & ~wr_mask[15:0]) | (reg_wr_data[15:0] & wr_mask[15:0]);
                if (reg_wr_strb[`VIA_CPU_MEM_ADDR_SEL_LSB / 8]) begin
                    mem_sel_next = reg_wr_data[`VIA_CPU_MEM_ADDR_SEL_LSB];
                end
            end
            `VIA_REG_ADMIN_DOORBELL: begin
                if (admin_busy_reg || !run_reg) begin
                    admin_rej_next = 1'b1;
                end else begin
                    admin_busy_next  = 1'b1;
                    admin_done_next  = 1'b0;
                    admin_rej_next   = 1'b0;
                    admin_event_next = 1'b1;
                end
            end
            default: begin
                // ro registers: writes are ignored
            end
        endcase
    end

    // CPU_MEM_ADDR.WORD: incremented by every CPU_MEM_DATA write and by
    // every issued CPU_MEM_DATA read (never both in one cycle)
    if (mem_wr || mem_rd) begin
        mem_word_next = mem_word_reg + 16'd1;
    end

    // the firmware completes the admin command
    if (fw_admin_complete && admin_busy_reg) begin
        admin_busy_next = 1'b0;
        admin_done_next = 1'b1;
        admin_irq       = 1'b1;
    end
    // the core held in reset abandons the command
    if (!run_reg) begin
        admin_busy_next = 1'b0;
    end

    // log words dropped (saturating); reading FW_LOG_LEVEL clears the count
    if (lvl_read) begin
        log_dropped_next = 16'd0;
    end
    if (log_drop && log_dropped_next != 16'hffff) begin
        log_dropped_next = log_dropped_next + 16'd1;
    end

    // hardware causes win over a clear in the same cycle; while a soft reset
    // runs they are dropped (the aborted DMA copy finishing while the NIC
    // drains must not interrupt the driver that asked for the reset)
    hw_causes = 32'd0;
    hw_causes[`VIA_IRQ_STATUS_FW_FAULT_LSB]   = cpu_halted && !halted_prev_reg;
    hw_causes[`VIA_IRQ_STATUS_ADMIN_DONE_LSB] = admin_irq;
    hw_causes[`VIA_IRQ_STATUS_FW_LOG_LSB]     = fw_log_push;
    if (!reset_busy) begin
        irq_status_next = irq_status_next | irq_set | hw_causes[NUM_IRQ-1:0];
    end
end

// the log FIFO's storage: no reset, so it may map to RAM
always @(posedge clk) begin
    if (log_push) begin
        log_mem[log_wr_ptr_reg] <= fw_log_data;
    end
end

always @(posedge clk) begin
    if (rst) begin
        log_wr_ptr_reg <= {LOG_PTR_WIDTH{1'b0}};
        log_rd_ptr_reg <= {LOG_PTR_WIDTH{1'b0}};
        log_count_reg  <= 16'd0;
    end else begin
        if (log_push) begin
            log_wr_ptr_reg <= (log_wr_ptr_reg == LOG_PTR_LAST) ? {LOG_PTR_WIDTH{1'b0}} : log_wr_ptr_reg + 1'b1;
        end
        if (log_pop) begin
            log_rd_ptr_reg <= (log_rd_ptr_reg == LOG_PTR_LAST) ? {LOG_PTR_WIDTH{1'b0}} : log_rd_ptr_reg + 1'b1;
        end
        if (log_push && !log_pop) begin
            log_count_reg <= log_count_reg + 16'd1;
        end else if (log_pop && !log_push) begin
            log_count_reg <= log_count_reg - 16'd1;
        end
    end
end

wire [31:0] log_head = log_empty ? 32'd0 : log_mem[log_rd_ptr_reg];

assign fw_log_space = LOG_DEPTH16 - log_count_reg;

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
        run_reg            <= `VIA_CPU_CTRL_RUN_RESET;
        mem_word_reg       <= 16'd0;
        mem_sel_reg        <= 1'b0;
        halted_prev_reg    <= 1'b0;
        admin_busy_reg     <= 1'b0;
        admin_done_reg     <= 1'b0;
        admin_rej_reg      <= 1'b0;
        admin_event_reg    <= 1'b0;
        log_dropped_reg    <= 16'd0;
        rd_wait_reg        <= 1'b0;
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
        run_reg            <= run_next;
        mem_word_reg       <= mem_word_next;
        mem_sel_reg        <= mem_sel_next;
        halted_prev_reg    <= cpu_halted;
        admin_busy_reg     <= admin_busy_next;
        admin_done_reg     <= admin_done_next;
        admin_rej_reg      <= admin_rej_next;
        admin_event_reg    <= admin_event_next;
        log_dropped_reg    <= log_dropped_next;
        rd_wait_reg        <= rd_issue || (rd_wait_reg && !rd_done);
    end
end

assign cpu_run        = run_reg;
assign cpu_host_en    = mem_wr || mem_rd;
assign cpu_host_we    = mem_wr;
assign cpu_host_sel   = mem_sel_reg;
assign cpu_host_addr  = mem_word_reg;
assign cpu_host_wdata = reg_wr_data;
assign fw_admin_event = admin_event_reg;
assign busy           = admin_event_reg || rd_wait_reg;

// ------------------------------------------------------------ admin windows

// ADMIN_CMD: port A the host (read/write, byte strobes), port B the firmware
// (read only). ADMIN_RSP: port A the firmware (read/write, byte strobes),
// port B the host (read only).
wire [31:0] cmd_host_rdata;
wire [31:0] rsp_host_rdata;
// the windows are 256-byte aligned: address bits 7:2 select the word

via_cpu_ram #(
    .WORDS(64),
    .AW(6)
) cmd_ram_inst (
    .clk(clk),
    .a_en(cmd_wr || cmd_rd),
    .a_we(cmd_wr ? reg_wr_strb : 4'd0),
    .a_addr(cmd_wr ? wr_addr32[7:2] : rd_addr32[7:2]),
    .a_wdata(reg_wr_data),
    .a_rdata(cmd_host_rdata),
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
    .b_en(rsp_rd),
    .b_we(1'b0),
    .b_addr(rd_addr32[7:2]),
    .b_wdata(32'd0),
    .b_rdata(rsp_host_rdata)
);

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

// The register multiplexer serves one address per cycle: the host's, when
// a host read that needs it is presented, else the firmware's BAR0 view.
// It has no side effects itself; pops and clears happen on host read acks.
wire        host_mux = reg_rd_en && !rd_is_slow;
wire [15:0] fw_off   = {6'd0, fw_bar_rd_addr[9:2], 2'b00};
wire [15:0] mux_off  = host_mux ? rd_off : fw_off;
wire        mux_regs = host_mux ? rd_is_gregs : 1'b1;

reg [31:0] rd_data;

always @* begin
    rd_data = 32'd0;
    if (mux_regs) begin
        case (mux_off)
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
            `VIA_REG_CAP_CPU: begin
                rd_data[`VIA_CAP_CPU_IMEM_KB_RANGE] = CAP_IMEM_KB[`VIA_CAP_CPU_IMEM_KB_WIDTH-1:0];
                rd_data[`VIA_CAP_CPU_DMEM_KB_RANGE] = CAP_DMEM_KB[`VIA_CAP_CPU_DMEM_KB_WIDTH-1:0];
            end
            `VIA_REG_CPU_CTRL:
                rd_data[`VIA_CPU_CTRL_RUN_RANGE] = run_reg;
            `VIA_REG_CPU_STATUS: begin
                rd_data[`VIA_CPU_STATUS_RUNNING_RANGE] = run_reg && !cpu_halted;
                rd_data[`VIA_CPU_STATUS_HALTED_RANGE] = cpu_halted;
                rd_data[`VIA_CPU_STATUS_WFI_RANGE] = cpu_wfi;
            end
            `VIA_REG_CPU_TRAP_CAUSE:
                rd_data[4:0] = cpu_trap_cause;
            `VIA_REG_CPU_TRAP_PC:
                rd_data = cpu_trap_pc;
            `VIA_REG_CPU_TRAP_VAL:
                rd_data = cpu_trap_val;
            `VIA_REG_CPU_PC:
                rd_data = cpu_pc;
            `VIA_REG_CPU_RETIRED:
                rd_data = cpu_retired;
            `VIA_REG_CPU_MEM_ADDR: begin
                rd_data[`VIA_CPU_MEM_ADDR_WORD_RANGE] = mem_word_reg;
                rd_data[`VIA_CPU_MEM_ADDR_SEL_RANGE] = mem_sel_reg;
            end
            `VIA_REG_FW_READY:
                rd_data = run_reg ? fw_ready : 32'd0;
            `VIA_REG_FW_LOG:
                rd_data = log_head;
            `VIA_REG_FW_LOG_LEVEL: begin
                rd_data[`VIA_FW_LOG_LEVEL_WORDS_RANGE] = log_count_reg;
                rd_data[`VIA_FW_LOG_LEVEL_DROPPED_RANGE] = log_dropped_reg;
            end
            `VIA_REG_ADMIN_STATUS: begin
                rd_data[`VIA_ADMIN_STATUS_BUSY_RANGE] = admin_busy_reg;
                rd_data[`VIA_ADMIN_STATUS_DONE_RANGE] = admin_done_reg;
                rd_data[`VIA_ADMIN_STATUS_REJECTED_RANGE] = admin_rej_reg;
            end
            default: begin
                // CTRL, DIAG_CTRL, IRQ_FORCE, ADMIN_DOORBELL read as zero,
                // and so does CPU_MEM_DATA here (the host's read of it is a
                // multi-cycle read below); unmapped offsets read as zero
                // with SLVERR
            end
        endcase
    end
end

assign reg_rd_ack  = reg_rd_en && (!rd_is_slow || (rd_wait_reg && (!rd_is_mem || cpu_host_rvalid)));
assign reg_rd_data = !rd_is_slow ? rd_data :
                     rd_is_mem ? cpu_host_rdata :
                     rd_is_cmd ? cmd_host_rdata : rsp_host_rdata;

assign fw_bar_rd_ack  = fw_bar_rd_en && !host_mux;
assign fw_bar_rd_data = rd_data;
assign fw_bar_rd_err  = !is_global_reg(fw_off);
assign reg_rd_resp = rd_is_reg ? RESP_OKAY :
                     rd_is_db ? RESP_OKAY :
                     rd_is_global ? RESP_SLVERR : RESP_DECERR;

endmodule

`default_nettype wire
