// via_vi_rx: receive engine of the vianic data path (issue 9; v2,
// pipelined).
//
// Takes frames of the internal format (rtl/via_frame.vh) from an
// AXI-Stream, gives each one a receive of its destination VI (via_vi_queues'
// rxq port; fetched by a via_desc_pipe instance, usually before the frame
// comes), scatters the payload into its data segments through the TPT and
// an AXI4 write master, and hands the frame to a completion stage that
// writes the descriptor back (Length, ImmediateData, then Status) and
// consumes the receive (advance). Frames are taken one after the other;
// the completions of earlier frames overlap with them.
//
// Per frame (front end)
//   1. HEADER (16 bytes): dst, src, length, immediate, flags. A frame that
//      ends (tlast) inside its header: cnt_drop_aborted. The dst's context
//      is read (ctx_rd_*; ctx_rd_vi follows the header register, so on a
//      64-bit bus the read of dst runs during the second header beat): dst
//      >= NUM_VI, disabled, not CONNECTED, or (sender node, src) != its peer:
//      the frame is
//      drained, cnt_drop_bad_vi.
//   2. The receive. The engine keeps up to DEPTH receives of one VI, the
//      "hot" VI (the VI of the last frame), taken ahead (rxq port) and
//      requested from the fetch unit in take order (held receives). A frame
//      for the hot VI uses the oldest held receive. A frame for another VI
//      first gives the held receives back (once every earlier frame is
//      consumed: advance with adv_keep 1, a rewind, which makes every
//      in-flight item of the queue wait again) and makes its VI the hot
//      one. With no held receive, and nothing of the VI in flight (no
//      earlier frame awaiting its completion), the frame takes one on
//      demand: not found: drained, cnt_drop_no_recv.
//   3. Fetch result (in request order; results of given back receives are
//      dropped). BUS: TRANSPORT_ERROR; STATUS: its bit; DESC with length >
//      Length or length > the VI's MaxTransferSize: LOCAL_LENGTH_ERROR.
//      Each of these completes the receive (the message is drained and
//      consumed by it, whatever its trailer says).
//   4. Scatter: a walker looks up the data segments page by page (handle,
//      va, min(remaining segment, remaining message), ptag, LOCAL_WRITE),
//      up to CHUNKS lookups ahead of the writer; the writer realigns the
//      stream bytes to the destination addresses through a 2*BYTES byte
//      accumulator and builds full-width beats (wstrb: exactly the bytes of
//      the chunk) into a W buffer; a burst (<= MAX_BURST beats, inside one
//      page chunk, so never crossing 4 KiB) gets its AW only when its last
//      W beat is in the buffer; W beats go out only for bursts whose AW was
//      accepted. A failed lookup: LOCAL_PROTECTION_ERROR, writing stops at
//      that chunk, the frame is drained, the receive completes.
//   5. Trailer: status != 0 or payload bytes != length: the frame is
//      aborted: a burst in progress is finished with wstrb 0 beats; once
//      its data B have come and every earlier frame is consumed, the
//      receive is given back (rewind: adv_keep 1; the held receives of the
//      VI go with it), cnt_drop_aborted. Else the frame goes to the
//      completion stage (a record) and the next frame starts: its data
//      writes go out while this one's B are awaited.
// Completion stage (records in frame order, up to CDEPTH)
//   6. After every data B of the frame (SLVERR/DECERR: TRANSPORT_ERROR), a
//      lookup (descriptor handle, VA, 32, LOCAL_WRITE); Length (0 on error)
//      and, for a good receive with the immediate flag, ImmediateData; then
//      Status = DONE | error | COMPLETED_RECEIVE << 16 | IMMEDIATE (same
//      AWID, after). Lookup failure: nothing written, cnt_wb_lost (no
//      done_pulse). The write-back of the next record may start while this
//      one's B are awaited.
//   7. In record order, after every B of the record: advance (adv_keep 0,
//      the fetched Next) and, if Status was written, done_pulse, cnt_desc
//      (cnt_err if error).
//
// RDMA read (docs/vi.md, "RDMA read"; the read slots are via_vi_tx's)
//   RREQ  a request (op READ_REQ) for a connected VI becomes a response job
//         for via_vi_tx (job_*; refused, job_err, if the VI does not enable
//         RDMA read; dropped and counted in cnt_rdrop if the FIFO is full);
//         the frame is drained.
//   RRSP  a response (op READ_RESP) whose tag names a slot waiting for dst
//         with the same length (rq_hit) claims it and scatters into the
//         slot's local segments (rs_idx, the walker's segment source) with
//         LOCAL_WRITE lookups; else dropped (cnt_rdrop). Its completion
//         record writes Status = DONE | error | op RDMA_READ (no Length or
//         ImmediateData; an aborted response completes with the trailer's
//         error bits, or TRANSPORT_ERROR), then, once via_vi_tx's ring has
//         passed the read (rd_passed), advances the send queue (adv_q 0) and
//         hands the completion to via_vi_tx (rd_done_*).
//   RCAN  between frames, while a context commit of a VI waits and it has a
//         waiting read (rc_hit), the read completes FLUSHED the same way.
//   A read that completes with an error other than FLUSHED pulses brk_* (the
//   firmware's VI_CTX_BREAK: the reliable connection is broken).
//
// rel_valid/rel_vi (level, from the integrator: a context commit of rel_vi
// waits): no take for rel_vi while rel_valid is 1 (a frame for it that
// needs a take is dropped and counted in cnt_drop_no_recv); if rel_vi is the hot VI,
// once the front end is between frames and every earlier frame is
// consumed, its held receives are given back (rewind) and it stops being
// the hot VI (its context is read again by its next frame).
//
// Decisions (open to review): a fetch, length or protection error
// completes the receive whatever the trailer says; ImmediateData is written
// only on a good completion; a fetch that failed before the control segment
// was read advances with Next 0 / NextHandle 0 (nothing better is known); a
// rewind (switch of the hot VI, aborted frame, rel_valid) waits until the
// completion stage is empty (a rewind also makes the receives of frames
// awaiting their completion wait again, so none may be in flight); a take
// that found nothing stops the prefetch until the next consume of the hot
// VI or the next frame that needs a receive; the W buffer (2 * MAX_BURST
// beats) is in flip-flops; the held receives' (VA, handle) and the
// completion records are via_ram instances.
//
// Fence: inflight_epoch = the fetch unit's bits | bit e held from the
// accepted successful lookup answer of epoch e until the engine is between
// frames with nothing outstanding (no lookup, no write, no write-back
// holding an address; conservative: under back-to-back traffic it may stay
// up until a pause).
// Abort: no new lookups, AW, fetch or take; the stream is drained; the
// completion records are dropped (no advance, no done_pulse); every lookup
// answer, take answer, fetch result (released at once), credited W beat
// and B is taken; busy falls when nothing is in flight; the held receives
// are forgotten (the integrator resets the queues).

`timescale 1ns / 1ps
`default_nettype none

`include "via_param_check.vh"
`include "via_desc.vh"
`include "via_bar0.vh"
`include "via_frame.vh"

module via_vi_rx #(
    parameter DATA_WIDTH = 64,
    parameter ADDR_WIDTH = 48,
    parameter ID_WIDTH   = 4,
    parameter NUM_VI     = 64,
    parameter VI_WIDTH   = (NUM_VI > 1) ? $clog2(NUM_VI) : 1,
    parameter MAX_SEGS   = 16,
    parameter MAX_BURST  = 16,
    parameter [ID_WIDTH-1:0] FETCH_ID = 4,
    parameter [ID_WIDTH-1:0] WR_ID    = 5,
    parameter DEPTH      = 8,      // receives held ahead (the fetch unit's DEPTH), 2..16, power of two
    parameter CDEPTH     = 8,      // completion records, 2..16, power of two
    // derived
    parameter KEEP_WIDTH = DATA_WIDTH / 8
) (
    input  wire                    clk,
    input  wire                    rst,

    // frames in
    input  wire [DATA_WIDTH-1:0]   s_axis_tdata,
    input  wire [KEEP_WIDTH-1:0]   s_axis_tkeep,
    input  wire                    s_axis_tlast,
    input  wire                    s_axis_tvalid,
    output wire                    s_axis_tready,

    // receive take (via_vi_queues)
    output reg                     rxq_valid,
    input  wire                    rxq_ready,
    output wire [VI_WIDTH-1:0]     rxq_vi,
    input  wire                    rxq_rsp_valid,
    output wire                    rxq_rsp_ready,
    input  wire                    rxq_rsp_found,
    input  wire [63:0]             rxq_rsp_va,
    input  wire [31:0]             rxq_rsp_handle,
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire [1:0]              rxq_rsp_state,   // the context's state decides
    /* verilator lint_on UNUSEDSIGNAL */

    // advance (via_vi_queues; adv_q is 1)
    output reg                     adv_valid,
    input  wire                    adv_ready,
    output wire [VI_WIDTH-1:0]     adv_vi,
    output wire                    adv_q,
    output reg  [63:0]             adv_next,
    output reg  [31:0]             adv_next_handle,
    output reg                     adv_keep,

    // context read (one cycle latency)
    output wire [VI_WIDTH-1:0]     ctx_rd_vi,
    input  wire                    ctx_rd_enable,
    input  wire [1:0]              ctx_rd_state,
    input  wire [15:0]             ctx_rd_ptag,
    input  wire [31:0]             ctx_rd_max_transfer,
    input  wire                    ctx_rd_rdma_write,
    input  wire                    ctx_rd_rdma_read,
    input  wire [23:0]             ctx_rd_peer,    // {peer node, peer VI}
    input  wire                    ctx_rd_reliable, // the VI's level is reliable (errors break the connection)

    // the fetch unit's TPT lookup port
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

    // scatter and write-back lookups
    output reg                     d_lk_valid,
    input  wire                    d_lk_ready,
    output reg  [31:0]             d_lk_handle,
    output reg  [63:0]             d_lk_va,
    output reg  [31:0]             d_lk_len,
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

    // the fetch unit's AXI4 read master
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

    // AXI4 write master (data and write-back)
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
    output wire [KEEP_WIDTH-1:0]   w_axi_wstrb,
    output wire                    w_axi_wlast,
    output wire                    w_axi_wvalid,
    input  wire                    w_axi_wready,
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire [ID_WIDTH-1:0]     w_axi_bid,       // one ID
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire [1:0]              w_axi_bresp,
    input  wire                    w_axi_bvalid,
    output wire                    w_axi_bready,

    output wire [1:0]              inflight_epoch,
    /* verilator lint_off SYMRSVDWORD */
    input  wire                    abort,
    /* verilator lint_on SYMRSVDWORD */
    output wire                    busy,
    output reg                     done_pulse,
    output reg  [VI_WIDTH-1:0]     done_vi,     // with done_pulse: the receive's VI (via_cq)
    input  wire                    done_ready,  // 0: hold the next completion (via_cq is full)

    output reg  [31:0]             cnt_desc,
    output reg  [31:0]             cnt_err,
    output reg  [31:0]             cnt_drop_no_recv,
    output reg  [31:0]             cnt_drop_bad_vi,
    output reg  [31:0]             cnt_drop_aborted,
    output reg  [31:0]             cnt_wb_lost,
    output reg                     wbl_pulse,   // a receive's Status write-back refused by its lookup (one cycle, at its advance)
    output reg  [VI_WIDTH-1:0]     wbl_vi,      // ... the receive's VI
    output reg  [31:0]             cnt_rdma,       // RDMA writes placed
    output reg  [31:0]             cnt_rdma_prot,  // RDMA writes refused (protection)
    // a plain RDMA write was refused (pulse): the asynchronous error
    // RDMAW_PROT of the target VI aerr_vi (one with immediate data reports
    // it in its receive's Status instead)
    output reg                     aerr_valid,
    output reg  [VI_WIDTH-1:0]     aerr_vi,

    // a context commit of rel_vi waits (level): give back its held receives
    input  wire                    rel_valid,
    input  wire [VI_WIDTH-1:0]     rel_vi,

    // RDMA read (via_vi_tx): requests become response jobs; responses are
    // placed into the waiting read's local segments (read slots)
    output wire                    job_valid,
    input  wire                    job_ready,
    output wire [VI_WIDTH-1:0]     job_vi,
    output wire [23:0]             job_peer,
    output wire [15:0]             job_ptag,
    output wire [63:0]             job_va,
    output wire [31:0]             job_handle,
    output wire [31:0]             job_len,
    output wire [31:0]             job_tag,
    output wire                    job_err,
    output wire [31:0]             rq_tag,
    output wire [VI_WIDTH-1:0]     rq_vi,
    input  wire                    rq_hit,
    input  wire [63:0]             rq_dva,
    input  wire [31:0]             rq_dh,
    input  wire [15:0]             rq_ptag,
    input  wire [31:0]             rq_len,
    input  wire [63:0]             rq_next,
    input  wire [31:0]             rq_next_handle,
    output wire                    rq_claim,
    output wire [VI_WIDTH-1:0]     rc_vi,
    input  wire                    rc_hit,
    input  wire [31:0]             rc_tag,
    input  wire [3:0]              rd_passed,
    output wire [9:0]              rs_idx,
    input  wire [63:0]             rs_addr,
    input  wire [31:0]             rs_handle,
    input  wire [31:0]             rs_len,
    output reg                     rd_done_valid,
    input  wire                    rd_done_ready,
    output reg  [31:0]             rd_done_tag,
    output reg                     rd_done_ev,
    output reg                     rd_done_err,
    output reg  [31:0]             cnt_rreq,       // RDMA read requests answered (jobs handed over)
    output reg  [31:0]             cnt_rresp,      // RDMA read responses placed (or cut short)
    output reg  [31:0]             cnt_rdrop,      // read requests or responses dropped (no job room, no waiting read)
    // an RDMA read completed with an error other than FLUSHED (pulse): its
    // reliable connection is broken (the firmware moves the VI to ERROR)
    output reg                     brk_pulse,
    output reg  [VI_WIDTH-1:0]     brk_vi,
    // ... and (a second source, the front end) a message of a reliable VI
    // dropped for want of a receive, or a plain RDMA write into it refused
    output reg                     brk2_pulse,
    output reg  [VI_WIDTH-1:0]     brk2_vi
);

localparam BYTES = DATA_WIDTH / 8;
localparam LB    = $clog2(BYTES);          // lane index bits
localparam CB    = LB + 2;                 // byte counts 0 .. 2*BYTES
localparam HDR_BEATS = (BYTES >= 16) ? 1 : 2;
localparam WDEPTH = 2 * MAX_BURST;         // W buffer beats
localparam WAW    = $clog2(WDEPTH);
localparam CHUNKS = 4;                     // lookups ahead of the writer
localparam AWDEPTH = 8;
localparam BQ     = 32;                    // AWs awaiting their B (tags)
localparam SW     = $clog2(DEPTH);         // fetch unit slot / held receive index
localparam RW     = $clog2(CDEPTH);        // record index

generate
    if (DATA_WIDTH != 64 && DATA_WIDTH != 128 && DATA_WIDTH != 256 && DATA_WIDTH != 512) begin : g_bad_dw
        `VIA_PARAM_FAIL(("via_vi_rx: DATA_WIDTH=%0d, must be 64, 128, 256 or 512", DATA_WIDTH))
    end
    if (MAX_BURST < 2 || MAX_BURST > 256 || (MAX_BURST & (MAX_BURST - 1)) != 0) begin : g_bad_burst
        `VIA_PARAM_FAIL(("via_vi_rx: MAX_BURST=%0d, must be a power of two 2..256", MAX_BURST))
    end
    if (NUM_VI < 1 || NUM_VI > 1024) begin : g_bad_num_vi
        `VIA_PARAM_FAIL(("via_vi_rx: NUM_VI=%0d, must be 1..1024", NUM_VI))
    end
    if (VI_WIDTH < 1 || VI_WIDTH > 16 || (1 << VI_WIDTH) < NUM_VI) begin : g_bad_vi_width
        `VIA_PARAM_FAIL(("via_vi_rx: VI_WIDTH=%0d cannot index NUM_VI=%0d VIs", VI_WIDTH, NUM_VI))
    end
    if (MAX_SEGS < 1 || MAX_SEGS > 124) begin : g_bad_max_segs
        `VIA_PARAM_FAIL(("via_vi_rx: MAX_SEGS=%0d, must be 1..124", MAX_SEGS))
    end
    if (DEPTH < 2 || DEPTH > 16 || (DEPTH & (DEPTH - 1)) != 0) begin : g_bad_depth
        `VIA_PARAM_FAIL(("via_vi_rx: DEPTH=%0d, must be a power of two 2..16", DEPTH))
    end
    if (CDEPTH < 2 || CDEPTH > 16 || (CDEPTH & (CDEPTH - 1)) != 0) begin : g_bad_cdepth
        `VIA_PARAM_FAIL(("via_vi_rx: CDEPTH=%0d, must be a power of two 2..16", CDEPTH))
    end
endgenerate

localparam [31:0] ST_DONE  = 32'h1;
localparam [31:0] ST_PROT  = 32'h1 << `VIA_DESC_CTL_STATUS_LOCAL_PROTECTION_ERROR_LSB;
localparam [31:0] ST_LEN   = 32'h1 << `VIA_DESC_CTL_STATUS_LOCAL_LENGTH_ERROR_LSB;
localparam [31:0] ST_TRANS = 32'h1 << `VIA_DESC_CTL_STATUS_TRANSPORT_ERROR_LSB;
localparam [31:0] ST_RECV  = `VIA_DESC_COMPLETED_RECEIVE << `VIA_DESC_CTL_STATUS_OP_LSB;
localparam [31:0] ST_IMM   = 32'h1 << `VIA_DESC_CTL_STATUS_IMMEDIATE_LSB;
localparam [31:0] ST_RPROT = 32'h1 << `VIA_DESC_CTL_STATUS_RDMA_PROTECTION_ERROR_LSB;
localparam [31:0] ST_RRW   = `VIA_DESC_COMPLETED_REMOTE_RDMA_WRITE << `VIA_DESC_CTL_STATUS_OP_LSB;
localparam [31:0] ST_RDR   = `VIA_DESC_COMPLETED_RDMA_READ << `VIA_DESC_CTL_STATUS_OP_LSB;
localparam [31:0] ST_FLUSH = 32'h1 << `VIA_DESC_CTL_STATUS_FLUSHED_LSB;
localparam [31:0] ST_ERRM  = `VIA_DESC_STATUS_ERROR_MASK;
localparam [31:0] KIND_LW32 = `VIA_TPT_KIND_LOCAL_WRITE;
localparam [1:0]  KIND_LW  = KIND_LW32[1:0];
localparam [31:0] KIND_RW32 = `VIA_TPT_KIND_REMOTE_WRITE;
localparam [1:0]  KIND_RW  = KIND_RW32[1:0];

// ---------------------------------------------------------------- states
// front end; values from desc.layout's enum RX_STATE where the meaning is
// kept (the waveform filters show its names); S_RECV (4) and S_SWITCH (6)
// are new; S_ABW uses WB_B's value (waits for the data B of an aborted
// frame); S_ADV is the rewind's advance
localparam [31:0] S_HDR_32 = `VIA_DESC_RX_STATE_HDR;
localparam [31:0] S_CTX1_32 = `VIA_DESC_RX_STATE_CTX1;
localparam [31:0] S_CTX2_32 = `VIA_DESC_RX_STATE_CTX2;
localparam [31:0] S_TAKE_32 = `VIA_DESC_RX_STATE_TAKE;
localparam [31:0] S_FETCH_32 = `VIA_DESC_RX_STATE_FETCH;
localparam [31:0] S_SCATTER_32 = `VIA_DESC_RX_STATE_SCATTER;
localparam [31:0] S_DROP_32 = `VIA_DESC_RX_STATE_DROP;
localparam [31:0] S_EDRAIN_32 = `VIA_DESC_RX_STATE_EDRAIN;
localparam [31:0] S_ABW_32 = `VIA_DESC_RX_STATE_WB_B;
localparam [31:0] S_ADV_32 = `VIA_DESC_RX_STATE_ADV;
localparam [31:0] S_ABORT_32 = `VIA_DESC_RX_STATE_ABORT;
localparam [31:0] S_EXT_32 = `VIA_DESC_RX_STATE_EXT;
localparam [31:0] S_RDMA_32 = `VIA_DESC_RX_STATE_RDMA;
localparam [4:0] S_EXT = S_EXT_32[4:0];
localparam [4:0] S_RDMA = S_RDMA_32[4:0];
localparam [4:0] S_HDR = S_HDR_32[4:0];
localparam [4:0] S_CTX1 = S_CTX1_32[4:0];
localparam [4:0] S_CTX2 = S_CTX2_32[4:0];
localparam [4:0] S_TAKE = S_TAKE_32[4:0];
localparam [31:0] S_RECV_32 = `VIA_DESC_RX_STATE_RECV;
localparam [4:0] S_RECV = S_RECV_32[4:0];
localparam [4:0] S_FETCH = S_FETCH_32[4:0];
localparam [31:0] S_SWITCH_32 = `VIA_DESC_RX_STATE_SWITCH;
localparam [4:0] S_SWITCH = S_SWITCH_32[4:0];
localparam [4:0] S_SCATTER = S_SCATTER_32[4:0];
localparam [4:0] S_DROP = S_DROP_32[4:0];
localparam [4:0] S_EDRAIN = S_EDRAIN_32[4:0];
localparam [4:0] S_ABW = S_ABW_32[4:0];
localparam [4:0] S_ADV = S_ADV_32[4:0];
localparam [4:0] S_ABORT = S_ABORT_32[4:0];
localparam [31:0] S_RREQ_32 = `VIA_DESC_RX_STATE_RREQ, S_RRSP_32 = `VIA_DESC_RX_STATE_RRSP;
localparam [31:0] S_RCAN_32 = `VIA_DESC_RX_STATE_RCAN, S_RCAN2_32 = `VIA_DESC_RX_STATE_RCAN2;
localparam [4:0] S_RREQ = S_RREQ_32[4:0], S_RRSP = S_RRSP_32[4:0];
localparam [4:0] S_RCAN = S_RCAN_32[4:0], S_RCAN2 = S_RCAN2_32[4:0];

// completion stage: write-back (A) and consume (B)
// (desc.layout enum RX_WB)
localparam [31:0] CA_IDLE_32 = `VIA_DESC_RX_WB_IDLE, CA_RD_32 = `VIA_DESC_RX_WB_READ;
localparam [31:0] CA_LK_32 = `VIA_DESC_RX_WB_LOOKUP, CA_LKW_32 = `VIA_DESC_RX_WB_LOOKUP_WAIT;
localparam [31:0] CA_W1_32 = `VIA_DESC_RX_WB_WRITE_LEN, CA_W2_32 = `VIA_DESC_RX_WB_WRITE_STATUS;
localparam [2:0] CA_IDLE = CA_IDLE_32[2:0], CA_RD = CA_RD_32[2:0], CA_LK = CA_LK_32[2:0];
localparam [2:0] CA_LKW = CA_LKW_32[2:0], CA_W1 = CA_W1_32[2:0], CA_W2 = CA_W2_32[2:0];
localparam [1:0] CB_IDLE = 2'd0, CB_RD = 2'd1, CB_ADV = 2'd2, CB_RDN = 2'd3;

reg [4:0] state;
reg [2:0] ca_st;
reg [1:0] cb_st;

// header
reg [127:0] hdr;
reg [1:0]   hdr_cnt;
wire [15:0] h_dst = hdr[`VIA_FRAME_HDR_DST_VI_RANGE];
wire [15:0] h_src = hdr[`VIA_FRAME_HDR_SRC_VI_RANGE];
wire [7:0]  h_node = hdr[`VIA_FRAME_HDR_PEER_NODE_RANGE];  // the sender's node
wire [31:0] h_len = hdr[`VIA_FRAME_HDR_LENGTH_RANGE];
wire [31:0] h_imm = hdr[`VIA_FRAME_HDR_IMM_RANGE];
wire [7:0]  h_flags = hdr[`VIA_FRAME_HDR_FLAGS_RANGE];
wire        h_has_imm = h_flags[`VIA_FRAME_FLAG_IMM_BIT];
wire        h_rdma = hdr[`VIA_FRAME_HDR_OP_RANGE] == `VIA_FRAME_OP_RDMA_WRITE;
wire        h_rreq = hdr[`VIA_FRAME_HDR_OP_RANGE] == `VIA_FRAME_OP_READ_REQ;
wire        h_rresp = hdr[`VIA_FRAME_HDR_OP_RANGE] == `VIA_FRAME_OP_READ_RESP;
// an RDMA write's extension: the target address and handle
reg  [127:0] ext;
wire [63:0]  x_va = ext[`VIA_FRAME_EXT_VA_RANGE];
wire [31:0]  x_handle = ext[`VIA_FRAME_EXT_HANDLE_RANGE];
wire [31:0]  x_tag = ext[`VIA_FRAME_EXT_TAG_RANGE];
// RDMA read: the response's (or the cancelled read's) slot, the cancel's tag
reg  [1:0]   rd_slot;
reg  [31:0]  rcan_tag;
reg  [VI_WIDTH-1:0] rcan_vi;   // ... and its VI
reg  [31:0]  x_err;          // RDMA write with immediate data: the VI refuses it
wire [VI_WIDTH-1:0] dst = h_dst[VI_WIDTH-1:0];
wire [DATA_WIDTH+127:0] tdata_x = {128'd0, s_axis_tdata};
// pad and the other flags are not checked; an op other than RDMA write is
// a send; tdata_x above 127 unused
/* verilator lint_off UNUSEDSIGNAL */
wire [DATA_WIDTH+127:0] unused_x = tdata_x ^ {{(DATA_WIDTH){1'b0}}, hdr} ^ {{(DATA_WIDTH+120){1'b0}}, h_flags} ^
                                   {{(DATA_WIDTH){1'b0}}, ext};
wire [511:0] unused_img;
wire [63:0]  unused_imgs;
/* verilator lint_on UNUSEDSIGNAL */

// frame side (stream)
reg         frame_done;      // the trailer was taken
reg  [31:0] trl_status;
reg  [31:0] rcvd;            // payload bytes seen
reg  [31:0] taken;           // message bytes put into the accumulator

// per frame
reg  [15:0] ptag;
reg  [31:0] max_transfer;
reg         rdma_we, rdma_re;
reg         rel_lvl;         // the VI's level is reliable
/* verilator lint_off UNUSEDSIGNAL */
reg  [63:0] d_va;            // bits 5:0 unused (64-byte aligned)
/* verilator lint_on UNUSEDSIGNAL */
reg  [31:0] d_handle;
reg  [63:0] nx_va;
reg  [31:0] nx_handle;
reg  [31:0] st_err;          // error bit of the completion

// the hot VI: its context as its last frame read it
reg                hot_valid;
reg  [VI_WIDTH-1:0] hot_vi;
reg  [15:0]        hot_ptag;
reg  [31:0]        hot_max;
reg                hot_we, hot_re;
reg                hot_empty;   // a prefetch take found nothing

// takes
reg  [VI_WIDTH-1:0] rxq_vi_r;
reg                take_out;    // a take accepted, answer not yet taken
reg                take_od;     // the outstanding take is a frame's (on demand)
reg                tk_valid;    // a taken receive waits for its fetch request
reg  [63:0]        tk_va;
reg  [31:0]        tk_handle;
// held receives (ring, via_ram): written at the take, read at the frame
reg  [SW-1:0]      h_wr, h_rd;
reg  [SW:0]        h_cnt;
reg  [SW:0]        p_disc;      // fetch results to drop (given back receives)
wire [95:0]        h_rdata;

// advance port (rewinds from the front end, consumes from stage B)
reg  [VI_WIDTH-1:0] adv_vi_r;

assign ctx_rd_vi = dst;
assign rxq_vi    = rxq_vi_r;
assign adv_vi    = adv_vi_r;
// a consume of an RDMA read's record advances the send queue
assign adv_q     = !(cb_st == CB_ADV && r_rd[cb]);
reg  [1:0]         d_lk_kind_r;
assign d_lk_kind = d_lk_kind_r;
reg  [15:0]        d_lk_ptag_r;
assign d_lk_ptag = d_lk_ptag_r;
reg                adv_ret;     // after the rewind's advance: the frame's receive (1) or the next header

// ---------------------------------------------------------------- fetch unit
wire        p_req_valid = tk_valid && !abort;
wire        p_req_ready;
wire        p_res_valid;
reg         p_res_ready;
reg         p_rel;
wire [1:0]  p_res_kind;
wire [31:0] p_res_status;
/* verilator lint_off UNUSEDSIGNAL */
wire [3:0]  p_res_check;
wire [2:0]  p_res_tpt_err;
wire [1:0]  p_res_bus_resp;
wire        p_res_ctl_valid;
wire [15:0] p_res_seg_count;
wire [15:0] p_res_control;
wire [31:0] p_res_immediate;
wire [0:0]  p_res_tag;
/* verilator lint_on UNUSEDSIGNAL */
wire [SW-1:0] p_res_slot;
wire [63:0] p_res_next;
wire [31:0] p_res_next_handle;
wire [31:0] p_res_length;
wire [63:0] f_seg_addr;
reg  [7:0]  f_seg_idx;
reg  [SW-1:0] cur_slot;
reg         seg_hold;      // the frame holds a fetch slot (its segments)
wire [31:0] f_seg_handle;
wire [31:0] f_seg_len;
wire [1:0]  f_inflight_epoch;
wire        p_busy;

via_desc_pipe #(
    .MAX_SEGS(MAX_SEGS), .DATA_WIDTH(DATA_WIDTH), .ADDR_WIDTH(ADDR_WIDTH),
    .ID_WIDTH(ID_WIDTH), .ARID(FETCH_ID), .DEPTH(DEPTH), .TAG_WIDTH(1)
) u_fetch (
    .clk(clk), .rst(rst),
    .req_valid(p_req_valid), .req_ready(p_req_ready), .req_va(tk_va), .req_handle(tk_handle),
    .req_ptag(hot_ptag), .req_recv(1'b1), .req_max_transfer(hot_max),
    .req_rdma_write_en(hot_we), .req_rdma_read_en(hot_re), .req_tag(1'b0),
    .res_valid(p_res_valid), .res_ready(p_res_ready), .res_kind(p_res_kind),
    .res_status(p_res_status), .res_check(p_res_check), .res_tpt_err(p_res_tpt_err),
    .res_bus_resp(p_res_bus_resp), .res_ctl_valid(p_res_ctl_valid), .res_next(p_res_next),
    .res_next_handle(p_res_next_handle), .res_seg_count(p_res_seg_count),
    .res_control(p_res_control), .res_immediate(p_res_immediate), .res_length(p_res_length),
    .res_tag(p_res_tag), .res_slot(p_res_slot),
    .seg_rd_en(1'b1), .seg_rd_slot(cur_slot), .seg_rd_idx(f_seg_idx),
    .seg_addr(f_seg_addr), .seg_handle(f_seg_handle), .seg_len(f_seg_len),
    .rel_valid(p_rel),
    .lk_valid(f_lk_valid), .lk_ready(f_lk_ready), .lk_handle(f_lk_handle), .lk_va(f_lk_va),
    .lk_len(f_lk_len), .lk_ptag(f_lk_ptag), .lk_kind(f_lk_kind),
    .rs_valid(f_rs_valid), .rs_ready(f_rs_ready), .rs_err(f_rs_err), .rs_pa(f_rs_pa),
    .rs_bytes(f_rs_bytes), .rs_hit(f_rs_hit), .rs_epoch(f_rs_epoch),
    .inflight_epoch(f_inflight_epoch),
    .m_axi_arid(f_axi_arid), .m_axi_araddr(f_axi_araddr), .m_axi_arlen(f_axi_arlen),
    .m_axi_arsize(f_axi_arsize), .m_axi_arburst(f_axi_arburst), .m_axi_arlock(f_axi_arlock),
    .m_axi_arcache(f_axi_arcache), .m_axi_arprot(f_axi_arprot), .m_axi_arvalid(f_axi_arvalid),
    .m_axi_arready(f_axi_arready), .m_axi_rid(f_axi_rid), .m_axi_rdata(f_axi_rdata),
    .m_axi_rresp(f_axi_rresp), .m_axi_rlast(f_axi_rlast), .m_axi_rvalid(f_axi_rvalid),
    .m_axi_rready(f_axi_rready),
    .abort(abort), .busy(p_busy)
);

localparam [31:0] RES_DESC32 = `VIA_DESC_FETCH_RESULT_DESC;
localparam [1:0] RES_DESC = RES_DESC32[1:0];

// held receives' (VA, handle)
wire h_we = rxq_rsp_valid && take_out && rxq_rsp_found && state != S_ABORT && !abort;
via_ram #(.WIDTH(96), .WORDS(DEPTH)) u_held (
    .clk(clk),
    .wr_en(h_we), .wr_addr(h_wr), .wr_data({rxq_rsp_va, rxq_rsp_handle}),
    .rd_en(1'b1), .rd_addr(h_rd), .rd_data(h_rdata)
);

// ---------------------------------------------------------------- walker
// looks up the data segments page by page; one entry per lookup answer in
// the chunk queue
reg         walk_on;         // lookups to issue
reg         walk_seg_w;      // segment f_seg_idx is being read
reg         walk_seg_ld;     // load segment f_seg_idx (read data valid)
reg  [63:0] wk_va;
reg  [31:0] wk_handle;
reg  [31:0] wk_seg_rem;      // bytes of the segment still to look up (capped by the message)
reg  [31:0] wk_msg_rem;      // message bytes not yet looked up
reg  [3:0]  lk_out;          // lookups accepted, answer not taken
reg  [3:0]  sc_out;          // scatter lookups issued (pending or accepted), answer not taken
reg         d_lk_is_wb;      // the pending lookup is a write-back's
reg         lt_q [0:7];      // accepted lookups: write-back (1) or scatter (0)
reg  [2:0]  lt_rd, lt_wr;
reg  [1:0]  epoch_hold;

// chunk queue
reg  [ADDR_WIDTH-1:0] cq_pa  [0:CHUNKS-1];
reg  [12:0]           cq_n   [0:CHUNKS-1];
reg                   cq_err [0:CHUNKS-1];
reg  [1:0]  cq_rd, cq_wr;
reg  [2:0]  cq_cnt;

// the segments scattered into: the receive's (fetch slot), or an RDMA read
// response's (the read's local data segments, via_vi_tx's read slots)
wire [63:0] sg_addr = h_rresp ? rs_addr : f_seg_addr;
wire [31:0] sg_handle = h_rresp ? rs_handle : f_seg_handle;
wire [31:0] sg_len = h_rresp ? rs_len : f_seg_len;
assign rs_idx = {rd_slot, f_seg_idx};
wire [12:0] wk_page_left = 13'd4096 - {1'b0, wk_va[11:0]};
wire [31:0] wk_piece = (wk_seg_rem < {19'd0, wk_page_left}) ? wk_seg_rem : {19'd0, wk_page_left};
wire        lk_room = ({2'b0, cq_cnt} + {1'b0, lk_out} + {4'd0, d_lk_valid}) < 5'd6;
wire        wk_can0 = walk_on && !walk_seg_ld && !walk_seg_w && wk_seg_rem != 0 && !abort &&
                      state == S_SCATTER &&
                      ({2'b0, cq_cnt} + {1'b0, sc_out}) < CHUNKS && lk_room;
wire        wb_lk_go = (ca_st == CA_LK) && !abort && lk_room && (!d_lk_valid || d_lk_ready);
wire        wk_can = wk_can0 && !wb_lk_go;

// ---------------------------------------------------------------- writer
reg  [2*DATA_WIDTH-1:0] acc;
reg  [CB-1:0]           acc_n;
reg                     wr_act;     // a chunk is loaded
reg  [ADDR_WIDTH-1:0]   wr_pa;
reg  [12:0]             wr_rem;
reg                     wr_stop;    // protection error: nothing more written
reg                     wr_flush;   // the frame ended short: finish the burst
reg  [ADDR_WIDTH-1:0]   bu_addr;
reg  [7:0]              bu_cnt;     // beats of the burst so far
reg  [31:0]             wr_done_b;  // message bytes written (chunk bytes consumed)

// W buffer
reg  [DATA_WIDTH-1:0] wb_data [0:WDEPTH-1];
reg  [KEEP_WIDTH-1:0] wb_strb [0:WDEPTH-1];
reg                   wb_last [0:WDEPTH-1];
reg  [WAW-1:0] wq_rd, wq_wr;
reg  [WAW:0]   wq_cnt;
// AW queue (bursts whose W beats are all buffered); tag: write-back burst,
// record
reg  [ADDR_WIDTH-1:0] aq_addr [0:AWDEPTH-1];
reg  [7:0]            aq_len  [0:AWDEPTH-1];
reg  [RW:0]           aq_tag  [0:AWDEPTH-1];
reg  [2:0]  aq_rd, aq_wr;
reg  [3:0]  aq_cnt;
reg  [7:0]  w_credit;      // AWs accepted whose W beats are not all sent
reg  [8:0]  b_out;         // AWs accepted, B not received
reg  [RW:0] bq_tag [0:BQ-1];
reg  [4:0]  bq_rd, bq_wr;

// the write-back in progress holds the W buffer between its two beats
reg         wb_beat;       // second beat of write 1 (64-bit bus)
wire        wb_mid = (ca_st == CA_W1) && wb_beat;

// writer combinational: the beat it can build this cycle
wire [LB-1:0] wr_lo = wr_pa[LB-1:0];
wire [CB-1:0] wr_room = BYTES[CB-1:0] - {2'b0, wr_lo};
wire [CB-1:0] wr_m = (wr_rem < {{(13-CB){1'b0}}, wr_room}) ? wr_rem[CB-1:0] : wr_room;
wire          wq_space = (wq_cnt < WDEPTH[WAW:0]) && (aq_cnt < AWDEPTH[3:0]);
wire          wr_can_beat = (state == S_SCATTER) && wr_act && !wr_stop && wq_space && !wb_mid &&
                            (wr_flush ? (bu_cnt != 8'd0) : (acc_n >= wr_m));
// a burst ends at the chunk's end, at MAX_BURST beats, or (a frame cut
// short) with the one wstrb-0 beat that closes it
wire          wr_last_in_burst = wr_flush || (wr_rem == {{(13-CB){1'b0}}, wr_m}) ||
                                 (bu_cnt == MAX_BURST[7:0] - 8'd1);
wire [CB-1:0] wr_consume = (wr_can_beat && !wr_flush) ? wr_m : {CB{1'b0}};

// accumulator intake
wire [CB-1:0] acc_after = acc_n - wr_consume;
wire          acc_room  = acc_after <= BYTES[CB-1:0];
wire          discard   = wr_stop || abort;
reg  [CB-1:0] kb;          // bytes of the beat (tkeep)
integer       ki;
always @* begin
    kb = {CB{1'b0}};
    for (ki = 0; ki < BYTES; ki = ki + 1)
        if (s_axis_tkeep[ki]) kb = kb + 1'b1;
end
wire [31:0] msg_left = h_len - taken;
wire [CB-1:0] take_n = (msg_left < {{(32-CB){1'b0}}, kb}) ? msg_left[CB-1:0] : kb;
localparam [31:0] TWO_BYTES32 = 2 * BYTES;
localparam [CB-1:0] TWO_BYTES = TWO_BYTES32[CB-1:0];

// stream ready
reg s_ready;
always @* begin
    case (state)
        S_HDR, S_EXT: s_ready = 1'b1;
        S_DROP, S_EDRAIN, S_ABORT: s_ready = !frame_done;
        S_SCATTER: s_ready = !frame_done && (discard || s_axis_tlast || take_n == 0 || acc_room);
        default:   s_ready = 1'b0;
    endcase
end
assign s_axis_tready = s_ready;
wire s_fire = s_axis_tvalid && s_ready;

// next accumulator
reg [2*DATA_WIDTH-1:0] acc_nx;
reg [2*DATA_WIDTH-1:0] in_mask;
always @* begin
    acc_nx = acc >> ({wr_consume, 3'b000});
    if (s_fire && state == S_SCATTER && !s_axis_tlast && !discard && take_n != 0) begin
        in_mask = ({2*DATA_WIDTH{1'b1}} >> ({TWO_BYTES - take_n, 3'b000}));
        acc_nx = acc_nx | (({{DATA_WIDTH{1'b0}}, s_axis_tdata} & in_mask) << ({acc_after, 3'b000}));
    end else begin
        in_mask = {2*DATA_WIDTH{1'b0}};
    end
end

// the beat
wire [DATA_WIDTH-1:0] wr_beat_data = acc[DATA_WIDTH-1:0] << ({wr_lo, 3'b000});
wire [KEEP_WIDTH-1:0] wr_beat_strb = wr_flush ? {KEEP_WIDTH{1'b0}} :
    ((({KEEP_WIDTH{1'b1}}) >> (BYTES[CB-1:0] - wr_m)) << wr_lo);

// ---------------------------------------------------------------- completion records
// written once when the frame leaves the front end; A: what the write-back
// needs (read at ca), B: what the advance needs (read at cb)
localparam RA_W = 58 + 32 + 16 + 32 + 32 + 1 + 1 + 32;
localparam RB_W = VI_WIDTH + 64 + 32;
reg  [RW-1:0] rec_wr, ca, cb;
reg  [RW:0]   rec_cnt;          // records pushed, not yet freed
wire          rec_push;
reg           r_full [0:CDEPTH-1];   // pushed
reg           r_wbd  [0:CDEPTH-1];   // write-back pushed (or lost)
reg           r_lost [0:CDEPTH-1];
reg           r_err  [0:CDEPTH-1];
reg           r_berr [0:CDEPTH-1];   // a data B with an error
reg  [7:0]    r_dout [0:CDEPTH-1];   // bursts queued or sent, B not received
reg           r_rd   [0:CDEPTH-1];   // an RDMA read's completion (its response or its cancel)
reg  [1:0]    r_rsl  [0:CDEPTH-1];   // ... its read slot
reg           r_brk  [0:CDEPTH-1];   // ... completed with an error that breaks the connection
reg           r_rel  [0:CDEPTH-1];   // the record's VI is reliable (any error but FLUSHED breaks)
wire [RA_W-1:0] ra_d;
wire [RB_W-1:0] rb_d;
via_ram #(.WIDTH(RA_W), .WORDS(CDEPTH)) u_rec_a (
    .clk(clk),
    .wr_en(rec_push), .wr_addr(rec_wr),
    .wr_data({d_va[63:6], d_handle, ptag, h_len, h_imm, h_rdma, h_has_imm, rec_st}),
    .rd_en(1'b1), .rd_addr(ca), .rd_data(ra_d)
);
via_ram #(.WIDTH(RB_W), .WORDS(CDEPTH)) u_rec_b (
    .clk(clk),
    .wr_en(rec_push), .wr_addr(rec_wr), .wr_data({(state == S_RCAN2) ? rcan_vi : dst, nx_va, nx_handle}),
    .rd_en(1'b1), .rd_addr(cb), .rd_data(rb_d)
);
wire [57:0] ra_va     = ra_d[RA_W-1 -: 58];
wire [31:0] ra_handle = ra_d[RA_W-59 -: 32];
wire [15:0] ra_ptag   = ra_d[RA_W-91 -: 16];
wire [31:0] ra_len    = ra_d[RA_W-107 -: 32];
wire [31:0] ra_imm    = ra_d[RA_W-139 -: 32];
wire        ra_has_imm = ra_d[32];
wire        ra_rdma   = ra_d[33];
wire [31:0] ra_st     = ra_d[31:0];
wire [VI_WIDTH-1:0] rb_vi = rb_d[RB_W-1 -: VI_WIDTH];
wire [63:0] rb_next   = rb_d[95:32];
wire [31:0] rb_next_handle = rb_d[31:0];
reg  [31:0] ca_err;              // the record's error bit (a data B error included)

// write-back beats: the control segment's bytes 16..31 image
wire [31:0] wb_len = (ca_err == 32'd0) ? ra_len : 32'd0;
wire        wb_imm = (ca_err == 32'd0) && ra_has_imm && !r_rd[ca];
// (an RDMA read's Status: OP RDMA_READ; its Length is the descriptor's own)
wire [31:0] wb_status = ST_DONE | ca_err | (r_rd[ca] ? ST_RDR : ra_rdma ? ST_RRW : ST_RECV) | (wb_imm ? ST_IMM : 32'd0);
wire [255:0] img1 = {32'd0, wb_len, ra_imm, 32'd0, 128'd0};
wire [31:0]  img1_s = {4'h0, 4'hF, wb_imm ? 4'hF : 4'h0, 4'h0, 16'h0};
wire [255:0] img2 = {wb_status, 224'd0};
wire [31:0]  img2_s = {4'hF, 28'h0};
localparam WB_BASE = (BYTES < 32) ? 16 : 0;
localparam [7:0] WB1_LEN = (BYTES == 8) ? 8'd1 : 8'd0;
reg  [ADDR_WIDTH-1:0] wb_pa;
wire [511:0] img1_w = {256'd0, img1} >> ((WB_BASE + (wb_beat ? BYTES : 0)) * 8);
wire [63:0]  img1_sw = {32'd0, img1_s} >> (WB_BASE + (wb_beat ? BYTES : 0));
wire [511:0] img2_w = {256'd0, img2} >> ((BYTES == 8 ? 24 : WB_BASE) * 8);
wire [63:0]  img2_sw = {32'd0, img2_s} >> (BYTES == 8 ? 24 : WB_BASE);
assign unused_img  = img1_w ^ img2_w;
assign unused_imgs = img1_sw ^ img2_sw;

// AXI write outputs
assign w_axi_awid    = WR_ID;
assign w_axi_awaddr  = aq_addr[aq_rd];
assign w_axi_awlen   = aq_len[aq_rd];
assign w_axi_awsize  = LB[2:0];
assign w_axi_awburst = 2'b01;
assign w_axi_awlock  = 1'b0;
assign w_axi_awcache = 4'b0011;
assign w_axi_awprot  = 3'b010;   // as via_desc_fetch and via_dma_diag: unprivileged, non-secure, data
// an AW once presented stays until taken, abort or not (AXI4)
reg  aw_pres;
assign w_axi_awvalid = (aq_cnt != 0) && (!abort || aw_pres) && (b_out < BQ);
assign w_axi_wdata   = wb_data[wq_rd];
assign w_axi_wstrb   = wb_strb[wq_rd];
assign w_axi_wlast   = wb_last[wq_rd];
assign w_axi_wvalid  = (wq_cnt != 0) && (w_credit != 0);
assign w_axi_bready  = 1'b1;
wire aw_fire = w_axi_awvalid && w_axi_awready;
wire w_fire  = w_axi_wvalid && w_axi_wready;
wire b_fire  = w_axi_bvalid;
wire [RW:0] b_tag = bq_tag[bq_rd];

assign d_rs_ready = 1'b1;
wire d_rs_fire = d_rs_valid;
wire d_rs_wb   = lt_q[lt_rd];
wire d_rs_ok   = d_rs_fire && d_rs_err == 3'd0;
assign inflight_epoch = f_inflight_epoch | epoch_hold |
                        (d_rs_ok ? (d_rs_epoch ? 2'b10 : 2'b01) : 2'b00);

assign rxq_rsp_ready = 1'b1;

// RDMA read request: a job for the send engine (taken in S_RREQ's one
// cycle, or dropped when the job FIFO is full)
assign job_valid  = state == S_RREQ && !abort;
assign job_vi     = dst;
assign job_peer   = {h_node, h_src};
assign job_ptag   = ptag;
assign job_va     = x_va;
assign job_handle = x_handle;
assign job_len    = h_imm;
assign job_tag    = x_tag;
assign job_err    = !rdma_re;
// RDMA read response / cancel: the read it names
assign rq_tag   = (state == S_RCAN) ? rcan_tag : x_tag;
assign rq_vi    = (state == S_RCAN) ? rcan_vi : dst;
wire   rrsp_ok  = rq_hit && rq_len == h_len;
wire   rrsp_go  = state == S_RRSP && !abort && (!rrsp_ok || rec_cnt < CDEPTH);
assign rq_claim = !abort && ((state == S_RRSP && rrsp_ok && rec_cnt < CDEPTH) || (state == S_RCAN && rq_hit));
assign rc_vi    = rel_vi;

// W buffer pushes (writer or write-back)
wire ca_push_ok = wq_space && !abort && !wr_can_beat && (bu_cnt == 8'd0 || wb_mid);
reg                   wq_push;
reg  [DATA_WIDTH-1:0] wq_pdata;
reg  [KEEP_WIDTH-1:0] wq_pstrb;
reg                   wq_plast;
reg                   aq_push;
reg  [ADDR_WIDTH-1:0] aq_paddr;
reg  [7:0]            aq_plen;
reg  [RW:0]           aq_ptag;
always @* begin
    wq_push = 1'b0; wq_pdata = wr_beat_data; wq_pstrb = wr_beat_strb; wq_plast = wr_last_in_burst;
    aq_push = 1'b0; aq_paddr = (bu_cnt == 8'd0) ? {wr_pa[ADDR_WIDTH-1:LB], {LB{1'b0}}} : bu_addr;
    // (a plain RDMA write's bursts count against the next record, rec_wr,
    // which keeps its completion behind them, but carry the write-back
    // bit so that a failed response does not mark that record)
    aq_plen = bu_cnt; aq_ptag = {h_rdma && !h_has_imm, rec_wr};
    if (wr_can_beat) begin
        wq_push = 1'b1;
        aq_push = wr_last_in_burst;
    end else if (ca_st == CA_W1 && ca_push_ok) begin
        wq_push  = 1'b1;
        wq_pdata = img1_w[DATA_WIDTH-1:0];
        wq_pstrb = img1_sw[KEEP_WIDTH-1:0];
        wq_plast = wb_beat || WB1_LEN == 8'd0;
        aq_push  = wq_plast;
        aq_paddr = wb_pa + WB_BASE;
        aq_plen  = WB1_LEN;
        aq_ptag  = {1'b1, ca};
    end else if (ca_st == CA_W2 && ca_push_ok) begin
        wq_push  = 1'b1;
        wq_pdata = img2_w[DATA_WIDTH-1:0];
        wq_pstrb = img2_sw[KEEP_WIDTH-1:0];
        wq_plast = 1'b1;
        aq_push  = 1'b1;
        aq_paddr = wb_pa + ((BYTES == 8) ? 24 : WB_BASE);
        aq_plen  = 8'd0;
        aq_ptag  = {1'b1, ca};
    end
end

wire wr_all_done = (wr_done_b == h_len) || wr_stop;
wire wr_idle     = !wr_act || wr_stop;
wire frame_good  = (trl_status == 32'd0) && (rcvd == h_len);
wire nothing_out = (lk_out == 4'd0) && !d_lk_valid && (b_out == 9'd0) && (wq_cnt == 0) && (aq_cnt == 0);
wire walk_idle   = !walk_on && !walk_seg_w && !walk_seg_ld;

// a rewind may go out: nothing of any VI awaits its completion, no take
// or advance in flight
wire rew_ok = (rec_cnt == 0) && !take_out && !rxq_valid && !adv_valid && !abort;
// the hot VI is to be released (rel_valid)
wire rel_hot = rel_valid && hot_valid && rel_vi == hot_vi;

// fetch results: dropped ones are taken and released at once (never in the
// cycle of another release)
wire p_take_disc = p_res_valid && p_disc != {(SW+1){1'b0}} && !seg_hold;
wire p_take_frame = p_res_valid && p_disc == {(SW+1){1'b0}} && !seg_hold && state == S_FETCH;
wire p_frame_ok = p_res_kind == RES_DESC && !(h_len > p_res_length || h_len > max_transfer);
// the frame scatters into the receive's segments (an RDMA write with
// immediate data only consumes the receive: its slot goes back at once)
wire p_use_slot = p_frame_ok && !h_rdma;
wire p_rel_seg = seg_hold && walk_idle && (state == S_SCATTER || state == S_ABORT);
always @* begin
    p_res_ready = 1'b0;
    p_rel = 1'b0;
    if (p_rel_seg) begin
        p_rel = 1'b1;
    end else if (state == S_ABORT) begin
        p_res_ready = p_res_valid && !seg_hold;
        p_rel = p_res_valid && !seg_hold;
    end else if (p_take_disc) begin
        p_res_ready = 1'b1;
        p_rel = 1'b1;
    end else if (p_take_frame) begin
        p_res_ready = 1'b1;
        p_rel = !p_use_slot;
    end
end

// takes: a frame's on demand take, else the prefetch
// the taken receive not yet requested from the fetch unit
wire tk_unreq = tk_valid && !p_req_ready;
// scatter finished
wire sc_end = state == S_SCATTER && frame_done && wr_all_done && wr_idle && walk_idle && sc_out == 4'd0 &&
              !wr_can_beat && bu_cnt == 8'd0 && !seg_hold;
wire sc_abort = !(wr_stop && !wr_flush) && !frame_good;
// (a plain RDMA write has no receive, so no record; an RDMA read response
// always completes its read: cut short, with the error the target sent,
// or TRANSPORT_ERROR if it sent none)
assign rec_push = !abort && ((sc_end && (!sc_abort || h_rresp) && !(h_rdma && !h_has_imm)) ||
                             (state == S_EDRAIN && (frame_done || (s_fire && s_axis_tlast))) ||
                             state == S_RCAN2);
wire        rec_rd = (state == S_SCATTER && h_rresp) || state == S_RCAN2;
wire [31:0] trl_err = trl_status & ST_ERRM;
wire [31:0] rec_st = (state == S_RCAN2) ? ST_FLUSH :
                     (h_rresp && sc_abort) ? ((trl_err != 32'd0) ? trl_err : ST_TRANS) : st_err;

wire take_free = !take_out && !rxq_valid && !tk_valid && !adv_valid && !abort;
wire take_od_go = take_free && state == S_RECV && h_cnt == 0 && rec_cnt == 0 &&
                  !(rel_valid && rel_vi == dst);
wire take_pf_go = take_free && !take_od_go && hot_valid && !hot_empty && !rel_hot &&
                  h_cnt < DEPTH && p_disc == {(SW+1){1'b0}} &&
                  state != S_SWITCH && state != S_ABW && state != S_ADV && state != S_ABORT;

// the scatter starts: into the fetched receive's segments, or (an RDMA
// write) into the extension's one target range, with or without a receive
wire sc_init_recv = state == S_FETCH && p_take_frame && p_res_kind == RES_DESC &&
                    (h_rdma ? x_err == 32'd0 : p_frame_ok);
wire sc_init_plain = state == S_RDMA && !h_has_imm && rdma_we;
wire sc_init_rresp = state == S_RRSP && rq_claim;
wire sc_init = sc_init_recv || sc_init_plain || sc_init_rresp;

assign busy = (state != S_HDR && state != S_ABORT) || hdr_cnt != 2'd0 || aw_pres ||
              lk_out != 4'd0 || d_lk_valid || b_out != 9'd0 || w_credit != 8'd0 ||
              take_out || rxq_valid || adv_valid || seg_hold || rd_done_valid ||
              (state != S_ABORT && (tk_valid || rec_cnt != 0 || p_disc != {(SW+1){1'b0}})) ||
              (state == S_ABORT && (p_busy || p_res_valid));

// per record counters' next values
reg [7:0] r_dout_nx [0:CDEPTH-1];
integer ri;
always @* begin
    for (ri = 0; ri < CDEPTH; ri = ri + 1) begin
        r_dout_nx[ri] = r_dout[ri] +
            ((aq_push && aq_ptag[RW-1:0] == ri[RW-1:0]) ? 8'd1 : 8'd0) -
            ((b_fire && b_tag[RW-1:0] == ri[RW-1:0]) ? 8'd1 : 8'd0);
    end
end

integer i;
always @(posedge clk) begin
    if (rst) begin
        state <= S_HDR; ca_st <= CA_IDLE; cb_st <= CB_IDLE;
        hdr <= 128'd0; hdr_cnt <= 2'd0;
        frame_done <= 1'b0; trl_status <= 32'd0; rcvd <= 32'd0; taken <= 32'd0;
        ptag <= 16'd0; max_transfer <= 32'd0; rdma_we <= 1'b0; rdma_re <= 1'b0;
        d_va <= 64'd0; d_handle <= 32'd0; nx_va <= 64'd0; nx_handle <= 32'd0;
        st_err <= 32'd0;
        hot_valid <= 1'b0; hot_vi <= {VI_WIDTH{1'b0}}; hot_ptag <= 16'd0; hot_max <= 32'd0;
        hot_we <= 1'b0; hot_re <= 1'b0; hot_empty <= 1'b0;
        rxq_valid <= 1'b0; rxq_vi_r <= {VI_WIDTH{1'b0}}; take_out <= 1'b0; take_od <= 1'b0;
        tk_valid <= 1'b0; tk_va <= 64'd0; tk_handle <= 32'd0;
        h_wr <= {SW{1'b0}}; h_rd <= {SW{1'b0}}; h_cnt <= {(SW+1){1'b0}}; p_disc <= {(SW+1){1'b0}};
        adv_ret <= 1'b0;
        adv_valid <= 1'b0; adv_vi_r <= {VI_WIDTH{1'b0}}; adv_next <= 64'd0; adv_next_handle <= 32'd0; adv_keep <= 1'b0;
        f_seg_idx <= 8'd0; cur_slot <= {SW{1'b0}}; seg_hold <= 1'b0;
        d_lk_valid <= 1'b0; d_lk_handle <= 32'd0; d_lk_va <= 64'd0; d_lk_len <= 32'd0; d_lk_ptag_r <= 16'd0;
        d_lk_is_wb <= 1'b0;
        walk_on <= 1'b0; walk_seg_w <= 1'b0; walk_seg_ld <= 1'b0; wk_va <= 64'd0; wk_handle <= 32'd0;
        wk_seg_rem <= 32'd0; wk_msg_rem <= 32'd0; lk_out <= 4'd0; sc_out <= 4'd0; epoch_hold <= 2'b00;
        lt_rd <= 3'd0; lt_wr <= 3'd0;
        cq_rd <= 2'd0; cq_wr <= 2'd0; cq_cnt <= 3'd0;
        acc <= {2*DATA_WIDTH{1'b0}}; acc_n <= {CB{1'b0}};
        wr_act <= 1'b0; wr_pa <= {ADDR_WIDTH{1'b0}}; wr_rem <= 13'd0; wr_stop <= 1'b0; wr_flush <= 1'b0;
        bu_addr <= {ADDR_WIDTH{1'b0}}; bu_cnt <= 8'd0; wr_done_b <= 32'd0;
        wq_rd <= {WAW{1'b0}}; wq_wr <= {WAW{1'b0}}; wq_cnt <= {(WAW+1){1'b0}};
        aq_rd <= 3'd0; aq_wr <= 3'd0; aq_cnt <= 4'd0; w_credit <= 8'd0; b_out <= 9'd0;
        aw_pres <= 1'b0;
        bq_rd <= 5'd0; bq_wr <= 5'd0;
        wb_pa <= {ADDR_WIDTH{1'b0}}; wb_beat <= 1'b0;
        rec_wr <= {RW{1'b0}}; ca <= {RW{1'b0}}; cb <= {RW{1'b0}}; rec_cnt <= {(RW+1){1'b0}};
        ca_err <= 32'd0;
        for (i = 0; i < CDEPTH; i = i + 1) begin
            r_full[i] <= 1'b0; r_wbd[i] <= 1'b0; r_lost[i] <= 1'b0; r_err[i] <= 1'b0;
            r_berr[i] <= 1'b0; r_dout[i] <= 8'd0; r_rd[i] <= 1'b0; r_rsl[i] <= 2'd0; r_brk[i] <= 1'b0; r_rel[i] <= 1'b0;
        end
        done_pulse <= 1'b0;
        done_vi <= {VI_WIDTH{1'b0}};
        cnt_desc <= 32'd0; cnt_err <= 32'd0; cnt_drop_no_recv <= 32'd0; cnt_drop_bad_vi <= 32'd0;
        cnt_drop_aborted <= 32'd0; cnt_wb_lost <= 32'd0;
        wbl_pulse <= 1'b0; wbl_vi <= {VI_WIDTH{1'b0}};
        cnt_rdma <= 32'd0; cnt_rdma_prot <= 32'd0;
        cnt_rreq <= 32'd0; cnt_rresp <= 32'd0; cnt_rdrop <= 32'd0;
        rd_slot <= 2'd0; rcan_tag <= 32'd0; rcan_vi <= {VI_WIDTH{1'b0}};
        rd_done_valid <= 1'b0; rd_done_tag <= 32'd0; rd_done_ev <= 1'b0; rd_done_err <= 1'b0;
        brk_pulse <= 1'b0; brk_vi <= {VI_WIDTH{1'b0}};
        brk2_pulse <= 1'b0; brk2_vi <= {VI_WIDTH{1'b0}}; rel_lvl <= 1'b0;
        aerr_valid <= 1'b0; aerr_vi <= {VI_WIDTH{1'b0}};
        ext <= 128'd0; x_err <= 32'd0; d_lk_kind_r <= KIND_LW;
    end else begin
        done_pulse <= 1'b0;
        wbl_pulse <= 1'b0;
        aerr_valid <= 1'b0;
        brk_pulse <= 1'b0;
        brk2_pulse <= 1'b0;

        // ---------------- stream side
        if (s_fire) begin
            if (state == S_HDR) begin
                if (s_axis_tlast) begin
                    // a frame shorter than its header
                    hdr_cnt <= 2'd0;
                    cnt_drop_aborted <= cnt_drop_aborted + 32'd1;
                end else begin
                    if (HDR_BEATS == 1) hdr <= tdata_x[127:0];
                    else if (hdr_cnt == 2'd0) hdr[63:0] <= s_axis_tdata[63:0];
                    else hdr[127:64] <= s_axis_tdata[63:0];
                    if (hdr_cnt == HDR_BEATS - 1) begin
                        hdr_cnt <= 2'd0;
                        frame_done <= 1'b0; rcvd <= 32'd0; taken <= 32'd0; trl_status <= 32'd0;
                        // 64-bit: dst came with the first beat, the
                        // context read of it is already under way
                        state <= (HDR_BEATS == 2) ? S_CTX2 : S_CTX1;
                    end else begin
                        hdr_cnt <= hdr_cnt + 2'd1;
                    end
                end
            end else if (state == S_EXT) begin
                if (s_axis_tlast) begin
                    // a frame that ends inside its extension
                    hdr_cnt <= 2'd0;
                    cnt_drop_aborted <= cnt_drop_aborted + 32'd1;
                end else begin
                    if (HDR_BEATS == 1) ext <= tdata_x[127:0];
                    else if (hdr_cnt == 2'd0) ext[63:0] <= s_axis_tdata[63:0];
                    else ext[127:64] <= s_axis_tdata[63:0];
                    hdr_cnt <= (hdr_cnt == HDR_BEATS - 1) ? 2'd0 : hdr_cnt + 2'd1;
                end
            end else if (s_axis_tlast) begin
                frame_done <= 1'b1;
                trl_status <= s_axis_tdata[31:0];
            end else begin
                rcvd <= rcvd + {{(32-CB){1'b0}}, kb};
                if (state == S_SCATTER && !discard) taken <= taken + {{(32-CB){1'b0}}, take_n};
            end
        end
        acc   <= acc_nx;
        acc_n <= acc_n - wr_consume +
                 ((s_fire && state == S_SCATTER && !s_axis_tlast && !discard) ? take_n : {CB{1'b0}});

        // ---------------- lookups (scatter walker or write-back)
        if (d_lk_valid && d_lk_ready) begin
            d_lk_valid <= 1'b0;
            lt_q[lt_wr] <= d_lk_is_wb;
            lt_wr <= lt_wr + 3'd1;
        end
        if (wb_lk_go) begin
            d_lk_valid  <= 1'b1;
            d_lk_is_wb  <= 1'b1;
            d_lk_handle <= ra_handle;
            d_lk_va     <= {ra_va, 6'd0};
            d_lk_len    <= 32'd32;
            d_lk_ptag_r <= ra_ptag;
            d_lk_kind_r <= KIND_LW;
        end else if (wk_can && (!d_lk_valid || d_lk_ready)) begin
            d_lk_valid  <= 1'b1;
            d_lk_is_wb  <= 1'b0;
            d_lk_handle <= wk_handle;
            d_lk_va     <= wk_va;
            d_lk_len    <= wk_seg_rem;
            d_lk_ptag_r <= ptag;
            d_lk_kind_r <= h_rdma ? KIND_RW : KIND_LW;
            wk_va       <= wk_va + {32'd0, wk_piece};
            wk_seg_rem  <= wk_seg_rem - wk_piece;
            wk_msg_rem  <= wk_msg_rem - wk_piece;
            if (wk_seg_rem == wk_piece) begin
                // next segment
                if (wk_msg_rem == wk_piece || f_seg_idx == MAX_SEGS[7:0] - 8'd1) begin
                    walk_on <= 1'b0;
                end else begin
                    f_seg_idx  <= f_seg_idx + 8'd1;
                    walk_seg_w <= 1'b1;
                end
            end
        end
        if (walk_seg_w) begin
            walk_seg_w  <= 1'b0;
            walk_seg_ld <= 1'b1;
        end
        if (walk_seg_ld) begin
            walk_seg_ld <= 1'b0;
            wk_va       <= sg_addr;
            wk_handle   <= sg_handle;
            wk_seg_rem  <= (sg_len < wk_msg_rem) ? sg_len : wk_msg_rem;
            if (sg_len == 32'd0) begin
                // empty segment: the next one
                if (f_seg_idx == MAX_SEGS[7:0] - 8'd1) walk_on <= 1'b0;
                else begin f_seg_idx <= f_seg_idx + 8'd1; walk_seg_w <= 1'b1; end
            end
        end
        if (walk_on && wk_msg_rem == 32'd0) walk_on <= 1'b0;

        lk_out <= lk_out + ((d_lk_valid && d_lk_ready) ? 4'd1 : 4'd0) - (d_rs_fire ? 4'd1 : 4'd0);
        sc_out <= sc_out + ((wk_can && (!d_lk_valid || d_lk_ready)) ? 4'd1 : 4'd0) -
                  ((d_rs_fire && !d_rs_wb) ? 4'd1 : 4'd0);
        if (d_rs_fire) lt_rd <= lt_rd + 3'd1;
        if (d_rs_ok) epoch_hold[d_rs_epoch] <= 1'b1;
        if (d_rs_fire && !d_rs_wb) begin
            cq_pa[cq_wr]  <= d_rs_pa;
            cq_n[cq_wr]   <= d_rs_bytes;
            cq_err[cq_wr] <= d_rs_err != 3'd0;
            cq_wr <= cq_wr + 2'd1;
            if (d_rs_err != 3'd0) walk_on <= 1'b0;
        end

        // ---------------- writer
        // load a chunk
        if (!wr_act && !wr_stop && (cq_cnt != 3'd0) && state == S_SCATTER) begin
            if (cq_err[cq_rd]) begin
                wr_stop <= 1'b1;
                st_err  <= h_rdma ? ST_RPROT : ST_PROT;
            end else begin
                wr_act <= 1'b1;
                wr_pa  <= cq_pa[cq_rd];
                wr_rem <= cq_n[cq_rd];
            end
            cq_rd <= cq_rd + 2'd1;
        end
        if (wr_can_beat) begin
            if (bu_cnt == 8'd0) bu_addr <= {wr_pa[ADDR_WIDTH-1:LB], {LB{1'b0}}};
            bu_cnt <= wr_last_in_burst ? 8'd0 : bu_cnt + 8'd1;
            wr_pa  <= wr_pa + {{(ADDR_WIDTH-CB){1'b0}}, wr_m};
            wr_rem <= wr_rem - {{(13-CB){1'b0}}, wr_m};
            wr_done_b <= wr_done_b + {{(32-CB){1'b0}}, wr_m};
            if (wr_rem == {{(13-CB){1'b0}}, wr_m}) wr_act <= 1'b0;
            if (wr_flush && wr_last_in_burst) wr_stop <= 1'b1;
        end
        // the frame ended before the message was whole: finish the burst
        if (state == S_SCATTER && frame_done && taken != h_len && !wr_flush && !wr_stop) begin
            wr_flush <= 1'b1;
            walk_on  <= 1'b0;
            walk_seg_w <= 1'b0;
            walk_seg_ld <= 1'b0;
        end
        if (wr_flush && bu_cnt == 8'd0 && !wr_can_beat) wr_stop <= 1'b1;

        // chunk queue count
        cq_cnt <= cq_cnt + ((d_rs_fire && !d_rs_wb) ? 3'd1 : 3'd0) -
                  ((!wr_act && !wr_stop && (cq_cnt != 3'd0) && state == S_SCATTER) ? 3'd1 : 3'd0);

        // ---------------- W buffer, AW queue, B
        if (wq_push) begin
            wb_data[wq_wr] <= wq_pdata;
            wb_strb[wq_wr] <= wq_pstrb;
            wb_last[wq_wr] <= wq_plast;
            wq_wr <= wq_wr + 1'b1;
        end
        if (w_fire) wq_rd <= wq_rd + 1'b1;
        wq_cnt <= wq_cnt + {{WAW{1'b0}}, wq_push} - {{WAW{1'b0}}, w_fire};
        if (aq_push) begin
            aq_addr[aq_wr] <= aq_paddr;
            aq_len[aq_wr]  <= aq_plen;
            aq_tag[aq_wr]  <= aq_ptag;
            aq_wr <= aq_wr + 3'd1;
        end
        if (aw_fire) begin
            aq_rd <= aq_rd + 3'd1;
            bq_tag[bq_wr] <= aq_tag[aq_rd];
            bq_wr <= bq_wr + 5'd1;
        end
        if (b_fire) begin
            bq_rd <= bq_rd + 5'd1;
            if (w_axi_bresp != 2'b00 && !b_tag[RW]) r_berr[b_tag[RW-1:0]] <= 1'b1;
        end
        aq_cnt <= aq_cnt + (aq_push ? 4'd1 : 4'd0) - (aw_fire ? 4'd1 : 4'd0);
        aw_pres <= w_axi_awvalid && !w_axi_awready;
        w_credit <= w_credit + (aw_fire ? 8'd1 : 8'd0) - ((w_fire && w_axi_wlast) ? 8'd1 : 8'd0);
        b_out <= b_out + (aw_fire ? 9'd1 : 9'd0) - (b_fire ? 9'd1 : 9'd0);
        for (i = 0; i < CDEPTH; i = i + 1) r_dout[i] <= r_dout_nx[i];

        // ---------------- takes and fetch requests
        if (rxq_valid && rxq_ready) begin rxq_valid <= 1'b0; take_out <= 1'b1; end
        if (take_od_go || take_pf_go) begin
            rxq_valid <= 1'b1;
            rxq_vi_r  <= take_od_go ? dst : hot_vi;
            take_od   <= take_od_go;
        end
        if (rxq_rsp_valid && take_out) begin
            take_out <= 1'b0;
            if (state != S_ABORT && !abort) begin
                if (rxq_rsp_found) begin
                    h_wr <= h_wr + 1'b1;
                    tk_valid <= 1'b1;
                    tk_va <= rxq_rsp_va;
                    tk_handle <= rxq_rsp_handle;
                    if (take_od) hot_empty <= 1'b0;
                end else if (!take_od) begin
                    hot_empty <= 1'b1;
                end
            end
        end
        if (p_req_valid && p_req_ready) tk_valid <= 1'b0;
        h_cnt <= h_cnt + {{SW{1'b0}}, h_we} - {{SW{1'b0}}, p_take_frame};
        if (p_take_frame) h_rd <= h_rd + 1'b1;
        if (p_take_disc || (state == S_ABORT && p_res_ready)) begin
            if (p_disc != {(SW+1){1'b0}}) p_disc <= p_disc - 1'b1;
        end
        if (adv_valid && adv_ready) adv_valid <= 1'b0;
        if (p_rel_seg) seg_hold <= 1'b0;

        // ---------------- completion stage A: write-back
        case (ca_st)
            CA_IDLE: if (r_full[ca] && !r_wbd[ca] && r_dout[ca] == 8'd0 && !abort) ca_st <= CA_RD;
            CA_RD: begin
                ca_err <= r_berr[ca] ? ST_TRANS : ra_st;
                ca_st <= CA_LK;
            end
            CA_LK: if (wb_lk_go) ca_st <= CA_LKW;
            CA_LKW: begin
                if (d_rs_fire && d_rs_wb) begin
                    if (d_rs_err != 3'd0) begin
                        cnt_wb_lost <= cnt_wb_lost + 32'd1;
                        r_lost[ca] <= 1'b1;
                        r_wbd[ca] <= 1'b1;
                        ca <= ca + 1'b1;
                        ca_st <= CA_IDLE;
                    end else begin
                        wb_pa <= d_rs_pa;
                        wb_beat <= 1'b0;
                        ca_st <= r_rd[ca] ? CA_W2 : CA_W1;
                    end
                end
            end
            CA_W1: begin
                if (ca_push_ok) begin
                    if (WB1_LEN == 8'd0 || wb_beat) begin
                        wb_beat <= 1'b0;
                        ca_st <= CA_W2;
                    end else begin
                        wb_beat <= 1'b1;
                    end
                end
            end
            CA_W2: begin
                if (ca_push_ok) begin
                    r_wbd[ca] <= 1'b1;
                    r_err[ca] <= ca_err != 32'd0;
                    r_brk[ca] <= (r_rd[ca] || r_rel[ca]) && (ca_err & ~ST_FLUSH) != 32'd0;
                    ca <= ca + 1'b1;
                    ca_st <= CA_IDLE;
                end
            end
            default: ca_st <= CA_IDLE;
        endcase

        // ---------------- completion stage B: consume, in order
        case (cb_st)
            // (a read's completion waits until the send engine's ring has
            // passed the read: the queue's earlier descriptors are done)
            CB_IDLE: if (r_full[cb] && r_wbd[cb] && r_dout[cb] == 8'd0 && !adv_valid && !abort &&
                         (r_rd[cb] ? rd_passed[r_rsl[cb]] : done_ready)) cb_st <= CB_RD;
            CB_RD: begin
                adv_valid <= 1'b1;
                adv_vi_r <= rb_vi;
                adv_next <= rb_next;
                adv_next_handle <= rb_next_handle;
                adv_keep <= 1'b0;
                cb_st <= CB_ADV;
            end
            CB_ADV: begin
                if (adv_valid && adv_ready && r_rd[cb]) begin
                    // the send engine completes it (done_pulse, the CQ)
                    rd_done_valid <= 1'b1;
                    rd_done_tag <= {30'd0, r_rsl[cb]};
                    rd_done_ev <= !r_lost[cb];
                    rd_done_err <= r_err[cb];
                    brk_pulse <= r_brk[cb] && !r_lost[cb];
                    brk_vi <= rb_vi;
                    if (r_lost[cb]) begin
                        wbl_pulse <= 1'b1;
                        wbl_vi <= rb_vi;
                    end
                    cb_st <= CB_RDN;
                end else if (adv_valid && adv_ready) begin
                    brk_pulse <= r_brk[cb] && !r_lost[cb];
                    brk_vi <= rb_vi;
                    if (!r_lost[cb]) begin
                        done_pulse <= 1'b1;
                        done_vi <= rb_vi;
                        cnt_desc <= cnt_desc + 32'd1;
                        if (r_err[cb]) cnt_err <= cnt_err + 32'd1;
                    end else begin
                        wbl_pulse <= 1'b1;
                        wbl_vi <= rb_vi;
                    end
                    if (rb_vi == hot_vi) hot_empty <= 1'b0;
                    r_full[cb] <= 1'b0; r_wbd[cb] <= 1'b0; r_lost[cb] <= 1'b0; r_err[cb] <= 1'b0;
                    r_berr[cb] <= 1'b0;
                    cb <= cb + 1'b1;
                    cb_st <= CB_IDLE;
                end
            end
            CB_RDN: begin
                if (rd_done_ready) begin
                    rd_done_valid <= 1'b0;
                    r_full[cb] <= 1'b0; r_wbd[cb] <= 1'b0; r_lost[cb] <= 1'b0; r_err[cb] <= 1'b0;
                    r_berr[cb] <= 1'b0;
                    cb <= cb + 1'b1;
                    cb_st <= CB_IDLE;
                end
            end
            default: cb_st <= CB_IDLE;
        endcase
        rec_cnt <= rec_cnt + {{RW{1'b0}}, rec_push} -
                   {{RW{1'b0}}, (cb_st == CB_ADV && adv_valid && adv_ready && !r_rd[cb]) ||
                                (cb_st == CB_RDN && rd_done_ready)};
        if (rec_push) begin
            r_full[rec_wr] <= 1'b1;
            r_rd[rec_wr] <= rec_rd;
            r_rel[rec_wr] <= rel_lvl && state != S_RCAN2;
            r_rsl[rec_wr] <= rd_slot;
            rec_wr <= rec_wr + 1'b1;
        end

        // ---------------- release of the hot VI (rel_valid)
        if (rel_hot && state == S_HDR && rew_ok) begin
            hot_valid <= 1'b0;
            if (h_cnt != 0 || tk_valid) begin
                adv_valid <= 1'b1;
                adv_vi_r <= hot_vi;
                adv_keep <= 1'b1;
                adv_next <= 64'd0;
                adv_next_handle <= 32'd0;
                p_disc <= p_disc + h_cnt - {{SW{1'b0}}, tk_unreq};
                tk_valid <= 1'b0;
                h_cnt <= {(SW+1){1'b0}};
                h_rd <= h_wr;
            end
        end

        // ---------------- front end FSM
        case (state)
            S_HDR: begin
                if (hdr_cnt == 2'd0 && nothing_out && ca_st != CA_W1 && ca_st != CA_W2 && ca_st != CA_LKW)
                    epoch_hold <= 2'b00;
                // a context commit waits for a VI with a waiting RDMA read:
                // the read completes FLUSHED (its response, if one still
                // comes, is dropped: the slot is no longer its)
                if (hdr_cnt == 2'd0 && !s_axis_tvalid && rel_valid && rc_hit && rec_cnt < CDEPTH && !abort) begin
                    rcan_tag <= rc_tag;
                    rcan_vi <= rel_vi;
                    state <= S_RCAN;
                end
            end
            S_RCAN: begin
                if (rq_hit) begin
                    d_va <= rq_dva;
                    d_handle <= rq_dh;
                    ptag <= rq_ptag;
                    nx_va <= rq_next;
                    nx_handle <= rq_next_handle;
                    rd_slot <= rcan_tag[1:0];
                    r_berr[rec_wr] <= 1'b0;
                    state <= S_RCAN2;
                end else begin
                    state <= S_HDR;
                end
            end
            S_RCAN2: state <= S_HDR;
            S_CTX1: state <= S_CTX2;
            S_CTX2: begin
                ptag <= ctx_rd_ptag;
                max_transfer <= ctx_rd_max_transfer;
                rdma_we <= ctx_rd_rdma_write;
                rdma_re <= ctx_rd_rdma_read;
                rel_lvl <= ctx_rd_reliable;
                if ({16'd0, h_dst} >= NUM_VI || !ctx_rd_enable || ctx_rd_state != 2'd1 || {h_node, h_src} != ctx_rd_peer) begin
                    cnt_drop_bad_vi <= cnt_drop_bad_vi + 32'd1;
                    state <= S_DROP;
                end else if (h_rdma || h_rreq || h_rresp) begin
                    state <= S_EXT;
                end else if ((!hot_valid || hot_vi != dst) && (h_cnt != 0 || tk_valid || take_out || rxq_valid)) begin
                    state <= S_SWITCH;
                end else begin
                    if (!hot_valid || hot_vi != dst) hot_empty <= 1'b0;
                    hot_valid <= 1'b1; hot_vi <= dst;
                    hot_ptag <= ctx_rd_ptag; hot_max <= ctx_rd_max_transfer;
                    hot_we <= ctx_rd_rdma_write; hot_re <= ctx_rd_rdma_read;
                    // the hot VI's oldest held receive: straight to its result
                    state <= (hot_valid && hot_vi == dst && h_cnt != 0 && rec_cnt < CDEPTH) ? S_FETCH : S_RECV;
                end
            end
            S_EXT: begin
                if (s_fire && s_axis_tlast) state <= S_HDR;
                else if (s_fire && hdr_cnt == HDR_BEATS - 1) state <= h_rdma ? S_RDMA : h_rreq ? S_RREQ : S_RRSP;
            end
            S_RREQ: begin
                // the target: the job goes to the send engine, which reads
                // the range (REMOTE_READ lookups: the region's checks) and
                // answers; a VI without RDMA read gets a refusal
                if (job_ready) cnt_rreq <= cnt_rreq + 32'd1;
                else cnt_rdrop <= cnt_rdrop + 32'd1;
                state <= S_DROP;
            end
            S_RRSP: begin
                // the initiator: the response of a waiting read of dst
                if (rrsp_go) begin
                    if (!rrsp_ok) begin
                        cnt_rdrop <= cnt_rdrop + 32'd1;
                        state <= S_DROP;
                    end else begin
                        d_va <= rq_dva;
                        d_handle <= rq_dh;
                        ptag <= rq_ptag;
                        nx_va <= rq_next;
                        nx_handle <= rq_next_handle;
                        rd_slot <= x_tag[1:0];
                        r_berr[rec_wr] <= 1'b0;
                        st_err <= 32'd0;
                        state <= S_SCATTER;
                    end
                end
            end
            S_RDMA: begin
                x_err <= rdma_we ? 32'd0 : ST_RPROT;
                if (!h_has_imm) begin
                    // a plain RDMA write: no receive; refused: dropped
                    if (!rdma_we) begin
                        cnt_rdma_prot <= cnt_rdma_prot + 32'd1;
                        aerr_valid <= 1'b1;
                        aerr_vi <= dst;
                        brk2_pulse <= rel_lvl;
                        brk2_vi <= dst;
                        state <= S_DROP;
                    end else begin
                        st_err <= 32'd0;
                        state <= S_SCATTER;
                    end
                end else if ((!hot_valid || hot_vi != dst) && (h_cnt != 0 || tk_valid || take_out || rxq_valid)) begin
                    state <= S_SWITCH;
                end else begin
                    // with immediate data: the VI's receive, as a send's
                    if (!hot_valid || hot_vi != dst) hot_empty <= 1'b0;
                    hot_valid <= 1'b1; hot_vi <= dst;
                    hot_ptag <= ptag; hot_max <= max_transfer;
                    hot_we <= rdma_we; hot_re <= rdma_re;
                    state <= (hot_valid && hot_vi == dst && h_cnt != 0 && rec_cnt < CDEPTH) ? S_FETCH : S_RECV;
                end
            end
            S_SWITCH: begin
                // give the hot VI's held receives back, then make dst hot
                if (rew_ok && h_cnt == 0 && !tk_valid) begin
                    hot_valid <= 1'b1; hot_vi <= dst; hot_empty <= 1'b0;
                    hot_ptag <= ptag; hot_max <= max_transfer;
                    hot_we <= rdma_we; hot_re <= rdma_re;
                    state <= S_RECV;
                end else if (rew_ok) begin
                    adv_ret <= 1'b1;
                    adv_valid <= 1'b1;
                    adv_vi_r <= hot_vi;
                    adv_keep <= 1'b1;
                    adv_next <= 64'd0;
                    adv_next_handle <= 32'd0;
                    p_disc <= p_disc + h_cnt - {{SW{1'b0}}, tk_unreq};
                    tk_valid <= 1'b0;
                    h_cnt <= {(SW+1){1'b0}};
                    h_rd <= h_wr;
                    hot_valid <= 1'b1; hot_vi <= dst; hot_empty <= 1'b0;
                    hot_ptag <= ptag; hot_max <= max_transfer;
                    hot_we <= rdma_we; hot_re <= rdma_re;
                    state <= S_ADV;
                end
            end
            S_RECV: begin
                if (h_cnt != 0 && rec_cnt < CDEPTH) begin
                    state <= S_FETCH;
                end else if (take_od_go) begin
                    state <= S_TAKE;
                end else if (take_free && h_cnt == 0 && rec_cnt == 0 && rel_valid && rel_vi == dst) begin
                    // a commit waits for this VI: no take; the message is
                    // dropped as if no receive were posted (waiting could
                    // deadlock: the commit may wait for a send of this VI
                    // whose frame is queued behind this one)
                    cnt_drop_no_recv <= cnt_drop_no_recv + 32'd1;
                    state <= S_DROP;
                end
            end
            S_TAKE: begin
                if (rxq_rsp_valid && take_out) begin
                    if (!rxq_rsp_found) begin
                        cnt_drop_no_recv <= cnt_drop_no_recv + 32'd1;
                        brk2_pulse <= rel_lvl;
                        brk2_vi <= dst;
                        state <= S_DROP;
                    end else begin
                        state <= S_RECV;
                    end
                end
            end
            S_FETCH: begin
                st_err <= 32'd0;
                if (p_take_frame) begin
                    d_va <= h_rdata[95:32];
                    d_handle <= h_rdata[31:0];
                    nx_va <= p_res_next;
                    nx_handle <= p_res_next_handle;
                    r_berr[rec_wr] <= 1'b0;
                    if (p_res_kind != RES_DESC) begin
                        st_err <= p_res_status;
                        state <= S_EDRAIN;
                    end else if (h_rdma ? x_err != 32'd0 : !p_frame_ok) begin
                        st_err <= h_rdma ? x_err : ST_LEN;
                        if (h_rdma) cnt_rdma_prot <= cnt_rdma_prot + 32'd1;
                        state <= S_EDRAIN;
                    end else begin
                        seg_hold    <= !h_rdma;
                        cur_slot    <= p_res_slot;
                        state <= S_SCATTER;
                    end
                end
            end
            S_SCATTER: begin
                if (sc_end && h_rdma) begin
                    if (sc_abort) cnt_drop_aborted <= cnt_drop_aborted + 32'd1;
                    else if (wr_stop) begin
                        cnt_rdma_prot <= cnt_rdma_prot + 32'd1;
                        aerr_valid <= !h_has_imm;
                        aerr_vi <= dst;
                        brk2_pulse <= rel_lvl && !h_has_imm;   // (with immediate data: its receive's record)
                        brk2_vi <= dst;
                    end
                    else cnt_rdma <= cnt_rdma + 32'd1;
                end
                if (sc_end && h_rdma && sc_abort && !h_has_imm) begin
                    // a plain RDMA write cut short: nothing to give back
                    // (what was written stays written)
                    state <= S_HDR;
                    cq_cnt <= 3'd0; cq_rd <= 2'd0; cq_wr <= 2'd0;
                    wr_act <= 1'b0;
                end else if (sc_end) begin
                    if (h_rresp) cnt_rresp <= cnt_rresp + 32'd1;
                    if (sc_abort && !h_rresp) begin
                        // aborted: give the receive back once its data B came
                        cnt_drop_aborted <= cnt_drop_aborted + 32'd1;
                        state <= S_ABW;
                    end else begin
                        // complete (a protection error whatever the trailer says)
                        state <= S_HDR;
                    end
                    cq_cnt <= 3'd0; cq_rd <= 2'd0; cq_wr <= 2'd0;
                    wr_act <= 1'b0;
                end
            end
            S_DROP: begin
                if (frame_done || (s_fire && s_axis_tlast)) state <= S_HDR;
            end
            S_EDRAIN: begin
                if (frame_done || (s_fire && s_axis_tlast)) state <= S_HDR;
            end
            S_ABW: begin
                if (rew_ok && b_out == 9'd0 && wq_cnt == 0 && aq_cnt == 0 && !b_fire) begin
                    adv_valid <= 1'b1;
                    adv_vi_r <= dst;
                    adv_keep <= 1'b1;
                    adv_next <= 64'd0;
                    adv_next_handle <= 32'd0;
                    p_disc <= p_disc + h_cnt - {{SW{1'b0}}, tk_unreq};
                    tk_valid <= 1'b0;
                    h_cnt <= {(SW+1){1'b0}};
                    h_rd <= h_wr;
                    hot_empty <= 1'b0;
                    adv_ret <= 1'b0;
                    state <= S_ADV;
                end
            end
            S_ADV: begin
                if (adv_valid && adv_ready) begin
                    adv_keep <= 1'b0;
                    state <= adv_ret ? S_RECV : S_HDR;
                end
            end
            default: ;
        endcase

        // ---------------- the scatter starts (sc_init)
        if (sc_init) begin
            f_seg_idx   <= 8'd0;
            walk_on     <= (h_len != 32'd0);
            // a receive's segments are read from the fetch slot; an RDMA
            // write's one range comes from its extension
            walk_seg_w  <= (h_len != 32'd0) && !h_rdma;   // (a read response: its read's segments)
            wk_msg_rem  <= h_len;
            wk_seg_rem  <= h_rdma ? h_len : 32'd0;
            wk_va       <= x_va;
            wk_handle   <= x_handle;
            wr_act <= 1'b0; wr_stop <= 1'b0; wr_flush <= 1'b0;
            bu_cnt <= 8'd0; wr_done_b <= 32'd0;
            // bytes left by a receive that stopped: the count and the bytes
            // themselves (the accumulator ORs new bytes in above the count,
            // so it must be zero there)
            acc_n <= {CB{1'b0}};
            acc   <= {2*DATA_WIDTH{1'b0}};
            cq_cnt <= 3'd0; cq_rd <= 2'd0; cq_wr <= 2'd0;
        end

        // ---------------- abort
        if (abort && state != S_ABORT) begin
            state <= S_ABORT;
            walk_on <= 1'b0;
            walk_seg_w <= 1'b0;
            walk_seg_ld <= 1'b0;
            wr_stop <= 1'b1;
            tk_valid <= 1'b0;
        end
        if (state == S_ABORT) begin
            // the completion records are dropped
            ca_st <= CA_IDLE; cb_st <= CB_IDLE;
            rd_done_valid <= 1'b0;
            if (!(adv_valid && !adv_ready)) adv_keep <= 1'b0;
            // a W buffer without credit is dropped (its AW never goes out;
            // one already presented goes out and its beats follow)
            if (w_credit == 8'd0 && !aw_pres) begin
                aq_cnt <= 4'd0; aq_rd <= 3'd0; aq_wr <= 3'd0;
                wq_cnt <= {(WAW+1){1'b0}}; wq_rd <= {WAW{1'b0}}; wq_wr <= {WAW{1'b0}};
            end
            if (!abort && !busy) begin
                state <= S_HDR;
                hot_valid <= 1'b0; hot_empty <= 1'b0;
                tk_valid <= 1'b0; h_cnt <= {(SW+1){1'b0}}; h_rd <= h_wr; p_disc <= {(SW+1){1'b0}};
                rec_wr <= {RW{1'b0}}; ca <= {RW{1'b0}}; cb <= {RW{1'b0}}; rec_cnt <= {(RW+1){1'b0}};
                bq_rd <= 5'd0; bq_wr <= 5'd0; lt_rd <= 3'd0; lt_wr <= 3'd0;
                cq_cnt <= 3'd0; cq_rd <= 2'd0; cq_wr <= 2'd0; bu_cnt <= 8'd0; wr_act <= 1'b0;
                for (i = 0; i < CDEPTH; i = i + 1) begin
                    r_full[i] <= 1'b0; r_wbd[i] <= 1'b0; r_lost[i] <= 1'b0; r_err[i] <= 1'b0;
                    r_berr[i] <= 1'b0; r_dout[i] <= 8'd0;
                end
            end
        end
    end
end

endmodule

`default_nettype wire
