// tb_via_net: self-checking bench for rtl/via_net.v (the NIC's network
// block): two instances, A on node 3 and B on node 5, their network ports
// cabled to each other (A.m_axis -> B.s_axis, B.m_axis -> A.s_axis), MTU
// 256 bytes, a loopback FIFO of 8 beats.
//
// Each instance's send side gets a stream of internal frames (the send
// engine's format, rtl/via_frame.vh) with random gaps: messages of 0..700
// bytes, each for this node (the loopback path) or for the other node (the
// wire: packetized, up to 3 segments, depacketized by the other instance),
// at random. Each receive side takes frames with random back-pressure.
// Checked:
//   - every message arrives exactly once, at the right instance, whole
//     (header fields, every payload byte, trailer status 0), and the two
//     paths never interleave inside a frame (the merge);
//   - per path, in order;
//   - the peer node of a message from the wire is the sender's node; of a
//     looped one, this node;
//   - the counters NET_LOOP_MSGS, NET_TX_MSGS, NET_RX_MSGS, NET_RX_GOOD
//     (frames), and no drop counter moved;
//   - A's CONNECT framer: 40 connection messages from A to B, mixed with
//     A's data frames on the wire (whole frames on m_axis), arrive at B's
//     cm port (random back-pressure) each once, in order, from A's node
//     (NET_RX_CM);
//   - busy falls when everything has arrived.

`timescale 1ns / 1ps

module tb_via_net;

localparam MTU = 256;
localparam NMSG = 120;          // messages per instance
localparam MAXB = 700;          // largest message
localparam [7:0] NODE_A = 8'd3, NODE_B = 8'd5;
localparam NCM = 40;            // CONNECT messages from A to B

reg clk = 1'b0;
reg rst = 1'b1;
always #5 clk = ~clk;

reg [8*256-1:0] vcd_file;
initial begin
    if ($value$plusargs("vcd=%s", vcd_file)) begin
        $dumpfile(vcd_file);
        $dumpvars(0, tb_via_net);
    end
end
initial begin
    #20000000;
    $fatal(1, "tb_via_net: watchdog timeout");
end

// xorshift32
function [31:0] nx(input [31:0] x);
    reg [31:0] y;
    begin
        y = x ^ (x << 13);
        y = y ^ (y >> 17);
        nx = y ^ (y << 5);
    end
endfunction

// the message table: for instance i (0 A, 1 B) and message m: length,
// destination (0 loopback, 1 wire), dst_vi, src_vi, immediate
reg [15:0] m_len  [0:1][0:NMSG-1];
reg        m_wire [0:1][0:NMSG-1];
reg [15:0] m_dvi  [0:1][0:NMSG-1];
reg [15:0] m_svi  [0:1][0:NMSG-1];
reg [31:0] m_imm  [0:1][0:NMSG-1];

// payload byte k of message m of instance i
function [7:0] pb(input integer i, input integer m, input integer k);
    pb = (i * 131 + m * 17 + k * 7 + (k >> 8)) & 8'hff;
endfunction

integer ii, mm;
reg [31:0] seed;
initial begin
    seed = 32'h1234_5678;
    for (ii = 0; ii < 2; ii = ii + 1) begin
        for (mm = 0; mm < NMSG; mm = mm + 1) begin
            seed = nx(seed);
            m_len[ii][mm]  = seed % (MAXB + 1);
            seed = nx(seed);
            m_wire[ii][mm] = seed[3];
            m_dvi[ii][mm]  = {8'd0, seed[15:8]};
            m_svi[ii][mm]  = {8'd0, seed[23:16]};
            seed = nx(seed);
            m_imm[ii][mm]  = seed;
        end
        // the first messages: zero length on each path, a full 3-segment one
        m_len[ii][0] = 16'd0;  m_wire[ii][0] = 1'b0;
        m_len[ii][1] = 16'd0;  m_wire[ii][1] = 1'b1;
        m_len[ii][2] = 16'd700; m_wire[ii][2] = 1'b1;
    end
end

// ------------------------------------------------------------ the DUTs

// A's CONNECT messages (below)
reg          cmt_valid;
reg  [15:0]  cmt_dvi, cmt_svi;
reg  [255:0] cmt_data;
integer      cm_sent, cm_got;
reg  [31:0]  cm_rng;
reg          cm_ready_b;

wire [63:0] tx_tdata [0:1];
wire [7:0]  tx_tkeep [0:1];
wire        tx_tvalid [0:1], tx_tready [0:1], tx_tlast [0:1];
wire [63:0] rx_tdata [0:1];
wire [7:0]  rx_tkeep [0:1];
wire        rx_tvalid [0:1], rx_tlast [0:1];
reg         rx_tready [0:1];
wire [63:0] net_tdata [0:1];   // m_axis of instance i
wire [7:0]  net_tkeep [0:1];
wire        net_tvalid [0:1], net_tready [0:1], net_tlast [0:1];
wire        busy [0:1];
wire        cm_valid [0:1];

genvar gi;
generate
    for (gi = 0; gi < 2; gi = gi + 1) begin : g_dut
        /* verilator lint_off UNUSEDSIGNAL */
        wire [31:0] rd_data;
        wire        wr_hit, rd_hit;
        wire        cmt_ready;
        wire [7:0]  cm_src_node;
        wire [15:0] cm_src_vi, cm_dst_vi;
        wire [255:0] cm_data;
        /* verilator lint_on UNUSEDSIGNAL */
        via_net #(
            .DATA_WIDTH(64),
            .FIFO_DEPTH(8),
            .MTU(MTU),
            .RX_BUF(64),
            .RX_SEGQ(4)
        ) dut (
            .clk(clk),
            .rst(rst),
            .node_id(gi == 0 ? NODE_A : NODE_B),
            .wr_en(1'b0), .wr_addr(16'd0), .wr_data(32'd0), .wr_strb(4'd0), .wr_hit(wr_hit),
            .rd_en(1'b0), .rd_addr(16'd0), .rd_fire(1'b0), .rd_hit(rd_hit), .rd_data(rd_data),
            .quiesce(1'b0),
            .s_axis_tdata(net_tdata[1 - gi]),
            .s_axis_tkeep(net_tkeep[1 - gi]),
            .s_axis_tvalid(net_tvalid[1 - gi]),
            .s_axis_tready(net_tready[1 - gi]),
            .s_axis_tlast(net_tlast[1 - gi]),
            .m_axis_tdata(net_tdata[gi]),
            .m_axis_tkeep(net_tkeep[gi]),
            .m_axis_tvalid(net_tvalid[gi]),
            .m_axis_tready(net_tready[gi]),
            .m_axis_tlast(net_tlast[gi]),
            .e_tx_tdata(tx_tdata[gi]),
            .e_tx_tkeep(tx_tkeep[gi]),
            .e_tx_tvalid(tx_tvalid[gi]),
            .e_tx_tready(tx_tready[gi]),
            .e_tx_tlast(tx_tlast[gi]),
            .e_rx_tdata(rx_tdata[gi]),
            .e_rx_tkeep(rx_tkeep[gi]),
            .e_rx_tvalid(rx_tvalid[gi]),
            .e_rx_tready(rx_tready[gi]),
            .e_rx_tlast(rx_tlast[gi]),
            .cmt_valid(gi == 0 ? cmt_valid : 1'b0),
            .cmt_ready(cmt_ready),
            .cmt_dst_node(NODE_B),
            .cmt_dst_vi(cmt_dvi),
            .cmt_src_vi(cmt_svi),
            .cmt_data(cmt_data),
            .cm_valid(cm_valid[gi]),
            .cm_ready(gi == 1 ? cm_ready_b : 1'b1),
            .cm_src_node(cm_src_node),
            .cm_src_vi(cm_src_vi),
            .cm_dst_vi(cm_dst_vi),
            .cm_data(cm_data),
            .busy(busy[gi])
        );
    end
endgenerate

// ------------------------------------------------------------ CONNECT
// A sends NCM connection messages to B through its CONNECT framer, mixed
// with its data frames on the wire; B's cm port takes them with random
// back-pressure, each exactly once, in order, with A's node


function [255:0] cm_payload(input integer k);
    integer j;
    begin
        for (j = 0; j < 8; j = j + 1) begin
            cm_payload[32*j +: 32] = 32'hC0DE0000 + k * 8 + j;
        end
    end
endfunction

always @(negedge clk) begin
    cm_rng = nx(cm_rng);
    cm_ready_b <= cm_rng[2:0] == 3'd0;
    if (!rst && !cmt_valid && cm_sent < NCM && cm_rng[5:3] == 3'd0) begin
        cmt_valid <= 1'b1;
        cmt_dvi   <= cm_sent[15:0];
        cmt_svi   <= 16'hFFFF;
        cmt_data  <= cm_payload(cm_sent);
    end
end

always @(posedge clk) begin
    if (!rst && cmt_valid && g_dut[0].cmt_ready) begin
        cmt_valid <= 1'b0;
        cm_sent   <= cm_sent + 1;
    end
    if (!rst && cm_valid[1] && cm_ready_b) begin
        if (g_dut[1].cm_src_node !== NODE_A || g_dut[1].cm_src_vi !== 16'hFFFF ||
                g_dut[1].cm_dst_vi !== cm_got[15:0] || g_dut[1].cm_data !== cm_payload(cm_got)) begin
            $fatal(1, "tb_via_net: CONNECT message %0d: from node %0d VI %h to VI %0d, payload %h",
                   cm_got, g_dut[1].cm_src_node, g_dut[1].cm_src_vi, g_dut[1].cm_dst_vi, g_dut[1].cm_data);
        end
        cm_got = cm_got + 1;
    end
end

// ------------------------------------------------------------ senders
// each sends its messages as internal frames: 2 header beats, payload
// beats, a trailer beat; a beat is presented from a negedge, with random
// gaps between beats

reg [63:0] s_data [0:1];
reg [7:0]  s_keep [0:1];
reg        s_valid [0:1], s_last [0:1];
assign tx_tdata[0] = s_data[0]; assign tx_tkeep[0] = s_keep[0];
assign tx_tvalid[0] = s_valid[0]; assign tx_tlast[0] = s_last[0];
assign tx_tdata[1] = s_data[1]; assign tx_tkeep[1] = s_keep[1];
assign tx_tvalid[1] = s_valid[1]; assign tx_tlast[1] = s_last[1];

integer s_msg [0:1];   // message being sent
integer s_beat [0:1];  // its beat
reg [31:0] s_rng [0:1];
integer sent_done [0:1];

// beat b of message m of instance i: data, keep, last
task beat_of;
    input integer i, m, b;
    output [63:0] d;
    output [7:0] k;
    output l;
    integer n, pbeats, j, off;
    reg [7:0] node;
    begin
        n = m_len[i][m];
        pbeats = (n + 7) / 8;
        node = m_wire[i][m] ? (i == 0 ? NODE_B : NODE_A) : (i == 0 ? NODE_A : NODE_B);
        d = 64'd0; k = 8'hff; l = 1'b0;
        if (b == 0) begin
            d = {n[31:0], m_svi[i][m], m_dvi[i][m]};
        end else if (b == 1) begin
            d = {8'd0, node, 8'd0, 8'd1, m_imm[i][m]};
        end else if (b < 2 + pbeats) begin
            off = (b - 2) * 8;
            k = 8'd0;
            for (j = 0; j < 8; j = j + 1) begin
                if (off + j < n) begin
                    d[8*j +: 8] = pb(i, m, off + j);
                    k[j] = 1'b1;
                end
            end
        end else begin
            d = 64'd0;   // trailer: status 0
            l = 1'b1;
        end
    end
endtask

integer si;
reg [63:0] td;
reg [7:0]  tk;
reg        tl;
always @(negedge clk) begin
    for (si = 0; si < 2; si = si + 1) begin
        if (rst) begin
            s_valid[si] <= 1'b0;
        end else if (!s_valid[si] && s_msg[si] < NMSG) begin
            s_rng[si] = nx(s_rng[si]);
            if (s_rng[si][2:0] != 3'd0) begin
                beat_of(si, s_msg[si], s_beat[si], td, tk, tl);
                s_data[si] <= td; s_keep[si] <= tk; s_last[si] <= tl;
                s_valid[si] <= 1'b1;
            end
        end
    end
end

integer sj, pbeats_j;
always @(posedge clk) begin
    for (sj = 0; sj < 2; sj = sj + 1) begin
        if (!rst && s_valid[sj] && tx_tready[sj]) begin
            s_valid[sj] <= 1'b0;
            pbeats_j = (m_len[sj][s_msg[sj]] + 7) / 8;
            if (s_beat[sj] == 2 + pbeats_j) begin
                s_beat[sj] <= 0;
                s_msg[sj] <= s_msg[sj] + 1;
            end else begin
                s_beat[sj] <= s_beat[sj] + 1;
            end
        end
    end
end

// ------------------------------------------------------------ receivers
// take beats with random back-pressure and check each frame as it ends

reg [31:0] r_rng [0:1];
always @(negedge clk) begin
    r_rng[0] = nx(r_rng[0]);
    r_rng[1] = nx(r_rng[1]);
    rx_tready[0] <= r_rng[0][1:0] != 2'd0;
    rx_tready[1] <= r_rng[1][1:0] != 2'd0;
end

// per receiving instance: the beats of the frame being received
reg [63:0] f_beat [0:1][0:127];
reg [7:0]  f_keep [0:1][0:127];
integer    f_n [0:1];
// next expected message per path: from the loopback (own messages with
// m_wire 0) and from the wire (the other's messages with m_wire 1)
integer    exp_loop [0:1], exp_wire [0:1];
integer    got [0:1];

// the next message index >= from of instance i on path w
function integer next_of(input integer i, input integer from, input w);
    integer k;
    begin
        next_of = NMSG;
        for (k = NMSG - 1; k >= from; k = k - 1) begin
            if (m_wire[i][k] == w) next_of = k;
        end
    end
endfunction

task check_frame;
    input integer r;  // receiving instance
    integer src, m, n, k, b;
    reg [7:0] peer;
    reg [15:0] dvi, svi;
    reg [31:0] len, imm;
    begin
        peer = f_beat[r][1][55:48];
        dvi = f_beat[r][0][15:0];
        svi = f_beat[r][0][31:16];
        len = f_beat[r][0][63:32];
        imm = f_beat[r][1][31:0];
        if (peer == (r == 0 ? NODE_A : NODE_B)) begin
            src = r;
            m = exp_loop[r];
            exp_loop[r] = next_of(r, m + 1, 1'b0);
        end else if (peer == (r == 0 ? NODE_B : NODE_A)) begin
            src = 1 - r;
            m = exp_wire[r];
            exp_wire[r] = next_of(1 - r, m + 1, 1'b1);
        end else begin
            $fatal(1, "tb_via_net: instance %0d got a frame with peer node %0d", r, peer);
        end
        if (m >= NMSG) begin
            $fatal(1, "tb_via_net: instance %0d got an extra frame from instance %0d", r, src);
        end
        n = m_len[src][m];
        if (dvi !== m_dvi[src][m] || svi !== m_svi[src][m] || len !== n || imm !== m_imm[src][m]) begin
            $fatal(1, "tb_via_net: instance %0d, message %0d of %0d: header dst_vi %0d src_vi %0d len %0d imm %h, want %0d %0d %0d %h",
                   r, m, src, dvi, svi, len, imm, m_dvi[src][m], m_svi[src][m], n, m_imm[src][m]);
        end
        if (f_n[r] != 3 + (n + 7) / 8) begin
            $fatal(1, "tb_via_net: instance %0d, message %0d of %0d (%0d bytes): %0d beats", r, m, src, n, f_n[r]);
        end
        for (k = 0; k < n; k = k + 1) begin
            b = 2 + k / 8;
            if (f_beat[r][b][8*(k%8) +: 8] !== pb(src, m, k) || !f_keep[r][b][k%8]) begin
                $fatal(1, "tb_via_net: instance %0d, message %0d of %0d: byte %0d differs", r, m, src, k);
            end
        end
        if (f_beat[r][f_n[r] - 1][31:0] !== 32'd0) begin
            $fatal(1, "tb_via_net: instance %0d, message %0d of %0d: trailer status %h", r, m, src, f_beat[r][f_n[r] - 1][31:0]);
        end
        got[r] = got[r] + 1;
    end
endtask

integer ri;
always @(posedge clk) begin
    for (ri = 0; ri < 2; ri = ri + 1) begin
        if (!rst && rx_tvalid[ri] && rx_tready[ri]) begin
            f_beat[ri][f_n[ri]] = rx_tdata[ri];
            f_keep[ri][f_n[ri]] = rx_tkeep[ri];
            f_n[ri] = f_n[ri] + 1;
            if (rx_tlast[ri]) begin
                check_frame(ri);
                f_n[ri] = 0;
            end else if (f_n[ri] > 100) begin
                $fatal(1, "tb_via_net: instance %0d: a frame of more than 100 beats", ri);
            end
        end
    end
end

// ------------------------------------------------------------ the run

integer want [0:1];
integer c, q;
initial begin
    s_msg[0] = 0; s_msg[1] = 0; s_beat[0] = 0; s_beat[1] = 0;
    s_valid[0] = 1'b0; s_valid[1] = 1'b0;
    s_rng[0] = 32'h0BADF00D; s_rng[1] = 32'h5EED1234;
    r_rng[0] = 32'hC0FFEE11; r_rng[1] = 32'h12345679;
    f_n[0] = 0; f_n[1] = 0; got[0] = 0; got[1] = 0;
    rx_tready[0] = 1'b0; rx_tready[1] = 1'b0;
    cmt_valid = 1'b0; cm_sent = 0; cm_got = 0; cm_rng = 32'h7777AAAA; cm_ready_b = 1'b0;
    #1;
    for (q = 0; q < 2; q = q + 1) begin
        exp_loop[q] = next_of(q, 0, 1'b0);
        exp_wire[q] = next_of(1 - q, 0, 1'b1);
        want[q] = 0;
    end
    for (q = 0; q < NMSG; q = q + 1) begin
        if (m_wire[0][q]) want[1] = want[1] + 1; else want[0] = want[0] + 1;
        if (m_wire[1][q]) want[0] = want[0] + 1; else want[1] = want[1] + 1;
    end
    repeat (5) @(posedge clk);
    rst = 1'b0;
    c = 0;
    while ((got[0] < want[0] || got[1] < want[1] || cm_got < NCM) && c < 1000000) begin
        @(posedge clk);
        c = c + 1;
    end
    if (cm_got != NCM) begin
        $fatal(1, "tb_via_net: %0d of %0d CONNECT messages arrived", cm_got, NCM);
    end
    if (g_dut[1].dut.rx_cm_reg != NCM) begin
        $fatal(1, "tb_via_net: NET_RX_CM %0d, want %0d", g_dut[1].dut.rx_cm_reg, NCM);
    end
    if (got[0] != want[0] || got[1] != want[1]) begin
        $fatal(1, "tb_via_net: received %0d and %0d messages, want %0d and %0d", got[0], got[1], want[0], want[1]);
    end
    repeat (50) @(posedge clk);
    for (q = 0; q < 2; q = q + 1) begin
        if (busy[q]) begin
            $fatal(1, "tb_via_net: instance %0d still busy after the last message", q);
        end
    end
    // the counters
    check_counters(0);
    check_counters(1);
    $display("tb_via_net: %0d + %0d messages (loopback and wire, 0..%0d bytes) and %0d CONNECT messages delivered whole and in order in %0d cycles",
             got[0], got[1], MAXB, NCM, c);
    $display("PASS");
    $finish;
end

task check_counters;
    input integer q;
    integer loop, wire_out, wire_in, frames_in, k;
    begin
        loop = 0; wire_out = 0; wire_in = 0; frames_in = 0;
        for (k = 0; k < NMSG; k = k + 1) begin
            if (m_wire[q][k]) wire_out = wire_out + 1; else loop = loop + 1;
            if (m_wire[1 - q][k]) begin
                wire_in = wire_in + 1;
                frames_in = frames_in + (m_len[1 - q][k] == 0 ? 1 : (m_len[1 - q][k] + MTU - 1) / MTU);
            end
        end
        if (q == 1) begin
            frames_in = frames_in + NCM;   // B also got A's CONNECT frames
        end
        if (q == 0) begin
            if (g_dut[0].dut.loop_msgs_reg != loop || g_dut[0].dut.cnt_tx_msgs != wire_out ||
                g_dut[0].dut.cnt_rx_msgs != wire_in || g_dut[0].dut.cnt_rx_good != frames_in ||
                g_dut[0].dut.cnt_rx_crc != 0 || g_dut[0].dut.cnt_rx_malformed != 0 ||
                g_dut[0].dut.cnt_rx_misrouted != 0 || g_dut[0].dut.cnt_rx_reasm != 0) begin
                $fatal(1, "tb_via_net: A's counters: loop %0d tx %0d rx %0d frames %0d crc %0d malformed %0d misrouted %0d reasm %0d; want %0d %0d %0d %0d",
                       g_dut[0].dut.loop_msgs_reg, g_dut[0].dut.cnt_tx_msgs, g_dut[0].dut.cnt_rx_msgs, g_dut[0].dut.cnt_rx_good,
                       g_dut[0].dut.cnt_rx_crc, g_dut[0].dut.cnt_rx_malformed, g_dut[0].dut.cnt_rx_misrouted, g_dut[0].dut.cnt_rx_reasm,
                       loop, wire_out, wire_in, frames_in);
            end
        end else begin
            if (g_dut[1].dut.loop_msgs_reg != loop || g_dut[1].dut.cnt_tx_msgs != wire_out ||
                g_dut[1].dut.cnt_rx_msgs != wire_in || g_dut[1].dut.cnt_rx_good != frames_in ||
                g_dut[1].dut.cnt_rx_crc != 0 || g_dut[1].dut.cnt_rx_malformed != 0 ||
                g_dut[1].dut.cnt_rx_misrouted != 0 || g_dut[1].dut.cnt_rx_reasm != 0) begin
                $fatal(1, "tb_via_net: B's counters: loop %0d tx %0d rx %0d frames %0d; want %0d %0d %0d %0d",
                       g_dut[1].dut.loop_msgs_reg, g_dut[1].dut.cnt_tx_msgs, g_dut[1].dut.cnt_rx_msgs, g_dut[1].dut.cnt_rx_good,
                       loop, wire_out, wire_in, frames_in);
            end
        end
    end
endtask

endmodule
