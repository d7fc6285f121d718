// tb_fabric_env: one switch configuration of the via_fabric bench
// (tb_via_fabric.v instantiates two; docs/fabric.md).
//
// P nodes. Node n is a frame generator and a sink on the AXI-Stream
// ports of its own via_link_port; every link symbol (beats both ways, credits
// both ways) crosses a tb_fabric_delay of L cycles between the link port and
// the switch. L is 25 (the reference quantum) for most phases, then 1.
//
// Frames: the first beat is the header of docs/fabric.md (dst, src, dst_vi,
// src_vi = the frame's sequence number on its (src, dst) pair, kind,
// flags = the frame's length in beats); every other beat is a function of
// (src, dst, seq, length, beat), so the sink recomputes every beat and knows
// the length. Sinks log every frame (source, seq, length, beats that differ
// and how, arrival cycle); in strict phases they also check that each frame
// is intact and the next of its pair in sequence (exactly once, in order).
//
// Phases:
//   1. L=25, random traffic: every node sends random-length frames (1..200
//      beats) to random nodes, with random gaps; sinks take beats with
//      random back-pressure. Everything arrives; the switch's FRAMES_IN and
//      FRAMES_OUT counters equal the frames sent and received.
//   2. hot spot: all nodes send long frames to node 0, whose sink never
//      stalls; the beats per cycle at output 0 is printed and checked
//      against [HS_MIN, HS_MAX] per mille (close to 1.0 with CREDITS 64 and
//      L 25 at line rate); then node 1 alone sends to node 0: [SS_MIN,
//      SS_MAX] (the link port's bandwidth limit shows here).
//   3. a stalled sink: node 1 takes nothing for 4000 cycles while the others
//      send to it; nothing arrives, the senders are back-pressured (their
//      generators stop, their link ports hold no credit), then node 1 takes
//      everything: no loss.
//   4. bad dst_node: dropped whole, DROPPED counts it, the frames around it
//      arrive.
//   5. fault rules, node 0 -> node 1: DROP every 3rd matching frame;
//      CORRUPT beat 2 (and beat 2 of a 2-beat frame = its last beat):
//      exactly the mask differs; DUPLICATE: twice; REORDER: the next frame
//      first, and alone the held frame leaves after its wait limit; DELAY:
//      arrives >= D cycles later than the same frame without the rule;
//      PROBABILITY drop with a seed: the same selection on two runs with the
//      same seed and equal to a model of the generator; MATCHED and ACTED.
//   6. L=1 after a reset: random traffic and the hot spot again.
// Throughout: a beat never reaches a full buffer (the credits hold), in
// the switch's input buffers or the link ports' receive buffers.
// done goes to 1 when every phase has passed; a failure is a $fatal.

`timescale 1ns / 1ps

module tb_fabric_env #(
    parameter P          = 4,    // nodes
    parameter IN_DEPTH   = 64,   // switch input buffers = link ports' CREDITS
    parameter RX_DEPTH   = 64,   // link ports' receive buffers = switch's CREDITS
    parameter OQ_DEPTH   = 512,
    parameter FAB_BW_NUM = 1,    // the switch's output limit
    parameter FAB_BW_DEN = 1,
    parameter LP_BW_NUM  = 1,    // the link ports' limit
    parameter LP_BW_DEN  = 1,
    parameter HS_MIN     = 950,  // hot spot beats per 1000 cycles at output 0
    parameter HS_MAX     = 1000,
    parameter SS_MIN     = 950,  // the same with one sender
    parameter SS_MAX     = 1000
) (
    output reg done
);

localparam HWIN       = (LP_BW_DEN > FAB_BW_DEN) ? LP_BW_DEN : FAB_BW_DEN;  // <= 64
localparam QN       = 512;    // frames queued per generator
localparam LN       = 4096;   // frames logged per sink

localparam [2:0] A_DROP = 3'd0, A_CORRUPT = 3'd1, A_DUP = 3'd2, A_REORDER = 3'd3, A_DELAY = 3'd4;

reg clk = 1'b0;
reg rst = 1'b1;
reg [5:0] lat = 6'd25;
always #5 clk = ~clk;

initial done = 1'b0;

integer cyc = 0;
always @(posedge clk) cyc <= cyc + 1;

// ------------------------------------------------------------------ wiring
reg  [64*P-1:0] s_tdata;
reg  [8*P-1:0]  s_tkeep;
reg  [P-1:0]    s_tvalid, s_tlast;
wire [P-1:0]    s_tready;
wire [64*P-1:0] m_tdata;
wire [8*P-1:0]  m_tkeep;
wire [P-1:0]    m_tvalid, m_tlast;
reg  [P-1:0]    m_tready;

wire [P-1:0]    f_in_valid, f_in_last, f_in_credit, f_out_valid, f_out_last, f_out_credit;
wire [64*P-1:0] f_in_data, f_out_data;
wire [8*P-1:0]  f_in_keep, f_out_keep;

reg         cfg_we = 1'b0;
reg  [7:0]  cfg_addr = 8'd0;
reg  [31:0] cfg_wdata = 32'd0;
wire [31:0] cfg_rdata;
wire        idle;

localparam [4:0] NPORTS = P;  // every port has a node

via_fabric #(
    .PORTS(P),
    .CREDITS(RX_DEPTH),
    .IN_DEPTH(IN_DEPTH),
    .OQ_DEPTH(OQ_DEPTH),
    .BW_NUM(FAB_BW_NUM),
    .BW_DEN(FAB_BW_DEN),
    .NRULES(4),
    // these frames carry their length in byte 7 (the flags byte): the
    // message hold has its own test (tb_fabric_msg)
    .MSG_HOLD(0)
) dut (
    .clk(clk),
    .rst(rst),
    .in_valid(f_in_valid),
    .in_data(f_in_data),
    .in_keep(f_in_keep),
    .in_last(f_in_last),
    .in_credit(f_in_credit),
    .out_valid(f_out_valid),
    .out_data(f_out_data),
    .out_keep(f_out_keep),
    .out_last(f_out_last),
    .out_credit(f_out_credit),
    .nports(NPORTS),
    .cfg_we(cfg_we),
    .cfg_addr(cfg_addr),
    .cfg_wdata(cfg_wdata),
    .cfg_rdata(cfg_rdata),
    .idle(idle)
);

wire [P-1:0] tx_active;

genvar gn;
generate
for (gn = 0; gn < P; gn = gn + 1) begin : g_node
    wire        tx_valid, tx_last, tx_credit, rx_valid, rx_last, rx_credit;
    wire [63:0] tx_data, rx_data;
    wire [7:0]  tx_keep, rx_keep;

    via_link_port #(
        .CREDITS(IN_DEPTH),
        .RX_DEPTH(RX_DEPTH),
        .BW_NUM(LP_BW_NUM),
        .BW_DEN(LP_BW_DEN)
    ) lp (
        .clk(clk),
        .rst(rst),
        .s_axis_tdata(s_tdata[64*gn +: 64]),
        .s_axis_tkeep(s_tkeep[8*gn +: 8]),
        .s_axis_tvalid(s_tvalid[gn]),
        .s_axis_tready(s_tready[gn]),
        .s_axis_tlast(s_tlast[gn]),
        .m_axis_tdata(m_tdata[64*gn +: 64]),
        .m_axis_tkeep(m_tkeep[8*gn +: 8]),
        .m_axis_tvalid(m_tvalid[gn]),
        .m_axis_tready(m_tready[gn]),
        .m_axis_tlast(m_tlast[gn]),
        .tx_valid(tx_valid),
        .tx_data(tx_data),
        .tx_keep(tx_keep),
        .tx_last(tx_last),
        .tx_credit(tx_credit),
        .rx_valid(rx_valid),
        .rx_data(rx_data),
        .rx_keep(rx_keep),
        .rx_last(rx_last),
        .rx_credit(rx_credit)
    );

    tb_fabric_delay #(.W(74)) d_up (
        .clk(clk), .rst(rst), .lat(lat),
        .d({tx_valid, tx_last, tx_keep, tx_data}),
        .q({f_in_valid[gn], f_in_last[gn], f_in_keep[8*gn +: 8], f_in_data[64*gn +: 64]})
    );
    tb_fabric_delay #(.W(1)) d_up_credit (
        .clk(clk), .rst(rst), .lat(lat), .d(rx_credit), .q(f_out_credit[gn])
    );
    tb_fabric_delay #(.W(74)) d_down (
        .clk(clk), .rst(rst), .lat(lat),
        .d({f_out_valid[gn], f_out_last[gn], f_out_keep[8*gn +: 8], f_out_data[64*gn +: 64]}),
        .q({rx_valid, rx_last, rx_keep, rx_data})
    );
    tb_fabric_delay #(.W(1)) d_down_credit (
        .clk(clk), .rst(rst), .lat(lat), .d(f_in_credit[gn]), .q(tx_credit)
    );

    assign tx_active[gn] = tx_valid;

    // the bandwidth limits: at most NUM beats in any DEN consecutive cycles,
    // on the link port's tx and on the switch's output
    reg [63:0] tx_hist = 64'd0, out_hist = 64'd0;
    integer hb, tx_win, out_win;
    always @(posedge clk) begin
        tx_hist = {tx_hist[62:0], tx_valid};
        out_hist = {out_hist[62:0], f_out_valid[gn]};
        tx_win = 0;
        out_win = 0;
        for (hb = 0; hb < HWIN; hb = hb + 1) begin
            if (hb < LP_BW_DEN && tx_hist[hb]) tx_win = tx_win + 1;
            if (hb < FAB_BW_DEN && out_hist[hb]) out_win = out_win + 1;
        end
        if (!rst && (tx_win > LP_BW_NUM || out_win > FAB_BW_NUM)) begin
            $fatal(1, "%m: node %0d: %0d beats sent in %0d cycles, %0d received in %0d cycles: over the limit",
                   gn, tx_win, LP_BW_DEN, out_win, FAB_BW_DEN);
        end
    end

    // the credits hold: no beat ever arrives at a full buffer
    always @(posedge clk) begin
        if (!rst && rx_valid && !lp.u_rx_buf.s_ready) begin
            $fatal(1, "%m: node %0d: a beat arrived at a full receive buffer", gn);
        end
        if (!rst && f_in_valid[gn] && !dut.g_in[gn].u_buf.s_ready) begin
            $fatal(1, "%m: switch input %0d: a beat arrived at a full input buffer", gn);
        end
    end
end
endgenerate

// ------------------------------------------------------------ frame content
function [63:0] beat_word;
    input [7:0]  src;
    input [7:0]  dst;
    input [15:0] seq;
    input [7:0]  len;
    input [15:0] vi;
    input [7:0]  kind;
    input [15:0] b;
    begin
        if (b == 16'd0) begin
            beat_word = {len, kind, seq, vi, src, dst};
        end else begin
            beat_word = {seq ^ 16'h5a5a, b, src, dst, len, kind ^ 8'hc3};
        end
    end
endfunction

function [7:0] last_keep;
    input [15:0] seq;
    input [7:0]  len;
    begin
        last_keep = (len == 8'd1) ? 8'hff : (8'hff >> seq[2:0]);
    end
endfunction

// the bench's random numbers (xorshift32: the same in every simulator)
reg [31:0] rng;
function [31:0] xs32;
    input [31:0] x;
    reg [31:0] y;
    begin
        y = x ^ (x << 13);
        y = y ^ (y >> 17);
        xs32 = y ^ (y << 5);
    end
endfunction
task rnd;
    output [31:0] v;
    begin
        rng = xs32(rng);
        v = rng;
    end
endtask

// --------------------------------------------------------------- generators
reg [7:0]  q_dst  [0:P*QN-1];
reg [7:0]  q_len  [0:P*QN-1];
reg [15:0] q_vi   [0:P*QN-1];
reg [7:0]  q_kind [0:P*QN-1];
reg [15:0] q_seq  [0:P*QN-1];
integer    q_head [0:P-1];
integer    q_tail [0:P-1];
integer    g_beat [0:P-1];
reg [15:0] pair_seq [0:P*256-1];   // next sequence number of (src, dst)
reg [P-1:0] gen_gaps;              // random gaps between beats
reg [31:0] g_rng [0:P-1];
integer    pushed_good;            // frames sent that must arrive
integer    last_seq;
integer    gn2, gi2;

task push_frame;
    input integer src;
    input integer dst;
    input integer len;
    input integer vi;
    input integer kind;
    integer idx;
    begin
        if (q_tail[src] - q_head[src] >= QN) begin
            $fatal(1, "%m: generator %0d queue overflow", src);
        end
        idx = src * QN + (q_tail[src] % QN);
        q_dst[idx] = dst;
        q_len[idx] = len;
        q_vi[idx] = vi;
        q_kind[idx] = kind;
        q_seq[idx] = pair_seq[src * 256 + dst];
        last_seq = pair_seq[src * 256 + dst];
        pair_seq[src * 256 + dst] = pair_seq[src * 256 + dst] + 16'd1;
        if (dst < P) begin
            pushed_good = pushed_good + 1;
        end
        q_tail[src] = q_tail[src] + 1;
    end
endtask

always @(posedge clk) begin : gen
    integer n, idx;
    reg fire;
    reg [31:0] r;
    if (rst) begin
        s_tvalid <= {P{1'b0}};
    end else begin
        for (n = 0; n < P; n = n + 1) begin
            fire = s_tvalid[n] && s_tready[n];
            if (fire) begin
                idx = n * QN + (q_head[n] % QN);
                if (g_beat[n] + 1 == q_len[idx]) begin
                    q_head[n] = q_head[n] + 1;
                    g_beat[n] = 0;
                end else begin
                    g_beat[n] = g_beat[n] + 1;
                end
            end
            if (!s_tvalid[n] || fire) begin
                g_rng[n] = xs32(g_rng[n]);
                r = g_rng[n];
                if (q_head[n] != q_tail[n] && !(gen_gaps[n] && r[2:0] == 3'd0)) begin
                    idx = n * QN + (q_head[n] % QN);
                    s_tvalid[n] <= 1'b1;
                    s_tdata[64*n +: 64] <= beat_word(n, q_dst[idx], q_seq[idx], q_len[idx], q_vi[idx], q_kind[idx], g_beat[n]);
                    s_tlast[n] <= g_beat[n] + 1 == q_len[idx];
                    s_tkeep[8*n +: 8] <= (g_beat[n] + 1 == q_len[idx]) ? last_keep(q_seq[idx], q_len[idx]) : 8'hff;
                end else begin
                    s_tvalid[n] <= 1'b0;
                end
            end
        end
    end
end

// -------------------------------------------------------------------- sinks
reg [1:0]  rdy_mode [0:P-1];       // 0 always ready, 1 random, 2 stalled
reg        strict;
reg [31:0] k_rng [0:P-1];
integer    k_beat [0:P-1];
reg [63:0] k_hdr [0:P-1];
integer    k_ndiff [0:P-1];
integer    k_diffbeat [0:P-1];
reg [63:0] k_diffval [0:P-1];
reg [15:0] exp_seq [0:P*256-1];    // next expected sequence number of (src, dst)
integer    rx_frames [0:P-1];
integer    rx_beats [0:P-1];
integer    received_good;
// the log
reg [7:0]  lg_src  [0:P*LN-1];
reg [15:0] lg_seq  [0:P*LN-1];
reg [7:0]  lg_kind [0:P*LN-1];
integer    lg_len  [0:P*LN-1];
integer    lg_ndiff [0:P*LN-1];
integer    lg_diffbeat [0:P*LN-1];
reg [63:0] lg_diffval [0:P*LN-1];
integer    lg_time [0:P*LN-1];
integer    lg_n [0:P-1];

always @(posedge clk) begin : sink
    integer n, j;
    reg [63:0] d, hdr, exp;
    reg [7:0] ekeep;
    reg [31:0] r;
    if (rst) begin
        m_tready <= {P{1'b0}};
    end else begin
        for (n = 0; n < P; n = n + 1) begin
            if (m_tvalid[n] && m_tready[n]) begin
                d = m_tdata[64*n +: 64];
                if (k_beat[n] == 0) begin
                    k_hdr[n] = d;
                    k_ndiff[n] = 0;
                    k_diffbeat[n] = -1;
                    k_diffval[n] = 64'd0;
                end
                hdr = k_hdr[n];
                exp = beat_word(hdr[15:8], hdr[7:0], hdr[47:32], hdr[63:56], hdr[31:16], hdr[55:48], k_beat[n]);
                if (d != exp) begin
                    k_ndiff[n] = k_ndiff[n] + 1;
                    k_diffbeat[n] = k_beat[n];
                    k_diffval[n] = d ^ exp;
                end
                ekeep = (k_beat[n] + 1 == hdr[63:56]) ? last_keep(hdr[47:32], hdr[63:56]) : 8'hff;
                if (m_tkeep[8*n +: 8] != ekeep || m_tlast[n] != (k_beat[n] + 1 == hdr[63:56])) begin
                    $fatal(1, "%m: node %0d: beat %0d of frame %0d from %0d: keep %h last %b, expected %h %b",
                           n, k_beat[n], hdr[47:32], hdr[15:8], m_tkeep[8*n +: 8], m_tlast[n], ekeep, k_beat[n] + 1 == hdr[63:56]);
                end
                rx_beats[n] = rx_beats[n] + 1;
                if (m_tlast[n]) begin
                    j = n * LN + lg_n[n];
                    lg_src[j] = hdr[15:8];
                    lg_seq[j] = hdr[47:32];
                    lg_kind[j] = hdr[55:48];
                    lg_len[j] = k_beat[n] + 1;
                    lg_ndiff[j] = k_ndiff[n];
                    lg_diffbeat[j] = k_diffbeat[n];
                    lg_diffval[j] = k_diffval[n];
                    lg_time[j] = cyc;
                    lg_n[n] = lg_n[n] + 1;
                    if (lg_n[n] >= LN) begin
                        $fatal(1, "%m: node %0d: log full", n);
                    end
                    rx_frames[n] = rx_frames[n] + 1;
                    received_good = received_good + 1;
                    if (strict) begin
                        if (hdr[7:0] != n || k_ndiff[n] != 0 || hdr[15:8] >= P) begin
                            $fatal(1, "%m: node %0d: frame %0d from %0d for %0d, %0d beats differ (beat %0d: %h)",
                                   n, hdr[47:32], hdr[15:8], hdr[7:0], k_ndiff[n], k_diffbeat[n], k_diffval[n]);
                        end
                        if (hdr[47:32] != exp_seq[hdr[15:8] * 256 + n]) begin
                            $fatal(1, "%m: node %0d: frame %0d from %0d, expected %0d (lost, duplicated or reordered)",
                                   n, hdr[47:32], hdr[15:8], exp_seq[hdr[15:8] * 256 + n]);
                        end
                        exp_seq[hdr[15:8] * 256 + n] = exp_seq[hdr[15:8] * 256 + n] + 16'd1;
                    end
                    k_beat[n] = 0;
                end else begin
                    k_beat[n] = k_beat[n] + 1;
                end
            end
            k_rng[n] = xs32(k_rng[n]);
            r = k_rng[n];
            case (rdy_mode[n])
                2'd0: m_tready[n] <= 1'b1;
                2'd1: m_tready[n] <= r[1:0] != 2'd0;
                default: m_tready[n] <= 1'b0;
            endcase
        end
    end
end

// ------------------------------------------------------------------ helpers
task cfg_write;
    input [7:0]  a;
    input [31:0] v;
    begin
        @(negedge clk);
        cfg_we = 1'b1;
        cfg_addr = a;
        cfg_wdata = v;
        @(negedge clk);
        cfg_we = 1'b0;
    end
endtask

task cfg_read;
    input  [7:0]  a;
    output [31:0] v;
    begin
        @(negedge clk);
        cfg_addr = a;
        #1;
        v = cfg_rdata;
    end
endtask

task tb_reset;
    input [5:0] l;
    integer n;
    begin
        @(negedge clk);
        rst = 1'b1;
        lat = l;
        for (n = 0; n < P; n = n + 1) begin
            q_head[n] = 0;
            q_tail[n] = 0;
            g_beat[n] = 0;
            g_rng[n] = 32'h1234567 + n * 977;
            k_rng[n] = 32'h7654321 + n * 331;
            k_beat[n] = 0;
            rx_frames[n] = 0;
            rx_beats[n] = 0;
            lg_n[n] = 0;
            rdy_mode[n] = 2'd0;
        end
        for (n = 0; n < P * 256; n = n + 1) begin
            pair_seq[n] = 16'd0;
            exp_seq[n] = 16'd0;
        end
        gen_gaps = {P{1'b0}};
        strict = 1'b1;
        pushed_good = 0;
        received_good = 0;
        repeat (40) @(negedge clk);
        rst = 1'b0;
        repeat (5) @(negedge clk);
    end
endtask

// waits until every generator is empty, every good frame has arrived and
// the switch, the links and the link ports have been quiet for 3L+20 cycles
task wait_quiet;
    input integer limit;
    integer t, q, n;
    reg busy;
    begin
        t = 0;
        q = 0;
        while (q < 3 * lat + 20) begin
            @(negedge clk);
            busy = !idle || (|m_tvalid) || (|s_tvalid) || (|tx_active) || (|f_out_valid) || (|f_in_valid);
            for (n = 0; n < P; n = n + 1) begin
                if (q_head[n] != q_tail[n]) busy = 1'b1;
            end
            q = busy ? 0 : q + 1;
            t = t + 1;
            if (t > limit) begin
                $fatal(1, "%m: not quiet after %0d cycles (idle %b, sent %0d frames, %0d arrived)",
                       limit, idle, pushed_good, received_good);
            end
        end
    end
endtask

task check(input ok, input [8*80-1:0] what);
    begin
        if (!ok) begin
            $fatal(1, "%m: check failed: %0s", what);
        end
    end
endtask

// ------------------------------------------------------------------- phases
integer n, j, m, len, dst, first, lastc, beats, v, t0, lat1, lat2, nrx, base;
reg [31:0] w, w2;
reg [63:0] bits1, bits2, bitsm;
reg [31:0] model;
real tput;

task random_traffic;
    input integer frames;
    integer n2, f, r2;
    reg [31:0] x;
    begin
        gen_gaps = {P{1'b1}};
        for (n2 = 0; n2 < P; n2 = n2 + 1) begin
            rdy_mode[n2] = 2'd1;
        end
        for (f = 0; f < frames; f = f + 1) begin
            for (n2 = 0; n2 < P; n2 = n2 + 1) begin
                rnd(x);
                r2 = x % 200;
                rnd(x);
                push_frame(n2, x % P, r2 + 1, x[31:16], 8'h01);
            end
        end
        wait_quiet(400000);
        check(received_good == pushed_good, "random traffic: every frame arrived");
        for (n2 = 0; n2 < P; n2 = n2 + 1) begin
            cfg_read(8'h80 + 4 * n2, x);
            check(x == q_tail[n2], "random traffic: FRAMES_IN");
            cfg_read(8'h81 + 4 * n2, x);
            check(x == rx_frames[n2], "random traffic: FRAMES_OUT");
        end
        $display("%m: L=%0d random traffic: %0d frames, %0d beats delivered intact and in order",
                 lat, received_good, sum_beats(0));
        gen_gaps = {P{1'b0}};
        for (n2 = 0; n2 < P; n2 = n2 + 1) begin
            rdy_mode[n2] = 2'd0;
        end
    end
endtask

function integer sum_beats;
    input integer dummy;
    integer n3;
    begin
        sum_beats = dummy;
        for (n3 = 0; n3 < P; n3 = n3 + 1) begin
            sum_beats = sum_beats + rx_beats[n3];
        end
    end
endfunction

// all nodes send long frames to node 0; beats per cycle at output 0
integer hs_first, hs_last, hs_beats;
reg hs_on = 1'b0;
always @(posedge clk) begin
    if (hs_on && f_out_valid[0]) begin
        if (hs_first < 0) hs_first = cyc;
        hs_last = cyc;
        hs_beats = hs_beats + 1;
    end
end

task hot_spot;
    input integer frames;
    input integer senders;   // 0: all nodes, else node 1 alone
    integer n2, f;
    reg [31:0] x;
    begin
        hs_first = -1;
        hs_beats = 0;
        hs_on = 1'b1;
        for (f = 0; f < frames; f = f + 1) begin
            for (n2 = 0; n2 < P; n2 = n2 + 1) begin
                rnd(x);
                if (senders == 0 || n2 == 1) begin
                    push_frame(n2, 0, 100 + x % 101, 0, 8'h02);
                end
            end
        end
        wait_quiet(400000);
        hs_on = 1'b0;
        check(received_good == pushed_good, "hot spot: every frame arrived");
        tput = hs_beats * 1.0 / (hs_last - hs_first + 1);
        if (senders == 0) begin
            $display("%m: L=%0d hot spot, %0d senders: %0d beats at output 0 in %0d cycles: %0.3f beats/cycle",
                     lat, P, hs_beats, hs_last - hs_first + 1, tput);
            check(tput * 1000 >= HS_MIN && tput * 1000 <= HS_MAX, "hot spot: throughput in [HS_MIN, HS_MAX]");
        end else begin
            $display("%m: L=%0d one sender: %0d beats at output 0 in %0d cycles: %0.3f beats/cycle",
                     lat, hs_beats, hs_last - hs_first + 1, tput);
            check(tput * 1000 >= SS_MIN && tput * 1000 <= SS_MAX, "one sender: throughput in [SS_MIN, SS_MAX]");
        end
    end
endtask

initial begin
    rng = 32'h2545f491;
    if ($value$plusargs("seed=%d", v)) begin
        rng = rng ^ (v * 32'h9e3779b9);
        if (rng == 0) rng = 1;
    end
    tb_reset(6'd25);

    cfg_read(8'h00, w);
    check(w == {16'hfab0, 8'd4, P[7:0]}, "INFO");

    // ---------------------------------------------------------------- 1
    random_traffic($test$plusargs("short") ? 5 : 30);

    // ---------------------------------------------------------------- 2
    hot_spot($test$plusargs("short") ? 10 : 20, 0);
    hot_spot($test$plusargs("short") ? 5 : 10, 1);

    // ---------------------------------------------------------------- 3
    rdy_mode[1] = 2'd2;
    base = rx_frames[1];
    for (j = 0; j < 8; j = j + 1) begin
        for (n = 0; n < P; n = n + 1) begin
            if (n != 1) push_frame(n, 1, 150, 0, 8'h03);
        end
    end
    repeat (4000) @(negedge clk);
    check(rx_frames[1] == base, "stalled sink: nothing taken");
    for (n = 0; n < P; n = n + 1) begin
        if (n != 1) begin
            check(q_head[n] != q_tail[n], "stalled sink: the senders are back-pressured");
            check(s_tready[n] == 1'b0, "stalled sink: the senders' link ports hold no credit");
        end
    end
    cfg_read(8'h03, w);
    check(!idle && w == 32'd0, "stalled sink: the switch is not idle (STATUS)");
    rdy_mode[1] = 2'd1;
    wait_quiet(400000);
    check(received_good == pushed_good && rx_frames[1] == base + 8 * (P - 1), "stalled sink: everything arrives");
    cfg_read(8'h03, w);
    check(idle && w == 32'd1, "stalled sink: idle again (STATUS)");
    $display("%m: stalled sink: senders held by credits for 4000 cycles, then %0d frames arrived", 8 * (P - 1));

    // ---------------------------------------------------------------- 4
    cfg_read(8'h82 + 4 * (P - 1), w);
    check(w == 0, "DROPPED is 0");
    base = rx_frames[0];
    push_frame(P - 1, 0, 5, 0, 8'h04);
    push_frame(P - 1, P, 7, 0, 8'h04);
    push_frame(P - 1, 200, 1, 0, 8'h04);
    push_frame(P - 1, 0, 6, 0, 8'h04);
    wait_quiet(100000);
    check(received_good == pushed_good && rx_frames[0] == base + 2, "bad dst: the good frames arrive");
    cfg_read(8'h82 + 4 * (P - 1), w);
    check(w == 2, "bad dst: DROPPED of the port counts 2");
    $display("%m: bad dst_node: 2 frames dropped and counted");

    // ---------------------------------------------------------------- 5
    // sinks always ready: the DELAY phase compares two latencies
    for (n = 0; n < P; n = n + 1) begin
        rdy_mode[n] = 2'd0;
    end
    strict = 1'b0;
    cfg_write(8'h01, 32'h1);

    // DROP every 3rd frame of kind 0x21 from input 0
    cfg_write(8'h11, {8'h21, 8'h00, 8'h00});
    cfg_write(8'h13, 32'd3);
    cfg_write(8'h10, {20'd0, 4'b1001, 3'd0, 1'b0, A_DROP, 1'b1});
    base = lg_n[1];
    for (j = 0; j < 9; j = j + 1) begin
        push_frame(0, 1, 1 + j, 0, 8'h21);
        if (j == 0) first = last_seq;
        if (j % 3 == 0) push_frame(0, 1, 3, 0, 8'h22);
    end
    wait_quiet(100000);
    m = 0;
    for (j = base; j < lg_n[1]; j = j + 1) begin
        check(lg_ndiff[1 * LN + j] == 0, "DROP: the others are intact");
        if (lg_kind[1 * LN + j] == 8'h21) begin
            // the matching frames are first+0..first+11 with the 0x22 ones in between
            m = m + 1;
        end
    end
    check(m == 6 && lg_n[1] - base == 9, "DROP: 6 of 9 matching frames and the 3 others arrive");
    nrx = 0;
    for (j = base; j < lg_n[1]; j = j + 1) begin
        // the 3rd, 6th and 9th matching frames are missing: their lengths 3, 6, 9
        if (lg_kind[1 * LN + j] == 8'h21 && lg_len[1 * LN + j] % 3 == 0) nrx = nrx + 1;
    end
    check(nrx == 0, "DROP: exactly the 3rd, 6th and 9th are missing");
    cfg_read(8'h18, w);
    cfg_read(8'h19, w2);
    check(w == 9 && w2 == 3, "DROP: MATCHED 9, ACTED 3");
    $display("%m: DROP every 3rd: 3 of 9 dropped, MATCHED %0d ACTED %0d", w, w2);

    // CORRUPT beat 2 of frames of kind 0x31 (EVERY_N 1)
    cfg_write(8'h01, 32'h1);
    cfg_write(8'h11, {8'h31, 8'h00, 8'h00});
    cfg_write(8'h13, 32'd1);
    cfg_write(8'h14, 32'h0001_0100);
    cfg_write(8'h15, 32'h8000_2000);
    cfg_write(8'h16, 32'd2);
    cfg_write(8'h10, {20'd0, 4'b1000, 3'd0, 1'b0, A_CORRUPT, 1'b1});
    base = lg_n[1];
    push_frame(0, 1, 5, 0, 8'h31);
    push_frame(0, 1, 2, 0, 8'h31);     // beat 2 is past the end: the last (1)
    push_frame(0, 1, 4, 0, 8'h32);     // does not match
    wait_quiet(100000);
    check(lg_n[1] - base == 3, "CORRUPT: 3 frames");
    check(lg_ndiff[LN + base] == 1 && lg_diffbeat[LN + base] == 2 && lg_diffval[LN + base] == 64'h8000_2000_0001_0100,
          "CORRUPT: beat 2, exactly the mask");
    check(lg_ndiff[LN + base + 1] == 1 && lg_diffbeat[LN + base + 1] == 1 && lg_diffval[LN + base + 1] == 64'h8000_2000_0001_0100,
          "CORRUPT: past the end, the last beat");
    check(lg_ndiff[LN + base + 2] == 0, "CORRUPT: the other frame intact");
    $display("%m: CORRUPT: mask on beat 2, and on the last beat of a shorter frame");

    // DUPLICATE frames to dst_vi 0x1234 (match the vi only)
    cfg_write(8'h01, 32'h1);
    cfg_write(8'h12, 32'h1234);
    cfg_write(8'h10, {20'd0, 4'b0100, 3'd0, 1'b0, A_DUP, 1'b1});
    base = lg_n[1];
    push_frame(0, 1, 7, 16'h1234, 8'h41);
    first = last_seq;
    push_frame(0, 1, 3, 16'h1235, 8'h41);
    wait_quiet(100000);
    check(lg_n[1] - base == 3, "DUPLICATE: 3 frames");
    check(lg_seq[LN + base] == first && lg_seq[LN + base + 1] == first && lg_seq[LN + base + 2] == first + 1,
          "DUPLICATE: the frame twice, then the next");
    check(lg_ndiff[LN + base] == 0 && lg_ndiff[LN + base + 1] == 0 && lg_len[LN + base + 1] == 7, "DUPLICATE: both copies intact");
    cfg_read(8'h81 + 4 * 1, w);
    check(w == 3, "DUPLICATE: FRAMES_OUT counts both copies");
    $display("%m: DUPLICATE: frame %0d arrived twice", first);

    // REORDER frames of kind 0x51 to output 1 (no wait limit)
    cfg_write(8'h01, 32'h1);
    cfg_write(8'h11, {8'h51, 8'h01, 8'h00});
    cfg_write(8'h17, 32'd0);
    cfg_write(8'h10, {20'd0, 4'b1010, 3'd0, 1'b0, A_REORDER, 1'b1});
    base = lg_n[1];
    push_frame(0, 1, 5, 0, 8'h51);
    first = last_seq;
    push_frame(0, 1, 9, 0, 8'h52);
    push_frame(0, 1, 2, 0, 8'h52);
    wait_quiet(100000);
    check(lg_n[1] - base == 3, "REORDER: 3 frames");
    check(lg_seq[LN + base] == first + 1 && lg_seq[LN + base + 1] == first && lg_seq[LN + base + 2] == first + 2,
          "REORDER: the next frame first, the held one after it");
    check(lg_ndiff[LN + base] == 0 && lg_ndiff[LN + base + 1] == 0 && lg_ndiff[LN + base + 2] == 0, "REORDER: intact");
    // alone, with a wait limit of 300 cycles: it leaves after it
    cfg_write(8'h17, 32'd300);
    base = lg_n[1];
    t0 = cyc;
    push_frame(0, 1, 4, 0, 8'h51);
    wait_quiet(100000);
    check(lg_n[1] - base == 1 && lg_ndiff[LN + base] == 0, "REORDER: alone, it arrives");
    lat1 = lg_time[LN + base] - t0;
    check(lat1 >= 300, "REORDER: alone, after the wait limit");
    cfg_read(8'h19, w);
    check(w == 2, "REORDER: ACTED 2");
    $display("%m: REORDER: swapped; alone it left after %0d cycles (limit 300)", lat1);

    // DELAY 400 cycles for kind 0x61; the same frame as kind 0x62 for the base latency
    cfg_write(8'h01, 32'h1);
    cfg_write(8'h11, {8'h61, 8'h00, 8'h00});
    cfg_write(8'h17, 32'd400);
    cfg_write(8'h10, {20'd0, 4'b1000, 3'd0, 1'b0, A_DELAY, 1'b1});
    base = lg_n[1];
    t0 = cyc;
    push_frame(0, 1, 6, 0, 8'h62);
    wait_quiet(100000);
    lat1 = lg_time[LN + base] - t0;
    t0 = cyc;
    push_frame(0, 1, 6, 0, 8'h61);
    repeat (200) @(negedge clk);
    check(!idle && lg_n[1] - base == 1, "DELAY: not idle while the frame waits");
    wait_quiet(100000);
    lat2 = lg_time[LN + base + 1] - t0;
    check(lg_n[1] - base == 2 && lg_ndiff[LN + base + 1] == 0, "DELAY: intact");
    if (lat2 - lat1 < 400) begin
        $display("%m: DELAY: latency %0d, %0d without the rule", lat2, lat1);
    end
    check(lat2 - lat1 >= 400, "DELAY: >= 400 cycles later");
    $display("%m: DELAY 400: latency %0d cycles, %0d without the rule", lat2, lat1);

    // PROBABILITY drop (P = 0x6000) of kind 0x71, seed 0x1234abcd, twice
    cfg_write(8'h11, {8'h71, 8'h00, 8'h00});
    cfg_write(8'h13, 32'h6000);
    cfg_write(8'h10, {20'd0, 4'b1000, 3'd0, 1'b1, A_DROP, 1'b1});
    for (m = 0; m < 2; m = m + 1) begin
        cfg_write(8'h01, 32'h1);
        cfg_write(8'h02, 32'h1234abcd);
        base = lg_n[1];
        for (j = 0; j < 48; j = j + 1) begin
            push_frame(0, 1, 1 + j, 0, 8'h71);    // the length tells which frame it is
        end
        wait_quiet(100000);
        bitsm = 64'd0;
        for (j = base; j < lg_n[1]; j = j + 1) begin
            bitsm[lg_len[LN + j] - 1] = 1'b1;
        end
        if (m == 0) bits1 = bitsm; else bits2 = bitsm;
        cfg_read(8'h18, w);
        cfg_read(8'h19, w2);
        check(w == 48 && w2 == 48 - (lg_n[1] - base), "PROBABILITY: MATCHED 48, ACTED = the missing ones");
    end
    // the model: rule 0's generator starts at SEED, advanced once per frame
    model = 32'h1234abcd;
    bitsm = 64'd0;
    for (j = 0; j < 48; j = j + 1) begin
        model = xs32(model);
        if (!(model[31:16] < 16'h6000)) bitsm[j] = 1'b1;
    end
    check(bits1 == bits2, "PROBABILITY: the same selection twice from one seed");
    check(bits1 == bitsm, "PROBABILITY: the selection of the model");
    check(bits1 != 64'd0 && bits1 != 64'h0000_ffff_ffff_ffff, "PROBABILITY: some dropped, some not");
    $display("%m: PROBABILITY P=0x6000 seed 0x1234abcd: %0d of 48 dropped, same selection on two runs and in the model (%h)",
             w2, bits1[47:0]);
    cfg_write(8'h10, 32'd0);

    // ---------------------------------------------------------------- 6
    // (L = 1 repeats the traffic phases with fewer frames: the same logic,
    // a shorter run in Icarus)
    tb_reset(6'd1);
    random_traffic($test$plusargs("short") ? 3 : 12);
    hot_spot(8, 0);
    hot_spot(4, 1);

    done = 1'b1;
end

endmodule
