// via_desc_fetch: descriptor fetch unit of the vianic NIC (issue 9).
//
// Given one request (the descriptor's VA, its memory handle, the VI's ptag,
// the queue, the VI's MaxTransferSize and RDMA enables), translates the
// descriptor through the TPT (kind LOCAL_READ), reads it from host memory
// with an AXI4 read master, checks it, and answers exactly one result:
// the parsed descriptor, or the status bits to write back, or a bus error.
// docs/vi.md ("Descriptor fetch unit") describes the result and the order
// of the checks; docs/desc.md the descriptor layout.
//
// Request (req_valid/req_ready; accepted only while idle, i.e. after the
// previous result was taken). req_va[5:0] are ignored: descriptors are
// 64-byte aligned (the doorbell carries VA bits 63:6).
//
// Sequence (one lookup or one burst at a time)
//   1. lookup (req_va, 32 bytes): the control segment; error: result
//      STATUS, LOCAL_PROTECTION_ERROR, check XLAT_CTL.
//   2. one burst reads the descriptor's 64-byte block (it never crosses a
//      page: the descriptor is 64-byte aligned): the control segment and,
//      speculatively, bytes 32..63 (the first two segments, if there are
//      any; kept in the segment buffer, used only once step 3 has checked
//      them). An SLVERR/DECERR beat of the control segment: result BUS; of
//      the speculative bytes only: they are not used (step 5 reads them).
//      The speculation saves a read round trip for descriptors with one or
//      two segments (most sends and receives).
//   3. if SegCount > 0: lookup (req_va + 32, 16 * SegCount bytes): the rest
//      of the descriptor as the control segment declares it, whatever
//      SegCount is (one lookup checks the whole range); error: result
//      STATUS, LOCAL_PROTECTION_ERROR, check XLAT_SEGS.
//   4. the control segment's checks, first failure wins, all
//      LOCAL_FORMAT_ERROR: RESERVED (CONTROL bits 15:4 or Reserved nonzero),
//      OP (operation 3; RDMA on a receive queue), RDMA_EN (RDMA write / read
//      on a send queue of a VI that does not enable it), NO_ADDR_SEG (RDMA
//      with SegCount 0: no address segment), SEG_LIMIT (SegCount >
//      MAX_SEGS, or > MAX_SEGS + 1 for RDMA). SegCount 0 on a send or
//      receive is a valid zero-length descriptor (Length must then be 0).
//   5. unless step 2 brought them (SegCount <= 2), the segments are read
//      from byte 32 on, one burst per page they lie in (at most two
//      pages; the second page is looked up on its own, error: XLAT_SEGS);
//      SLVERR/DECERR: result BUS.
//   6. checks on the segments: ADDR_RESERVED (the address segment's
//      Reserved nonzero: LOCAL_FORMAT_ERROR), LEN_SUM (the data segments'
//      lengths, summed without overflow, differ from Length:
//      LOCAL_LENGTH_ERROR), LEN_MAX (Length > req_max_transfer:
//      LOCAL_LENGTH_ERROR). Else result DESC.
//   A lookup error or a format failure ends the fetch at once: nothing
//   more is looked up or read.
//
// Result (res_valid until res_ready; every res_* and seg_* output is
// stable while res_valid is 1)
//   res_kind   RES_DESC (0): the descriptor is good; RES_STATUS (1): it
//              completes with res_status; RES_BUS (2): a read of the
//              descriptor got SLVERR/DECERR (res_bus_resp, the first bad
//              beat's RRESP; res_status has TRANSPORT_ERROR: a transport
//              style failure of the host bus, nothing about the
//              descriptor is known to be wrong).
//   res_status the error bit of CTL.STATUS to write back (exactly one bit,
//              0 for RES_DESC); DONE and the completed operation are the
//              write-back's business.
//   res_check  which check decided (CHK_*, below), for counters and tests.
//   res_tpt_err the TPT's code (TPT_ERR_*) of a failed lookup, else 0.
//   res_ctl_valid the control segment was read: res_next, res_next_handle,
//              res_seg_count, res_control, res_immediate, res_length hold
//              its fields (also for STATUS results after step 2, so the
//              queue can follow Next); else they are 0.
//   seg_idx -> seg_addr, seg_handle, seg_len: the segment buffer's read port
//              (combinational): segment i (0 = the address segment of an
//              RDMA: REMOTE_ADDR, REMOTE_HANDLE, Reserved) of a RES_DESC
//              result; meaningless for other results and for i >=
//              SegCount (0 for i > MAX_SEGS).
//
// AXI4: INCR bursts of the full bus width with ARID ARID, one burst in
// flight, never crossing 4 KiB; a burst covers the beats that hold the
// bytes it needs (a bus wider than 128 bits reads some bytes beyond the
// descriptor, in the same 64-byte block or page, and drops them). RID is not
// checked (one ID).
//
// Fence (via_tpt's inflight_epoch; docs/memory.md): bit e is 1 from the
// cycle a successful lookup response of epoch e is accepted (combinational)
// until the last R beat of the burst issued under that translation (or
// until the fetch stops without a burst). Never more than one translation
// is held.
//
// Timing: req_ready, lk_valid, rs_ready, m_axi_arvalid, m_axi_rready and all
// results come from registers; inflight_epoch has a combinational term
// (rs_valid, rs_err, rs_epoch); seg_* are a multiplexer on seg_idx.

`timescale 1ns / 1ps
`default_nettype none

`include "via_param_check.vh"
`include "via_desc.vh"
`include "via_bar0.vh"

module via_desc_fetch #(
    parameter MAX_SEGS   = 16,   // data segments per descriptor (MaxSegmentsPerDesc), 1..124
    parameter DATA_WIDTH = 64,   // AXI4 read data bits: 64, 128, 256 or 512
    parameter ADDR_WIDTH = 48,   // physical (DMA) address bits, 32..64
    parameter ID_WIDTH   = 4,    // AXI4 ID bits, 1..32
    parameter [ID_WIDTH-1:0] ARID = 0  // the ARID of every burst
) (
    input  wire                    clk,
    input  wire                    rst,        // synchronous, active high

    // request
    input  wire                    req_valid,
    output wire                    req_ready,
    /* verilator lint_off UNUSEDSIGNAL */
    // bits 5:0 are ignored (descriptors are 64-byte aligned)
    input  wire [63:0]             req_va,
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire [31:0]             req_handle,
    input  wire [15:0]             req_ptag,
    input  wire                    req_recv,          // 0 send queue, 1 receive queue
    input  wire [31:0]             req_max_transfer,  // the VI's MaxTransferSize
    input  wire                    req_rdma_write_en, // the VI enables RDMA write
    input  wire                    req_rdma_read_en,  // the VI enables RDMA read

    // result
    output wire                    res_valid,
    input  wire                    res_ready,
    output wire [1:0]              res_kind,          // RES_*
    output wire [31:0]             res_status,        // CTL.STATUS error bit
    output wire [3:0]              res_check,         // CHK_*
    output wire [2:0]              res_tpt_err,       // TPT_ERR_* of a failed lookup
    output wire [1:0]              res_bus_resp,      // RRESP of the first bad beat
    output wire                    res_ctl_valid,
    output wire [63:0]             res_next,
    output wire [31:0]             res_next_handle,
    output wire [15:0]             res_seg_count,
    output wire [15:0]             res_control,
    output wire [31:0]             res_immediate,
    output wire [31:0]             res_length,

    // segment buffer read port
    input  wire [7:0]              seg_idx,
    output wire [63:0]             seg_addr,
    output wire [31:0]             seg_handle,
    output wire [31:0]             seg_len,

    // TPT lookups (via_tpt's lookup port; no tag)
    output wire                    lk_valid,
    input  wire                    lk_ready,
    output wire [31:0]             lk_handle,
    output wire [63:0]             lk_va,
    output wire [31:0]             lk_len,
    output wire [15:0]             lk_ptag,
    output wire [1:0]              lk_kind,
    input  wire                    rs_valid,
    output wire                    rs_ready,
    input  wire [2:0]              rs_err,
    /* verilator lint_off UNUSEDSIGNAL */
    // bits 11:0 equal the VA's; rs_bytes and rs_hit carry nothing the unit
    // needs (it computes its own page splits)
    input  wire [ADDR_WIDTH-1:0]   rs_pa,
    input  wire [12:0]             rs_bytes,
    input  wire                    rs_hit,
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire                    rs_epoch,
    output wire [1:0]              inflight_epoch,

    // AXI4 read master
    output wire [ID_WIDTH-1:0]     m_axi_arid,
    output wire [ADDR_WIDTH-1:0]   m_axi_araddr,
    output wire [7:0]              m_axi_arlen,
    output wire [2:0]              m_axi_arsize,
    output wire [1:0]              m_axi_arburst,
    output wire                    m_axi_arlock,
    output wire [3:0]              m_axi_arcache,
    output wire [2:0]              m_axi_arprot,
    output wire                    m_axi_arvalid,
    input  wire                    m_axi_arready,
    /* verilator lint_off UNUSEDSIGNAL */
    // one ID: the response IDs carry no information; rresp[0] (SLVERR vs
    // DECERR) is only reported
    input  wire [ID_WIDTH-1:0]     m_axi_rid,
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire [DATA_WIDTH-1:0]   m_axi_rdata,
    input  wire [1:0]              m_axi_rresp,
    input  wire                    m_axi_rlast,
    input  wire                    m_axi_rvalid,
    output wire                    m_axi_rready
);

generate
    if (MAX_SEGS < 1 || MAX_SEGS > 124) begin : g_bad_max_segs
        `VIA_PARAM_FAIL(("via_desc_fetch: MAX_SEGS=%0d, must be 1..124", MAX_SEGS))
    end
    if (DATA_WIDTH != 64 && DATA_WIDTH != 128 && DATA_WIDTH != 256 && DATA_WIDTH != 512) begin : g_bad_data_width
        `VIA_PARAM_FAIL(("via_desc_fetch: DATA_WIDTH=%0d, must be 64, 128, 256 or 512", DATA_WIDTH))
    end
    if (ADDR_WIDTH < 32 || ADDR_WIDTH > 64) begin : g_bad_addr_width
        `VIA_PARAM_FAIL(("via_desc_fetch: ADDR_WIDTH=%0d, must be 32..64", ADDR_WIDTH))
    end
    if (ID_WIDTH < 1 || ID_WIDTH > 32) begin : g_bad_id_width
        `VIA_PARAM_FAIL(("via_desc_fetch: ID_WIDTH=%0d, must be 1..32", ID_WIDTH))
    end
endgenerate

// ------------------------------------------------------------ constants

`include "via_desc_fetch.vh"

// bytes per beat and its log2; 64-bit words per beat
localparam DW = (DATA_WIDTH == 128 || DATA_WIDTH == 256 || DATA_WIDTH == 512) ? DATA_WIDTH : 64;
localparam BYTES = DW / 8;
localparam SIZE = $clog2(BYTES);
localparam WORDS = BYTES / 8;
localparam AW = (ADDR_WIDTH >= 32 && ADDR_WIDTH <= 64) ? ADDR_WIDTH : 48;
// segments the buffer holds: the data segments and an address segment
localparam MS = (MAX_SEGS >= 1 && MAX_SEGS <= 124) ? MAX_SEGS : 16;
localparam SEGS = MS + 1;
// segment index bits
localparam SIW = $clog2(SEGS);

// states
// (desc.layout enum FETCH_STATE): S_LK a lookup presented, S_LKW awaiting its
// response, S_AR a burst presented, S_R receiving its beats, S_CHECK the
// control segment's checks, S_FINAL the segments' checks, S_RES result held
localparam [31:0] S_IDLE_32 = `VIA_DESC_FETCH_STATE_IDLE;
localparam [31:0] S_LK_32 = `VIA_DESC_FETCH_STATE_LK;
localparam [31:0] S_LKW_32 = `VIA_DESC_FETCH_STATE_LKW;
localparam [31:0] S_AR_32 = `VIA_DESC_FETCH_STATE_AR;
localparam [31:0] S_R_32 = `VIA_DESC_FETCH_STATE_R;
localparam [31:0] S_CHECK_32 = `VIA_DESC_FETCH_STATE_CHECK;
localparam [31:0] S_FINAL_32 = `VIA_DESC_FETCH_STATE_FINAL;
localparam [31:0] S_RES_32 = `VIA_DESC_FETCH_STATE_RES;
localparam [2:0] S_IDLE = S_IDLE_32[2:0];
localparam [2:0] S_LK = S_LK_32[2:0];
localparam [2:0] S_LKW = S_LKW_32[2:0];
localparam [2:0] S_AR = S_AR_32[2:0];
localparam [2:0] S_R = S_R_32[2:0];
localparam [2:0] S_CHECK = S_CHECK_32[2:0];
localparam [2:0] S_FINAL = S_FINAL_32[2:0];
localparam [2:0] S_RES = S_RES_32[2:0];

// phases of a fetch
localparam [1:0] P_CTL  = 2'd0;  // the control segment
localparam [1:0] P_REST = 2'd1;  // the rest, first page (lookup over all of it)
localparam [1:0] P_MORE = 2'd2;  // the rest, a following page

// ------------------------------------------------------------ state

reg [2:0]  state_reg, state_next;
reg [1:0]  phase_reg, phase_next;

reg [63:0] va_reg, va_next;          // descriptor VA (bits 5:0 zero)
reg [31:0] handle_reg, handle_next;
reg [15:0] ptag_reg, ptag_next;
reg        recv_reg, recv_next;
reg [31:0] mts_reg, mts_next;
reg        rwe_reg, rwe_next;
reg        rre_reg, rre_next;

reg [63:0] lk_va_reg, lk_va_next;
reg [31:0] lk_len_reg, lk_len_next;

// the held translation (its PA, with the VA's page offset) and its epoch
reg [AW-1:0] pa_reg, pa_next;
reg        held_reg, held_next;
reg        held_ep_reg, held_ep_next;

// byte offsets from the descriptor's VA: the next byte to read, the end of
// what is to be read, the end of the current burst's bytes, the current beat
reg [12:0] cur_off_reg, cur_off_next;
reg [12:0] end_off_reg, end_off_next;
reg [12:0] chunk_end_reg, chunk_end_next;
reg [12:0] beat_off_reg, beat_off_next;

reg        bus_err_reg, bus_err_next;
// a beat of the speculative bytes 32..63 (in the control segment's burst)
// was answered with an error: they are not used
reg        spec_bad_reg, spec_bad_next;

// the control segment as 64-bit words
reg [63:0] ctl0_reg, ctl0_next;  // Next
reg [63:0] ctl1_reg, ctl1_next;  // Control, SegCount, NextHandle
reg [63:0] ctl2_reg, ctl2_next;  // ImmediateData, Reserved
reg [63:0] ctl3_reg, ctl3_next;  // Status (ignored), Length

// sum of the data segments' lengths read so far (no overflow: SEGS < 2**7)
reg [39:0] sum_reg, sum_next;

// result
reg [1:0]  kind_reg, kind_next;
reg [31:0] status_reg, status_next;
reg [3:0]  check_reg, check_next;
reg [2:0]  tpt_err_reg, tpt_err_next;
reg [1:0]  bus_resp_reg, bus_resp_next;
reg        ctl_valid_reg, ctl_valid_next;

// the segment buffer: low word (address) and high word (handle, length or
// Reserved) of each segment; no reset
reg [63:0] seg_lo [0:SEGS-1];
reg [63:0] seg_hi [0:SEGS-1];

// ------------------------------------------------------------ fields

wire [31:0] f_next_handle = ctl1_reg[31:0];
wire [15:0] f_seg_count   = ctl1_reg[47:32];
wire [15:0] f_control     = ctl1_reg[63:48];
wire [31:0] f_reserved    = ctl2_reg[31:0];
wire [31:0] f_immediate   = ctl2_reg[63:32];
wire [31:0] f_length      = ctl3_reg[31:0];
wire [1:0]  f_op          = f_control[`VIA_DESC_CTL_CONTROL_OP_RANGE];
wire        f_rdma        = f_op == OP_RDMA_WRITE || f_op == OP_RDMA_READ;

// the control segment's checks, in order
wire chk_reserved = (f_control & CONTROL_RESERVED) != 16'd0 || f_reserved != 32'd0;
wire chk_op       = f_op == 2'd3 || (recv_reg && f_op != OP_SEND_RECV);
wire chk_rdma_en  = (f_op == OP_RDMA_WRITE && !rwe_reg) || (f_op == OP_RDMA_READ && !rre_reg);
wire chk_no_addr  = f_rdma && f_seg_count == 16'd0;
localparam [31:0] LIM32 = MS;
localparam [16:0] LIM = LIM32[16:0];
localparam [16:0] LIM_RDMA = LIM + 17'd1;
wire chk_limit    = {1'b0, f_seg_count} > (f_rdma ? LIM_RDMA : LIM);

// the segments' checks, in order
wire chk_addr_res = f_rdma && seg_hi[0][63:32] != 32'd0;
wire chk_len_sum  = sum_reg != {8'd0, f_length};
wire chk_len_max  = f_length > mts_reg;

// the data lengths of a descriptor with at most two segments, from the
// speculative read of bytes 32..63
wire [31:0] spec_len0 = (!f_rdma && f_seg_count != 16'd0) ? seg_hi[0][63:32] : 32'd0;
wire [31:0] spec_len1 = (f_seg_count == 16'd2) ? seg_hi[1][63:32] : 32'd0;

// the current burst: bytes from cur_off to the end of its page or of what
// is to be read; beats from the beat that holds its first byte
wire [11:0] page_pos = va_reg[11:0] + cur_off_reg[11:0];
wire [12:0] to_page_end = 13'd4096 - {1'b0, page_pos};
wire [12:0] left = end_off_reg - cur_off_reg;
wire [12:0] chunk = left < to_page_end ? left : to_page_end;
localparam [31:0] BYTES_M1_32 = BYTES - 1;
localparam [12:0] BYTES_M1 = BYTES_M1_32[12:0];
wire [13:0] beats = ({1'b0, chunk} + {1'b0, cur_off_reg & BYTES_M1} + {1'b0, BYTES_M1}) >> SIZE;
/* verilator lint_off UNUSEDSIGNAL */
// a burst has at most 256 beats (MAX_SEGS <= 124: at most 2032 bytes)
wire [13:0] arlen_w = beats - 14'd1;
/* verilator lint_on UNUSEDSIGNAL */

// lookups and the fence
wire lk_fire = state_reg == S_LK && lk_ready;
wire rs_fire = state_reg == S_LKW && rs_valid;
wire rs_ok = rs_fire && rs_err == 3'd0;
assign inflight_epoch = (held_reg ? (held_ep_reg ? 2'b10 : 2'b01) : 2'b00)
    | (rs_ok ? (rs_epoch ? 2'b10 : 2'b01) : 2'b00);

wire ar_fire = state_reg == S_AR && m_axi_arready;
wire r_fire = state_reg == S_R && m_axi_rvalid;

// the 64-bit words of an R beat: lane g holds the bytes at offset
// beat_off + 8g of the descriptor; in the control phase the words below 32
// are the control segment's, in the other phases the words of the current
// burst's bytes are segment words (index, high half)
wire [WORDS-1:0]     lane_ctl;
wire [2*WORDS-1:0]   lane_ctl_w;
wire [WORDS-1:0]     lane_seg;
wire [WORDS-1:0]     lane_hi;
wire [SIW*WORDS-1:0] lane_idx;
wire [WORDS-1:0]     lane_data_len;
genvar g;
generate
    for (g = 0; g < WORDS; g = g + 1) begin : g_lane
        localparam [12:0] LOFF = g * 8;
        wire [12:0] lo = beat_off_reg + LOFF;
        /* verilator lint_off UNUSEDSIGNAL */
        // bits 2:0 are zero; bits above the index are zero in the bytes read
        wire [12:0] lso = lo - 13'd32;
        /* verilator lint_on UNUSEDSIGNAL */
        assign lane_ctl[g] = phase_reg == P_CTL && lo < 13'd32;
        assign lane_ctl_w[2*g +: 2] = lo[4:3];
        assign lane_seg[g] = (phase_reg != P_CTL && lo >= cur_off_reg && lo < chunk_end_reg) ||
                             (phase_reg == P_CTL && lo >= 13'd32 && lo < 13'd64);
        assign lane_hi[g] = lso[3];
        assign lane_idx[SIW*g +: SIW] = lso[4 +: SIW];
        // the high word of a data segment: its length counts
        assign lane_data_len[g] = phase_reg != P_CTL && lane_seg[g] && lso[3] &&
                                  !(f_rdma && lso[4 +: SIW] == {SIW{1'b0}});
    end
endgenerate

// ------------------------------------------------------------ next state

integer w;

always @* begin
    state_next = state_reg;
    phase_next = phase_reg;
    va_next = va_reg;
    handle_next = handle_reg;
    ptag_next = ptag_reg;
    recv_next = recv_reg;
    mts_next = mts_reg;
    rwe_next = rwe_reg;
    rre_next = rre_reg;
    lk_va_next = lk_va_reg;
    lk_len_next = lk_len_reg;
    pa_next = pa_reg;
    held_next = held_reg;
    held_ep_next = held_ep_reg;
    cur_off_next = cur_off_reg;
    end_off_next = end_off_reg;
    chunk_end_next = chunk_end_reg;
    beat_off_next = beat_off_reg;
    bus_err_next = bus_err_reg;
    spec_bad_next = spec_bad_reg;
    ctl0_next = ctl0_reg;
    ctl1_next = ctl1_reg;
    ctl2_next = ctl2_reg;
    ctl3_next = ctl3_reg;
    sum_next = sum_reg;
    kind_next = kind_reg;
    status_next = status_reg;
    check_next = check_reg;
    tpt_err_next = tpt_err_reg;
    bus_resp_next = bus_resp_reg;
    ctl_valid_next = ctl_valid_reg;

    case (state_reg)
    S_IDLE: begin
        if (req_valid) begin
            va_next = {req_va[63:6], 6'd0};
            handle_next = req_handle;
            ptag_next = req_ptag;
            recv_next = req_recv;
            mts_next = req_max_transfer;
            rwe_next = req_rdma_write_en;
            rre_next = req_rdma_read_en;
            phase_next = P_CTL;
            lk_va_next = {req_va[63:6], 6'd0};
            lk_len_next = `VIA_DESC_CTL_BYTES;
            cur_off_next = 13'd0;
            // the first burst reads the whole 64-byte block: the control
            // segment and, speculatively, the first two segments
            end_off_next = 13'd64;  // DESC_ALIGN
            bus_err_next = 1'b0;
            spec_bad_next = 1'b0;
            sum_next = 40'd0;
            ctl0_next = 64'd0;
            ctl1_next = 64'd0;
            ctl2_next = 64'd0;
            ctl3_next = 64'd0;
            kind_next = RES_DESC;
            status_next = 32'd0;
            check_next = CHK_OK;
            tpt_err_next = 3'd0;
            bus_resp_next = 2'd0;
            ctl_valid_next = 1'b0;
            state_next = S_LK;
        end
    end
    S_LK: begin
        if (lk_fire) begin
            state_next = S_LKW;
        end
    end
    S_LKW: begin
        if (rs_fire) begin
            if (rs_err != 3'd0) begin
                kind_next = RES_STATUS;
                status_next = ST_PROTECTION;
                check_next = phase_reg == P_CTL ? CHK_XLAT_CTL : CHK_XLAT_SEGS;
                tpt_err_next = rs_err;
                state_next = S_RES;
            end else begin
                held_next = 1'b1;
                held_ep_next = rs_epoch;
                pa_next = rs_pa;
                // the first lookup of the rest is followed by the control
                // segment's checks before anything is read
                state_next = phase_reg == P_REST ? S_CHECK : S_AR;
            end
        end
    end
    S_CHECK: begin
        state_next = S_RES;
        kind_next = RES_STATUS;
        status_next = ST_FORMAT;
        if (chk_reserved) begin
            check_next = CHK_RESERVED;
        end else if (chk_op) begin
            check_next = CHK_OP;
        end else if (chk_rdma_en) begin
            check_next = CHK_RDMA_EN;
        end else if (chk_no_addr) begin
            check_next = CHK_NO_ADDR_SEG;
        end else if (chk_limit) begin
            check_next = CHK_SEG_LIMIT;
        end else begin
            kind_next = RES_DESC;
            status_next = 32'd0;
            if (f_seg_count == 16'd0) begin
                state_next = S_FINAL;
            end else if (f_seg_count <= 16'd2 && !spec_bad_reg) begin
                // the segments came with the control segment's burst (bytes
                // 32..63, read before this lookup checked them): no read
                state_next = S_FINAL;
                held_next = 1'b0;
                sum_next = {8'd0, spec_len0} + {8'd0, spec_len1};
            end else begin
                state_next = S_AR;
            end
        end
        if (state_next == S_RES) begin
            held_next = 1'b0;
        end
    end
    S_AR: begin
        if (ar_fire) begin
            chunk_end_next = cur_off_reg + chunk;
            beat_off_next = cur_off_reg & ~(BYTES[12:0] - 13'd1);
            state_next = S_R;
        end
    end
    S_R: begin
        if (r_fire) begin
            beat_off_next = beat_off_reg + BYTES[12:0];
            if (m_axi_rresp[1] && phase_reg == P_CTL && beat_off_reg >= 13'd32) begin
                spec_bad_next = 1'b1;
            end else if (m_axi_rresp[1] && !bus_err_reg) begin
                bus_err_next = 1'b1;
                bus_resp_next = m_axi_rresp;
            end
            for (w = 0; w < WORDS; w = w + 1) begin
                if (lane_ctl[w]) begin
                    case (lane_ctl_w[2*w +: 2])
                    2'd0: ctl0_next = m_axi_rdata[64*w +: 64];
                    2'd1: ctl1_next = m_axi_rdata[64*w +: 64];
                    2'd2: ctl2_next = m_axi_rdata[64*w +: 64];
                    default: ctl3_next = m_axi_rdata[64*w +: 64];
                    endcase
                end
                if (lane_data_len[w]) begin
                    sum_next = sum_next + {8'd0, m_axi_rdata[64*w + 32 +: 32]};
                end
            end
            if (m_axi_rlast) begin
                held_next = 1'b0;
                cur_off_next = chunk_end_reg;
                if (bus_err_next) begin
                    kind_next = RES_BUS;
                    status_next = ST_TRANSPORT;
                    check_next = CHK_BUS;
                    state_next = S_RES;
                end else if (phase_reg == P_CTL) begin
                    ctl_valid_next = 1'b1;
                    // the rest is read from byte 32 unless the speculative
                    // bytes 32..63 hold all of it
                    cur_off_next = 13'd32;
                    if (ctl1_next[47:32] == 16'd0) begin
                        state_next = S_CHECK;
                    end else begin
                        phase_next = P_REST;
                        lk_va_next = va_reg + `VIA_DESC_CTL_BYTES;
                        lk_len_next = {12'd0, ctl1_next[47:32], 4'd0};
                        end_off_next = 13'd32 + {2'd0, ctl1_next[38:32], 4'd0};
                        state_next = S_LK;
                    end
                end else if (chunk_end_reg == end_off_reg) begin
                    state_next = S_FINAL;
                end else begin
                    phase_next = P_MORE;
                    lk_va_next = va_reg + {51'd0, chunk_end_reg};
                    lk_len_next = {19'd0, end_off_reg - chunk_end_reg};
                    state_next = S_LK;
                end
            end
        end
    end
    S_FINAL: begin
        state_next = S_RES;
        if (chk_addr_res) begin
            kind_next = RES_STATUS;
            status_next = ST_FORMAT;
            check_next = CHK_ADDR_RESERVED;
        end else if (chk_len_sum) begin
            kind_next = RES_STATUS;
            status_next = ST_LENGTH;
            check_next = CHK_LEN_SUM;
        end else if (chk_len_max) begin
            kind_next = RES_STATUS;
            status_next = ST_LENGTH;
            check_next = CHK_LEN_MAX;
        end
    end
    default: begin  // S_RES
        if (res_ready) begin
            state_next = S_IDLE;
        end
    end
    endcase
end

always @(posedge clk) begin
    if (rst) begin
        state_reg <= S_IDLE;
        phase_reg <= P_CTL;
        held_reg <= 1'b0;
        held_ep_reg <= 1'b0;
        va_reg <= 64'd0;
        handle_reg <= 32'd0;
        ptag_reg <= 16'd0;
        recv_reg <= 1'b0;
        mts_reg <= 32'd0;
        rwe_reg <= 1'b0;
        rre_reg <= 1'b0;
        lk_va_reg <= 64'd0;
        lk_len_reg <= 32'd0;
        pa_reg <= {AW{1'b0}};
        cur_off_reg <= 13'd0;
        end_off_reg <= 13'd0;
        chunk_end_reg <= 13'd0;
        beat_off_reg <= 13'd0;
        bus_err_reg <= 1'b0;
        spec_bad_reg <= 1'b0;
        ctl0_reg <= 64'd0;
        ctl1_reg <= 64'd0;
        ctl2_reg <= 64'd0;
        ctl3_reg <= 64'd0;
        sum_reg <= 40'd0;
        kind_reg <= RES_DESC;
        status_reg <= 32'd0;
        check_reg <= CHK_OK;
        tpt_err_reg <= 3'd0;
        bus_resp_reg <= 2'd0;
        ctl_valid_reg <= 1'b0;
    end else begin
        state_reg <= state_next;
        phase_reg <= phase_next;
        held_reg <= held_next;
        held_ep_reg <= held_ep_next;
        va_reg <= va_next;
        handle_reg <= handle_next;
        ptag_reg <= ptag_next;
        recv_reg <= recv_next;
        mts_reg <= mts_next;
        rwe_reg <= rwe_next;
        rre_reg <= rre_next;
        lk_va_reg <= lk_va_next;
        lk_len_reg <= lk_len_next;
        pa_reg <= pa_next;
        cur_off_reg <= cur_off_next;
        end_off_reg <= end_off_next;
        chunk_end_reg <= chunk_end_next;
        beat_off_reg <= beat_off_next;
        bus_err_reg <= bus_err_next;
        spec_bad_reg <= spec_bad_next;
        ctl0_reg <= ctl0_next;
        ctl1_reg <= ctl1_next;
        ctl2_reg <= ctl2_next;
        ctl3_reg <= ctl3_next;
        sum_reg <= sum_next;
        kind_reg <= kind_next;
        status_reg <= status_next;
        check_reg <= check_next;
        tpt_err_reg <= tpt_err_next;
        bus_resp_reg <= bus_resp_next;
        ctl_valid_reg <= ctl_valid_next;
    end
end

// the segment buffer: each 64-bit word of a beat of the rest that lies in
// the current burst's bytes
integer wi;
always @(posedge clk) begin
    if (r_fire) begin
        for (wi = 0; wi < WORDS; wi = wi + 1) begin
            if (lane_seg[wi]) begin
                if (lane_hi[wi]) begin
                    seg_hi[lane_idx[SIW*wi +: SIW]] <= m_axi_rdata[64*wi +: 64];
                end else begin
                    seg_lo[lane_idx[SIW*wi +: SIW]] <= m_axi_rdata[64*wi +: 64];
                end
            end
        end
    end
end

// ------------------------------------------------------------ outputs

assign req_ready = state_reg == S_IDLE;

assign lk_valid = state_reg == S_LK;
assign lk_handle = handle_reg;
assign lk_va = lk_va_reg;
assign lk_len = lk_len_reg;
assign lk_ptag = ptag_reg;
assign lk_kind = KIND_LOCAL_READ;
assign rs_ready = state_reg == S_LKW;

assign m_axi_arid = ARID;
assign m_axi_araddr = {pa_reg[AW-1:SIZE], {SIZE{1'b0}}};
assign m_axi_arlen = arlen_w[7:0];
assign m_axi_arsize = SIZE[2:0];
assign m_axi_arburst = 2'b01;
assign m_axi_arlock = 1'b0;
assign m_axi_arcache = AXI_CACHE;
assign m_axi_arprot = AXI_PROT;
assign m_axi_arvalid = state_reg == S_AR;
assign m_axi_rready = state_reg == S_R;

assign res_valid = state_reg == S_RES;
assign res_kind = kind_reg;
assign res_status = status_reg;
assign res_check = check_reg;
assign res_tpt_err = tpt_err_reg;
assign res_bus_resp = bus_resp_reg;
assign res_ctl_valid = ctl_valid_reg;
// the control segment's fields, 0 unless it was read without error
assign res_next = ctl_valid_reg ? ctl0_reg : 64'd0;
assign res_next_handle = ctl_valid_reg ? f_next_handle : 32'd0;
assign res_seg_count = ctl_valid_reg ? f_seg_count : 16'd0;
assign res_control = ctl_valid_reg ? f_control : 16'd0;
assign res_immediate = ctl_valid_reg ? f_immediate : 32'd0;
assign res_length = ctl_valid_reg ? f_length : 32'd0;

wire seg_in = {24'd0, seg_idx} < SEGS;
/* verilator lint_off UNUSEDSIGNAL */
// bits above SIW only decide seg_in
wire [7:0] seg_idx_u = seg_idx;
/* verilator lint_on UNUSEDSIGNAL */
wire [SIW-1:0] seg_i = seg_idx_u[SIW-1:0];
wire [63:0] seg_lo_rd = seg_in ? seg_lo[seg_i] : 64'd0;
wire [63:0] seg_hi_rd = seg_in ? seg_hi[seg_i] : 64'd0;
assign seg_addr = seg_lo_rd;
assign seg_handle = seg_hi_rd[31:0];
assign seg_len = seg_hi_rd[63:32];

endmodule

`default_nettype wire
