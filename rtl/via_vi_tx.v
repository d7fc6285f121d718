// via_vi_tx: send engine of the vianic NIC (issue 9).
//
// Takes one work item (a send queue's current descriptor) at a time from
// via_vi_queues, fetches the descriptor with its own via_desc_fetch
// instance, sends the message as one frame of the internal format
// (via_frame.vh) on m_axis, writes the descriptor's Status word back and
// advances the queue. docs/vi.md ("The data path: design") is the base.
//
// Per work item
//   1. ctx_rd_vi = the item's VI; the next cycle the context is latched and
//      the fetch requested (req_ptag = ctx ptag, req_recv 0, MaxTransfer and
//      RDMA enables from the context).
//   2. the fetch result decides: RES_BUS -> TRANSPORT_ERROR; RES_STATUS ->
//      its status bit; RES_DESC with op RDMA_WRITE / RDMA_READ ->
//      LOCAL_FORMAT_ERROR (RDMA is a later issue); a send on a VI whose
//      context state is ERROR -> FLUSHED; on a VI not CONNECTED (or not
//      enabled) -> LOCAL_FORMAT_ERROR. These complete without a frame. The
//      state used is the context's (read in step 1), not work_state.
//   3. a good send: the HEADER goes out at once, before any data is read;
//      in parallel the data segments are looked up page by page (lookup
//      len = the segment's remaining length, LOCAL_READ, ctx ptag), up to
//      XQ_DEPTH lookups ahead; each translation is read with full-width
//      INCR bursts (<= MAX_BURST beats, within its page) issued only when
//      the read buffer (RD_BUF_BYTES, a via_ram: block RAM) has room for
//      every beat; several bursts are in flight (up to 32, the buffer
//      permitting); R beats are annotated with their first valid byte and
//      count, buffered, and packed from lane 0 by a realigning shifter
//      (an accumulator of two beats) into the payload beats.
//      Zero-length segments are skipped. A lookup error (status
//      LOCAL_PROTECTION_ERROR) or an R beat with SLVERR/DECERR
//      (TRANSPORT_ERROR), whichever comes first, stops the lookups and
//      bursts; the payload stops at once (what was buffered is dropped), the
//      unit waits until every lookup response and every R beat in flight
//      has come, then sends the TRAILER with that status. A whole message
//      ends with the TRAILER status 0.
//   4. write-back: lookup (descriptor handle, VA, 32 bytes, LOCAL_WRITE);
//      on success one single-beat write of the Status word (offset 28, four
//      strobes) = DONE | error bits | OP COMPLETED_SEND (0). Once its AW
//      and W are taken the main sequence goes on (step 5 and the next work
//      item); a write-back tail (wb_bwait) awaits the B (SLVERR/DECERR:
//      counted in cnt_wb_lost) and then pulses done_pulse and counts the
//      descriptor. One Status write at most is in flight: the next
//      descriptor's write-back lookup waits for the B, so completions
//      (Status writes, done_pulse) stay in order. Lookup failure: nothing
//      written, cnt_wb_lost, the descriptor completes at its advance.
//      Length and ImmediateData are not written for a send.
//   5. advance (adv_next = res_next, 0 if res_ctl_valid is 0; adv_keep 0),
//      then the fetch result is released. The advance comes after the
//      Status write is issued, not after its B: the queue block needs only
//      the fetched descriptor's Next (an advance means "cur was fetched",
//      docs/vi.md), the Status write cannot be passed by a later one (same
//      AWID, issued after this B, host memory applies them in order), and
//      the host learns of the completion only from the Status word.
//
// Abort (level): no new work, lookup, AR, AW or fetch request is started;
// a request or lookup not yet taken is withdrawn; what is in flight is
// finished (every lookup response, R beat and B taken; the fetch unit's
// result taken). A frame being sent is cut without trailer: m_axis_tvalid
// drops at once (a reset follows; this is the one place the stream's
// valid/hold rule is not kept). No write-back is started, no advance and
// no done_pulse; a B still awaited by the write-back tail is taken, and if
// its descriptor's queue had advanced it completes it (done_pulse): every
// advance gets its done_pulse. busy = a work item is held (state not idle) or a Status
// write awaits its B or its done_pulse is out; it covers everything in
// flight.
//
// Fence: inflight_epoch = the fetch unit's OR this unit's: bit e is 1 from
// the cycle a successful data or write-back lookup of epoch e is accepted
// (combinational term) while a translation of epoch e is held or a burst
// issued under it has not returned its last R beat, and for the write-back
// until its B.
//
// Timing: work_ready, adv_valid, req_valid, d_lk_valid depend on state
// registers and abort only; m_axis_* and the AXI AR/AW/W outputs are
// registers; w_axi_bready is a register (wb_bwait); d_axi_rready and
// d_rs_ready are constant 1 (space is reserved
// before a lookup or an AR is issued); inflight_epoch has a combinational
// term from d_rs_*.

`timescale 1ns / 1ps
`default_nettype none

`include "via_param_check.vh"
`include "via_desc.vh"
`include "via_bar0.vh"
`include "via_frame.vh"

module via_vi_tx #(
    parameter DATA_WIDTH   = 64,    // 64, 128, 256 or 512
    parameter ADDR_WIDTH   = 48,    // 32..64
    parameter ID_WIDTH     = 4,     // 1..32
    parameter NUM_VI       = 16,    // VIs (1 .. 2**VI_WIDTH)
    parameter VI_WIDTH     = 4,     // 1..16
    parameter MAX_SEGS     = 16,    // data segments per descriptor, 1..124
    parameter MAX_BURST    = 16,    // beats per data burst, 1..256
    parameter RD_BUF_BYTES = 2048,  // read buffer: power of two, >= MAX_BURST beats
    parameter [ID_WIDTH-1:0] FETCH_ID = 2,  // ARID of the descriptor fetch
    parameter [ID_WIDTH-1:0] DATA_ID  = 3   // ARID of data reads, AWID of write-backs
) (
    input  wire                    clk,
    input  wire                    rst,

    // work items (via_vi_queues)
    input  wire                    work_valid,
    output wire                    work_ready,
    input  wire [VI_WIDTH-1:0]     work_vi,
    /* verilator lint_off UNUSEDSIGNAL */
    // always 0 (send queue); the VI state is taken from the context
    input  wire                    work_q,
    input  wire [63:0]             work_va,
    input  wire [31:0]             work_handle,
    input  wire [1:0]              work_state,
    /* verilator lint_on UNUSEDSIGNAL */

    // advance
    output wire                    adv_valid,
    input  wire                    adv_ready,
    output wire [VI_WIDTH-1:0]     adv_vi,
    output wire                    adv_q,
    output wire [63:0]             adv_next,
    output wire [31:0]             adv_next_handle,
    output wire                    adv_keep,

    // context read port (via_vi_ctx; registered read, one cycle)
    output wire [VI_WIDTH-1:0]     ctx_rd_vi,
    input  wire                    ctx_rd_enable,
    input  wire [1:0]              ctx_rd_state,
    input  wire [15:0]             ctx_rd_ptag,
    input  wire [31:0]             ctx_rd_max_transfer,
    input  wire                    ctx_rd_rdma_write,
    input  wire                    ctx_rd_rdma_read,
    input  wire [15:0]             ctx_rd_peer,

    // TPT lookups of the descriptor fetch unit
    output wire                    f_lk_valid,
    input  wire                    f_lk_ready,
    output wire [31:0]             f_lk_handle,
    output wire [63:0]             f_lk_va,
    output wire [31:0]             f_lk_len,
    output wire [15:0]             f_lk_ptag,
    output wire [1:0]              f_lk_kind,
    input  wire                    f_rs_valid,
    output wire                    f_rs_ready,
    input  wire [2:0]              f_rs_err,
    input  wire [ADDR_WIDTH-1:0]   f_rs_pa,
    input  wire [12:0]             f_rs_bytes,
    input  wire                    f_rs_hit,
    input  wire                    f_rs_epoch,

    // TPT lookups of data reads and write-backs
    output wire                    d_lk_valid,
    input  wire                    d_lk_ready,
    output wire [31:0]             d_lk_handle,
    output wire [63:0]             d_lk_va,
    output wire [31:0]             d_lk_len,
    output wire [15:0]             d_lk_ptag,
    output wire [1:0]              d_lk_kind,
    input  wire                    d_rs_valid,
    output wire                    d_rs_ready,
    input  wire [2:0]              d_rs_err,
    input  wire [ADDR_WIDTH-1:0]   d_rs_pa,
    input  wire [12:0]             d_rs_bytes,
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire                    d_rs_hit,
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire                    d_rs_epoch,

    // AXI4 read master: descriptor fetch (ARID FETCH_ID)
    output wire [ID_WIDTH-1:0]     f_axi_arid,
    output wire [ADDR_WIDTH-1:0]   f_axi_araddr,
    output wire [7:0]              f_axi_arlen,
    output wire [2:0]              f_axi_arsize,
    output wire [1:0]              f_axi_arburst,
    output wire                    f_axi_arlock,
    output wire [3:0]              f_axi_arcache,
    output wire [2:0]              f_axi_arprot,
    output wire                    f_axi_arvalid,
    input  wire                    f_axi_arready,
    input  wire [ID_WIDTH-1:0]     f_axi_rid,
    input  wire [DATA_WIDTH-1:0]   f_axi_rdata,
    input  wire [1:0]              f_axi_rresp,
    input  wire                    f_axi_rlast,
    input  wire                    f_axi_rvalid,
    output wire                    f_axi_rready,

    // AXI4 read master: data (ARID DATA_ID)
    output wire [ID_WIDTH-1:0]     d_axi_arid,
    output wire [ADDR_WIDTH-1:0]   d_axi_araddr,
    output wire [7:0]              d_axi_arlen,
    output wire [2:0]              d_axi_arsize,
    output wire [1:0]              d_axi_arburst,
    output wire                    d_axi_arlock,
    output wire [3:0]              d_axi_arcache,
    output wire [2:0]              d_axi_arprot,
    output wire                    d_axi_arvalid,
    input  wire                    d_axi_arready,
    /* verilator lint_off UNUSEDSIGNAL */
    // one ID; rresp[0] (SLVERR vs DECERR) makes no difference
    input  wire [ID_WIDTH-1:0]     d_axi_rid,
    input  wire [DATA_WIDTH-1:0]   d_axi_rdata,
    input  wire [1:0]              d_axi_rresp,
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire                    d_axi_rlast,
    input  wire                    d_axi_rvalid,
    output wire                    d_axi_rready,

    // AXI4 write master: Status write-backs (AWID DATA_ID)
    output wire [ID_WIDTH-1:0]     w_axi_awid,
    output wire [ADDR_WIDTH-1:0]   w_axi_awaddr,
    output wire [7:0]              w_axi_awlen,
    output wire [2:0]              w_axi_awsize,
    output wire [1:0]              w_axi_awburst,
    output wire                    w_axi_awlock,
    output wire [3:0]              w_axi_awcache,
    output wire [2:0]              w_axi_awprot,
    output wire                    w_axi_awvalid,
    input  wire                    w_axi_awready,
    output wire [DATA_WIDTH-1:0]   w_axi_wdata,
    output wire [DATA_WIDTH/8-1:0] w_axi_wstrb,
    output wire                    w_axi_wlast,
    output wire                    w_axi_wvalid,
    input  wire                    w_axi_wready,
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire [ID_WIDTH-1:0]     w_axi_bid,
    input  wire [1:0]              w_axi_bresp,
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire                    w_axi_bvalid,
    output wire                    w_axi_bready,

    // frames out
    output wire [DATA_WIDTH-1:0]   m_axis_tdata,
    output wire [DATA_WIDTH/8-1:0] m_axis_tkeep,
    output wire                    m_axis_tvalid,
    input  wire                    m_axis_tready,
    output wire                    m_axis_tlast,

    output wire [1:0]              inflight_epoch,
    /* verilator lint_off SYMRSVDWORD */
    input  wire                    abort,      // level: drain (via_soft_reset's dma_abort)
    /* verilator lint_on SYMRSVDWORD */
    output wire                    busy,
    output reg                     done_pulse,
    output reg  [31:0]             cnt_desc,
    output reg  [31:0]             cnt_err,
    output reg  [31:0]             cnt_frames,
    output reg  [31:0]             cnt_wb_lost
);

localparam BYTES = DATA_WIDTH / 8;
localparam LB = $clog2(BYTES);
localparam BUF_BEATS = RD_BUF_BYTES / BYTES;
localparam DBW = $clog2(BUF_BEATS);
localparam XQ_DEPTH = 4;
localparam BQ_DEPTH = 32;

generate
    if (DATA_WIDTH != 64 && DATA_WIDTH != 128 && DATA_WIDTH != 256 && DATA_WIDTH != 512) begin : g_bad_dw
        `VIA_PARAM_FAIL(("via_vi_tx: DATA_WIDTH=%0d, must be 64, 128, 256 or 512", DATA_WIDTH))
    end
    if (MAX_BURST < 1 || MAX_BURST > 256) begin : g_bad_burst
        `VIA_PARAM_FAIL(("via_vi_tx: MAX_BURST=%0d, must be 1..256", MAX_BURST))
    end
    if (BUF_BEATS < MAX_BURST || BUF_BEATS < 2 || (1 << DBW) != BUF_BEATS) begin : g_bad_buf
        `VIA_PARAM_FAIL(("via_vi_tx: RD_BUF_BYTES=%0d, must be a power of two of at least MAX_BURST beats", RD_BUF_BYTES))
    end
    if (VI_WIDTH < 1 || VI_WIDTH > 16 || NUM_VI < 1 || NUM_VI > (1 << VI_WIDTH)) begin : g_bad_vi
        `VIA_PARAM_FAIL(("via_vi_tx: NUM_VI=%0d VI_WIDTH=%0d out of range", NUM_VI, VI_WIDTH))
    end
endgenerate

localparam [31:0] ST_FORMAT     = 32'h1 << `VIA_DESC_CTL_STATUS_LOCAL_FORMAT_ERROR_LSB;
localparam [31:0] ST_PROTECTION = 32'h1 << `VIA_DESC_CTL_STATUS_LOCAL_PROTECTION_ERROR_LSB;
localparam [31:0] ST_FLUSHED    = 32'h1 << `VIA_DESC_CTL_STATUS_FLUSHED_LSB;
localparam [31:0] ST_TRANSPORT  = 32'h1 << `VIA_DESC_CTL_STATUS_TRANSPORT_ERROR_LSB;
localparam [31:0] ST_DONE       = 32'h1 << `VIA_DESC_CTL_STATUS_DONE_LSB;
localparam [31:0] ST_ERR_MASK   = `VIA_DESC_STATUS_ERROR_MASK;
localparam [31:0] OP_SEND_FIELD = `VIA_DESC_COMPLETED_SEND << `VIA_DESC_CTL_STATUS_OP_LSB;
localparam [31:0] KIND_LR32 = `VIA_TPT_KIND_LOCAL_READ;
localparam [31:0] KIND_LW32 = `VIA_TPT_KIND_LOCAL_WRITE;
localparam [1:0]  KIND_LR = KIND_LR32[1:0];
localparam [1:0]  KIND_LW = KIND_LW32[1:0];
localparam [31:0] LB32 = LB;
localparam [31:0] BYTES32 = BYTES;
localparam [31:0] MB32 = MAX_BURST;
localparam [31:0] BB32 = BUF_BEATS;
localparam [1:0]  VI_CONNECTED = 2'd1, VI_ERROR = 2'd3;
localparam [31:0] RES_DESC32 = `VIA_DESC_FETCH_RESULT_DESC, RES_STATUS32 = `VIA_DESC_FETCH_RESULT_STATUS;
localparam [1:0]  RES_DESC = RES_DESC32[1:0], RES_STATUS = RES_STATUS32[1:0];
localparam [3:0]  AXI_CACHE = 4'b0011;
localparam [2:0]  AXI_PROT = 3'b010;
localparam [2:0]  AXI_SIZE = LB32[2:0];

// main states
// (values from desc.layout's enum TX_STATE, which the waveform filters show)
localparam [31:0] S_IDLE_32 = `VIA_DESC_TX_STATE_IDLE;
localparam [31:0] S_CTX_32 = `VIA_DESC_TX_STATE_CTX;
localparam [31:0] S_REQ_32 = `VIA_DESC_TX_STATE_REQ;
localparam [31:0] S_RES_32 = `VIA_DESC_TX_STATE_RES;
localparam [31:0] S_DATA_32 = `VIA_DESC_TX_STATE_DATA;
localparam [31:0] S_WB_LK_32 = `VIA_DESC_TX_STATE_WB_LK;
localparam [31:0] S_WB_RS_32 = `VIA_DESC_TX_STATE_WB_RS;
localparam [31:0] S_WB_W_32 = `VIA_DESC_TX_STATE_WB_W;
localparam [31:0] S_ADV_32 = `VIA_DESC_TX_STATE_ADV;
localparam [31:0] S_FIN_32 = `VIA_DESC_TX_STATE_FIN;
localparam [3:0] S_IDLE = S_IDLE_32[3:0];
localparam [3:0] S_CTX = S_CTX_32[3:0];
localparam [3:0] S_REQ = S_REQ_32[3:0];
localparam [3:0] S_RES = S_RES_32[3:0];
localparam [3:0] S_DATA = S_DATA_32[3:0];
localparam [3:0] S_WB_LK = S_WB_LK_32[3:0];
localparam [3:0] S_WB_RS = S_WB_RS_32[3:0];
localparam [3:0] S_WB_W = S_WB_W_32[3:0];
localparam [3:0] S_ADV = S_ADV_32[3:0];
localparam [3:0] S_FIN = S_FIN_32[3:0];
// output phases of a frame
localparam [2:0] P_HDR0 = 3'd0, P_HDR1 = 3'd1, P_PAY = 3'd2, P_TRL = 3'd3, P_DONE = 3'd4;

reg [3:0] state;
reg [VI_WIDTH-1:0] vi_r;
reg [63:0] dva_r;
reg [31:0] dh_r;
reg [31:0] st_r;
reg        c_enable;
reg [1:0]  c_state;
reg [15:0] c_ptag;
reg [31:0] c_mts;
reg        c_rw, c_rr;
reg [15:0] c_peer;

// ------------------------------------------------------------ descriptor fetch

wire        fe_req_valid = (state == S_REQ) && !abort;
wire        fe_req_ready;
wire        fe_res_valid;
wire        fe_res_ready = (state == S_FIN);
wire [1:0]  fe_res_kind;
wire [31:0] fe_res_status;
/* verilator lint_off UNUSEDSIGNAL */
wire [3:0]  fe_res_check;
wire [2:0]  fe_res_tpt_err;
wire [1:0]  fe_res_bus_resp;
wire [15:0] fe_res_control;
wire [63:0] fe_seg_addr;
wire [31:0] fe_seg_handle, fe_seg_len;
/* verilator lint_on UNUSEDSIGNAL */
wire        fe_res_ctl_valid;
wire [63:0] fe_res_next;
wire [31:0] fe_res_next_handle;
wire [15:0] fe_res_seg_count;
wire [31:0] fe_res_immediate, fe_res_length;
wire [1:0]  fe_inflight;
reg  [7:0]  li_seg;

via_desc_fetch #(
    .MAX_SEGS(MAX_SEGS),
    .DATA_WIDTH(DATA_WIDTH),
    .ADDR_WIDTH(ADDR_WIDTH),
    .ID_WIDTH(ID_WIDTH),
    .ARID(FETCH_ID)
) fetch (
    .clk(clk),
    .rst(rst),
    .req_valid(fe_req_valid),
    .req_ready(fe_req_ready),
    .req_va(dva_r),
    .req_handle(dh_r),
    .req_ptag(c_ptag),
    .req_recv(1'b0),
    .req_max_transfer(c_mts),
    .req_rdma_write_en(c_rw),
    .req_rdma_read_en(c_rr),
    .res_valid(fe_res_valid),
    .res_ready(fe_res_ready),
    .res_kind(fe_res_kind),
    .res_status(fe_res_status),
    .res_check(fe_res_check),
    .res_tpt_err(fe_res_tpt_err),
    .res_bus_resp(fe_res_bus_resp),
    .res_ctl_valid(fe_res_ctl_valid),
    .res_next(fe_res_next),
    .res_next_handle(fe_res_next_handle),
    .res_seg_count(fe_res_seg_count),
    .res_control(fe_res_control),
    .res_immediate(fe_res_immediate),
    .res_length(fe_res_length),
    .seg_idx(li_seg),
    .seg_addr(fe_seg_addr),
    .seg_handle(fe_seg_handle),
    .seg_len(fe_seg_len),
    .lk_valid(f_lk_valid),
    .lk_ready(f_lk_ready),
    .lk_handle(f_lk_handle),
    .lk_va(f_lk_va),
    .lk_len(f_lk_len),
    .lk_ptag(f_lk_ptag),
    .lk_kind(f_lk_kind),
    .rs_valid(f_rs_valid),
    .rs_ready(f_rs_ready),
    .rs_err(f_rs_err),
    .rs_pa(f_rs_pa),
    .rs_bytes(f_rs_bytes),
    .rs_hit(f_rs_hit),
    .rs_epoch(f_rs_epoch),
    .inflight_epoch(fe_inflight),
    .m_axi_arid(f_axi_arid),
    .m_axi_araddr(f_axi_araddr),
    .m_axi_arlen(f_axi_arlen),
    .m_axi_arsize(f_axi_arsize),
    .m_axi_arburst(f_axi_arburst),
    .m_axi_arlock(f_axi_arlock),
    .m_axi_arcache(f_axi_arcache),
    .m_axi_arprot(f_axi_arprot),
    .m_axi_arvalid(f_axi_arvalid),
    .m_axi_arready(f_axi_arready),
    .m_axi_rid(f_axi_rid),
    .m_axi_rdata(f_axi_rdata),
    .m_axi_rresp(f_axi_rresp),
    .m_axi_rlast(f_axi_rlast),
    .m_axi_rvalid(f_axi_rvalid),
    .m_axi_rready(f_axi_rready)
);

// ------------------------------------------------------------ data phase state

wire in_data = (state == S_DATA);
reg        err_r;          // an error stopped the message
reg [31:0] err_st;         // its status bit
wire       stop = err_r || abort;
reg [2:0]  ph;             // output phase

// lookup issuer
reg        li_loaded, li_done;
reg [63:0] li_va;
reg [31:0] li_rem;
reg [31:0] li_h;
reg [2:0]  lk_out;         // data lookups accepted, response not yet taken

// translation queue
reg [ADDR_WIDTH-1:0] xq_pa [0:XQ_DEPTH-1];
reg [12:0] xq_bytes [0:XQ_DEPTH-1];
reg        xq_ep [0:XQ_DEPTH-1];
reg [1:0]  xq_wp, xq_rp;
reg [2:0]  xq_cnt;
reg [12:0] xq_used;        // bytes of the head entry already covered by bursts

// burst queue (issued bursts whose last R beat has not come)
reg [LB-1:0] bq_off [0:BQ_DEPTH-1];
reg [12:0]   bq_bytes [0:BQ_DEPTH-1];
reg          bq_ep [0:BQ_DEPTH-1];
reg [4:0]    bq_wp, bq_rp;
reg [5:0]    bq_cnt;

// data buffer (R beats, annotated with their first valid byte and count):
// a via_ram of BUF_BEATS words; its read register is the head (h_valid)
localparam DBWORD = DATA_WIDTH + LB + LB + 1;
reg [DBW-1:0]        db_wp, db_rp;
reg [DBW:0]          ram_cnt;  // words written, not yet read
reg                  h_valid;  // the RAM's read register holds the head beat
reg [DBW:0]          resv;     // beats reserved: issued, not yet popped
wire [DBWORD-1:0]    db_rd;

// R side
reg        r_first;
reg [12:0] r_rem;

// AR register
reg                  arv_r;
reg [ADDR_WIDTH-1:0] araddr_r;
reg [7:0]            arlen_r;

// packer and output register
reg [2*DATA_WIDTH-1:0] acc;
reg [LB:0]             acc_n;
reg [31:0]             pk_in;
reg                    ov_r;
reg [DATA_WIDTH-1:0]   od_r;
reg [BYTES-1:0]        ok_r;
reg                    ol_r;

// epoch accounting
reg [7:0] ep_cnt0, ep_cnt1;
reg [1:0] wb_ep;

// write-back
reg [ADDR_WIDTH-1:0] wb_pa;
reg                  awv_r, wv_r;
// write-back tail: the Status write is issued (AW and W taken), its B not
// yet come; the main sequence has moved on (advance, next work item)
reg                  wb_bwait;
reg                  wb_berr;      // that descriptor's status has an error bit
reg                  wb_adv;       // and its queue has advanced
wire                 wb_b_now = wb_bwait && w_axi_bvalid;

// ------------------------------------------------------------ lookups

wire [12:0] li_pg_left = 13'h1000 - {1'b0, li_va[11:0]};
wire        li_last = li_rem <= {19'd0, li_pg_left};
wire        li_can = in_data && li_loaded && !stop && ({1'b0, lk_out} + {1'b0, xq_cnt} < XQ_DEPTH);
wire        wb_lk = (state == S_WB_LK) && !abort && !wb_bwait;

assign d_lk_valid  = li_can || wb_lk;
assign d_lk_handle = wb_lk ? dh_r : li_h;
assign d_lk_va     = wb_lk ? {dva_r[63:6], 6'd0} : li_va;
assign d_lk_len    = wb_lk ? 32'd32 : li_rem;
assign d_lk_ptag   = c_ptag;
assign d_lk_kind   = wb_lk ? KIND_LW : KIND_LR;
assign d_rs_ready  = 1'b1;

wire li_take = li_can && d_lk_ready;
wire rs_data = d_rs_valid && in_data;
wire rs_push = rs_data && (d_rs_err == 3'd0) && !stop;

// ------------------------------------------------------------ AR issue

wire [ADDR_WIDTH-1:0] ar_pa = xq_pa[xq_rp] + {{(ADDR_WIDTH-13){1'b0}}, xq_used};
wire [12:0] ar_left = xq_bytes[xq_rp] - xq_used;
wire [LB-1:0] ar_off = ar_pa[LB-1:0];
wire [13:0] ar_need = ({1'b0, ar_left} + {{(14-LB){1'b0}}, ar_off} + BYTES32[13:0] - 14'd1) >> LB;
wire [13:0] ar_n = (ar_need > MB32[13:0]) ? MB32[13:0] : ar_need;
wire [13:0] ar_span = (ar_n << LB) - {{(14-LB){1'b0}}, ar_off};
wire [12:0] ar_bytes = (ar_span > {1'b0, ar_left}) ? ar_left : ar_span[12:0];
wire        ar_slot = !arv_r || d_axi_arready;
wire        ar_go = in_data && !stop && (xq_cnt != 3'd0) && ar_slot
                 && ({{(13-DBW){1'b0}}, resv} + ar_n <= BB32[13:0]) && (bq_cnt < BQ_DEPTH);
wire        ar_pop = ar_go && (ar_bytes == ar_left);
wire        xq_drop = in_data && stop && (xq_cnt != 3'd0);

assign d_axi_arid    = DATA_ID;
assign d_axi_araddr  = araddr_r;
assign d_axi_arlen   = arlen_r;
assign d_axi_arsize  = AXI_SIZE;
assign d_axi_arburst = 2'b01;
assign d_axi_arlock  = 1'b0;
assign d_axi_arcache = AXI_CACHE;
assign d_axi_arprot  = AXI_PROT;
assign d_axi_arvalid = arv_r;

// ------------------------------------------------------------ R side

assign d_axi_rready = 1'b1;
wire          r_take = d_axi_rvalid;
wire [LB-1:0] r_off = r_first ? bq_off[bq_rp] : {LB{1'b0}};
wire [12:0]   r_have = r_first ? bq_bytes[bq_rp] : r_rem;
wire [12:0]   r_room = BYTES32[12:0] - {{(13-LB){1'b0}}, r_off};
wire [12:0]   r_n = (r_have < r_room) ? r_have : r_room;
wire          r_bad = d_axi_rresp[1];
wire          r_end = r_take && d_axi_rlast;

// ------------------------------------------------------------ packer

wire                  out_free = !ov_r || m_axis_tready;
wire                  db_has = h_valid;
wire [DATA_WIDTH-1:0] pk_raw = db_rd[DBWORD-1:LB+LB+1];
wire [LB-1:0]         pk_off = db_rd[LB+LB:LB+1];
wire [LB:0]           pk_n = db_rd[LB:0];
wire [DATA_WIDTH-1:0] pk_sh = pk_raw >> {pk_off, 3'b000};
reg  [DATA_WIDTH-1:0] pk_mask;
integer bi;
always @(*) begin
    for (bi = 0; bi < BYTES; bi = bi + 1) begin
        pk_mask[bi*8 +: 8] = (bi < pk_n) ? 8'hff : 8'h00;
    end
end
wire [2*DATA_WIDTH-1:0] pk_ext = {{DATA_WIDTH{1'b0}}, pk_sh & pk_mask} << {acc_n, 3'b000};
wire [2*DATA_WIDTH-1:0] pk_acc = acc | pk_ext;
wire [LB+1:0]           pk_sum = {1'b0, acc_n} + {1'b0, pk_n};
wire                    pk_full = pk_sum >= BYTES32[LB+1:0];

wire all_in = (pk_in == fe_res_length);
wire pk_pop = in_data && (ph == P_PAY) && !stop && !all_in && db_has && out_free;
wire pk_flush = in_data && (ph == P_PAY) && !stop && all_in && (acc_n != 0) && out_free;
wire db_drop = in_data && stop && db_has;
wire db_pop = pk_pop || db_drop;
wire db_rd_en = (ram_cnt != 0) && (!h_valid || db_pop);
wire drained = (lk_out == 3'd0) && (xq_cnt == 3'd0) && (bq_cnt == 6'd0) && !db_has && (ram_cnt == 0) && !arv_r;

// A word is read only in a cycle after the one it was written in
// (ram_cnt counts past writes); the reservation keeps a write from reaching
// a word not yet read.
via_ram #(
    .WIDTH(DBWORD),
    .WORDS(BUF_BEATS)
) dbuf (
    .clk(clk),
    .wr_en(r_take),
    .wr_addr(db_wp),
    .wr_data({d_axi_rdata, r_off, r_n[LB:0]}),
    .rd_en(db_rd_en),
    .rd_addr(db_rp),
    .rd_data(db_rd)
);

// header
wire [127:0] hdr;
assign hdr[`VIA_FRAME_HDR_DST_VI_RANGE] = c_peer;
/* verilator lint_off UNUSEDSIGNAL */
wire [31:0] vi32 = {{(32-VI_WIDTH){1'b0}}, vi_r};
/* verilator lint_on UNUSEDSIGNAL */
assign hdr[`VIA_FRAME_HDR_SRC_VI_RANGE] = vi32[15:0];
assign hdr[`VIA_FRAME_HDR_LENGTH_RANGE] = fe_res_length;
assign hdr[`VIA_FRAME_HDR_IMM_RANGE] = fe_res_control[`VIA_DESC_CTL_CONTROL_IMMEDIATE_LSB] ? fe_res_immediate : 32'd0;
assign hdr[`VIA_FRAME_HDR_FLAGS_RANGE] = {7'd0, fe_res_control[`VIA_DESC_CTL_CONTROL_IMMEDIATE_LSB]};
assign hdr[`VIA_FRAME_HDR_OP_RANGE] = `VIA_FRAME_OP_SEND;
assign hdr[`VIA_FRAME_HDR_PAD_RANGE] = 16'd0;
/* verilator lint_off UNUSEDSIGNAL */
wire [2*DATA_WIDTH+127:0] hdr_ext = {{(2*DATA_WIDTH){1'b0}}, hdr};
/* verilator lint_on UNUSEDSIGNAL */
wire [DATA_WIDTH-1:0] hdr0 = hdr_ext[DATA_WIDTH-1:0];
wire [DATA_WIDTH-1:0] hdr1 = hdr_ext[2*DATA_WIDTH-1:DATA_WIDTH];

reg [BYTES-1:0] flush_keep;
always @(*) begin
    for (bi = 0; bi < BYTES; bi = bi + 1) begin
        flush_keep[bi] = bi < acc_n;
    end
end

assign m_axis_tdata  = od_r;
assign m_axis_tkeep  = ok_r;
assign m_axis_tvalid = ov_r;
assign m_axis_tlast  = ol_r;

// ------------------------------------------------------------ control

assign work_ready = (state == S_IDLE) && !abort;
assign ctx_rd_vi = (state == S_IDLE) ? work_vi : vi_r;
assign adv_valid = (state == S_ADV) && !abort;
assign adv_vi = vi_r;
assign adv_q = 1'b0;
assign adv_next = fe_res_ctl_valid ? fe_res_next : 64'd0;
assign adv_next_handle = fe_res_ctl_valid ? fe_res_next_handle : 32'd0;
assign adv_keep = 1'b0;
assign busy = (state != S_IDLE) || wb_bwait || done_pulse;

// write-back
wire [ADDR_WIDTH-1:0] wb_a = wb_pa + 28;
wire [LB-1:0] wb_off = wb_a[LB-1:0];
wire [31:0] wb_word = ST_DONE | (st_r & ST_ERR_MASK) | OP_SEND_FIELD;
assign w_axi_awid    = DATA_ID;
assign w_axi_awaddr  = {wb_a[ADDR_WIDTH-1:LB], {LB{1'b0}}};
assign w_axi_awlen   = 8'd0;
assign w_axi_awsize  = AXI_SIZE;
assign w_axi_awburst = 2'b01;
assign w_axi_awlock  = 1'b0;
assign w_axi_awcache = AXI_CACHE;
assign w_axi_awprot  = AXI_PROT;
assign w_axi_awvalid = awv_r;
assign w_axi_wdata   = {{(DATA_WIDTH-32){1'b0}}, wb_word} << {wb_off, 3'b000};
assign w_axi_wstrb   = {{(BYTES-4){1'b0}}, 4'hf} << wb_off;
assign w_axi_wlast   = 1'b1;
assign w_axi_wvalid  = wv_r;
assign w_axi_bready  = wb_bwait;

// fence
wire rs_ok = d_rs_valid && (d_rs_err == 3'd0) && (in_data || state == S_WB_RS);
assign inflight_epoch = fe_inflight
    | {ep_cnt1 != 8'd0, ep_cnt0 != 8'd0}
    | wb_ep
    | {rs_ok && d_rs_epoch, rs_ok && !d_rs_epoch};

// epoch count deltas: + translation pushed, + burst issued, - translation
// popped or dropped, - last R beat of a burst
wire xq_pop = ar_pop || xq_drop;
wire xq_head_ep = xq_ep[xq_rp];
wire bq_head_ep = bq_ep[bq_rp];
wire [7:0] ep_inc0 = {7'd0, rs_push && !d_rs_epoch} + {7'd0, ar_go && !xq_head_ep};
wire [7:0] ep_inc1 = {7'd0, rs_push && d_rs_epoch} + {7'd0, ar_go && xq_head_ep};
wire [7:0] ep_dec0 = {7'd0, xq_pop && !xq_head_ep} + {7'd0, r_end && !bq_head_ep};
wire [7:0] ep_dec1 = {7'd0, xq_pop && xq_head_ep} + {7'd0, r_end && bq_head_ep};

always @(posedge clk) begin
    if (rst) begin
        state <= S_IDLE;
        vi_r <= {VI_WIDTH{1'b0}};
        dva_r <= 64'd0;
        dh_r <= 32'd0;
        st_r <= 32'd0;
        c_enable <= 1'b0;
        c_state <= 2'd0;
        c_ptag <= 16'd0;
        c_mts <= 32'd0;
        c_rw <= 1'b0;
        c_rr <= 1'b0;
        c_peer <= 16'd0;
        err_r <= 1'b0;
        err_st <= 32'd0;
        ph <= P_HDR0;
        li_seg <= 8'd0;
        li_loaded <= 1'b0;
        li_done <= 1'b0;
        li_va <= 64'd0;
        li_rem <= 32'd0;
        li_h <= 32'd0;
        lk_out <= 3'd0;
        xq_wp <= 2'd0;
        xq_rp <= 2'd0;
        xq_cnt <= 3'd0;
        xq_used <= 13'd0;
        bq_wp <= 5'd0;
        bq_rp <= 5'd0;
        bq_cnt <= 6'd0;
        db_wp <= {DBW{1'b0}};
        db_rp <= {DBW{1'b0}};
        ram_cnt <= {(DBW+1){1'b0}};
        h_valid <= 1'b0;
        resv <= {(DBW+1){1'b0}};
        r_first <= 1'b1;
        r_rem <= 13'd0;
        arv_r <= 1'b0;
        araddr_r <= {ADDR_WIDTH{1'b0}};
        arlen_r <= 8'd0;
        acc <= {(2*DATA_WIDTH){1'b0}};
        acc_n <= {(LB+1){1'b0}};
        pk_in <= 32'd0;
        ov_r <= 1'b0;
        od_r <= {DATA_WIDTH{1'b0}};
        ok_r <= {BYTES{1'b0}};
        ol_r <= 1'b0;
        ep_cnt0 <= 8'd0;
        ep_cnt1 <= 8'd0;
        wb_ep <= 2'b00;
        wb_pa <= {ADDR_WIDTH{1'b0}};
        awv_r <= 1'b0;
        wv_r <= 1'b0;
        wb_bwait <= 1'b0;
        wb_berr <= 1'b0;
        wb_adv <= 1'b0;
        done_pulse <= 1'b0;
        cnt_desc <= 32'd0;
        cnt_err <= 32'd0;
        cnt_frames <= 32'd0;
        cnt_wb_lost <= 32'd0;
    end else begin
        done_pulse <= 1'b0;

        // ---------------- main sequence
        case (state)
        S_IDLE: begin
            if (work_valid && !abort) begin
                vi_r <= work_vi;
                dva_r <= work_va;
                dh_r <= work_handle;
                state <= S_CTX;
            end
        end
        S_CTX: begin
            c_enable <= ctx_rd_enable;
            c_state <= ctx_rd_state;
            c_ptag <= ctx_rd_ptag;
            c_mts <= ctx_rd_max_transfer;
            c_rw <= ctx_rd_rdma_write;
            c_rr <= ctx_rd_rdma_read;
            c_peer <= ctx_rd_peer;
            state <= abort ? S_IDLE : S_REQ;
        end
        S_REQ: begin
            if (abort) begin
                state <= S_IDLE;
            end else if (fe_req_ready) begin
                state <= S_RES;
            end
        end
        S_RES: begin
            if (fe_res_valid) begin
                if (abort) begin
                    state <= S_FIN;
                end else if (fe_res_kind == RES_STATUS) begin
                    st_r <= fe_res_status;
                    state <= S_WB_LK;
                end else if (fe_res_kind != RES_DESC) begin
                    st_r <= ST_TRANSPORT;
                    state <= S_WB_LK;
                end else if (fe_res_control[1:0] != 2'd0) begin
                    st_r <= ST_FORMAT;
                    state <= S_WB_LK;
                end else if (c_state == VI_ERROR) begin
                    st_r <= ST_FLUSHED;
                    state <= S_WB_LK;
                end else if (!c_enable || c_state != VI_CONNECTED) begin
                    st_r <= ST_FORMAT;
                    state <= S_WB_LK;
                end else begin
                    // a good send: start the frame
                    st_r <= 32'd0;
                    err_r <= 1'b0;
                    err_st <= 32'd0;
                    ph <= P_HDR0;
                    li_seg <= 8'd0;
                    li_loaded <= 1'b0;
                    li_done <= 1'b0;
                    pk_in <= 32'd0;
                    acc <= {(2*DATA_WIDTH){1'b0}};
                    acc_n <= {(LB+1){1'b0}};
                    xq_used <= 13'd0;
                    r_first <= 1'b1;
                    state <= S_DATA;
                end
            end
        end
        S_DATA: begin
            if (ph == P_DONE && !ov_r) begin
                st_r <= err_st;
                state <= abort ? S_FIN : S_WB_LK;
            end
        end
        S_WB_LK: begin
            if (abort) begin
                state <= S_FIN;
            end else if (wb_lk && d_lk_ready) begin
                state <= S_WB_RS;
            end
        end
        S_WB_RS: begin
            if (d_rs_valid) begin
                if (d_rs_err != 3'd0) begin
                    cnt_wb_lost <= cnt_wb_lost + 32'd1;
                    state <= abort ? S_FIN : S_ADV;
                end else if (abort) begin
                    state <= S_FIN;
                end else begin
                    wb_pa <= d_rs_pa;
                    wb_ep[d_rs_epoch] <= 1'b1;
                    awv_r <= 1'b1;
                    wv_r <= 1'b1;
                    state <= S_WB_W;
                end
            end
        end
        S_WB_W: begin
            // AW and W issued: the B is awaited by the write-back tail
            // (wb_bwait) while the queue advances and the next work item
            // is taken; done_pulse comes with that B
            if (awv_r && w_axi_awready) awv_r <= 1'b0;
            if (wv_r && w_axi_wready) wv_r <= 1'b0;
            if ((!awv_r || w_axi_awready) && (!wv_r || w_axi_wready)) begin
                wb_bwait <= 1'b1;
                wb_berr <= (st_r & ST_ERR_MASK) != 32'd0;
                state <= abort ? S_FIN : S_ADV;
            end
        end
        S_ADV: begin
            if (abort) begin
                state <= S_FIN;
            end else if (adv_ready) begin
                // a descriptor completes when both its advance and its
                // Status write's B (if written) have come: here if the B
                // came (or nothing was written), else with the B (below)
                if (!wb_bwait || wb_b_now) begin
                    done_pulse <= 1'b1;
                    cnt_desc <= cnt_desc + 32'd1;
                    if ((st_r & ST_ERR_MASK) != 32'd0) cnt_err <= cnt_err + 32'd1;
                end
                state <= S_FIN;
            end
        end
        S_FIN: begin
            state <= S_IDLE;
        end
        default: state <= S_IDLE;
        endcase

        // ---------------- write-back tail: the Status write's B
        if (wb_b_now) begin
            if (w_axi_bresp[1]) cnt_wb_lost <= cnt_wb_lost + 32'd1;
            wb_ep <= 2'b00;
            wb_bwait <= 1'b0;
            wb_adv <= 1'b0;
            // its advance already made (also under abort): it completes
            if (wb_adv) begin
                done_pulse <= 1'b1;
                cnt_desc <= cnt_desc + 32'd1;
                if (wb_berr) cnt_err <= cnt_err + 32'd1;
            end
        end else if (wb_bwait && state == S_ADV && !abort && adv_ready) begin
            wb_adv <= 1'b1;
        end

        // ---------------- lookup issuer
        if (in_data && !li_loaded && !li_done) begin
            if ({8'd0, li_seg} >= fe_res_seg_count) begin
                li_done <= 1'b1;
            end else if (fe_seg_len == 32'd0) begin
                li_seg <= li_seg + 8'd1;
            end else begin
                li_va <= fe_seg_addr;
                li_rem <= fe_seg_len;
                li_h <= fe_seg_handle;
                li_loaded <= 1'b1;
            end
        end
        if (li_take) begin
            if (li_last) begin
                li_loaded <= 1'b0;
                li_seg <= li_seg + 8'd1;
            end else begin
                li_va <= li_va + {51'd0, li_pg_left};
                li_rem <= li_rem - {19'd0, li_pg_left};
            end
        end
        lk_out <= lk_out + {2'd0, li_take} - {2'd0, rs_data};
        if (rs_data && d_rs_err != 3'd0 && !err_r) begin
            err_r <= 1'b1;
            err_st <= ST_PROTECTION;
        end

        // ---------------- translation queue
        if (rs_push) begin
            xq_pa[xq_wp] <= d_rs_pa;
            xq_bytes[xq_wp] <= d_rs_bytes;
            xq_ep[xq_wp] <= d_rs_epoch;
            xq_wp <= xq_wp + 2'd1;
        end
        if (xq_pop) begin
            xq_rp <= xq_rp + 2'd1;
            xq_used <= 13'd0;
        end else if (ar_go) begin
            xq_used <= xq_used + ar_bytes;
        end
        xq_cnt <= xq_cnt + {2'd0, rs_push} - {2'd0, xq_pop};

        // ---------------- AR
        if (ar_go) begin
            arv_r <= 1'b1;
            araddr_r <= {ar_pa[ADDR_WIDTH-1:LB], {LB{1'b0}}};
            arlen_r <= ar_n[7:0] - 8'd1;
            bq_off[bq_wp] <= ar_off;
            bq_bytes[bq_wp] <= ar_bytes;
            bq_ep[bq_wp] <= xq_head_ep;
            bq_wp <= bq_wp + 5'd1;
        end else if (arv_r && d_axi_arready) begin
            arv_r <= 1'b0;
        end

        // ---------------- R
        if (r_take) begin
            db_wp <= db_wp + 1'b1;
            r_rem <= r_have - r_n;
            r_first <= d_axi_rlast;
            if (r_bad && in_data && !err_r) begin
                err_r <= 1'b1;
                err_st <= ST_TRANSPORT;
            end
        end
        if (r_end) bq_rp <= bq_rp + 5'd1;
        bq_cnt <= bq_cnt + {5'd0, ar_go} - {5'd0, r_end};
        ram_cnt <= ram_cnt + {{DBW{1'b0}}, r_take} - {{DBW{1'b0}}, db_rd_en};
        if (db_rd_en) db_rp <= db_rp + 1'b1;
        if (db_rd_en) h_valid <= 1'b1;
        else if (db_pop) h_valid <= 1'b0;
        resv <= resv + (ar_go ? ar_n[DBW:0] : {(DBW+1){1'b0}}) - {{DBW{1'b0}}, db_pop};

        ep_cnt0 <= ep_cnt0 + ep_inc0 - ep_dec0;
        ep_cnt1 <= ep_cnt1 + ep_inc1 - ep_dec1;

        // ---------------- output register and frame phases
        if (ov_r && m_axis_tready) ov_r <= 1'b0;
        if (in_data) begin
            case (ph)
            P_HDR0: begin
                if (abort) begin
                    ph <= P_PAY;
                end else if (out_free) begin
                    ov_r <= 1'b1;
                    od_r <= hdr0;
                    ok_r <= {BYTES{1'b1}};
                    ol_r <= 1'b0;
                    ph <= (DATA_WIDTH == 64) ? P_HDR1 : P_PAY;
                end
            end
            P_HDR1: begin
                if (abort) begin
                    ph <= P_PAY;
                end else if (out_free) begin
                    ov_r <= 1'b1;
                    od_r <= hdr1;
                    ok_r <= {BYTES{1'b1}};
                    ol_r <= 1'b0;
                    ph <= P_PAY;
                end
            end
            P_PAY: begin
                if (stop) begin
                    if (drained && li_take == 1'b0) ph <= abort ? P_DONE : P_TRL;
                end else if (pk_pop) begin
                    pk_in <= pk_in + {{(31-LB){1'b0}}, pk_n};
                    if (pk_full) begin
                        ov_r <= 1'b1;
                        od_r <= pk_acc[DATA_WIDTH-1:0];
                        ok_r <= {BYTES{1'b1}};
                        ol_r <= 1'b0;
                        acc <= pk_acc >> DATA_WIDTH;
                        acc_n <= pk_sum[LB:0] - BYTES32[LB:0];
                    end else begin
                        acc <= pk_acc;
                        acc_n <= pk_sum[LB:0];
                    end
                end else if (pk_flush) begin
                    ov_r <= 1'b1;
                    od_r <= acc[DATA_WIDTH-1:0];
                    ok_r <= flush_keep;
                    ol_r <= 1'b0;
                    acc <= {(2*DATA_WIDTH){1'b0}};
                    acc_n <= {(LB+1){1'b0}};
                end else if (all_in && acc_n == 0) begin
                    ph <= P_TRL;
                end
            end
            P_TRL: begin
                if (abort) begin
                    ph <= P_DONE;
                end else if (out_free) begin
                    ov_r <= 1'b1;
                    od_r <= {{(DATA_WIDTH-32){1'b0}}, err_st};
                    ok_r <= {BYTES{1'b1}};
                    ol_r <= 1'b1;
                    cnt_frames <= cnt_frames + 32'd1;
                    ph <= P_DONE;
                end
            end
            default: ;
            endcase
        end
        // a frame being sent under abort is cut (a reset follows)
        if (abort) ov_r <= 1'b0;
    end
end

endmodule

`default_nettype wire
