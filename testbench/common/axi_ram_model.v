// axi_ram_model: behavioural AXI4 slave memory for RTL benches (not
// synthesizable). Accepted unchanged by Verilator 5 (--binary --timing) and
// Icarus 11 (-g2012).
//
// What it does
//   - MEM_BYTES bytes of backing memory at base address 0, as a plain byte
//     array `mem` that benches may read and write hierarchically, or through
//     mem_write_byte / mem_read_byte / mem_fill.
//   - INCR bursts of any size up to the bus width, with wstrb. Reads return the
//     whole bus-aligned word of each beat.
//   - Several read bursts outstanding (up to MAX_READS), answered in order, the
//     first beat of each READ_LATENCY cycles after its AR was accepted. Several
//     write bursts outstanding (up to MAX_WRITES); B comes WRITE_LATENCY cycles
//     after the last W beat. W beats are accepted only once their AW has been
//     accepted (legal for a slave, and what many real ones do).
//   - Responses. Reads, per beat: DECERR (3) for a beat that touches any byte
//     at or above MEM_BYTES, SLVERR (2) for a beat overlapping
//     [rd_err_lo, rd_err_hi); the other beats of the burst answer OKAY with
//     their data. Writes, per burst: DECERR when the burst touches memory at
//     or above MEM_BYTES, SLVERR when it overlaps [wr_err_lo, wr_err_hi); a
//     burst with an error writes nothing. (Ranges set by the bench; empty
//     when lo >= hi.)
//   - Random back-pressure on every handshake it takes part in: awready,
//     wready, arready, bvalid delay and rvalid gaps. Each cycle each of them is
//     offered with probability ready_prob percent (1..100; 100 never stalls;
//     initialised from READY_PROB, benches may change it at any time), or with
//     a per-channel probability set by set_channel_probs (-1: follow
//     ready_prob), e.g. to make writes slower than reads. The random sequence
//     comes from bench_random (bench_random.vh), seed taken from the +seed=N plusarg (default
//     1) and mixed with SEED_SALT so that several instances in one bench
//     differ.
//   - Protocol checks on the master ($fatal): valid dropped or payload changed
//     before ready on AW, W and AR; X on valid/ready or on AW/AR/W control
//     signals; wlast not matching awlen; a burst crossing a 4 KiB boundary;
//     burst type other than INCR; size wider than the bus.
//   - Statistics for benches: ar_count, aw_count, r_beats, w_beats, b_count,
//     rd_outstanding / rd_outstanding_max (ARs accepted whose last R beat has
//     not been taken), wr_outstanding / wr_outstanding_max (AWs accepted whose
//     B has not been taken), max_arlen / max_awlen, rd_errors / wr_errors.
//     clear_stats() zeroes them (at the next clock edge).

`timescale 1ns / 1ps

module axi_ram_model #(
    // AXI4 data width in bits (8..1024)
    parameter DATA_WIDTH = 64,
    // AXI4 address width in bits (up to 64)
    parameter ADDR_WIDTH = 48,
    // AXI4 ID width in bits
    parameter ID_WIDTH = 4,
    // size of the backing memory in bytes, at base address 0
    parameter MEM_BYTES = 65536,
    // cycles from the AR handshake to the first R beat of the burst (>= 1)
    parameter READ_LATENCY = 8,
    // cycles from the last W beat to bvalid (>= 1)
    parameter WRITE_LATENCY = 2,
    // percent of cycles each ready/valid is offered (1..100), initial value
    parameter READY_PROB = 100,
    // read bursts accepted and not finished, at most
    parameter MAX_READS = 16,
    // write bursts accepted and not acknowledged, at most
    parameter MAX_WRITES = 16,
    // mixed into the +seed value so several instances use different sequences
    parameter SEED_SALT = 0
) (
    input  wire                    clk,
    input  wire                    rst,

    input  wire [ID_WIDTH-1:0]     s_axi_awid,
    input  wire [ADDR_WIDTH-1:0]   s_axi_awaddr,
    input  wire [7:0]              s_axi_awlen,
    input  wire [2:0]              s_axi_awsize,
    input  wire [1:0]              s_axi_awburst,
    input  wire                    s_axi_awlock,
    input  wire [3:0]              s_axi_awcache,
    input  wire [2:0]              s_axi_awprot,
    input  wire                    s_axi_awvalid,
    output reg                     s_axi_awready,
    input  wire [DATA_WIDTH-1:0]   s_axi_wdata,
    input  wire [DATA_WIDTH/8-1:0] s_axi_wstrb,
    input  wire                    s_axi_wlast,
    input  wire                    s_axi_wvalid,
    output reg                     s_axi_wready,
    output reg  [ID_WIDTH-1:0]     s_axi_bid,
    output reg  [1:0]              s_axi_bresp,
    output reg                     s_axi_bvalid,
    input  wire                    s_axi_bready,
    input  wire [ID_WIDTH-1:0]     s_axi_arid,
    input  wire [ADDR_WIDTH-1:0]   s_axi_araddr,
    input  wire [7:0]              s_axi_arlen,
    input  wire [2:0]              s_axi_arsize,
    input  wire [1:0]              s_axi_arburst,
    input  wire                    s_axi_arlock,
    input  wire [3:0]              s_axi_arcache,
    input  wire [2:0]              s_axi_arprot,
    input  wire                    s_axi_arvalid,
    output reg                     s_axi_arready,
    output reg  [ID_WIDTH-1:0]     s_axi_rid,
    output reg  [DATA_WIDTH-1:0]   s_axi_rdata,
    output reg  [1:0]              s_axi_rresp,
    output reg                     s_axi_rlast,
    output reg                     s_axi_rvalid,
    input  wire                    s_axi_rready
);

localparam BYTES = DATA_WIDTH/8;
localparam BUS_SIZE = $clog2(BYTES);

localparam [1:0] RESP_OKAY = 2'd0;
localparam [1:0] RESP_SLVERR = 2'd2;
localparam [1:0] RESP_DECERR = 2'd3;

// ------------------------------------------------------------------ state

reg [7:0] mem [0:MEM_BYTES-1];

// One bit per 4 KiB page of mem: set by every write of the model (AXI or
// mem_write_byte), never cleared here. A bench that compares the memory
// with an image of its own may compare only the pages written since its
// last comparison (and the pages it wrote itself), then clear the bits.
localparam PAGES = (MEM_BYTES + 4095) / 4096;
reg [PAGES-1:0] page_written;
initial page_written = {PAGES{1'b1}};

// bench controls
integer ready_prob;
integer aw_prob, w_prob, b_prob, ar_prob, r_prob;  // -1: ready_prob
reg [63:0] rd_err_lo, rd_err_hi;
reg [63:0] wr_err_lo, wr_err_hi;

// statistics
integer ar_count, aw_count, r_beats, w_beats, b_count;
integer rd_outstanding, rd_outstanding_max;
integer wr_outstanding, wr_outstanding_max;
integer max_arlen, max_awlen;
integer rd_errors, wr_errors;
integer stats_clear_req, stats_clear_ack;

integer seed;
`include "bench_random.vh"
reg [63:0] cycle;

// accepted AWs waiting for (or receiving) their W beats
reg [63:0]         awq_addr [0:MAX_WRITES-1];
reg [7:0]          awq_len  [0:MAX_WRITES-1];
reg [2:0]          awq_size [0:MAX_WRITES-1];
reg [ID_WIDTH-1:0] awq_id   [0:MAX_WRITES-1];
reg [1:0]          awq_resp [0:MAX_WRITES-1];
integer awq_head, awq_count;
integer w_beat;  // beat index inside the burst at the head of awq

// finished write bursts waiting for their B
reg [ID_WIDTH-1:0] bq_id   [0:MAX_WRITES-1];
reg [1:0]          bq_resp [0:MAX_WRITES-1];
reg [63:0]         bq_time [0:MAX_WRITES-1];
integer bq_head, bq_count;

// accepted ARs, answered in order
reg [63:0]         arq_addr [0:MAX_READS-1];
reg [7:0]          arq_len  [0:MAX_READS-1];
reg [2:0]          arq_size [0:MAX_READS-1];
reg [ID_WIDTH-1:0] arq_id   [0:MAX_READS-1];
reg [63:0]         arq_time [0:MAX_READS-1];
integer arq_head, arq_count;
integer r_beat;  // beat index inside the burst at the head of arq

// previous cycle's handshake signals, for the stability checks
reg                  prev_awvalid, prev_awready, prev_wvalid, prev_wready, prev_arvalid, prev_arready;
reg [ID_WIDTH-1:0]   prev_awid, prev_arid;
reg [ADDR_WIDTH-1:0] prev_awaddr, prev_araddr;
reg [7:0]            prev_awlen, prev_arlen;
reg [2:0]            prev_awsize, prev_arsize;
reg [1:0]            prev_awburst, prev_arburst;
reg [DATA_WIDTH-1:0] prev_wdata;
reg [BYTES-1:0]      prev_wstrb;
reg                  prev_wlast;

// ------------------------------------------------------- bench interface

// Read one byte of the backing memory (X outside it).
function [7:0] mem_read_byte;
    input [63:0] addr;
    begin
        if (addr < MEM_BYTES) begin
            mem_read_byte = mem[addr];
        end else begin
            mem_read_byte = 8'hxx;
        end
    end
endfunction

// Write one byte of the backing memory (ignored outside it).
task mem_write_byte;
    input [63:0] addr;
    input [7:0] data;
    begin
        if (addr < MEM_BYTES) begin
            mem[addr] = data;
            page_written[addr >> 12] = 1'b1;
        end
    end
endtask

// Fill len bytes from addr with value.
task mem_fill;
    input [63:0] addr;
    input [63:0] len;
    input [7:0] value;
    reg [63:0] i;
    begin
        for (i = 0; i < len; i = i + 1) begin
            mem_write_byte(addr + i, value);
        end
    end
endtask

// Set the percentage of cycles each ready/valid is offered (clamped 1..100).
task set_ready_prob;
    input integer prob;
    begin
        ready_prob = prob < 1 ? 1 : (prob > 100 ? 100 : prob);
    end
endtask

// Per-channel probabilities (percent, 1..100) of offering awready, wready,
// bvalid, arready and rvalid; -1 for a channel: follow ready_prob.
task set_channel_probs;
    input integer aw;
    input integer w;
    input integer b;
    input integer ar;
    input integer r;
    begin
        aw_prob = aw;
        w_prob = w;
        b_prob = b;
        ar_prob = ar;
        r_prob = r;
    end
endtask

// Answer SLVERR for read beats overlapping [lo, hi).
task set_rd_error;
    input [63:0] lo;
    input [63:0] hi;
    begin
        rd_err_lo = lo;
        rd_err_hi = hi;
    end
endtask

// Answer SLVERR (and write nothing) for write bursts overlapping [lo, hi).
task set_wr_error;
    input [63:0] lo;
    input [63:0] hi;
    begin
        wr_err_lo = lo;
        wr_err_hi = hi;
    end
endtask

// No more injected errors.
task clear_errors;
    begin
        rd_err_lo = 64'd0;
        rd_err_hi = 64'd0;
        wr_err_lo = 64'd0;
        wr_err_hi = 64'd0;
    end
endtask

// Zero the statistics at the next clock edge.
task clear_stats;
    begin
        stats_clear_req = stats_clear_req + 1;
    end
endtask

// ------------------------------------------------------------ internals

// ok = 1 with probability prob percent (ready_prob when prob < 0)
task roll;
    input integer prob;
    output ok;
    integer p, r;
    begin
        p = prob < 0 ? ready_prob : (prob < 1 ? 1 : prob);
        if (p >= 100) begin
            ok = 1'b1;
        end else begin
            r = bench_random(0);
            ok = ($unsigned(r) % 100) < p;
        end
    end
endtask

// first byte after an INCR burst (start address aligned down to the size)
function [63:0] burst_end;
    input [63:0] addr;
    input [7:0] len;
    input [2:0] size;
    reg [63:0] aligned;
    begin
        aligned = (addr >> size) << size;
        burst_end = aligned + ((64'd1 + len) << size);
    end
endfunction

// response for bytes [addr, end_addr) against memory and an error range
function [1:0] burst_resp;
    input [63:0] addr;
    input [63:0] end_addr;
    input [63:0] err_lo;
    input [63:0] err_hi;
    begin
        if (end_addr > MEM_BYTES || end_addr <= addr) begin
            burst_resp = RESP_DECERR;
        end else if (err_lo < err_hi && addr < err_hi && end_addr > err_lo) begin
            burst_resp = RESP_SLVERR;
        end else begin
            burst_resp = RESP_OKAY;
        end
    end
endfunction

// address of beat n of an INCR burst
function [63:0] beat_addr;
    input [63:0] addr;
    input [2:0] size;
    input integer n;
    begin
        if (n == 0) begin
            beat_addr = addr;
        end else begin
            beat_addr = ((addr >> size) << size) + (n << size);
        end
    end
endfunction

task check_burst;
    input [255:0] chan;
    input [63:0] addr;
    input [7:0] len;
    input [2:0] size;
    input [1:0] burst;
    reg [63:0] last;
    begin
        if (burst != 2'b01) begin
            $fatal(1, "axi_ram_model %m: %0s burst type %0d at 0x%0h not supported (INCR only)", chan, burst, addr);
        end
        if (size > BUS_SIZE) begin
            $fatal(1, "axi_ram_model %m: %0s size %0d wider than the %0d-bit bus at 0x%0h", chan, size, DATA_WIDTH, addr);
        end
        last = burst_end(addr, len, size) - 64'd1;
        if ((addr >> 12) != (last >> 12)) begin
            $fatal(1, "axi_ram_model %m: %0s burst 0x%0h len %0d size %0d crosses a 4 KiB boundary", chan, addr, len, size);
        end
    end
endtask

initial begin
    if (!$value$plusargs("seed=%d", seed)) begin
        seed = 1;
    end
    seed = seed * 7919 + SEED_SALT * 104729 + 17;
    ready_prob = READY_PROB < 1 ? 1 : (READY_PROB > 100 ? 100 : READY_PROB);
    aw_prob = -1;
    w_prob = -1;
    b_prob = -1;
    ar_prob = -1;
    r_prob = -1;
    rd_err_lo = 64'd0;
    rd_err_hi = 64'd0;
    wr_err_lo = 64'd0;
    wr_err_hi = 64'd0;
    stats_clear_req = 0;
    stats_clear_ack = 0;
    ar_count = 0;
    aw_count = 0;
    r_beats = 0;
    w_beats = 0;
    b_count = 0;
    rd_outstanding = 0;
    rd_outstanding_max = 0;
    wr_outstanding = 0;
    wr_outstanding_max = 0;
    max_arlen = 0;
    max_awlen = 0;
    rd_errors = 0;
    wr_errors = 0;
    cycle = 64'd0;
    awq_head = 0;
    awq_count = 0;
    w_beat = 0;
    bq_head = 0;
    bq_count = 0;
    arq_head = 0;
    arq_count = 0;
    r_beat = 0;
    s_axi_awready = 1'b0;
    s_axi_wready = 1'b0;
    s_axi_bid = {ID_WIDTH{1'b0}};
    s_axi_bresp = 2'd0;
    s_axi_bvalid = 1'b0;
    s_axi_arready = 1'b0;
    s_axi_rid = {ID_WIDTH{1'b0}};
    s_axi_rdata = {DATA_WIDTH{1'b0}};
    s_axi_rresp = 2'd0;
    s_axi_rlast = 1'b0;
    s_axi_rvalid = 1'b0;
    prev_awvalid = 1'b0;
    prev_awready = 1'b0;
    prev_wvalid = 1'b0;
    prev_wready = 1'b0;
    prev_arvalid = 1'b0;
    prev_arready = 1'b0;
end

// One process does everything, in a fixed order, so the model behaves the same
// in every simulator. Handshakes are sampled with the values before the edge;
// outputs are updated with non-blocking assignments.
integer i, idx, lane;
reg ok;
reg aw_hs, w_hs, b_hs, ar_hs, r_hs;
reg [63:0] a, e;
reg [1:0] resp;
reg [BYTES-1:0] lanes;
reg [BYTES:0] lanes_w;
integer lane_lo, lane_hi;
reg [DATA_WIDTH-1:0] data;

always @(posedge clk) begin
    cycle = cycle + 64'd1;
    if (stats_clear_req != stats_clear_ack) begin
        stats_clear_ack = stats_clear_req;
        ar_count = 0;
        aw_count = 0;
        r_beats = 0;
        w_beats = 0;
        b_count = 0;
        rd_outstanding_max = rd_outstanding;
        wr_outstanding_max = wr_outstanding;
        max_arlen = 0;
        max_awlen = 0;
        rd_errors = 0;
        wr_errors = 0;
    end

    if (rst) begin
        awq_head = 0;
        awq_count = 0;
        w_beat = 0;
        bq_head = 0;
        bq_count = 0;
        arq_head = 0;
        arq_count = 0;
        r_beat = 0;
        rd_outstanding = 0;
        wr_outstanding = 0;
        s_axi_awready <= 1'b0;
        s_axi_wready <= 1'b0;
        s_axi_bvalid <= 1'b0;
        s_axi_arready <= 1'b0;
        s_axi_rvalid <= 1'b0;
        s_axi_rlast <= 1'b0;
        prev_awvalid = 1'b0;
        prev_wvalid = 1'b0;
        prev_arvalid = 1'b0;
    end else begin
        // ---------------------------------------------------- checks
        if ((^{s_axi_awvalid, s_axi_wvalid, s_axi_arvalid, s_axi_bready, s_axi_rready}) === 1'bx) begin
            $fatal(1, "axi_ram_model %m: X on a valid/ready input (awvalid %b wvalid %b arvalid %b bready %b rready %b)",
                s_axi_awvalid, s_axi_wvalid, s_axi_arvalid, s_axi_bready, s_axi_rready);
        end
        if (s_axi_awvalid && (^{s_axi_awid, s_axi_awaddr, s_axi_awlen, s_axi_awsize, s_axi_awburst}) === 1'bx) begin
            $fatal(1, "axi_ram_model %m: X on AW while awvalid");
        end
        if (s_axi_arvalid && (^{s_axi_arid, s_axi_araddr, s_axi_arlen, s_axi_arsize, s_axi_arburst}) === 1'bx) begin
            $fatal(1, "axi_ram_model %m: X on AR while arvalid");
        end
        if (s_axi_wvalid && (^{s_axi_wstrb, s_axi_wlast}) === 1'bx) begin
            $fatal(1, "axi_ram_model %m: X on wstrb/wlast while wvalid");
        end
        if (prev_awvalid && !prev_awready) begin
            if (!s_axi_awvalid) begin
                $fatal(1, "axi_ram_model %m: awvalid dropped before awready (awaddr 0x%0h)", prev_awaddr);
            end
            if (s_axi_awid != prev_awid || s_axi_awaddr != prev_awaddr || s_axi_awlen != prev_awlen
                    || s_axi_awsize != prev_awsize || s_axi_awburst != prev_awburst) begin
                $fatal(1, "axi_ram_model %m: AW changed while waiting for awready (0x%0h -> 0x%0h)", prev_awaddr, s_axi_awaddr);
            end
        end
        if (prev_wvalid && !prev_wready) begin
            if (!s_axi_wvalid) begin
                $fatal(1, "axi_ram_model %m: wvalid dropped before wready");
            end
            if (s_axi_wdata !== prev_wdata || s_axi_wstrb != prev_wstrb || s_axi_wlast != prev_wlast) begin
                $fatal(1, "axi_ram_model %m: W changed while waiting for wready");
            end
        end
        if (prev_arvalid && !prev_arready) begin
            if (!s_axi_arvalid) begin
                $fatal(1, "axi_ram_model %m: arvalid dropped before arready (araddr 0x%0h)", prev_araddr);
            end
            if (s_axi_arid != prev_arid || s_axi_araddr != prev_araddr || s_axi_arlen != prev_arlen
                    || s_axi_arsize != prev_arsize || s_axi_arburst != prev_arburst) begin
                $fatal(1, "axi_ram_model %m: AR changed while waiting for arready (0x%0h -> 0x%0h)", prev_araddr, s_axi_araddr);
            end
        end

        aw_hs = s_axi_awvalid && s_axi_awready;
        w_hs = s_axi_wvalid && s_axi_wready;
        b_hs = s_axi_bvalid && s_axi_bready;
        ar_hs = s_axi_arvalid && s_axi_arready;
        r_hs = s_axi_rvalid && s_axi_rready;

        // ---------------------------------------------------- write address
        if (aw_hs) begin
            a = s_axi_awaddr;
            check_burst("AW", a, s_axi_awlen, s_axi_awsize, s_axi_awburst);
            idx = (awq_head + awq_count) % MAX_WRITES;
            awq_addr[idx] = a;
            awq_len[idx] = s_axi_awlen;
            awq_size[idx] = s_axi_awsize;
            awq_id[idx] = s_axi_awid;
            awq_resp[idx] = burst_resp(a, burst_end(a, s_axi_awlen, s_axi_awsize), wr_err_lo, wr_err_hi);
            awq_count = awq_count + 1;
            aw_count = aw_count + 1;
            wr_outstanding = wr_outstanding + 1;
            if (wr_outstanding > wr_outstanding_max) begin
                wr_outstanding_max = wr_outstanding;
            end
            if (s_axi_awlen > max_awlen) begin
                max_awlen = s_axi_awlen;
            end
        end

        // ---------------------------------------------------- write data
        if (w_hs) begin
            // wready is only offered while an AW is queued, so there is one
            idx = awq_head;
            if (s_axi_wlast != (w_beat == awq_len[idx])) begin
                $fatal(1, "axi_ram_model %m: wlast %b on beat %0d of a burst with awlen %0d (awaddr 0x%0h)",
                    s_axi_wlast, w_beat, awq_len[idx], awq_addr[idx]);
            end
            a = beat_addr(awq_addr[idx], awq_size[idx], w_beat);
            // lanes this beat may use: from its address to the end of its
            // size-aligned container
            e = ((a >> awq_size[idx]) << awq_size[idx]) + (64'd1 << awq_size[idx]);
            lane_lo = a - ((a >> BUS_SIZE) << BUS_SIZE);
            lane_hi = e - ((a >> BUS_SIZE) << BUS_SIZE);
            lanes_w = (({{BYTES{1'b0}}, 1'b1} << lane_hi) - 1) & ~(({{BYTES{1'b0}}, 1'b1} << lane_lo) - 1);
            lanes = lanes_w[BYTES-1:0];
            if ((s_axi_wstrb & ~lanes) != {BYTES{1'b0}}) begin
                $fatal(1, "axi_ram_model %m: wstrb 0x%0h has lanes outside beat address 0x%0h size %0d",
                    s_axi_wstrb, a, awq_size[idx]);
            end
            if (awq_resp[idx] == RESP_OKAY) begin
                for (lane = 0; lane < BYTES; lane = lane + 1) begin
                    if (s_axi_wstrb[lane]) begin
                        mem[((a >> BUS_SIZE) << BUS_SIZE) + lane] = s_axi_wdata[lane*8 +: 8];
                        page_written[(((a >> BUS_SIZE) << BUS_SIZE) + lane) >> 12] = 1'b1;
                    end
                end
            end
            w_beats = w_beats + 1;
            if (s_axi_wlast) begin
                i = (bq_head + bq_count) % MAX_WRITES;
                bq_id[i] = awq_id[idx];
                bq_resp[i] = awq_resp[idx];
                bq_time[i] = cycle + WRITE_LATENCY - 1;
                bq_count = bq_count + 1;
                awq_head = (awq_head + 1) % MAX_WRITES;
                awq_count = awq_count - 1;
                w_beat = 0;
            end else begin
                w_beat = w_beat + 1;
            end
        end

        // ---------------------------------------------------- write response
        if (b_hs) begin
            bq_head = (bq_head + 1) % MAX_WRITES;
            bq_count = bq_count - 1;
            b_count = b_count + 1;
            wr_outstanding = wr_outstanding - 1;
            if (s_axi_bresp != RESP_OKAY) begin
                wr_errors = wr_errors + 1;
            end
        end

        // ---------------------------------------------------- read address
        if (ar_hs) begin
            a = s_axi_araddr;
            check_burst("AR", a, s_axi_arlen, s_axi_arsize, s_axi_arburst);
            idx = (arq_head + arq_count) % MAX_READS;
            arq_addr[idx] = a;
            arq_len[idx] = s_axi_arlen;
            arq_size[idx] = s_axi_arsize;
            arq_id[idx] = s_axi_arid;
            arq_time[idx] = cycle + READ_LATENCY - 1;
            arq_count = arq_count + 1;
            ar_count = ar_count + 1;
            rd_outstanding = rd_outstanding + 1;
            if (rd_outstanding > rd_outstanding_max) begin
                rd_outstanding_max = rd_outstanding;
            end
            if (s_axi_arlen > max_arlen) begin
                max_arlen = s_axi_arlen;
            end
        end

        // ---------------------------------------------------- read data
        if (r_hs) begin
            r_beats = r_beats + 1;
            if (s_axi_rresp != RESP_OKAY) begin
                rd_errors = rd_errors + 1;
            end
            if (s_axi_rlast) begin
                arq_head = (arq_head + 1) % MAX_READS;
                arq_count = arq_count - 1;
                r_beat = 0;
                rd_outstanding = rd_outstanding - 1;
            end else begin
                r_beat = r_beat + 1;
            end
        end

        // ---------------------------------------------------- next outputs
        roll(aw_prob, ok);
        s_axi_awready <= ok && awq_count + bq_count < MAX_WRITES;
        roll(w_prob, ok);
        s_axi_wready <= ok && awq_count > 0;
        roll(ar_prob, ok);
        s_axi_arready <= ok && arq_count < MAX_READS;

        if (!(s_axi_bvalid && !b_hs)) begin
            roll(b_prob, ok);
            if (bq_count > 0 && cycle >= bq_time[bq_head] && ok) begin
                s_axi_bvalid <= 1'b1;
                s_axi_bid <= bq_id[bq_head];
                s_axi_bresp <= bq_resp[bq_head];
            end else begin
                s_axi_bvalid <= 1'b0;
            end
        end

        if (!(s_axi_rvalid && !r_hs)) begin
            roll(r_prob, ok);
            idx = arq_head;
            if (arq_count > 0 && cycle >= arq_time[idx] && ok) begin
                a = beat_addr(arq_addr[idx], arq_size[idx], r_beat);
                e = ((a >> arq_size[idx]) << arq_size[idx]) + (64'd1 << arq_size[idx]);
                resp = burst_resp(a, e, rd_err_lo, rd_err_hi);
                a = (a >> BUS_SIZE) << BUS_SIZE;
                data = {DATA_WIDTH{1'b0}};
                if (resp == RESP_OKAY) begin
                    for (lane = 0; lane < BYTES; lane = lane + 1) begin
                        data[lane*8 +: 8] = mem[a + lane];
                    end
                end
                s_axi_rvalid <= 1'b1;
                s_axi_rid <= arq_id[idx];
                s_axi_rdata <= data;
                s_axi_rresp <= resp;
                s_axi_rlast <= r_beat == arq_len[idx];
            end else begin
                s_axi_rvalid <= 1'b0;
            end
        end

        prev_awvalid = s_axi_awvalid;
        prev_awready = s_axi_awready;
        prev_awid = s_axi_awid;
        prev_awaddr = s_axi_awaddr;
        prev_awlen = s_axi_awlen;
        prev_awsize = s_axi_awsize;
        prev_awburst = s_axi_awburst;
        prev_wvalid = s_axi_wvalid;
        prev_wready = s_axi_wready;
        prev_wdata = s_axi_wdata;
        prev_wstrb = s_axi_wstrb;
        prev_wlast = s_axi_wlast;
        prev_arvalid = s_axi_arvalid;
        prev_arready = s_axi_arready;
        prev_arid = s_axi_arid;
        prev_araddr = s_axi_araddr;
        prev_arlen = s_axi_arlen;
        prev_arsize = s_axi_arsize;
        prev_arburst = s_axi_arburst;
    end
end

endmodule
