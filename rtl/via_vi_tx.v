// via_vi_tx: send engine of the vianic NIC (issue 9, pipelined in issue 9
// part 2).
//
// Takes work items (send queues' descriptors, several ahead, several of one
// VI back to back in post order) from via_vi_queues, fetches them through a
// via_desc_pipe instance (several descriptors in flight, results in order),
// sends each message as one frame of the internal format (via_frame.vh) on
// m_axis, writes each descriptor's Status word back and advances its queue.
// docs/vi.md ("The data path: design") is the base. Per descriptor the
// behaviour (statuses, frame format, write-back word, counters, done_pulse,
// fence, abort) is that of the unpipelined engine; only the overlap is new.
//
// Stages (each works in descriptor order; several descriptors are between
// the first and the last)
//   intake   a work item is taken (work_ready: nothing held in the intake;
//            one item per three cycles at most),
//            ctx_rd_vi = work_vi; the next cycle the context is latched into
//            the request register, which asks the fetch (req_ptag = ctx
//            ptag, req_recv = work_q, MaxTransfer and RDMA enables from the
//            context). Items of receive queues (work_q 1) come only from a
//            VI in ERROR (via_vi_queues): this engine flushes them. The item's VI, VA, handle and context fields go into
//            an item FIFO (PIPE_DEPTH = 16 entries, a via_ram) that pairs
//            them with the fetch results (in request order); the fetch
//            keeps up to 16 descriptors in flight.
//   classify the oldest fetch result is taken when a descriptor record is
//            free (MQ = 16 records, a ring from the fetch result to the
//            completion; the wide fields in three via_rams, one per reader:
//            output, write-back lookup, advance; flags and status bits in
//            flip-flops): a receive (work_q 1): RES_BUS ->
//            TRANSPORT_ERROR, else FLUSHED; a send: RES_BUS -> TRANSPORT_ERROR;
//            RES_STATUS -> its status bit; RES_DESC with op RDMA_READ ->
//            LOCAL_FORMAT_ERROR (not built yet); a send on a VI whose context
//            state is ERROR -> FLUSHED; not CONNECTED (or not enabled) ->
//            LOCAL_FORMAT_ERROR: these make a record without frame (the
//            fetch slot is released at once). A good send makes a frame
//            record (length, immediate, peer, VI; Next for the advance; VA,
//            handle, ptag for the write-back) and goes to the issue side.
//   issue    reads the descriptor's segments from the fetch slot (seg_rd_*,
//            one per two cycles), skips zero-length ones and issues the data
//            lookups page by page (lookup len = the segment's remaining
//            length, LOCAL_READ, ctx ptag), up to XQ_DEPTH lookups and
//            translations held; once the last lookup of a descriptor is
//            issued the slot is released and the next result is classified,
//            so descriptor i+1's lookups and reads go out while i's data is
//            still on its way. Translations become full-width INCR bursts
//            (<= MAX_BURST beats, within the page) issued only when the read
//            buffer (RD_BUF_BYTES, a via_ram) has room for every beat; up to
//            BQ_DEPTH bursts in flight. Every lookup, translation, burst and
//            buffered beat carries its record number.
//   output   frames in record order, back to back: the HEADER of a frame
//            record goes out as soon as the record exists (before any of its
//            data may be read), then the payload packed from lane 0 by a
//            realigning shifter (an accumulator of two beats), then the
//            TRAILER; the next frame's header follows the trailer at once.
//            A lookup error (LOCAL_PROTECTION_ERROR) or an R beat with
//            SLVERR/DECERR (TRANSPORT_ERROR) marks its record: its lookups
//            and bursts stop, its payload stops at once (its buffered beats
//            are dropped), the output waits until nothing of that record is
//            left in flight (lookups, translations, bursts, beats) and sends
//            the TRAILER with that status. A whole message ends with the
//            TRAILER status 0. A record without frame passes in one cycle.
//   write-back, in record order once the output is past the record:
//            lookup (descriptor handle, VA, 32 bytes, LOCAL_WRITE; up to
//            WXQ lookups and translations ahead); on success one single-beat
//            write of the Status word (offset 28, four strobes) = DONE |
//            error bits | OP COMPLETED_SEND (0), or COMPLETED_RECEIVE (1)
//            for a flushed receive (its Length is not written); several Status writes are in
//            flight (one AWID, B in order). Lookup failure: nothing written,
//            cnt_wb_lost. Length and ImmediateData are not written for a
//            send.
//   advance  in record order, once the record's Status write is issued (AW
//            and W taken) or known lost: adv_next = the fetched Next (0 if
//            res_ctl_valid was 0), adv_q = the item's queue, adv_keep 0. docs/vi.md says why the
//            advance need not await the B.
//   complete in record order, once advanced and (if written) its B has come
//            (SLVERR/DECERR: cnt_wb_lost): done_pulse, cnt_desc, cnt_err
//            (the status has an error bit); the record is free again.
//
// RDMA read (docs/vi.md, "RDMA read")
//   request  a good RDMA read takes one of RS = 4 read slots at classify
//            (its descriptor's VA, handle, ptag, Length, Next: rq_* for
//            via_vi_rx), its issue side copies the local data segments
//            into sram (rs_* for via_vi_rx) and the address segment into
//            xram with the tag {generation, slot}; its frame (op READ_REQ)
//            has no payload, the length as its immediate word. The record
//            is a skip record: no Status write, advance or completion
//            here (r_sk): via_vi_rx completes the read (rd_done), after
//            cp has passed the record (rd_passed). A send-queue item of a
//            VI with a slot waits at classify (the queue's order, the
//            fence); so does a good read while every slot is taken.
//   response a job of via_vi_rx's (job_*, a FIFO of JQ = NUM_VI entries)
//            becomes a skip record ahead of any fetch result: REMOTE_READ
//            lookups of the range under the job's ptag, the data as a
//            send's, a frame (op READ_RESP) to the requester with its tag;
//            a refused job or lookup ends it with RDMA_PROTECTION_ERROR.
//   rc_*     the waiting read of a VI (via_vi_rx cancels it while a
//            context commit of the VI waits); rq_claim takes a slot.
//
// Abort (level): no new work, lookup, AR, AW, fetch request, advance or
// record is started; a request or lookup not yet taken is withdrawn; what is
// in flight is finished (every lookup response, R beat and B taken; fetch
// results that still come are taken and released; buffered beats dropped).
// A frame being sent is cut without trailer: m_axis_tvalid drops at once
// (a reset follows; this is the one place the stream's valid/hold rule is
// not kept). A B of a descriptor whose queue had advanced completes it
// (done_pulse): every advance gets its done_pulse. Once everything has
// drained the records are dropped and busy falls. busy = anything held.
//
// Fence: inflight_epoch = the fetch pipe's OR this unit's: bit e is 1 from
// the cycle a successful data or write-back lookup response of epoch e is
// accepted (combinational term) while a translation of epoch e is held, a
// burst issued under it has not returned its last R beat, or a Status write
// under it awaits its B.
//
// Timing: work_ready, adv_valid, d_lk_valid depend on registers and abort
// only; m_axis_* and the AXI AR/AW/W outputs are registers; w_axi_bready
// is a register term; d_axi_rready and d_rs_ready are constant 1 (room is
// reserved before a lookup or an AR is issued); inflight_epoch has a
// combinational term from d_rs_*.

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
    input  wire [23:0]             ctx_rd_peer,    // {peer node, peer VI}
    input  wire                    ctx_rd_reliable, // the VI's level is reliable (errors break the connection)

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
    // with done_pulse: the completion's VI and queue, and whether its
    // Status write was issued (a completion-queue event, via_cq)
    output reg  [VI_WIDTH-1:0]     done_vi,
    output reg                     done_q,
    output reg                     done_ev,
    input  wire                    done_ready,  // 0: hold the next completion (via_cq is full)
    output reg  [31:0]             cnt_desc,
    output reg  [31:0]             cnt_err,
    output reg  [31:0]             cnt_frames,
    output reg  [31:0]             cnt_wb_lost,
    output reg                     wbl_pulse,   // a Status write-back refused by its lookup (one cycle)
    output reg  [VI_WIDTH-1:0]     wbl_vi,      // ... the descriptor's VI

    // RDMA read responses to send (via_vi_rx at the target: one job per
    // read request it accepted; a FIFO of JQ entries here)
    input  wire                    job_valid,
    output wire                    job_ready,
    input  wire [VI_WIDTH-1:0]     job_vi,      // the target VI (the response's source)
    input  wire [23:0]             job_peer,    // {requester node, requester VI}
    input  wire [15:0]             job_ptag,    // the target VI's ptag
    input  wire [63:0]             job_va,      // the remote range (REMOTE_READ lookups)
    input  wire [31:0]             job_handle,
    input  wire [31:0]             job_len,
    input  wire [31:0]             job_tag,     // the requester's tag, sent back unchanged
    input  wire                    job_err,     // refused: the response carries RDMA_PROTECTION_ERROR only

    // read slots: the RDMA reads this NIC waits for (4), for via_vi_rx
    input  wire [31:0]             rq_tag,      // a response's tag (or rc_tag)
    input  wire [VI_WIDTH-1:0]     rq_vi,       // ... the VI it came to
    output wire                    rq_hit,      // the tag names a read of rq_vi that waits
    output wire [63:0]             rq_dva,      // its descriptor: VA, handle, ptag
    output wire [31:0]             rq_dh,
    output wire [15:0]             rq_ptag,
    output wire [31:0]             rq_len,      // its length
    output wire [63:0]             rq_next,     // its Next (for the queue's advance)
    output wire [31:0]             rq_next_handle,
    input  wire                    rq_claim,    // via_vi_rx takes the read of rq_tag (response or cancel)
    input  wire [VI_WIDTH-1:0]     rc_vi,       // a waiting read of rc_vi (to cancel)?
    output wire                    rc_hit,
    output wire [31:0]             rc_tag,
    output wire [3:0]              rd_passed,   // per slot: the read's record has left the ring
    input  wire [9:0]              rs_idx,      // {slot, index}: a read's local data segment
    output wire [63:0]             rs_addr,     // ... the next cycle
    output wire [31:0]             rs_handle,
    output wire [31:0]             rs_len,
    input  wire                    rd_done_valid,  // via_vi_rx completed the read of rd_done_tag
    output wire                    rd_done_ready,
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire [31:0]             rd_done_tag,    // (its slot: bits 1:0)
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire                    rd_done_ev,     // its Status was written
    input  wire                    rd_done_err,    // ... with an error bit
    // a descriptor of a reliable VI completed here with an error other
    // than FLUSHED (pulse): the connection is broken (VI_CTX_BREAK)
    output reg                     brk_pulse,
    output reg  [VI_WIDTH-1:0]     brk_vi
);

localparam BYTES = DATA_WIDTH / 8;
localparam LB = $clog2(BYTES);
localparam BUF_BEATS = RD_BUF_BYTES / BYTES;
localparam DBW = $clog2(BUF_BEATS);
localparam XQ_DEPTH = 8;          // data lookups + translations held
localparam MQ = 16;               // descriptor records (power of two)
localparam MW = 4;
localparam PIPE_DEPTH = 16;       // via_desc_pipe slots
localparam PSW = 4;
localparam LQ_DEPTH = 8;          // lookups outstanding on the d port
localparam WXQ = 4;               // write-back lookups + translations held
localparam BQ_DEPTH = 32;
localparam RS = 4;                // read slots (RDMA reads waiting for their response)
localparam SEGW = (MAX_SEGS > 1) ? $clog2(MAX_SEGS) : 1;
localparam JQW = (NUM_VI > 2) ? $clog2(NUM_VI) : 1;
localparam JQ = 1 << JQW;         // response jobs: one per VI can wait

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
localparam [31:0] OP_RECV_FIELD = `VIA_DESC_COMPLETED_RECEIVE << `VIA_DESC_CTL_STATUS_OP_LSB;
localparam [31:0] OP_RDMAW_FIELD = `VIA_DESC_COMPLETED_RDMA_WRITE << `VIA_DESC_CTL_STATUS_OP_LSB;
localparam [31:0] OP_RDMAR_FIELD = `VIA_DESC_COMPLETED_RDMA_READ << `VIA_DESC_CTL_STATUS_OP_LSB;
localparam [1:0]  CTL_OP_RDMA_WRITE = 2'd1, CTL_OP_RDMA_READ = 2'd2;
localparam [31:0] KIND_LR32 = `VIA_TPT_KIND_LOCAL_READ;
localparam [31:0] KIND_LW32 = `VIA_TPT_KIND_LOCAL_WRITE;
localparam [31:0] KIND_RR32 = `VIA_TPT_KIND_REMOTE_READ;
localparam [1:0]  KIND_RR = KIND_RR32[1:0];
localparam [31:0] ST_RPROT = 32'h1 << `VIA_DESC_CTL_STATUS_RDMA_PROTECTION_ERROR_LSB;
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

localparam [31:0] I_IDLE_32 = `VIA_DESC_TX_ISSUE_IDLE, I_SRD_32 = `VIA_DESC_TX_ISSUE_SEG_READ;
localparam [31:0] I_SGO_32 = `VIA_DESC_TX_ISSUE_SEG, I_LK_32 = `VIA_DESC_TX_ISSUE_LOOKUP;
localparam [1:0] I_IDLE = I_IDLE_32[1:0], I_SRD = I_SRD_32[1:0], I_SGO = I_SGO_32[1:0], I_LK = I_LK_32[1:0];
// output phases and issue states (desc.layout enums TX_OUT, TX_ISSUE: the
// waveform filters name them)
localparam [31:0] P_IDLE_32 = `VIA_DESC_TX_OUT_IDLE, P_HDR1_32 = `VIA_DESC_TX_OUT_HDR1;
localparam [31:0] P_PAY_32 = `VIA_DESC_TX_OUT_PAY, P_TRL_32 = `VIA_DESC_TX_OUT_TRL;
localparam [31:0] P_EXTW_32 = `VIA_DESC_TX_OUT_EXTW, P_EXT0_32 = `VIA_DESC_TX_OUT_EXT0, P_EXT1_32 = `VIA_DESC_TX_OUT_EXT1;
localparam [2:0] P_IDLE = P_IDLE_32[2:0], P_HDR1 = P_HDR1_32[2:0], P_PAY = P_PAY_32[2:0], P_TRL = P_TRL_32[2:0];
localparam [2:0] P_EXTW = P_EXTW_32[2:0], P_EXT0 = P_EXT0_32[2:0], P_EXT1 = P_EXT1_32[2:0];

integer bi;

// ------------------------------------------------------------ intake

reg                a_v, b_v;
reg                a_q, b_q;   // the item's queue: 1 a receive to flush
reg [VI_WIDTH-1:0] a_vi, b_vi;
reg [63:0]         a_va, b_va;
reg [31:0]         a_h, b_h;
reg [15:0]         b_ptag;
reg [23:0]         b_peer;
reg [31:0]         b_mts;
reg                b_rw, b_rr, b_en, b_rel;
reg [1:0]          b_state;

// item FIFO: pairs the fetch results (in request order) with their items
// (a via_ram; its read register is the head, iqh_v)
localparam IQW = 1 + VI_WIDTH + 58 + 32 + 16 + 24 + 2 + 1 + 1;
reg [PSW-1:0]      iq_wp, iq_rp;
reg [PSW:0]        iq_cnt;     // entries (in the RAM or the head)
reg [PSW:0]        iq_rc;      // entries written, not yet read
reg                iqh_v;      // the RAM's read register holds the head
wire [IQW-1:0]     iq_rd;
wire               iq_pop;
wire               iq_rd_en = (iq_rc != 0) && (!iqh_v || iq_pop);
wire [VI_WIDTH-1:0] iqh_vi;
wire [63:6]        iqh_va;
wire [31:0]        iqh_h;
wire [15:0]        iqh_ptag;
wire [23:0]        iqh_peer;
wire [1:0]         iqh_state;
wire               iqh_en;
wire               iqh_q;
wire               iqh_rel;
assign {iqh_q, iqh_vi, iqh_va, iqh_h, iqh_ptag, iqh_peer, iqh_state, iqh_en, iqh_rel} = iq_rd;

// ------------------------------------------------------------ records

reg                r_frame [0:MQ-1];   // a good send: a frame
reg                r_idone [0:MQ-1];   // its lookups are all issued (or stopped)
reg                r_err [0:MQ-1];     // an error stopped its data
reg                r_etr [0:MQ-1];     // that error: 1 TRANSPORT, 0 PROTECTION
reg                r_w [0:MQ-1];       // its Status write was issued
reg                r_b [0:MQ-1];       // and its B has come
reg [31:0]         r_st [0:MQ-1];      // error bits of its status
reg                r_q [0:MQ-1];       // a flushed receive (queue 1)
reg [VI_WIDTH-1:0] r_vi [0:MQ-1];      // its VI (for the completion event)
reg                r_rw [0:MQ-1];      // an RDMA write (its frame carries the extension)
reg                r_xv [0:MQ-1];      // ... whose address segment is in xram
reg                r_rr [0:MQ-1];      // an RDMA read (its Status names it; with a frame: the request)
reg                r_job [0:MQ-1];     // an RDMA read response (a job of via_vi_rx's)
reg                r_sk [0:MQ-1];      // no write-back, advance or completion here (a request, a response)
reg  [1:0]         r_rslot [0:MQ-1];   // a request's read slot
reg                r_rel [0:MQ-1];     // its VI is reliable
// the wide fields are in three via_rams, one per reader, each read every
// cycle at its reader's next pointer; a valid flag says the read register
// holds the word of the reader's record (written at least a cycle before)
localparam OW = 32 + 32 + 1 + 24 + VI_WIDTH;    // output: header fields
localparam WW = 58 + 32 + 16;                   // write-back lookup (VA bits 63:6)
localparam AW2 = 1 + VI_WIDTH + 64 + 32;        // advance
wire [OW-1:0]      o_rd;
wire [WW-1:0]      wl_rd;
wire [AW2-1:0]     ap_rd;
reg                o_rv, wl_rv, ap_rv;
wire [31:0]        o_len, o_imm;
wire               o_immf;
wire [23:0]        o_peer;    // {node, VI}
wire [VI_WIDTH-1:0] o_vi;
wire [63:6]        wl_dva;
wire [31:0]        wl_dh;
wire [15:0]        wl_ptag;
wire               ap_q;
wire [VI_WIDTH-1:0] ap_vi;
wire [63:0]        ap_next;
wire [31:0]        ap_nh;
assign {o_len, o_imm, o_immf, o_peer, o_vi} = o_rd;
assign {wl_dva, wl_dh, wl_ptag} = wl_rd;
assign {ap_q, ap_vi, ap_next, ap_nh} = ap_rd;
// ring pointers, in order: cp <= ap <= wa <= wl <= out <= rec_wp
reg [MW:0]         rec_wp;   // next record to make (classify)
reg [MW:0]         out_rp;   // output side's record
reg [MW:0]         wl_rp;    // next write-back lookup
reg [MW:0]         wa_rp;    // next Status write (or lost)
reg [MW:0]         ap_rp;    // next advance
reg [MW:0]         cp_rp;    // next completion
wire [MW:0]        rec_used = rec_wp - cp_rp;
wire               rec_free = rec_used < MQ;
wire [MW-1:0]      rw_i = rec_wp[MW-1:0];
wire [MW-1:0]      om = out_rp[MW-1:0];
wire [MW-1:0]      wa_i = wa_rp[MW-1:0];
wire [MW-1:0]      cp_i = cp_rp[MW-1:0];

// ------------------------------------------------------------ response jobs (FIFO, a via_ram; its read register is the head)

localparam JW = VI_WIDTH + 24 + 16 + 64 + 32 + 32 + 32 + 1;
reg  [JQW-1:0]     jq_wp, jq_rp;
reg  [JQW:0]       jq_cnt;     // entries (in the RAM or the head)
reg  [JQW:0]       jq_rc;      // entries written, not yet read
reg                jqh_v;
wire [JW-1:0]      jq_rd;
wire               job_take;   // the head becomes a record (classify)
wire               jq_rd_en = (jq_rc != 0) && (!jqh_v || job_take);
assign job_ready = !abort && (jq_cnt < JQ);
wire               jq_push = job_valid && job_ready;
wire [VI_WIDTH-1:0] jqh_vi;
wire [23:0]        jqh_peer;
wire [15:0]        jqh_ptag;
wire [63:0]        jqh_va;
wire [31:0]        jqh_h, jqh_len, jqh_tag;
wire               jqh_err;
assign {jqh_vi, jqh_peer, jqh_ptag, jqh_va, jqh_h, jqh_len, jqh_tag, jqh_err} = jq_rd;
via_ram #(.WIDTH(JW), .WORDS(JQ)) jqram (
    .clk(clk), .wr_en(jq_push), .wr_addr(jq_wp),
    .wr_data({job_vi, job_peer, job_ptag, job_va, job_handle, job_len, job_tag, job_err}),
    .rd_en(jq_rd_en), .rd_addr(jq_rp), .rd_data(jq_rd));

// ------------------------------------------------------------ read slots
// A good RDMA read takes a slot at classify (its descriptor's VA, handle,
// ptag, length, Next) and writes its local data segments into sram while
// the issue side walks them; its request frame carries the tag {gen,
// slot}. via_vi_rx places the response (or cancels the read), writes the
// Status, advances the queue and hands the completion back here (rd_done).
// A VI with a read slot takes no new record of its send queue: its later
// descriptors wait at classify (the queue's order, and the fence).

reg               s_busy [0:RS-1];
reg               s_claim [0:RS-1];   // via_vi_rx took it (a response or a cancel is on its way)
reg               s_pass [0:RS-1];    // its record left the ring (cp)
reg  [3:0]        s_gen [0:RS-1];
reg  [VI_WIDTH-1:0] s_vi [0:RS-1];
reg  [63:6]       s_dva [0:RS-1];
reg  [31:0]       s_dh [0:RS-1];
reg  [15:0]       s_ptag [0:RS-1];
reg  [31:0]       s_len [0:RS-1];
reg  [63:0]       s_next [0:RS-1];
reg  [31:0]       s_nh [0:RS-1];
wire [1:0]        rq_s = rq_tag[1:0];
assign rq_hit = s_busy[rq_s] && !s_claim[rq_s] && s_gen[rq_s] == rq_tag[5:2] && rq_tag[31:6] == 26'd0
             && s_vi[rq_s] == rq_vi;
assign rq_dva = {s_dva[rq_s], 6'd0};
assign rq_dh = s_dh[rq_s];
assign rq_ptag = s_ptag[rq_s];
assign rq_len = s_len[rq_s];
assign rq_next = s_next[rq_s];
assign rq_next_handle = s_nh[rq_s];
reg  [1:0]        rc_s;
reg               rc_h;
integer           sk;
always @(*) begin
    rc_h = 1'b0;
    rc_s = 2'd0;
    for (sk = RS - 1; sk >= 0; sk = sk - 1) begin
        if (s_busy[sk] && !s_claim[sk] && s_vi[sk] == rc_vi) begin
            rc_h = 1'b1;
            rc_s = sk[1:0];
        end
    end
end
assign rc_hit = rc_h;
assign rc_tag = {26'd0, s_gen[rc_s], rc_s};
assign rd_passed = {s_pass[3], s_pass[2], s_pass[1], s_pass[0]};
assign rd_done_ready = !abort && done_ready;
wire              rdn_go = rd_done_valid && rd_done_ready;
wire [1:0]        rdn_s = rd_done_tag[1:0];

// ------------------------------------------------------------ descriptor fetch pipe

wire        fe_req_valid = b_v && !abort && (iq_cnt < PIPE_DEPTH);
wire        fe_req_ready;
wire        fe_req_go = fe_req_valid && fe_req_ready;
wire        fe_res_valid;
wire        fe_res_ready;
wire [1:0]  fe_res_kind;
wire [31:0] fe_res_status;
/* verilator lint_off UNUSEDSIGNAL */
wire [3:0]  fe_res_check;
wire [2:0]  fe_res_tpt_err;
wire [1:0]  fe_res_bus_resp;
wire [15:0] fe_res_control;
wire [63:0] fe_seg_addr;
wire [31:0] fe_seg_handle, fe_seg_len;
wire        fe_res_tag;
wire        fe_busy;
/* verilator lint_on UNUSEDSIGNAL */
wire [PSW-1:0] fe_res_slot;
wire        fe_res_ctl_valid;
wire [63:0] fe_res_next;
wire [31:0] fe_res_next_handle;
wire [15:0] fe_res_seg_count;
wire [31:0] fe_res_immediate, fe_res_length;
wire [1:0]  fe_inflight;
wire        fe_rel;
wire        seg_rd_en;
reg  [PSW-1:0] is_slot;
reg  [7:0]  li_seg;

via_desc_pipe #(
    .MAX_SEGS(MAX_SEGS),
    .DATA_WIDTH(DATA_WIDTH),
    .ADDR_WIDTH(ADDR_WIDTH),
    .ID_WIDTH(ID_WIDTH),
    .ARID(FETCH_ID),
    .DEPTH(PIPE_DEPTH),
    .TAG_WIDTH(1)
) fetch (
    .clk(clk),
    .rst(rst),
    .req_valid(fe_req_valid),
    .req_ready(fe_req_ready),
    .req_va(b_va),
    .req_handle(b_h),
    .req_ptag(b_ptag),
    .req_recv(b_q),
    .req_max_transfer(b_mts),
    .req_rdma_write_en(b_rw),
    .req_rdma_read_en(b_rr),
    .req_tag(1'b0),
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
    .res_tag(fe_res_tag),
    .res_slot(fe_res_slot),
    .seg_rd_en(seg_rd_en),
    .seg_rd_slot(is_slot),
    .seg_rd_idx(li_seg),
    .seg_addr(fe_seg_addr),
    .seg_handle(fe_seg_handle),
    .seg_len(fe_seg_len),
    .rel_valid(fe_rel),
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
    .m_axi_rready(f_axi_rready),
    .abort(abort),
    .busy(fe_busy)
);

// ------------------------------------------------------------ classify

reg [1:0] is_st;
reg [MW-1:0] is_id;
reg [15:0] is_segc;

// a response job goes first (it never waits for anything but the output,
// so a ring of records waiting for a read slot never holds a response up)
assign      job_take = jqh_v && rec_free && (is_st == I_IDLE) && !abort;
// read slots: a send-queue item of a VI with a read waits, and so does a
// good read while every slot is taken
reg         s_vi_busy, s_any_free;
reg  [1:0]  s_free;
integer     sf;
always @(*) begin
    s_vi_busy = 1'b0;
    s_any_free = 1'b0;
    s_free = 2'd0;
    for (sf = RS - 1; sf >= 0; sf = sf - 1) begin
        if (s_busy[sf] && s_vi[sf] == iqh_vi) s_vi_busy = 1'b1;
        if (!s_busy[sf]) begin
            s_any_free = 1'b1;
            s_free = sf[1:0];
        end
    end
end
wire        cls_rd;     // a good RDMA read (below)
wire        cls_hold = !iqh_q && (s_vi_busy || (cls_rd && !s_any_free));
wire        cls_go = fe_res_valid && iqh_v && rec_free && (is_st == I_IDLE) && !abort && !job_take && !cls_hold;
wire        cls_drop = fe_res_valid && iqh_v && (is_st == I_IDLE) && abort;
assign      fe_res_ready = cls_go || cls_drop;
assign      iq_pop = fe_res_ready;
wire [1:0]  cls_cst = iqh_state;

via_ram #(
    .WIDTH(IQW),
    .WORDS(PIPE_DEPTH)
) iqram (
    .clk(clk),
    .wr_en(fe_req_go),
    .wr_addr(iq_wp),
    .wr_data({b_q, b_vi, b_va[63:6], b_h, b_ptag, b_peer, b_state, b_en, b_rel}),
    .rd_en(iq_rd_en),
    .rd_addr(iq_rp),
    .rd_data(iq_rd)
);
reg  [31:0] cls_st;
reg         cls_frame;
always @(*) begin
    cls_frame = 1'b0;
    cls_st = 32'd0;
    if (iqh_q) cls_st = (fe_res_kind == RES_DESC || fe_res_kind == RES_STATUS) ? ST_FLUSHED : ST_TRANSPORT;
    else if (fe_res_kind == RES_STATUS) cls_st = fe_res_status;
    else if (fe_res_kind != RES_DESC) cls_st = ST_TRANSPORT;
    else if (fe_res_control[1:0] == 2'd3) cls_st = ST_FORMAT;   // (the fetch refuses it first)
    else if (cls_cst == VI_ERROR) cls_st = ST_FLUSHED;
    else if (!iqh_en || cls_cst != VI_CONNECTED) cls_st = ST_FORMAT;
    else cls_frame = 1'b1;
end
assign cls_rd = cls_frame && fe_res_control[1:0] == CTL_OP_RDMA_READ;

// local data segments of the reads: {slot, index} -> {addr, handle, len}
wire [127:0]      rs_rd;
wire              sr_we;
wire [SEGW+1:0]   sr_wa;
// the issue side stores a read's local data segment li_seg (1..) as index li_seg - 1
/* verilator lint_off UNUSEDSIGNAL */
wire [7:0]        sr_idx = li_seg - 8'd1;
/* verilator lint_on UNUSEDSIGNAL */
assign sr_we = (is_st == I_SGO) && r_rr[is_id] && li_seg != 8'd0;
assign sr_wa = {r_rslot[is_id], sr_idx[SEGW-1:0]};
via_ram #(.WIDTH(128), .WORDS(RS << SEGW)) sram (
    .clk(clk), .wr_en(sr_we), .wr_addr(sr_wa), .wr_data({fe_seg_addr, fe_seg_handle, fe_seg_len}),
    .rd_en(1'b1), .rd_addr({rs_idx[9:8], rs_idx[SEGW-1:0]}), .rd_data(rs_rd));
assign {rs_addr, rs_handle, rs_len} = rs_rd;
/* verilator lint_off UNUSEDSIGNAL */
wire [7:0] rs_idx_unused = rs_idx[7:0];
/* verilator lint_on UNUSEDSIGNAL */

// ------------------------------------------------------------ issue side state

reg [63:0] li_va;
reg [31:0] li_rem;
reg [31:0] li_h;
reg [15:0] li_ptag;
wire       is_stop = abort || r_err[is_id];
wire [12:0] li_pg_left = 13'h1000 - {1'b0, li_va[11:0]};
wire       li_last = li_rem <= {19'd0, li_pg_left};

// lookups outstanding on the d port: kind (1 write-back) in order, and the
// record of each data lookup
reg        lq_wb [0:LQ_DEPTH-1];
reg [2:0]  lq_wp, lq_rp;
reg [3:0]  lq_cnt;
reg [MW-1:0] dlq_id [0:LQ_DEPTH-1];
reg [2:0]  dlq_wp, dlq_rp;
reg [3:0]  dlq_cnt;
reg [2:0]  wlk_out;        // write-back lookups outstanding

// translation queue
reg [ADDR_WIDTH-1:0] xq_pa [0:XQ_DEPTH-1];
reg [12:0] xq_bytes [0:XQ_DEPTH-1];
reg        xq_ep [0:XQ_DEPTH-1];
reg [MW-1:0] xq_id [0:XQ_DEPTH-1];
reg [2:0]  xq_wp, xq_rp;
reg [3:0]  xq_cnt;
reg [12:0] xq_used;        // bytes of the head entry already covered by bursts

// burst queue (issued bursts whose last R beat has not come)
reg [LB-1:0] bq_off [0:BQ_DEPTH-1];
reg [12:0]   bq_bytes [0:BQ_DEPTH-1];
reg          bq_ep [0:BQ_DEPTH-1];
reg [MW-1:0] bq_id [0:BQ_DEPTH-1];
reg [4:0]    bq_wp, bq_rp;
reg [5:0]    bq_cnt;

// data buffer (R beats, annotated with record, first valid byte, count)
localparam DBWORD = DATA_WIDTH + MW + LB + LB + 1;
reg [DBW-1:0]        db_wp, db_rp;
reg [DBW:0]          ram_cnt;
reg                  h_valid;
reg [DBW:0]          resv;
wire [DBWORD-1:0]    db_rd;

reg        r_first;
reg [12:0] r_rem;

reg                  arv_r;
reg [ADDR_WIDTH-1:0] araddr_r;
reg [7:0]            arlen_r;

// output side
reg [2:0]              ph;
reg [2*DATA_WIDTH-1:0] acc;
reg [LB:0]             acc_n;
reg [31:0]             pk_in;
reg                    ov_r;
reg [DATA_WIDTH-1:0]   od_r;
reg [BYTES-1:0]        ok_r;
reg                    ol_r;

// epoch accounting
reg [7:0] ep_cnt0, ep_cnt1;   // data: translations held + bursts in flight
reg [3:0] wep_cnt0, wep_cnt1; // write-back: translations held + writes awaiting B

// write-back translations (in order): ok, PA, epoch
reg                  wxq_ok [0:WXQ-1];
reg                  wxq_sk [0:WXQ-1];   // a record without write-back
reg [ADDR_WIDTH-1:0] wxq_pa [0:WXQ-1];
reg                  wxq_ep [0:WXQ-1];
reg [1:0]            wxq_wp, wxq_rp;
reg [2:0]            wxq_cnt;

// Status writes
reg                  wa_busy;
reg [ADDR_WIDTH-1:0] wa_a;
reg [31:0]           wa_word;
reg                  awv_r, wv_r;
// writes awaiting B (in order): record, epoch
reg [MW-1:0]         bf_id [0:MQ-1];
reg                  bf_ep [0:MQ-1];
reg [MW-1:0]         bf_wp, bf_rp;
reg [MW:0]           bf_cnt;

// ------------------------------------------------------------ d port: lookups

wire li_want = (is_st == I_LK) && !is_stop && (lq_cnt < LQ_DEPTH)
            && ({1'b0, dlq_cnt} + {1'b0, xq_cnt} < XQ_DEPTH);
wire [MW-1:0] wl_i = wl_rp[MW-1:0];
wire wl_want = !abort && (wl_rp != out_rp) && wl_rv && (lq_cnt < LQ_DEPTH) && !r_sk[wl_i]
            && ({1'b0, wlk_out} + {1'b0, wxq_cnt} < WXQ);
// a record without write-back (a read request, a response) puts a skip
// entry into the write-back translations, in order (no lookup outstanding)
wire wl_sk = !abort && (wl_rp != out_rp) && r_sk[wl_i] && (wlk_out == 3'd0) && (wxq_cnt < WXQ);
reg  d_lock, d_lsel, d_rr;
wire d_sel_wb = d_lock ? d_lsel : (wl_want && (!li_want || d_rr));
assign d_lk_valid  = d_sel_wb ? wl_want : li_want;
assign d_lk_handle = d_sel_wb ? wl_dh : li_h;
assign d_lk_va     = d_sel_wb ? {wl_dva, 6'd0} : li_va;
assign d_lk_len    = d_sel_wb ? 32'd32 : li_rem;
assign d_lk_ptag   = d_sel_wb ? wl_ptag : li_ptag;
assign d_lk_kind   = d_sel_wb ? KIND_LW : r_job[is_id] ? KIND_RR : KIND_LR;
assign d_rs_ready  = 1'b1;

wire d_go = d_lk_valid && d_lk_ready;
wire li_take = d_go && !d_sel_wb;
wire wl_take = d_go && d_sel_wb;
wire rs_wb = d_rs_valid && lq_wb[lq_rp];
wire rs_data = d_rs_valid && !lq_wb[lq_rp];
wire [MW-1:0] rs_id = dlq_id[dlq_rp];
wire rs_push = rs_data && (d_rs_err == 3'd0) && !abort && !r_err[rs_id];

// ------------------------------------------------------------ AR issue

wire [MW-1:0] xh_id = xq_id[xq_rp];
wire [ADDR_WIDTH-1:0] ar_pa = xq_pa[xq_rp] + {{(ADDR_WIDTH-13){1'b0}}, xq_used};
wire [12:0] ar_left = xq_bytes[xq_rp] - xq_used;
wire [LB-1:0] ar_off = ar_pa[LB-1:0];
wire [13:0] ar_need = ({1'b0, ar_left} + {{(14-LB){1'b0}}, ar_off} + BYTES32[13:0] - 14'd1) >> LB;
wire [13:0] ar_n = (ar_need > MB32[13:0]) ? MB32[13:0] : ar_need;
wire [13:0] ar_span = (ar_n << LB) - {{(14-LB){1'b0}}, ar_off};
wire [12:0] ar_bytes = (ar_span > {1'b0, ar_left}) ? ar_left : ar_span[12:0];
wire        ar_slot = !arv_r || d_axi_arready;
wire        xq_stop = abort || r_err[xh_id];
wire        ar_go = !xq_stop && (xq_cnt != 4'd0) && ar_slot
                 && ({{(13-DBW){1'b0}}, resv} + ar_n <= BB32[13:0]) && (bq_cnt < BQ_DEPTH);
wire        ar_pop = ar_go && (ar_bytes == ar_left);
wire        xq_drop = xq_stop && (xq_cnt != 4'd0);
wire        xq_pop = ar_pop || xq_drop;

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
wire [MW-1:0] r_id = bq_id[bq_rp];
wire [LB-1:0] r_off = r_first ? bq_off[bq_rp] : {LB{1'b0}};
wire [12:0]   r_have = r_first ? bq_bytes[bq_rp] : r_rem;
wire [12:0]   r_room = BYTES32[12:0] - {{(13-LB){1'b0}}, r_off};
wire [12:0]   r_n = (r_have < r_room) ? r_have : r_room;
wire          r_bad = d_axi_rresp[1];
wire          r_end = r_take && d_axi_rlast;

// ------------------------------------------------------------ output side and packer

wire                  out_free = !ov_r || m_axis_tready;
wire                  o_have = (out_rp != rec_wp);
wire [DATA_WIDTH-1:0] pk_raw = db_rd[DBWORD-1:MW+LB+LB+1];
wire [MW-1:0]         pk_id = db_rd[MW+LB+LB:LB+LB+1];
wire [LB-1:0]         pk_off = db_rd[LB+LB:LB+1];
wire [LB:0]           pk_n = db_rd[LB:0];
wire [DATA_WIDTH-1:0] pk_sh = pk_raw >> {pk_off, 3'b000};
reg  [DATA_WIDTH-1:0] pk_mask;
always @(*) begin
    for (bi = 0; bi < BYTES; bi = bi + 1) begin
        pk_mask[bi*8 +: 8] = (bi < pk_n) ? 8'hff : 8'h00;
    end
end
wire [2*DATA_WIDTH-1:0] pk_ext = {{DATA_WIDTH{1'b0}}, pk_sh & pk_mask} << {acc_n, 3'b000};
wire [2*DATA_WIDTH-1:0] pk_acc = acc | pk_ext;
wire [LB+1:0]           pk_sum = {1'b0, acc_n} + {1'b0, pk_n};
wire                    pk_full = pk_sum >= BYTES32[LB+1:0];

wire o_stop = abort || r_err[om];
wire in_pay = (ph == P_PAY);
wire all_in = (pk_in == o_len);
wire pk_pop = in_pay && !o_stop && !all_in && h_valid && out_free;
wire pk_flush = in_pay && !o_stop && all_in && (acc_n != 0) && out_free;
// under an error the output drops its record's beats; under abort every beat
wire db_drop = h_valid && (abort || (in_pay && r_err[om] && pk_id == om));
wire db_pop = pk_pop || db_drop;
wire db_rd_en = (ram_cnt != 0) && (!h_valid || db_pop);
// nothing of record om is left in flight (every queue is in record order and
// om is the oldest record with data)
wire om_drained = r_idone[om]
    && (dlq_cnt == 4'd0 || dlq_id[dlq_rp] != om)
    && (xq_cnt == 4'd0 || xh_id != om)
    && (bq_cnt == 6'd0 || r_id != om)
    && ((ram_cnt == 0 && !h_valid) || (h_valid && pk_id != om));
wire [31:0] om_est = r_err[om] ? (r_etr[om] ? ST_TRANSPORT : r_job[om] ? ST_RPROT : ST_PROTECTION) : 32'd0;

via_ram #(
    .WIDTH(DBWORD),
    .WORDS(BUF_BEATS)
) dbuf (
    .clk(clk),
    .wr_en(r_take),
    .wr_addr(db_wp),
    .wr_data({d_axi_rdata, r_id, r_off, r_n[LB:0]}),
    .rd_en(db_rd_en),
    .rd_addr(db_rp),
    .rd_data(db_rd)
);

// header of record om
wire [127:0] hdr;
/* verilator lint_off UNUSEDSIGNAL */
wire [31:0] vi32 = {{(32-VI_WIDTH){1'b0}}, o_vi};
/* verilator lint_on UNUSEDSIGNAL */
assign hdr[`VIA_FRAME_HDR_DST_VI_RANGE] = o_peer[15:0];
assign hdr[`VIA_FRAME_HDR_SRC_VI_RANGE] = vi32[15:0];
assign hdr[`VIA_FRAME_HDR_LENGTH_RANGE] = o_len;
assign hdr[`VIA_FRAME_HDR_IMM_RANGE] = o_imm;
assign hdr[`VIA_FRAME_HDR_FLAGS_RANGE] = {7'd0, o_immf};
assign hdr[`VIA_FRAME_HDR_OP_RANGE] = r_rw[om] ? `VIA_FRAME_OP_RDMA_WRITE : r_rr[om] ? `VIA_FRAME_OP_READ_REQ :
                                      r_job[om] ? `VIA_FRAME_OP_READ_RESP : `VIA_FRAME_OP_SEND;
wire om_ext = r_rw[om] || r_rr[om] || r_job[om];   // the frame carries the RDMA extension
assign hdr[`VIA_FRAME_HDR_PEER_NODE_RANGE] = o_peer[23:16];
assign hdr[`VIA_FRAME_HDR_PAD_RANGE] = 8'd0;
/* verilator lint_off UNUSEDSIGNAL */
wire [2*DATA_WIDTH+127:0] hdr_ext = {{(2*DATA_WIDTH){1'b0}}, hdr};
/* verilator lint_on UNUSEDSIGNAL */
wire [DATA_WIDTH-1:0] hdr0 = hdr_ext[DATA_WIDTH-1:0];
wire [DATA_WIDTH-1:0] hdr1 = hdr_ext[2*DATA_WIDTH-1:DATA_WIDTH];

// RDMA extension of record om: its address segment, written by the issue
// side (x_we) into xram, read at om (the output waits in P_EXTW for r_xv,
// so the read register holds om's word from P_EXT0 on)
// (a read's adds its tag; a response job's is written when its record is
// made: VA and handle 0, the requester's tag)
wire        x_we = (is_st == I_SGO) && li_seg == 8'd0 && (r_rw[is_id] || r_rr[is_id]);
wire [1:0]  x_slot = r_rslot[is_id];
wire [31:0] x_tag = r_rr[is_id] ? {26'd0, s_gen[x_slot], x_slot} : 32'd0;
wire [127:0] x_rd;
via_ram #(.WIDTH(128), .WORDS(MQ)) xram (
    .clk(clk), .wr_en(x_we || job_take), .wr_addr(x_we ? is_id : rw_i),
    .wr_data(x_we ? {x_tag, fe_seg_handle, fe_seg_addr} : {jqh_tag, 96'd0}),
    .rd_en(1'b1), .rd_addr(om), .rd_data(x_rd));
wire [127:0] ext = x_rd;
/* verilator lint_off UNUSEDSIGNAL */
wire [2*DATA_WIDTH+127:0] ext_x = {{(2*DATA_WIDTH){1'b0}}, ext};
/* verilator lint_on UNUSEDSIGNAL */
wire [DATA_WIDTH-1:0] ext0 = ext_x[DATA_WIDTH-1:0];
wire [DATA_WIDTH-1:0] ext1 = ext_x[2*DATA_WIDTH-1:DATA_WIDTH];

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

// ------------------------------------------------------------ write-back, advance, completion

wire wxq_pop_abort = abort && (wxq_cnt != 3'd0);
wire wa_start = !abort && !wa_busy && (wxq_cnt != 3'd0) && (bf_cnt < MQ);
wire wa_ok = wxq_ok[wxq_rp];
wire aw_done = (!awv_r || w_axi_awready) && (!wv_r || w_axi_wready);
wire b_now = (bf_cnt != 0) && w_axi_bvalid;
wire [MW-1:0] b_id = bf_id[bf_rp];
// a read's completion (rd_done, from via_vi_rx) goes before the ring's
wire cp_have = (cp_rp != ap_rp) && (!r_w[cp_i] || r_b[cp_i]);
wire cp_go = cp_have && (r_sk[cp_i] || (done_ready && !rd_done_valid));
wire [MW-1:0] ap_i = ap_rp[MW-1:0];
wire ap_sk = !abort && (ap_rp != wa_rp) && r_sk[ap_i];

assign adv_valid = !abort && (ap_rp != wa_rp) && ap_rv && !r_sk[ap_i];
assign adv_vi = ap_vi;
assign adv_q = ap_q;
assign adv_next = ap_next;
assign adv_next_handle = ap_nh;
assign adv_keep = 1'b0;
wire adv_go = adv_valid && adv_ready;

wire [LB-1:0] wb_off = wa_a[LB-1:0];
assign w_axi_awid    = DATA_ID;
assign w_axi_awaddr  = {wa_a[ADDR_WIDTH-1:LB], {LB{1'b0}}};
assign w_axi_awlen   = 8'd0;
assign w_axi_awsize  = AXI_SIZE;
assign w_axi_awburst = 2'b01;
assign w_axi_awlock  = 1'b0;
assign w_axi_awcache = AXI_CACHE;
assign w_axi_awprot  = AXI_PROT;
assign w_axi_awvalid = awv_r;
assign w_axi_wdata   = {{(DATA_WIDTH-32){1'b0}}, wa_word} << {wb_off, 3'b000};
assign w_axi_wstrb   = {{(BYTES-4){1'b0}}, 4'hf} << wb_off;
assign w_axi_wlast   = 1'b1;
assign w_axi_wvalid  = wv_r;
assign w_axi_bready  = (bf_cnt != 0);

// ------------------------------------------------------------ intake / busy / flush

assign work_ready = !abort && !a_v && !b_v;
assign ctx_rd_vi = work_vi;
wire work_go = work_valid && work_ready;

wire drained_all = !a_v && !b_v && (is_st == I_IDLE) && !fe_busy && !fe_res_valid
    && (lq_cnt == 4'd0) && (xq_cnt == 4'd0) && (bq_cnt == 6'd0) && !arv_r
    && (ram_cnt == 0) && !h_valid && (wxq_cnt == 3'd0) && !wa_busy && (bf_cnt == 0)
    && (cp_rp == ap_rp) && !ov_r;
// under abort, once everything has drained, the records are dropped
wire flush = abort && drained_all && ((rec_wp != cp_rp) || (iq_cnt != 0) || (ph != P_IDLE) || (jq_cnt != 0));
assign busy = !drained_all || (rec_wp != cp_rp) || (iq_cnt != 0) || (jq_cnt != 0) || done_pulse;

// fence
wire rs_ok = d_rs_valid && (d_rs_err == 3'd0);
assign inflight_epoch = fe_inflight
    | {ep_cnt1 != 8'd0, ep_cnt0 != 8'd0}
    | {wep_cnt1 != 4'd0, wep_cnt0 != 4'd0}
    | {rs_ok && d_rs_epoch, rs_ok && !d_rs_epoch};

wire xq_head_ep = xq_ep[xq_rp];
wire bq_head_ep = bq_ep[bq_rp];
wire [7:0] ep_inc0 = {7'd0, rs_push && !d_rs_epoch} + {7'd0, ar_go && !xq_head_ep};
wire [7:0] ep_inc1 = {7'd0, rs_push && d_rs_epoch} + {7'd0, ar_go && xq_head_ep};
wire [7:0] ep_dec0 = {7'd0, xq_pop && !xq_head_ep} + {7'd0, r_end && !bq_head_ep};
wire [7:0] ep_dec1 = {7'd0, xq_pop && xq_head_ep} + {7'd0, r_end && bq_head_ep};
// write-back: + translation pushed ok; - translation dropped (lost or
// abort), - B
wire wrs_push_ok = rs_wb && (d_rs_err == 3'd0);
wire wx_head_ep = wxq_ep[wxq_rp];
wire wx_gone = (wa_start && !wa_ok) || wxq_pop_abort;   // an entry leaves without a write
wire wx_gone_ok = wx_gone && wa_ok;                     // ... that held a translation
wire b_ep = bf_ep[bf_rp];
wire [3:0] wep_inc0 = {3'd0, wrs_push_ok && !d_rs_epoch};
wire [3:0] wep_inc1 = {3'd0, wrs_push_ok && d_rs_epoch};
wire [3:0] wep_dec0 = {3'd0, wx_gone_ok && !wx_head_ep} + {3'd0, b_now && !b_ep};
wire [3:0] wep_dec1 = {3'd0, wx_gone_ok && wx_head_ep} + {3'd0, b_now && b_ep};

wire is_fin = ((is_st == I_SRD) && (is_stop || ({8'd0, li_seg} >= is_segc)))
           || ((is_st == I_LK) && is_stop);
assign seg_rd_en = (is_st == I_SRD) && !is_fin;
assign fe_rel = (is_fin && !r_job[is_id]) || (cls_go && !cls_frame) || cls_drop;
wire out_trl = (ph == P_TRL) && !abort && out_free;
wire o_skip = (ph == P_IDLE) && o_have && !abort && !r_frame[om];

// record RAMs: written when the record is made, read at the readers' next
// pointers
wire [MW:0] out_nx = out_rp + {{MW{1'b0}}, o_skip || out_trl};
wire [MW:0] wl_nx = wl_rp + {{MW{1'b0}}, wl_take || wl_sk};
wire [MW:0] ap_nx = ap_rp + {{MW{1'b0}}, adv_go || ap_sk};
// (a read request: no payload, its length as the immediate; a response
// job: the requester as the peer)
wire [OW-1:0] rec_o = job_take ? {jqh_len, 32'd0, 1'b0, jqh_peer, jqh_vi} :
    cls_rd ? {32'd0, fe_res_length, 1'b1, iqh_peer, iqh_vi} :
    {fe_res_length,
    fe_res_control[`VIA_DESC_CTL_CONTROL_IMMEDIATE_LSB] ? fe_res_immediate : 32'd0,
    fe_res_control[`VIA_DESC_CTL_CONTROL_IMMEDIATE_LSB], iqh_peer, iqh_vi};
wire [WW-1:0] rec_w = {iqh_va, iqh_h, iqh_ptag};
wire [AW2-1:0] rec_a = {iqh_q, iqh_vi, fe_res_ctl_valid ? fe_res_next : 64'd0,
    fe_res_ctl_valid ? fe_res_next_handle : 32'd0};

via_ram #(.WIDTH(OW), .WORDS(MQ)) oram (
    .clk(clk), .wr_en(cls_go || job_take), .wr_addr(rw_i), .wr_data(rec_o),
    .rd_en(1'b1), .rd_addr(out_nx[MW-1:0]), .rd_data(o_rd));
via_ram #(.WIDTH(WW), .WORDS(MQ)) wlram (
    .clk(clk), .wr_en(cls_go), .wr_addr(rw_i), .wr_data(rec_w),
    .rd_en(1'b1), .rd_addr(wl_nx[MW-1:0]), .rd_data(wl_rd));
via_ram #(.WIDTH(AW2), .WORDS(MQ)) apram (
    .clk(clk), .wr_en(cls_go), .wr_addr(rw_i), .wr_data(rec_a),
    .rd_en(1'b1), .rd_addr(ap_nx[MW-1:0]), .rd_data(ap_rd));

always @(posedge clk) begin
    if (rst) begin
        o_rv <= 1'b0;
        wl_rv <= 1'b0;
        ap_rv <= 1'b0;
    end else begin
        o_rv <= out_nx != rec_wp;
        wl_rv <= wl_nx != rec_wp;
        ap_rv <= ap_nx != rec_wp;
    end
end

// ------------------------------------------------------------ sequential

always @(posedge clk) begin
    // record arrays (no reset: each entry is written when its record is made)
    if (cls_go) begin
        // the operation the Status names: that of the control segment
        // (also when the descriptor failed), send if it was not read
        r_rw[rw_i] <= !iqh_q && fe_res_ctl_valid && fe_res_control[1:0] == CTL_OP_RDMA_WRITE;
        r_rr[rw_i] <= !iqh_q && fe_res_ctl_valid && fe_res_control[1:0] == CTL_OP_RDMA_READ;
        r_xv[rw_i] <= 1'b0;
        r_frame[rw_i] <= cls_frame;
        r_idone[rw_i] <= !cls_frame;
        r_err[rw_i] <= 1'b0;
        r_etr[rw_i] <= 1'b0;
        r_w[rw_i] <= 1'b0;
        r_b[rw_i] <= 1'b0;
        r_st[rw_i] <= cls_st & ST_ERR_MASK;
        r_q[rw_i] <= iqh_q;
        r_vi[rw_i] <= iqh_vi;
        r_job[rw_i] <= 1'b0;
        r_rel[rw_i] <= iqh_rel;
        r_sk[rw_i] <= cls_rd;
        r_rslot[rw_i] <= s_free;
    end
    if (job_take) begin
        r_rw[rw_i] <= 1'b0;
        r_rr[rw_i] <= 1'b0;
        r_xv[rw_i] <= 1'b1;
        r_frame[rw_i] <= 1'b1;
        r_idone[rw_i] <= jqh_err || jqh_len == 32'd0;
        r_err[rw_i] <= jqh_err;
        r_etr[rw_i] <= 1'b0;
        r_w[rw_i] <= 1'b0;
        r_b[rw_i] <= 1'b0;
        r_st[rw_i] <= 32'd0;
        r_q[rw_i] <= 1'b0;
        r_vi[rw_i] <= jqh_vi;
        r_job[rw_i] <= 1'b1;
        r_rel[rw_i] <= 1'b0;
        r_sk[rw_i] <= 1'b1;
        r_rslot[rw_i] <= 2'd0;
    end
    if (is_fin) r_idone[is_id] <= 1'b1;
    if (x_we) r_xv[is_id] <= 1'b1;
    if (rs_data && d_rs_err != 3'd0 && !r_err[rs_id]) begin
        r_err[rs_id] <= 1'b1;
        r_etr[rs_id] <= 1'b0;
    end
    if (r_take && r_bad && !r_err[r_id]) begin
        r_err[r_id] <= 1'b1;
        r_etr[r_id] <= 1'b1;
    end
    if (out_trl) r_st[om] <= om_est;
    if (wa_start && wa_ok) r_w[wa_i] <= 1'b1;
    if (b_now) r_b[b_id] <= 1'b1;
    // FIFO arrays
    if (fe_req_go) begin
    end
    if (d_go) lq_wb[lq_wp] <= d_sel_wb;
    if (li_take) dlq_id[dlq_wp] <= is_id;
    if (rs_push) begin
        xq_pa[xq_wp] <= d_rs_pa;
        xq_bytes[xq_wp] <= d_rs_bytes;
        xq_ep[xq_wp] <= d_rs_epoch;
        xq_id[xq_wp] <= rs_id;
    end
    if (ar_go) begin
        bq_off[bq_wp] <= ar_off;
        bq_bytes[bq_wp] <= ar_bytes;
        bq_ep[bq_wp] <= xq_head_ep;
        bq_id[bq_wp] <= xh_id;
    end
    if (rs_wb) begin
        wxq_ok[wxq_wp] <= d_rs_err == 3'd0;
        wxq_sk[wxq_wp] <= 1'b0;
        wxq_pa[wxq_wp] <= d_rs_pa;
        wxq_ep[wxq_wp] <= d_rs_epoch;
    end
    if (wl_sk) begin
        wxq_ok[wxq_wp] <= 1'b0;
        wxq_sk[wxq_wp] <= 1'b1;
        wxq_pa[wxq_wp] <= {ADDR_WIDTH{1'b0}};
        wxq_ep[wxq_wp] <= 1'b0;
    end
    if (wa_start && wa_ok) begin
        bf_id[bf_wp] <= wa_i;
        bf_ep[bf_wp] <= wx_head_ep;
    end
end

integer sr;
always @(posedge clk) begin
    if (rst || flush) begin
        for (sr = 0; sr < RS; sr = sr + 1) begin
            s_busy[sr] <= 1'b0;
            s_claim[sr] <= 1'b0;
            s_pass[sr] <= 1'b0;
        end
    end else begin
        if (cls_go && cls_rd) begin
            s_busy[s_free] <= 1'b1;
            s_claim[s_free] <= 1'b0;
            s_pass[s_free] <= 1'b0;
            s_gen[s_free] <= s_gen[s_free] + 4'd1;
            s_vi[s_free] <= iqh_vi;
            s_dva[s_free] <= iqh_va;
            s_dh[s_free] <= iqh_h;
            s_ptag[s_free] <= iqh_ptag;
            s_len[s_free] <= fe_res_length;
            s_next[s_free] <= fe_res_next;
            s_nh[s_free] <= fe_res_next_handle;
        end
        if (rq_claim) s_claim[rq_s] <= 1'b1;
        if (cp_go && r_sk[cp_i] && r_rr[cp_i]) s_pass[r_rslot[cp_i]] <= 1'b1;
        if (rdn_go) s_busy[rdn_s] <= 1'b0;
    end
    if (rst) begin
        for (sr = 0; sr < RS; sr = sr + 1) s_gen[sr] <= 4'd0;
    end
end

always @(posedge clk) begin
    if (rst || flush) begin
        jq_wp <= {JQW{1'b0}};
        jq_rp <= {JQW{1'b0}};
        jq_cnt <= {(JQW+1){1'b0}};
        jq_rc <= {(JQW+1){1'b0}};
        jqh_v <= 1'b0;
    end else begin
        if (jq_push) jq_wp <= jq_wp + 1'b1;
        if (jq_rd_en) jq_rp <= jq_rp + 1'b1;
        jq_cnt <= jq_cnt + {{JQW{1'b0}}, jq_push} - {{JQW{1'b0}}, job_take};
        jq_rc <= jq_rc + {{JQW{1'b0}}, jq_push} - {{JQW{1'b0}}, jq_rd_en};
        if (jq_rd_en) jqh_v <= 1'b1;
        else if (job_take) jqh_v <= 1'b0;
    end
end

always @(posedge clk) begin
    if (rst || flush) begin
        a_v <= 1'b0;
        b_v <= 1'b0;
        iq_wp <= {PSW{1'b0}};
        iq_rp <= {PSW{1'b0}};
        iq_cnt <= {(PSW+1){1'b0}};
        iq_rc <= {(PSW+1){1'b0}};
        iqh_v <= 1'b0;
        rec_wp <= cp_rp;
        out_rp <= cp_rp;
        wl_rp <= cp_rp;
        wa_rp <= cp_rp;
        ap_rp <= cp_rp;
        is_st <= I_IDLE;
        ph <= P_IDLE;
        acc <= {(2*DATA_WIDTH){1'b0}};
        acc_n <= {(LB+1){1'b0}};
        pk_in <= 32'd0;
        ov_r <= 1'b0;
        done_pulse <= 1'b0;
        done_ev <= 1'b0;
    end
    if (rst) begin
        a_vi <= {VI_WIDTH{1'b0}};
        a_q <= 1'b0;
        a_va <= 64'd0;
        a_h <= 32'd0;
        b_vi <= {VI_WIDTH{1'b0}};
        b_q <= 1'b0;
        b_va <= 64'd0;
        b_h <= 32'd0;
        b_ptag <= 16'd0;
        b_peer <= 24'd0;
        b_mts <= 32'd0;
        b_rw <= 1'b0;
        b_rr <= 1'b0;
        b_en <= 1'b0;
        b_rel <= 1'b0;
        b_state <= 2'd0;
        rec_wp <= {(MW+1){1'b0}};
        out_rp <= {(MW+1){1'b0}};
        wl_rp <= {(MW+1){1'b0}};
        wa_rp <= {(MW+1){1'b0}};
        ap_rp <= {(MW+1){1'b0}};
        cp_rp <= {(MW+1){1'b0}};
        is_id <= {MW{1'b0}};
        is_slot <= {PSW{1'b0}};
        is_segc <= 16'd0;
        li_seg <= 8'd0;
        li_va <= 64'd0;
        li_rem <= 32'd0;
        li_h <= 32'd0;
        li_ptag <= 16'd0;
        lq_wp <= 3'd0;
        lq_rp <= 3'd0;
        lq_cnt <= 4'd0;
        dlq_wp <= 3'd0;
        dlq_rp <= 3'd0;
        dlq_cnt <= 4'd0;
        wlk_out <= 3'd0;
        d_lock <= 1'b0;
        d_lsel <= 1'b0;
        d_rr <= 1'b0;
        xq_wp <= 3'd0;
        xq_rp <= 3'd0;
        xq_cnt <= 4'd0;
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
        od_r <= {DATA_WIDTH{1'b0}};
        ok_r <= {BYTES{1'b0}};
        ol_r <= 1'b0;
        ep_cnt0 <= 8'd0;
        ep_cnt1 <= 8'd0;
        wep_cnt0 <= 4'd0;
        wep_cnt1 <= 4'd0;
        wxq_wp <= 2'd0;
        wxq_rp <= 2'd0;
        wxq_cnt <= 3'd0;
        wa_busy <= 1'b0;
        wa_a <= {ADDR_WIDTH{1'b0}};
        wa_word <= 32'd0;
        awv_r <= 1'b0;
        wv_r <= 1'b0;
        bf_wp <= {MW{1'b0}};
        bf_rp <= {MW{1'b0}};
        bf_cnt <= {(MW+1){1'b0}};
        done_pulse <= 1'b0;
        done_ev <= 1'b0;
        done_vi <= {VI_WIDTH{1'b0}};
        done_q <= 1'b0;
        cnt_desc <= 32'd0;
        cnt_err <= 32'd0;
        cnt_frames <= 32'd0;
        cnt_wb_lost <= 32'd0;
        wbl_pulse <= 1'b0;
        wbl_vi <= {VI_WIDTH{1'b0}};
        brk_pulse <= 1'b0;
        brk_vi <= {VI_WIDTH{1'b0}};
    end else if (!flush) begin
        done_pulse <= 1'b0;
        done_ev <= 1'b0;
        brk_pulse <= 1'b0;

        // ---------------- intake
        if (work_go) begin
            a_v <= 1'b1;
            a_vi <= work_vi;
            a_q <= work_q;
            a_va <= work_va;
            a_h <= work_handle;
        end else if (a_v) begin
            a_v <= 1'b0;
            if (!abort) begin
                b_v <= 1'b1;
                b_vi <= a_vi;
                b_q <= a_q;
                b_va <= a_va;
                b_h <= a_h;
                b_en <= ctx_rd_enable;
                b_state <= ctx_rd_state;
                b_ptag <= ctx_rd_ptag;
                b_mts <= ctx_rd_max_transfer;
                b_rw <= ctx_rd_rdma_write;
                b_rr <= ctx_rd_rdma_read;
                b_rel <= ctx_rd_reliable;
                b_peer <= ctx_rd_peer;
            end
        end
        if (fe_req_go || abort) b_v <= 1'b0;
        if (fe_req_go) iq_wp <= iq_wp + 1'b1;
        if (iq_rd_en) iq_rp <= iq_rp + 1'b1;
        iq_cnt <= iq_cnt + {{PSW{1'b0}}, fe_req_go} - {{PSW{1'b0}}, iq_pop};
        iq_rc <= iq_rc + {{PSW{1'b0}}, fe_req_go} - {{PSW{1'b0}}, iq_rd_en};
        if (iq_rd_en) iqh_v <= 1'b1;
        else if (iq_pop) iqh_v <= 1'b0;

        // ---------------- classify and issue
        if (job_take) begin
            rec_wp <= rec_wp + 1'b1;
            if (!jqh_err && jqh_len != 32'd0) begin
                // the remote range: REMOTE_READ lookups under the target
                // VI's ptag, then to I_SRD, whose one "segment" is done
                is_st <= I_LK;
                is_id <= rw_i;
                is_segc <= 16'd1;
                li_seg <= 8'd0;
                li_va <= jqh_va;
                li_rem <= jqh_len;
                li_h <= jqh_h;
                li_ptag <= jqh_ptag;
            end
        end
        if (cls_go) begin
            rec_wp <= rec_wp + 1'b1;
            if (cls_frame) begin
                is_st <= I_SRD;
                is_id <= rw_i;
                is_slot <= fe_res_slot;
                is_segc <= fe_res_seg_count;
                li_seg <= 8'd0;
                li_ptag <= iqh_ptag;
            end
        end
        case (is_st)
        I_SRD: begin
            if (is_fin) is_st <= I_IDLE;
            else is_st <= I_SGO;
        end
        I_SGO: begin
            if ((li_seg == 8'd0 && r_rw[is_id]) || r_rr[is_id]) begin
                // an RDMA write's or read's address segment (for the
                // output side), a read's local segments (into sram)
                li_seg <= li_seg + 8'd1;
                is_st <= I_SRD;
            end else if (fe_seg_len == 32'd0) begin
                li_seg <= li_seg + 8'd1;
                is_st <= I_SRD;
            end else begin
                li_va <= fe_seg_addr;
                li_rem <= fe_seg_len;
                li_h <= fe_seg_handle;
                is_st <= I_LK;
            end
        end
        I_LK: begin
            if (is_fin) begin
                is_st <= I_IDLE;
            end else if (li_take) begin
                if (li_last) begin
                    li_seg <= li_seg + 8'd1;
                    is_st <= I_SRD;
                end else begin
                    li_va <= li_va + {51'd0, li_pg_left};
                    li_rem <= li_rem - {19'd0, li_pg_left};
                end
            end
        end
        default: ;
        endcase

        // ---------------- d port
        if (d_go) begin
            lq_wp <= lq_wp + 3'd1;
            d_rr <= !d_sel_wb;
        end
        d_lock <= d_lk_valid && !d_lk_ready;
        d_lsel <= d_sel_wb;
        if (d_rs_valid) lq_rp <= lq_rp + 3'd1;
        lq_cnt <= lq_cnt + {3'd0, d_go} - {3'd0, d_rs_valid};
        if (li_take) dlq_wp <= dlq_wp + 3'd1;
        if (rs_data) dlq_rp <= dlq_rp + 3'd1;
        dlq_cnt <= dlq_cnt + {3'd0, li_take} - {3'd0, rs_data};
        wlk_out <= wlk_out + {2'd0, wl_take} - {2'd0, rs_wb};
        if (wl_take || wl_sk) wl_rp <= wl_rp + 1'b1;

        // ---------------- translation queue
        if (rs_push) xq_wp <= xq_wp + 3'd1;
        if (xq_pop) begin
            xq_rp <= xq_rp + 3'd1;
            xq_used <= 13'd0;
        end else if (ar_go) begin
            xq_used <= xq_used + ar_bytes;
        end
        xq_cnt <= xq_cnt + {3'd0, rs_push} - {3'd0, xq_pop};

        // ---------------- AR
        if (ar_go) begin
            arv_r <= 1'b1;
            araddr_r <= {ar_pa[ADDR_WIDTH-1:LB], {LB{1'b0}}};
            arlen_r <= ar_n[7:0] - 8'd1;
            bq_wp <= bq_wp + 5'd1;
        end else if (arv_r && d_axi_arready) begin
            arv_r <= 1'b0;
        end

        // ---------------- R
        if (r_take) begin
            db_wp <= db_wp + 1'b1;
            r_rem <= r_have - r_n;
            r_first <= d_axi_rlast;
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

        // ---------------- output side
        if (ov_r && m_axis_tready) ov_r <= 1'b0;
        case (ph)
        P_IDLE: begin
            if (o_have && !abort) begin
                if (!r_frame[om]) begin
                    out_rp <= out_rp + 1'b1;
                end else if (out_free && o_rv) begin
                    ov_r <= 1'b1;
                    od_r <= hdr0;
                    ok_r <= {BYTES{1'b1}};
                    ol_r <= 1'b0;
                    acc <= {(2*DATA_WIDTH){1'b0}};
                    acc_n <= {(LB+1){1'b0}};
                    pk_in <= 32'd0;
                    ph <= (DATA_WIDTH == 64) ? P_HDR1 : om_ext ? P_EXTW : P_PAY;
                end
            end
        end
        P_HDR1: begin
            if (!abort && out_free) begin
                ov_r <= 1'b1;
                od_r <= hdr1;
                ok_r <= {BYTES{1'b1}};
                ol_r <= 1'b0;
                ph <= om_ext ? P_EXTW : P_PAY;
            end
        end
        P_EXTW: begin
            if (!abort && r_xv[om]) ph <= P_EXT0;
        end
        P_EXT0: begin
            if (!abort && out_free) begin
                ov_r <= 1'b1;
                od_r <= ext0;
                ok_r <= {BYTES{1'b1}};
                ol_r <= 1'b0;
                ph <= (DATA_WIDTH == 64) ? P_EXT1 : P_PAY;
            end
        end
        P_EXT1: begin
            if (!abort && out_free) begin
                ov_r <= 1'b1;
                od_r <= ext1;
                ok_r <= {BYTES{1'b1}};
                ol_r <= 1'b0;
                ph <= P_PAY;
            end
        end
        P_PAY: begin
            if (o_stop) begin
                if (!abort && om_drained) ph <= P_TRL;
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
            if (out_trl) begin
                ov_r <= 1'b1;
                od_r <= {{(DATA_WIDTH-32){1'b0}}, om_est};
                ok_r <= {BYTES{1'b1}};
                ol_r <= 1'b1;
                cnt_frames <= cnt_frames + 32'd1;
                out_rp <= out_rp + 1'b1;
                ph <= P_IDLE;
            end
        end
        default: ;
        endcase
        // a frame being sent under abort is cut (a reset follows)
        if (abort) ov_r <= 1'b0;

        // ---------------- write-back translations
        if (rs_wb || wl_sk) wxq_wp <= wxq_wp + 2'd1;
        if (wa_start || wxq_pop_abort) wxq_rp <= wxq_rp + 2'd1;
        wxq_cnt <= wxq_cnt + {2'd0, rs_wb || wl_sk} - {2'd0, wa_start || wxq_pop_abort};
        wep_cnt0 <= wep_cnt0 + wep_inc0 - wep_dec0;
        wep_cnt1 <= wep_cnt1 + wep_inc1 - wep_dec1;

        // ---------------- Status writes
        wbl_pulse <= 1'b0;
        if (wa_start) begin
            if (wa_ok) begin
                wa_busy <= 1'b1;
                wa_a <= wxq_pa[wxq_rp] + 28;
                wa_word <= ST_DONE | r_st[wa_i] | (r_q[wa_i] ? OP_RECV_FIELD : r_rw[wa_i] ? OP_RDMAW_FIELD :
                    r_rr[wa_i] ? OP_RDMAR_FIELD : OP_SEND_FIELD);
                awv_r <= 1'b1;
                wv_r <= 1'b1;
                bf_wp <= bf_wp + 1'b1;
            end else if (wxq_sk[wxq_rp]) begin
                wa_rp <= wa_rp + 1'b1;
            end else begin
                cnt_wb_lost <= cnt_wb_lost + 32'd1;
                wbl_pulse <= 1'b1;
                wbl_vi <= r_vi[wa_i];
                wa_rp <= wa_rp + 1'b1;
            end
        end
        if (wa_busy) begin
            if (awv_r && w_axi_awready) awv_r <= 1'b0;
            if (wv_r && w_axi_wready) wv_r <= 1'b0;
            if (aw_done) begin
                wa_busy <= 1'b0;
                wa_rp <= wa_rp + 1'b1;
            end
        end
        if (b_now) begin
            bf_rp <= bf_rp + 1'b1;
            if (w_axi_bresp[1]) cnt_wb_lost <= cnt_wb_lost + 32'd1;
        end
        bf_cnt <= bf_cnt + {{MW{1'b0}}, wa_start && wa_ok} - {{MW{1'b0}}, b_now};

        // ---------------- advance and completion
        if (adv_go || ap_sk) ap_rp <= ap_rp + 1'b1;
        if (cp_go) cp_rp <= cp_rp + 1'b1;
        if (cp_go && !r_sk[cp_i]) begin
            brk_pulse <= r_rel[cp_i] && (r_st[cp_i] & ~ST_FLUSHED) != 32'd0;
            brk_vi <= r_vi[cp_i];
            done_pulse <= 1'b1;
            done_vi <= r_vi[cp_i];
            done_q <= r_q[cp_i];
            done_ev <= r_w[cp_i];
            cnt_desc <= cnt_desc + 32'd1;
            if (r_st[cp_i] != 32'd0) cnt_err <= cnt_err + 32'd1;
        end
        if (rdn_go) begin
            // a read via_vi_rx completed (never in the cycle of a ring completion's pulse)
            done_pulse <= 1'b1;
            done_vi <= s_vi[rdn_s];
            done_q <= 1'b0;
            done_ev <= rd_done_ev;
            cnt_desc <= cnt_desc + 32'd1;
            if (rd_done_err) cnt_err <= cnt_err + 32'd1;
        end
    end
end

endmodule

`default_nettype wire
