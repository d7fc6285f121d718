// via_desc_pipe: pipelined descriptor fetch unit of the vianic NIC (issue 9,
// part 2).
//
// Same checks, same order and same result encoding as via_desc_fetch (read
// its header and docs/vi.md "Descriptor fetch unit"): a descriptor's result
// is identical to the one via_desc_fetch gives. The difference: up to DEPTH
// descriptors are in flight at once, their lookups and bursts overlap, and
// the results come in request order.
//
// Slots. Every request takes a slot (0..DEPTH-1, handed out in order:
// request n gets slot n mod DEPTH) and keeps it until its result was taken
// and released. The slot holds the descriptor's state (small fields in
// flip-flops), its control segment (ctl RAM) and its segments (segment RAM,
// a via_ram); res_slot names it, seg_rd_* reads its segments.
//
// Per descriptor, the steps of via_desc_fetch:
//   1. lookup (va, 32 bytes)                  error: STATUS XLAT_CTL
//   2. burst of the 64-byte block             SLVERR/DECERR on bytes 0..31:
//      (control segment + bytes 32..63,       BUS; on bytes 32..63 only: they
//      speculatively: segments 0 and 1)       are read again in step 5
//   3. SegCount > 0: lookup (va + 32, 16 * SegCount)  error: XLAT_SEGS
//   4. control segment checks (RESERVED, OP, RDMA_EN, NO_ADDR_SEG,
//      SEG_LIMIT; computed when the control segment arrives, applied after
//      step 3 so that XLAT_SEGS comes first)
//   5. SegCount > 2 (or the speculative bytes failed): the segments are
//      read from byte 32, one burst per page (the second page looked up on
//      its own: XLAT_SEGS); BUS on a bus error
//   6. ADDR_RESERVED, LEN_SUM, LEN_MAX.
// A failure ends the descriptor at once: nothing more is looked up or read.
//
// Shared resources, all in order: the lookup port (one lookup presented at a
// time from a register, the oldest slot that needs one first; answers come
// in lookup order, a FIFO of slot numbers names them), the AR channel (a
// FIFO of bursts to issue, filled by the lookup answers; one AR register),
// the R channel (a FIFO of issued bursts; R beats come in AR order, one ID).
// Every FIFO has DEPTH entries and a slot has at most one entry in each, so
// none ever fills: rs_ready and m_axi_rready are constant 1.
//
// Results: the oldest slot, once finished, is read out of the RAMs (one
// cycle) and presented (res_valid until res_ready; every res_* stable
// meanwhile). A new result can follow every second cycle.
//
// Release: rel_valid (a one-cycle pulse) frees the oldest slot whose result
// was taken and not yet released (also in the cycle of that result's
// take). A pulse with no such slot is a user error: it is remembered and
// releases the next result at its take. A slot is reused only after its
// release; its segments stay readable until then.
//
// Segments: seg_rd_en with seg_rd_slot, seg_rd_idx -> seg_addr, seg_handle,
// seg_len the cycle after (registered; they hold until the next seg_rd_en).
// Entry i as via_desc_fetch's seg_idx i (0 = the address segment of an
// RDMA); 0 for i > MAX_SEGS; meaningful for a DESC result from its take to
// its release.
//
// Fence (via_tpt's inflight_epoch; docs/memory.md): bit e is 1 from the
// cycle a successful lookup answer of epoch e is accepted (combinational
// term) until the last R beat of the burst issued under it, or until the
// descriptor ends without such a burst. Each slot holds at most one
// translation.
//
// Abort (level): no request is accepted and no lookup or AR is loaded (one
// already presented stays until it is taken, as the handshakes require);
// lookup answers and R beats still in flight are taken. A result already
// presented (or being read out for presentation) when abort rises is still
// presented until taken; the results of every other request in flight are
// dropped: they never come (res_slot/res_tag of the results that do come
// say which). Their slots are freed by the unit once every older slot was
// released. busy = some request is in flight (not yet finished), a result
// is being presented, or a lookup or AR is presented: under abort it falls
// once the lookups and bursts in flight have drained and a presented
// result was taken. After abort falls the unit works on normally (slot
// numbering goes on).
//
// Timing: req_ready, lk_valid, m_axi_arvalid, res_valid depend on registers
// (req_ready and the loads also on abort); rs_ready and m_axi_rready are
// constant 1; inflight_epoch has a combinational term (rs_valid, rs_err,
// rs_epoch); seg_* are a multiplexer on a registered RAM read.

`timescale 1ns / 1ps
`default_nettype none

`include "via_param_check.vh"
`include "via_desc.vh"
`include "via_bar0.vh"

module via_desc_pipe #(
    parameter MAX_SEGS   = 16,   // data segments per descriptor (MaxSegmentsPerDesc), 1..124
    parameter DATA_WIDTH = 64,   // AXI4 read data bits: 64, 128, 256 or 512
    parameter ADDR_WIDTH = 48,   // physical (DMA) address bits, 32..64
    parameter ID_WIDTH   = 4,    // AXI4 ID bits, 1..32
    parameter [ID_WIDTH-1:0] ARID = 0,  // the ARID of every burst
    parameter DEPTH      = 8,    // descriptors in flight (slots), power of two, 2..16
    parameter TAG_WIDTH  = 16,   // opaque request tag, returned with the result, 1..32
    // derived, do not override
    parameter SW         = (DEPTH > 2) ? $clog2(DEPTH) : 1
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
    input  wire [TAG_WIDTH-1:0]    req_tag,           // returned with the result

    // result (request order)
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
    output wire [TAG_WIDTH-1:0]    res_tag,
    output wire [SW-1:0]           res_slot,

    // segment RAM read port (registered)
    input  wire                    seg_rd_en,
    input  wire [SW-1:0]           seg_rd_slot,
    input  wire [7:0]              seg_rd_idx,
    output wire [63:0]             seg_addr,
    output wire [31:0]             seg_handle,
    output wire [31:0]             seg_len,

    // release of the oldest taken result's slot
    input  wire                    rel_valid,

    // TPT lookups (via_tpt's lookup port; no tag; answers in order)
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
    output wire                    m_axi_rready,

    /* verilator lint_off SYMRSVDWORD */
    input  wire                    abort,      // level: drain, drop results not yet presented
    /* verilator lint_on SYMRSVDWORD */
    output wire                    busy
);

generate
    if (MAX_SEGS < 1 || MAX_SEGS > 124) begin : g_bad_max_segs
        `VIA_PARAM_FAIL(("via_desc_pipe: MAX_SEGS=%0d, must be 1..124", MAX_SEGS))
    end
    if (DATA_WIDTH != 64 && DATA_WIDTH != 128 && DATA_WIDTH != 256 && DATA_WIDTH != 512) begin : g_bad_data_width
        `VIA_PARAM_FAIL(("via_desc_pipe: DATA_WIDTH=%0d, must be 64, 128, 256 or 512", DATA_WIDTH))
    end
    if (ADDR_WIDTH < 32 || ADDR_WIDTH > 64) begin : g_bad_addr_width
        `VIA_PARAM_FAIL(("via_desc_pipe: ADDR_WIDTH=%0d, must be 32..64", ADDR_WIDTH))
    end
    if (ID_WIDTH < 1 || ID_WIDTH > 32) begin : g_bad_id_width
        `VIA_PARAM_FAIL(("via_desc_pipe: ID_WIDTH=%0d, must be 1..32", ID_WIDTH))
    end
    if (DEPTH != 2 && DEPTH != 4 && DEPTH != 8 && DEPTH != 16) begin : g_bad_depth
        `VIA_PARAM_FAIL(("via_desc_pipe: DEPTH=%0d, must be 2, 4, 8 or 16", DEPTH))
    end
    if (TAG_WIDTH < 1 || TAG_WIDTH > 32) begin : g_bad_tag_width
        `VIA_PARAM_FAIL(("via_desc_pipe: TAG_WIDTH=%0d, must be 1..32", TAG_WIDTH))
    end
    if (SW != ((DEPTH > 2) ? $clog2(DEPTH) : 1)) begin : g_bad_sw
        `VIA_PARAM_FAIL(("via_desc_pipe: SW=%0d is derived, do not override", SW))
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
localparam MS = (MAX_SEGS >= 1 && MAX_SEGS <= 124) ? MAX_SEGS : 16;
localparam SEGS = MS + 1;
localparam D = (DEPTH == 2 || DEPTH == 4 || DEPTH == 8 || DEPTH == 16) ? DEPTH : 8;
localparam TW = (TAG_WIDTH >= 1 && TAG_WIDTH <= 32) ? TAG_WIDTH : 16;

// segment RAM: a word holds RB bytes of the descriptor (a beat, at least one
// 16-byte segment), the words of a slot at {slot, offset >> RBL}
localparam RB = BYTES < 16 ? 16 : BYTES;
localparam RBL = $clog2(RB);
localparam RBITS = RB * 8;
localparam SPW = RB / 16;                        // segments per word
localparam NW = (32 + 16 * SEGS + RB - 1) / RB;  // words per slot
localparam NWL = NW > 2 ? $clog2(NW) : 1;
localparam SRAM_AW = SW + NWL;
localparam LANEW = SPW > 1 ? $clog2(SPW) : 1;

// slot states
localparam [2:0] T_FREE  = 3'd0;  // unused
localparam [2:0] T_LK    = 3'd1;  // needs a lookup (phase says which)
localparam [2:0] T_LKW   = 3'd2;  // lookup presented or outstanding
localparam [2:0] T_RD    = 3'd3;  // burst queued or outstanding
localparam [2:0] T_DONE  = 3'd4;  // result known
localparam [2:0] T_OUT   = 3'd5;  // result read out / presented
localparam [2:0] T_TAKEN = 3'd6;  // result taken, not yet released
localparam [2:0] T_DEAD  = 3'd7;  // dropped by abort, to be freed

// phases of a slot's fetch
localparam [1:0] P_CTL  = 2'd0;  // the control segment
localparam [1:0] P_REST = 2'd1;  // the rest, first page (lookup over all of it)
localparam [1:0] P_MORE = 2'd2;  // the rest, the following page

// ------------------------------------------------------------ functions

// the status bit and kind of a deciding check
function [31:0] status_of;
    input [3:0] c;
    begin
        case (c)
        CHK_OK: status_of = 32'd0;
        CHK_XLAT_CTL, CHK_XLAT_SEGS: status_of = ST_PROTECTION;
        CHK_LEN_SUM, CHK_LEN_MAX: status_of = ST_LENGTH;
        CHK_BUS: status_of = ST_TRANSPORT;
        default: status_of = ST_FORMAT;
        endcase
    end
endfunction

function [1:0] kind_of;
    input [3:0] c;
    begin
        kind_of = c == CHK_OK ? RES_DESC : c == CHK_BUS ? RES_BUS : RES_STATUS;
    end
endfunction

// ------------------------------------------------------------ slot state

reg [2:0]  sl_st [0:D-1];
reg [1:0]  sl_phase [0:D-1];
reg [57:0] sl_va [0:D-1];          // VA bits 63:6
reg [31:0] sl_handle [0:D-1];
reg [15:0] sl_ptag [0:D-1];
reg        sl_recv [0:D-1];
reg        sl_rwe [0:D-1];
reg        sl_rre [0:D-1];
reg [31:0] sl_mts [0:D-1];
reg        sl_drop [0:D-1];        // abort came while a lookup or burst was out
// after the control segment
reg [15:0] sl_segc [0:D-1];
reg [3:0]  sl_cchk [0:D-1];        // the control segment's checks (CHK_OK: pass)
reg        sl_spec [0:D-1];        // SegCount <= 2 and bytes 32..63 usable
reg [3:0]  sl_sfin [0:D-1];        // the segments' checks on bytes 32..63
reg        sl_rdma [0:D-1];
reg        sl_lgt [0:D-1];         // Length > MaxTransferSize
reg [39:0] sl_rem [0:D-1];         // Length minus the data lengths read so far
reg        sl_anz [0:D-1];         // the address segment's Reserved is nonzero
reg [12:0] sl_cur [0:D-1];         // next offset to read (phase MORE)
// translation held
reg        sl_held [0:D-1];
reg        sl_hep [0:D-1];
// result
reg [3:0]  sl_chk [0:D-1];
reg [2:0]  sl_tpt [0:D-1];
reg [1:0]  sl_resp [0:D-1];
reg        sl_ctlv [0:D-1];

// ring pointers (one wrap bit): tail = next slot to allocate, head = next
// result to read out, rel = oldest slot not yet released
reg [SW:0] tail_reg, head_reg, rel_reg;
wire [SW-1:0] tail_s = tail_reg[SW-1:0];
wire [SW-1:0] head_s = head_reg[SW-1:0];
wire [SW-1:0] rel_s = rel_reg[SW-1:0];
localparam [31:0] D32 = D;
wire [SW:0] used = tail_reg - rel_reg;
wire full = used == D32[SW:0];

// ------------------------------------------------------------ request

wire acc = req_valid && req_ready;
assign req_ready = !full && !abort;

// ------------------------------------------------------------ lookups

reg            lk_valid_reg;
reg [63:0]     lk_va_reg;
reg [31:0]     lk_len_reg;
reg [31:0]     lk_handle_reg;
reg [15:0]     lk_ptag_reg;

// the oldest slot (from head on) that needs a lookup
reg            lk_cand;
reg [SW-1:0]   lk_slot;
reg [SW-1:0]   lk_k;
integer k;
always @* begin
    lk_cand = 1'b0;
    lk_slot = head_s;
    lk_k = head_s;
    for (k = D - 1; k >= 0; k = k - 1) begin
        // (an SW-bit sum: it wraps around the ring)
        lk_k = head_s + k[SW-1:0];
        if (sl_st[lk_k] == T_LK) begin
            lk_cand = 1'b1;
            lk_slot = lk_k;
        end
    end
end

wire lk_fire = lk_valid_reg && lk_ready;
wire lk_load = lk_cand && (!lk_valid_reg || lk_ready) && !abort;

wire [12:0] lk_end = 13'd32 + {2'd0, sl_segc[lk_slot][6:0], 4'd0};
wire [63:0] lk_base = {sl_va[lk_slot], 6'd0};
reg  [63:0] lk_va_new;
reg  [31:0] lk_len_new;
always @* begin
    case (sl_phase[lk_slot])
    P_CTL: begin
        lk_va_new = lk_base;
        lk_len_new = `VIA_DESC_CTL_BYTES;
    end
    P_REST: begin
        lk_va_new = lk_base + `VIA_DESC_CTL_BYTES;
        lk_len_new = {12'd0, sl_segc[lk_slot], 4'd0};
    end
    default: begin
        lk_va_new = lk_base + {51'd0, sl_cur[lk_slot]};
        lk_len_new = {19'd0, lk_end - sl_cur[lk_slot]};
    end
    endcase
end

// the slots of the lookups presented or outstanding, in order
wire [SW-1:0] lq_slot;
/* verilator lint_off UNUSEDSIGNAL */
wire          lq_valid;
wire          lq_ready;
wire [$clog2(D + 1)-1:0] lq_level;
/* verilator lint_on UNUSEDSIGNAL */
via_fifo #(
    .WIDTH(SW),
    .DEPTH(D)
) u_lq (
    .clk(clk),
    .rst(rst),
    .s_data(lk_slot),
    .s_valid(lk_load),
    .s_ready(lq_ready),
    .m_data(lq_slot),
    .m_valid(lq_valid),
    .m_ready(rs_valid),
    .level(lq_level)
);

// the answer, registered, handled the cycle after
reg            a_valid_reg;
reg [SW-1:0]   a_slot_reg;
reg [2:0]      a_err_reg;
reg [AW-1:0]   a_pa_reg;
reg            a_ep_reg;
wire [SW-1:0]  a_s = a_slot_reg;
wire           a_ok = a_valid_reg && a_err_reg == 3'd0;
wire [1:0]     a_phase = sl_phase[a_s];
wire           a_stop = sl_drop[a_s] || abort;
wire [12:0]    a_end = 13'd32 + {2'd0, sl_segc[a_s][6:0], 4'd0};
// a good answer that is followed by a burst
reg            a_burst;
reg [12:0]     a_cur;
always @* begin
    a_burst = 1'b0;
    a_cur = 13'd0;
    if (a_ok && !a_stop) begin
        case (a_phase)
        P_CTL: begin
            a_burst = 1'b1;
            a_cur = 13'd0;
        end
        P_REST: begin
            a_burst = sl_cchk[a_s] == CHK_OK && !sl_spec[a_s];
            a_cur = 13'd32;
        end
        default: begin
            a_burst = 1'b1;
            a_cur = sl_cur[a_s];
        end
        endcase
    end
end
wire [12:0] a_endoff = a_phase == P_CTL ? 13'd64 : a_end;

// ------------------------------------------------------------ bursts

// bursts to issue: {slot, PA, first offset, end offset, control phase}
localparam AQW = SW + AW + 13 + 13 + 1;
wire [AQW-1:0] aq_in = {a_s, a_pa_reg, a_cur, a_endoff, a_phase == P_CTL};
wire [AQW-1:0] aq_out;
wire           aq_valid;
wire           aq_pop;
/* verilator lint_off UNUSEDSIGNAL */
wire           aq_ready;
wire [$clog2(D + 1)-1:0] aq_level;
/* verilator lint_on UNUSEDSIGNAL */
via_fifo #(
    .WIDTH(AQW),
    .DEPTH(D)
) u_aq (
    .clk(clk),
    .rst(rst),
    .s_data(aq_in),
    .s_valid(a_burst),
    .s_ready(aq_ready),
    .m_data(aq_out),
    .m_valid(aq_valid),
    .m_ready(aq_pop),
    .level(aq_level)
);
wire [SW-1:0] aq_slot = aq_out[AQW-1 -: SW];
wire [AW-1:0] aq_pa   = aq_out[27 +: AW];
wire [12:0]   aq_cur  = aq_out[14 +: 13];
wire [12:0]   aq_endo = aq_out[1 +: 13];
wire          aq_ctl  = aq_out[0];
// a queued burst of a slot dropped meanwhile is not issued
wire          aq_dead = aq_valid && (sl_drop[aq_slot] || abort);

// the burst: from aq_cur to the end of its page or of what is to be read
wire [12:0] to_page_end = 13'd4096 - {1'b0, aq_pa[11:0]};
wire [12:0] left = aq_endo - aq_cur;
wire [12:0] chunk = left < to_page_end ? left : to_page_end;
localparam [31:0] BYTES_M1_32 = BYTES - 1;
localparam [12:0] BYTES_M1 = BYTES_M1_32[12:0];
wire [13:0] beats = ({1'b0, chunk} + {1'b0, aq_cur & BYTES_M1} + {1'b0, BYTES_M1}) >> SIZE;
/* verilator lint_off UNUSEDSIGNAL */
// a burst has at most 256 beats (MAX_SEGS <= 124: at most 2032 bytes)
wire [13:0] arlen_w = beats - 14'd1;
/* verilator lint_on UNUSEDSIGNAL */

reg            ar_valid_reg;
reg [AW-1:0]   ar_addr_reg;
reg [7:0]      ar_len_reg;
// what the R stage needs of the presented burst
localparam RQW = SW + 1 + 13 + 13 + 1;
reg [RQW-1:0]  ar_info_reg;

wire ar_fire = ar_valid_reg && m_axi_arready;
wire ar_load = aq_valid && !aq_dead && (!ar_valid_reg || m_axi_arready);
assign aq_pop = ar_load || aq_dead;

// bursts issued, in order: {slot, control phase, first offset, chunk end,
// last chunk}
wire [RQW-1:0] rq_out;
/* verilator lint_off UNUSEDSIGNAL */
wire           rq_valid;
wire           rq_ready;
wire [$clog2(D + 1)-1:0] rq_level;
/* verilator lint_on UNUSEDSIGNAL */
wire           r_fire = m_axi_rvalid;
wire           r_end = r_fire && m_axi_rlast;
via_fifo #(
    .WIDTH(RQW),
    .DEPTH(D)
) u_rq (
    .clk(clk),
    .rst(rst),
    .s_data(ar_info_reg),
    .s_valid(ar_fire),
    .s_ready(rq_ready),
    .m_data(rq_out),
    .m_valid(rq_valid),
    .m_ready(r_end),
    .level(rq_level)
);
wire [SW-1:0] r_s      = rq_out[RQW-1 -: SW];
wire          r_ctl    = rq_out[27];
wire [12:0]   r_cur    = rq_out[14 +: 13];
wire [12:0]   r_cend   = rq_out[1 +: 13];
wire          r_lastc  = rq_out[0];

// ------------------------------------------------------------ R stage

reg         r_started_reg;
reg [12:0]  r_boff_reg;
reg         r_err_reg;
reg [1:0]   r_resp_reg;
reg         r_sbad_reg;
reg [39:0]  r_sum_reg;
reg         r_anz_reg;
reg [31:0]  r_sl0_reg, r_sl1_reg;
reg [63:0]  ctl0_reg, ctl1_reg, ctl2_reg, ctl3_reg;

wire [12:0] boff = r_started_reg ? r_boff_reg : (r_cur & ~BYTES_M1);

reg         r_err_next;
reg [1:0]   r_resp_next;
reg         r_sbad_next;
reg [39:0]  r_sum_next;
reg         r_anz_next;
reg [31:0]  r_sl0_next, r_sl1_next;
reg [63:0]  ctl0_next, ctl1_next, ctl2_next, ctl3_next;

wire r_rdma = sl_rdma[r_s];

// the 64-bit words of an R beat: lane g holds the bytes at offset
// boff + 8g of the descriptor
wire [WORDS-1:0]   lane_ctl;     // a control segment word (control phase)
wire [2*WORDS-1:0] lane_cw;      // which one
wire [WORDS-1:0]   lane_sl0;     // segment 0's high word (control phase)
wire [WORDS-1:0]   lane_sl1;     // segment 1's high word (control phase)
wire [WORDS-1:0]   lane_hi;      // a segment's high word in the burst's bytes
wire [WORDS-1:0]   lane_i0;      // ... of segment 0
genvar gv;
generate
    for (gv = 0; gv < WORDS; gv = gv + 1) begin : g_lane
        localparam [12:0] LOFF = gv * 8;
        wire [12:0] lo = boff + LOFF;
        /* verilator lint_off UNUSEDSIGNAL */
        // bits 2:0 are zero
        wire [12:0] lso = lo - 13'd32;
        /* verilator lint_on UNUSEDSIGNAL */
        assign lane_ctl[gv] = r_ctl && lo < 13'd32;
        assign lane_cw[2*gv +: 2] = lo[4:3];
        assign lane_sl0[gv] = r_ctl && lo == 13'd40;
        assign lane_sl1[gv] = r_ctl && lo == 13'd56;
        assign lane_hi[gv] = !r_ctl && lo >= r_cur && lo < r_cend && lso[3];
        assign lane_i0[gv] = lso[12:4] == 9'd0;
    end
endgenerate

integer g;
always @* begin
    r_err_next = r_err_reg;
    r_resp_next = r_resp_reg;
    r_sbad_next = r_sbad_reg;
    r_sum_next = r_sum_reg;
    r_anz_next = r_anz_reg;
    r_sl0_next = r_sl0_reg;
    r_sl1_next = r_sl1_reg;
    ctl0_next = ctl0_reg;
    ctl1_next = ctl1_reg;
    ctl2_next = ctl2_reg;
    ctl3_next = ctl3_reg;
    if (r_fire) begin
        if (m_axi_rresp[1] && r_ctl && boff >= 13'd32) begin
            r_sbad_next = 1'b1;
        end else if (m_axi_rresp[1] && !r_err_reg) begin
            r_err_next = 1'b1;
            r_resp_next = m_axi_rresp;
        end
        for (g = 0; g < WORDS; g = g + 1) begin
            if (lane_ctl[g]) begin
                case (lane_cw[2*g +: 2])
                2'd0: ctl0_next = m_axi_rdata[64*g +: 64];
                2'd1: ctl1_next = m_axi_rdata[64*g +: 64];
                2'd2: ctl2_next = m_axi_rdata[64*g +: 64];
                default: ctl3_next = m_axi_rdata[64*g +: 64];
                endcase
            end
            // the speculative bytes: the high words of segments 0 and 1
            if (lane_sl0[g]) r_sl0_next = m_axi_rdata[64*g + 32 +: 32];
            if (lane_sl1[g]) r_sl1_next = m_axi_rdata[64*g + 32 +: 32];
            if (lane_hi[g]) begin
                // segment 0 of an RDMA is the address segment: its Reserved
                // word does not count
                if (lane_i0[g] && m_axi_rdata[64*g + 32 +: 32] != 32'd0) r_anz_next = 1'b1;
                if (!(lane_i0[g] && r_rdma)) r_sum_next = r_sum_next + {8'd0, m_axi_rdata[64*g + 32 +: 32]};
            end
        end
    end
end

// the control segment's fields and checks at the end of its burst
wire [15:0] c_segc        = ctl1_next[47:32];
wire [15:0] c_control     = ctl1_next[63:48];
wire [31:0] c_reserved    = ctl2_next[31:0];
wire [31:0] c_length      = ctl3_next[31:0];
wire [1:0]  c_op          = c_control[`VIA_DESC_CTL_CONTROL_OP_RANGE];
wire        c_rdma        = c_op == OP_RDMA_WRITE || c_op == OP_RDMA_READ;
localparam [31:0] LIM32 = MS;
localparam [16:0] LIM = LIM32[16:0];
localparam [16:0] LIM_RDMA = LIM + 17'd1;
reg [3:0] c_chk;
always @* begin
    if ((c_control & CONTROL_RESERVED) != 16'd0 || c_reserved != 32'd0) begin
        c_chk = CHK_RESERVED;
    end else if (c_op == 2'd3 || (sl_recv[r_s] && c_op != OP_SEND_RECV)) begin
        c_chk = CHK_OP;
    end else if ((c_op == OP_RDMA_WRITE && !sl_rwe[r_s]) || (c_op == OP_RDMA_READ && !sl_rre[r_s])) begin
        c_chk = CHK_RDMA_EN;
    end else if (c_rdma && c_segc == 16'd0) begin
        c_chk = CHK_NO_ADDR_SEG;
    end else if ({1'b0, c_segc} > (c_rdma ? LIM_RDMA : LIM)) begin
        c_chk = CHK_SEG_LIMIT;
    end else begin
        c_chk = CHK_OK;
    end
end
wire        c_lgt = c_length > sl_mts[r_s];
// the segments' checks on the speculative bytes (SegCount <= 2)
wire [31:0] c_sl0 = (!c_rdma && c_segc != 16'd0) ? r_sl0_next : 32'd0;
wire [31:0] c_sl1 = (c_segc == 16'd2) ? r_sl1_next : 32'd0;
wire [32:0] c_ssum = {1'b0, c_sl0} + {1'b0, c_sl1};
wire [3:0]  c_sfin = (c_rdma && r_sl0_next != 32'd0) ? CHK_ADDR_RESERVED
                   : c_ssum != {1'b0, c_length} ? CHK_LEN_SUM
                   : c_lgt ? CHK_LEN_MAX : CHK_OK;
// SegCount 0: decided at once
wire [3:0]  c_zfin = c_chk != CHK_OK ? c_chk
                   : c_length != 32'd0 ? CHK_LEN_SUM
                   : c_lgt ? CHK_LEN_MAX : CHK_OK;

// the segments' checks at the end of the last burst
wire [39:0] s_rem = sl_rem[r_s] - r_sum_next;
wire        s_anz = sl_anz[r_s] || r_anz_next;
wire [3:0]  s_fin = (r_rdma && s_anz) ? CHK_ADDR_RESERVED
                  : s_rem != 40'd0 ? CHK_LEN_SUM
                  : sl_lgt[r_s] ? CHK_LEN_MAX : CHK_OK;
wire        r_stop = sl_drop[r_s] || abort;

always @(posedge clk) begin
    if (rst) begin
        r_started_reg <= 1'b0;
        r_boff_reg <= 13'd0;
        r_err_reg <= 1'b0;
        r_resp_reg <= 2'd0;
        r_sbad_reg <= 1'b0;
        r_sum_reg <= 40'd0;
        r_anz_reg <= 1'b0;
        r_sl0_reg <= 32'd0;
        r_sl1_reg <= 32'd0;
        ctl0_reg <= 64'd0;
        ctl1_reg <= 64'd0;
        ctl2_reg <= 64'd0;
        ctl3_reg <= 64'd0;
    end else if (r_fire) begin
        if (m_axi_rlast) begin
            // the next burst starts afresh
            r_started_reg <= 1'b0;
            r_err_reg <= 1'b0;
            r_resp_reg <= 2'd0;
            r_sbad_reg <= 1'b0;
            r_sum_reg <= 40'd0;
            r_anz_reg <= 1'b0;
            r_sl0_reg <= 32'd0;
            r_sl1_reg <= 32'd0;
            ctl0_reg <= 64'd0;
            ctl1_reg <= 64'd0;
            ctl2_reg <= 64'd0;
            ctl3_reg <= 64'd0;
        end else begin
            r_started_reg <= 1'b1;
            r_boff_reg <= boff + BYTES[12:0];
            r_err_reg <= r_err_next;
            r_resp_reg <= r_resp_next;
            r_sbad_reg <= r_sbad_next;
            r_sum_reg <= r_sum_next;
            r_anz_reg <= r_anz_next;
            r_sl0_reg <= r_sl0_next;
            r_sl1_reg <= r_sl1_next;
            ctl0_reg <= ctl0_next;
            ctl1_reg <= ctl1_next;
            ctl2_reg <= ctl2_next;
            ctl3_reg <= ctl3_next;
        end
    end
end

// ------------------------------------------------------------ segment RAM

wire [SRAM_AW-1:0] sw_addr = {r_s, boff[RBL +: NWL]};
wire               sw_en;
wire [RBITS-1:0]   sw_data;
generate
    if (BYTES < 16) begin : g_pair
        // 64-bit beats: the low word of a segment waits for its high word
        // (a burst starts and ends on a segment boundary)
        reg [63:0] lo_word_reg;
        always @(posedge clk) begin
            if (r_fire && !boff[3]) lo_word_reg <= m_axi_rdata[63:0];
        end
        assign sw_en = r_fire && boff[3];
        assign sw_data = {m_axi_rdata[63:0], lo_word_reg};
    end else begin : g_beat
        assign sw_en = r_fire;
        assign sw_data = m_axi_rdata[RBITS-1:0];
    end
endgenerate

// read: segment i lies at descriptor offset 32 + 16 i
/* verilator lint_off UNUSEDSIGNAL */
// the word and the segment in it; bits of larger indexes only decide sr_in
wire [12:0]        sr_off = 13'd32 + {1'b0, seg_rd_idx, 4'd0};
/* verilator lint_on UNUSEDSIGNAL */
wire [SRAM_AW-1:0] sr_addr = {seg_rd_slot, sr_off[RBL +: NWL]};
wire [RBITS-1:0]   sr_data;
reg                sr_in_reg;
reg [LANEW-1:0]    sr_lane_reg;
localparam [31:0] SEGS32 = SEGS;
always @(posedge clk) begin
    if (rst) begin
        sr_in_reg <= 1'b0;
        sr_lane_reg <= {LANEW{1'b0}};
    end else if (seg_rd_en) begin
        sr_in_reg <= {24'd0, seg_rd_idx} < SEGS32;
        if (SPW > 1) begin
            sr_lane_reg <= sr_off[4 +: LANEW];
        end
    end
end
wire [127:0] sr_word;
generate
    if (SPW > 1) begin : g_lanes
        assign sr_word = sr_data[128 * sr_lane_reg +: 128];
    end else begin : g_one
        /* verilator lint_off UNUSEDSIGNAL */
        // one segment per word
        wire unused_lane = ^sr_lane_reg;
        /* verilator lint_on UNUSEDSIGNAL */
        assign sr_word = sr_data[127:0];
    end
endgenerate
wire [127:0] sr_seg = sr_in_reg ? sr_word : 128'd0;
assign seg_addr = sr_seg[63:0];
assign seg_handle = sr_seg[95:64];
assign seg_len = sr_seg[127:96];

via_ram #(
    .WIDTH(RBITS),
    .WORDS(D << NWL)
) u_seg_ram (
    .clk(clk),
    .wr_en(sw_en),
    .wr_addr(sw_addr),
    .wr_data(sw_data),
    .rd_en(seg_rd_en),
    .rd_addr(sr_addr),
    .rd_data(sr_data)
);

// ------------------------------------------------------------ results

// the control segment of each slot (written at the end of its burst) and
// the request tags; read when the slot's result is read out
wire c_wr = r_end && r_ctl && !r_err_next;
reg             o_rd_reg;       // the RAMs are being read for o_slot
reg             res_valid_reg;
reg [SW-1:0]    o_slot_reg;
reg [3:0]       o_chk_reg;
reg [2:0]       o_tpt_reg;
reg [1:0]       o_resp_reg;
reg             o_ctlv_reg;
wire            res_fire = res_valid_reg && res_ready;
wire            o_commit = sl_st[head_s] == T_DONE && head_reg != tail_reg && !abort
                        && !o_rd_reg && (!res_valid_reg || res_ready);
wire            o_skip = sl_st[head_s] == T_DEAD && head_reg != tail_reg;
wire [191:0]    o_ctl;          // Length, ImmediateData, word 1, Next
wire [TW-1:0]   o_tag;

via_ram #(
    .WIDTH(192),
    .WORDS(D)
) u_ctl_ram (
    .clk(clk),
    .wr_en(c_wr),
    .wr_addr(r_s),
    .wr_data({ctl3_next[31:0], ctl2_next[63:32], ctl1_next, ctl0_next}),
    .rd_en(o_commit),
    .rd_addr(head_s),
    .rd_data(o_ctl)
);

via_ram #(
    .WIDTH(TW),
    .WORDS(D)
) u_tag_ram (
    .clk(clk),
    .wr_en(acc),
    .wr_addr(tail_s),
    .wr_data(req_tag[TW-1:0]),
    .rd_en(o_commit),
    .rd_addr(head_s),
    .rd_data(o_tag)
);

// release: the oldest slot whose result was taken (maybe in this cycle),
// or a slot dropped by abort once it is the oldest. Release pulses are
// counted (rel_pend): one that comes while the oldest slot is a dropped one
// frees the taken slot after it.
reg  [SW:0] rel_pend_reg;
wire        rel_any = rel_valid || rel_pend_reg != {(SW + 1){1'b0}};
wire        rel_taken = rel_reg != head_reg && rel_any
    && (sl_st[rel_s] == T_TAKEN || (sl_st[rel_s] == T_OUT && res_fire && o_slot_reg == rel_s));
wire        rel_do = rel_taken || (rel_reg != head_reg && sl_st[rel_s] == T_DEAD);

// ------------------------------------------------------------ slot updates

// Each event writes the one slot it names (indexed writes in this order:
// a later one wins, as in a loop over the slots, but the model does O(1)
// work per cycle, not O(DEPTH)); only abort and reset touch every slot.
integer i;
always @(posedge clk) begin
    if (rst) begin
        for (i = 0; i < D; i = i + 1) begin
            sl_st[i] <= T_FREE;
            sl_held[i] <= 1'b0;
            sl_hep[i] <= 1'b0;
            sl_drop[i] <= 1'b0;
        end
    end else begin
        // request
        if (acc) begin
            sl_st[tail_s] <= T_LK;
            sl_phase[tail_s] <= P_CTL;
            sl_va[tail_s] <= req_va[63:6];
            sl_handle[tail_s] <= req_handle;
            sl_ptag[tail_s] <= req_ptag;
            sl_recv[tail_s] <= req_recv;
            sl_rwe[tail_s] <= req_rdma_write_en;
            sl_rre[tail_s] <= req_rdma_read_en;
            sl_mts[tail_s] <= req_max_transfer;
            sl_drop[tail_s] <= 1'b0;
            sl_held[tail_s] <= 1'b0;
            sl_chk[tail_s] <= CHK_OK;
            sl_tpt[tail_s] <= 3'd0;
            sl_resp[tail_s] <= 2'd0;
            sl_ctlv[tail_s] <= 1'b0;
            sl_segc[tail_s] <= 16'd0;
            sl_anz[tail_s] <= 1'b0;
        end
        // abort: what waits for nothing is dropped at once, what waits
        // for an answer or a burst when that comes
        if (abort) begin
            for (i = 0; i < D; i = i + 1) begin
                if (sl_st[i] == T_LK || sl_st[i] == T_DONE) begin
                    sl_st[i] <= T_DEAD;
                end
                if (sl_st[i] == T_LKW || sl_st[i] == T_RD) begin
                    sl_drop[i] <= 1'b1;
                end
            end
        end
        // lookup presented
        if (lk_load) begin
            sl_st[lk_slot] <= T_LKW;
        end
        // lookup answer
        if (a_valid_reg) begin
            if (a_stop) begin
                sl_st[a_s] <= T_DEAD;
            end else if (a_err_reg != 3'd0) begin
                sl_st[a_s] <= T_DONE;
                sl_chk[a_s] <= a_phase == P_CTL ? CHK_XLAT_CTL : CHK_XLAT_SEGS;
                sl_tpt[a_s] <= a_err_reg;
            end else if (a_burst) begin
                sl_st[a_s] <= T_RD;
                sl_held[a_s] <= 1'b1;
                sl_hep[a_s] <= a_ep_reg;
            end else begin
                // after the rest's lookup: the control segment's checks,
                // else the speculative segments' checks
                sl_st[a_s] <= T_DONE;
                sl_chk[a_s] <= sl_cchk[a_s] != CHK_OK ? sl_cchk[a_s] : sl_sfin[a_s];
            end
        end
        // a queued burst dropped
        if (aq_dead) begin
            sl_st[aq_slot] <= T_DEAD;
            sl_held[aq_slot] <= 1'b0;
        end
        // end of a burst
        if (r_end) begin
            sl_held[r_s] <= 1'b0;
            if (r_stop) begin
                sl_st[r_s] <= T_DEAD;
            end else if (r_err_next) begin
                sl_st[r_s] <= T_DONE;
                sl_chk[r_s] <= CHK_BUS;
                sl_resp[r_s] <= r_resp_next;
            end else if (r_ctl) begin
                sl_ctlv[r_s] <= 1'b1;
                sl_segc[r_s] <= c_segc;
                sl_cchk[r_s] <= c_chk;
                sl_spec[r_s] <= c_segc <= 16'd2 && !r_sbad_next;
                sl_sfin[r_s] <= c_sfin;
                sl_rdma[r_s] <= c_rdma;
                sl_lgt[r_s] <= c_lgt;
                sl_rem[r_s] <= {8'd0, c_length};
                sl_anz[r_s] <= 1'b0;
                if (c_segc == 16'd0) begin
                    sl_st[r_s] <= T_DONE;
                    sl_chk[r_s] <= c_zfin;
                end else begin
                    sl_st[r_s] <= T_LK;
                    sl_phase[r_s] <= P_REST;
                end
            end else if (r_lastc) begin
                sl_st[r_s] <= T_DONE;
                sl_chk[r_s] <= s_fin;
            end else begin
                // the second page: its own lookup
                sl_st[r_s] <= T_LK;
                sl_phase[r_s] <= P_MORE;
                sl_cur[r_s] <= r_cend;
                sl_rem[r_s] <= s_rem;
                sl_anz[r_s] <= s_anz;
            end
        end
        // result read out, taken, released
        if (o_commit) begin
            sl_st[head_s] <= T_OUT;
        end
        if (res_fire) begin
            sl_st[o_slot_reg] <= T_TAKEN;
        end
        if (rel_do) begin
            sl_st[rel_s] <= T_FREE;
        end
    end
end

// ------------------------------------------------------------ registers

always @(posedge clk) begin
    if (rst) begin
        tail_reg <= {(SW + 1){1'b0}};
        head_reg <= {(SW + 1){1'b0}};
        rel_reg <= {(SW + 1){1'b0}};
        rel_pend_reg <= {(SW + 1){1'b0}};
        lk_valid_reg <= 1'b0;
        lk_va_reg <= 64'd0;
        lk_len_reg <= 32'd0;
        lk_handle_reg <= 32'd0;
        lk_ptag_reg <= 16'd0;
        a_valid_reg <= 1'b0;
        a_slot_reg <= {SW{1'b0}};
        a_err_reg <= 3'd0;
        a_pa_reg <= {AW{1'b0}};
        a_ep_reg <= 1'b0;
        ar_valid_reg <= 1'b0;
        ar_addr_reg <= {AW{1'b0}};
        ar_len_reg <= 8'd0;
        ar_info_reg <= {RQW{1'b0}};
        o_rd_reg <= 1'b0;
        res_valid_reg <= 1'b0;
        o_slot_reg <= {SW{1'b0}};
        o_chk_reg <= CHK_OK;
        o_tpt_reg <= 3'd0;
        o_resp_reg <= 2'd0;
        o_ctlv_reg <= 1'b0;
    end else begin
        if (acc) tail_reg <= tail_reg + 1'b1;
        if (o_commit || o_skip) head_reg <= head_reg + 1'b1;
        if (rel_do) rel_reg <= rel_reg + 1'b1;
        if (rel_valid && !rel_taken) begin
            rel_pend_reg <= rel_pend_reg + 1'b1;
        end else if (!rel_valid && rel_taken) begin
            rel_pend_reg <= rel_pend_reg - 1'b1;
        end

        if (lk_load) begin
            lk_valid_reg <= 1'b1;
            lk_va_reg <= lk_va_new;
            lk_len_reg <= lk_len_new;
            lk_handle_reg <= sl_handle[lk_slot];
            lk_ptag_reg <= sl_ptag[lk_slot];
        end else if (lk_fire) begin
            lk_valid_reg <= 1'b0;
        end

        a_valid_reg <= rs_valid;
        if (rs_valid) begin
            a_slot_reg <= lq_slot;
            a_err_reg <= rs_err;
            a_pa_reg <= rs_pa;
            a_ep_reg <= rs_epoch;
        end

        if (ar_load) begin
            ar_valid_reg <= 1'b1;
            ar_addr_reg <= {aq_pa[AW-1:SIZE], {SIZE{1'b0}}};
            ar_len_reg <= arlen_w[7:0];
            ar_info_reg <= {aq_slot, aq_ctl, aq_cur, aq_cur + chunk, aq_cur + chunk == aq_endo};
        end else if (ar_fire) begin
            ar_valid_reg <= 1'b0;
        end

        o_rd_reg <= o_commit;
        if (o_commit) begin
            o_slot_reg <= head_s;
            o_chk_reg <= sl_chk[head_s];
            o_tpt_reg <= sl_tpt[head_s];
            o_resp_reg <= sl_resp[head_s];
            o_ctlv_reg <= sl_ctlv[head_s];
        end
        if (o_rd_reg) begin
            res_valid_reg <= 1'b1;
        end else if (res_fire) begin
            res_valid_reg <= 1'b0;
        end
    end
end

// ------------------------------------------------------------ outputs

assign lk_valid = lk_valid_reg;
assign lk_handle = lk_handle_reg;
assign lk_va = lk_va_reg;
assign lk_len = lk_len_reg;
assign lk_ptag = lk_ptag_reg;
assign lk_kind = KIND_LOCAL_READ;
assign rs_ready = 1'b1;

reg [1:0] held_ep;
integer h;
always @* begin
    held_ep = 2'b00;
    for (h = 0; h < D; h = h + 1) begin
        if (sl_held[h]) begin
            held_ep = held_ep | (sl_hep[h] ? 2'b10 : 2'b01);
        end
    end
end
assign inflight_epoch = held_ep
    | (a_ok ? (a_ep_reg ? 2'b10 : 2'b01) : 2'b00)
    | (rs_valid && rs_err == 3'd0 ? (rs_epoch ? 2'b10 : 2'b01) : 2'b00);

assign m_axi_arid = ARID;
assign m_axi_araddr = ar_addr_reg;
assign m_axi_arlen = ar_len_reg;
assign m_axi_arsize = SIZE[2:0];
assign m_axi_arburst = 2'b01;
assign m_axi_arlock = 1'b0;
assign m_axi_arcache = AXI_CACHE;
assign m_axi_arprot = AXI_PROT;
assign m_axi_arvalid = ar_valid_reg;
assign m_axi_rready = 1'b1;

assign res_valid = res_valid_reg;
assign res_kind = kind_of(o_chk_reg);
assign res_status = status_of(o_chk_reg);
assign res_check = o_chk_reg;
assign res_tpt_err = o_tpt_reg;
assign res_bus_resp = o_resp_reg;
assign res_ctl_valid = o_ctlv_reg;
// the control segment's fields, 0 unless it was read without error
assign res_next = o_ctlv_reg ? o_ctl[63:0] : 64'd0;
assign res_next_handle = o_ctlv_reg ? o_ctl[95:64] : 32'd0;
assign res_seg_count = o_ctlv_reg ? o_ctl[111:96] : 16'd0;
assign res_control = o_ctlv_reg ? o_ctl[127:112] : 16'd0;
assign res_immediate = o_ctlv_reg ? o_ctl[159:128] : 32'd0;
assign res_length = o_ctlv_reg ? o_ctl[191:160] : 32'd0;
assign res_tag = o_tag;
assign res_slot = o_slot_reg;

reg any_work;
integer b;
always @* begin
    any_work = 1'b0;
    for (b = 0; b < D; b = b + 1) begin
        if (sl_st[b] != T_FREE && sl_st[b] != T_TAKEN && sl_st[b] != T_DEAD) begin
            any_work = 1'b1;
        end
    end
end
assign busy = any_work || lk_valid_reg || ar_valid_reg || a_valid_reg || res_valid_reg;

endmodule

`default_nettype wire
