// via_tpt: translation and protection table (TPT) of the vianic NIC.
//
// Translates (memory handle, virtual address, length, ptag, access kind)
// into the physical address of the VA's page, or answers exactly one error
// (TPT_ERR_*, bar0.layout). The firmware programs it (fw.layout TPT_*); the
// DMA engines and the driver's probe look up through it. docs/memory.md
// describes the memory registration it serves.
//
// Structure
//   Region table   REGIONS entries in a via_ram (one word per region):
//                  {valid, gen[15:0], base va[63:0], len[31:0], ptag[15:0],
//                   rdma_write, rdma_read, page-list address[ADDR_WIDTH-1:3]}.
//                  The RAM has no reset: after reset the TPT clears every
//                  entry (valid 0, gen 1) and every cache line, one word per
//                  cycle, with prog_busy 1 and lk_ready 0
//                  (max(REGIONS, CACHE_ENTRIES/8) cycles).
//   Page lists     live in host memory: entry i (8 bytes, little endian) of
//                  the region's list is the physical address of the i-th
//                  4 KiB page the region spans (page 0 holds the base VA).
//                  Bits [ADDR_WIDTH-1:12] of an entry are used, the others
//                  ignored.
//   Cache          direct mapped, CACHE_ENTRIES/8 lines of 8 entries (64
//                  bytes of page list, aligned to 64 bytes in host memory),
//                  one via_ram word per line: {valid, region index, gen,
//                  line number in the list, 8 page numbers}. A line is
//                  tagged with the region's index and generation, so after
//                  an INVALIDATE (generation + 1) its old lines never hit
//                  again. When a generation wraps (0xFFFF -> 1), and when a
//                  WRITE overwrites a valid region, the whole cache is
//                  flushed (CACHE_ENTRIES/8 cycles, lookups held).
//                  Set = line number XOR the region index folded to the
//                  set bits.
//   Fetch          a miss reads the 64-byte line with one AXI4 INCR burst
//                  (ARID FETCH_ID, 64/(DATA_WIDTH/8) beats of the full bus
//                  width; never crosses 4 KiB). Any beat answered SLVERR or
//                  DECERR makes the lookup TPT_ERR_FETCH and the line is not
//                  cached. One fetch at a time; rid is not checked (the
//                  port carries page-list fetches only).
//
// Lookup pipeline (in order, one lookup per cycle while they hit)
//   accept  lk_valid && lk_ready: the region table is read at the handle's
//           index.
//   S1      region entry available: checks in this order, first failure
//           wins:
//             HANDLE  index bits above log2(REGIONS) set, or generation 0,
//             STALE   handle generation != the region's,
//             HANDLE  region not valid (generation is the current one),
//             PTAG    lk_ptag != the region's ptag,
//             ACCESS  REMOTE_READ without rdma_read, REMOTE_WRITE without
//                     rdma_write (LOCAL_* need no enable),
//             BOUNDS  len > 0: base <= va, va+len <= base+length and
//                     va+len <= 2**64 (65-bit sums, nothing wraps);
//                     len == 0: base <= va <= base+length.
//           Page index (va>>12) - (base>>12), its cache line and set; the
//           cache is read.
//   S2      cache line available: a lookup that needs a page (no error and
//           len > 0) hits, or stalls S2 (and everything behind it) while
//           the line is fetched; the answer then comes from the fetched line
//           (or is FETCH). Errors and zero-length lookups need no page.
//   out     the response register (rs_*), held until rs_ready.
//   rs_pa = page address | va[11:0] (0 on error or len 0); rs_bytes =
//   min(4096 - va[11:0], len) (0 on error); rs_hit = the page entry came
//   from the cache; rs_epoch = the epoch the lookup was accepted in.
//   st_* pulse once per response, in the cycle it enters the response
//   register (st_miss: the lookup fetched its line, also when it got FETCH).
//
// Programming (prog_valid pulse while !prog_busy, ops per fw.layout TPT_OP;
// NOP and unknown ops are ignored and do not set busy). Every op first
// stops accepting lookups and lets the lookups already accepted leave S1 and
// S2, then reads the entry (one cycle) and executes in one cycle:
//   WRITE       valid 1 with the entry's current generation, all fields
//               from prog_*; prog_rd_* = the new entry. If the entry was
//               valid, the cache is flushed.
//   SET_ATTR    a valid entry's ptag and RDMA enables; an invalid entry is
//               left alone. prog_rd_* = the entry after the op (valid says
//               whether it applied).
//   READ        prog_rd_* = the entry.
//   INVALIDATE  the fence: lookups stop, the pipeline drains completely
//               (including the response register), then in one cycle the
//               entry's valid bit clears, its generation increments
//               (skipping 0) and the TPT's epoch flips. Lookups are accepted
//               again from the next cycle (under the new epoch); prog_busy
//               stays 1 until inflight_epoch[old epoch] is 0, checked from
//               the second cycle after the flip on. A consumer raises
//               inflight_epoch[e] from the cycle it accepts a response of
//               epoch e until every DMA using it has completed.
//               prog_rd_* = the entry after the op. (An entry that is not
//               valid gets its generation incremented too.)
// A lookup accepted in the cycle of a prog_valid is ordered before the op.
// lk_ready depends combinationally on rs_ready and on the cache tag compare
// (a stage moves when the one after it moves); nothing else of the lookup
// port is combinational.
// Page-list addresses are kept as bits [ADDR_WIDTH-1:3] (prog_rd_pl returns
// them, zero-extended). A WRITE over a valid region has no fence: the
// firmware deregisters first.

`timescale 1ns / 1ps
`default_nettype none

`include "via_param_check.vh"
`include "via_bar0.vh"
`include "via_fw.vh"
module via_tpt #(
    parameter REGIONS       = 1024,  // power of two, 16..65536
    parameter CACHE_ENTRIES = 512,   // page-list entries cached, power of two, 64..16384
    parameter ADDR_WIDTH    = 48,    // physical (DMA) address bits, 32..64
    parameter DATA_WIDTH    = 64,    // AXI4 read data bits of the fetch port, 64..512
    parameter ID_WIDTH      = 4,     // 1..32
    parameter [ID_WIDTH-1:0] FETCH_ID = 0,  // ARID of page-list fetches
    parameter TAG_WIDTH     = 2      // lookup tag, returned with the response, 1..32
) (
    input  wire clk,
    input  wire rst,        // synchronous, active high

    // programming (firmware through via_cpu_periph's TPT_* registers)
    input  wire        prog_valid,          // one-cycle pulse; ignored while prog_busy
    input  wire [2:0]  prog_op,             // TPT_OP_* (fw.layout)
    /* verilator lint_off UNUSEDSIGNAL */
    // bits above log2(REGIONS) are ignored
    input  wire [15:0] prog_index,          // bits above log2(REGIONS) ignored
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire [63:0] prog_va,
    input  wire [31:0] prog_len,
    input  wire [15:0] prog_ptag,
    input  wire        prog_rdma_write,
    input  wire        prog_rdma_read,
    /* verilator lint_off UNUSEDSIGNAL */
    // page-list address bits above ADDR_WIDTH and below 3 are dropped
    input  wire [63:0] prog_pl,
    /* verilator lint_on UNUSEDSIGNAL */
    output wire        prog_busy,
    // result of the last WRITE / SET_ATTR / READ (READ loads all of them)
    output reg  [63:0] prog_rd_va,
    output reg  [31:0] prog_rd_len,
    output reg  [15:0] prog_rd_ptag,
    output reg         prog_rd_rdma_write,
    output reg         prog_rd_rdma_read,
    output reg  [63:0] prog_rd_pl,
    output reg         prog_rd_valid,
    output reg  [15:0] prog_rd_gen,

    // lookups (in order; one per cycle on hits)
    input  wire                  lk_valid,
    output wire                  lk_ready,
    input  wire [31:0]           lk_handle,
    input  wire [63:0]           lk_va,
    input  wire [31:0]           lk_len,
    input  wire [15:0]           lk_ptag,
    input  wire [1:0]            lk_kind,     // TPT_KIND_*
    input  wire [TAG_WIDTH-1:0]  lk_tag,
    output wire                  rs_valid,
    input  wire                  rs_ready,
    output wire [2:0]            rs_err,      // TPT_ERR_*
    output wire [ADDR_WIDTH-1:0] rs_pa,       // PA of lk_va (0 on error or len 0)
    output wire [12:0]           rs_bytes,    // min(4096 - va[11:0], len) (0 on error)
    output wire                  rs_hit,      // page entry came from the cache
    output wire                  rs_epoch,
    output wire [TAG_WIDTH-1:0]  rs_tag,

    // fence: bit e = some DMA is in flight under a translation of epoch e
    input  wire [1:0]            inflight_epoch,

    // page-list fetch: AXI4 read address/data channels only
    output wire [ID_WIDTH-1:0]   m_axi_arid,
    output wire [ADDR_WIDTH-1:0] m_axi_araddr,
    output wire [7:0]            m_axi_arlen,
    output wire [2:0]            m_axi_arsize,
    output wire [1:0]            m_axi_arburst,
    output wire                  m_axi_arvalid,
    input  wire                  m_axi_arready,
    /* verilator lint_off UNUSEDSIGNAL */
    // only page-list fetches use this port: the ID carries no information
    input  wire [ID_WIDTH-1:0]   m_axi_rid,
    // bits of a page entry above ADDR_WIDTH and below 12 are ignored
    input  wire [DATA_WIDTH-1:0] m_axi_rdata,
    // rresp[0] (EXOKAY vs OKAY, SLVERR vs DECERR) makes no difference
    input  wire [1:0]            m_axi_rresp,
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire                  m_axi_rlast,
    input  wire                  m_axi_rvalid,
    output wire                  m_axi_rready,

    // counters' events (one-cycle pulses, one per response)
    output wire st_lookup,
    output wire st_hit,
    output wire st_miss,
    output wire st_error
);

generate
    if (REGIONS < 16 || REGIONS > 65536 || (REGIONS & (REGIONS - 1)) != 0) begin : g_bad_regions
        `VIA_PARAM_FAIL(("via_tpt: REGIONS=%0d, must be a power of two, 16..65536", REGIONS))
    end
    if (CACHE_ENTRIES < 64 || CACHE_ENTRIES > 16384 || (CACHE_ENTRIES & (CACHE_ENTRIES - 1)) != 0) begin : g_bad_cache
        `VIA_PARAM_FAIL(("via_tpt: CACHE_ENTRIES=%0d, must be a power of two, 64..16384", CACHE_ENTRIES))
    end
    if (ADDR_WIDTH < 32 || ADDR_WIDTH > 64) begin : g_bad_addr_width
        `VIA_PARAM_FAIL(("via_tpt: ADDR_WIDTH=%0d, must be 32..64", ADDR_WIDTH))
    end
    if (DATA_WIDTH != 64 && DATA_WIDTH != 128 && DATA_WIDTH != 256 && DATA_WIDTH != 512) begin : g_bad_data_width
        `VIA_PARAM_FAIL(("via_tpt: DATA_WIDTH=%0d, must be 64, 128, 256 or 512", DATA_WIDTH))
    end
    if (ID_WIDTH < 1 || ID_WIDTH > 32) begin : g_bad_id_width
        `VIA_PARAM_FAIL(("via_tpt: ID_WIDTH=%0d, must be 1..32", ID_WIDTH))
    end
    if (TAG_WIDTH < 1 || TAG_WIDTH > 32) begin : g_bad_tag_width
        `VIA_PARAM_FAIL(("via_tpt: TAG_WIDTH=%0d, must be 1..32", TAG_WIDTH))
    end
endgenerate

// ------------------------------------------------------------ constants

// region index bits (at least 1, so that a bad REGIONS still elaborates)
localparam IW = (REGIONS > 2) ? $clog2(REGIONS) : 1;
// cache lines (8 entries each) and set bits
localparam LINES = (CACHE_ENTRIES >= 64) ? CACHE_ENTRIES / 8 : 8;
localparam LW = $clog2(LINES);
// page number bits of a physical address
localparam AWS = (ADDR_WIDTH >= 32 && ADDR_WIDTH <= 64) ? ADDR_WIDTH : 48;
localparam PPNW = AWS - 12;
// stored page-list address bits [AWS-1:3]
localparam PLW = AWS - 3;
// line number of an entry in its region's page list: (pl[5:3] + page
// index) >> 3, page index < 2**20 + 1
localparam RLW = 18;
// table word
localparam TW = 1 + 16 + 64 + 32 + 16 + 2 + PLW;
// cache word: valid, region, gen, line number, 8 page numbers
localparam CTW = 1 + IW + 16 + RLW;
localparam CW = CTW + 8 * PPNW;
// fetch: entries per beat, beats per line, AXI size
localparam DWS = (DATA_WIDTH == 128 || DATA_WIDTH == 256 || DATA_WIDTH == 512) ? DATA_WIDTH : 64;
localparam EPB = DWS / 64;
localparam BEATS = 8 / EPB;
localparam BW = (BEATS > 1) ? $clog2(BEATS) : 1;
localparam [31:0] AR_LEN32 = BEATS - 1;
localparam [7:0] AR_LEN = AR_LEN32[7:0];
localparam [31:0] AR_SIZE32 = $clog2(DWS / 8);
localparam [2:0] AR_SIZE = AR_SIZE32[2:0];
// clear counter: max(REGIONS, LINES) words
localparam CLN = (REGIONS > LINES) ? REGIONS : LINES;
localparam CLW = $clog2(CLN) + 1;
localparam [31:0] CL_LAST32 = CLN - 1;
localparam [31:0] CL_REGIONS32 = REGIONS;
localparam [31:0] CL_LINES32 = LINES;
localparam [31:0] CL_LINES_LAST32 = LINES - 1;
localparam [CLW-1:0] CL_LAST = CL_LAST32[CLW-1:0];
localparam [CLW-1:0] CL_REGIONS = CL_REGIONS32[CLW-1:0];
localparam [CLW-1:0] CL_LINES = CL_LINES32[CLW-1:0];
localparam [CLW-1:0] CL_LINES_LAST = CL_LINES_LAST32[CLW-1:0];

localparam [31:0] ERR_OK32 = `VIA_TPT_ERR_OK;
localparam [2:0] ERR_OK = ERR_OK32[2:0];
localparam [31:0] ERR_HANDLE32 = `VIA_TPT_ERR_HANDLE;
localparam [2:0] ERR_HANDLE = ERR_HANDLE32[2:0];
localparam [31:0] ERR_STALE32 = `VIA_TPT_ERR_STALE;
localparam [2:0] ERR_STALE = ERR_STALE32[2:0];
localparam [31:0] ERR_PTAG32 = `VIA_TPT_ERR_PTAG;
localparam [2:0] ERR_PTAG = ERR_PTAG32[2:0];
localparam [31:0] ERR_ACCESS32 = `VIA_TPT_ERR_ACCESS;
localparam [2:0] ERR_ACCESS = ERR_ACCESS32[2:0];
localparam [31:0] ERR_BOUNDS32 = `VIA_TPT_ERR_BOUNDS;
localparam [2:0] ERR_BOUNDS = ERR_BOUNDS32[2:0];
localparam [31:0] ERR_FETCH32 = `VIA_TPT_ERR_FETCH;
localparam [2:0] ERR_FETCH = ERR_FETCH32[2:0];
localparam [31:0] KIND_REMOTE_READ32 = `VIA_TPT_KIND_REMOTE_READ;
localparam [1:0] KIND_REMOTE_READ = KIND_REMOTE_READ32[1:0];
localparam [31:0] KIND_REMOTE_WRITE32 = `VIA_TPT_KIND_REMOTE_WRITE;
localparam [1:0] KIND_REMOTE_WRITE = KIND_REMOTE_WRITE32[1:0];
localparam [31:0] OP_WRITE32 = `VIA_FW_TPT_OP_WRITE;
localparam [2:0] OP_WRITE = OP_WRITE32[2:0];
localparam [31:0] OP_SET_ATTR32 = `VIA_FW_TPT_OP_SET_ATTR;
localparam [2:0] OP_SET_ATTR = OP_SET_ATTR32[2:0];
localparam [31:0] OP_INVALIDATE32 = `VIA_FW_TPT_OP_INVALIDATE;
localparam [2:0] OP_INVALIDATE = OP_INVALIDATE32[2:0];
localparam [31:0] OP_READ32 = `VIA_FW_TPT_OP_READ;
localparam [2:0] OP_READ = OP_READ32[2:0];

localparam [2:0]
    P_CLEAR = 3'd0,   // after reset: clear the table and the cache
    P_IDLE  = 3'd1,
    P_DRAIN = 3'd2,   // lookups held; wait for the pipeline to empty
    P_EXEC  = 3'd3,   // entry read: execute the op
    P_FLUSH = 3'd4,   // invalidate every cache line
    P_FENCE = 3'd5;   // wait for inflight_epoch[old] == 0

localparam [1:0]
    F_IDLE = 2'd0,
    F_AR   = 2'd1,
    F_R    = 2'd2,
    F_FIN  = 2'd3;

// region index bits folded (XOR) onto the cache set bits
function [LW-1:0] fold;
    input [IW-1:0] idx;
    integer i;
    begin
        fold = {LW{1'b0}};
        for (i = 0; i < IW; i = i + 1) begin
            fold[i % LW] = fold[i % LW] ^ idx[i];
        end
    end
endfunction

// ------------------------------------------------------------ state

// programming
reg [2:0] p_state_reg, p_state_next;
reg [2:0] p_op_reg, p_op_next;
reg [IW-1:0] p_idx_reg, p_idx_next;
reg [63:0] p_va_reg, p_va_next;
reg [31:0] p_len_reg, p_len_next;
reg [15:0] p_ptag_reg, p_ptag_next;
reg p_ww_reg, p_ww_next;
reg p_rr_reg, p_rr_next;
reg [PLW-1:0] p_pl_reg, p_pl_next;
reg p_fence_reg, p_fence_next;          // FLUSH goes on to FENCE
reg p_old_epoch_reg, p_old_epoch_next;
reg p_wait_reg, p_wait_next;            // first FENCE cycle: not yet checked
reg [CLW-1:0] cl_cnt_reg, cl_cnt_next;
reg epoch_reg, epoch_next;

// S1: accepted lookup, region entry on the table RAM's output
reg s1_valid_reg, s1_valid_next;
reg [IW-1:0] s1_idx_reg, s1_idx_next;
reg s1_bad_reg, s1_bad_next;            // index too large or generation 0
reg [15:0] s1_gen_reg, s1_gen_next;
reg [63:0] s1_va_reg, s1_va_next;
reg [31:0] s1_len_reg, s1_len_next;
reg [15:0] s1_ptag_reg, s1_ptag_next;
reg [1:0] s1_kind_reg, s1_kind_next;
reg [TAG_WIDTH-1:0] s1_tag_reg, s1_tag_next;
reg s1_epoch_reg, s1_epoch_next;

// S2: checked lookup, cache line on the cache RAM's output
reg s2_valid_reg, s2_valid_next;
reg [2:0] s2_err_reg, s2_err_next;
reg s2_need_reg, s2_need_next;          // needs its page entry
reg [2:0] s2_pos_reg, s2_pos_next;      // entry in the line
reg [RLW-1:0] s2_rel_reg, s2_rel_next;  // line number in the page list
reg [LW-1:0] s2_set_reg, s2_set_next;
reg [AWS-7:0] s2_line_reg, s2_line_next; // physical line address >> 6
reg [IW-1:0] s2_idx_reg, s2_idx_next;
reg [15:0] s2_gen_reg, s2_gen_next;
reg [11:0] s2_off_reg, s2_off_next;
reg [12:0] s2_bytes_reg, s2_bytes_next;
reg [TAG_WIDTH-1:0] s2_tag_reg, s2_tag_next;
reg s2_epoch_reg, s2_epoch_next;
reg s2_done_reg, s2_done_next;          // its line was fetched (s2_ppn, s2_ferr)
reg s2_ferr_reg, s2_ferr_next;
reg [PPNW-1:0] s2_ppn_reg, s2_ppn_next;

// response
reg rs_valid_reg, rs_valid_next;
reg [2:0] rs_err_reg, rs_err_next;
reg [AWS-1:0] rs_pa_reg, rs_pa_next;
reg [12:0] rs_bytes_reg, rs_bytes_next;
reg rs_hit_reg, rs_hit_next;
reg rs_epoch_reg, rs_epoch_next;
reg [TAG_WIDTH-1:0] rs_tag_reg, rs_tag_next;
reg st_lookup_reg, st_hit_reg, st_miss_reg, st_error_reg;
reg st_lookup_next, st_hit_next, st_miss_next, st_error_next;

// fetch
reg [1:0] f_state_reg, f_state_next;
reg [BW-1:0] f_beat_reg, f_beat_next;
reg f_err_reg, f_err_next;
reg [8*PPNW-1:0] f_buf_reg, f_buf_next;
reg [AWS-1:0] f_addr_reg, f_addr_next;

// RAM ports
reg t_we;
reg [IW-1:0] t_waddr, t_raddr;
reg [TW-1:0] t_wdata;
wire [TW-1:0] t_rdata;
reg c_we;
reg [LW-1:0] c_waddr, c_raddr;
reg [CW-1:0] c_wdata;
wire [CW-1:0] c_rdata;

via_ram #(
    .WIDTH(TW),
    .WORDS(REGIONS)
) u_table (
    .clk(clk),
    .wr_en(t_we),
    .wr_addr(t_waddr),
    .wr_data(t_wdata),
    .rd_en(1'b1),
    .rd_addr(t_raddr),
    .rd_data(t_rdata)
);

via_ram #(
    .WIDTH(CW),
    .WORDS(LINES)
) u_cache (
    .clk(clk),
    .wr_en(c_we),
    .wr_addr(c_waddr),
    .wr_data(c_wdata),
    .rd_en(1'b1),
    .rd_addr(c_raddr),
    .rd_data(c_rdata)
);

// table word fields
wire e_valid = t_rdata[TW-1];
wire [15:0] e_gen = t_rdata[TW-2 -: 16];
wire [63:0] e_va = t_rdata[TW-18 -: 64];
wire [31:0] e_len = t_rdata[TW-82 -: 32];
wire [15:0] e_ptag = t_rdata[TW-114 -: 16];
wire e_ww = t_rdata[TW-130];
wire e_rr = t_rdata[TW-131];
wire [PLW-1:0] e_pl = t_rdata[PLW-1:0];

// cache word fields
wire c_valid = c_rdata[CW-1];
wire [IW-1:0] c_idx = c_rdata[CW-2 -: IW];
wire [15:0] c_gen = c_rdata[CW-2-IW -: 16];
wire [RLW-1:0] c_rel = c_rdata[CW-18-IW -: RLW];
wire [8*PPNW-1:0] c_data = c_rdata[8*PPNW-1:0];

function [TW-1:0] t_word;
    input v;
    input [15:0] gen;
    input [63:0] va;
    input [31:0] len;
    input [15:0] ptag;
    input ww;
    input rr;
    input [PLW-1:0] pl;
    begin
        t_word = {v, gen, va, len, ptag, ww, rr, pl};
    end
endfunction

// page-list address as a 64-bit value
wire [63:0] e_pl64;
generate
    if (AWS < 64) begin : g_pl64
        assign e_pl64 = {{(64-AWS){1'b0}}, e_pl, 3'b000};
    end else begin : g_pl64_full
        assign e_pl64 = {e_pl, 3'b000};
    end
endgenerate

// ------------------------------------------------------------ outputs

assign prog_busy = p_state_reg != P_IDLE;
assign rs_valid = rs_valid_reg;
assign rs_err = rs_err_reg;
assign rs_pa = rs_pa_reg;
assign rs_bytes = rs_bytes_reg;
assign rs_hit = rs_hit_reg;
assign rs_epoch = rs_epoch_reg;
assign rs_tag = rs_tag_reg;
assign st_lookup = st_lookup_reg;
assign st_hit = st_hit_reg;
assign st_miss = st_miss_reg;
assign st_error = st_error_reg;

assign m_axi_arid = FETCH_ID;
assign m_axi_araddr = f_addr_reg;
assign m_axi_arlen = AR_LEN;
assign m_axi_arsize = AR_SIZE;
assign m_axi_arburst = 2'b01;
assign m_axi_arvalid = f_state_reg == F_AR;
assign m_axi_rready = f_state_reg == F_R;

// ------------------------------------------------------------ pipeline control

// S2 can leave: no page needed, or its line hit or was fetched
wire c_hit = c_valid && c_idx == s2_idx_reg && c_gen == s2_gen_reg && c_rel == s2_rel_reg;
wire s2_ans = !s2_need_reg || s2_done_reg || c_hit;
wire s2_go = s2_valid_reg && s2_ans && (!rs_valid_reg || rs_ready);
wire s1_go = s1_valid_reg && (!s2_valid_reg || s2_go);
wire s0_go = lk_valid && lk_ready;
assign lk_ready = (p_state_reg == P_IDLE || p_state_reg == P_FENCE) && (!s1_valid_reg || s1_go);

// ------------------------------------------------------------ S1 checks

reg [2:0] s1_err;
reg s1_lo_ok, s1_hi_ok;
reg [64:0] s1_end, s1_rend;
reg [20:0] s1_pidx, s1_rel21;
reg [12:0] s1_pg_left, s1_bytes;
reg [LW-1:0] s1_set;

always @* begin
    s1_end = {1'b0, s1_va_reg} + {33'd0, s1_len_reg};
    s1_rend = {1'b0, e_va} + {33'd0, e_len};
    s1_lo_ok = s1_va_reg >= e_va;
    if (s1_len_reg == 32'd0) begin
        s1_hi_ok = {1'b0, s1_va_reg} <= s1_rend;
    end else begin
        s1_hi_ok = s1_end <= s1_rend && !(s1_end[64] && s1_end[63:0] != 64'd0);
    end

    if (s1_bad_reg) begin
        s1_err = ERR_HANDLE;
    end else if (s1_gen_reg != e_gen) begin
        s1_err = ERR_STALE;
    end else if (!e_valid) begin
        s1_err = ERR_HANDLE;
    end else if (s1_ptag_reg != e_ptag) begin
        s1_err = ERR_PTAG;
    end else if ((s1_kind_reg == KIND_REMOTE_READ && !e_rr) || (s1_kind_reg == KIND_REMOTE_WRITE && !e_ww)) begin
        s1_err = ERR_ACCESS;
    end else if (!(s1_lo_ok && s1_hi_ok)) begin
        s1_err = ERR_BOUNDS;
    end else begin
        s1_err = ERR_OK;
    end

    // page index in the region (meaningful when in bounds: < 2**20 + 1) and
    // its line in the page list
    s1_pidx = s1_va_reg[32:12] - e_va[32:12];
    s1_rel21 = s1_pidx + {18'd0, e_pl[2:0]};
    s1_set = s1_rel21[LW+2:3] ^ fold(s1_idx_reg);

    s1_pg_left = 13'd4096 - {1'b0, s1_va_reg[11:0]};
    s1_bytes = (s1_len_reg < {19'd0, s1_pg_left}) ? s1_len_reg[12:0] : s1_pg_left;
end

// physical address of the entry's line (>> 6)
wire [AWS-7:0] s1_line = e_pl[PLW-1:3] + {{(AWS-6-RLW){1'b0}}, s1_rel21[20:3]};

// ------------------------------------------------------------ next state

reg [15:0] ngen;
reg [PPNW-1:0] c_ppn;
reg [2:0] out_err;
integer k;
integer kb;

always @* begin
    p_state_next = p_state_reg;
    p_op_next = p_op_reg;
    p_idx_next = p_idx_reg;
    p_va_next = p_va_reg;
    p_len_next = p_len_reg;
    p_ptag_next = p_ptag_reg;
    p_ww_next = p_ww_reg;
    p_rr_next = p_rr_reg;
    p_pl_next = p_pl_reg;
    p_fence_next = p_fence_reg;
    p_old_epoch_next = p_old_epoch_reg;
    p_wait_next = 1'b0;
    cl_cnt_next = cl_cnt_reg;
    epoch_next = epoch_reg;

    s1_valid_next = s1_valid_reg;
    s1_idx_next = s1_idx_reg;
    s1_bad_next = s1_bad_reg;
    s1_gen_next = s1_gen_reg;
    s1_va_next = s1_va_reg;
    s1_len_next = s1_len_reg;
    s1_ptag_next = s1_ptag_reg;
    s1_kind_next = s1_kind_reg;
    s1_tag_next = s1_tag_reg;
    s1_epoch_next = s1_epoch_reg;

    s2_valid_next = s2_valid_reg;
    s2_err_next = s2_err_reg;
    s2_need_next = s2_need_reg;
    s2_pos_next = s2_pos_reg;
    s2_rel_next = s2_rel_reg;
    s2_set_next = s2_set_reg;
    s2_line_next = s2_line_reg;
    s2_idx_next = s2_idx_reg;
    s2_gen_next = s2_gen_reg;
    s2_off_next = s2_off_reg;
    s2_bytes_next = s2_bytes_reg;
    s2_tag_next = s2_tag_reg;
    s2_epoch_next = s2_epoch_reg;
    s2_done_next = s2_done_reg;
    s2_ferr_next = s2_ferr_reg;
    s2_ppn_next = s2_ppn_reg;

    rs_valid_next = rs_valid_reg;
    rs_err_next = rs_err_reg;
    rs_pa_next = rs_pa_reg;
    rs_bytes_next = rs_bytes_reg;
    rs_hit_next = rs_hit_reg;
    rs_epoch_next = rs_epoch_reg;
    rs_tag_next = rs_tag_reg;
    st_lookup_next = 1'b0;
    st_hit_next = 1'b0;
    st_miss_next = 1'b0;
    st_error_next = 1'b0;

    f_state_next = f_state_reg;
    f_beat_next = f_beat_reg;
    f_err_next = f_err_reg;
    f_buf_next = f_buf_reg;
    f_addr_next = f_addr_reg;

    t_we = 1'b0;
    t_waddr = p_idx_reg;
    t_wdata = t_rdata;
    c_we = 1'b0;
    c_waddr = s2_set_reg;
    c_wdata = {CW{1'b0}};

    ngen = e_gen + 16'd1;
    if (ngen == 16'd0) begin
        ngen = 16'd1;
    end

    // ---------------------------------------------------- RAM read addresses
    // A stage that holds re-reads its word every cycle, so the RAM's output
    // always belongs to the lookup in the stage behind it.
    if (s0_go) begin
        t_raddr = lk_handle[IW-1:0];
    end else if (s1_valid_reg && !s1_go) begin
        t_raddr = s1_idx_reg;
    end else begin
        t_raddr = p_idx_reg;
    end
    c_raddr = s1_go ? s1_set : s2_set_reg;

    // ---------------------------------------------------- response stage
    if (rs_valid_reg && rs_ready) begin
        rs_valid_next = 1'b0;
    end
    c_ppn = c_data[s2_pos_reg*PPNW +: PPNW];
    out_err = (s2_done_reg && s2_ferr_reg) ? ERR_FETCH : s2_err_reg;
    if (s2_go) begin
        rs_valid_next = 1'b1;
        rs_err_next = out_err;
        rs_epoch_next = s2_epoch_reg;
        rs_tag_next = s2_tag_reg;
        rs_hit_next = s2_need_reg && !s2_done_reg;
        rs_bytes_next = (out_err == ERR_OK) ? s2_bytes_reg : 13'd0;
        if (out_err == ERR_OK && s2_need_reg) begin
            rs_pa_next = {s2_done_reg ? s2_ppn_reg : c_ppn, s2_off_reg};
        end else begin
            rs_pa_next = {AWS{1'b0}};
        end
        st_lookup_next = 1'b1;
        st_hit_next = s2_need_reg && !s2_done_reg;
        st_miss_next = s2_need_reg && s2_done_reg;
        st_error_next = out_err != ERR_OK;
    end

    // ---------------------------------------------------- S2
    if (s2_go) begin
        s2_valid_next = 1'b0;
    end
    if (s1_go) begin
        s2_valid_next = 1'b1;
        s2_err_next = s1_err;
        s2_need_next = s1_err == ERR_OK && s1_len_reg != 32'd0;
        s2_pos_next = s1_rel21[2:0];
        s2_rel_next = s1_rel21[20:3];
        s2_set_next = s1_set;
        s2_line_next = s1_line;
        s2_idx_next = s1_idx_reg;
        s2_gen_next = s1_gen_reg;
        s2_off_next = s1_va_reg[11:0];
        s2_bytes_next = s1_bytes;
        s2_tag_next = s1_tag_reg;
        s2_epoch_next = s1_epoch_reg;
        s2_done_next = 1'b0;
        s2_ferr_next = 1'b0;
    end

    // ---------------------------------------------------- S1
    if (s1_go) begin
        s1_valid_next = 1'b0;
    end
    if (s0_go) begin
        s1_valid_next = 1'b1;
        s1_idx_next = lk_handle[IW-1:0];
        s1_bad_next = (lk_handle[15:0] >> IW) != 16'd0 || lk_handle[31:16] == 16'd0;
        s1_gen_next = lk_handle[31:16];
        s1_va_next = lk_va;
        s1_len_next = lk_len;
        s1_ptag_next = lk_ptag;
        s1_kind_next = lk_kind;
        s1_tag_next = lk_tag;
        s1_epoch_next = epoch_reg;
    end

    // ---------------------------------------------------- fetch
    case (f_state_reg)
        F_IDLE: begin
            if (s2_valid_reg && s2_need_reg && !s2_done_reg && !c_hit) begin
                f_state_next = F_AR;
                f_addr_next = {s2_line_reg, 6'd0};
                f_beat_next = {BW{1'b0}};
                f_err_next = 1'b0;
            end
        end
        F_AR: begin
            if (m_axi_arready) begin
                f_state_next = F_R;
            end
        end
        F_R: begin
            if (m_axi_rvalid) begin
                for (k = 0; k < EPB; k = k + 1) begin
                    kb = {{(32-BW){1'b0}}, f_beat_reg} * EPB + k;
                    f_buf_next[kb*PPNW +: PPNW] = m_axi_rdata[k*64 + 12 +: PPNW];
                end
                if (m_axi_rresp[1]) begin
                    f_err_next = 1'b1;
                end
                f_beat_next = f_beat_reg + 1'b1;
                if (m_axi_rlast) begin
                    f_state_next = F_FIN;
                end
            end
        end
        default: begin  // F_FIN: answer S2, cache the line
            f_state_next = F_IDLE;
            s2_done_next = 1'b1;
            s2_ferr_next = f_err_reg;
            s2_ppn_next = f_buf_reg[s2_pos_reg*PPNW +: PPNW];
            if (!f_err_reg) begin
                c_we = 1'b1;
                c_waddr = s2_set_reg;
                c_wdata = {1'b1, s2_idx_reg, s2_gen_reg, s2_rel_reg, f_buf_reg};
            end
        end
    endcase

    // ---------------------------------------------------- programming
    case (p_state_reg)
        P_CLEAR: begin
            if (cl_cnt_reg < CL_REGIONS) begin
                t_we = 1'b1;
                t_waddr = cl_cnt_reg[IW-1:0];
                t_wdata = t_word(1'b0, 16'd1, 64'd0, 32'd0, 16'd0, 1'b0, 1'b0, {PLW{1'b0}});
            end
            if (cl_cnt_reg < CL_LINES) begin
                c_we = 1'b1;
                c_waddr = cl_cnt_reg[LW-1:0];
                c_wdata = {CW{1'b0}};
            end
            cl_cnt_next = cl_cnt_reg + 1'b1;
            if (cl_cnt_reg == CL_LAST) begin
                p_state_next = P_IDLE;
            end
        end
        P_IDLE: begin
            if (prog_valid && (prog_op == OP_WRITE || prog_op == OP_SET_ATTR
                    || prog_op == OP_INVALIDATE || prog_op == OP_READ)) begin
                p_state_next = P_DRAIN;
                p_op_next = prog_op;
                p_idx_next = prog_index[IW-1:0];
                p_va_next = prog_va;
                p_len_next = prog_len;
                p_ptag_next = prog_ptag;
                p_ww_next = prog_rdma_write;
                p_rr_next = prog_rdma_read;
                p_pl_next = prog_pl[AWS-1:3];
            end
        end
        P_DRAIN: begin
            // lk_ready is 0; the table is read at p_idx once S1 is empty
            if (!s1_valid_reg && !s2_valid_reg && (p_op_reg != OP_INVALIDATE || !rs_valid_reg)) begin
                p_state_next = P_EXEC;
            end
        end
        P_EXEC: begin
            p_state_next = P_IDLE;
            cl_cnt_next = {CLW{1'b0}};
            p_fence_next = 1'b0;
            case (p_op_reg)
                OP_WRITE: begin
                    t_we = 1'b1;
                    t_wdata = t_word(1'b1, e_gen, p_va_reg, p_len_reg, p_ptag_reg, p_ww_reg, p_rr_reg, p_pl_reg);
                    if (e_valid) begin
                        p_state_next = P_FLUSH;
                    end
                end
                OP_SET_ATTR: begin
                    if (e_valid) begin
                        t_we = 1'b1;
                        t_wdata = t_word(1'b1, e_gen, e_va, e_len, p_ptag_reg, p_ww_reg, p_rr_reg, e_pl);
                    end
                end
                OP_INVALIDATE: begin
                    t_we = 1'b1;
                    t_wdata = t_word(1'b0, ngen, e_va, e_len, e_ptag, e_ww, e_rr, e_pl);
                    epoch_next = !epoch_reg;
                    p_old_epoch_next = epoch_reg;
                    p_wait_next = 1'b1;
                    p_fence_next = 1'b1;
                    if (e_gen == 16'hffff) begin
                        p_state_next = P_FLUSH;
                    end else begin
                        p_state_next = P_FENCE;
                    end
                end
                default: begin  // OP_READ
                end
            endcase
        end
        P_FLUSH: begin
            c_we = 1'b1;
            c_waddr = cl_cnt_reg[LW-1:0];
            c_wdata = {CW{1'b0}};
            cl_cnt_next = cl_cnt_reg + 1'b1;
            if (cl_cnt_reg == CL_LINES_LAST) begin
                p_state_next = p_fence_reg ? P_FENCE : P_IDLE;
                p_wait_next = 1'b1;
            end
        end
        default: begin  // P_FENCE
            if (!p_wait_reg && !inflight_epoch[p_old_epoch_reg]) begin
                p_state_next = P_IDLE;
            end
        end
    endcase
end

// the entry after a programming op, for prog_rd_*
always @(posedge clk) begin
    if (p_state_reg == P_EXEC) begin
        prog_rd_va <= e_va;
        prog_rd_len <= e_len;
        prog_rd_ptag <= e_ptag;
        prog_rd_rdma_write <= e_ww;
        prog_rd_rdma_read <= e_rr;
        prog_rd_pl <= e_pl64;
        prog_rd_valid <= e_valid;
        prog_rd_gen <= e_gen;
        case (p_op_reg)
            OP_WRITE: begin
                prog_rd_va <= p_va_reg;
                prog_rd_len <= p_len_reg;
                prog_rd_ptag <= p_ptag_reg;
                prog_rd_rdma_write <= p_ww_reg;
                prog_rd_rdma_read <= p_rr_reg;
                prog_rd_pl <= p_pl64;
                prog_rd_valid <= 1'b1;
            end
            OP_SET_ATTR: begin
                if (e_valid) begin
                    prog_rd_ptag <= p_ptag_reg;
                    prog_rd_rdma_write <= p_ww_reg;
                    prog_rd_rdma_read <= p_rr_reg;
                end
            end
            OP_INVALIDATE: begin
                prog_rd_valid <= 1'b0;
                prog_rd_gen <= ngen;
            end
            default: begin
            end
        endcase
    end
    if (rst) begin
        prog_rd_va <= 64'd0;
        prog_rd_len <= 32'd0;
        prog_rd_ptag <= 16'd0;
        prog_rd_rdma_write <= 1'b0;
        prog_rd_rdma_read <= 1'b0;
        prog_rd_pl <= 64'd0;
        prog_rd_valid <= 1'b0;
        prog_rd_gen <= 16'd0;
    end
end

wire [63:0] p_pl64;
generate
    if (AWS < 64) begin : g_p_pl64
        assign p_pl64 = {{(64-AWS){1'b0}}, p_pl_reg, 3'b000};
    end else begin : g_p_pl64_full
        assign p_pl64 = {p_pl_reg, 3'b000};
    end
endgenerate

always @(posedge clk) begin
    p_op_reg <= p_op_next;
    p_idx_reg <= p_idx_next;
    p_va_reg <= p_va_next;
    p_len_reg <= p_len_next;
    p_ptag_reg <= p_ptag_next;
    p_ww_reg <= p_ww_next;
    p_rr_reg <= p_rr_next;
    p_pl_reg <= p_pl_next;
    p_fence_reg <= p_fence_next;
    p_old_epoch_reg <= p_old_epoch_next;
    cl_cnt_reg <= cl_cnt_next;

    s1_idx_reg <= s1_idx_next;
    s1_bad_reg <= s1_bad_next;
    s1_gen_reg <= s1_gen_next;
    s1_va_reg <= s1_va_next;
    s1_len_reg <= s1_len_next;
    s1_ptag_reg <= s1_ptag_next;
    s1_kind_reg <= s1_kind_next;
    s1_tag_reg <= s1_tag_next;
    s1_epoch_reg <= s1_epoch_next;

    s2_err_reg <= s2_err_next;
    s2_need_reg <= s2_need_next;
    s2_pos_reg <= s2_pos_next;
    s2_rel_reg <= s2_rel_next;
    s2_set_reg <= s2_set_next;
    s2_line_reg <= s2_line_next;
    s2_idx_reg <= s2_idx_next;
    s2_gen_reg <= s2_gen_next;
    s2_off_reg <= s2_off_next;
    s2_bytes_reg <= s2_bytes_next;
    s2_tag_reg <= s2_tag_next;
    s2_epoch_reg <= s2_epoch_next;
    s2_done_reg <= s2_done_next;
    s2_ferr_reg <= s2_ferr_next;
    s2_ppn_reg <= s2_ppn_next;

    rs_err_reg <= rs_err_next;
    rs_pa_reg <= rs_pa_next;
    rs_bytes_reg <= rs_bytes_next;
    rs_hit_reg <= rs_hit_next;
    rs_epoch_reg <= rs_epoch_next;
    rs_tag_reg <= rs_tag_next;

    f_beat_reg <= f_beat_next;
    f_err_reg <= f_err_next;
    f_buf_reg <= f_buf_next;
    f_addr_reg <= f_addr_next;

    if (rst) begin
        p_state_reg <= P_CLEAR;
        p_wait_reg <= 1'b0;
        cl_cnt_reg <= {CLW{1'b0}};
        epoch_reg <= 1'b0;
        s1_valid_reg <= 1'b0;
        s2_valid_reg <= 1'b0;
        rs_valid_reg <= 1'b0;
        st_lookup_reg <= 1'b0;
        st_hit_reg <= 1'b0;
        st_miss_reg <= 1'b0;
        st_error_reg <= 1'b0;
        f_state_reg <= F_IDLE;
    end else begin
        p_state_reg <= p_state_next;
        p_wait_reg <= p_wait_next;
        epoch_reg <= epoch_next;
        s1_valid_reg <= s1_valid_next;
        s2_valid_reg <= s2_valid_next;
        rs_valid_reg <= rs_valid_next;
        st_lookup_reg <= st_lookup_next;
        st_hit_reg <= st_hit_next;
        st_miss_reg <= st_miss_next;
        st_error_reg <= st_error_next;
        f_state_reg <= f_state_next;
    end
end

endmodule

`default_nettype wire
