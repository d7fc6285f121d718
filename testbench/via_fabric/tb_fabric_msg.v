// tb_fabric_msg: the via_fabric bench's test of the message hold
// (MSG_HOLD 1): one message at a time per output.
//
// PORTS 4, a via_link_port per node, every link symbol delayed 25 cycles.
// Nodes 1, 2 and 3 each send 12 messages of 1..5 frames (2..20 beats each)
// to node 0 at once, with random gaps between frames (also inside a
// message); the header's flags byte carries FIRST and LAST. Node 0 checks
// that no frame of another sender comes between a FIRST and its LAST, that
// every sender's frames come in order, and that all arrive. Then node 1
// starts a message and never ends it: after HOLD_WAIT (200) cycles node 2's
// message passes. Then node 3 starts a message and its next frame starts a
// new one (FIRST): the output lets go at once (node 2's next message may
// come between). Sets `done`; any failure is a $fatal.

`timescale 1ns / 1ps

module tb_fabric_msg (
    output reg done
);

localparam P = 4;
localparam NM = 12;
localparam HOLD = 200;

reg clk = 1'b0;
reg rst = 1'b1;
always #5 clk = ~clk;
initial done = 1'b0;

reg  [64*P-1:0] s_tdata = 0;
reg  [8*P-1:0]  s_tkeep = 0;
reg  [P-1:0]    s_tvalid = 0, s_tlast = 0;
wire [P-1:0]    s_tready;
wire [64*P-1:0] m_tdata;
wire [8*P-1:0]  m_tkeep;
wire [P-1:0]    m_tvalid, m_tlast;
wire [P-1:0]    m_tready = {P{1'b1}};

wire [P-1:0]    f_in_valid, f_in_last, f_in_credit, f_out_valid, f_out_last, f_out_credit;
wire [64*P-1:0] f_in_data, f_out_data;
wire [8*P-1:0]  f_in_keep, f_out_keep;
wire [31:0]     cfg_rdata;
wire            idle;

localparam [4:0] NPORTS = P;  // every port has a node

via_fabric #(
    .PORTS(P), .CREDITS(64), .IN_DEPTH(64), .OQ_DEPTH(128), .NRULES(1), .MSG_HOLD(1), .HOLD_WAIT(HOLD)
) dut (
    .clk(clk), .rst(rst),
    .in_valid(f_in_valid), .in_data(f_in_data), .in_keep(f_in_keep), .in_last(f_in_last), .in_credit(f_in_credit),
    .out_valid(f_out_valid), .out_data(f_out_data), .out_keep(f_out_keep), .out_last(f_out_last),
    .out_credit(f_out_credit),
    .nports(NPORTS),
    .cfg_we(1'b0), .cfg_addr(8'd0), .cfg_wdata(32'd0), .cfg_rdata(cfg_rdata), .idle(idle)
);

genvar gn;
generate
for (gn = 0; gn < P; gn = gn + 1) begin : g_node
    wire        tx_valid, tx_last, tx_credit, rx_valid, rx_last, rx_credit;
    wire [63:0] tx_data, rx_data;
    wire [7:0]  tx_keep, rx_keep;
    via_link_port #(.CREDITS(64), .RX_DEPTH(64)) lp (
        .clk(clk), .rst(rst),
        .s_axis_tdata(s_tdata[64*gn +: 64]), .s_axis_tkeep(s_tkeep[8*gn +: 8]), .s_axis_tvalid(s_tvalid[gn]),
        .s_axis_tready(s_tready[gn]), .s_axis_tlast(s_tlast[gn]),
        .m_axis_tdata(m_tdata[64*gn +: 64]), .m_axis_tkeep(m_tkeep[8*gn +: 8]), .m_axis_tvalid(m_tvalid[gn]),
        .m_axis_tready(m_tready[gn]), .m_axis_tlast(m_tlast[gn]),
        .tx_valid(tx_valid), .tx_data(tx_data), .tx_keep(tx_keep), .tx_last(tx_last), .tx_credit(tx_credit),
        .rx_valid(rx_valid), .rx_data(rx_data), .rx_keep(rx_keep), .rx_last(rx_last), .rx_credit(rx_credit)
    );
    tb_fabric_delay #(.W(74)) d_up (
        .clk(clk), .rst(rst), .lat(6'd25), .d({tx_valid, tx_last, tx_keep, tx_data}),
        .q({f_in_valid[gn], f_in_last[gn], f_in_keep[8*gn +: 8], f_in_data[64*gn +: 64]})
    );
    tb_fabric_delay #(.W(1)) d_up_credit (.clk(clk), .rst(rst), .lat(6'd25), .d(rx_credit), .q(f_out_credit[gn]));
    tb_fabric_delay #(.W(74)) d_down (
        .clk(clk), .rst(rst), .lat(6'd25),
        .d({f_out_valid[gn], f_out_last[gn], f_out_keep[8*gn +: 8], f_out_data[64*gn +: 64]}),
        .q({rx_valid, rx_last, rx_keep, rx_data})
    );
    tb_fabric_delay #(.W(1)) d_down_credit (.clk(clk), .rst(rst), .lat(6'd25), .d(f_in_credit[gn]), .q(tx_credit));
end
endgenerate

// xorshift32 per sender
function [31:0] nx(input [31:0] x);
    reg [31:0] y;
    begin
        y = x ^ (x << 13);
        y = y ^ (y >> 17);
        nx = y ^ (y << 5);
    end
endfunction

// frame queues, one per node: a clocked generator per node sends them in
// order (inputs change with the clock edge, as the other parts of the bench
// do: no fork, no delays)
localparam QN = 128;
reg [7:0]  q_msg   [0:P*QN-1];
reg [7:0]  q_seg   [0:P*QN-1];
reg        q_first [0:P*QN-1];
reg        q_lastm [0:P*QN-1];
reg [7:0]  q_len   [0:P*QN-1];
reg [7:0]  q_gap   [0:P*QN-1];
integer    q_tail  [0:P-1];
integer    sent    [0:P-1];       // frames queued so far

task push(input integer src, input [7:0] msg, input [7:0] seg, input first, input last, input [7:0] len,
          input [7:0] gap);
    integer j;
    begin
        j = src * QN + q_tail[src];
        q_msg[j] = msg; q_seg[j] = seg; q_first[j] = first; q_lastm[j] = last; q_len[j] = len; q_gap[j] = gap;
        q_tail[src] = q_tail[src] + 1;
        sent[src] = sent[src] + 1;
    end
endtask

// nmsg messages of 1..5 frames of 2..20 beats with gaps of 0..39 cycles
// before each frame (inside messages too)
task queue_msgs(input integer src, input integer nmsg, input [31:0] seed);
    reg [31:0] r;
    integer m, k, nseg;
    reg [7:0] gap;
    begin
        r = seed;
        for (m = 0; m < nmsg; m = m + 1) begin
            r = nx(r); nseg = 1 + r % 5;
            for (k = 0; k < nseg; k = k + 1) begin
                r = nx(r); gap = r % 40;
                r = nx(r);
                push(src, m[7:0], k[7:0], k == 0, k == nseg - 1, 2 + r % 19, gap);
            end
        end
    end
endtask

genvar gg;
generate
for (gg = 1; gg < P; gg = gg + 1) begin : g_gen
    integer qh = 0, beat = 0, wait_n = 0;
    reg     active = 1'b0;
    always @(posedge clk) begin : gen
        integer j;
        if (rst) begin
            s_tvalid[gg] <= 1'b0;
        end else begin
            j = gg * QN + qh;
            if (active && s_tvalid[gg] && s_tready[gg]) begin
                // the beat went: the next one, or the frame is done
                if (beat + 1 == q_len[j]) begin
                    active = 1'b0;
                    qh = qh + 1;
                    beat = 0;
                    s_tvalid[gg] <= 1'b0;
                end else begin
                    beat = beat + 1;
                    s_tdata[64*gg +: 64] <= {q_msg[j], q_seg[j], beat[15:0], 32'hFACE0000 | gg[31:0]};
                    s_tlast[gg] <= (beat + 1 == q_len[j]);
                end
            end
            j = gg * QN + qh;
            if (!active && qh < q_tail[gg]) begin
                if (wait_n < q_gap[j]) begin
                    wait_n = wait_n + 1;
                end else begin
                    wait_n = 0;
                    active = 1'b1;
                    beat = 0;
                    s_tdata[64*gg +: 64] <= {6'd0, q_lastm[j], q_first[j], 8'd0, q_msg[j], q_seg[j], 16'd0,
                                            gg[7:0], 8'd0};
                    s_tkeep[8*gg +: 8] <= 8'hFF;
                    s_tlast[gg] <= (q_len[j] == 8'd1);
                    s_tvalid[gg] <= 1'b1;
                end
            end
        end
    end
end
endgenerate

// node 0's sink
integer owner = -1;              // sender of the message in progress
reg     check_owner = 1'b1;      // phase 1: no frame inside another's message
integer got = 0, interleaved = 0;
reg [15:0] last_ms [0:P-1];      // {msg, seg} of the sender's last frame
reg        seen [0:P-1];
integer    rcv [0:P-1];
integer    beat0 = 1;
reg [63:0] h;
integer    s;
always @(posedge clk) begin
    if (!rst && m_tvalid[0] && m_tready[0]) begin
        if (beat0) begin
            h = m_tdata[63:0];
            s = h[15:8];
            if (check_owner && owner >= 0 && s != owner) begin
                $fatal(1, "%m: a frame of node %0d inside node %0d's message", s, owner);
            end
            if (seen[s] && h[47:32] <= last_ms[s]) begin
                $fatal(1, "%m: node %0d: frame %h after %h (out of order)", s, h[47:32], last_ms[s]);
            end
            seen[s] = 1'b1;
            last_ms[s] = h[47:32];
            rcv[s] = rcv[s] + 1;
            if (h[56] && !h[57]) owner = s;          // FIRST, not LAST
            else if (h[57]) owner = -1;               // LAST
            else if (h[56]) owner = s;
        end
        beat0 = m_tlast[0];
        if (m_tlast[0]) got = got + 1;
    end
end

integer i, t0;
initial begin
    for (i = 0; i < P; i = i + 1) begin sent[i] = 0; rcv[i] = 0; seen[i] = 1'b0; last_ms[i] = 0; q_tail[i] = 0; end
    repeat (5) @(posedge clk);
    rst = 1'b0;
    repeat (5) @(posedge clk);

    // 1. three senders, whole messages
    queue_msgs(1, NM, 32'h1111_2222);
    queue_msgs(2, NM, 32'h3333_4444);
    queue_msgs(3, NM, 32'h5555_6666);
    t0 = 0;
    while (got < sent[1] + sent[2] + sent[3] && t0 < 40000) begin @(posedge clk); t0 = t0 + 1; end
    if (got != sent[1] + sent[2] + sent[3]) $fatal(1, "%m: %0d of %0d frames arrived", got, sent[1] + sent[2] + sent[3]);
    $display("%m: %0d messages (%0d frames) from 3 senders to one node, never interleaved, in order",
             3 * NM, got);

    // 2. node 1 starts a message and stops: node 2's message passes after
    // HOLD cycles (without the hold it would take about 60)
    check_owner = 1'b0;
    push(1, 8'd100, 8'd0, 1'b1, 1'b0, 8'd4, 8'd0);
    repeat (100) @(posedge clk);
    t0 = $time;
    push(2, 8'd100, 8'd0, 1'b1, 1'b1, 8'd4, 8'd0);
    while (rcv[2] < sent[2]) @(posedge clk);
    if (($time - t0) / 10 < HOLD - 80) $fatal(1, "%m: node 2 passed after %0d cycles, inside the hold", ($time - t0) / 10);
    $display("%m: a message that never ends holds the output %0d cycles (HOLD_WAIT %0d), then others pass",
             ($time - t0) / 10, HOLD);
    owner = -1;  // (the broken message never ends)

    // 3. node 3: a message whose next frame starts a new one lets go at once
    push(3, 8'd101, 8'd0, 1'b1, 1'b0, 8'd3, 8'd0);
    repeat (60) @(posedge clk);
    push(3, 8'd102, 8'd0, 1'b1, 1'b1, 8'd3, 8'd0);
    push(2, 8'd101, 8'd0, 1'b1, 1'b1, 8'd3, 8'd10);
    t0 = 0;
    while ((rcv[2] < sent[2] || rcv[3] < sent[3]) && t0 < HOLD) begin @(posedge clk); t0 = t0 + 1; end
    if (t0 >= HOLD) $fatal(1, "%m: a new FIRST did not end the hold (node 2 %0d/%0d, node 3 %0d/%0d)",
                           rcv[2], sent[2], rcv[3], sent[3]);
    $display("%m: a new message from the holder ends the hold at once");
    done = 1'b1;
end

endmodule
