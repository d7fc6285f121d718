// via_dma_diag: DMA diagnostic engine of the vianic NIC.
//
// Copies len bytes from src_addr to dst_addr in host memory through an AXI4
// master, to exercise and measure the DMA path: several read bursts in flight,
// bursts split at 4 KiB boundaries and at a configurable burst limit, error
// responses and aborts drained cleanly, and statistics for the DIAG_*
// registers.
//
// Structure
//   AR issue  -> read bursts, each one reserving room for all its beats in
//                the data buffer first, so R never waits for space.
//   R         -> beats written in order into the buffer (a simple dual-port
//                RAM with a registered read, BUF_DEPTH beats).
//   AW issue  -> a write burst is issued once the buffer holds all its beats;
//                issuing it claims those beats for the W channel.
//   W         -> claimed beats are read from the RAM into a two-entry output
//                queue that drives W, so W never stalls mid-burst.
//   B         -> counts acknowledged bytes.
// Read and write bursts are split independently (by source and destination
// pages). The split is a pure function of (address, beats left, limit), so the
// B side recomputes the length of each acknowledged burst instead of queueing
// it, and the R side finds the start address of each burst by counting beats.
//
// Errors and abort: the first SLVERR/DECERR (R or B) records err_resp and
// err_addr (start address of its burst); any error response sets rd_err or
// wr_err. Errors and abort stop the issue of new bursts; everything already
// issued is completed on the bus (all R beats and B responses accepted, the W
// beats of every issued AW sent), then the engine reports done with error=1.
// Data of a read beat with an error response is never written: such beats are
// not counted as available, and no write burst is issued after the first
// error (good beats that arrived before it may already have been written).
//
// Other rules: len == 0 completes at once without error, whatever the
// addresses. Otherwise src, dst and len must be multiples of DATA_WIDTH/8 and
// src+len, dst+len at most 2**ADDR_WIDTH, else bad_param (nothing moves).
// cycles counts the cycles busy was high (from the cycle after start up to
// and including the cycle done rises). The buffer holds
// max(MAX_OUTSTANDING, 2) * MAX_BURST beats rounded up to a power of two.
// Write bursts in flight (AW issued, B not yet received) are limited to 15.
//
// Registers: BAR0 block `diag` (rtl/generated/via_bar0_diag_regs.v,
//   instantiated here; the bus is the register-block bus of docs/rtl.md,
//   routed by via_regfile). DIAG_SRC/DST/LEN/CFG/XLAT/SRC_HANDLE/
//   DST_HANDLE are the copy's parameters (src_addr, dst_addr, len,
//   cfg_max_burst, cfg_max_outstanding, xlat_*, src_handle, dst_handle),
//   latched at start; DIAG_CTRL.START and .ABORT become one-cycle pulses
//   (start, and abort together with ext_abort) the cycle after the write;
//   DIAG_STATUS, DIAG_CYCLES, ... read the status below (held until the
//   next start). Outside the register map: ext_abort (the soft reset's
//   drain), busy and start (for the soft reset and the NIC's idle output)
//   and done_pulse (the DIAG_DONE interrupt cause).
//
// Translated mode (xlat_mode = 1 at start; DIAG_XLAT.MODE)
//   src_addr and dst_addr are virtual addresses in the memory regions
//   src_handle and dst_handle; every access is checked by the TPT (lk_*,
//   rs_*: via_tpt's lookup port, through via_tpt_probe's arbiter) with
//   xlat_ptag and the kinds xlat_src_kind / xlat_dst_kind. The alignment
//   rule is the same (VA and PA share bits 11:0); the ADDR_WIDTH limit does
//   not apply to virtual addresses (the TPT checks bounds and overflow).
//   - Before anything moves, one lookup over the whole source range and one
//     over the whole destination range (state XPRE). Any error: xlat_err,
//     xlat_code (TPT_ERR_*), xlat_dst (0 source, 1 destination; the source's
//     is checked first), err_addr = the VA looked up, done with error=1;
//     nothing is transferred. Their answers (PA of the first page of each
//     side) become the first translations of the copy.
//   - Then each side (reads: source pages, writes: destination pages) holds
//     the translation of its current 4 KiB page; a burst is issued only with
//     it, at {PA page, VA[11:0]}. Each side also looks one page ahead: it
//     keeps up to two translations held or asked for (current and next), so
//     the next page's lookup (length: to the end of that page or of the
//     copy) runs while the current page's bursts go out. When a side has
//     issued the last burst of its page it drops that translation and goes
//     on with the next one's. One lookup per page and side.
//   - A lookup failing mid-copy (the region was deregistered meanwhile:
//     TPT_ERR_STALE, or any other error) records xlat_err/code/dst and
//     err_addr = the VA it looked up, like a bus error (only the first error
//     is recorded), and stops the issue (a failing look-ahead lookup stops
//     the copy before its current page is finished);
//     what is in flight drains as after a bus error. No write burst is
//     issued to a page whose translation failed, nor after any error.
//   - A bus error (SLVERR/DECERR) in translated mode reports err_addr as
//     the virtual address of its burst (the engine counts in VAs).
//   - Lookups are presented until accepted; every response is consumed
//     (rs_ready is 1) before done, also after an error or abort.
//
// Fence (via_tpt's inflight_epoch; docs/memory.md): bit e is 1 from the
//   cycle a successful lookup response of epoch e is accepted (rs_fire, a
//   combinational term) while that translation is held (a side's current
//   or next page, the two prechecks' answers included), and while any read burst
//   issued under a translation of epoch e has not had its last R beat or any
//   write burst issued under one has not had its B response. The epochs of
//   the bursts in flight are kept in two 16-entry one-bit queues (bursts
//   complete in order: one ID per direction). Held translations are dropped
//   when their page's last burst is issued, when the copy stops (error,
//   abort) and at done, so after an INVALIDATE the TPT's BUSY lasts until
//   the bursts already issued under the old epoch have completed. A held
//   translation goes on serving the rest of its page after the INVALIDATE,
//   and a held look-ahead translation its whole page (those bursts use a
//   translation obtained before it, so the fence waits for them too: at
//   most two pages per side); finishing them may need a lookup on the other side,
//   so the TPT must keep answering lookups while it waits (via_tpt does:
//   lookups resume right after the epoch flip). In
//   physical mode inflight_epoch is 0 and no lookup is made; the timing of
//   physical copies is that of the engine without translation.

`timescale 1ns / 1ps
`default_nettype none

`include "via_param_check.vh"
module via_dma_diag #(
    // AXI4 data width in bits (64..512)
    parameter DATA_WIDTH = 64,
    // AXI4 address width in bits (16..64)
    parameter ADDR_WIDTH = 48,
    // AXI4 ID width in bits
    parameter ID_WIDTH = 4,
    // longest burst in beats, power of two 2..256
    parameter MAX_BURST = 16,
    // read bursts in flight at most, 1..15
    parameter MAX_OUTSTANDING = 4
) (
    input  wire                    clk,
    input  wire                    rst,

    /*
     * Register bus (docs/rtl.md, "Register blocks"): block `diag`
     */
    input  wire                    wr_en,
    input  wire [15:0]             wr_addr,
    input  wire [31:0]             wr_data,
    input  wire [3:0]              wr_strb,
    output wire                    wr_hit,
    input  wire                    rd_en,
    input  wire [15:0]             rd_addr,
    input  wire                    rd_fire,
    output wire                    rd_hit,
    output wire [31:0]             rd_data,

    /*
     * Control and status outside the register map
     */
    input  wire                    ext_abort,     // abort a copy (soft reset drain)
    output wire                    busy,          // a copy is in progress
    output wire                    start_pulse,   // DIAG_CTRL.START's pulse (start)
    output wire                    done_pulse,    // a copy finished (one cycle)

    /*
     * TPT lookups (via_tpt's lookup port; tag 0: source, 1: destination)
     */
    output wire                    lk_valid,
    input  wire                    lk_ready,
    output wire [31:0]             lk_handle,
    output wire [63:0]             lk_va,
    output wire [31:0]             lk_len,
    output wire [15:0]             lk_ptag,
    output wire [1:0]              lk_kind,
    output wire                    lk_tag,
    input  wire                    rs_valid,
    output wire                    rs_ready,
    input  wire [2:0]              rs_err,
    /* verilator lint_off UNUSEDSIGNAL */
    // the page offset bits equal the VA's; rs_bytes and rs_hit carry
    // nothing the engine needs (it computes its own page splits)
    input  wire [ADDR_WIDTH-1:0]   rs_pa,
    input  wire [12:0]             rs_bytes,
    input  wire                    rs_hit,
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire                    rs_epoch,
    input  wire                    rs_tag,
    output wire [1:0]              inflight_epoch,

    /*
     * AXI4 master
     */
    output wire [ID_WIDTH-1:0]     m_axi_awid,
    output wire [ADDR_WIDTH-1:0]   m_axi_awaddr,
    output wire [7:0]              m_axi_awlen,
    output wire [2:0]              m_axi_awsize,
    output wire [1:0]              m_axi_awburst,
    output wire                    m_axi_awlock,
    output wire [3:0]              m_axi_awcache,
    output wire [2:0]              m_axi_awprot,
    output wire                    m_axi_awvalid,
    input  wire                    m_axi_awready,
    output wire [DATA_WIDTH-1:0]   m_axi_wdata,
    output wire [DATA_WIDTH/8-1:0] m_axi_wstrb,
    output wire                    m_axi_wlast,
    output wire                    m_axi_wvalid,
    input  wire                    m_axi_wready,
    /* verilator lint_off UNUSEDSIGNAL */
    // one ID is used for all bursts, so the response IDs carry no information
    input  wire [ID_WIDTH-1:0]     m_axi_bid,
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire [1:0]              m_axi_bresp,
    input  wire                    m_axi_bvalid,
    output wire                    m_axi_bready,
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
    // see m_axi_bid
    input  wire [ID_WIDTH-1:0]     m_axi_rid,
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire [DATA_WIDTH-1:0]   m_axi_rdata,
    input  wire [1:0]              m_axi_rresp,
    input  wire                    m_axi_rlast,
    input  wire                    m_axi_rvalid,
    output wire                    m_axi_rready
);

generate
    if (DATA_WIDTH != 64 && DATA_WIDTH != 128 && DATA_WIDTH != 256 && DATA_WIDTH != 512) begin : g_bad_data_width
        `VIA_PARAM_FAIL(("via_dma_diag: DATA_WIDTH=%0d, must be 64, 128, 256 or 512", DATA_WIDTH))
    end
    if (ADDR_WIDTH < 16 || ADDR_WIDTH > 64) begin : g_bad_addr_width
        `VIA_PARAM_FAIL(("via_dma_diag: ADDR_WIDTH=%0d, must be 16..64", ADDR_WIDTH))
    end
    if (ID_WIDTH < 1 || ID_WIDTH > 32) begin : g_bad_id_width
        `VIA_PARAM_FAIL(("via_dma_diag: ID_WIDTH=%0d, must be 1..32", ID_WIDTH))
    end
    if (MAX_BURST < 2 || MAX_BURST > 256 || (MAX_BURST & (MAX_BURST - 1)) != 0) begin : g_bad_max_burst
        `VIA_PARAM_FAIL(("via_dma_diag: MAX_BURST=%0d, must be a power of two, 2..256", MAX_BURST))
    end
    if (MAX_OUTSTANDING < 1 || MAX_OUTSTANDING > 15) begin : g_bad_max_outstanding
        `VIA_PARAM_FAIL(("via_dma_diag: MAX_OUTSTANDING=%0d, must be 1..15", MAX_OUTSTANDING))
    end
endgenerate

// the copy's parameters, from the registers (latched at start)
wire [31:0]             src_lo, src_hi, dst_lo, dst_hi;
wire [63:0]             src_addr = {src_hi, src_lo};
wire [63:0]             dst_addr = {dst_hi, dst_lo};
wire [31:0]             len;
wire                    start;
wire                    abort_cmd;
/* verilator lint_off SYMRSVDWORD */
// named as in the waveform save files; C++ 'abort' is no issue for the
// generated model
wire                    abort = abort_cmd || ext_abort;
/* verilator lint_on SYMRSVDWORD */
wire [8:0]              cfg_max_burst;
wire [3:0]              cfg_max_outstanding;
wire                    xlat_mode;
wire [1:0]              xlat_src_kind;
wire [1:0]              xlat_dst_kind;
wire [15:0]             xlat_ptag;
wire [31:0]             src_handle;
wire [31:0]             dst_handle;

// status (DIAG_STATUS, DIAG_CYCLES, ...), held until the next start
wire                    done;
wire                    error;
wire                    bad_param;
wire                    rd_err;
wire                    wr_err;
wire                    aborted;
wire [1:0]              err_resp;
wire [31:0]             cycles;
wire [31:0]             bytes;
wire [63:0]             err_addr;
wire [31:0]             rd_bursts;
wire [31:0]             wr_bursts;
wire [7:0]              max_inflight;
wire                    xlat_err;
wire                    xlat_dst;
wire [2:0]              xlat_code;

via_bar0_diag_regs regs_inst (
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
    .diag_src_lo_q(src_lo),
    .diag_src_hi_q(src_hi),
    .diag_dst_lo_q(dst_lo),
    .diag_dst_hi_q(dst_hi),
    .diag_len_q(len),
    .diag_ctrl_start_pulse(start),
    .diag_ctrl_abort_pulse(abort_cmd),
    .diag_cfg_max_burst_q(cfg_max_burst),
    .diag_cfg_max_outstanding_q(cfg_max_outstanding),
    .diag_status_busy_i(busy),
    .diag_status_done_i(done),
    .diag_status_error_i(error),
    .diag_status_bad_param_i(bad_param),
    .diag_status_rd_err_i(rd_err),
    .diag_status_wr_err_i(wr_err),
    .diag_status_aborted_i(aborted),
    .diag_status_resp_i(err_resp),
    .diag_status_xlat_err_i(xlat_err),
    .diag_status_xlat_dst_i(xlat_dst),
    .diag_status_xlat_code_i(xlat_code),
    .diag_cycles_i(cycles),
    .diag_bytes_i(bytes),
    .diag_err_addr_lo_i(err_addr[31:0]),
    .diag_err_addr_hi_i(err_addr[63:32]),
    .diag_rd_bursts_i(rd_bursts),
    .diag_wr_bursts_i(wr_bursts),
    .diag_max_inflight_i({24'd0, max_inflight}),
    .diag_xlat_mode_q(xlat_mode),
    .diag_xlat_src_kind_q(xlat_src_kind),
    .diag_xlat_dst_kind_q(xlat_dst_kind),
    .diag_xlat_ptag_q(xlat_ptag),
    .diag_src_handle_q(src_handle),
    .diag_dst_handle_q(dst_handle)
);

assign start_pulse = start;

// bytes per beat and its log2 (AXI size)
localparam BYTE_LANES = DATA_WIDTH/8;
localparam SIZE = $clog2(BYTE_LANES);
// width of a count of beats in a copy (len >> SIZE)
localparam LEN_W = 32 - SIZE;
// width of a beat's offset inside a 4 KiB page
localparam PO_W = 12 - SIZE;
// the buffer holds MAX_OUTSTANDING bursts, and at least two: with room for one
// burst only, a read burst could wait for room that only a write burst can
// free, while that write burst waits for the read's data (reads and writes
// split at different places)
localparam BUF_MIN = (MAX_OUTSTANDING < 2 ? 2 : MAX_OUTSTANDING) * MAX_BURST;
localparam BUF_AW = $clog2(BUF_MIN);
localparam BUF_DEPTH = 2**BUF_AW;
// width of the buffer's beat counters; at least one bit wider than both the
// buffer size and a 9-bit burst length, so every addition fits
localparam CNT_W = (BUF_AW + 1 > 9 ? BUF_AW + 1 : 9) + 1;
// write bursts issued and not yet acknowledged, at most
localparam [3:0] WR_LIMIT = 4'd15;

localparam [8:0] MAX_BURST_C = MAX_BURST[8:0];
localparam [3:0] MAX_OUTSTANDING_C = MAX_OUTSTANDING[3:0];
localparam [LEN_W-1:0] PAGE_BEATS = 2**PO_W;
localparam [CNT_W-1:0] BUF_DEPTH_C = BUF_DEPTH;
localparam [63:0] BEAT_BYTES = {{(64-SIZE-1){1'b0}}, 1'b1, {SIZE{1'b0}}};
// physical page number bits of an address
localparam PG_W = ADDR_WIDTH - 12;
localparam [64:0] ADDR_SPACE = 65'd1 << ADDR_WIDTH;

localparam [2:0] AXI_SIZE = SIZE[2:0];
localparam [1:0] BURST_INCR = 2'b01;
// normal non-cacheable bufferable; unprivileged, non-secure, data
localparam [3:0] AXI_CACHE = 4'b0011;
localparam [2:0] AXI_PROT = 3'b010;

localparam [1:0]
    STATE_IDLE = 2'd0,
    STATE_CHECK = 2'd1,
    STATE_RUN = 2'd2,
    STATE_XPRE = 2'd3;

// Beats in the next burst at a beat offset page_off inside a 4 KiB page, with
// left beats still to move and a limit of lim beats.
function [8:0] burst_len;
    input [PO_W-1:0]  page_off;
    input [LEN_W-1:0] left;
    input [8:0]       lim;
    reg   [LEN_W-1:0] page_left;
    reg   [LEN_W-1:0] n;
    begin
        page_left = PAGE_BEATS - {{(LEN_W-PO_W){1'b0}}, page_off};
        n = left;
        if (page_left < n) begin
            n = page_left;
        end
        if ({{(LEN_W-9){1'b0}}, lim} < n) begin
            n = {{(LEN_W-9){1'b0}}, lim};
        end
        burst_len = n[8:0];
    end
endfunction

reg [1:0] state_reg, state_next;

// copy parameters, latched at start
reg [63:0] src_reg, src_next;
reg [63:0] dst_reg, dst_next;
reg [31:0] len_reg, len_next;
reg [8:0] lim_reg, lim_next;
reg [3:0] out_lim_reg, out_lim_next;
// no new bursts (error or abort)
reg stop_reg, stop_next;

// status
reg done_reg, done_next;
reg done_pulse_reg, done_pulse_next;
reg bad_param_reg, bad_param_next;
reg rd_err_reg, rd_err_next;
reg wr_err_reg, wr_err_next;
reg aborted_reg, aborted_next;
reg [1:0] err_resp_reg, err_resp_next;
reg [63:0] err_addr_reg, err_addr_next;
reg [31:0] cycles_reg, cycles_next;
reg [31:0] bytes_reg, bytes_next;
reg [31:0] rd_bursts_reg, rd_bursts_next;
reg [31:0] wr_bursts_reg, wr_bursts_next;
reg [3:0] max_inflight_reg, max_inflight_next;

// read issue: next source address and beats not yet requested
reg [63:0] ar_addr_reg, ar_addr_next;
reg [LEN_W-1:0] ar_left_reg, ar_left_next;
reg [ADDR_WIDTH-1:0] m_axi_araddr_reg, m_axi_araddr_next;
reg [7:0] m_axi_arlen_reg, m_axi_arlen_next;
reg m_axi_arvalid_reg, m_axi_arvalid_next;
// read bursts issued (arvalid set) whose last beat has not arrived
reg [3:0] rd_out_reg, rd_out_next;
// source address of the next R beat, and of the burst it belongs to
reg [63:0] r_addr_reg, r_addr_next;
reg [63:0] r_burst_addr_reg, r_burst_addr_next;

// buffer: write pointer (R), read pointer (W), beats reserved or held
// (reserved by issued reads, plus received and not yet read out for W), and
// good beats received and not yet claimed by a write burst
reg [BUF_AW-1:0] buf_wr_ptr_reg, buf_wr_ptr_next;
reg [BUF_AW-1:0] buf_rd_ptr_reg, buf_rd_ptr_next;
reg [CNT_W-1:0] buf_used_reg, buf_used_next;
reg [CNT_W-1:0] buf_avail_reg, buf_avail_next;

// write issue: next destination address and beats not yet claimed
reg [63:0] aw_addr_reg, aw_addr_next;
reg [LEN_W-1:0] aw_left_reg, aw_left_next;
reg [ADDR_WIDTH-1:0] m_axi_awaddr_reg, m_axi_awaddr_next;
reg [7:0] m_axi_awlen_reg, m_axi_awlen_next;
reg m_axi_awvalid_reg, m_axi_awvalid_next;
// write bursts issued (awvalid set) whose B has not arrived
reg [3:0] wr_out_reg, wr_out_next;
// beats of the current write burst still to read from the RAM, and the length
// of the issued burst queued behind it (0: none)
reg [8:0] w_cur_reg, w_cur_next;
reg [8:0] w_nxt_reg, w_nxt_next;
// RAM read stage and W output queue occupancy
reg ramq_valid_reg;
reg [1:0] wq_cnt_reg, wq_cnt_next;

// B side: destination address and beats of the next burst to be acknowledged
reg [63:0] b_addr_reg, b_addr_next;
reg [LEN_W-1:0] b_left_reg, b_left_next;

// translated mode: parameters latched at start, the error, the lookup
// presented to the TPT, lookups accepted and not answered, the prechecks
// issued and answered
reg xlat_reg, xlat_next;
reg [1:0] src_kind_reg, src_kind_next;
reg [1:0] dst_kind_reg, dst_kind_next;
reg [15:0] ptag_reg, ptag_next;
reg [31:0] src_h_reg, src_h_next;
reg [31:0] dst_h_reg, dst_h_next;
reg xlat_err_reg, xlat_err_next;
reg xlat_dst_reg, xlat_dst_next;
reg [2:0] xlat_code_reg, xlat_code_next;
reg lk_valid_reg, lk_valid_next;
reg [31:0] lk_handle_reg, lk_handle_next;
reg [63:0] lk_va_reg, lk_va_next;
reg [31:0] lk_len_reg, lk_len_next;
reg [1:0] lk_kind_reg, lk_kind_next;
reg lk_tag_reg, lk_tag_next;
reg [2:0] lk_out_reg, lk_out_next;
reg [1:0] pre_iss_reg, pre_iss_next;
reg [1:0] pre_rsp_reg, pre_rsp_next;
// the last page lookup was the write side's (alternation)
reg lk_last_w_reg, lk_last_w_next;
// held translations: read side (source page of ar_addr) and write side
// (destination page of aw_addr), a lookup pending for each, their epochs
reg rx_valid_reg, rx_valid_next;
reg [PG_W-1:0] rx_page_reg, rx_page_next;
reg rx_epoch_reg, rx_epoch_next;
reg wx_valid_reg, wx_valid_next;
reg [PG_W-1:0] wx_page_reg, wx_page_next;
reg wx_epoch_reg, wx_epoch_next;
// look-ahead: the translation of each side's next page, lookups pending
// (0..2), the VAs of the pending ones (oldest first), and the lookup
// cursor (VA of the next page to look up, bytes not yet looked up)
reg rn_valid_reg, rn_valid_next;
reg [PG_W-1:0] rn_page_reg, rn_page_next;
reg rn_epoch_reg, rn_epoch_next;
reg wn_valid_reg, wn_valid_next;
reg [PG_W-1:0] wn_page_reg, wn_page_next;
reg wn_epoch_reg, wn_epoch_next;
reg [1:0] rx_pend_reg, rx_pend_next;
reg [1:0] wx_pend_reg, wx_pend_next;
reg [63:0] rp_va0_reg, rp_va0_next, rp_va1_reg, rp_va1_next;
reg [63:0] wp_va0_reg, wp_va0_next, wp_va1_reg, wp_va1_next;
reg [63:0] rl_va_reg, rl_va_next;
reg [31:0] rl_left_reg, rl_left_next;
reg [63:0] wl_va_reg, wl_va_next;
reg [31:0] wl_left_reg, wl_left_next;
// epochs of the read bursts (rd_out_reg entries) and write bursts
// (wr_out_reg entries) in flight, oldest in bit 0
reg [15:0] rq_ep_reg, rq_ep_next;
reg [15:0] wq_ep_reg, wq_ep_next;

// data path (no reset)
reg [DATA_WIDTH-1:0] buf_mem[BUF_DEPTH-1:0];
reg [DATA_WIDTH-1:0] ramq_data_reg;
reg ramq_last_reg;
reg [DATA_WIDTH-1:0] wq0_data_reg, wq1_data_reg;
reg wq0_last_reg, wq1_last_reg;

assign busy = state_reg != STATE_IDLE;
assign done = done_reg;
assign error = bad_param_reg | rd_err_reg | wr_err_reg | aborted_reg | xlat_err_reg;
assign bad_param = bad_param_reg;
assign rd_err = rd_err_reg;
assign wr_err = wr_err_reg;
assign aborted = aborted_reg;
assign err_resp = err_resp_reg;
assign cycles = cycles_reg;
assign bytes = bytes_reg;
assign rd_bursts = rd_bursts_reg;
assign wr_bursts = wr_bursts_reg;
assign max_inflight = {4'd0, max_inflight_reg};
assign done_pulse = done_pulse_reg;

assign err_addr = err_addr_reg;
assign xlat_err = xlat_err_reg;
assign xlat_dst = xlat_dst_reg;
assign xlat_code = xlat_code_reg;

assign lk_valid = lk_valid_reg;
assign lk_handle = lk_handle_reg;
assign lk_va = lk_va_reg;
assign lk_len = lk_len_reg;
assign lk_ptag = ptag_reg;
assign lk_kind = lk_kind_reg;
assign lk_tag = lk_tag_reg;
assign rs_ready = 1'b1;

assign m_axi_awid = {ID_WIDTH{1'b0}};
assign m_axi_awaddr = m_axi_awaddr_reg;
assign m_axi_awlen = m_axi_awlen_reg;
assign m_axi_awsize = AXI_SIZE;
assign m_axi_awburst = BURST_INCR;
assign m_axi_awlock = 1'b0;
assign m_axi_awcache = AXI_CACHE;
assign m_axi_awprot = AXI_PROT;
assign m_axi_awvalid = m_axi_awvalid_reg;
assign m_axi_wdata = wq0_data_reg;
assign m_axi_wstrb = {BYTE_LANES{1'b1}};
assign m_axi_wlast = wq0_last_reg;
assign m_axi_wvalid = wq_cnt_reg != 2'd0;
assign m_axi_bready = wr_out_reg != 4'd0;
assign m_axi_arid = {ID_WIDTH{1'b0}};
assign m_axi_araddr = m_axi_araddr_reg;
assign m_axi_arlen = m_axi_arlen_reg;
assign m_axi_arsize = AXI_SIZE;
assign m_axi_arburst = BURST_INCR;
assign m_axi_arlock = 1'b0;
assign m_axi_arcache = AXI_CACHE;
assign m_axi_arprot = AXI_PROT;
assign m_axi_arvalid = m_axi_arvalid_reg;
// room for every beat was reserved before its burst was issued
assign m_axi_rready = rd_out_reg != 4'd0;

// handshakes
wire r_fire = m_axi_rvalid && m_axi_rready;
wire b_fire = m_axi_bvalid && m_axi_bready;
wire wq_pop = m_axi_wvalid && m_axi_wready;

// next burst on each side
wire [8:0] ar_blen = burst_len(ar_addr_reg[11:SIZE], ar_left_reg, lim_reg);
wire [8:0] aw_blen = burst_len(aw_addr_reg[11:SIZE], aw_left_reg, lim_reg);
wire [8:0] b_blen = burst_len(b_addr_reg[11:SIZE], b_left_reg, lim_reg);

wire issuing = state_reg == STATE_RUN && !stop_reg;

wire ar_issue = issuing && ar_left_reg != {LEN_W{1'b0}}
    && (!m_axi_arvalid_reg || m_axi_arready)
    && rd_out_reg < out_lim_reg
    && buf_used_reg + {{(CNT_W-9){1'b0}}, ar_blen} <= BUF_DEPTH_C
    && (!xlat_reg || rx_valid_reg);

wire aw_issue = issuing && aw_left_reg != {LEN_W{1'b0}}
    && (!m_axi_awvalid_reg || m_axi_awready)
    && w_nxt_reg == 9'd0
    && wr_out_reg != WR_LIMIT
    && buf_avail_reg >= {{(CNT_W-9){1'b0}}, aw_blen}
    && (!xlat_reg || wx_valid_reg);

// read a claimed beat from the RAM when the W queue will have room for it
// when it arrives next cycle
wire [1:0] wq_occ = wq_cnt_reg + {1'b0, ramq_valid_reg} - {1'b0, wq_pop};
wire ram_rd = w_cur_reg != 9'd0 && wq_occ <= 2'd1;

// error responses
wire r_err = r_fire && m_axi_rresp[1];
wire b_err = b_fire && m_axi_bresp[1];
wire first_err = !rd_err_reg && !wr_err_reg && !xlat_err_reg;

// parameter check
wire [64:0] src_end = {1'b0, src_reg} + {33'd0, len_reg};
wire [64:0] dst_end = {1'b0, dst_reg} + {33'd0, len_reg};
wire param_bad = (|src_reg[SIZE-1:0]) || (|dst_reg[SIZE-1:0]) || (|len_reg[SIZE-1:0])
    || (!xlat_reg && (src_end > ADDR_SPACE || dst_end > ADDR_SPACE));

// cfg_max_outstanding > MAX_OUTSTANDING (never, when MAX_OUTSTANDING is 15)
wire cfg_out_over;
generate
    if (MAX_OUTSTANDING < 15) begin : g_cfg_out_cmp
        assign cfg_out_over = cfg_max_outstanding > MAX_OUTSTANDING_C;
    end else begin : g_cfg_out_max
        assign cfg_out_over = 1'b0;
    end
endgenerate

// read bursts accepted by the slave and not yet complete
wire [3:0] rd_inflight = rd_out_reg - {3'd0, m_axi_arvalid_reg};

// everything issued has completed
wire quiet = rd_out_reg == 4'd0 && wr_out_reg == 4'd0;
// a lookup presented or awaiting its response (never in physical mode)
wire lk_busy = lk_valid_reg || lk_out_reg != 3'd0;
wire finish = state_reg == STATE_RUN && quiet && (stop_reg || b_left_reg == {LEN_W{1'b0}}) && !lk_busy;

// translated mode: lookups and the fence
wire lk_fire = lk_valid_reg && lk_ready;
wire rs_fire = rs_valid;
wire rs_ok = rs_fire && rs_err == 3'd0;
wire lk_free = !lk_valid_reg || lk_ready;

// idle with nothing in flight and no command: the next-state logic below
// leaves every register as it is (the defaults), so it is skipped; this
// block is evaluated every cycle and the engine is idle most of the time
wire at_rest = state_reg == STATE_IDLE && !start && !rs_valid
    && rd_out_reg == 4'd0 && wr_out_reg == 4'd0
    && !m_axi_arvalid_reg && !m_axi_awvalid_reg
    && !lk_valid_reg && lk_out_reg == 3'd0
    && w_cur_reg == 9'd0 && wq_cnt_reg == 2'd0 && !ramq_valid_reg
    && !rx_valid_reg && !wx_valid_reg && !rn_valid_reg && !wn_valid_reg;
// a side looks up while it holds or awaits fewer than two translations
// (its current page and the next) and pages are left
wire [2:0] rx_held = {2'd0, rx_valid_reg} + {2'd0, rn_valid_reg} + {1'b0, rx_pend_reg};
wire [2:0] wx_held = {2'd0, wx_valid_reg} + {2'd0, wn_valid_reg} + {1'b0, wx_pend_reg};
wire rx_need = xlat_reg && issuing && rl_left_reg != 32'd0 && rx_held < 3'd2;
wire wx_need = xlat_reg && issuing && wl_left_reg != 32'd0 && wx_held < 3'd2;
wire pre_need = state_reg == STATE_XPRE && !stop_reg && pre_iss_reg != 2'd2;

// bytes from a VA to the end of its page, or to the end of the copy
function [31:0] page_chunk;
    input [11:0] off;
    input [31:0] left;
    reg   [31:0] rem;
    begin
        rem = 32'd4096 - {20'd0, off};
        page_chunk = left < rem ? left : rem;
    end
endfunction

wire [31:0] r_chunk = page_chunk(rl_va_reg[11:0], rl_left_reg);
wire [31:0] w_chunk = page_chunk(wl_va_reg[11:0], wl_left_reg);
wire [31:0] src_chunk0 = page_chunk(src_reg[11:0], len_reg);
wire [31:0] dst_chunk0 = page_chunk(dst_reg[11:0], len_reg);

// the valid entries of a queue of rd_out_reg / wr_out_reg epochs
function [15:0] qmask;
    input [3:0] n;
    begin
        qmask = (16'd1 << n) - 16'd1;
    end
endfunction

wire [15:0] rq_valid = qmask(rd_out_reg);
wire [15:0] wq_valid = qmask(wr_out_reg);
wire ep1_held = (rx_valid_reg && rx_epoch_reg) || (wx_valid_reg && wx_epoch_reg)
    || (rn_valid_reg && rn_epoch_reg) || (wn_valid_reg && wn_epoch_reg)
    || |(rq_ep_reg & rq_valid) || |(wq_ep_reg & wq_valid) || (rs_ok && rs_epoch);
wire ep0_held = (rx_valid_reg && !rx_epoch_reg) || (wx_valid_reg && !wx_epoch_reg)
    || (rn_valid_reg && !rn_epoch_reg) || (wn_valid_reg && !wn_epoch_reg)
    || |(~rq_ep_reg & rq_valid) || |(~wq_ep_reg & wq_valid) || (rs_ok && !rs_epoch);
assign inflight_epoch = xlat_reg ? {ep1_held, ep0_held} : 2'b00;

wire r_last_fire = r_fire && m_axi_rlast;

// page lookups issued (push) and answered (pop) per side, outside XPRE
reg r_push, w_push;
wire r_pop = rs_fire && !rs_tag && state_reg != STATE_XPRE;
wire w_pop = rs_fire && rs_tag && state_reg != STATE_XPRE;

always @* begin
    state_next = state_reg;

    src_next = src_reg;
    dst_next = dst_reg;
    len_next = len_reg;
    lim_next = lim_reg;
    out_lim_next = out_lim_reg;
    stop_next = stop_reg;

    done_next = done_reg;
    done_pulse_next = 1'b0;
    bad_param_next = bad_param_reg;
    rd_err_next = rd_err_reg;
    wr_err_next = wr_err_reg;
    aborted_next = aborted_reg;
    err_resp_next = err_resp_reg;
    err_addr_next = err_addr_reg;
    cycles_next = cycles_reg;
    bytes_next = bytes_reg;
    rd_bursts_next = rd_bursts_reg;
    wr_bursts_next = wr_bursts_reg;
    max_inflight_next = max_inflight_reg;

    ar_addr_next = ar_addr_reg;
    ar_left_next = ar_left_reg;
    m_axi_araddr_next = m_axi_araddr_reg;
    m_axi_arlen_next = m_axi_arlen_reg;
    m_axi_arvalid_next = m_axi_arvalid_reg && !m_axi_arready;
    rd_out_next = rd_out_reg;
    r_addr_next = r_addr_reg;
    r_burst_addr_next = r_burst_addr_reg;

    buf_wr_ptr_next = buf_wr_ptr_reg;
    buf_rd_ptr_next = buf_rd_ptr_reg;
    buf_used_next = buf_used_reg;
    buf_avail_next = buf_avail_reg;

    aw_addr_next = aw_addr_reg;
    aw_left_next = aw_left_reg;
    m_axi_awaddr_next = m_axi_awaddr_reg;
    m_axi_awlen_next = m_axi_awlen_reg;
    m_axi_awvalid_next = m_axi_awvalid_reg && !m_axi_awready;
    wr_out_next = wr_out_reg;
    w_cur_next = w_cur_reg;
    w_nxt_next = w_nxt_reg;
    wq_cnt_next = wq_occ;

    b_addr_next = b_addr_reg;
    b_left_next = b_left_reg;

    xlat_next = xlat_reg;
    src_kind_next = src_kind_reg;
    dst_kind_next = dst_kind_reg;
    ptag_next = ptag_reg;
    src_h_next = src_h_reg;
    dst_h_next = dst_h_reg;
    xlat_err_next = xlat_err_reg;
    xlat_dst_next = xlat_dst_reg;
    xlat_code_next = xlat_code_reg;
    lk_valid_next = lk_valid_reg && !lk_ready;
    lk_handle_next = lk_handle_reg;
    lk_va_next = lk_va_reg;
    lk_len_next = lk_len_reg;
    lk_kind_next = lk_kind_reg;
    lk_tag_next = lk_tag_reg;
    lk_out_next = lk_out_reg + {2'd0, lk_fire} - {2'd0, rs_fire};
    pre_iss_next = pre_iss_reg;
    pre_rsp_next = pre_rsp_reg;
    lk_last_w_next = lk_last_w_reg;
    rx_valid_next = rx_valid_reg;
    rx_pend_next = rx_pend_reg;
    rx_page_next = rx_page_reg;
    rx_epoch_next = rx_epoch_reg;
    wx_valid_next = wx_valid_reg;
    wx_pend_next = wx_pend_reg;
    wx_page_next = wx_page_reg;
    wx_epoch_next = wx_epoch_reg;
    rn_valid_next = rn_valid_reg;
    rn_page_next = rn_page_reg;
    rn_epoch_next = rn_epoch_reg;
    wn_valid_next = wn_valid_reg;
    wn_page_next = wn_page_reg;
    wn_epoch_next = wn_epoch_reg;
    rp_va0_next = rp_va0_reg;
    rp_va1_next = rp_va1_reg;
    wp_va0_next = wp_va0_reg;
    wp_va1_next = wp_va1_reg;
    rl_va_next = rl_va_reg;
    rl_left_next = rl_left_reg;
    wl_va_next = wl_va_reg;
    wl_left_next = wl_left_reg;
    rq_ep_next = rq_ep_reg;
    r_push = 1'b0;
    w_push = 1'b0;
    wq_ep_next = wq_ep_reg;

    // (at rest, nothing below changes a register: the simulator skips it)
    if (!at_rest) begin
    if (rd_inflight > max_inflight_reg) begin
        max_inflight_next = rd_inflight;
    end

    // AR: reserve room for the whole burst, then present it
    if (ar_issue) begin
        if (xlat_reg) begin
            m_axi_araddr_next = {rx_page_reg, ar_addr_reg[11:0]};
        end else begin
            m_axi_araddr_next = ar_addr_reg[ADDR_WIDTH-1:0];
        end
        m_axi_arlen_next = ar_blen[7:0] - 8'd1;
        m_axi_arvalid_next = 1'b1;
        ar_addr_next = ar_addr_reg + {{(64-9-SIZE){1'b0}}, ar_blen, {SIZE{1'b0}}};
        ar_left_next = ar_left_reg - {{(LEN_W-9){1'b0}}, ar_blen};
        rd_bursts_next = rd_bursts_reg + 32'd1;
        // the page's last burst: drop its translation
        if (ar_addr_next[11:0] == 12'd0 || ar_left_next == {LEN_W{1'b0}}) begin
            rx_valid_next = 1'b0;
        end
    end
    rd_out_next = rd_out_reg + {3'd0, ar_issue} - {3'd0, r_fire && m_axi_rlast};

    // R: store every beat; only good beats become available for writes
    if (r_fire) begin
        buf_wr_ptr_next = buf_wr_ptr_reg + 1'b1;
        r_addr_next = r_addr_reg + BEAT_BYTES;
        if (m_axi_rlast) begin
            r_burst_addr_next = r_addr_reg + BEAT_BYTES;
        end
        if (r_err) begin
            rd_err_next = 1'b1;
            if (first_err) begin
                err_resp_next = m_axi_rresp;
                err_addr_next = r_burst_addr_reg;
            end
        end
    end
    buf_avail_next = buf_avail_reg
        + {{(CNT_W-1){1'b0}}, r_fire && !m_axi_rresp[1] && !stop_reg}
        - (aw_issue ? {{(CNT_W-9){1'b0}}, aw_blen} : {CNT_W{1'b0}});
    buf_used_next = buf_used_reg
        + (ar_issue ? {{(CNT_W-9){1'b0}}, ar_blen} : {CNT_W{1'b0}})
        - {{(CNT_W-1){1'b0}}, ram_rd};

    // AW: claim the burst's beats for W
    if (aw_issue) begin
        if (xlat_reg) begin
            m_axi_awaddr_next = {wx_page_reg, aw_addr_reg[11:0]};
        end else begin
            m_axi_awaddr_next = aw_addr_reg[ADDR_WIDTH-1:0];
        end
        m_axi_awlen_next = aw_blen[7:0] - 8'd1;
        m_axi_awvalid_next = 1'b1;
        aw_addr_next = aw_addr_reg + {{(64-9-SIZE){1'b0}}, aw_blen, {SIZE{1'b0}}};
        aw_left_next = aw_left_reg - {{(LEN_W-9){1'b0}}, aw_blen};
        wr_bursts_next = wr_bursts_reg + 32'd1;
        if (aw_addr_next[11:0] == 12'd0 || aw_left_next == {LEN_W{1'b0}}) begin
            wx_valid_next = 1'b0;
        end
    end
    wr_out_next = wr_out_reg + {3'd0, aw_issue} - {3'd0, b_fire};

    // W: move claimed beats from the RAM to the output queue, burst by burst
    if (ram_rd) begin
        buf_rd_ptr_next = buf_rd_ptr_reg + 1'b1;
        if (w_cur_reg == 9'd1) begin
            w_cur_next = w_nxt_reg;
            w_nxt_next = 9'd0;
        end else begin
            w_cur_next = w_cur_reg - 9'd1;
        end
    end
    if (aw_issue) begin
        if (w_cur_next == 9'd0) begin
            w_cur_next = aw_blen;
        end else begin
            w_nxt_next = aw_blen;
        end
    end

    // B: the acknowledged burst is the next one in destination order
    if (b_fire) begin
        b_addr_next = b_addr_reg + {{(64-9-SIZE){1'b0}}, b_blen, {SIZE{1'b0}}};
        b_left_next = b_left_reg - {{(LEN_W-9){1'b0}}, b_blen};
        if (b_err) begin
            wr_err_next = 1'b1;
            if (first_err && !r_err) begin
                err_resp_next = m_axi_bresp;
                err_addr_next = b_addr_reg;
            end
        end else begin
            bytes_next = bytes_reg + {{(32-9-SIZE){1'b0}}, b_blen, {SIZE{1'b0}}};
        end
    end

    if (r_err || b_err) begin
        stop_next = 1'b1;
    end

    // epochs of the bursts in flight: pop the completed one, push the issued
    if (r_last_fire) begin
        rq_ep_next = {1'b0, rq_ep_next[15:1]};
    end
    if (ar_issue) begin
        rq_ep_next[rd_out_reg - {3'd0, r_last_fire}] = rx_epoch_reg;
    end
    if (b_fire) begin
        wq_ep_next = {1'b0, wq_ep_next[15:1]};
    end
    if (aw_issue) begin
        wq_ep_next[wr_out_reg - {3'd0, b_fire}] = wx_epoch_reg;
    end

    // lookups: the two prechecks, then a page lookup whenever a side has no
    // translation (alternating when both need one)
    if (lk_free) begin
        if (pre_need) begin
            lk_valid_next = 1'b1;
            lk_tag_next = pre_iss_reg[0];
            lk_handle_next = pre_iss_reg[0] ? dst_h_reg : src_h_reg;
            lk_va_next = pre_iss_reg[0] ? dst_reg : src_reg;
            lk_len_next = len_reg;
            lk_kind_next = pre_iss_reg[0] ? dst_kind_reg : src_kind_reg;
            pre_iss_next = pre_iss_reg + 2'd1;
        end else if (rx_need && (!wx_need || lk_last_w_reg)) begin
            r_push = 1'b1;
            lk_valid_next = 1'b1;
            lk_tag_next = 1'b0;
            lk_handle_next = src_h_reg;
            lk_va_next = rl_va_reg;
            lk_len_next = r_chunk;
            lk_kind_next = src_kind_reg;
            rl_va_next = rl_va_reg + {32'd0, r_chunk};
            rl_left_next = rl_left_reg - r_chunk;
            lk_last_w_next = 1'b0;
        end else if (wx_need) begin
            w_push = 1'b1;
            lk_valid_next = 1'b1;
            lk_tag_next = 1'b1;
            lk_handle_next = dst_h_reg;
            lk_va_next = wl_va_reg;
            lk_len_next = w_chunk;
            lk_kind_next = dst_kind_reg;
            wl_va_next = wl_va_reg + {32'd0, w_chunk};
            wl_left_next = wl_left_reg - w_chunk;
            lk_last_w_next = 1'b1;
        end
    end

    // page lookups pending per side, and their VAs (answers come in order)
    if (r_pop) begin
        rp_va0_next = rp_va1_reg;
    end
    if (r_push) begin
        if (rx_pend_reg - {1'b0, r_pop} == 2'd0) begin
            rp_va0_next = rl_va_reg;
        end else begin
            rp_va1_next = rl_va_reg;
        end
    end
    rx_pend_next = rx_pend_reg + {1'b0, r_push} - {1'b0, r_pop};
    if (w_pop) begin
        wp_va0_next = wp_va1_reg;
    end
    if (w_push) begin
        if (wx_pend_reg - {1'b0, w_pop} == 2'd0) begin
            wp_va0_next = wl_va_reg;
        end else begin
            wp_va1_next = wl_va_reg;
        end
    end
    wx_pend_next = wx_pend_reg + {1'b0, w_push} - {1'b0, w_pop};

    // responses: a translation to hold, or the copy's translation error
    if (rs_fire) begin
        if (state_reg == STATE_XPRE) begin
            pre_rsp_next = pre_rsp_reg + 2'd1;
        end
        if (!stop_reg) begin
            if (rs_err != 3'd0) begin
                stop_next = 1'b1;
                if (!xlat_err_reg && !rd_err_reg && !wr_err_reg) begin
                    xlat_err_next = 1'b1;
                    xlat_code_next = rs_err;
                    xlat_dst_next = rs_tag;
                    if (!r_err && !b_err) begin
                        if (state_reg == STATE_XPRE) begin
                            err_addr_next = rs_tag ? dst_reg : src_reg;
                        end else begin
                            err_addr_next = rs_tag ? wp_va0_reg : rp_va0_reg;
                        end
                    end
                end
            end else if (rs_tag) begin
                // the oldest page asked for: the current one if the side
                // has none (its page just ended), else the next
                if (!wx_valid_next) begin
                    wx_valid_next = 1'b1;
                    wx_page_next = rs_pa[ADDR_WIDTH-1:12];
                    wx_epoch_next = rs_epoch;
                end else begin
                    wn_valid_next = 1'b1;
                    wn_page_next = rs_pa[ADDR_WIDTH-1:12];
                    wn_epoch_next = rs_epoch;
                end
            end else begin
                if (!rx_valid_next) begin
                    rx_valid_next = 1'b1;
                    rx_page_next = rs_pa[ADDR_WIDTH-1:12];
                    rx_epoch_next = rs_epoch;
                end else begin
                    rn_valid_next = 1'b1;
                    rn_page_next = rs_pa[ADDR_WIDTH-1:12];
                    rn_epoch_next = rs_epoch;
                end
            end
        end
    end
    // a stopped copy holds no translation
    if (stop_reg) begin
        rx_valid_next = 1'b0;
        wx_valid_next = 1'b0;
        rn_valid_next = 1'b0;
        wn_valid_next = 1'b0;
    end

    case (state_reg)
        STATE_IDLE: begin
            if (start) begin
                src_next = src_addr;
                dst_next = dst_addr;
                len_next = len;
                xlat_next = xlat_mode;
                src_kind_next = xlat_src_kind;
                dst_kind_next = xlat_dst_kind;
                ptag_next = xlat_ptag;
                src_h_next = src_handle;
                dst_h_next = dst_handle;
                xlat_err_next = 1'b0;
                xlat_dst_next = 1'b0;
                xlat_code_next = 3'd0;
                pre_iss_next = 2'd0;
                pre_rsp_next = 2'd0;
                rx_valid_next = 1'b0;
                wx_valid_next = 1'b0;
                rn_valid_next = 1'b0;
                wn_valid_next = 1'b0;
                if (cfg_max_burst == 9'd0 || cfg_max_burst > MAX_BURST_C) begin
                    lim_next = MAX_BURST_C;
                end else begin
                    lim_next = cfg_max_burst;
                end
                if (cfg_max_outstanding == 4'd0 || cfg_out_over) begin
                    out_lim_next = MAX_OUTSTANDING_C;
                end else begin
                    out_lim_next = cfg_max_outstanding;
                end
                stop_next = 1'b0;
                done_next = 1'b0;
                bad_param_next = 1'b0;
                rd_err_next = 1'b0;
                wr_err_next = 1'b0;
                aborted_next = 1'b0;
                err_resp_next = 2'd0;
                err_addr_next = 64'd0;
                cycles_next = 32'd0;
                bytes_next = 32'd0;
                rd_bursts_next = 32'd0;
                wr_bursts_next = 32'd0;
                max_inflight_next = 4'd0;
                state_next = STATE_CHECK;
            end
        end
        STATE_CHECK: begin
            cycles_next = cycles_reg + 32'd1;
            // nothing is in flight here: start the copy from a clean buffer
            ar_addr_next = src_reg;
            ar_left_next = len_reg[31:SIZE];
            r_addr_next = src_reg;
            r_burst_addr_next = src_reg;
            aw_addr_next = dst_reg;
            aw_left_next = len_reg[31:SIZE];
            b_addr_next = dst_reg;
            // the prechecks answer the first page of each side
            rl_va_next = src_reg + {32'd0, src_chunk0};
            rl_left_next = len_reg - src_chunk0;
            wl_va_next = dst_reg + {32'd0, dst_chunk0};
            wl_left_next = len_reg - dst_chunk0;
            b_left_next = len_reg[31:SIZE];
            buf_wr_ptr_next = {BUF_AW{1'b0}};
            buf_rd_ptr_next = {BUF_AW{1'b0}};
            buf_used_next = {CNT_W{1'b0}};
            buf_avail_next = {CNT_W{1'b0}};
            if (len_reg == 32'd0) begin
                // nothing to do, whatever the addresses
                done_next = 1'b1;
                done_pulse_next = 1'b1;
                state_next = STATE_IDLE;
            end else if (param_bad) begin
                bad_param_next = 1'b1;
                done_next = 1'b1;
                done_pulse_next = 1'b1;
                state_next = STATE_IDLE;
            end else begin
                // translated: the prechecks first
                state_next = xlat_reg ? STATE_XPRE : STATE_RUN;
                if (abort) begin
                    aborted_next = 1'b1;
                    stop_next = 1'b1;
                end
            end
        end
        STATE_XPRE: begin
            cycles_next = cycles_reg + 32'd1;
            // both answered, or stopped with no lookup left: RUN issues the
            // copy, or finishes at once when stopped
            if (pre_rsp_reg == 2'd2 || (stop_reg && !lk_busy)) begin
                state_next = STATE_RUN;
            end else if (abort) begin
                aborted_next = 1'b1;
                stop_next = 1'b1;
            end
        end
        STATE_RUN: begin
            cycles_next = cycles_reg + 32'd1;
            if (finish) begin
                done_next = 1'b1;
                done_pulse_next = 1'b1;
                state_next = STATE_IDLE;
                rx_valid_next = 1'b0;
                wx_valid_next = 1'b0;
                rn_valid_next = 1'b0;
                wn_valid_next = 1'b0;
            end else if (abort) begin
                aborted_next = 1'b1;
                stop_next = 1'b1;
            end
        end
    endcase

    // a side whose page ended goes on with the next one's translation
    if (!rx_valid_next && rn_valid_next) begin
        rx_valid_next = 1'b1;
        rx_page_next = rn_page_next;
        rx_epoch_next = rn_epoch_next;
        rn_valid_next = 1'b0;
    end
    if (!wx_valid_next && wn_valid_next) begin
        wx_valid_next = 1'b1;
        wx_page_next = wn_page_next;
        wx_epoch_next = wn_epoch_next;
        wn_valid_next = 1'b0;
    end
    end
end

always @(posedge clk) begin
    state_reg <= state_next;

    src_reg <= src_next;
    dst_reg <= dst_next;
    len_reg <= len_next;
    lim_reg <= lim_next;
    out_lim_reg <= out_lim_next;
    stop_reg <= stop_next;

    done_reg <= done_next;
    done_pulse_reg <= done_pulse_next;
    bad_param_reg <= bad_param_next;
    rd_err_reg <= rd_err_next;
    wr_err_reg <= wr_err_next;
    aborted_reg <= aborted_next;
    err_resp_reg <= err_resp_next;
    err_addr_reg <= err_addr_next;
    cycles_reg <= cycles_next;
    bytes_reg <= bytes_next;
    rd_bursts_reg <= rd_bursts_next;
    wr_bursts_reg <= wr_bursts_next;
    max_inflight_reg <= max_inflight_next;

    ar_addr_reg <= ar_addr_next;
    ar_left_reg <= ar_left_next;
    m_axi_araddr_reg <= m_axi_araddr_next;
    m_axi_arlen_reg <= m_axi_arlen_next;
    m_axi_arvalid_reg <= m_axi_arvalid_next;
    rd_out_reg <= rd_out_next;
    r_addr_reg <= r_addr_next;
    r_burst_addr_reg <= r_burst_addr_next;

    buf_wr_ptr_reg <= buf_wr_ptr_next;
    buf_rd_ptr_reg <= buf_rd_ptr_next;
    buf_used_reg <= buf_used_next;
    buf_avail_reg <= buf_avail_next;

    aw_addr_reg <= aw_addr_next;
    aw_left_reg <= aw_left_next;
    m_axi_awaddr_reg <= m_axi_awaddr_next;
    m_axi_awlen_reg <= m_axi_awlen_next;
    m_axi_awvalid_reg <= m_axi_awvalid_next;
    wr_out_reg <= wr_out_next;
    w_cur_reg <= w_cur_next;
    w_nxt_reg <= w_nxt_next;
    ramq_valid_reg <= ram_rd;
    wq_cnt_reg <= wq_cnt_next;

    b_addr_reg <= b_addr_next;
    b_left_reg <= b_left_next;

    xlat_reg <= xlat_next;
    src_kind_reg <= src_kind_next;
    dst_kind_reg <= dst_kind_next;
    ptag_reg <= ptag_next;
    src_h_reg <= src_h_next;
    dst_h_reg <= dst_h_next;
    xlat_err_reg <= xlat_err_next;
    xlat_dst_reg <= xlat_dst_next;
    xlat_code_reg <= xlat_code_next;
    lk_valid_reg <= lk_valid_next;
    lk_handle_reg <= lk_handle_next;
    lk_va_reg <= lk_va_next;
    lk_len_reg <= lk_len_next;
    lk_kind_reg <= lk_kind_next;
    lk_tag_reg <= lk_tag_next;
    lk_out_reg <= lk_out_next;
    pre_iss_reg <= pre_iss_next;
    pre_rsp_reg <= pre_rsp_next;
    lk_last_w_reg <= lk_last_w_next;
    rx_valid_reg <= rx_valid_next;
    rx_pend_reg <= rx_pend_next;
    rx_page_reg <= rx_page_next;
    rx_epoch_reg <= rx_epoch_next;
    wx_valid_reg <= wx_valid_next;
    wx_pend_reg <= wx_pend_next;
    wx_page_reg <= wx_page_next;
    wx_epoch_reg <= wx_epoch_next;
    rn_valid_reg <= rn_valid_next;
    rn_page_reg <= rn_page_next;
    rn_epoch_reg <= rn_epoch_next;
    wn_valid_reg <= wn_valid_next;
    wn_page_reg <= wn_page_next;
    wn_epoch_reg <= wn_epoch_next;
    rp_va0_reg <= rp_va0_next;
    rp_va1_reg <= rp_va1_next;
    wp_va0_reg <= wp_va0_next;
    wp_va1_reg <= wp_va1_next;
    rl_va_reg <= rl_va_next;
    rl_left_reg <= rl_left_next;
    wl_va_reg <= wl_va_next;
    wl_left_reg <= wl_left_next;
    rq_ep_reg <= rq_ep_next;
    wq_ep_reg <= wq_ep_next;

    if (rst) begin
        state_reg <= STATE_IDLE;
        src_reg <= 64'd0;
        dst_reg <= 64'd0;
        len_reg <= 32'd0;
        lim_reg <= 9'd0;
        out_lim_reg <= 4'd0;
        stop_reg <= 1'b0;
        done_reg <= 1'b0;
        done_pulse_reg <= 1'b0;
        bad_param_reg <= 1'b0;
        rd_err_reg <= 1'b0;
        wr_err_reg <= 1'b0;
        aborted_reg <= 1'b0;
        err_resp_reg <= 2'd0;
        err_addr_reg <= 64'd0;
        cycles_reg <= 32'd0;
        bytes_reg <= 32'd0;
        rd_bursts_reg <= 32'd0;
        wr_bursts_reg <= 32'd0;
        max_inflight_reg <= 4'd0;
        ar_addr_reg <= 64'd0;
        ar_left_reg <= {LEN_W{1'b0}};
        m_axi_araddr_reg <= {ADDR_WIDTH{1'b0}};
        m_axi_arlen_reg <= 8'd0;
        m_axi_arvalid_reg <= 1'b0;
        rd_out_reg <= 4'd0;
        r_addr_reg <= 64'd0;
        r_burst_addr_reg <= 64'd0;
        buf_wr_ptr_reg <= {BUF_AW{1'b0}};
        buf_rd_ptr_reg <= {BUF_AW{1'b0}};
        buf_used_reg <= {CNT_W{1'b0}};
        buf_avail_reg <= {CNT_W{1'b0}};
        aw_addr_reg <= 64'd0;
        aw_left_reg <= {LEN_W{1'b0}};
        m_axi_awaddr_reg <= {ADDR_WIDTH{1'b0}};
        m_axi_awlen_reg <= 8'd0;
        m_axi_awvalid_reg <= 1'b0;
        wr_out_reg <= 4'd0;
        w_cur_reg <= 9'd0;
        w_nxt_reg <= 9'd0;
        ramq_valid_reg <= 1'b0;
        wq_cnt_reg <= 2'd0;
        b_addr_reg <= 64'd0;
        b_left_reg <= {LEN_W{1'b0}};
        xlat_reg <= 1'b0;
        src_kind_reg <= 2'd0;
        dst_kind_reg <= 2'd0;
        ptag_reg <= 16'd0;
        src_h_reg <= 32'd0;
        dst_h_reg <= 32'd0;
        xlat_err_reg <= 1'b0;
        xlat_dst_reg <= 1'b0;
        xlat_code_reg <= 3'd0;
        lk_valid_reg <= 1'b0;
        lk_handle_reg <= 32'd0;
        lk_va_reg <= 64'd0;
        lk_len_reg <= 32'd0;
        lk_kind_reg <= 2'd0;
        lk_tag_reg <= 1'b0;
        lk_out_reg <= 3'd0;
        pre_iss_reg <= 2'd0;
        pre_rsp_reg <= 2'd0;
        lk_last_w_reg <= 1'b0;
        rx_valid_reg <= 1'b0;
        rx_pend_reg <= 2'd0;
        rx_page_reg <= {PG_W{1'b0}};
        rx_epoch_reg <= 1'b0;
        wx_valid_reg <= 1'b0;
        wx_pend_reg <= 2'd0;
        rn_valid_reg <= 1'b0;
        rn_page_reg <= {PG_W{1'b0}};
        rn_epoch_reg <= 1'b0;
        wn_valid_reg <= 1'b0;
        wn_page_reg <= {PG_W{1'b0}};
        wn_epoch_reg <= 1'b0;
        rp_va0_reg <= 64'd0;
        rp_va1_reg <= 64'd0;
        wp_va0_reg <= 64'd0;
        wp_va1_reg <= 64'd0;
        rl_va_reg <= 64'd0;
        rl_left_reg <= 32'd0;
        wl_va_reg <= 64'd0;
        wl_left_reg <= 32'd0;
        wx_page_reg <= {PG_W{1'b0}};
        wx_epoch_reg <= 1'b0;
        rq_ep_reg <= 16'd0;
        wq_ep_reg <= 16'd0;
    end
end

// buffer RAM: one write port (R), one registered read port (W)
always @(posedge clk) begin
    if (r_fire) begin
        buf_mem[buf_wr_ptr_reg] <= m_axi_rdata;
    end
    if (ram_rd) begin
        ramq_data_reg <= buf_mem[buf_rd_ptr_reg];
        ramq_last_reg <= w_cur_reg == 9'd1;
    end
end

// W output queue, two entries; entry 0 drives W. The read-ahead rule (ram_rd)
// keeps wq_cnt + ramq_valid <= 2, so a beat from the RAM always finds a free
// entry, and with a pop in the same cycle the queue held exactly one beat.
always @(posedge clk) begin
    case ({wq_pop, ramq_valid_reg})
        2'b01: begin
            if (wq_cnt_reg == 2'd0) begin
                wq0_data_reg <= ramq_data_reg;
                wq0_last_reg <= ramq_last_reg;
            end else begin
                wq1_data_reg <= ramq_data_reg;
                wq1_last_reg <= ramq_last_reg;
            end
        end
        2'b10: begin
            wq0_data_reg <= wq1_data_reg;
            wq0_last_reg <= wq1_last_reg;
        end
        2'b11: begin
            wq0_data_reg <= ramq_data_reg;
            wq0_last_reg <= ramq_last_reg;
        end
        default: begin
        end
    endcase
end

endmodule

`default_nettype wire
