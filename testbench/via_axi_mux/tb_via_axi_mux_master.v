// tb_via_axi_mux_master: one behavioural AXI4 master of the via_axi_mux
// bench (not synthesizable). It follows docs/vi.md rules (a) and (b): it
// takes every R beat (random short rready gaps) and has every W beat of a
// burst ready when it presents the AW (random wvalid gaps, which depend on
// nothing outside it).
//
// Reads: N_READS random INCR bursts (1..16 beats, never crossing 4 KiB) of
// the read-only area [0, RO_BYTES), filled by the environment with
// pattern(addr); every beat taken is checked: RID == ID, RRESP OKAY, data
// of every lane == pattern of its address, RLAST on the burst's last beat
// only, bursts in issue order, no beat without an outstanding burst.
// Writes: N_WRITES random bursts with random data and strobes into its own
// region [WR_BASE, WR_BASE + WR_BYTES), applied to a shadow copy at issue;
// every B checked (BID == ID, OKAY, one per AW). After its last B, it reads
// the whole region back and checks it against the shadow (so a W beat taken
// from the wrong port, out of order, lost or duplicated shows up).
// Checked every cycle: its own busy flag from the muxes equals "valid
// presented or bursts accepted and not complete"; fairness: no request
// waits for more than PORTS-1 grants to other ports.
// +short (make test's run in Icarus): a third of the reads and of the
// writes (at least one each); the read-back and every check stay.

`timescale 1ns / 1ps

module tb_via_axi_mux_master #(
    parameter PORT       = 0,
    parameter PORTS      = 2,
    parameter DATA_WIDTH = 64,
    parameter ADDR_WIDTH = 48,
    parameter ID_WIDTH   = 4,
    parameter [ID_WIDTH-1:0] ID = 0,
    parameter RO_BYTES   = 8192,
    parameter WR_BASE    = 8192,
    parameter WR_BYTES   = 1024,
    parameter N_READS    = 100,
    parameter N_WRITES   = 100,
    parameter MAX_OUT    = 4,     // bursts outstanding per direction
    parameter VALID_PROB = 60,    // percent: chance to start a request / offer a beat
    parameter READY_PROB = 85,    // percent: rready / bready
    parameter SALT       = 0
) (
    input  wire                    clk,
    input  wire                    rst,

    output reg  [ID_WIDTH-1:0]     arid,
    output reg  [ADDR_WIDTH-1:0]   araddr,
    output reg  [7:0]              arlen,
    output wire [2:0]              arsize,
    output wire [1:0]              arburst,
    output reg                     arvalid,
    input  wire                    arready,
    input  wire [ID_WIDTH-1:0]     rid,
    input  wire [DATA_WIDTH-1:0]   rdata,
    input  wire [1:0]              rresp,
    input  wire                    rlast,
    input  wire                    rvalid,
    output reg                     rready,
    input  wire                    rd_busy,
    input  wire                    ar_grant,   // the mux's AR handshake (any port)

    output reg  [ID_WIDTH-1:0]     awid,
    output reg  [ADDR_WIDTH-1:0]   awaddr,
    output reg  [7:0]              awlen,
    output wire [2:0]              awsize,
    output wire [1:0]              awburst,
    output reg                     awvalid,
    input  wire                    awready,
    output reg  [DATA_WIDTH-1:0]   wdata,
    output reg  [DATA_WIDTH/8-1:0] wstrb,
    output reg                     wlast,
    output reg                     wvalid,
    input  wire                    wready,
    input  wire [ID_WIDTH-1:0]     bid,
    input  wire [1:0]              bresp,
    input  wire                    bvalid,
    output reg                     bready,
    input  wire                    wr_busy,
    input  wire                    aw_grant,   // the mux's AW handshake (any port)

    output reg                     done
);

localparam BYTES = DATA_WIDTH / 8;
localparam SIZE = (BYTES == 1) ? 0 : (BYTES == 2) ? 1 : (BYTES == 4) ? 2 : (BYTES == 8) ? 3 :
                  (BYTES == 16) ? 4 : (BYTES == 32) ? 5 : (BYTES == 64) ? 6 : 7;
localparam QN = 16;  // queue slots (> MAX_OUT)

assign arsize = SIZE;
assign awsize = SIZE;
assign arburst = 2'b01;
assign awburst = 2'b01;

integer seed;
`include "bench_random.vh"

function [7:0] pattern;
    input [63:0] a;
    reg [63:0] x;
    begin
        x = a * 64'd37 + (a >> 8) * 64'd11 + 64'h5a;
        pattern = x[7:0];
    end
endfunction

function integer rnd;  // 0..n-1
    input integer n;
    reg [31:0] r;
    begin
        r = bench_random(0);
        rnd = (r >> 4) % n;
    end
endfunction

`define MFAIL(msg) begin $display("FAIL %m port %0d: %s (t=%0t)", PORT, msg, $time); $fatal(1, "tb_via_axi_mux_master: check failed"); end

reg [7:0] shadow [0:WR_BYTES-1];

// expected read bursts (presented or accepted), in order
reg [63:0] rq_addr [0:QN-1];
reg [7:0]  rq_len  [0:QN-1];
reg        rq_wr   [0:QN-1];   // 1: a read-back of the write region
integer rq_head, rq_count, r_beat, rd_out;
integer rd_started, rd_checked, rb_started, rb_next;
// write bursts (presented or accepted) whose W is not through
reg [DATA_WIDTH-1:0] wq_data [0:QN*16-1];
reg [BYTES-1:0]      wq_strb [0:QN*16-1];
reg [7:0]            wq_len  [0:QN-1];
integer wq_head, wq_count, w_beat, wr_out, wr_started, b_count;
integer ar_wait, aw_wait;
integer rb_bursts;
integer n_reads, n_writes;   // N_READS, N_WRITES (+short: a third)
reg [63:0] beat_addr;

integer i, j, n, len, slot;
reg [63:0] a;
reg [DATA_WIDTH-1:0] d;
reg [BYTES-1:0] s;
reg [7:0] exp_byte;

initial begin
    seed = 1;
    if (!$value$plusargs("seed=%d", seed)) seed = 1;
    seed = seed * 7919 + SALT * 104729 + PORT * 1299709 + 17;
    n_reads = $test$plusargs("short") ? (N_READS + 2) / 3 : N_READS;
    n_writes = $test$plusargs("short") ? (N_WRITES + 2) / 3 : N_WRITES;
    for (i = 0; i < WR_BYTES; i = i + 1) shadow[i] = 8'h00;
end

always @(posedge clk) begin
    if (rst) begin
        arvalid <= 1'b0; rready <= 1'b0; awvalid <= 1'b0; wvalid <= 1'b0; bready <= 1'b0;
        arid <= ID; awid <= ID; araddr <= 0; arlen <= 0; awaddr <= 0; awlen <= 0;
        wdata <= 0; wstrb <= 0; wlast <= 1'b0;
        done <= 1'b0;
        rq_head = 0; rq_count = 0; r_beat = 0; rd_out = 0; rd_started = 0; rd_checked = 0;
        rb_started = 0; rb_next = 0;
        wq_head = 0; wq_count = 0; w_beat = 0; wr_out = 0; wr_started = 0; b_count = 0;
        ar_wait = 0; aw_wait = 0;
        rb_bursts = WR_BYTES / (16 * BYTES) + ((WR_BYTES % (16 * BYTES)) != 0);
    end else begin
        // ---- busy (values before this edge)
        if (rd_busy !== (arvalid || rd_out != 0)) `MFAIL("read busy wrong")
        if (wr_busy !== (awvalid || wr_out != 0)) `MFAIL("write busy wrong")

        // ---- AR handshake, fairness
        if (arvalid && arready) begin
            rd_out = rd_out + 1;
            ar_wait = 0;
        end else if (arvalid && ar_grant) begin
            ar_wait = ar_wait + 1;
            if (ar_wait > PORTS - 1) `MFAIL("AR waited for more than PORTS-1 grants")
        end
        if (awvalid && awready) begin
            wr_out = wr_out + 1;
            aw_wait = 0;
        end else if (awvalid && aw_grant) begin
            aw_wait = aw_wait + 1;
            if (aw_wait > PORTS - 1) `MFAIL("AW waited for more than PORTS-1 grants")
        end
        if (arvalid && arready) arvalid <= 1'b0;
        if (awvalid && awready) awvalid <= 1'b0;

        // ---- R beat
        if (rvalid && rready) begin
            if (rid !== ID) `MFAIL("R beat with another port's ID")
            if (rresp !== 2'b00) `MFAIL("R beat not OKAY")
            if (rq_count == 0 || rd_out == 0) `MFAIL("R beat with no burst outstanding")
            beat_addr = rq_addr[rq_head] + r_beat * BYTES;
            for (j = 0; j < BYTES; j = j + 1) begin
                if (rq_wr[rq_head]) exp_byte = shadow[beat_addr + j - WR_BASE];
                else exp_byte = pattern(beat_addr + j);
                if (rdata[8*j +: 8] !== exp_byte) begin
                    $display("FAIL port %0d: addr %0h got %02h expected %02h", PORT, beat_addr + j, rdata[8*j +: 8], exp_byte);
                    `MFAIL("R data wrong")
                end
            end
            if (rlast !== (r_beat == rq_len[rq_head])) `MFAIL("RLAST wrong")
            if (r_beat == rq_len[rq_head]) begin
                if (rq_wr[rq_head]) rb_started = rb_started; else rd_checked = rd_checked + 1;
                rq_head = (rq_head + 1) % QN;
                rq_count = rq_count - 1;
                r_beat = 0;
                rd_out = rd_out - 1;
            end else begin
                r_beat = r_beat + 1;
            end
        end
        if (rvalid && !rready && rid === ID && rq_count == 0) `MFAIL("R valid with no burst outstanding")

        // ---- W beat
        if (wvalid && wready) begin
            if (wq_count == 0) `MFAIL("W handshake with nothing queued")
            if (w_beat == wq_len[wq_head]) begin
                wq_head = (wq_head + 1) % QN;
                wq_count = wq_count - 1;
                w_beat = 0;
            end else begin
                w_beat = w_beat + 1;
            end
            wvalid <= 1'b0;
        end

        // ---- B
        if (bvalid && bready) begin
            if (bid !== ID) `MFAIL("B with another port's ID")
            if (bresp !== 2'b00) `MFAIL("B not OKAY")
            if (wr_out == 0) `MFAIL("B with no write outstanding")
            wr_out = wr_out - 1;
            b_count = b_count + 1;
        end
        rready <= rnd(100) < READY_PROB;
        bready <= rnd(100) < READY_PROB;

        // ---- new AR: random reads, then the read-back of the write region
        if (!(arvalid && !arready) && rq_count < MAX_OUT && rnd(100) < VALID_PROB) begin
            if (rd_started < n_reads) begin
                len = 1 + rnd(16);
                a = rnd(RO_BYTES / BYTES - len + 1) * BYTES;
                // never cross 4 KiB
                if ((a >> 12) != ((a + len * BYTES - 1) >> 12)) len = (4096 - (a % 4096)) / BYTES;
                slot = (rq_head + rq_count) % QN;
                rq_addr[slot] = a; rq_len[slot] = len - 1; rq_wr[slot] = 1'b0;
                rq_count = rq_count + 1;
                rd_started = rd_started + 1;
                araddr <= a; arlen <= len - 1; arvalid <= 1'b1;
            end else if (b_count == n_writes && wr_started == n_writes && rb_next < rb_bursts) begin
                a = WR_BASE + rb_next * 16 * BYTES;
                len = (WR_BYTES - rb_next * 16 * BYTES) / BYTES;
                if (len > 16) len = 16;
                slot = (rq_head + rq_count) % QN;
                rq_addr[slot] = a; rq_len[slot] = len - 1; rq_wr[slot] = 1'b1;
                rq_count = rq_count + 1;
                rb_next = rb_next + 1;
                araddr <= a; arlen <= len - 1; arvalid <= 1'b1;
            end
        end

        // ---- new AW: the data is generated (and applied to the shadow) now
        if (!(awvalid && !awready) && wq_count < MAX_OUT && wr_started < n_writes && rnd(100) < VALID_PROB) begin
            len = 1 + rnd(16);
            if (len * BYTES > WR_BYTES) len = WR_BYTES / BYTES;
            a = rnd(WR_BYTES / BYTES - len + 1) * BYTES;
            slot = (wq_head + wq_count) % QN;
            wq_len[slot] = len - 1;
            for (n = 0; n < len; n = n + 1) begin
                for (j = 0; j < BYTES; j = j + 1) begin
                    d[8*j +: 8] = rnd(256);
                    s[j] = rnd(4) != 0;
                    if (s[j]) shadow[a + n * BYTES + j] = d[8*j +: 8];
                end
                wq_data[slot * 16 + n] = d;
                wq_strb[slot * 16 + n] = s;
            end
            wq_count = wq_count + 1;
            wr_started = wr_started + 1;
            awaddr <= WR_BASE + a; awlen <= len - 1; awvalid <= 1'b1;
        end

        // ---- offer the next W beat (possibly before its AW is accepted)
        if (!(wvalid && !wready) && wq_count > 0 && rnd(100) < VALID_PROB) begin
            wdata <= wq_data[wq_head * 16 + w_beat];
            wstrb <= wq_strb[wq_head * 16 + w_beat];
            wlast <= w_beat == wq_len[wq_head];
            wvalid <= 1'b1;
        end

        if (rd_started == n_reads && rd_checked == n_reads && rb_next == rb_bursts && rq_count == 0 &&
            b_count == n_writes && !arvalid && !awvalid) begin
            done <= 1'b1;
        end
    end
end

endmodule
