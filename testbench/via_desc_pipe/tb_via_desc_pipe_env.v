// tb_via_desc_pipe_env: via_desc_pipe against a real via_tpt and an AXI4
// memory model, with a reference model of the unit written here (the
// via_desc_fetch bench's model: a descriptor's result must be identical).
//
// The unit's reads and the TPT's page-list fetches share the memory's read
// channels through via_axi_rd_arb (unit: port 0, ARID 0; TPT: port 1, ARID
// 1), as in via_nic. The bench programs the regions on the TPT's prog port
// and writes their page lists into page 0 of the memory; the regions' pages
// are drawn at random from the others (scattered, out of order).
//
// Requests are issued by the main process (issue: the model's expectation
// goes into a queue indexed by request number, the tag); a checker process
// takes the results (random back-pressure) and compares each with its
// expectation: kind, status bits, check, TPT code, bus response, control
// fields, tag, slot (request n gets slot n mod DEPTH), every segment through
// the registered read port after the take (good descriptors) and entry
// MAX_SEGS + 1 reading 0; a releaser process releases the taken slots in
// order after random delays (and now and then in the cycle of the take).
// Burst counts: per fetch in the sequential parts (fetch = issue, then wait
// for the result), per batch in the pipelined ones.
// Checks:
//   1-4. every directed case of the via_desc_fetch bench (good shapes, every
//      check and the order between neighbours, every TPT error class, bus
//      errors), one fetch at a time;
//   5. pipelined random runs: RANDOM_FETCHES fetches (+short: a quarter)
//      of every shape and class (page-crossing descriptors, bus errors, one
//      at a time in flight with the others) issued back to back, each at
//      its own place;
//   6. the fence (as the via_desc_fetch bench: INVALIDATE at 16 moments
//      of one fetch); then 6 INVALIDATEs at random moments of pipelined
//      random runs (translations of both epochs held; region A's fetches in
//      flight may end STALE, or HANDLE for a next-generation handle);
//   7. abort at random moments of a pipelined run: no request, lookup or AR
//      taken under abort; results come in order, only those of requests in
//      flight when abort rose may be missing; busy falls; the unit then works
//      on;
//   8. throughput (PERF): 64 good descriptors with 1 or 2 segments
//      (one 64-byte read each) issued back to back, results taken at once;
//      prints cycles per result, sustained (second pass, TPT cache warm).
// Monitors: inflight_epoch is nonzero while a burst of the unit is
// outstanding and zero while the unit is not busy; ARID is 0; no result
// without a request; req_ready 0 under abort.

`timescale 1ns / 1ps

`define XFAIL(msg) begin $display("FAIL %m: %0s", msg); failed = 1'b1; #1; end

module tb_via_desc_pipe_env #(
    parameter DATA_WIDTH = 64,
    parameter ADDR_WIDTH = 48,
    parameter ID_WIDTH = 4,
    parameter MAX_SEGS = 16,
    parameter MEM_BYTES = 131072,
    parameter READ_LATENCY = 10,
    parameter READY_PROB = 50,
    parameter RANDOM_FETCHES = 400,
    // 2: the directed checks without, then with back-pressure; 1: with only
    parameter PASSES = 2,
    parameter SALT = 1,
    parameter DEPTH = 8,
    // 1: only the throughput test (8)
    parameter PERF = 0,
    // 0: no abort test
    parameter ABORTS = 8
) (
    input  wire clk,
    input  wire rst,
    output reg  finished = 1'b0
);

localparam BYTES = DATA_WIDTH / 8;
localparam PAGES = MEM_BYTES / 4096;
localparam REGIONS = 16;
localparam WATCHDOG = 100000;
localparam [ID_WIDTH-1:0] FETCH_ID = 1;
// region pages at most (the page list of region k lives at k * 256)
localparam RPAGES = 8;
// segments the bench's descriptor image holds
localparam IMG_SEGS = MAX_SEGS + 4;

localparam SW = DEPTH > 2 ? $clog2(DEPTH) : 1;
// expectations kept (requests in flight at most)
localparam QN = 64;

// result kinds and checks (via_desc_fetch)
localparam [1:0] RES_DESC = 2'd0, RES_STATUS = 2'd1, RES_BUS = 2'd2;
localparam [3:0] CHK_OK = 4'd0, CHK_XLAT_CTL = 4'd1, CHK_XLAT_SEGS = 4'd2,
    CHK_RESERVED = 4'd3, CHK_OP = 4'd4, CHK_RDMA_EN = 4'd5, CHK_NO_ADDR_SEG = 4'd6,
    CHK_SEG_LIMIT = 4'd7, CHK_ADDR_RESERVED = 4'd8, CHK_LEN_SUM = 4'd9,
    CHK_LEN_MAX = 4'd10, CHK_BUS = 4'd11;
localparam [31:0] ST_FORMAT = 32'h2, ST_PROTECTION = 32'h4, ST_LENGTH = 32'h8, ST_TRANSPORT = 32'h40;
// TPT_ERR_*
localparam [2:0] E_OK = 3'd0, E_HANDLE = 3'd1, E_STALE = 3'd2, E_PTAG = 3'd3, E_BOUNDS = 3'd5, E_FETCH = 3'd6;

// ------------------------------------------------------------- DUT

reg         req_valid;
wire        req_ready;
reg  [63:0] req_va;
reg  [31:0] req_handle;
reg  [15:0] req_ptag;
reg         req_recv;
reg  [31:0] req_mts;
reg         req_we, req_re;
wire        res_valid;
reg         res_ready;
wire [1:0]  res_kind, res_bus_resp;
wire [31:0] res_status, res_next_handle, res_immediate, res_length;
wire [3:0]  res_check;
wire [2:0]  res_tpt_err;
wire        res_ctl_valid;
wire [63:0] res_next;
wire [15:0] res_seg_count, res_control;
reg         seg_rd_en;
reg  [SW-1:0] seg_rd_slot;
reg  [7:0]  seg_idx;
reg  [15:0] req_tag;
wire [15:0] res_tag;
wire [SW-1:0] res_slot;
wire        rel_valid;
reg         abort;
wire        busy;
wire [63:0] seg_addr;
wire [31:0] seg_handle, seg_len;

wire        lk_valid, lk_ready, rs_valid, rs_ready, rs_hit, rs_epoch;
wire [31:0] lk_handle, lk_len;
wire [63:0] lk_va;
wire [15:0] lk_ptag;
wire [1:0]  lk_kind, inflight_epoch, rs_tag2;
wire [2:0]  rs_err;
wire [ADDR_WIDTH-1:0] rs_pa;
wire [12:0] rs_bytes;

wire [ID_WIDTH-1:0]     axi_arid, axi_rid, d_arid, t_arid;
wire [ADDR_WIDTH-1:0]   axi_araddr, d_araddr, t_araddr;
wire [7:0]              axi_arlen, d_arlen, t_arlen;
wire [2:0]              axi_arsize, axi_arprot, d_arsize, t_arsize, d_arprot;
wire [1:0]              axi_arburst, axi_rresp, d_arburst, t_arburst;
wire                    axi_arlock, d_arlock;
wire [3:0]              axi_arcache, d_arcache;
wire                    axi_arvalid, axi_arready, axi_rlast, axi_rvalid, axi_rready;
wire                    d_arvalid, d_arready, d_rvalid, d_rready, t_arvalid, t_arready, t_rvalid, t_rready;
wire                    t_rd_busy;
wire [DATA_WIDTH-1:0]   axi_rdata;

via_desc_pipe #(
    .MAX_SEGS(MAX_SEGS),
    .DATA_WIDTH(DATA_WIDTH),
    .ADDR_WIDTH(ADDR_WIDTH),
    .ID_WIDTH(ID_WIDTH),
    .ARID(0),
    .DEPTH(DEPTH),
    .TAG_WIDTH(16)
) dut (
    .clk(clk),
    .rst(rst),
    .req_valid(req_valid),
    .req_ready(req_ready),
    .req_va(req_va),
    .req_handle(req_handle),
    .req_ptag(req_ptag),
    .req_recv(req_recv),
    .req_max_transfer(req_mts),
    .req_rdma_write_en(req_we),
    .req_rdma_read_en(req_re),
    .req_tag(req_tag),
    .res_valid(res_valid),
    .res_ready(res_ready),
    .res_kind(res_kind),
    .res_status(res_status),
    .res_check(res_check),
    .res_tpt_err(res_tpt_err),
    .res_bus_resp(res_bus_resp),
    .res_ctl_valid(res_ctl_valid),
    .res_next(res_next),
    .res_next_handle(res_next_handle),
    .res_seg_count(res_seg_count),
    .res_control(res_control),
    .res_immediate(res_immediate),
    .res_length(res_length),
    .res_tag(res_tag),
    .res_slot(res_slot),
    .seg_rd_en(seg_rd_en),
    .seg_rd_slot(seg_rd_slot),
    .seg_rd_idx(seg_idx),
    .seg_addr(seg_addr),
    .seg_handle(seg_handle),
    .seg_len(seg_len),
    .rel_valid(rel_valid),
    .lk_valid(lk_valid),
    .lk_ready(lk_ready),
    .lk_handle(lk_handle),
    .lk_va(lk_va),
    .lk_len(lk_len),
    .lk_ptag(lk_ptag),
    .lk_kind(lk_kind),
    .rs_valid(rs_valid),
    .rs_ready(rs_ready),
    .rs_err(rs_err),
    .rs_pa(rs_pa),
    .rs_bytes(rs_bytes),
    .rs_hit(rs_hit),
    .rs_epoch(rs_epoch),
    .inflight_epoch(inflight_epoch),
    .m_axi_arid(d_arid),
    .m_axi_araddr(d_araddr),
    .m_axi_arlen(d_arlen),
    .m_axi_arsize(d_arsize),
    .m_axi_arburst(d_arburst),
    .m_axi_arlock(d_arlock),
    .m_axi_arcache(d_arcache),
    .m_axi_arprot(d_arprot),
    .m_axi_arvalid(d_arvalid),
    .m_axi_arready(d_arready),
    .m_axi_rid(axi_rid),
    .m_axi_rdata(axi_rdata),
    .m_axi_rresp(axi_rresp),
    .m_axi_rlast(axi_rlast),
    .m_axi_rvalid(d_rvalid),
    .m_axi_rready(d_rready),
    .abort(abort),
    .busy(busy)
);

// the TPT, programmed by the bench
reg         prog_valid;
reg  [2:0]  prog_op;
reg  [15:0] prog_index;
reg  [63:0] prog_va;
reg  [31:0] prog_len;
reg  [15:0] prog_ptag;
reg         prog_rdma_write, prog_rdma_read;
reg  [63:0] prog_pl;
wire        prog_busy;
wire [63:0] prog_rd_va, prog_rd_pl;
wire [31:0] prog_rd_len;
wire [15:0] prog_rd_ptag, prog_rd_gen;
wire        prog_rd_rdma_write, prog_rd_rdma_read, prog_rd_valid;
wire        st_lookup, st_hit, st_miss, st_error;

via_tpt #(
    .REGIONS(REGIONS),
    .CACHE_ENTRIES(64),
    .ADDR_WIDTH(ADDR_WIDTH),
    .DATA_WIDTH(DATA_WIDTH),
    .ID_WIDTH(ID_WIDTH),
    .FETCH_ID(FETCH_ID),
    .TAG_WIDTH(2)
) tpt (
    .clk(clk),
    .rst(rst),
    .prog_valid(prog_valid),
    .prog_op(prog_op),
    .prog_index(prog_index),
    .prog_va(prog_va),
    .prog_len(prog_len),
    .prog_ptag(prog_ptag),
    .prog_rdma_write(prog_rdma_write),
    .prog_rdma_read(prog_rdma_read),
    .prog_pl(prog_pl),
    .prog_busy(prog_busy),
    .prog_rd_va(prog_rd_va),
    .prog_rd_len(prog_rd_len),
    .prog_rd_ptag(prog_rd_ptag),
    .prog_rd_rdma_write(prog_rd_rdma_write),
    .prog_rd_rdma_read(prog_rd_rdma_read),
    .prog_rd_pl(prog_rd_pl),
    .prog_rd_valid(prog_rd_valid),
    .prog_rd_gen(prog_rd_gen),
    .lk_valid(lk_valid),
    .lk_ready(lk_ready),
    .lk_handle(lk_handle),
    .lk_va(lk_va),
    .lk_len(lk_len),
    .lk_ptag(lk_ptag),
    .lk_kind(lk_kind),
    .lk_tag(2'b00),
    .rs_valid(rs_valid),
    .rs_ready(rs_ready),
    .rs_err(rs_err),
    .rs_pa(rs_pa),
    .rs_bytes(rs_bytes),
    .rs_hit(rs_hit),
    .rs_epoch(rs_epoch),
    .rs_tag(rs_tag2),
    .inflight_epoch(inflight_epoch),
    .m_axi_arid(t_arid),
    .m_axi_araddr(t_araddr),
    .m_axi_arlen(t_arlen),
    .m_axi_arsize(t_arsize),
    .m_axi_arburst(t_arburst),
    .m_axi_arvalid(t_arvalid),
    .m_axi_arready(t_arready),
    .m_axi_rid(axi_rid),
    .m_axi_rdata(axi_rdata),
    .m_axi_rresp(axi_rresp),
    .m_axi_rlast(axi_rlast),
    .m_axi_rvalid(t_rvalid),
    .m_axi_rready(t_rready),
    .st_lookup(st_lookup),
    .st_hit(st_hit),
    .st_miss(st_miss),
    .st_error(st_error)
);

via_axi_rd_arb #(
    .ADDR_WIDTH(ADDR_WIDTH),
    .ID_WIDTH(ID_WIDTH),
    .S1_ID(FETCH_ID)
) arb (
    .clk(clk),
    .rst(rst),
    .s0_axi_arid(d_arid),
    .s0_axi_araddr(d_araddr),
    .s0_axi_arlen(d_arlen),
    .s0_axi_arsize(d_arsize),
    .s0_axi_arburst(d_arburst),
    .s0_axi_arlock(d_arlock),
    .s0_axi_arcache(d_arcache),
    .s0_axi_arprot(d_arprot),
    .s0_axi_arvalid(d_arvalid),
    .s0_axi_arready(d_arready),
    .s0_axi_rvalid(d_rvalid),
    .s0_axi_rready(d_rready),
    .s1_axi_arid(t_arid),
    .s1_axi_araddr(t_araddr),
    .s1_axi_arlen(t_arlen),
    .s1_axi_arsize(t_arsize),
    .s1_axi_arburst(t_arburst),
    .s1_axi_arlock(1'b0),
    .s1_axi_arcache(4'b0011),
    .s1_axi_arprot(3'b010),
    .s1_axi_arvalid(t_arvalid),
    .s1_axi_arready(t_arready),
    .s1_axi_rvalid(t_rvalid),
    .s1_axi_rready(t_rready),
    .m_axi_arid(axi_arid),
    .m_axi_araddr(axi_araddr),
    .m_axi_arlen(axi_arlen),
    .m_axi_arsize(axi_arsize),
    .m_axi_arburst(axi_arburst),
    .m_axi_arlock(axi_arlock),
    .m_axi_arcache(axi_arcache),
    .m_axi_arprot(axi_arprot),
    .m_axi_arvalid(axi_arvalid),
    .m_axi_arready(axi_arready),
    .m_axi_rid(axi_rid),
    .m_axi_rlast(axi_rlast),
    .m_axi_rvalid(axi_rvalid),
    .m_axi_rready(axi_rready),
    .busy1(t_rd_busy)
);

axi_ram_model #(
    .DATA_WIDTH(DATA_WIDTH),
    .ADDR_WIDTH(ADDR_WIDTH),
    .ID_WIDTH(ID_WIDTH),
    .MEM_BYTES(MEM_BYTES),
    .READ_LATENCY(READ_LATENCY),
    .WRITE_LATENCY(2),
    .READY_PROB(READY_PROB),
    .SEED_SALT(SALT)
) ram (
    .clk(clk),
    .rst(rst),
    .s_axi_awid({ID_WIDTH{1'b0}}),
    .s_axi_awaddr({ADDR_WIDTH{1'b0}}),
    .s_axi_awlen(8'd0),
    .s_axi_awsize(3'd0),
    .s_axi_awburst(2'b01),
    .s_axi_awlock(1'b0),
    .s_axi_awcache(4'd0),
    .s_axi_awprot(3'd0),
    .s_axi_awvalid(1'b0),
    .s_axi_awready(),
    .s_axi_wdata({DATA_WIDTH{1'b0}}),
    .s_axi_wstrb({(DATA_WIDTH/8){1'b0}}),
    .s_axi_wlast(1'b0),
    .s_axi_wvalid(1'b0),
    .s_axi_wready(),
    .s_axi_bid(),
    .s_axi_bresp(),
    .s_axi_bvalid(),
    .s_axi_bready(1'b1),
    .s_axi_arid(axi_arid),
    .s_axi_araddr(axi_araddr),
    .s_axi_arlen(axi_arlen),
    .s_axi_arsize(axi_arsize),
    .s_axi_arburst(axi_arburst),
    .s_axi_arlock(axi_arlock),
    .s_axi_arcache(axi_arcache),
    .s_axi_arprot(axi_arprot),
    .s_axi_arvalid(axi_arvalid),
    .s_axi_arready(axi_arready),
    .s_axi_rid(axi_rid),
    .s_axi_rdata(axi_rdata),
    .s_axi_rresp(axi_rresp),
    .s_axi_rlast(axi_rlast),
    .s_axi_rvalid(axi_rvalid),
    .s_axi_rready(axi_rready)
);

// ------------------------------------------------------------- bench state

integer seed;
`include "bench_random.vh"

// regions as the bench registered them
reg [63:0] r_va [0:REGIONS-1];
reg [31:0] r_len [0:REGIONS-1];
reg [15:0] r_ptag [0:REGIONS-1];
reg        r_valid [0:REGIONS-1];
reg        r_badpl [0:REGIONS-1];   // page list outside the memory
reg [15:0] r_gen [0:REGIONS-1];
reg [63:0] r_pg [0:REGIONS*RPAGES-1];
reg [31:0] r_handle [0:REGIONS-1];

// the descriptor image the bench writes: control fields and segments
reg [63:0] b_next;
reg [31:0] b_nh;
reg [15:0] b_segc;
reg [15:0] b_ctrl;
reg [31:0] b_res;
reg [31:0] b_imm;
reg [31:0] b_len;
reg [31:0] b_stat;
reg [63:0] s_addr [0:IMG_SEGS-1];
reg [31:0] s_hnd [0:IMG_SEGS-1];
reg [31:0] s_len [0:IMG_SEGS-1];

// a bus error injected on the 16 bytes at this descriptor offset (-1: none)
integer err_off;

// expected result
reg [1:0]  x_kind;
reg [31:0] x_status;
reg [3:0]  x_check;
reg [2:0]  x_tpt;
reg [1:0]  x_resp;
reg        x_ctl;
integer    x_bursts;

reg failed = 1'b0;

task tick;
    begin
        @(posedge clk);
        #1;
    end
endtask

// one TPT command; waits until the TPT is idle before and after
task tpt_cmd;
    input [2:0]  op;
    input [15:0] idx;
    input [63:0] va;
    input [31:0] n;
    input [15:0] tag;
    input [63:0] pl;
    integer k;
    begin
        k = 0;
        while (prog_busy) begin
            tick;
            k = k + 1;
            if (k > WATCHDOG) `XFAIL("TPT busy for ever")
        end
        prog_op = op;
        prog_index = idx;
        prog_va = va;
        prog_len = n;
        prog_ptag = tag;
        prog_rdma_write = 1'b0;
        prog_rdma_read = 1'b0;
        prog_pl = pl;
        prog_valid = 1'b1;
        tick;
        prog_valid = 1'b0;
        tick;
        while (prog_busy) begin
            tick;
            k = k + 1;
            if (k > WATCHDOG) `XFAIL("TPT command never finished")
        end
    end
endtask

// physical address of a virtual address of region k
function [63:0] pa_of;
    input integer k;
    input [63:0] va;
    reg [63:0] pi;
    begin
        pi = (va >> 12) - (r_va[k] >> 12);
        pa_of = r_pg[k * RPAGES + pi] + (va & 64'hfff);
    end
endfunction

// the VA lies in a page of region k (so it has a physical byte)
function in_pages;
    input integer k;
    input [63:0] va;
    begin
        in_pages = va >= (r_va[k] & ~64'hfff)
            && va < ((r_va[k] + r_len[k] + 64'hfff) & ~64'hfff);
    end
endfunction

integer free_pg [0:PAGES-1];
integer free_n;

// registers region k with pages drawn from the free list
task region_new;
    input integer k;
    input [63:0] va;
    input [31:0] n;
    input [15:0] tag;
    integer i, np, j;
    reg [63:0] pg;
    begin
        r_va[k] = va;
        r_len[k] = n;
        r_ptag[k] = tag;
        r_badpl[k] = 1'b0;
        np = (((va & 64'hfff) + n + 64'hfff) >> 12);
        for (i = 0; i < np; i = i + 1) begin
            if (free_n == 0) `XFAIL("bench: out of pages")
            j = {bench_random(0)} % free_n;
            pg = free_pg[j] * 4096;
            free_pg[j] = free_pg[free_n - 1];
            free_n = free_n - 1;
            r_pg[k * RPAGES + i] = pg;
            for (j = 0; j < 8; j = j + 1) begin
                ram.mem[k * 256 + i * 8 + j] = pg[8*j +: 8];
            end
        end
        tpt_cmd(3'd1, k, va, n, tag, k * 256);
        if (prog_rd_valid !== 1'b1) `XFAIL("WRITE: region not valid")
        r_valid[k] = 1'b1;
        r_gen[k] = prog_rd_gen;
        r_handle[k] = {prog_rd_gen, k[15:0]};
    end
endtask

// the TPT's answer for a lookup (via_tpt's order of checks)
function [2:0] xlat;
    input [31:0] handle;
    input [15:0] tag;
    input [63:0] va;
    input [31:0] n;
    integer k;
    begin
        k = handle[3:0];
        if (handle[15:4] != 12'd0 || handle[31:16] == 16'd0) begin
            xlat = E_HANDLE;
        end else if (handle[31:16] != r_gen[k]) begin
            xlat = E_STALE;
        end else if (!r_valid[k]) begin
            xlat = E_HANDLE;
        end else if (tag != r_ptag[k]) begin
            xlat = E_PTAG;
        end else if (va < r_va[k] || {1'b0, va} + {33'd0, n} > {1'b0, r_va[k]} + {33'd0, r_len[k]}) begin
            xlat = E_BOUNDS;
        end else if (r_badpl[k]) begin
            xlat = E_FETCH;
        end else begin
            xlat = E_OK;
        end
    end
endfunction

// the descriptor image's byte at offset j
function [7:0] img_byte;
    input integer j;
    reg [127:0] w;
    integer s;
    begin
        if (j < 16) begin
            w = {64'd0, b_ctrl, b_segc, b_nh, b_next};
            img_byte = w[8*j +: 8];
        end else if (j < 32) begin
            w = {64'd0, b_stat, b_len, b_imm, b_res};
            img_byte = w[8*(j - 16) +: 8];
        end else begin
            s = (j - 32) / 16;
            w = {s_len[s], s_hnd[s], s_addr[s]};
            img_byte = w[8*((j - 32) % 16) +: 8];
        end
    end
endfunction

// writes the image at va of region k (bytes of the region's pages only)
task desc_write;
    input integer k;
    input [63:0] va;
    integer j, nseg;
    begin
        nseg = b_segc < IMG_SEGS ? b_segc : IMG_SEGS;
        for (j = 0; j < 32 + 16 * nseg; j = j + 1) begin
            if (in_pages(k, va + j)) begin
                ram.mem[pa_of(k, va + j)] = img_byte(j);
            end
        end
    end
endtask

// the bytes a burst of [a, b) (descriptor offsets) reads overlap the
// injected error
function burst_err;
    input integer a;
    input integer b;
    integer lo, hi;
    begin
        lo = a - (a % BYTES);
        hi = ((b + BYTES - 1) / BYTES) * BYTES;
        burst_err = err_off >= 0 && err_off + 16 > lo && err_off < hi;
    end
endfunction

// the reference model: the expected result of fetching the image at va
integer m_k, m_end, m_pb, m_i, m_first;
reg [1:0] m_op;
reg m_rdma;
reg [2:0] m_code;
reg [39:0] m_sum;
task model_fetch;
    input [63:0] va;
    begin
        x_kind = RES_STATUS;
        x_status = 32'd0;
        x_check = CHK_OK;
        x_tpt = E_OK;
        x_resp = 2'd0;
        x_ctl = 1'b0;
        x_bursts = 0;
        m_op = b_ctrl[1:0];
        m_rdma = m_op == 2'd1 || m_op == 2'd2;
        m_code = xlat(req_handle, req_ptag, va, 32);
        if (m_code != E_OK) begin
            x_status = ST_PROTECTION;
            x_check = CHK_XLAT_CTL;
            x_tpt = m_code;
        end else begin
            x_bursts = 1;
            if (burst_err(0, 32)) begin
                x_kind = RES_BUS;
                x_status = ST_TRANSPORT;
                x_check = CHK_BUS;
                x_resp = 2'd2;
            end else begin
                x_ctl = 1'b1;
                m_code = b_segc == 0 ? E_OK : xlat(req_handle, req_ptag, va + 32, {12'd0, b_segc, 4'd0});
                x_status = ST_FORMAT;
                if (m_code != E_OK) begin
                    x_status = ST_PROTECTION;
                    x_check = CHK_XLAT_SEGS;
                    x_tpt = m_code;
                end else if ((b_ctrl & 16'hfff0) != 0 || b_res != 0) begin
                    x_check = CHK_RESERVED;
                end else if (m_op == 2'd3 || (req_recv && m_op != 2'd0)) begin
                    x_check = CHK_OP;
                end else if ((m_op == 2'd1 && !req_we) || (m_op == 2'd2 && !req_re)) begin
                    x_check = CHK_RDMA_EN;
                end else if (m_rdma && b_segc == 0) begin
                    x_check = CHK_NO_ADDR_SEG;
                end else if (b_segc > MAX_SEGS + (m_rdma ? 1 : 0)) begin
                    x_check = CHK_SEG_LIMIT;
                end else begin
                    // the segments: one burst per page
                    m_end = 32 + 16 * b_segc;
                    m_pb = 4096 - (va % 4096);
                    x_status = 32'd0;
                    // up to two segments come with the control segment's
                    // burst (bytes 32..63), unless a beat of them failed
                    if (b_segc != 0 && !(b_segc <= 2 && !burst_err(32, 64))) begin
                        x_bursts = 2;
                        if (m_pb < m_end) begin
                            if (burst_err(32, m_pb)) begin
                                x_check = CHK_BUS;
                            end else begin
                                x_bursts = 3;
                                if (burst_err(m_pb, m_end)) x_check = CHK_BUS;
                            end
                        end else if (burst_err(32, m_end)) begin
                            x_check = CHK_BUS;
                        end
                    end
                    m_sum = 40'd0;
                    m_first = m_rdma ? 1 : 0;
                    for (m_i = m_first; m_i < b_segc; m_i = m_i + 1) begin
                        m_sum = m_sum + {8'd0, s_len[m_i]};
                    end
                    if (x_check == CHK_BUS) begin
                        x_kind = RES_BUS;
                        x_status = ST_TRANSPORT;
                        x_resp = 2'd2;
                    end else if (m_rdma && s_len[0] != 32'd0) begin
                        x_status = ST_FORMAT;
                        x_check = CHK_ADDR_RESERVED;
                    end else if (m_sum != {8'd0, b_len}) begin
                        x_status = ST_LENGTH;
                        x_check = CHK_LEN_SUM;
                    end else if (b_len > req_mts) begin
                        x_status = ST_LENGTH;
                        x_check = CHK_LEN_MAX;
                    end else begin
                        x_kind = RES_DESC;
                    end
                end
            end
        end
    end
endtask

// ------------------------------------------------------------- monitors

// bursts of the unit: issued (AR handshake on its side of the arbiter) and
// complete (last R beat); results against requests; nothing new under abort
integer n_bursts = 0, n_done = 0, n_req = 0, n_res = 0;
reg abort_d = 1'b0, lk_valid_d = 1'b0, lk_fire_d = 1'b0, ar_valid_d = 1'b0, ar_fire_d = 1'b0;
always @(posedge clk) begin
    if (!rst) begin
        if (d_arvalid && d_arready) begin
            n_bursts = n_bursts + 1;
            if (d_arid !== {ID_WIDTH{1'b0}}) begin
                $display("FAIL %m: ARID %0d", d_arid);
                failed = 1'b1;
            end
        end
        if (d_rvalid && d_rready && axi_rlast) n_done = n_done + 1;
        if ((d_arvalid || n_bursts != n_done) && inflight_epoch === 2'b00) begin
            $display("FAIL %m: a burst of the unit is outstanding with inflight_epoch 0");
            failed = 1'b1;
        end
        if (busy !== 1'b1 && inflight_epoch !== 2'b00) begin
            $display("FAIL %m: inflight_epoch %b while the unit is not busy", inflight_epoch);
            failed = 1'b1;
        end
        if (req_valid && req_ready) n_req = n_req + 1;
        if (res_valid && res_ready) begin
            n_res = n_res + 1;
            if (n_res > n_req) begin
                $display("FAIL %m: result %0d for %0d requests", n_res, n_req);
                failed = 1'b1;
            end
        end
        if (abort && req_ready) begin
            $display("FAIL %m: req_ready under abort");
            failed = 1'b1;
        end
        if (abort_d && lk_valid && (!lk_valid_d || lk_fire_d)) begin
            $display("FAIL %m: a lookup presented under abort");
            failed = 1'b1;
        end
        if (abort_d && d_arvalid && (!ar_valid_d || ar_fire_d)) begin
            $display("FAIL %m: an AR presented under abort");
            failed = 1'b1;
        end
    end
    abort_d <= abort;
    lk_valid_d <= lk_valid;
    lk_fire_d <= lk_valid && lk_ready;
    ar_valid_d <= d_arvalid;
    ar_fire_d <= d_arvalid && d_arready;
end

// debugging (+dbg=SALT): the unit's events
integer dbg_salt = -1;
initial if (!$value$plusargs("dbg=%d", dbg_salt)) dbg_salt = -1;
always @(posedge clk) begin
    if (dbg_salt == SALT && !rst) begin
        if (req_valid && req_ready) $display("%0t acc tag %0d slot %0d va %h", $time, req_tag, dut.tail_s, req_va);
        if (res_valid && res_ready) $display("%0t take tag %0d slot %0d chk %0d", $time, res_tag, res_slot, res_check);
        if (rel_valid) $display("%0t rel rel_s %0d st %0d pend %0d", $time, dut.rel_s, dut.sl_st[dut.rel_s], dut.rel_pend_reg);
        if (d_arvalid && d_arready) $display("%0t AR slot %0d addr %h len %0d", $time, dut.ar_info_reg[dut.RQW-1 -: SW], d_araddr, d_arlen);
        if (d_rvalid && axi_rlast) $display("%0t Rend slot %0d", $time, dut.r_s);
        if (seg_rd_en) $display("%0t segrd slot %0d idx %0d", $time, seg_rd_slot, seg_idx);
        if (lk_valid) $display("%0t lk va %h len %0d ready %b", $time, lk_va, lk_len, lk_ready);
        if (rs_valid) $display("%0t rs err %0d slot %0d", $time, rs_err, dut.lq_slot);
        if (axi_arvalid && axi_arready) $display("%0t mem AR id %0d addr %h", $time, axi_arid, axi_araddr);
        if (d_arvalid && !d_arready) $display("%0t AR wait", $time);
    end
end

// ------------------------------------------------------------- expectations

integer hist [0:15];       // results per check
reg fence_mode = 1'b0;
integer fence_stale = 0;
integer bp_req, bp_res;
reg perf_mode = 1'b0;
integer f_t;

// per request (index n % QN): the model's result, the descriptor, where it
// lies (reserved blocks), whether a bus error was injected for it
reg [1:0]  q_kind [0:QN-1];
reg [31:0] q_status [0:QN-1];
reg [3:0]  q_check [0:QN-1];
reg [2:0]  q_tpt [0:QN-1];
reg [1:0]  q_resp [0:QN-1];
reg        q_ctl [0:QN-1];
integer    q_bursts [0:QN-1];
integer    q_b0 [0:QN-1];
reg        q_seq [0:QN-1];     // issued alone: its bursts are counted
reg        q_fence [0:QN-1];
reg        q_ka [0:QN-1];      // a fetch of region A (the fence's)
reg        q_err [0:QN-1];
reg        q_drop [0:QN-1];    // in flight when abort rose: may never come
integer    q_blk [0:QN-1];     // first reserved block (-1: none)
integer    q_nblk [0:QN-1];
reg [63:0] q_next [0:QN-1];
reg [31:0] q_nh [0:QN-1];
reg [15:0] q_segc [0:QN-1];
reg [15:0] q_ctrl [0:QN-1];
reg [31:0] q_imm [0:QN-1];
reg [31:0] q_len [0:QN-1];
reg [63:0] q_saddr [0:QN*IMG_SEGS-1];
reg [31:0] q_shnd [0:QN*IMG_SEGS-1];
reg [31:0] q_slen [0:QN*IMG_SEGS-1];
integer n_iss = 0, n_chk = 0, n_dropped = 0, err_active = 0;
// expected bursts of the fetches issued since it was last cleared
integer x_sum_bursts = 0;

// reserved 64-byte blocks of regions A and B (descriptors in flight)
localparam BLKS = RPAGES * 64;
reg blk_busy [0:2*BLKS-1];
integer cur_blk = -1, cur_nblk = 0;

// issues one request for the image at va (the current req_* fields) after
// computing its expectation; returns once the unit has taken it
task issue;
    input [63:0] va;
    input seq;
    integer k, e, j;
    begin
        k = req_handle[3:0];
        while (n_iss - n_chk >= QN - 2) tick;
        if (err_off >= 0) begin
            ram.set_rd_error(pa_of(k, va + err_off), pa_of(k, va + err_off) + 16);
            err_active = err_active + 1;
        end
        model_fetch(va);
        e = n_iss % QN;
        q_kind[e] = x_kind;
        q_status[e] = x_status;
        q_check[e] = x_check;
        q_tpt[e] = x_tpt;
        q_resp[e] = x_resp;
        q_ctl[e] = x_ctl;
        q_bursts[e] = x_bursts;
        q_seq[e] = seq;
        q_fence[e] = fence_mode;
        q_ka[e] = req_handle[15:0] == K_A;
        q_err[e] = err_off >= 0;
        q_drop[e] = 1'b0;
        q_blk[e] = cur_blk;
        q_nblk[e] = cur_nblk;
        cur_blk = -1;
        cur_nblk = 0;
        q_next[e] = b_next;
        q_nh[e] = b_nh;
        q_segc[e] = b_segc;
        q_ctrl[e] = b_ctrl;
        q_imm[e] = b_imm;
        q_len[e] = b_len;
        for (j = 0; j < IMG_SEGS; j = j + 1) begin
            q_saddr[e * IMG_SEGS + j] = s_addr[j];
            q_shnd[e * IMG_SEGS + j] = s_hnd[j];
            q_slen[e * IMG_SEGS + j] = s_len[j];
        end
        x_sum_bursts = x_sum_bursts + x_bursts;
        while (({bench_random(0)} % 100) < bp_req) tick;
        req_va = va | ({bench_random(0)} & 32'h3f);  // bits 5:0 ignored
        req_tag = n_iss[15:0];
        req_valid = 1'b1;
        q_b0[e] = n_bursts;
        // until the monitor has seen the handshake (the abort process may
        // change req_ready at any time)
        f_t = n_req;
        k = 0;
        while (n_req == f_t) begin
            tick;
            k = k + 1;
            if (k > WATCHDOG) `XFAIL("request never taken")
        end
        req_valid = 1'b0;
        req_va = {bench_random(0), bench_random(0)};
        req_tag = bench_random(0);
        n_iss = n_iss + 1;
        err_off = -1;
    end
endtask

// waits until every request issued has its result checked
task drain;
    begin
        f_t = 0;
        while (n_chk < n_iss) begin
            tick;
            f_t = f_t + 1;
            if (f_t > WATCHDOG) `XFAIL("no result")
        end
    end
endtask

// one fetch at a time, its bursts counted
task fetch;
    input [63:0] va;
    begin
        issue(va, 1'b1);
        drain;
    end
endtask

// ------------------------------------------------------------- checker

// the releaser: pops the release queue (taken results, in order) once each
// one's time has come
reg rel_a = 1'b0, rel_b = 1'b0;
assign rel_valid = rel_a | rel_b;
integer rq_due [0:QN-1];
integer rq_h = 0, rq_t = 0, cyc = 0;
// coverage: most results taken and not yet released at once; cycles in
// which the unit remembered a release (one that came while a slot dropped
// by abort was the oldest)
integer cov_held_max = 0, cov_pend = 0;
always @(posedge clk) begin
    cyc <= cyc + 1;
    if (rq_t - rq_h > cov_held_max) cov_held_max = rq_t - rq_h;
    if (dut.rel_pend_reg != 0) cov_pend = cov_pend + 1;
    if (rq_t != rq_h && cyc >= rq_due[rq_h % QN]) begin
        rel_a <= 1'b1;
        rq_h = rq_h + 1;
    end else begin
        rel_a <= 1'b0;
    end
end

// drops the expectation of request n_chk (no result will come for it)
task entry_done;
    input integer e;
    integer j;
    begin
        if (q_err[e]) begin
            ram.clear_errors;
            err_active = err_active - 1;
        end
        for (j = 0; j < q_nblk[e]; j = j + 1) begin
            blk_busy[q_blk[e] + j] = 1'b0;
        end
    end
endtask

// the checker: takes each result, compares it, reads its segments
reg c_active = 1'b0;
reg c_relnow;
// the checker's own copy of the expectation (the main process computes the
// next ones meanwhile)
reg [1:0]  cx_kind;
reg [31:0] cx_status;
reg [3:0]  cx_check;
reg [2:0]  cx_tpt;
reg [1:0]  cx_resp;
reg        cx_ctl;
integer    cx_bursts;
integer c_e, c_i, c_n;
reg [SW-1:0] c_slot;
integer perf_base = 0;
integer perf_t [0:127];
always @(posedge failed) begin
    $display("  checking request %0d (slot %0d): got kind %0d status 0x%0h check %0d tpt %0d resp %0d ctl %b tag %0d slot %0d bursts %0d; expected kind %0d status 0x%0h check %0d tpt %0d resp %0d ctl %b bursts %0d (seq %b)",
        n_chk, n_chk % DEPTH, res_kind, res_status, res_check, res_tpt_err, res_bus_resp, res_ctl_valid, res_tag, res_slot,
        n_bursts - q_b0[n_chk % QN], q_kind[n_chk % QN], q_status[n_chk % QN], q_check[n_chk % QN], q_tpt[n_chk % QN],
        q_resp[n_chk % QN], q_ctl[n_chk % QN], q_bursts[n_chk % QN], q_seq[n_chk % QN]);
    $display("  expected desc segc %0d ctrl 0x%0h len %0d", q_segc[n_chk % QN], q_ctrl[n_chk % QN], q_len[n_chk % QN]);
    $fatal(1, "%m: check failed (see FAIL above)");
end
initial begin
    res_ready = 1'b0;
    seg_rd_en = 1'b0;
    seg_rd_slot = {SW{1'b0}};
    seg_idx = 8'd0;
    wait (rst === 1'b0);
    forever begin
        @(posedge clk);
        #1;
        if (res_valid === 1'b1) begin
            c_active = 1'b1;
            while (({bench_random(0)} % 100) < bp_res) begin
                @(posedge clk);
                #1;
            end
            c_e = n_chk % QN;
            // after an abort: the requests in flight then may be missing
            while (n_chk < n_iss && q_drop[c_e] && res_tag !== n_chk[15:0]) begin
                entry_done(c_e);
                n_dropped = n_dropped + 1;
                n_chk = n_chk + 1;
                c_e = n_chk % QN;
            end
            if (n_chk >= n_iss) `XFAIL("a result without a request")
            if (res_tag !== n_chk[15:0]) `XFAIL("tag: results out of order")
            if (res_slot !== n_chk % DEPTH) `XFAIL("slot")
            cx_kind = q_kind[c_e];
            cx_status = q_status[c_e];
            cx_check = q_check[c_e];
            cx_tpt = q_tpt[c_e];
            cx_resp = q_resp[c_e];
            cx_ctl = q_ctl[c_e];
            cx_bursts = q_bursts[c_e];
            // in fence mode a STALE translation may end the fetch
            // (also HANDLE: a handle of the next generation once the
            // INVALIDATE has made it current, with the region invalid)
            if (q_fence[c_e] && q_ka[c_e] && res_kind === RES_STATUS
                    && (res_tpt_err === E_STALE || (res_tpt_err === E_HANDLE && !q_seq[c_e]))
                    && (res_check === CHK_XLAT_CTL || res_check === CHK_XLAT_SEGS)) begin
                if (res_tpt_err === E_STALE) fence_stale = fence_stale + 1;
                cx_kind = RES_STATUS;
                cx_status = ST_PROTECTION;
                cx_check = res_check;
                cx_tpt = res_tpt_err;
                cx_resp = 2'd0;
                cx_ctl = res_check === CHK_XLAT_SEGS;
                // STALE on the second page's lookup: after the first page's burst
                cx_bursts = !cx_ctl ? 0 : (n_bursts - q_b0[c_e] == 2) ? 2 : 1;
                x_sum_bursts = x_sum_bursts - q_bursts[c_e] + cx_bursts;
            end
            hist[res_check] = hist[res_check] + 1;
            if (res_kind !== cx_kind || res_status !== cx_status || res_check !== cx_check
                    || res_tpt_err !== cx_tpt || res_bus_resp !== cx_resp || res_ctl_valid !== cx_ctl
                    || (q_seq[c_e] && n_bursts - q_b0[c_e] != cx_bursts))
                `XFAIL("result differs from the model")
            if (cx_ctl && (res_next !== q_next[c_e] || res_next_handle !== q_nh[c_e] || res_seg_count !== q_segc[c_e]
                    || res_control !== q_ctrl[c_e] || res_immediate !== q_imm[c_e] || res_length !== q_len[c_e]))
                `XFAIL("control fields differ")
            if (!cx_ctl && (res_next !== 64'd0 || res_next_handle !== 32'd0 || res_seg_count !== 16'd0
                    || res_control !== 16'd0 || res_immediate !== 32'd0 || res_length !== 32'd0))
                `XFAIL("control fields not 0 without a control segment")
            // release in the cycle of the take: now and then when nothing
            // else awaits its release and no segment is to be read
            c_relnow = rq_t == rq_h && !rel_a && (perf_mode || (cx_kind != RES_DESC && {bench_random(0)} % 3 == 0));
            c_slot = res_slot;
            if (perf_mode) perf_t[n_chk - perf_base] = cyc;
            res_ready = 1'b1;
            rel_b = c_relnow;
            @(posedge clk);
            #1;
            res_ready = 1'b0;
            rel_b = 1'b0;
            if (res_valid) `XFAIL("result held after res_ready")
            if (cx_kind == RES_DESC && !perf_mode) begin
                // the segments, through the registered read port, in random
                // order of gaps
                c_n = q_segc[c_e];
                for (c_i = 0; c_i <= c_n + 1; c_i = c_i + 1) begin
                    seg_rd_en = 1'b1;
                    seg_rd_slot = c_slot;
                    seg_idx = c_i < c_n ? c_i : c_i == c_n ? MAX_SEGS + 1 : 255;
                    @(posedge clk);
                    #1;
                    seg_rd_en = 1'b0;
                    seg_idx = bench_random(0);
                    seg_rd_slot = bench_random(0);
                    if ({bench_random(0)} % 4 == 0) begin
                        @(posedge clk);
                        #1;
                    end
                    if (c_i < c_n) begin
                        if (seg_addr !== q_saddr[c_e * IMG_SEGS + c_i] || seg_handle !== q_shnd[c_e * IMG_SEGS + c_i]
                                || seg_len !== q_slen[c_e * IMG_SEGS + c_i]) begin
                            $display("FAIL %m: segment %0d: 0x%0h 0x%0h %0d, expected 0x%0h 0x%0h %0d", c_i,
                                seg_addr, seg_handle, seg_len, q_saddr[c_e * IMG_SEGS + c_i], q_shnd[c_e * IMG_SEGS + c_i],
                                q_slen[c_e * IMG_SEGS + c_i]);
                            failed = 1'b1;
                            #1;
                        end
                    end else if (seg_addr !== 64'd0 || seg_handle !== 32'd0 || seg_len !== 32'd0) begin
                        `XFAIL("segment beyond the buffer not 0")
                    end
                end
            end
            if (!c_relnow) begin
                rq_due[rq_t % QN] = cyc + (perf_mode ? 0 : {bench_random(0)} % 4 == 0 ? 0 : {bench_random(0)} % 60);
                rq_t = rq_t + 1;
            end
            entry_done(c_e);
            n_chk = n_chk + 1;
            c_active = 1'b0;
        end
    end
end

// ------------------------------------------------------------- abort

// abort_go: abort_delay cycles later, abort rises; it stays until the unit
// has drained (busy 0); the results still missing then are those dropped
reg abort_go = 1'b0, abort_done = 1'b0;
integer abort_delay = 0, abort_n = 0, abort_inflight = 0, abort_w = 0;
initial begin
    abort = 1'b0;
    forever begin
        @(posedge clk);
        #1;
        if (abort_go && !abort_done) begin
            for (abort_n = 0; abort_n < abort_delay; abort_n = abort_n + 1) begin
                @(posedge clk);
                #1;
            end
            abort = 1'b1;
            for (abort_n = n_chk; abort_n < n_req; abort_n = abort_n + 1) begin
                q_drop[abort_n % QN] = 1'b1;
            end
            abort_inflight = abort_inflight + n_req - n_chk;
            abort_w = 0;
            while (!(busy === 1'b0 && res_valid === 1'b0 && !c_active)) begin
                @(posedge clk);
                #1;
                abort_w = abort_w + 1;
                if (abort_w > WATCHDOG) `XFAIL("busy for ever under abort")
            end
            for (abort_n = 0; abort_n < {bench_random(0)} % 8; abort_n = abort_n + 1) begin
                @(posedge clk);
                #1;
                if (busy !== 1'b0 || res_valid !== 1'b0) `XFAIL("busy again under abort")
            end
            while (n_chk < n_req) begin
                if (!q_drop[n_chk % QN]) `XFAIL("a request taken under abort")
                entry_done(n_chk % QN);
                n_dropped = n_dropped + 1;
                n_chk = n_chk + 1;
            end
            abort = 1'b0;
            abort_done = 1'b1;
        end else if (!abort_go) begin
            abort_done = 1'b0;
        end
    end
end

// ------------------------------------------------------------- descriptors

// a good descriptor: op, data segments nd (plus an address segment for
// RDMA), random lengths that add up to Length
task desc_good;
    input [1:0] op;
    input integer nd;
    integer i, n0;
    begin
        b_next = {bench_random(0), bench_random(0)} & ~64'h3f;
        b_nh = bench_random(0);
        b_ctrl = {12'd0, 2'b00, op} | (({bench_random(0)} % 2) ? 16'h4 : 16'h0) | (({bench_random(0)} % 2) ? 16'h8 : 16'h0);
        b_res = 32'd0;
        b_imm = bench_random(0);
        b_stat = 32'd0;
        n0 = (op == 2'd1 || op == 2'd2) ? 1 : 0;
        b_segc = nd + n0;
        b_len = 32'd0;
        for (i = 0; i < IMG_SEGS; i = i + 1) begin
            s_addr[i] = {bench_random(0), bench_random(0)};
            s_hnd[i] = bench_random(0);
            s_len[i] = {bench_random(0)} % 70000;
            if (i == 0 && n0 == 1) begin
                s_len[i] = 32'd0;   // the address segment's Reserved
            end else if (i < b_segc) begin
                b_len = b_len + s_len[i];
            end
        end
    end
endtask

// the next segment count of a sweep 0..last: every count for small limits,
// four strides (and the last) for large ones
function integer next_n;
    input integer n;
    input integer last;
    begin
        if (last <= 24 || n == last) begin
            next_n = n + 1;
        end else if (n + (last + 3) / 4 > last) begin
            next_n = last;
        end else begin
            next_n = n + (last + 3) / 4;
        end
    end
endfunction

// ------------------------------------------------------------- test

localparam [15:0] PT = 16'h0a05, PT2 = 16'h0b06;
localparam K_A = 1, K_B = 2, K_SMALL = 3, K_BADPL = 4, K_STALE = 5, K_NONE = 7;

integer i, n, t, op, k, vo, pass, choice, t0;

// the fence test's second process: fence_delay cycles after fence_go rises
// (fence_burst 0), or once the fetch's fence_burst-th burst is outstanding,
// an INVALIDATE of region K_A; checks that it does not finish before the
// unit's bursts issued before it have completed (no task shared with the
// main process)
reg fence_go = 1'b0, fence_done = 1'b0;
integer fence_delay = 0, fence_snap = 0, fence_n = 0, fence_overlap = 0, fence_burst = 0, fence_base = 0;
initial begin
    forever begin
        @(posedge clk);
        if (fence_go && !fence_done) begin
            if (fence_burst == 0) begin
                for (fence_n = 0; fence_n < fence_delay; fence_n = fence_n + 1) @(posedge clk);
            end else begin
                // while the fence_burst-th burst of the fetch is outstanding
                fence_n = 0;
                while (!(n_bursts >= fence_base + fence_burst && n_done < n_bursts) && fence_n < 5000) begin
                    @(posedge clk);
                    fence_n = fence_n + 1;
                end
            end
            #1;
            while (prog_busy) begin
                @(posedge clk);
                #1;
            end
            fence_snap = n_bursts;
            if (n_done < fence_snap) fence_overlap = fence_overlap + 1;
            prog_op = 3'd3;
            prog_index = K_A;
            prog_valid = 1'b1;
            @(posedge clk);
            #1;
            prog_valid = 1'b0;
            @(posedge clk);
            #1;
            while (prog_busy) begin
                @(posedge clk);
                #1;
            end
            if (n_done < fence_snap) `XFAIL("INVALIDATE finished before the unit's bursts completed")
            fence_done = 1'b1;
        end else if (!fence_go) begin
            fence_done = 1'b0;
        end
    end
end
reg [63:0] va;
reg [31:0] h;

initial begin
    finished = 1'b0;
    if (!$value$plusargs("seed=%d", seed)) seed = 1;
    seed = seed * 7919 + SALT;
    req_valid = 1'b0;
    req_va = 64'd0;
    req_handle = 32'd0;
    req_ptag = 16'd0;
    req_recv = 1'b0;
    req_mts = 32'hffffffff;
    req_we = 1'b1;
    req_re = 1'b1;
    req_tag = 16'd0;
    prog_valid = 1'b0;
    prog_op = 3'd0;
    prog_index = 16'd0;
    prog_va = 64'd0;
    prog_len = 32'd0;
    prog_ptag = 16'd0;
    prog_rdma_write = 1'b0;
    prog_rdma_read = 1'b0;
    prog_pl = 64'd0;
    err_off = -1;
    bp_req = 0;
    bp_res = 0;
    for (i = 0; i < 16; i = i + 1) begin
        hist[i] = 0;
    end
    for (i = 0; i < REGIONS; i = i + 1) begin
        r_valid[i] = 1'b0;
        r_gen[i] = 16'd1;
        r_badpl[i] = 1'b0;
        r_va[i] = 64'd0;
        r_len[i] = 32'd0;
        r_ptag[i] = 16'd0;
    end
    free_n = 0;
    for (i = 1; i < PAGES; i = i + 1) begin
        free_pg[free_n] = i;
        free_n = free_n + 1;
    end
    for (i = 0; i < MEM_BYTES; i = i + 1) begin
        ram.mem[i] = 8'hee;
    end
    wait (rst === 1'b0);
    repeat (5) tick;
    while (prog_busy) tick;

    // regions: A (4 pages, unaligned base, high VA), B (another ptag, 3
    // pages), a small one, one whose page list lies outside the memory, one
    // registered then deregistered (stale handle)
    region_new(K_A, 64'h00007f12_34566000 + 64'h9c0, 32'd3 * 4096 + 32'd1024, PT);
    region_new(K_B, 64'hffffffff_fffd0000 + 64'h40, 32'd2 * 4096 + 32'd2048, PT2);
    region_new(K_SMALL, 64'h00000000_20000000 + 64'h800, 32'd256, PT);
    tpt_cmd(3'd1, K_BADPL, 64'h40000000, 32'd8192, PT, MEM_BYTES + 64'h1000);
    r_valid[K_BADPL] = 1'b1;
    r_badpl[K_BADPL] = 1'b1;
    r_gen[K_BADPL] = prog_rd_gen;
    r_va[K_BADPL] = 64'h40000000;
    r_len[K_BADPL] = 32'd8192;
    r_ptag[K_BADPL] = PT;
    r_handle[K_BADPL] = {prog_rd_gen, 16'd4};
    region_new(K_STALE, 64'h00000000_30000000, 32'd4096, PT);
    h = r_handle[K_STALE];
    tpt_cmd(3'd3, K_STALE, 64'd0, 32'd0, 16'd0, 64'd0);  // INVALIDATE
    r_valid[K_STALE] = 1'b0;
    r_gen[K_STALE] = prog_rd_gen;
    r_handle[K_STALE] = h;
    for (i = 0; i < 2 * BLKS; i = i + 1) begin
        blk_busy[i] = 1'b0;
    end

    // 8. throughput only
    if (PERF != 0) begin
        ram.set_ready_prob(100);
        bp_req = 0;
        bp_res = 0;
        perf_mode = 1'b1;
        req_handle = r_handle[K_A];
        req_ptag = PT;
        req_recv = 1'b0;
        req_mts = 32'hffffffff;
        req_we = 1'b1;
        req_re = 1'b1;
        va = (r_va[K_A] + 64'h3f) & ~64'h3f;
        // two passes: the first warms the TPT's cache
        for (pass = 0; pass < 2; pass = pass + 1) begin
            perf_base = n_iss;
            x_sum_bursts = 0;
            t0 = n_bursts;
            for (i = 0; i < 64; i = i + 1) begin
                desc_good(2'd0, 1 + i % 2);
                desc_write(K_A, va + 64 * i);
                issue(va + 64 * i, 1'b0);
            end
            drain;
            if (n_bursts - t0 != x_sum_bursts) `XFAIL("bursts of the throughput run differ from the model")
        end
        // sustained: results 16..63 of the second pass
        $display("%m: throughput (DEPTH %0d, READ_LATENCY %0d, SegCount 1-2, one 64-byte read each): %0d.%02d cycles per result sustained (results 16..63), %0d cycles from the first result to the 64th",
            DEPTH, READ_LATENCY, (perf_t[63] - perf_t[15]) / 48, ((perf_t[63] - perf_t[15]) * 100 / 48) % 100, perf_t[63] - perf_t[0]);
        // SegCount 3-4: a second read (and lookup) each
        perf_base = n_iss;
        x_sum_bursts = 0;
        t0 = n_bursts;
        for (i = 0; i < 64; i = i + 1) begin
            desc_good(2'd0, 3 + i % 2);
            desc_write(K_A, va + 128 * i);
            issue(va + 128 * i, 1'b0);
        end
        drain;
        if (n_bursts - t0 != x_sum_bursts) `XFAIL("bursts of the throughput run differ from the model")
        $display("%m: throughput (DEPTH %0d, READ_LATENCY %0d, SegCount 3-4, two reads each): %0d.%02d cycles per result sustained (results 16..63)",
            DEPTH, READ_LATENCY, (perf_t[63] - perf_t[15]) / 48, ((perf_t[63] - perf_t[15]) * 100 / 48) % 100);
        perf_mode = 1'b0;
        repeat (10) tick;
        finished = 1'b1;
        wait (1'b0);
    end

    for (pass = 2 - PASSES; pass < 2; pass = pass + 1) begin
        // pass 0 without back-pressure, pass 1 with
        ram.set_ready_prob(pass == 0 ? 100 : READY_PROB);
        bp_req = pass == 0 ? 0 : 50;
        bp_res = pass == 0 ? 0 : 50;
        req_handle = r_handle[K_A];
        req_ptag = PT;
        req_mts = 32'hffffffff;
        req_we = 1'b1;
        req_re = 1'b1;

        // 1. good shapes: send / receive with 0..MAX_SEGS data segments
        va = (r_va[K_A] + 64'h3f) & ~64'h3f;
        for (n = 0; n <= MAX_SEGS; n = next_n(n, MAX_SEGS)) begin
            for (t = 0; t < 2; t = t + 1) begin
                req_recv = t;
                desc_good(2'd0, n);
                desc_write(K_A, va);
                fetch(va);
                if (res_kind !== RES_DESC) `XFAIL("good descriptor refused")
            end
        end
        // RDMA write / read: address segment and 0..MAX_SEGS data segments
        req_recv = 1'b0;
        for (n = 0; n <= MAX_SEGS; n = next_n(n, MAX_SEGS)) begin
            for (t = 1; t < 3; t = t + 1) begin
                desc_good(t, n);
                desc_write(K_A, va + 64'h1000);
                fetch(va + 64'h1000);
                if (res_kind !== RES_DESC) `XFAIL("good RDMA descriptor refused")
            end
        end
        // at the end of a page: the segments lie in the next page (scattered
        // elsewhere in memory), also the longest descriptor; and the last
        // descriptor of region B (its end is the region's end)
        for (n = 0; n <= MAX_SEGS + 1; n = next_n(n, MAX_SEGS + 1)) begin
            desc_good(n == MAX_SEGS + 1 ? 2'd1 : 2'd0, n == MAX_SEGS + 1 ? MAX_SEGS : n);
            vo = 64 * ({bench_random(0)} % 4 + 1);
            desc_write(K_A, ((r_va[K_A] + 64'h2000) & ~64'hfff) - vo);
            fetch(((r_va[K_A] + 64'h2000) & ~64'hfff) - vo);
            if (res_kind !== RES_DESC) `XFAIL("page-crossing descriptor refused")
        end
        if (pass == 0 && n_bursts < 3) `XFAIL("bench: no page crossing")
        req_handle = r_handle[K_B];
        req_ptag = PT2;
        desc_good(2'd0, 2);
        va = r_va[K_B] + r_len[K_B] - 64;
        desc_write(K_B, va);
        fetch(va);
        if (res_kind !== RES_DESC) `XFAIL("descriptor at the region's end refused")
        // Length = MaxTransferSize is good, one more is not
        req_handle = r_handle[K_A];
        req_ptag = PT;
        va = (r_va[K_A] + 64'h3f) & ~64'h3f;
        desc_good(2'd0, 3);
        req_mts = b_len;
        desc_write(K_A, va);
        fetch(va);
        if (res_kind !== RES_DESC) `XFAIL("Length = MaxTransferSize refused")
        req_mts = b_len - 1;
        fetch(va);
        if (res_check !== CHK_LEN_MAX) `XFAIL("LEN_MAX expected")
        req_mts = 32'hffffffff;

        // 2. every check, and two failures at once
        desc_good(2'd0, 2); b_ctrl = b_ctrl | 16'h0010; desc_write(K_A, va); fetch(va);
        if (res_check !== CHK_RESERVED) `XFAIL("RESERVED (control bit 4)")
        desc_good(2'd0, 2); b_ctrl = b_ctrl | 16'h8000; desc_write(K_A, va); fetch(va);
        if (res_check !== CHK_RESERVED) `XFAIL("RESERVED (control bit 15)")
        desc_good(2'd0, 2); b_res = 32'h00010000; desc_write(K_A, va); fetch(va);
        if (res_check !== CHK_RESERVED) `XFAIL("RESERVED (Reserved)")
        desc_good(2'd3, 2); b_res = 32'h1; desc_write(K_A, va); fetch(va);
        if (res_check !== CHK_RESERVED) `XFAIL("RESERVED before OP")
        desc_good(2'd3, 2); desc_write(K_A, va); fetch(va);
        if (res_check !== CHK_OP) `XFAIL("OP (3 on send)")
        req_recv = 1'b1;
        desc_good(2'd3, 2); desc_write(K_A, va); fetch(va);
        if (res_check !== CHK_OP) `XFAIL("OP (3 on receive)")
        desc_good(2'd1, 2); desc_write(K_A, va); fetch(va);
        if (res_check !== CHK_OP) `XFAIL("OP (RDMA write on receive)")
        desc_good(2'd2, 2); desc_write(K_A, va); fetch(va);
        if (res_check !== CHK_OP) `XFAIL("OP (RDMA read on receive)")
        req_we = 1'b0;
        desc_good(2'd1, 2); desc_write(K_A, va); fetch(va);
        if (res_check !== CHK_OP) `XFAIL("OP before RDMA_EN")
        req_recv = 1'b0;
        fetch(va);
        if (res_check !== CHK_RDMA_EN) `XFAIL("RDMA_EN (write)")
        desc_good(2'd2, 2); desc_write(K_A, va); fetch(va);
        if (res_kind !== RES_DESC) `XFAIL("RDMA read with read enabled refused")
        req_we = 1'b1;
        req_re = 1'b0;
        fetch(va);
        if (res_check !== CHK_RDMA_EN) `XFAIL("RDMA_EN (read)")
        desc_good(2'd2, 0); b_segc = 0; desc_write(K_A, va); fetch(va);
        if (res_check !== CHK_RDMA_EN) `XFAIL("RDMA_EN before NO_ADDR_SEG")
        req_re = 1'b1;
        fetch(va);
        if (res_check !== CHK_NO_ADDR_SEG) `XFAIL("NO_ADDR_SEG")
        desc_good(2'd1, 0); b_segc = 0; desc_write(K_A, va); fetch(va);
        if (res_check !== CHK_NO_ADDR_SEG) `XFAIL("NO_ADDR_SEG (write)")
        desc_good(2'd0, MAX_SEGS + 1); desc_write(K_A, va); fetch(va);
        if (res_check !== CHK_SEG_LIMIT) `XFAIL("SEG_LIMIT (send)")
        req_recv = 1'b1;
        fetch(va);
        if (res_check !== CHK_SEG_LIMIT) `XFAIL("SEG_LIMIT (receive)")
        req_recv = 1'b0;
        desc_good(2'd1, MAX_SEGS + 1); desc_write(K_A, va); fetch(va);
        if (res_check !== CHK_SEG_LIMIT) `XFAIL("SEG_LIMIT (RDMA)")
        desc_good(2'd1, MAX_SEGS); s_len[0] = 32'h100; desc_write(K_A, va); fetch(va);
        if (res_check !== CHK_ADDR_RESERVED) `XFAIL("ADDR_RESERVED")
        s_len[1] = s_len[1] + 1; desc_write(K_A, va); fetch(va);
        if (res_check !== CHK_ADDR_RESERVED) `XFAIL("ADDR_RESERVED before LEN_SUM")
        desc_good(2'd0, 3); b_len = b_len + 1; desc_write(K_A, va); fetch(va);
        if (res_check !== CHK_LEN_SUM) `XFAIL("LEN_SUM (one more)")
        desc_good(2'd0, 0); b_len = 1; desc_write(K_A, va); fetch(va);
        if (res_check !== CHK_LEN_SUM) `XFAIL("LEN_SUM (no segments, Length 1)")
        // lengths that wrap 32 bits
        desc_good(2'd0, 2); s_len[0] = 32'hffffff00; s_len[1] = 32'h200; b_len = 32'h100;
        desc_write(K_A, va); fetch(va);
        if (res_check !== CHK_LEN_SUM) `XFAIL("LEN_SUM (32-bit wrap)")
        desc_good(2'd0, 2); b_len = b_len - 1; req_mts = 0; desc_write(K_A, va); fetch(va);
        if (res_check !== CHK_LEN_SUM) `XFAIL("LEN_SUM before LEN_MAX")
        desc_good(2'd0, 2); desc_write(K_A, va); fetch(va);
        if (res_check !== CHK_LEN_MAX) `XFAIL("LEN_MAX")
        req_mts = 32'hffffffff;
        // SegCount 0xffff in a small region: the segments' translation
        // fails before the segment limit
        req_handle = r_handle[K_SMALL];
        va = (r_va[K_SMALL] + 64'h3f) & ~64'h3f;
        desc_good(2'd0, 2); b_segc = 16'hffff; desc_write(K_SMALL, va); fetch(va);
        if (res_check !== CHK_XLAT_SEGS || res_tpt_err !== E_BOUNDS) `XFAIL("XLAT_SEGS before SEG_LIMIT")
        desc_good(2'd0, 2); b_ctrl = 16'hffff; b_segc = 16'd200; desc_write(K_SMALL, va); fetch(va);
        if (res_check !== CHK_XLAT_SEGS) `XFAIL("XLAT_SEGS before RESERVED")

        // 3. translation errors on the control segment
        desc_good(2'd0, 1);
        req_handle = 32'd0; fetch(va);
        if (res_check !== CHK_XLAT_CTL || res_tpt_err !== E_HANDLE) `XFAIL("HANDLE (0)")
        req_handle = {r_gen[K_NONE], 16'd7}; fetch(va);
        if (res_tpt_err !== E_HANDLE) `XFAIL("HANDLE (unregistered)")
        req_handle = {16'd1, 16'd20}; fetch(va);
        if (res_tpt_err !== E_HANDLE) `XFAIL("HANDLE (index beyond REGIONS)")
        req_handle = r_handle[K_STALE]; fetch(r_va[K_STALE]);
        if (res_tpt_err !== E_STALE) `XFAIL("STALE")
        req_handle = r_handle[K_SMALL]; req_ptag = PT2; fetch(va);
        if (res_tpt_err !== E_PTAG) `XFAIL("PTAG")
        req_ptag = PT; fetch(va - 64'h40);
        if (res_tpt_err !== E_BOUNDS) `XFAIL("BOUNDS (below)")
        fetch(((r_va[K_SMALL] + r_len[K_SMALL]) & ~64'h3f));
        if (res_tpt_err !== E_BOUNDS) `XFAIL("BOUNDS (beyond)")
        req_handle = r_handle[K_BADPL]; fetch(r_va[K_BADPL] + 64'h1000);
        if (res_tpt_err !== E_FETCH) `XFAIL("FETCH")
        // the segments run past the region's end
        req_handle = r_handle[K_SMALL];
        va = ((r_va[K_SMALL] + r_len[K_SMALL]) & ~64'h3f) - 64;
        desc_good(2'd0, 3); desc_write(K_SMALL, va); fetch(va);
        if (res_check !== CHK_XLAT_SEGS || res_tpt_err !== E_BOUNDS) `XFAIL("XLAT_SEGS (BOUNDS)")
        desc_good(2'd0, 2); desc_write(K_SMALL, va); fetch(va);
        if (res_kind !== RES_DESC) `XFAIL("descriptor ending at the region's end refused")

        // 4. bus errors
        req_handle = r_handle[K_A];
        va = (r_va[K_A] + 64'h3f) & ~64'h3f;
        desc_good(2'd0, 4); desc_write(K_A, va);
        err_off = 16; fetch(va);
        if (res_kind !== RES_BUS || res_ctl_valid !== 1'b0) `XFAIL("BUS (control)")
        err_off = 32 + 16 * 3; fetch(va);
        if (res_kind !== RES_BUS || res_ctl_valid !== (BYTES <= 80)) `XFAIL("BUS (segment)")
        b_ctrl = b_ctrl | 16'h100; desc_write(K_A, va);
        err_off = 32 + 16 * 3; fetch(va);
        if (res_check !== CHK_RESERVED) `XFAIL("RESERVED before a segment's bus error")
        // the second page of a page-crossing descriptor
        va = ((r_va[K_A] + 64'h2000) & ~64'hfff) - 64;
        desc_good(2'd0, MAX_SEGS); desc_write(K_A, va);
        err_off = 32 + 16 * (MAX_SEGS - 1); fetch(va);
        if (res_kind !== RES_BUS || (MAX_SEGS > 2 && n_bursts - q_b0[(n_iss - 1) % QN] != 3)) `XFAIL("BUS (second page)")

        // 5. random fetches against the model, pipelined (+short: a quarter)
        x_sum_bursts = 0;
        t0 = n_bursts;
        for (i = 0; i < ($test$plusargs("short") ? RANDOM_FETCHES / 4 : RANDOM_FETCHES) / PASSES; i = i + 1) begin
            random_fetch;
        end
        drain;
        if (n_bursts - t0 != x_sum_bursts) `XFAIL("bursts of the random run differ from the model")
    end

    // 6. the fence: INVALIDATE of the descriptor's region at a different
    // moment of a page-crossing fetch each time; the command must not
    // finish before every burst the unit had issued before it has
    // completed; the fetch ends good or with STALE; the region is then
    // registered again (same pages, new generation)
    ram.set_ready_prob(READY_PROB);
    bp_req = 0;
    bp_res = 0;
    fence_mode = 1'b1;
    req_recv = 1'b0;
    req_ptag = PT;
    va = ((r_va[K_A] + 64'h2000) & ~64'hfff) - 64;
    for (t = 0; t < 16; t = t + 1) begin
        req_handle = r_handle[K_A];
        desc_good(2'd0, MAX_SEGS);
        desc_write(K_A, va);
        // the INVALIDATE runs in its own process (fence_proc), no fork
        // t % 4 == 0: after a delay; else while the unit's (t % 4)-th burst
        // (control segment, first page's segments, second page's) is
        // outstanding
        fence_delay = 1 + 20 * t;
        fence_burst = t % 4;
        fence_base = n_bursts;
        fence_go = 1'b1;
        fetch(va);
        while (!fence_done) tick;
        fence_go = 1'b0;
        tick;
        r_valid[K_A] = 1'b0;
        r_gen[K_A] = prog_rd_gen;
        tpt_cmd(3'd1, K_A, r_va[K_A], r_len[K_A], PT, K_A * 256);
        r_valid[K_A] = 1'b1;
        r_gen[K_A] = prog_rd_gen;
        r_handle[K_A] = {prog_rd_gen, 16'd1};
    end
    fence_mode = 1'b0;
    if (fence_stale == 0 || fence_stale == 16) `XFAIL("bench: the fence test never (or always) saw STALE")
    if (fence_overlap < 8) `XFAIL("bench: too few INVALIDATEs came while a burst of the unit was outstanding")

    // 6b. the fence under a pipelined random run: INVALIDATE of region A at
    // a random moment while several fetches (of regions A and B) are in
    // flight, with translations of both epochs held; the INVALIDATE must
    // not finish before the unit's bursts issued before it have completed;
    // a fetch of region A may end STALE; A is then registered again
    t0 = fence_stale;
    vo = fence_overlap;
    ram.set_ready_prob(READY_PROB);
    bp_req = 10;
    bp_res = 20;
    fence_mode = 1'b1;
    for (t = 0; t < 6; t = t + 1) begin
        fence_delay = 10 + {bench_random(0)} % (20 + READ_LATENCY * 3);
        fence_burst = 0;
        fence_go = 1'b1;
        for (i = 0; i < 3 * DEPTH + 2; i = i + 1) begin
            random_fetch;
        end
        while (!fence_done) tick;
        drain;
        fence_go = 1'b0;
        tick;
        r_valid[K_A] = 1'b0;
        r_gen[K_A] = prog_rd_gen;
        tpt_cmd(3'd1, K_A, r_va[K_A], r_len[K_A], PT, K_A * 256);
        r_valid[K_A] = 1'b1;
        r_gen[K_A] = prog_rd_gen;
        r_handle[K_A] = {prog_rd_gen, 16'd1};
    end
    fence_mode = 1'b0;
    $display("%m: pipelined fence: 6 INVALIDATEs, %0d with a burst outstanding, %0d fetches ended STALE",
        fence_overlap - vo, fence_stale - t0);
    if (fence_overlap - vo < 2) `XFAIL("bench: too few INVALIDATEs came while a burst of the unit was outstanding (pipelined)")

    // 7. abort at random moments of pipelined random runs
    if (ABORTS > 0) begin
        ram.set_ready_prob(READY_PROB);
        bp_req = 20;
        bp_res = 30;
        for (t = 0; t < ABORTS; t = t + 1) begin
            abort_delay = {bench_random(0)} % (60 + READ_LATENCY * 4);
            abort_go = 1'b1;
            for (i = 0; i < 2 * DEPTH + 4; i = i + 1) begin
                random_fetch;
            end
            while (!abort_done) tick;
            abort_go = 1'b0;
            drain;
        end
        if (n_dropped == 0) `XFAIL("bench: abort never dropped a result")
        // the unit works on
        x_sum_bursts = 0;
        t0 = n_bursts;
        for (i = 0; i < 2 * DEPTH; i = i + 1) begin
            random_fetch;
        end
        drain;
        if (n_bursts - t0 != x_sum_bursts) `XFAIL("bursts after the aborts differ from the model")
        $display("%m: abort: %0d aborts, %0d requests in flight at their rise, %0d results dropped; %0d cycles with a release remembered",
            ABORTS, abort_inflight, n_dropped, cov_pend);
    end

    repeat (10) tick;
    $display("%m: up to %0d results taken and not yet released at once", cov_held_max);
    $display("%m: finished at %0t ns; %0d fetches, %0d bursts; fence: %0d of 16 fetches ended STALE, %0d INVALIDATEs with a burst outstanding", $time, n_req, n_bursts, fence_stale, fence_overlap);
    $display("%m: results per check (OK XLAT_CTL XLAT_SEGS RESERVED OP RDMA_EN NO_ADDR_SEG SEG_LIMIT ADDR_RESERVED LEN_SUM LEN_MAX BUS): %0d %0d %0d %0d %0d %0d %0d %0d %0d %0d %0d %0d",
        hist[0], hist[1], hist[2], hist[3], hist[4], hist[5], hist[6], hist[7], hist[8], hist[9], hist[10], hist[11]);
    finished = 1'b1;
end

// reserves the 64-byte blocks of a descriptor at va of region kk (A or B)
// with segc segments; 0 if one of them is taken
function try_reserve;
    input integer kk;
    input [63:0] va;
    input [15:0] segc;
    integer rb, first, nb, j, ok;
    reg [63:0] pbase;
    begin
        rb = kk == K_A ? 0 : BLKS;
        pbase = r_va[kk] & ~64'hfff;
        first = (va - pbase) >> 6;
        nb = (32 + 16 * (segc < IMG_SEGS ? segc : IMG_SEGS) + 63) / 64;
        if (va < pbase || first >= BLKS) begin
            nb = 0;
        end else if (first + nb > BLKS) begin
            nb = BLKS - first;
        end
        ok = 1;
        for (j = 0; j < nb; j = j + 1) begin
            if (blk_busy[rb + first + j]) ok = 0;
        end
        if (ok) begin
            for (j = 0; j < nb; j = j + 1) begin
                blk_busy[rb + first + j] = 1'b1;
            end
            cur_blk = rb + first;
            cur_nblk = nb;
        end
        try_reserve = ok;
    end
endfunction

// one random fetch: region, place, shape, and now and then one fault;
// issued without waiting for its result, at a place no fetch in flight
// uses; at most one bus error injected at a time
task random_fetch;
    integer kk, nd, f, np, e0, tries;
    reg [63:0] base, lim;
    reg placed;
    begin
        kk = ({bench_random(0)} % 2) ? K_A : K_B;
        req_handle = r_handle[kk];
        req_ptag = r_ptag[kk];
        req_recv = {bench_random(0)} % 3 == 0;
        req_we = {bench_random(0)} % 4 != 0;
        req_re = {bench_random(0)} % 4 != 0;
        op = {bench_random(0)} % 10;
        op = op < 5 ? 0 : op < 7 ? 1 : op < 9 ? 2 : 3;
        nd = {bench_random(0)} % (MAX_SEGS + 1);
        desc_good(op, nd);
        if (nd == 0 && op != 0 && {bench_random(0)} % 2) b_segc = 0;
        req_mts = ({bench_random(0)} % 4 == 0) ? b_len - ({bench_random(0)} % 2) : 32'hffffffff;
        f = {bench_random(0)} % 24;
        case (f)
        0: b_ctrl = b_ctrl | (16'h10 << ({bench_random(0)} % 12));
        1: b_res = bench_random(0) | 1;
        2: b_len = b_len + 1 + {bench_random(0)} % 5;
        3: b_segc = MAX_SEGS + 2 + {bench_random(0)} % 3;
        4: s_len[0] = s_len[0] + 1;
        5: req_ptag = req_ptag ^ 16'h1;
        6: req_handle = req_handle + 32'h00010000;
        7: err_off = 16 * ({bench_random(0)} % (2 + b_segc));
        default: ;
        endcase
        if (err_active > 0) err_off = -1;
        e0 = err_off;
        // a place: anywhere in the region's pages, 64-byte aligned, now
        // and then at a page's end or beyond the region
        base = (r_va[kk] + 64'h3f) & ~64'h3f;
        lim = r_va[kk] + r_len[kk];
        np = (lim - base) / 64;
        placed = 1'b0;
        tries = 0;
        while (!placed) begin
            va = base + 64 * ({bench_random(0)} % np);
            if ({bench_random(0)} % 3 == 0) begin
                va = ((base + 64'h1000 * ({bench_random(0)} % 2 + 1)) & ~64'hfff) - 64 * ({bench_random(0)} % 4 + 1);
            end
            if ({bench_random(0)} % 16 == 0) begin
                va = (lim + 64'h3f) & ~64'h3f;
            end
            placed = try_reserve(kk, va, b_segc);
            if (!placed) begin
                tries = tries + 1;
                if (tries % 4 == 0) tick;
                if (tries > WATCHDOG) `XFAIL("bench: no place for a descriptor")
            end
        end
        err_off = e0;
        if (err_off >= 32 + 16 * b_segc || !in_pages(kk, va + err_off) || !in_pages(kk, va)) begin
            err_off = -1;
        end
        desc_write(kk, va);
        issue(va, 1'b0);
    end
endtask

endmodule
