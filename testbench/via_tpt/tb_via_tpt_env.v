// tb_via_tpt_env: one via_tpt with an axi_ram_model holding the page lists,
// a reference model and the self-checking test sequence. tb_via_tpt runs
// several of these side by side, one per DUT configuration.
//
// Host memory (the model's MEM_BYTES) is filled with random bytes once; a
// region's page list is any 8-byte aligned address in it (lists may
// overlap: they are never rewritten), some near the end of the memory (their
// far entries answer DECERR) or near the injected SLVERR window
// [ERR_LO, ERR_HI): both make TPT_ERR_FETCH. The reference model (ref_lookup)
// computes every answer from a shadow of the region table and the model's
// memory, in the order of the brief's checks.
//
// Processes: the stimulus (initial block) drives lk_* and prog_* with
// non-blocking assignments after a rising edge; the checker (one always
// block) samples every handshake at the rising edge: it computes a lookup's
// expected answer when the lookup is accepted, updates the shadow when a
// programming op is accepted, checks prog_rd_* when prog_busy falls, plays
// the consumer (random rs_ready; holds inflight_epoch[e] for a random time
// after taking a response of epoch e, or while the stimulus holds it by
// hand) and compares every response.
//
// Sequence: reset clearing (busy, no lookups, every entry invalid with
// generation 1), registration of a pool of regions, back-to-back hits (200
// lookups of one cached line: accepted and answered one per cycle, all
// hits), the fence (lookups in flight when INVALIDATE comes, a miss among
// them, keep the old epoch; with the old epoch held by hand INVALIDATE stays
// busy, lookups go on under the new epoch, a WRITE meanwhile is ignored;
// busy falls soon after the release), a generation wrap (the table word
// poked to 1, then 0xFFFF: a line cached under the first generation 1 must
// not hit after the wrap), then LOOKUPS random lookups with programming ops
// interleaved (some pulsed in the same cycle as a lookup, any op including
// NOP and unknown ones, some while busy), first with random back-pressure
// everywhere, then without. At the end: every error class seen at least
// MIN_PER_CLASS times, enough hits, misses, zero lengths and overflows past
// 2**64, st_* pulses equal to the responses, one page-list fetch per miss.

`timescale 1ns / 1ps

`include "via_bar0.vh"
`include "via_fw.vh"

`define FAIL_CHECK(msg) begin $display("FAIL %m: %0s", msg); failed = 1'b1; #1; end

module tb_via_tpt_env #(
    parameter REGIONS = 1024,
    parameter CACHE_ENTRIES = 512,
    parameter ADDR_WIDTH = 48,
    parameter DATA_WIDTH = 64,
    parameter TAG_WIDTH = 2,
    parameter MEM_BYTES = 262144,
    parameter READ_LATENCY = 10,
    parameter LOOKUPS = 4000,
    parameter SALT = 0
) (
    input  wire clk,
    input  wire rst,
    output reg  finished
);

localparam ID_WIDTH = 4;
localparam [ID_WIDTH-1:0] FETCH_ID = 4'd5;
localparam LINES = CACHE_ENTRIES / 8;
localparam NPOOL = REGIONS < 24 ? REGIONS : 24;
localparam MIN_PER_CLASS = 40;
localparam TW = 1 + 16 + 64 + 32 + 16 + 2 + (ADDR_WIDTH - 3);
localparam [63:0] ERR_LO = MEM_BYTES / 2;
localparam [63:0] ERR_HI = MEM_BYTES / 2 + 4096;
localparam QN = 64;

localparam [2:0] E_OK = 0, E_HANDLE = 1, E_STALE = 2, E_PTAG = 3, E_ACCESS = 4, E_BOUNDS = 5, E_FETCH = 6;
localparam [2:0] OP_WRITE = 1, OP_SET_ATTR = 2, OP_INVALIDATE = 3, OP_READ = 4;

// ------------------------------------------------------------- the DUT

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
reg                  lk_valid;
wire                 lk_ready;
reg  [31:0]          lk_handle;
reg  [63:0]          lk_va;
reg  [31:0]          lk_len;
reg  [15:0]          lk_ptag;
reg  [1:0]           lk_kind;
reg  [TAG_WIDTH-1:0] lk_tag;
wire                 rs_valid;
reg                  rs_ready;
wire [2:0]           rs_err;
wire [ADDR_WIDTH-1:0] rs_pa;
wire [12:0]          rs_bytes;
wire                 rs_hit, rs_epoch;
wire [TAG_WIDTH-1:0] rs_tag;
reg  [1:0]           inflight_epoch;
wire st_lookup, st_hit, st_miss, st_error;

wire [ID_WIDTH-1:0]     axi_arid, axi_rid;
wire [ADDR_WIDTH-1:0]   axi_araddr;
wire [7:0]              axi_arlen;
wire [2:0]              axi_arsize;
wire [1:0]              axi_arburst, axi_rresp;
wire                    axi_arvalid, axi_arready, axi_rlast, axi_rvalid, axi_rready;
wire [DATA_WIDTH-1:0]   axi_rdata;
wire                    axi_awready, axi_wready, axi_bvalid;
wire [ID_WIDTH-1:0]     axi_bid;
wire [1:0]              axi_bresp;

via_tpt #(
    .REGIONS(REGIONS),
    .CACHE_ENTRIES(CACHE_ENTRIES),
    .ADDR_WIDTH(ADDR_WIDTH),
    .DATA_WIDTH(DATA_WIDTH),
    .ID_WIDTH(ID_WIDTH),
    .FETCH_ID(FETCH_ID),
    .TAG_WIDTH(TAG_WIDTH)
) dut (
    .clk(clk), .rst(rst),
    .prog_valid(prog_valid), .prog_op(prog_op), .prog_index(prog_index),
    .prog_va(prog_va), .prog_len(prog_len), .prog_ptag(prog_ptag),
    .prog_rdma_write(prog_rdma_write), .prog_rdma_read(prog_rdma_read),
    .prog_pl(prog_pl), .prog_busy(prog_busy),
    .prog_rd_va(prog_rd_va), .prog_rd_len(prog_rd_len), .prog_rd_ptag(prog_rd_ptag),
    .prog_rd_rdma_write(prog_rd_rdma_write), .prog_rd_rdma_read(prog_rd_rdma_read),
    .prog_rd_pl(prog_rd_pl), .prog_rd_valid(prog_rd_valid), .prog_rd_gen(prog_rd_gen),
    .lk_valid(lk_valid), .lk_ready(lk_ready), .lk_handle(lk_handle), .lk_va(lk_va),
    .lk_len(lk_len), .lk_ptag(lk_ptag), .lk_kind(lk_kind), .lk_tag(lk_tag),
    .rs_valid(rs_valid), .rs_ready(rs_ready), .rs_err(rs_err), .rs_pa(rs_pa),
    .rs_bytes(rs_bytes), .rs_hit(rs_hit), .rs_epoch(rs_epoch), .rs_tag(rs_tag),
    .inflight_epoch(inflight_epoch),
    .m_axi_arid(axi_arid), .m_axi_araddr(axi_araddr), .m_axi_arlen(axi_arlen),
    .m_axi_arsize(axi_arsize), .m_axi_arburst(axi_arburst), .m_axi_arvalid(axi_arvalid),
    .m_axi_arready(axi_arready), .m_axi_rid(axi_rid), .m_axi_rdata(axi_rdata),
    .m_axi_rresp(axi_rresp), .m_axi_rlast(axi_rlast), .m_axi_rvalid(axi_rvalid),
    .m_axi_rready(axi_rready),
    .st_lookup(st_lookup), .st_hit(st_hit), .st_miss(st_miss), .st_error(st_error)
);

axi_ram_model #(
    .DATA_WIDTH(DATA_WIDTH),
    .ADDR_WIDTH(ADDR_WIDTH),
    .ID_WIDTH(ID_WIDTH),
    .MEM_BYTES(MEM_BYTES),
    .READ_LATENCY(READ_LATENCY),
    .WRITE_LATENCY(1),
    .READY_PROB(100),
    .MAX_READS(4),
    .SEED_SALT(SALT)
) ram (
    .clk(clk), .rst(rst),
    .s_axi_awid({ID_WIDTH{1'b0}}), .s_axi_awaddr({ADDR_WIDTH{1'b0}}), .s_axi_awlen(8'd0),
    .s_axi_awsize(3'd0), .s_axi_awburst(2'b01), .s_axi_awlock(1'b0), .s_axi_awcache(4'd0),
    .s_axi_awprot(3'd0), .s_axi_awvalid(1'b0), .s_axi_awready(axi_awready),
    .s_axi_wdata({DATA_WIDTH{1'b0}}), .s_axi_wstrb({(DATA_WIDTH/8){1'b0}}), .s_axi_wlast(1'b0),
    .s_axi_wvalid(1'b0), .s_axi_wready(axi_wready),
    .s_axi_bid(axi_bid), .s_axi_bresp(axi_bresp), .s_axi_bvalid(axi_bvalid), .s_axi_bready(1'b1),
    .s_axi_arid(axi_arid), .s_axi_araddr(axi_araddr), .s_axi_arlen(axi_arlen),
    .s_axi_arsize(axi_arsize), .s_axi_arburst(axi_arburst), .s_axi_arlock(1'b0),
    .s_axi_arcache(4'd0), .s_axi_arprot(3'd0), .s_axi_arvalid(axi_arvalid),
    .s_axi_arready(axi_arready), .s_axi_rid(axi_rid), .s_axi_rdata(axi_rdata),
    .s_axi_rresp(axi_rresp), .s_axi_rlast(axi_rlast), .s_axi_rvalid(axi_rvalid),
    .s_axi_rready(axi_rready)
);

// ------------------------------------------------------------ bench state

integer seed;
`include "bench_random.vh"

reg failed = 1'b0;
always @(posedge failed) begin
    $fatal(1, "%m: check failed (see FAIL above)");
end

// shadow of the region table
reg        sh_valid [0:REGIONS-1];
reg [15:0] sh_gen   [0:REGIONS-1];
reg [63:0] sh_va    [0:REGIONS-1];
reg [31:0] sh_len   [0:REGIONS-1];
reg [15:0] sh_ptag  [0:REGIONS-1];
reg        sh_ww    [0:REGIONS-1];
reg        sh_rr    [0:REGIONS-1];
reg [63:0] sh_pl    [0:REGIONS-1];
reg        sh_epoch;
integer    pool [0:NPOOL-1];

// expected responses, in order
reg [2:0]            q_err   [0:QN-1];
reg [ADDR_WIDTH-1:0] q_pa    [0:QN-1];
reg [12:0]           q_bytes [0:QN-1];
reg                  q_epoch [0:QN-1];
reg [TAG_WIDTH-1:0]  q_tag   [0:QN-1];
reg                  q_need  [0:QN-1];
reg                  q_ovf   [0:QN-1];
integer              q_seq   [0:QN-1];
integer q_head, q_count;

// counters
integer cyc;
integer n_issued, n_resp, n_hit, n_miss, n_zero, n_ovf;
integer n_err [0:7];
integer n_st_lookup, n_st_hit, n_st_miss, n_st_error;
integer n_prog [0:7];
integer n_fence_waits;
integer n_ignored;  // prog_valid while busy
// throughput window: responses with seq in [tp_lo, tp_hi]
integer tp_lo, tp_hi, tp_first, tp_last, tp_count, tp_hits;

// consumer
integer rs_prob;
reg [1:0] hold_manual;
integer hold_until [0:1];

// programming op in flight (checked when busy falls)
reg        pp_pending;
reg [2:0]  pp_op;
reg        pp_old_epoch;
reg        pp_valid;
reg [15:0] pp_gen;
reg [63:0] pp_va, pp_pl;
reg [31:0] pp_len;
reg [15:0] pp_ptag;
reg        pp_ww, pp_rr;
reg [1:0]  prev_inflight;
integer    pp_start;

// reference model outputs
reg [2:0]            ex_err;
reg [ADDR_WIDTH-1:0] ex_pa;
reg [12:0]           ex_bytes;
reg                  ex_need, ex_ovf;

// uniform 0..n-1
function [63:0] urand;
    input [63:0] n;
    begin
        urand = (n == 64'd0) ? 64'd0 : {32'd0, $unsigned(bench_random(0))} % n;
    end
endfunction

function [7:0] mem_byte;
    input [63:0] a;
    begin
        mem_byte = (a < MEM_BYTES) ? ram.mem[a] : 8'h00;
    end
endfunction

// the answer the TPT must give, from the shadow table and host memory
task ref_lookup;
    input [31:0] handle;
    input [63:0] va;
    input [31:0] len;
    input [15:0] ptag;
    input [1:0]  kind;
    reg [15:0] idx, gen;
    reg [64:0] vend, rend;
    reg [63:0] pidx, ea, la, ent;
    reg ok;
    integer i;
    begin
        idx = handle[15:0];
        gen = handle[31:16];
        ex_pa = {ADDR_WIDTH{1'b0}};
        ex_bytes = 13'd0;
        ex_need = 1'b0;
        ex_ovf = 1'b0;
        vend = {1'b0, va} + {33'd0, len};
        if (idx >= REGIONS || gen == 16'd0) begin
            ex_err = E_HANDLE;
        end else if (gen != sh_gen[idx]) begin
            ex_err = E_STALE;
        end else if (!sh_valid[idx]) begin
            ex_err = E_HANDLE;
        end else if (ptag != sh_ptag[idx]) begin
            ex_err = E_PTAG;
        end else if ((kind == 2'd2 && !sh_rr[idx]) || (kind == 2'd3 && !sh_ww[idx])) begin
            ex_err = E_ACCESS;
        end else begin
            rend = {1'b0, sh_va[idx]} + {33'd0, sh_len[idx]};
            if (len == 32'd0) begin
                ok = va >= sh_va[idx] && {1'b0, va} <= rend;
            end else begin
                ok = va >= sh_va[idx] && vend <= rend && vend <= {1'b1, 64'd0};
            end
            if (!ok) begin
                ex_err = E_BOUNDS;
                ex_ovf = va >= sh_va[idx] && vend > {1'b1, 64'd0};
            end else if (len == 32'd0) begin
                ex_err = E_OK;
            end else begin
                pidx = (va >> 12) - (sh_va[idx] >> 12);
                ea = sh_pl[idx] + (pidx << 3);
                la = ea & ~64'd63;
                if (la + 64 > MEM_BYTES || (la < ERR_HI && la + 64 > ERR_LO)) begin
                    ex_err = E_FETCH;
                    ex_need = 1'b1;
                end else begin
                    ex_err = E_OK;
                    ex_need = 1'b1;
                    ent = 64'd0;
                    for (i = 0; i < 8; i = i + 1) begin
                        ent = ent | ({56'd0, mem_byte(ea + i)} << (8 * i));
                    end
                    ex_pa = {ent[ADDR_WIDTH-1:12], va[11:0]};
                    ex_bytes = (len < 32'd4096 - {20'd0, va[11:0]}) ? len[12:0] : 13'd4096 - {1'b0, va[11:0]};
                end
            end
        end
    end
endtask

// ------------------------------------------------------------ checker

integer e, hold_t;
always @(posedge clk) begin
    cyc = cyc + 1;
    if (rst) begin
        q_head = 0;
        q_count = 0;
        rs_ready <= 1'b0;
        inflight_epoch <= 2'b00;
        hold_until[0] = 0;
        hold_until[1] = 0;
        pp_pending = 1'b0;
        sh_epoch = 1'b0;
        prev_inflight = 2'b00;
    end else begin
        // ---- counters' events
        if (st_lookup) n_st_lookup = n_st_lookup + 1;
        if (st_hit) n_st_hit = n_st_hit + 1;
        if (st_miss) n_st_miss = n_st_miss + 1;
        if (st_error) n_st_error = n_st_error + 1;
        if ((st_hit || st_miss || st_error) && !st_lookup) `FAIL_CHECK("st_hit/miss/error without st_lookup")
        if (st_hit && st_miss) `FAIL_CHECK("st_hit and st_miss together")

        // ---- a response taken
        if (rs_valid && rs_ready) begin
            if (q_count == 0) `FAIL_CHECK("response without a lookup")
            e = q_head;
            if (rs_err !== q_err[e] || rs_pa !== q_pa[e] || rs_bytes !== q_bytes[e]
                    || rs_epoch !== q_epoch[e] || rs_tag !== q_tag[e]) begin
                $display("  lookup #%0d: got err %0d pa 0x%0h bytes %0d epoch %b tag %0d hit %b; expected err %0d pa 0x%0h bytes %0d epoch %b tag %0d",
                    q_seq[e], rs_err, rs_pa, rs_bytes, rs_epoch, rs_tag, rs_hit, q_err[e], q_pa[e], q_bytes[e], q_epoch[e], q_tag[e]);
                `FAIL_CHECK("response differs from the reference model")
            end
            if (rs_hit && !(q_need[e] && q_err[e] == E_OK)) `FAIL_CHECK("rs_hit on a lookup that needs no page")
            n_resp = n_resp + 1;
            n_err[rs_err] = n_err[rs_err] + 1;
            if (rs_err == E_OK && q_need[e]) begin
                if (rs_hit) n_hit = n_hit + 1; else n_miss = n_miss + 1;
            end
            if (rs_err == E_OK && !q_need[e]) n_zero = n_zero + 1;
            if (rs_err == E_BOUNDS && q_ovf[e]) n_ovf = n_ovf + 1;
            if (q_seq[e] >= tp_lo && q_seq[e] <= tp_hi) begin
                if (tp_count == 0) tp_first = cyc;
                tp_last = cyc;
                tp_count = tp_count + 1;
                if (rs_hit) tp_hits = tp_hits + 1;
            end
            // the consumer: a DMA of this epoch in flight for a while
            if (urand(100) < 40) begin
                if (hold_until[rs_epoch] < cyc + 2 + (bench_random(0) & 63))
                    hold_until[rs_epoch] = cyc + 2 + (bench_random(0) & 63);
            end else if (hold_until[rs_epoch] < cyc + 1) begin
                hold_until[rs_epoch] = cyc + 1;
            end
            q_head = (q_head + 1) % QN;
            q_count = q_count - 1;
        end

        // ---- a lookup accepted: its expected answer, from the shadow now
        if (lk_valid && lk_ready) begin
            ref_lookup(lk_handle, lk_va, lk_len, lk_ptag, lk_kind);
            e = (q_head + q_count) % QN;
            q_err[e] = ex_err;
            q_pa[e] = ex_pa;
            q_bytes[e] = ex_bytes;
            q_need[e] = ex_need;
            q_ovf[e] = ex_ovf;
            q_epoch[e] = sh_epoch;
            q_tag[e] = lk_tag;
            q_seq[e] = n_issued;
            q_count = q_count + 1;
            n_issued = n_issued + 1;
            if (q_count > 8) `FAIL_CHECK("more than 8 lookups in flight")
        end

        // ---- a programming op finished: prog_rd_* and the fence
        if (pp_pending && !prog_busy && cyc > pp_start) begin
            pp_pending = 1'b0;
            if (prog_rd_valid !== pp_valid || prog_rd_gen !== pp_gen || prog_rd_va !== pp_va
                    || prog_rd_len !== pp_len || prog_rd_ptag !== pp_ptag || prog_rd_pl !== pp_pl
                    || prog_rd_rdma_write !== pp_ww || prog_rd_rdma_read !== pp_rr) begin
                $display("  op %0d: got valid %b gen %0d va 0x%0h len %0d ptag 0x%0h pl 0x%0h ww %b rr %b",
                    pp_op, prog_rd_valid, prog_rd_gen, prog_rd_va, prog_rd_len, prog_rd_ptag, prog_rd_pl,
                    prog_rd_rdma_write, prog_rd_rdma_read);
                $display("        expected valid %b gen %0d va 0x%0h len %0d ptag 0x%0h pl 0x%0h ww %b rr %b",
                    pp_valid, pp_gen, pp_va, pp_len, pp_ptag, pp_pl, pp_ww, pp_rr);
                `FAIL_CHECK("prog_rd_* differ from the shadow entry")
            end
            if (pp_op == OP_INVALIDATE && prev_inflight[pp_old_epoch]) begin
                `FAIL_CHECK("INVALIDATE finished while inflight_epoch[old] was set")
            end
        end

        if (prog_valid && prog_busy) n_ignored = n_ignored + 1;
        // ---- a programming op accepted: the shadow follows it
        if (prog_valid && !prog_busy) begin
            e = prog_index % REGIONS;
            n_prog[prog_op] = n_prog[prog_op] + 1;
            case (prog_op)
                OP_WRITE: begin
                    sh_valid[e] = 1'b1;
                    sh_va[e] = prog_va;
                    sh_len[e] = prog_len;
                    sh_ptag[e] = prog_ptag;
                    sh_ww[e] = prog_rdma_write;
                    sh_rr[e] = prog_rdma_read;
                    sh_pl[e] = prog_pl;
                end
                OP_SET_ATTR: begin
                    if (sh_valid[e]) begin
                        sh_ptag[e] = prog_ptag;
                        sh_ww[e] = prog_rdma_write;
                        sh_rr[e] = prog_rdma_read;
                    end
                end
                OP_INVALIDATE: begin
                    sh_valid[e] = 1'b0;
                    sh_gen[e] = sh_gen[e] == 16'hffff ? 16'd1 : sh_gen[e] + 16'd1;
                    pp_old_epoch = sh_epoch;
                    sh_epoch = !sh_epoch;
                end
                default: begin
                end
            endcase
            if (prog_op >= OP_WRITE && prog_op <= OP_READ) begin
                pp_pending = 1'b1;
                pp_start = cyc;
                pp_op = prog_op;
                pp_valid = sh_valid[e];
                pp_gen = sh_gen[e];
                pp_va = sh_va[e];
                pp_len = sh_len[e];
                pp_ptag = sh_ptag[e];
                pp_ww = sh_ww[e];
                pp_rr = sh_rr[e];
                pp_pl = sh_pl[e];
            end
        end
        prev_inflight = inflight_epoch;

        // ---- consumer outputs for the next cycle
        rs_ready <= urand(100) < rs_prob;
        inflight_epoch <= {hold_manual[1] || hold_until[1] > cyc + 1, hold_manual[0] || hold_until[0] > cyc + 1};
    end
end

// ------------------------------------------------------------ stimulus

integer n_issued_next, lk_stalls;
// the next lookup also pulses prog_valid (prog_* set by the caller) in its
// first cycle, whatever prog_busy is
reg pulse_next;

// one clock: the stimulus acts 1 ns after the rising edge, on settled values
task tick;
    begin
        @(posedge clk);
        #1;
    end
endtask

// one lookup: driven after this edge, returns at the edge that accepts it
task lookup;
    input [31:0] handle;
    input [63:0] va;
    input [31:0] len;
    input [15:0] ptag;
    input [1:0]  kind;
    begin
        lk_valid = 1'b1;
        lk_handle = handle;
        lk_va = va;
        lk_len = len;
        lk_ptag = ptag;
        lk_kind = kind;
        lk_tag = n_issued_next[TAG_WIDTH-1:0];
        n_issued_next = n_issued_next + 1;
        prog_valid = pulse_next;
        pulse_next = 1'b0;
        tick;
        prog_valid = 1'b0;
        while (n_issued < n_issued_next) begin
            lk_stalls = lk_stalls + 1;
            tick;
        end
        lk_valid = 1'b0;
    end
endtask

// one programming op, accepted at the edge this returns at (waits for !busy)
task prog;
    input [2:0]  op;
    input [15:0] idx;
    input [63:0] va;
    input [31:0] len;
    input [15:0] ptag;
    input        ww;
    input        rr;
    input [63:0] pl;
    begin
        while (prog_busy) tick;
        prog_valid = 1'b1;
        prog_op = op;
        prog_index = idx;
        prog_va = va;
        prog_len = len;
        prog_ptag = ptag;
        prog_rdma_write = ww;
        prog_rdma_read = rr;
        prog_pl = pl;
        tick;
        prog_valid = 1'b0;
    end
endtask

task wait_idle;
    begin
        tick;
        while (prog_busy || q_count != 0 || lk_valid) tick;
        tick;
    end
endtask

function [63:0] rnd64;
    input integer unused;
    begin
        rnd64 = {bench_random(0), bench_random(0)};
    end
endfunction

// a random region for index idx, registered with WRITE
reg [63:0] g_va, g_pl;
reg [31:0] g_len;
integer r;
task register_random;
    input integer idx;
    begin
        r = urand(100);
        if (r < 30) g_len = urand(20000) + 1;
        else if (r < 55) g_len = urand((1 << 20)) + 1;
        else if (r < 70) g_len = bench_random(0) | 32'd1;
        else if (r < 80) g_len = 32'hffffffff;
        else g_len = urand(16) + 1;
        r = urand(100);
        if (r < 50) g_va = rnd64(0);
        else if (r < 70) g_va = rnd64(0) & ~64'hfff;
        else if (r < 90) g_va = 64'd0 - {32'd0, g_len} + urand(20000) - 10000;
        else g_va = {32'd0, bench_random(0)};
        r = urand(100);
        if (r < 20) g_pl = ERR_LO - 256 + urand(4096 + 256);
        else if (r < 30) g_pl = MEM_BYTES - urand(1024);
        else g_pl = urand(MEM_BYTES - 4096);
        g_pl = g_pl & ~64'd7;
        prog(OP_WRITE, idx, g_va, g_len, urand(3) + 1, bench_random(0) & 1, bench_random(0) & 1, g_pl);
    end
endtask

// prog_* for a pulse with the next lookup: any op (NOP and unknown ones
// included), on a pool index
task pulse_random;
    begin
        prog_op = urand(8);
        prog_index = pool[urand(NPOOL)];
        prog_va = sh_va[prog_index % REGIONS] + urand(4096);
        prog_len = urand(100000) + 1;
        prog_ptag = urand(3) + 1;
        prog_rdma_write = bench_random(0) & 1;
        prog_rdma_read = bench_random(0) & 1;
        prog_pl = urand(MEM_BYTES - 4096) & ~64'd7;
        pulse_next = 1'b1;
    end
endtask

// one random lookup
reg [15:0] l_idx, l_gen, l_ptag;
reg [63:0] l_va, l_off, l_lim;
reg [31:0] l_len;
reg [1:0]  l_kind;
task random_lookup;
    begin
        l_idx = pool[urand(NPOOL)];
        l_gen = sh_gen[l_idx];
        l_ptag = sh_ptag[l_idx];
        l_kind = bench_random(0) & 3;
        r = urand(100);
        l_len = urand(9000) + 1;
        if (r < 55) begin
            // inside (mostly near the base, where the page list is in memory)
            l_lim = (urand(4) == 0) ? {32'd0, sh_len[l_idx]} : ({32'd0, sh_len[l_idx]} < 64'd200000 ? {32'd0, sh_len[l_idx]} : 64'd200000);
            if (l_lim == 64'd0) l_lim = 64'd1;
            l_off = rnd64(0) % l_lim;
            l_va = sh_va[l_idx] + l_off;
            if ({32'd0, l_len} > {32'd0, sh_len[l_idx]} - l_off || urand(10) == 0) l_len = sh_len[l_idx] - l_off[31:0];
        end else if (r < 63) begin
            l_len = 32'd0;
            case (urand(5))
                0: l_va = sh_va[l_idx];
                1: l_va = sh_va[l_idx] + sh_len[l_idx];
                2: l_va = sh_va[l_idx] + urand(sh_len[l_idx]);
                3: l_va = sh_va[l_idx] + sh_len[l_idx] + 1;
                default: l_va = sh_va[l_idx] - 1;
            endcase
        end else if (r < 71) begin
            l_va = sh_va[l_idx] - urand(8192) - 1;
        end else if (r < 80) begin
            l_va = sh_va[l_idx] + sh_len[l_idx] - urand(4096);
        end else if (r < 88) begin
            // past 2**64
            l_va = sh_va[l_idx] + urand(sh_len[l_idx]);
            l_len = 32'hffffffff - urand(4096);
            if (urand(2) == 0) l_va = 64'hffffffffffffffff - urand(8192);
        end else begin
            l_va = rnd64(0);
        end
        r = urand(100);
        if (r < 6) l_gen = l_gen + 1 + urand(3);
        else if (r < 10) l_gen = l_gen - 1;
        else if (r < 13) l_gen = 16'd0;
        else if (r < 16 && REGIONS < 65536) l_idx = REGIONS + urand((65536 - REGIONS));
        if (urand(100) < 8) l_ptag = l_ptag + 1 + urand(2);
        lookup({l_gen, l_idx}, l_va, l_len, l_ptag, l_kind);
    end
endtask

// one random programming op on a pool index
integer p_idx;
task random_prog;
    begin
        p_idx = pool[urand(NPOOL)];
        r = urand(100);
        if (r < 45) begin
            if (sh_valid[p_idx]) prog(OP_INVALIDATE, p_idx, 0, 0, 0, 0, 0, 0);
            else register_random(p_idx);
        end else if (r < 50) begin
            if (sh_valid[p_idx]) prog(OP_INVALIDATE, p_idx, 0, 0, 0, 0, 0, 0);
            else prog(OP_INVALIDATE, p_idx, rnd64(0), 0, 0, 0, 0, 0);
        end else if (r < 70) begin
            register_random(p_idx);
        end else if (r < 80) begin
            prog(OP_SET_ATTR, p_idx, rnd64(0), bench_random(0), urand(3) + 1,
                bench_random(0) & 1, bench_random(0) & 1, rnd64(0));
        end else begin
            prog(OP_READ, p_idx | (bench_random(0) & 16'hf000 & ~(REGIONS - 1)), 0, 0, 0, 0, 0, 0);
        end
    end
endtask

integer i, j, t0, cyc_clear;
reg [TW-1:0] tword;
reg [63:0] tp_base;

initial begin
    finished = 1'b0;
    if (!$value$plusargs("seed=%d", seed)) seed = 1;
    seed = seed * 104729 + SALT * 7919 + 3;
    prog_valid = 1'b0;
    prog_op = 3'd0;
    prog_index = 16'd0;
    prog_va = 64'd0;
    prog_len = 32'd0;
    prog_ptag = 16'd0;
    prog_rdma_write = 1'b0;
    prog_rdma_read = 1'b0;
    prog_pl = 64'd0;
    lk_valid = 1'b0;
    lk_handle = 32'd0;
    lk_va = 64'd0;
    lk_len = 32'd0;
    lk_ptag = 16'd0;
    lk_kind = 2'd0;
    lk_tag = {TAG_WIDTH{1'b0}};
    rs_prob = 100;
    pulse_next = 1'b0;
    n_ignored = 0;
    hold_manual = 2'b00;
    cyc = 0;
    n_issued = 0;
    n_issued_next = 0;
    n_resp = 0;
    n_hit = 0;
    n_miss = 0;
    n_zero = 0;
    n_ovf = 0;
    n_st_lookup = 0;
    n_st_hit = 0;
    n_st_miss = 0;
    n_st_error = 0;
    n_fence_waits = 0;
    tp_lo = -1;
    tp_hi = -2;
    tp_count = 0;
    tp_hits = 0;
    tp_first = 0;
    tp_last = 0;
    for (i = 0; i < 8; i = i + 1) begin
        n_err[i] = 0;
        n_prog[i] = 0;
    end
    for (i = 0; i < REGIONS; i = i + 1) begin
        sh_valid[i] = 1'b0;
        sh_gen[i] = 16'd1;
        sh_va[i] = 64'd0;
        sh_len[i] = 32'd0;
        sh_ptag[i] = 16'd0;
        sh_ww[i] = 1'b0;
        sh_rr[i] = 1'b0;
        sh_pl[i] = 64'd0;
    end
    for (i = 0; i < NPOOL; i = i + 1) begin
        pool[i] = (i == NPOOL - 1) ? REGIONS - 1 : i * (REGIONS / NPOOL) + (i % 3);
    end
    // host memory: random bytes; SLVERR window in the middle
    for (i = 0; i < MEM_BYTES; i = i + 4) begin
        r = bench_random(0);
        ram.mem[i] = r[7:0];
        ram.mem[i + 1] = r[15:8];
        ram.mem[i + 2] = r[23:16];
        ram.mem[i + 3] = r[31:24];
    end

    // ---- reset: the table is cleared with busy high and no lookups
    tick;
    ram.set_rd_error(ERR_LO, ERR_HI);
    while (rst) tick;
    cyc_clear = 0;
    lk_valid = 1'b1;
    lk_handle = 32'h00010000;
    while (prog_busy) begin
        if (lk_ready) `FAIL_CHECK("lk_ready while clearing after reset")
        cyc_clear = cyc_clear + 1;
        tick;
    end
    // lk_ready is 1 now: accepted at the next edge
    tick;
    lk_valid = 1'b0;
    n_issued_next = n_issued_next + 1;
    if (cyc_clear < (REGIONS > LINES ? REGIONS : LINES) - 2) `FAIL_CHECK("clearing after reset too short")
    // that lookup (handle 1<<16: index 0, generation 1) was accepted as busy fell
    tick;
    for (i = 0; i < 6; i = i + 1) begin
        prog(OP_READ, (i * 7919) % REGIONS, 0, 0, 0, 0, 0, 0);
    end
    wait_idle;
    if (n_err[E_HANDLE] != 1) $display("  n_resp %0d n_issued %0d handle %0d stale %0d ok %0d", n_resp, n_issued, n_err[E_HANDLE], n_err[E_STALE], n_err[E_OK]);
    if (n_err[E_HANDLE] != 1) `FAIL_CHECK("the lookup after reset did not answer HANDLE")

    // ---- a pool of regions
    for (i = 0; i < NPOOL; i = i + 1) begin
        register_random(pool[i]);
    end

    // ---- back-to-back hits: 16 pages, page list 64-byte aligned in good memory
    tp_base = rnd64(0) & ~64'hfff;
    prog(OP_WRITE, pool[0], tp_base, 16 * 4096, 16'h7, 1'b1, 1'b1, 64'd4096);
    wait_idle;
    for (i = 0; i < 8; i = i + 1) begin
        lookup({sh_gen[pool[0]], pool[0][15:0]}, tp_base + i * 4096, 100, 16'h7, 2'd0);
    end
    wait_idle;
    rs_prob = 100;
    tick;
    tp_lo = n_issued_next;
    tp_hi = n_issued_next + 199;
    lk_stalls = 0;
    for (i = 0; i < 200; i = i + 1) begin
        lookup({sh_gen[pool[0]], pool[0][15:0]}, tp_base + (i % 8) * 4096 + (i * 37) % 4096, 1 + i * 13, 16'h7, i % 2);
    end
    if (lk_stalls != 0) begin
        $display("  200 lookups accepted in %0d cycles", 200 + lk_stalls);
        `FAIL_CHECK("back-to-back hits not accepted one per cycle")
    end
    wait_idle;
    if (tp_hits != 200) `FAIL_CHECK("back-to-back lookups of one cached line did not all hit")
    if (tp_count != 200 || tp_last - tp_first != 199) begin
        $display("  %0d responses in %0d cycles", tp_count, tp_last - tp_first + 1);
        `FAIL_CHECK("back-to-back hits not answered one per cycle")
    end
    $display("%m: throughput: 200 back-to-back hits answered in %0d cycles (%0d.%02d lookups/cycle)",
        tp_last - tp_first + 1, 200 / (tp_last - tp_first + 1), (20000 / (tp_last - tp_first + 1)) % 100);

    // ---- the fence: a held epoch keeps INVALIDATE busy
    rs_prob = 100;
    // lookups in flight (a miss among them) when INVALIDATE comes: old epoch
    lookup({sh_gen[pool[0]], pool[0][15:0]}, tp_base + 9 * 4096, 8, 16'h7, 2'd1);
    lookup({sh_gen[pool[0]], pool[0][15:0]}, tp_base + 1 * 4096, 8, 16'h7, 2'd1);
    prog(OP_INVALIDATE, pool[0], 0, 0, 0, 0, 0, 0);
    wait_idle;
    // hold the current epoch by hand from a response on
    hold_manual[sh_epoch] = 1'b1;
    j = sh_epoch;
    lookup({sh_gen[pool[1]], pool[1][15:0]}, sh_va[pool[1]], 0, sh_ptag[pool[1]], 2'd0);
    wait_idle;
    t0 = sh_gen[pool[1]];
    prog(OP_INVALIDATE, pool[1], 0, 0, 0, 0, 0, 0);
    // lookups are accepted again after the flip, under the new epoch
    for (i = 0; i < 20; i = i + 1) begin
        lookup({t0[15:0], pool[1][15:0]}, sh_va[pool[1]], 0, sh_ptag[pool[1]], 2'd0);
    end
    for (i = 0; i < 100; i = i + 1) begin
        if (!prog_busy) `FAIL_CHECK("INVALIDATE finished while its old epoch was held")
        // a WRITE meanwhile is ignored (READ below shows the entry invalid)
        prog_valid = i == 50;
        prog_op = OP_WRITE;
        prog_index = pool[1];
        tick;
    end
    prog_valid = 1'b0;
    hold_manual[j] = 1'b0;
    i = 0;
    while (prog_busy) begin
        i = i + 1;
        tick;
    end
    if (i > 80) `FAIL_CHECK("INVALIDATE still busy long after the release")
    wait_idle;
    prog(OP_READ, pool[1], 0, 0, 0, 0, 0, 0);
    wait_idle;
    if (prog_rd_valid !== 1'b0) `FAIL_CHECK("a WRITE during the fence was not ignored")
    register_random(pool[0]);
    register_random(pool[1]);

    // ---- generation wrap: a line cached under generation 1 must not hit
    // when the generation comes round to 1 again (the entry's generation is
    // poked to 1, then to 0xFFFF; the page list changes in between)
    wait_idle;
    prog(OP_INVALIDATE, pool[2], 0, 0, 0, 0, 0, 0);
    wait_idle;
    tword = dut.u_table.mem[pool[2]];
    tword[TW-2 -: 16] = 16'd1;
    dut.u_table.mem[pool[2]] = tword;
    sh_gen[pool[2]] = 16'd1;
    prog(OP_WRITE, pool[2], tp_base, 16 * 4096, 16'h7, 1'b1, 1'b1, 64'd4096);
    lookup({16'd1, pool[2][15:0]}, tp_base + 5, 8, 16'h7, 2'd3);
    lookup({16'd1, pool[2][15:0]}, tp_base + 6, 8, 16'h7, 2'd3);
    wait_idle;
    prog(OP_INVALIDATE, pool[2], 0, 0, 0, 0, 0, 0);
    wait_idle;
    tword = dut.u_table.mem[pool[2]];
    tword[TW-2 -: 16] = 16'hffff;
    dut.u_table.mem[pool[2]] = tword;
    sh_gen[pool[2]] = 16'hffff;
    prog(OP_WRITE, pool[2], tp_base, 16 * 4096, 16'h7, 1'b1, 1'b1, 64'd4096 + 64'd512);
    wait_idle;
    if (prog_rd_gen !== 16'hffff) `FAIL_CHECK("WRITE did not keep generation 0xFFFF")
    // (another line than the one cached under generation 1: no eviction)
    lookup({16'hffff, pool[2][15:0]}, tp_base + 9 * 4096 + 5, 8, 16'h7, 2'd3);
    wait_idle;
    t0 = cyc;
    prog(OP_INVALIDATE, pool[2], 0, 0, 0, 0, 0, 0);
    wait_idle;
    if (prog_rd_gen !== 16'd1) `FAIL_CHECK("generation did not wrap to 1")
    if (cyc - t0 < LINES) `FAIL_CHECK("INVALIDATE at the wrap did not flush the cache")
    lookup({16'hffff, pool[2][15:0]}, tp_base + 5, 8, 16'h7, 2'd3);
    lookup({16'h0000, pool[2][15:0]}, tp_base + 5, 8, 16'h7, 2'd3);
    // generation 1 again, another page list: the old line must not answer
    prog(OP_WRITE, pool[2], tp_base, 16 * 4096, 16'h7, 1'b1, 1'b1, 64'd4096 + 64'd1024);
    j = n_hit;
    lookup({16'd1, pool[2][15:0]}, tp_base + 5, 8, 16'h7, 2'd3);
    wait_idle;
    if (n_hit != j) `FAIL_CHECK("a line of an earlier generation 1 hit after the wrap")
    register_random(pool[2]);
    wait_idle;

    // ---- random lookups and programming ops
    for (j = 0; j < 2; j = j + 1) begin
        if (j == 0) begin
            rs_prob = 70;
            ram.set_ready_prob(50);
        end else begin
            rs_prob = 100;
            ram.set_ready_prob(100);
        end
        for (i = 0; i < LOOKUPS / 2; i = i + 1) begin
            r = urand(100);
            if (r < 4) random_prog;
            else if (r < 7) pulse_random;
            random_lookup;
        end
        wait_idle;
    end

    // ---- totals
    if (n_resp != n_issued) `FAIL_CHECK("responses != lookups")
    if (n_st_lookup != n_resp || n_st_hit != n_hit || n_st_error != n_resp - n_err[E_OK]
            || n_st_miss != n_miss + n_err[E_FETCH]) begin
        $display("  st_lookup %0d st_hit %0d st_miss %0d st_error %0d; responses %0d hits %0d misses %0d+%0d errors %0d",
            n_st_lookup, n_st_hit, n_st_miss, n_st_error, n_resp, n_hit, n_miss, n_err[E_FETCH], n_resp - n_err[E_OK]);
        `FAIL_CHECK("st_* pulses differ from the responses")
    end
    // one fetch per miss, none for errors and zero lengths
    if (ram.ar_count != n_miss + n_err[E_FETCH]) begin
        $display("  %0d page-list fetches for %0d misses and %0d FETCH errors", ram.ar_count, n_miss, n_err[E_FETCH]);
        `FAIL_CHECK("page-list fetches != misses")
    end
    $display("%m: %0d lookups: OK %0d (hits %0d, misses %0d, zero length %0d), HANDLE %0d, STALE %0d, PTAG %0d, ACCESS %0d, BOUNDS %0d (past 2**64 %0d), FETCH %0d",
        n_resp, n_err[E_OK], n_hit, n_miss, n_zero, n_err[E_HANDLE], n_err[E_STALE], n_err[E_PTAG],
        n_err[E_ACCESS], n_err[E_BOUNDS], n_ovf, n_err[E_FETCH]);
    $display("%m: ops: WRITE %0d SET_ATTR %0d INVALIDATE %0d READ %0d, NOP or unknown %0d, ignored while busy %0d; page-list fetches %0d (%0d errors); hit rate %0d%%",
        n_prog[OP_WRITE], n_prog[OP_SET_ATTR], n_prog[OP_INVALIDATE], n_prog[OP_READ],
        n_prog[0] + n_prog[5] + n_prog[6] + n_prog[7], n_ignored, ram.ar_count,
        ram.rd_errors, (100 * n_hit) / (n_hit + n_miss));
    for (i = 0; i < 7; i = i + 1) begin
        if (n_err[i] < MIN_PER_CLASS) begin
            $display("  class %0d seen %0d times", i, n_err[i]);
            `FAIL_CHECK("an answer class was not hit often enough")
        end
    end
    if (n_ovf < MIN_PER_CLASS / 4 || n_zero < MIN_PER_CLASS || n_hit < MIN_PER_CLASS || n_miss < MIN_PER_CLASS)
        `FAIL_CHECK("too few overflows, zero lengths, hits or misses")
    finished = 1'b1;
end

endmodule
