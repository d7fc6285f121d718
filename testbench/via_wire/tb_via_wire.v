// tb_via_wire: self-checking bench for rtl/via_wire_tx.v (packetizer) and
// rtl/via_wire_rx.v (depacketizer), back to back, MTU 256 bytes (so that
// messages of up to 2 KiB take up to 9 segments), 64-bit beats.
//
//   generator -> via_wire_tx -> capture (every wire frame recorded and
//   checked: header fields, segment sizes, CRC by a bit-serial reference)
//   -> driver (replays the frames, flipping one bit of chosen frames) ->
//   via_wire_rx -> sink (checks every internal frame against the message it
//   carries: IMM is the message's number)
//
// Phases:
//   1. clean: 150 random messages (0..2000 bytes, random VIs, immediate
//      flag), some addressed to another node (misrouted: counted, dropped),
//      some ending with a nonzero status (the sender's error: dropped), some
//      cut short; random gaps and back-pressure on every port; every other
//      message arrives intact and in order;
//   2. corrupt: 150 more with one bit flipped in every 7th frame: a damaged
//      message is never delivered intact (nothing, or an aborted frame), the
//      others are; cnt_crc counts exactly the frames flipped plus those with
//      a nonzero status;
//   3. injected frames: a short frame, a frame whose SEG_LEN disagrees with
//      its payload, an unknown KIND, a payload longer than MTU, a
//      continuation without a first segment, and a CONNECT frame (its
//      sender and 32 bytes must come out of the cm port); each counted in
//      its counter.

`timescale 1ns / 1ps

module tb_via_wire;

localparam MTU = 256;
localparam NMSG1 = 150, NMSG = 300;
localparam [7:0] TX_NODE = 8'd5, RX_NODE = 8'd3;

reg clk = 1'b0;
reg rst = 1'b1;
always #5 clk = ~clk;

reg [8*256-1:0] vcd_file;
initial begin
    if ($value$plusargs("vcd=%s", vcd_file)) begin
        $dumpfile(vcd_file);
        $dumpvars(0, tb_via_wire);
    end
end
initial begin
    #50000000;
    $fatal(1, "tb_via_wire: watchdog timeout");
end

`include "via_wire_crc.vh"
`include "via_keep.vh"

// pseudo-random numbers: xorshift32, one state per process (the same
// sequence in every simulator)
function [31:0] nx(input [31:0] x);
    reg [31:0] y;
    begin
        y = x ^ (x << 13);
        y = y ^ (y >> 17);
        nx = y ^ (y << 5);
    end
endfunction
reg [31:0] sg = 32'h1234_5678, sc = 32'h9E37_79B9, sd = 32'h7F4A_7C15, ss = 32'h2545_F491;
integer errors = 0;

// ------------------------------------------------------------ the DUTs

reg  [63:0] g_data = 64'd0;
reg  [7:0]  g_keep = 8'd0;
reg         g_valid = 1'b0, g_last = 1'b0;
wire        g_ready;
wire [63:0] w_data;
wire [7:0]  w_keep;
wire        w_valid, w_last;
reg         w_ready = 1'b0;
reg  [63:0] d_data = 64'd0;
reg  [7:0]  d_keep = 8'd0;
reg         d_valid = 1'b0, d_last = 1'b0;
wire        d_ready;
wire [63:0] r_data;
wire [7:0]  r_keep;
wire        r_valid, r_last;
reg         r_ready = 1'b0;
wire        cm_valid;
reg         cm_ready = 1'b0;
wire [7:0]  cm_src_node;
wire [15:0] cm_src_vi, cm_dst_vi;
wire [255:0] cm_data;
wire        tx_busy, rx_busy;
wire [31:0] tx_frames, tx_msgs;
wire [31:0] c_frames, c_crc, c_malformed, c_misrouted, c_kind, c_reasm, c_msgs;

via_wire_tx #(.MTU(MTU)) u_tx (
    .clk(clk), .rst(rst), .node_id(TX_NODE),
    .s_axis_tdata(g_data), .s_axis_tkeep(g_keep), .s_axis_tvalid(g_valid), .s_axis_tready(g_ready), .s_axis_tlast(g_last),
    .m_axis_tdata(w_data), .m_axis_tkeep(w_keep), .m_axis_tvalid(w_valid), .m_axis_tready(w_ready), .m_axis_tlast(w_last),
    .busy(tx_busy), .cnt_frames(tx_frames), .cnt_msgs(tx_msgs)
);

via_wire_rx #(.MTU(MTU), .BUF_BEATS(64), .SEGQ(4)) u_rx (
    .clk(clk), .rst(rst), .node_id(RX_NODE),
    .s_axis_tdata(d_data), .s_axis_tkeep(d_keep), .s_axis_tvalid(d_valid), .s_axis_tready(d_ready), .s_axis_tlast(d_last),
    .m_axis_tdata(r_data), .m_axis_tkeep(r_keep), .m_axis_tvalid(r_valid), .m_axis_tready(r_ready), .m_axis_tlast(r_last),
    .cm_valid(cm_valid), .cm_ready(cm_ready), .cm_src_node(cm_src_node), .cm_src_vi(cm_src_vi), .cm_dst_vi(cm_dst_vi),
    .cm_data(cm_data),
    .busy(rx_busy), .cnt_frames(c_frames), .cnt_crc(c_crc), .cnt_malformed(c_malformed),
    .cnt_misrouted(c_misrouted), .cnt_kind(c_kind), .cnt_reasm(c_reasm), .cnt_msgs(c_msgs)
);

// ------------------------------------------------------------ messages

reg [31:0] m_len   [0:NMSG-1];
reg [15:0] m_dvi   [0:NMSG-1];
reg [15:0] m_svi   [0:NMSG-1];
reg        m_immf  [0:NMSG-1];
reg [7:0]  m_node  [0:NMSG-1];   // peer node in the internal header (destination)
reg [31:0] m_stat  [0:NMSG-1];   // the sender's trailer status
reg [31:0] m_cut   [0:NMSG-1];   // payload bytes actually sent (< len: cut short)
reg        m_bad   [0:NMSG-1];   // a frame of it was damaged on the wire
reg        m_got   [0:NMSG-1];

function [7:0] pbyte(input integer m, input integer i);
    pbyte = m * 37 + i * 13 + (i >> 8);
endfunction

function deliverable(input integer m);
    deliverable = (m_node[m] == RX_NODE) && (m_stat[m] == 32'd0) && (m_cut[m] == m_len[m]) && !m_bad[m];
endfunction

integer m, i, k, r;
integer gk, sk;   // loop variables of the generator and the sink (each process its own)
integer gen_done = 0;

// drive one beat on the generator port, with random gaps. Inputs change
// at the falling edge; the ready seen after they settle is the one the next
// rising edge takes (so the handshake is never misread).
task g_beat(input [63:0] data, input [7:0] keep, input last);
    begin
        @(negedge clk);
        sg = nx(sg);
        while (sg % 5 == 0) begin
            @(negedge clk);
            sg = nx(sg);
        end
        g_data = data; g_keep = keep; g_last = last; g_valid = 1'b1;
        #1;
        while (!g_ready) begin
            @(negedge clk);
            #1;
        end
        @(posedge clk);  // taken here
        #1;
        g_valid = 1'b0;
    end
endtask

task gen_msgs(input integer from, input integer to);
    reg [63:0] d;
    reg [7:0]  kp;
    integer n, off;
    begin
        for (m = from; m < to; m = m + 1) begin
            sg = nx(sg); r = sg % 100;
            sg = nx(sg);
            m_len[m] = (r < 10) ? 0 : (r < 40) ? (sg % 16) : (sg % 2001);
            sg = nx(sg); m_dvi[m] = sg[15:0];
            sg = nx(sg); m_svi[m] = sg[15:0];
            sg = nx(sg); m_immf[m] = sg[7];
            sg = nx(sg); m_node[m] = (sg % 12 == 0) ? 8'd9 : RX_NODE;
            sg = nx(sg); m_stat[m] = (sg % 15 == 0) ? 32'h0000_0004 : 32'd0;
            m_cut[m] = m_len[m];
            sg = nx(sg);
            if (m_len[m] > 8 && sg % 15 == 0) begin
                sg = nx(sg);
                m_cut[m] = sg % m_len[m];
                m_stat[m] = 32'h0000_0040;
            end
            m_bad[m] = 1'b0;
            m_got[m] = 1'b0;
            if ($test$plusargs("debug")) $display("gen %0d: len %0d node %0d stat %0d cut %0d", m, m_len[m], m_node[m], m_stat[m], m_cut[m]);
            g_beat({m_len[m], m_svi[m], m_dvi[m]}, 8'hFF, 1'b0);
            g_beat({8'd0, m_node[m], 8'd0, 7'd0, m_immf[m], m[31:0]}, 8'hFF, 1'b0);
            for (off = 0; off < m_cut[m]; off = off + 8) begin
                n = (m_cut[m] - off > 8) ? 8 : m_cut[m] - off;
                d = 64'd0;
                for (gk = 0; gk < n; gk = gk + 1) d[8*gk +: 8] = pbyte(m, off + gk);
                kp = 8'hFF >> (8 - n);
                g_beat(d, kp, 1'b0);
            end
            g_beat({32'd0, m_stat[m]}, 8'hFF, 1'b1);
        end
    end
endtask

// ------------------------------------------------------------ capture

localparam WQ = 1 << 17;
reg [63:0] wq_data [0:WQ-1];
reg [7:0]  wq_keep [0:WQ-1];
reg        wq_last [0:WQ-1];
integer    wq_wr = 0, wq_rd = 0;
integer    cap_frames = 0, cap_first = 0;
// the frame being captured: checks
integer    cb = 0;               // beat within the frame
reg [31:0] ccrc;
reg [63:0] ch0, ch1, ch2;
integer    cpay;                 // payload bytes
reg [31:0] wire_msg [0:WQ/4];    // message number of each captured frame

always @(posedge clk) begin
    if (rst) begin
        w_ready <= 1'b0;
    end else begin
        sc = nx(sc);
        w_ready <= (sc % 6 != 0);
        if (w_valid && w_ready) begin
            wq_data[wq_wr % WQ] = w_data;
            wq_keep[wq_wr % WQ] = w_keep;
            wq_last[wq_wr % WQ] = w_last;
            wq_wr = wq_wr + 1;
            if (cb == 0) begin
                ccrc = 32'hFFFF_FFFF;
                cpay = 0;
            end
            if (w_last) begin
                // the trailer: CRC and the header's promises
                if (w_data[31:0] !== ~ccrc) begin
                    $display("tb_via_wire: ERROR frame %0d: CRC %08x, computed %08x", cap_frames, w_data[31:0], ~ccrc);
                    errors = errors + 1;
                end
                if ((w_data[63:32] == 32'd0 && ch2[47:32] != cpay[15:0]) || cpay > MTU) begin
                    $display("tb_via_wire: ERROR frame %0d: SEG_LEN %0d, payload %0d", cap_frames, ch2[47:32], cpay);
                    errors = errors + 1;
                end
                if (ch0[15:8] != TX_NODE || ch0[55:48] != 8'd0) begin
                    $display("tb_via_wire: ERROR frame %0d: SRC_NODE %0d KIND %0d", cap_frames, ch0[15:8], ch0[55:48]);
                    errors = errors + 1;
                end
                cap_frames = cap_frames + 1;
                cb = 0;
            end else begin
                if (cb == 0) begin
                    ch0 = w_data;
                    if (w_data[56]) cap_first = cap_first + 1;  // FIRST
                    // (known before the frame is replayed: the driver may
                    // start on it before its trailer is captured)
                    wire_msg[cap_frames] = cap_first - 1;
                end
                if (cb == 1) ch1 = w_data;
                if (cb == 2) ch2 = w_data;
                ccrc = via_wire_crc32_d64(ccrc, w_data, cb < 4 ? 4'd8 : via_keep_bytes(w_keep));
                if (cb >= 4) cpay = cpay + via_keep_bytes(w_keep);
                cb = cb + 1;
            end
        end
    end
end

// ------------------------------------------------------------ driver

integer corrupt_every = 0;       // 0: none; N: flip a bit in every Nth frame
integer drv_frames = 0, flipped = 0;
integer drv_beat = 0;            // beat within the frame being driven
integer flip_beat = -1;
reg     injecting = 1'b0;

always @(posedge clk) begin
    if (rst) begin
        d_valid <= 1'b0;
    end else if (!injecting) begin
        if (d_valid && d_ready) begin
            d_valid <= 1'b0;
        end
        sd = nx(sd);
        if ((!d_valid || d_ready) && wq_rd < wq_wr && sd % 7 != 0) begin
            if (drv_beat == 0) begin
                flip_beat = -1;
                if (corrupt_every > 0 && drv_frames % corrupt_every == corrupt_every - 1) begin
                    // a bit somewhere in the frame's first beats
                    sd = nx(sd);
                    flip_beat = sd % 6;
                end
            end
            d_data <= wq_data[wq_rd % WQ];
            d_keep <= wq_keep[wq_rd % WQ];
            d_last <= wq_last[wq_rd % WQ];
            if (drv_beat == flip_beat || (wq_last[wq_rd % WQ] && flip_beat > drv_beat)) begin
                sd = nx(sd);
                d_data <= wq_data[wq_rd % WQ] ^ (64'd1 << (sd % 32));
                if (!m_bad[wire_msg[drv_frames]]) m_bad[wire_msg[drv_frames]] = 1'b1;
                flipped = flipped + 1;
                flip_beat = -2;  // once
            end
            d_valid <= 1'b1;
            wq_rd = wq_rd + 1;
            if (wq_last[(wq_rd - 1) % WQ]) begin
                drv_beat = 0;
                drv_frames = drv_frames + 1;
            end else begin
                drv_beat = drv_beat + 1;
            end
        end
    end
end

// ------------------------------------------------------------ sink

integer sb = 0;                  // beat within the internal frame
integer s_msg = -1, s_next = 0, s_off = 0, delivered = 0, aborted = 0;
reg [63:0] sh0;
reg        s_fail;

always @(posedge clk) begin
    if (rst) begin
        r_ready <= 1'b0;
    end else begin
        ss = nx(ss);
        r_ready <= (ss % 4 != 0);
        if (r_valid && r_ready) begin
            if (sb == 0) begin
                sh0 = r_data;
                sb = 1;
            end else if (sb == 1) begin
                s_msg = r_data[31:0];
                s_off = 0;
                s_fail = 1'b0;
                if (s_msg < s_next || s_msg >= NMSG) begin
                    $display("tb_via_wire: ERROR frame for message %0d, expected %0d or later", s_msg, s_next);
                    errors = errors + 1;
                end else begin
                    for (sk = s_next; sk < s_msg; sk = sk + 1) begin
                        if (deliverable(sk)) begin
                            $display("tb_via_wire: ERROR message %0d lost (len %0d)", sk, m_len[sk]);
                            errors = errors + 1;
                        end
                    end
                    s_next = s_msg + 1;
                    if (sh0 !== {m_len[s_msg], m_svi[s_msg], m_dvi[s_msg]} ||
                        r_data[63:32] !== {8'd0, TX_NODE, 8'd0, 7'd0, m_immf[s_msg]}) begin
                        $display("tb_via_wire: ERROR message %0d header %016x %016x", s_msg, sh0, r_data);
                        errors = errors + 1;
                    end
                end
                sb = 2;
            end else if (!r_last) begin
                for (sk = 0; sk < 8; sk = sk + 1) begin
                    if (r_keep[sk]) begin
                        if (r_data[8*sk +: 8] !== pbyte(s_msg, s_off)) s_fail = 1'b1;
                        s_off = s_off + 1;
                    end
                end
            end else begin
                // the trailer
                if (r_data[31:0] == 32'd0) begin
                    if (!deliverable(s_msg) || s_fail || s_off != m_len[s_msg]) begin
                        $display("tb_via_wire: ERROR message %0d delivered whole but %0s (%0d of %0d bytes, bad %0d)", s_msg,
                                 deliverable(s_msg) ? "its bytes differ" : "it should not be", s_off, m_len[s_msg], m_bad[s_msg]);
                        errors = errors + 1;
                    end
                    m_got[s_msg] = 1'b1;
                    delivered = delivered + 1;
                end else begin
                    if (deliverable(s_msg)) begin
                        $display("tb_via_wire: ERROR message %0d aborted (status %08x) but nothing happened to it", s_msg, r_data[31:0]);
                        errors = errors + 1;
                    end
                    aborted = aborted + 1;
                end
                sb = 0;
            end
        end
    end
end

// ------------------------------------------------------------ injection

reg [63:0] ib [0:63];
integer    in_n;

task inj_send;  // drive ib[0..in_n-1], the last with tlast (as g_beat)
    begin
        @(negedge clk);
        injecting = 1'b1;
        for (k = 0; k < in_n; k = k + 1) begin
            d_data = ib[k]; d_keep = 8'hFF; d_last = (k == in_n - 1); d_valid = 1'b1;
            #1;
            while (!d_ready) begin
                @(negedge clk);
                #1;
            end
            @(negedge clk);
        end
        d_valid = 1'b0;
        injecting = 1'b0;
    end
endtask

// a frame: header fields, npay payload beats of pattern, trailer with a
// correct CRC (unless bad_crc)
task inj_frame(input [7:0] kind, input [7:0] flags, input [15:0] seg_len, input integer npay, input [31:0] msg_len,
               input [31:0] offset);
    reg [31:0] c;
    begin
        ib[0] = {flags, kind, 16'd7, 16'd2, TX_NODE, RX_NODE};
        ib[1] = {msg_len, 32'd0};
        ib[2] = {16'd0, seg_len, offset};
        ib[3] = {32'd0, 32'hABCD0000};
        for (k = 0; k < npay; k = k + 1) ib[4 + k] = {32'hC0DE0000 + k, 32'h5EED0000 + k};
        c = 32'hFFFF_FFFF;
        for (k = 0; k < 4 + npay; k = k + 1) c = via_wire_crc32_d64(c, ib[k], 4'd8);
        ib[4 + npay] = {32'd0, ~c};
        in_n = 5 + npay;
        inj_send();
    end
endtask

task expect_cnt(input [31:0] got, input [31:0] want, input [8*24-1:0] what);
    begin
        if (got !== want) begin
            $display("tb_via_wire: ERROR %0s: counter %0d, want %0d", what, got, want);
            errors = errors + 1;
        end
    end
endtask

task drain;
    integer idle;
    begin
        idle = 0;
        while (idle < 200) begin
            @(posedge clk);
            if (tx_busy || rx_busy || wq_rd < wq_wr || g_valid || d_valid || sb != 0) idle = 0;
            else idle = idle + 1;
        end
    end
endtask

integer n_mis, n_stat, n_deliv;
reg [31:0] base_mal, base_kind, base_reasm, base_frames;

initial begin
    repeat (4) @(posedge clk);
    rst = 1'b0;

    // 1. clean
    gen_msgs(0, NMSG1);
    drain();
    // 2. corrupt
    corrupt_every = 7;
    gen_msgs(NMSG1, NMSG);
    drain();
    corrupt_every = 0;

    n_mis = 0; n_stat = 0; n_deliv = 0;
    for (m = 0; m < NMSG; m = m + 1) begin
        if (deliverable(m)) begin
            n_deliv = n_deliv + 1;
            if (!m_got[m]) begin
                $display("tb_via_wire: ERROR message %0d (len %0d) never delivered", m, m_len[m]);
                errors = errors + 1;
            end
        end
    end
    // frames on the wire that the receiver must drop: misrouted ones, and
    // those whose trailer carries the sender's status
    for (i = 0; i < cap_frames; i = i + 1) begin
        if (m_node[wire_msg[i]] != RX_NODE) n_mis = n_mis + 1;
    end
    $display("tb_via_wire: %0d messages, %0d wire frames (%0d with a bit flipped), %0d delivered whole, %0d aborted",
             NMSG, cap_frames, flipped, delivered, aborted);
    $display("tb_via_wire: rx counters: frames %0d crc/status %0d malformed %0d misrouted %0d kind %0d reassembly %0d messages %0d",
             c_frames, c_crc, c_malformed, c_misrouted, c_kind, c_reasm, c_msgs);
    expect_cnt(delivered, n_deliv, "messages delivered");
    expect_cnt(c_msgs, n_deliv, "cnt_msgs");
    expect_cnt(tx_frames, cap_frames, "tx cnt_frames");
    expect_cnt(tx_msgs, NMSG, "tx cnt_msgs");
    if (c_misrouted > n_mis) begin
        $display("tb_via_wire: ERROR misrouted %0d of %0d such frames", c_misrouted, n_mis);
        errors = errors + 1;
    end
    if (c_frames + c_crc + c_malformed + c_misrouted + c_kind != cap_frames) begin
        $display("tb_via_wire: ERROR the receiver's verdicts (%0d) do not add up to the frames sent (%0d)",
                 c_frames + c_crc + c_malformed + c_misrouted + c_kind, cap_frames);
        errors = errors + 1;
    end
    if (c_crc < flipped) begin
        $display("tb_via_wire: ERROR %0d frames flipped, %0d dropped for CRC/status", flipped, c_crc);
        errors = errors + 1;
    end

    // 3. injected frames
    base_mal = c_malformed; base_kind = c_kind; base_reasm = c_reasm; base_frames = c_frames;
    ib[0] = 64'h1; ib[1] = 64'h2; in_n = 2;
    inj_send();                                           // short
    drain();
    expect_cnt(c_malformed, base_mal + 1, "short frame");
    inj_frame(8'd0, 8'h03, 16'd20, 2, 32'd20, 32'd0);     // SEG_LEN 20, 16 bytes come
    drain();
    expect_cnt(c_malformed, base_mal + 2, "SEG_LEN mismatch");
    inj_frame(8'd7, 8'h03, 16'd16, 2, 32'd16, 32'd0);     // unknown KIND
    drain();
    expect_cnt(c_kind, base_kind + 1, "unknown kind");
    inj_frame(8'd0, 8'h03, 16'd0, MTU / 8 + 1, 32'd264, 32'd0);  // payload > MTU
    drain();
    expect_cnt(c_malformed, base_mal + 3, "payload over MTU");
    inj_frame(8'd0, 8'h02, 16'd16, 2, 32'd272, 32'd256);  // a continuation, no first
    drain();
    expect_cnt(c_reasm, base_reasm + 1, "continuation without first");
    expect_cnt(c_frames, base_frames + 1, "good frames among the injected");
    // CONNECT: its payload comes out of the cm port
    inj_frame(8'd1, 8'h03, 16'd32, 4, 32'd32, 32'd0);
    k = 0;
    while (!cm_valid && k < 200) begin @(posedge clk); k = k + 1; end
    if (!cm_valid || cm_src_node != TX_NODE || cm_src_vi != 16'd7 || cm_dst_vi != 16'd2 ||
        cm_data !== {32'hC0DE0003, 32'h5EED0003, 32'hC0DE0002, 32'h5EED0002, 32'hC0DE0001, 32'h5EED0001,
                     32'hC0DE0000, 32'h5EED0000}) begin
        $display("tb_via_wire: ERROR CONNECT: valid %0d node %0d vi %0d->%0d data %064x", cm_valid, cm_src_node,
                 cm_src_vi, cm_dst_vi, cm_data);
        errors = errors + 1;
    end
    cm_ready = 1'b1;
    @(posedge clk);
    cm_ready = 1'b0;
    drain();
    if (cm_valid) begin
        $display("tb_via_wire: ERROR cm_valid stays after cm_ready");
        errors = errors + 1;
    end

    if (errors == 0) begin
        $display("PASS");
    end else begin
        $display("FAIL: %0d errors", errors);
        $fatal(1, "tb_via_wire failed");
    end
    $finish;
end

endmodule
