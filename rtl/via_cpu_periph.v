// via_cpu_periph: the control processor's peripheral window (the firmware's
// view of the NIC), behind via_cpu's per_* port at 0x2000_0000. Offsets are
// those of rtl/layouts/fw.layout (rtl/generated/via_fw.vh):
//
//   0x0000 REGS    ID, EVENT (pop), EVENT_COUNT (DROPPED clear-on-read),
//                  TIME_LO (latches TIME_HI), TIME_HI, TIMER_CMP_LO/HI,
//                  TIMER_CTRL.ARM, LOG (push), LOG_SPACE, ADMIN_COMPLETE,
//                  READY, SCRATCH; TPT_INDEX .. TPT_STATUS (the TPT's
//                  programming port, below)
//   0x1000 ADMIN_CMD_WIN  64 words, read only (the RAM lives in via_admin_mbox)
//   0x1100 ADMIN_RSP_WIN  64 words, read/write with byte strobes (idem)
//   0x8000 BAR0    read-only view of BAR0's global registers 0x000..0x3FF,
//                  through via_regfile's read multiplexer (fw_bar_rd_*):
//                  never a side effect (see via_regfile)
//
// Access faults (per_err, the core traps with cause 5 or 7): an offset in no
// window or holding no register, a store to a read-only register or window
// (ID, EVENT, EVENT_COUNT, TIME_*, LOG_SPACE, ADMIN_CMD_WIN, BAR0), a BAR0
// offset that holds no register. Loads of the write-only registers LOG and
// ADMIN_COMPLETE read 0. rw registers honour the byte strobes; a store of
// any width to LOG, ADMIN_COMPLETE pushes/completes (LOG pushes the strobed
// bytes, the others zero).
//
// Timing: an access is taken in the first cycle per_valid is 1 (and the
// previous answer is gone); registers answer with per_ready in the next
// cycle, the windows one cycle later (synchronous RAM read), the BAR0 view
// when via_regfile grants the read (host reads have priority). per_ready,
// per_rdata and per_err come from flip-flops. Side effects (pops, pushes,
// clears, latches) happen once, in the cycle the access is taken.
//
// Events: a FIFO (via_fifo) of FW_EVENT_DEPTH entries. admin_event (an accepted
// ADMIN_DOORBELL) pushes EV_ADMIN; the timer pushes EV_TIMER once
// time_cycles >= TIMER_CMP while ARM is 1, and clears ARM (if admin_event
// comes in the same cycle the timer fires one cycle later). A push into a
// full FIFO is dropped and counted in EVENT_COUNT.DROPPED (saturating,
// cleared by reading EVENT_COUNT). irq_wake (WFI wake-up) is 1 while the FIFO
// is not empty. EVENT.ARG is 0 for both events (only the code is stored).
//
// Log: a store to LOG is a one-cycle log_push with the word (always, even
// when via_fw_log's FIFO is full and drops it; LOG_SPACE is log_space).
// via_nic also brings log_push/log_data out as the fw_log_* debug port.
//
// TPT window: TPT_INDEX, TPT_VA_LO/HI, TPT_LEN, TPT_ATTR, TPT_PL_LO/HI are
// rw registers that drive via_tpt's prog_* inputs. A store to TPT_CMD (byte
// 0 strobed) while TPT_STATUS.BUSY is 0 sends TPT_CMD.OP to the TPT: a
// one-cycle prog_valid in the next cycle (a registered pulse); while BUSY
// the store is ignored. TPT_STATUS.BUSY is 1 from the store until the TPT
// has finished (prog_busy, checked from the cycle after the pulse: the TPT
// raises it in that cycle when the command takes longer); VALID and GEN are
// the TPT's prog_rd_valid and prog_rd_gen. When a WRITE, SET_ATTR or READ
// has finished, TPT_VA, TPT_LEN, TPT_ATTR and TPT_PL are loaded with the
// entry the TPT reports (prog_rd_*), in the cycle BUSY falls; INVALIDATE
// and NOP leave them as they are.
//
// VI context window: VI_CTX_VI, VI_CTX_ATTR (ENABLE, RESET_Q, STATE,
// RDMA_WRITE, RDMA_READ), VI_CTX_PTAG, VI_CTX_MTU, VI_CTX_PEER are rw
// registers (byte strobes; each keeps its fields only) that drive the ctx_*
// write port of the data path's per-VI context (via_vi_ctx and
// via_vi_queues' ctx port, docs/vi.md). A store to VI_CTX_CMD with byte 0
// strobed and COMMIT 1 while VI_CTX_STATUS.BUSY is 0 raises ctx_valid in
// the next cycle and holds it, with the fields as they were at the store
// (the registers may be rewritten meanwhile; ctx_* are copies taken at the
// commit), until ctx_ready is 1 in a cycle ctx_valid is 1 (that cycle is
// the transfer). VI_CTX_STATUS.BUSY is ctx_valid; a commit while BUSY is
// ignored. ctx_valid counts in busy. VI_CTX_STATUS.SEND_QUEUED/RECV_QUEUED
// show ctx_queued, the queue state of VI VI_CTX_VI (ctx_q_vi, the register
// as it is now).
//
// Connection management: CM_RX_STATUS/SRC/DST_VI/DATA0..7 show the CONNECT
// message via_net holds (cm_rx_*); a store to CM_RX_POP makes cm_rx_ready
// a one-cycle pulse in the next cycle (the message is taken). EV_CM is
// pushed once per message, when it is at the head and was not yet
// announced (after admin_event and the timer when they come in the same
// cycle; if the FIFO is full it is dropped and counted like the others, so
// the firmware looks at CM_RX_STATUS after every event). CM_TX_DST,
// CM_TX_SRC_VI and CM_TX_DATA0..7 are rw registers; a store to CM_TX_SEND
// (byte 0) while CM_TX_STATUS.BUSY is 0 copies them to cm_tx_* and raises
// cm_tx_valid in the next cycle until cm_tx_ready (BUSY meanwhile). A store
// to HOST_EVENT is a one-cycle host_event pulse (IRQ_STATUS.FW_EVENT); a
// store to AERR_PUSH a one-cycle aerr_push with its value (the VI engine
// queues it for the driver: BAR0 VI_AERR).
//
// Reset: rst is the core's reset (the NIC's block reset or CPU_CTRL.RUN=0):
// events, timer, READY, SCRATCH and the TIME_HI latch start over with the
// firmware, so READY (FW_READY for the host) reads 0 while the core is held
// in reset.

`timescale 1ns / 1ps
`default_nettype none

`include "via_bar0.vh"
`include "via_fw.vh"
`include "via_param_check.vh"

module via_cpu_periph #(
    parameter EVENT_DEPTH = `VIA_DEFAULT_FW_EVENT_DEPTH  // event FIFO entries (2..65535)
) (
    input  wire        clk,
    input  wire        rst,

    // via_cpu peripheral port
    input  wire        per_valid,
    input  wire        per_we,
    /* verilator lint_off UNUSEDSIGNAL */
    // bits 1:0 are always 0 (word offsets)
    input  wire [15:0] per_addr,
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire [31:0] per_wdata,
    input  wire [3:0]  per_wstrb,
    output wire        per_ready,
    output wire [31:0] per_rdata,
    output wire        per_err,
    output wire        irq_wake,

    // platform time base, in cycles
    input  wire [63:0] time_cycles,

    // admin mailbox (via_admin_mbox, through via_regfile)
    input  wire        admin_event,
    output wire        admin_complete,
    output wire [31:0] ready,

    // log FIFO (via_fw_log, through via_regfile)
    output wire        log_push,
    output wire [31:0] log_data,
    input  wire [15:0] log_space,

    // admin windows (RAMs in via_admin_mbox), synchronous reads
    output wire        cmd_en,
    output wire [5:0]  cmd_addr,
    input  wire [31:0] cmd_rdata,
    output wire        rsp_en,
    output wire [3:0]  rsp_we,
    output wire [5:0]  rsp_addr,
    output wire [31:0] rsp_wdata,
    input  wire [31:0] rsp_rdata,

    // BAR0 view (via_regfile's read multiplexer)
    output wire        bar_rd_en,
    output wire [9:0]  bar_rd_addr,
    input  wire        bar_rd_ack,
    input  wire [31:0] bar_rd_data,
    input  wire        bar_rd_err,

    // via_tpt's programming port
    output wire        tpt_prog_valid,
    output wire [2:0]  tpt_prog_op,
    output wire [15:0] tpt_prog_index,
    output wire [63:0] tpt_prog_va,
    output wire [31:0] tpt_prog_len,
    output wire [15:0] tpt_prog_ptag,
    output wire        tpt_prog_rdma_write,
    output wire        tpt_prog_rdma_read,
    output wire [63:0] tpt_prog_pl,
    input  wire        tpt_prog_busy,
    input  wire [63:0] tpt_prog_rd_va,
    input  wire [31:0] tpt_prog_rd_len,
    input  wire [15:0] tpt_prog_rd_ptag,
    input  wire        tpt_prog_rd_rdma_write,
    input  wire        tpt_prog_rd_rdma_read,
    input  wire [63:0] tpt_prog_rd_pl,
    input  wire        tpt_prog_rd_valid,
    input  wire [15:0] tpt_prog_rd_gen,

    // per-VI context write port (via_vi_ctx, via_vi_queues)
    output wire        ctx_valid,
    input  wire        ctx_ready,
    output wire [15:0] ctx_vi,
    output wire        ctx_enable,
    output wire [1:0]  ctx_state,
    output wire        ctx_reset_q,
    output wire        ctx_rdma_write,
    output wire        ctx_rdma_read,
    output wire        ctx_reliable,
    output wire [15:0] ctx_ptag,
    output wire [31:0] ctx_max_transfer,
    output wire [23:0] ctx_peer,      // {peer node, peer VI}
    // queue state of VI VI_CTX_VI (via_vi_queues' qs_*): VI_CTX_STATUS
    output wire [15:0] ctx_q_vi,
    input  wire [1:0]  ctx_queued,    // bit 0 send queue, bit 1 receive queue

    // connection management (via_net): a received CONNECT message, held
    // until cm_rx_ready (a CM_RX_POP store); a message to send, cm_tx_valid
    // held until cm_tx_ready; host_event, a pulse per HOST_EVENT store
    input  wire         cm_rx_valid,
    output wire         cm_rx_ready,
    input  wire [7:0]   cm_rx_node,
    input  wire [15:0]  cm_rx_vi,
    input  wire [15:0]  cm_rx_dst_vi,
    input  wire [255:0] cm_rx_data,
    output wire         cm_tx_valid,
    input  wire         cm_tx_ready,
    output wire [7:0]   cm_tx_node,
    output wire [15:0]  cm_tx_dst_vi,
    output wire [15:0]  cm_tx_src_vi,
    output wire [255:0] cm_tx_data,
    output wire         host_event,
    // an AERR_PUSH store: one cycle, with its value (VI 15:0, CODE 23:16)
    output wire         aerr_push,
    output wire [23:0]  aerr_push_data,
    // reliable connections the data path found broken (via_vi_engine):
    // the lowest pending VI, a pulse per new one (EV_BREAK), and a
    // VI_CTX_BREAK store (one cycle, the VI whose bit to clear)
    input  wire         brk_valid,
    input  wire [15:0]  brk_vi,
    input  wire         brk_new,
    output wire         brk_clr,
    output wire [15:0]  brk_clr_vi,

    // activity, for via_nic's idle output
    output wire        ev_pending,   // event FIFO not empty
    output wire        timer_armed,
    output wire        busy          // an access in progress
);

generate
    if (EVENT_DEPTH < 2 || EVENT_DEPTH > 65535) begin : g_bad_event_depth
        `VIA_PARAM_FAIL(("via_cpu_periph: EVENT_DEPTH=%0d, must be 2..65535", EVENT_DEPTH))
    end
endgenerate

localparam EV_LEVEL_WIDTH = $clog2(EVENT_DEPTH + 1);

localparam [31:0] EV_ADMIN32 = `VIA_FW_EV_ADMIN;
localparam [31:0] EV_TIMER32 = `VIA_FW_EV_TIMER;
localparam [7:0]  EV_ADMIN = EV_ADMIN32[7:0];
localparam [7:0]  EV_TIMER = EV_TIMER32[7:0];
localparam [31:0] EV_CM32    = `VIA_FW_EV_CM;
localparam [7:0]  EV_CM      = EV_CM32[7:0];
localparam [31:0] EV_BREAK32 = `VIA_FW_EV_BREAK;
localparam [7:0]  EV_BREAK   = EV_BREAK32[7:0];

localparam [1:0]
    S_IDLE = 2'd0,   // waiting for an access
    S_CMD  = 2'd1,   // ADMIN_CMD read in the RAM
    S_RSP  = 2'd2,   // ADMIN_RSP read in the RAM
    S_BAR  = 2'd3;   // waiting for the BAR0 read grant

// ---------------------------------------------------------------- decode

wire [31:0] addr32 = {16'd0, per_addr[15:2], 2'b00};
wire in_regs = addr32 <  `VIA_FW_REGS_BASE + `VIA_FW_REGS_BYTES;
wire in_cmd  = addr32 >= `VIA_FW_ADMIN_CMD_WIN_BASE && addr32 < `VIA_FW_ADMIN_CMD_WIN_BASE + `VIA_FW_ADMIN_CMD_WIN_BYTES;
wire in_rsp  = addr32 >= `VIA_FW_ADMIN_RSP_WIN_BASE && addr32 < `VIA_FW_ADMIN_RSP_WIN_BASE + `VIA_FW_ADMIN_RSP_WIN_BYTES;
wire in_bar  = addr32 >= `VIA_FW_BAR0_BASE && addr32 < `VIA_FW_BAR0_BASE + `VIA_FW_BAR0_BYTES;
wire [15:0] off = {per_addr[15:2], 2'b00};

wire [31:0] wmask = {{8{per_wstrb[3]}}, {8{per_wstrb[2]}}, {8{per_wstrb[1]}}, {8{per_wstrb[0]}}};

function [31:0] merge;
    input [31:0] old;
    input [31:0] data;
    input [31:0] mask;
    begin
        merge = (old & ~mask) | (data & mask);
    end
endfunction

// TPT_ATTR keeps its fields only (PTAG 15:0, RDMA_WRITE 16, RDMA_READ 17)
function [17:0] merge_attr;
    input [17:0] old;
    input [17:0] data;
    input [17:0] mask;
    begin
        merge_attr = (old & ~mask) | (data & mask);
    end
endfunction

function [23:0] merge24;
    input [23:0] old;
    input [23:0] data;
    input [23:0] mask;
    begin
        merge24 = (old & ~mask) | (data & mask);
    end
endfunction

function [15:0] merge16;
    input [15:0] old;
    input [15:0] data;
    input [15:0] mask;
    begin
        merge16 = (old & ~mask) | (data & mask);
    end
endfunction

// ---------------------------------------------------------------- state

reg [1:0]  state_reg, state_next;
reg        ready_reg, ready_next;
reg [31:0] rdata_reg, rdata_next;
reg        err_reg, err_next;

reg [31:0] time_hi_reg, time_hi_next;
reg [31:0] cmp_lo_reg, cmp_lo_next;
reg [31:0] cmp_hi_reg, cmp_hi_next;
reg        arm_reg, arm_next;
reg [31:0] ready_val_reg, ready_val_next;
reg [31:0] scratch_reg, scratch_next;
reg [15:0] ev_dropped_reg, ev_dropped_next;

// TPT window
reg [31:0] tpt_index_reg, tpt_index_next;
reg [31:0] tpt_va_lo_reg, tpt_va_lo_next;
reg [31:0] tpt_va_hi_reg, tpt_va_hi_next;
reg [31:0] tpt_len_reg, tpt_len_next;
reg [17:0] tpt_attr_reg, tpt_attr_next;
reg [31:0] tpt_pl_lo_reg, tpt_pl_lo_next;
reg [31:0] tpt_pl_hi_reg, tpt_pl_hi_next;
reg [2:0]  tpt_op_reg, tpt_op_next;

// VI context window: the registers, and the commit held until ctx_ready
reg [15:0] vc_vi_reg, vc_vi_next;
reg [18:0] vc_attr_reg, vc_attr_next;     // ATTR bits 18:0 (fields only)
reg [15:0] vc_ptag_reg, vc_ptag_next;
reg [31:0] vc_mtu_reg, vc_mtu_next;
reg [23:0] vc_peer_reg, vc_peer_next;
reg        ctx_valid_reg, ctx_valid_next;
reg [15:0] ctx_vi_reg, ctx_vi_next;
reg [18:0] ctx_attr_reg, ctx_attr_next;
reg [15:0] ctx_ptag_reg, ctx_ptag_next;
reg [31:0] ctx_mtu_reg, ctx_mtu_next;
reg [23:0] ctx_peer_reg, ctx_peer_next;
// the command pulse, then waiting for the TPT to finish it
reg        tpt_go_reg, tpt_go_next;
reg        tpt_wait_reg, tpt_wait_next;

// connection management
reg [31:0]  cmtx_dst_reg;           // CM_TX_DST (NODE 7:0, VI 31:16)
reg [15:0]  cmtx_src_reg;           // CM_TX_SRC_VI
reg [255:0] cmtx_data_reg;          // CM_TX_DATA0..7
reg         cmt_valid_reg;
reg [7:0]   cmt_node_reg;
reg [15:0]  cmt_dvi_reg, cmt_svi_reg;
reg [255:0] cmt_data_reg;
reg         cm_pop_reg;             // cm_rx_ready, the cycle after a CM_RX_POP store
reg         cm_seen_reg;            // EV_CM was pushed for the message at the head
reg         host_ev_reg;
reg         aerr_ev_reg;
reg  [23:0] aerr_data_reg;
reg         cm_wr_dst, cm_wr_src, cm_send, cm_pop, host_ev, aerr_ev, brk_wr;
reg         brk_clr_reg;
reg  [15:0] brk_clr_vi_reg;
reg [7:0]   cm_wr_data;             // CM_TX_DATAk stored (one bit per word)

reg        log_push_r;
reg        complete_r;
reg        ev_pop;
reg        cnt_read;
reg        cmd_en_r;
reg        rsp_en_r;
reg [3:0]  rsp_we_r;

// event FIFO (via_fifo): codes in, popped by reads of EVENT
wire                      ev_ready;
wire                      ev_valid;
wire [7:0]                ev_fifo_head;
wire [EV_LEVEL_WIDTH-1:0] ev_level;

/* verilator lint_off UNUSEDSIGNAL */
// the level as a word; EVENT_DEPTH < 2**16
reg [31:0] ev_count32;
/* verilator lint_on UNUSEDSIGNAL */

always @* begin
    ev_count32 = 32'd0;
    ev_count32[EV_LEVEL_WIDTH-1:0] = ev_level;
end

wire [15:0] ev_count = ev_count32[15:0];
wire ev_empty = !ev_valid;
wire [7:0] ev_head = ev_empty ? 8'd0 : ev_fifo_head;

wire timer_fire = arm_reg && time_cycles >= {cmp_hi_reg, cmp_lo_reg} && !admin_event;
// a CONNECT message at the head not announced yet (not in the cycle it is
// taken); it waits for a cycle without the other events
wire cm_ev_want = cm_rx_valid && !cm_seen_reg && !cm_pop_reg;
wire cm_ev_go   = cm_ev_want && !admin_event && !timer_fire;
// a broken connection announced (EV_BREAK) once per new one, in a cycle
// without the other events (a full FIFO drops it: the firmware also looks
// at VI_CTX_BREAK when it finds no event)
reg  brk_ev_reg;
wire brk_ev_go  = brk_ev_reg && !admin_event && !timer_fire && !cm_ev_go;
wire ev_in      = admin_event || timer_fire || cm_ev_go || brk_ev_go;
wire [7:0] ev_code = admin_event ? EV_ADMIN : timer_fire ? EV_TIMER : cm_ev_go ? EV_CM : EV_BREAK;
wire ev_drop    = ev_in && !ev_ready;

wire take = per_valid && !ready_reg && state_reg == S_IDLE;

wire tpt_busy = tpt_go_reg || tpt_wait_reg || tpt_prog_busy;
localparam [31:0] TPT_OP_WRITE32    = `VIA_FW_TPT_OP_WRITE;
localparam [31:0] TPT_OP_SET_ATTR32 = `VIA_FW_TPT_OP_SET_ATTR;
localparam [31:0] TPT_OP_READ32     = `VIA_FW_TPT_OP_READ;
localparam [2:0]  TPT_OP_WRITE      = TPT_OP_WRITE32[2:0];
localparam [2:0]  TPT_OP_SET_ATTR   = TPT_OP_SET_ATTR32[2:0];
localparam [2:0]  TPT_OP_READ       = TPT_OP_READ32[2:0];
// VI_CTX_ATTR's fields (the others read 0 and ignore writes)
localparam [18:0] VC_ATTR_MASK = (19'd1 << `VIA_FW_VI_CTX_ATTR_ENABLE_LSB)
                               | (19'd1 << `VIA_FW_VI_CTX_ATTR_RESET_Q_LSB)
                               | (19'd3 << `VIA_FW_VI_CTX_ATTR_STATE_LSB)
                               | (19'd1 << `VIA_FW_VI_CTX_ATTR_RDMA_WRITE_LSB)
                               | (19'd1 << `VIA_FW_VI_CTX_ATTR_RDMA_READ_LSB)
                               | (19'd1 << `VIA_FW_VI_CTX_ATTR_RELIABLE_LSB);

wire tpt_loads = tpt_op_reg == TPT_OP_WRITE || tpt_op_reg == TPT_OP_SET_ATTR || tpt_op_reg == TPT_OP_READ;

always @* begin
    state_next      = state_reg;
    ready_next      = 1'b0;
    rdata_next      = rdata_reg;
    err_next        = 1'b0;
    time_hi_next    = time_hi_reg;
    cmp_lo_next     = cmp_lo_reg;
    cmp_hi_next     = cmp_hi_reg;
    arm_next        = arm_reg;
    ready_val_next  = ready_val_reg;
    scratch_next    = scratch_reg;
    ev_dropped_next = ev_dropped_reg;
    log_push_r      = 1'b0;
    complete_r      = 1'b0;
    cm_wr_dst       = 1'b0;
    cm_wr_src       = 1'b0;
    cm_wr_data      = 8'd0;
    cm_send         = 1'b0;
    cm_pop          = 1'b0;
    host_ev         = 1'b0;
    aerr_ev         = 1'b0;
    brk_wr          = 1'b0;
    ev_pop          = 1'b0;
    cnt_read        = 1'b0;
    cmd_en_r        = 1'b0;
    rsp_en_r        = 1'b0;
    rsp_we_r        = 4'd0;
    tpt_index_next  = tpt_index_reg;
    tpt_va_lo_next  = tpt_va_lo_reg;
    tpt_va_hi_next  = tpt_va_hi_reg;
    tpt_len_next    = tpt_len_reg;
    tpt_attr_next   = tpt_attr_reg;
    tpt_pl_lo_next  = tpt_pl_lo_reg;
    tpt_pl_hi_next  = tpt_pl_hi_reg;
    tpt_op_next     = tpt_op_reg;
    tpt_go_next     = 1'b0;
    tpt_wait_next   = tpt_wait_reg;
    vc_vi_next      = vc_vi_reg;
    vc_attr_next    = vc_attr_reg;
    vc_ptag_next    = vc_ptag_reg;
    vc_mtu_next     = vc_mtu_reg;
    vc_peer_next    = vc_peer_reg;
    ctx_valid_next  = ctx_valid_reg && !ctx_ready;
    ctx_vi_next     = ctx_vi_reg;
    ctx_attr_next   = ctx_attr_reg;
    ctx_ptag_next   = ctx_ptag_reg;
    ctx_mtu_next    = ctx_mtu_reg;
    ctx_peer_next   = ctx_peer_reg;

    if (timer_fire) begin
        arm_next = 1'b0;
    end

    // TPT command: the pulse, then wait for prog_busy to fall and load the
    // entry the TPT reports
    if (tpt_go_reg) begin
        tpt_wait_next = 1'b1;
    end
    if (tpt_wait_reg && !tpt_prog_busy) begin
        tpt_wait_next = 1'b0;
        if (tpt_loads) begin
            tpt_va_lo_next = tpt_prog_rd_va[31:0];
            tpt_va_hi_next = tpt_prog_rd_va[63:32];
            tpt_len_next   = tpt_prog_rd_len;
            tpt_attr_next  = {tpt_prog_rd_rdma_read, tpt_prog_rd_rdma_write, tpt_prog_rd_ptag};
            tpt_pl_lo_next = tpt_prog_rd_pl[31:0];
            tpt_pl_hi_next = tpt_prog_rd_pl[63:32];
        end
    end

    case (state_reg)
        S_IDLE: begin
            if (take) begin
                ready_next = 1'b1;
                rdata_next = 32'd0;
                if (in_regs) begin
                    if (!per_we) begin
                        case (off)
                            `VIA_FW_REG_ID:           rdata_next = `VIA_MAGIC;
                            `VIA_FW_REG_EVENT: begin
                                rdata_next[`VIA_FW_EVENT_CODE_RANGE] = ev_head;
                                ev_pop = !ev_empty;
                            end
                            `VIA_FW_REG_EVENT_COUNT: begin
                                rdata_next[`VIA_FW_EVENT_COUNT_COUNT_RANGE] = ev_count;
                                rdata_next[`VIA_FW_EVENT_COUNT_DROPPED_RANGE] = ev_dropped_reg;
                                cnt_read = 1'b1;
                            end
                            `VIA_FW_REG_TIME_LO: begin
                                rdata_next = time_cycles[31:0];
                                time_hi_next = time_cycles[63:32];
                            end
                            `VIA_FW_REG_TIME_HI:      rdata_next = time_hi_reg;
                            `VIA_FW_REG_TIMER_CMP_LO: rdata_next = cmp_lo_reg;
                            `VIA_FW_REG_TIMER_CMP_HI: rdata_next = cmp_hi_reg;
                            `VIA_FW_REG_TIMER_CTRL:   rdata_next[`VIA_FW_TIMER_CTRL_ARM_RANGE] = arm_reg;
                            `VIA_FW_REG_LOG:          rdata_next = 32'd0;
                            `VIA_FW_REG_LOG_SPACE:    rdata_next[15:0] = log_space;
                            `VIA_FW_REG_ADMIN_COMPLETE: rdata_next = 32'd0;
                            `VIA_FW_REG_READY:        rdata_next = ready_val_reg;
                            `VIA_FW_REG_SCRATCH:      rdata_next = scratch_reg;
                            `VIA_FW_REG_TPT_INDEX:    rdata_next = tpt_index_reg;
                            `VIA_FW_REG_TPT_VA_LO:    rdata_next = tpt_va_lo_reg;
                            `VIA_FW_REG_TPT_VA_HI:    rdata_next = tpt_va_hi_reg;
                            `VIA_FW_REG_TPT_LEN:      rdata_next = tpt_len_reg;
                            `VIA_FW_REG_TPT_ATTR:     rdata_next[17:0] = tpt_attr_reg;
                            `VIA_FW_REG_TPT_PL_LO:    rdata_next = tpt_pl_lo_reg;
                            `VIA_FW_REG_TPT_PL_HI:    rdata_next = tpt_pl_hi_reg;
                            `VIA_FW_REG_TPT_CMD:      rdata_next = 32'd0;
                            `VIA_FW_REG_VI_CTX_VI:    rdata_next[15:0] = vc_vi_reg;
                            `VIA_FW_REG_VI_CTX_ATTR:  rdata_next[18:0] = vc_attr_reg;
                            `VIA_FW_REG_VI_CTX_PTAG:  rdata_next[15:0] = vc_ptag_reg;
                            `VIA_FW_REG_VI_CTX_MTU:   rdata_next = vc_mtu_reg;
                            `VIA_FW_REG_VI_CTX_PEER:  rdata_next[23:0] = vc_peer_reg;
                            `VIA_FW_REG_VI_CTX_CMD:   rdata_next = 32'd0;
                            `VIA_FW_REG_VI_CTX_STATUS: begin
                                rdata_next[`VIA_FW_VI_CTX_STATUS_BUSY_RANGE] = ctx_valid_reg;
                                rdata_next[`VIA_FW_VI_CTX_STATUS_SEND_QUEUED_RANGE] = ctx_queued[0];
                                rdata_next[`VIA_FW_VI_CTX_STATUS_RECV_QUEUED_RANGE] = ctx_queued[1];
                            end
                            `VIA_FW_REG_HOST_EVENT:   rdata_next = 32'd0;
                            `VIA_FW_REG_AERR_PUSH:    rdata_next = 32'd0;
                            `VIA_FW_REG_CM_RX_STATUS: rdata_next[`VIA_FW_CM_RX_STATUS_VALID_RANGE] = cm_rx_valid;
                            `VIA_FW_REG_CM_RX_SRC: begin
                                rdata_next[`VIA_FW_CM_RX_SRC_NODE_RANGE] = cm_rx_node;
                                rdata_next[`VIA_FW_CM_RX_SRC_VI_RANGE] = cm_rx_vi;
                            end
                            `VIA_FW_REG_CM_RX_DST_VI: rdata_next[15:0] = cm_rx_dst_vi;
                            `VIA_FW_REG_CM_RX_POP:    rdata_next = 32'd0;
                            `VIA_FW_REG_VI_CTX_BREAK: begin
                                rdata_next[`VIA_FW_VI_CTX_BREAK_VALID_RANGE] = brk_valid;
                                rdata_next[`VIA_FW_VI_CTX_BREAK_VI_RANGE] = brk_valid ? brk_vi : 16'd0;
                            end
                            `VIA_FW_REG_CM_RX_DATA0:  rdata_next = cm_rx_data[31:0];
                            `VIA_FW_REG_CM_RX_DATA1:  rdata_next = cm_rx_data[63:32];
                            `VIA_FW_REG_CM_RX_DATA2:  rdata_next = cm_rx_data[95:64];
                            `VIA_FW_REG_CM_RX_DATA3:  rdata_next = cm_rx_data[127:96];
                            `VIA_FW_REG_CM_RX_DATA4:  rdata_next = cm_rx_data[159:128];
                            `VIA_FW_REG_CM_RX_DATA5:  rdata_next = cm_rx_data[191:160];
                            `VIA_FW_REG_CM_RX_DATA6:  rdata_next = cm_rx_data[223:192];
                            `VIA_FW_REG_CM_RX_DATA7:  rdata_next = cm_rx_data[255:224];
                            `VIA_FW_REG_CM_TX_DST:    rdata_next = cmtx_dst_reg & 32'hFFFF_00FF;
                            `VIA_FW_REG_CM_TX_SRC_VI: rdata_next[15:0] = cmtx_src_reg;
                            `VIA_FW_REG_CM_TX_SEND:   rdata_next = 32'd0;
                            `VIA_FW_REG_CM_TX_STATUS: rdata_next[`VIA_FW_CM_TX_STATUS_BUSY_RANGE] = cmt_valid_reg;
                            `VIA_FW_REG_CM_TX_DATA0:  rdata_next = cmtx_data_reg[31:0];
                            `VIA_FW_REG_CM_TX_DATA1:  rdata_next = cmtx_data_reg[63:32];
                            `VIA_FW_REG_CM_TX_DATA2:  rdata_next = cmtx_data_reg[95:64];
                            `VIA_FW_REG_CM_TX_DATA3:  rdata_next = cmtx_data_reg[127:96];
                            `VIA_FW_REG_CM_TX_DATA4:  rdata_next = cmtx_data_reg[159:128];
                            `VIA_FW_REG_CM_TX_DATA5:  rdata_next = cmtx_data_reg[191:160];
                            `VIA_FW_REG_CM_TX_DATA6:  rdata_next = cmtx_data_reg[223:192];
                            `VIA_FW_REG_CM_TX_DATA7:  rdata_next = cmtx_data_reg[255:224];
                            `VIA_FW_REG_TPT_STATUS: begin
                                rdata_next[`VIA_FW_TPT_STATUS_BUSY_RANGE] = tpt_busy;
                                rdata_next[`VIA_FW_TPT_STATUS_VALID_RANGE] = tpt_prog_rd_valid;
                                rdata_next[`VIA_FW_TPT_STATUS_GEN_RANGE] = tpt_prog_rd_gen;
                            end
                            default:                  err_next = 1'b1;
                        endcase
                    end else begin
                        case (off)
                            `VIA_FW_REG_TIMER_CMP_LO: cmp_lo_next = merge(cmp_lo_reg, per_wdata, wmask);
                            `VIA_FW_REG_TIMER_CMP_HI: cmp_hi_next = merge(cmp_hi_reg, per_wdata, wmask);
                            `VIA_FW_REG_TIMER_CTRL: begin
                                if (per_wstrb[0]) begin
                                    arm_next = per_wdata[`VIA_FW_TIMER_CTRL_ARM_LSB];
                                end
                            end
                            `VIA_FW_REG_LOG:            log_push_r = 1'b1;
                            `VIA_FW_REG_ADMIN_COMPLETE: complete_r = 1'b1;
                            `VIA_FW_REG_READY:          ready_val_next = merge(ready_val_reg, per_wdata, wmask);
                            `VIA_FW_REG_SCRATCH:        scratch_next = merge(scratch_reg, per_wdata, wmask);
                            `VIA_FW_REG_TPT_INDEX:      tpt_index_next = merge(tpt_index_reg, per_wdata, wmask);
                            `VIA_FW_REG_TPT_VA_LO:      tpt_va_lo_next = merge(tpt_va_lo_reg, per_wdata, wmask);
                            `VIA_FW_REG_TPT_VA_HI:      tpt_va_hi_next = merge(tpt_va_hi_reg, per_wdata, wmask);
                            `VIA_FW_REG_TPT_LEN:        tpt_len_next = merge(tpt_len_reg, per_wdata, wmask);
                            `VIA_FW_REG_TPT_ATTR:       tpt_attr_next = merge_attr(tpt_attr_reg, per_wdata[17:0], wmask[17:0]);
                            `VIA_FW_REG_TPT_PL_LO:      tpt_pl_lo_next = merge(tpt_pl_lo_reg, per_wdata, wmask);
                            `VIA_FW_REG_TPT_PL_HI:      tpt_pl_hi_next = merge(tpt_pl_hi_reg, per_wdata, wmask);
                            `VIA_FW_REG_TPT_CMD: begin
                                if (per_wstrb[0] && !tpt_busy) begin
                                    tpt_op_next = per_wdata[`VIA_FW_TPT_CMD_OP_RANGE];
                                    tpt_go_next = 1'b1;
                                end
                            end
                            `VIA_FW_REG_VI_CTX_VI:      vc_vi_next = merge16(vc_vi_reg, per_wdata[15:0], wmask[15:0]);
                            `VIA_FW_REG_VI_CTX_ATTR:    vc_attr_next = (vc_attr_reg & ~(wmask[18:0] & VC_ATTR_MASK)) |
                                                                       (per_wdata[18:0] & wmask[18:0] & VC_ATTR_MASK);
                            `VIA_FW_REG_VI_CTX_PTAG:    vc_ptag_next = merge16(vc_ptag_reg, per_wdata[15:0], wmask[15:0]);
                            `VIA_FW_REG_VI_CTX_MTU:     vc_mtu_next = merge(vc_mtu_reg, per_wdata, wmask);
                            `VIA_FW_REG_VI_CTX_PEER:    vc_peer_next = merge24(vc_peer_reg, per_wdata[23:0], wmask[23:0]);
                            `VIA_FW_REG_VI_CTX_CMD: begin
                                if (per_wstrb[0] && per_wdata[`VIA_FW_VI_CTX_CMD_COMMIT_LSB] && !ctx_valid_reg) begin
                                    ctx_valid_next = 1'b1;
                                    ctx_vi_next    = vc_vi_reg;
                                    ctx_attr_next  = vc_attr_reg;
                                    ctx_ptag_next  = vc_ptag_reg;
                                    ctx_mtu_next   = vc_mtu_reg;
                                    ctx_peer_next  = vc_peer_reg;
                                end
                            end
                            `VIA_FW_REG_HOST_EVENT:     host_ev = 1'b1;
                            `VIA_FW_REG_AERR_PUSH:      aerr_ev = per_wstrb[0];
                            `VIA_FW_REG_CM_RX_POP:      cm_pop = 1'b1;
                            `VIA_FW_REG_VI_CTX_BREAK:   brk_wr = per_wstrb[0];
                            `VIA_FW_REG_CM_TX_DST:      cm_wr_dst = 1'b1;
                            `VIA_FW_REG_CM_TX_SRC_VI:   cm_wr_src = 1'b1;
                            `VIA_FW_REG_CM_TX_SEND:     cm_send = per_wstrb[0];
                            `VIA_FW_REG_CM_TX_DATA0:    cm_wr_data = 8'h01;
                            `VIA_FW_REG_CM_TX_DATA1:    cm_wr_data = 8'h02;
                            `VIA_FW_REG_CM_TX_DATA2:    cm_wr_data = 8'h04;
                            `VIA_FW_REG_CM_TX_DATA3:    cm_wr_data = 8'h08;
                            `VIA_FW_REG_CM_TX_DATA4:    cm_wr_data = 8'h10;
                            `VIA_FW_REG_CM_TX_DATA5:    cm_wr_data = 8'h20;
                            `VIA_FW_REG_CM_TX_DATA6:    cm_wr_data = 8'h40;
                            `VIA_FW_REG_CM_TX_DATA7:    cm_wr_data = 8'h80;
                            default:                    err_next = 1'b1;
                        endcase
                    end
                end else if (in_cmd) begin
                    if (per_we) begin
                        err_next = 1'b1;
                    end else begin
                        cmd_en_r   = 1'b1;
                        ready_next = 1'b0;
                        state_next = S_CMD;
                    end
                end else if (in_rsp) begin
                    rsp_en_r = 1'b1;
                    if (per_we) begin
                        rsp_we_r = per_wstrb;
                    end else begin
                        ready_next = 1'b0;
                        state_next = S_RSP;
                    end
                end else if (in_bar && !per_we) begin
                    ready_next = 1'b0;
                    state_next = S_BAR;
                end else begin
                    err_next = 1'b1;
                end
            end
        end
        S_CMD: begin
            ready_next = 1'b1;
            rdata_next = cmd_rdata;
            state_next = S_IDLE;
        end
        S_RSP: begin
            ready_next = 1'b1;
            rdata_next = rsp_rdata;
            state_next = S_IDLE;
        end
        default: begin
            // S_BAR
            if (bar_rd_ack) begin
                ready_next = 1'b1;
                rdata_next = bar_rd_err ? 32'd0 : bar_rd_data;
                err_next   = bar_rd_err;
                state_next = S_IDLE;
            end
        end
    endcase

    if (cnt_read) begin
        ev_dropped_next = 16'd0;
    end
    if (ev_drop && ev_dropped_next != 16'hffff) begin
        ev_dropped_next = ev_dropped_next + 16'd1;
    end
end

via_fifo #(
    .WIDTH(8),
    .DEPTH(EVENT_DEPTH)
) ev_fifo_inst (
    .clk(clk),
    .rst(rst),
    .s_data(ev_code),
    .s_valid(ev_in),
    .s_ready(ev_ready),
    .m_data(ev_fifo_head),
    .m_valid(ev_valid),
    .m_ready(ev_pop),
    .level(ev_level)
);

always @(posedge clk) begin
    if (rst) begin
        state_reg      <= S_IDLE;
        ready_reg      <= 1'b0;
        rdata_reg      <= 32'd0;
        err_reg        <= 1'b0;
        time_hi_reg    <= 32'd0;
        cmp_lo_reg     <= 32'd0;
        cmp_hi_reg     <= 32'd0;
        arm_reg        <= `VIA_FW_TIMER_CTRL_ARM_RESET;
        ready_val_reg  <= 32'd0;
        scratch_reg    <= 32'd0;
        ev_dropped_reg <= 16'd0;
        tpt_index_reg  <= 32'd0;
        tpt_va_lo_reg  <= 32'd0;
        tpt_va_hi_reg  <= 32'd0;
        tpt_len_reg    <= 32'd0;
        tpt_attr_reg   <= 18'd0;
        tpt_pl_lo_reg  <= 32'd0;
        tpt_pl_hi_reg  <= 32'd0;
        tpt_op_reg     <= 3'd0;
        tpt_go_reg     <= 1'b0;
        tpt_wait_reg   <= 1'b0;
        vc_vi_reg      <= 16'd0;
        vc_attr_reg    <= 19'd0;
        vc_ptag_reg    <= 16'd0;
        vc_mtu_reg     <= 32'd0;
        vc_peer_reg    <= 24'd0;
        ctx_valid_reg  <= 1'b0;
        ctx_vi_reg     <= 16'd0;
        ctx_attr_reg   <= 19'd0;
        ctx_ptag_reg   <= 16'd0;
        ctx_mtu_reg    <= 32'd0;
        ctx_peer_reg   <= 24'd0;
    end else begin
        state_reg      <= state_next;
        ready_reg      <= ready_next;
        rdata_reg      <= rdata_next;
        err_reg        <= err_next;
        time_hi_reg    <= time_hi_next;
        cmp_lo_reg     <= cmp_lo_next;
        cmp_hi_reg     <= cmp_hi_next;
        arm_reg        <= arm_next;
        ready_val_reg  <= ready_val_next;
        scratch_reg    <= scratch_next;
        ev_dropped_reg <= ev_dropped_next;
        tpt_index_reg  <= tpt_index_next;
        tpt_va_lo_reg  <= tpt_va_lo_next;
        tpt_va_hi_reg  <= tpt_va_hi_next;
        tpt_len_reg    <= tpt_len_next;
        tpt_attr_reg   <= tpt_attr_next;
        tpt_pl_lo_reg  <= tpt_pl_lo_next;
        tpt_pl_hi_reg  <= tpt_pl_hi_next;
        tpt_op_reg     <= tpt_op_next;
        tpt_go_reg     <= tpt_go_next;
        tpt_wait_reg   <= tpt_wait_next;
        vc_vi_reg      <= vc_vi_next;
        vc_attr_reg    <= vc_attr_next;
        vc_ptag_reg    <= vc_ptag_next;
        vc_mtu_reg     <= vc_mtu_next;
        vc_peer_reg    <= vc_peer_next;
        ctx_valid_reg  <= ctx_valid_next;
        ctx_vi_reg     <= ctx_vi_next;
        ctx_attr_reg   <= ctx_attr_next;
        ctx_ptag_reg   <= ctx_ptag_next;
        ctx_mtu_reg    <= ctx_mtu_next;
        ctx_peer_reg   <= ctx_peer_next;
    end
end

integer cmk;
always @(posedge clk) begin
    if (rst) begin
        cmtx_dst_reg  <= 32'd0;
        cmtx_src_reg  <= 16'd0;
        cmtx_data_reg <= 256'd0;
        cmt_valid_reg <= 1'b0;
        cmt_node_reg  <= 8'd0;
        cmt_dvi_reg   <= 16'd0;
        cmt_svi_reg   <= 16'd0;
        cmt_data_reg  <= 256'd0;
        cm_pop_reg    <= 1'b0;
        cm_seen_reg   <= 1'b0;
        host_ev_reg   <= 1'b0;
        aerr_ev_reg   <= 1'b0;
        aerr_data_reg <= 24'd0;
        brk_ev_reg    <= 1'b0;
        brk_clr_reg   <= 1'b0;
        brk_clr_vi_reg <= 16'd0;
    end else begin
        if (brk_new) brk_ev_reg <= 1'b1;
        else if (brk_ev_go) brk_ev_reg <= 1'b0;
        brk_clr_reg <= brk_wr;
        if (brk_wr) brk_clr_vi_reg <= per_wdata[15:0];
        if (cm_wr_dst) begin
            cmtx_dst_reg <= merge(cmtx_dst_reg, per_wdata, wmask) & 32'hFFFF_00FF;
        end
        if (cm_wr_src) begin
            cmtx_src_reg <= merge16(cmtx_src_reg, per_wdata[15:0], wmask[15:0]);
        end
        for (cmk = 0; cmk < 8; cmk = cmk + 1) begin
            if (cm_wr_data[cmk]) begin
                cmtx_data_reg[32*cmk +: 32] <= merge(cmtx_data_reg[32*cmk +: 32], per_wdata, wmask);
            end
        end
        if (cmt_valid_reg && cm_tx_ready) begin
            cmt_valid_reg <= 1'b0;
        end else if (cm_send && !cmt_valid_reg) begin
            cmt_valid_reg <= 1'b1;
            cmt_node_reg  <= cmtx_dst_reg[`VIA_FW_CM_TX_DST_NODE_RANGE];
            cmt_dvi_reg   <= cmtx_dst_reg[`VIA_FW_CM_TX_DST_VI_RANGE];
            cmt_svi_reg   <= cmtx_src_reg;
            cmt_data_reg  <= cmtx_data_reg;
        end
        // a pop is a pulse the cycle after the store; the next message at
        // the head is announced again
        cm_pop_reg <= cm_pop && cm_rx_valid;
        if (cm_pop_reg) begin
            cm_seen_reg <= 1'b0;
        end else if (cm_ev_go) begin
            cm_seen_reg <= 1'b1;
        end
        host_ev_reg <= host_ev;
        aerr_ev_reg <= aerr_ev;
        if (aerr_ev) aerr_data_reg <= per_wdata[23:0];
    end
end

assign cm_rx_ready  = cm_pop_reg;
assign cm_tx_valid  = cmt_valid_reg;
assign cm_tx_node   = cmt_node_reg;
assign cm_tx_dst_vi = cmt_dvi_reg;
assign cm_tx_src_vi = cmt_svi_reg;
assign cm_tx_data   = cmt_data_reg;
assign host_event   = host_ev_reg;
assign aerr_push      = aerr_ev_reg;
assign aerr_push_data = aerr_data_reg;
assign brk_clr        = brk_clr_reg;
assign brk_clr_vi     = brk_clr_vi_reg;

assign per_ready      = ready_reg;
assign per_rdata      = rdata_reg;
assign per_err        = err_reg;
assign irq_wake       = !ev_empty;

assign admin_complete = complete_r;
assign ready          = ready_val_reg;

assign log_push       = log_push_r;
assign log_data       = per_wdata & wmask;

assign cmd_en         = cmd_en_r;
assign cmd_addr       = per_addr[7:2];
assign rsp_en         = rsp_en_r;
assign rsp_we         = rsp_we_r;
assign rsp_addr       = per_addr[7:2];
assign rsp_wdata      = per_wdata;

assign bar_rd_en      = state_reg == S_BAR;
assign bar_rd_addr    = {per_addr[9:2], 2'b00};

assign tpt_prog_valid      = tpt_go_reg;
assign tpt_prog_op         = tpt_op_reg;
assign tpt_prog_index      = tpt_index_reg[15:0];
assign tpt_prog_va         = {tpt_va_hi_reg, tpt_va_lo_reg};
assign tpt_prog_len        = tpt_len_reg;
assign tpt_prog_ptag       = tpt_attr_reg[15:0];
assign tpt_prog_rdma_write = tpt_attr_reg[16];
assign tpt_prog_rdma_read  = tpt_attr_reg[17];
assign tpt_prog_pl         = {tpt_pl_hi_reg, tpt_pl_lo_reg};

assign ctx_valid        = ctx_valid_reg;
assign ctx_vi           = ctx_vi_reg;
assign ctx_enable       = ctx_attr_reg[`VIA_FW_VI_CTX_ATTR_ENABLE_LSB];
assign ctx_state        = ctx_attr_reg[`VIA_FW_VI_CTX_ATTR_STATE_RANGE];
assign ctx_reset_q      = ctx_attr_reg[`VIA_FW_VI_CTX_ATTR_RESET_Q_LSB];
assign ctx_rdma_write   = ctx_attr_reg[`VIA_FW_VI_CTX_ATTR_RDMA_WRITE_LSB];
assign ctx_rdma_read    = ctx_attr_reg[`VIA_FW_VI_CTX_ATTR_RDMA_READ_LSB];
assign ctx_reliable     = ctx_attr_reg[`VIA_FW_VI_CTX_ATTR_RELIABLE_LSB];
assign ctx_ptag         = ctx_ptag_reg;
assign ctx_max_transfer = ctx_mtu_reg;
assign ctx_peer         = ctx_peer_reg;
assign ctx_q_vi         = vc_vi_reg;

assign ev_pending     = !ev_empty;
assign timer_armed    = arm_reg;
assign busy           = per_valid || ready_reg || state_reg != S_IDLE || tpt_go_reg || tpt_wait_reg || ctx_valid_reg ||
                        cmt_valid_reg || cm_pop_reg || cm_ev_want || host_ev_reg || aerr_ev_reg;

endmodule

`default_nettype wire
