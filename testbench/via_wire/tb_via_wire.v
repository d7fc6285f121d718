// tb_via_wire: self-checking bench for rtl/via_wire_tx.v (packetizer) and
// rtl/via_wire_rx.v (depacketizer), back to back, MTU 256 bytes (so that
// messages of up to 2 KiB take up to 9 segments), 64-bit beats.
//
//   generator -> via_wire_tx -> capture (every wire frame recorded and
//   checked beat for beat: every header field, the RDMA extension, the
//   payload bytes, segment sizes, STATUS, CRC by a bit-serial reference)
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
//   4. RDMA through both: fixed RDMA write cases (one segment, exactly MTU,
//      several segments with a length not a multiple of 8, zero length,
//      with and without immediate, a remote VA whose low 32 bits and whose
//      64 bits carry over between segments, a send between RDMA writes,
//      the sender's status, a message cut short, a nonzero TAG carried), an
//      internal frame with an unknown OP and two whose RDMA extension is
//      cut short (the packetizer sends nothing for them); RDMA read
//      requests (OP 2 -> one KIND 3 frame, MSG_LEN 0, IMM the read length;
//      one whose internal frame has a payload, which the packetizer drops;
//      one with the sender's status) and responses (OP 3 -> KIND 4: one
//      segment, 4 segments, 2 whole ones with a VA that carries, zero
//      length; with the sender's status: cut short in its second segment,
//      whole with the status on its only segment, cut before any byte:
//      each comes out with the bytes sent and the sender's status, unlike
//      a send's or RDMA write's); then 40 random sends, RDMA writes, read
//      requests and read responses with a bit flipped in every 5th frame.
//      Every wire frame of every phase is checked beat for beat (KIND 2, 3,
//      4 and the extension REMOTE_VA = VA + OFFSET, REMOTE_HANDLE, TAG),
//      every internal frame out of the receiver too (OP 1..3, IMM and its
//      flag, the extension with the first VA, the handle and the TAG, the
//      payload). Read requests and responses are identified by their TAG's
//      low half (the message number), the others by IMM.
//   5. injected RDMA frames: good ones (one and two segments), and
//      continuations with a wrong REMOTE_VA (off by 8, or the first
//      segment's VA without OFFSET), a wrong REMOTE_HANDLE, another KIND
//      (RDMA after SEND and SEND after RDMA): the message comes out aborted
//      (trailer status nonzero) and cnt_reasm counts 2; RDMA frames cut
//      short in their extension (malformed); a bit flipped in the extension
//      (VA, handle, TAG) after the CRC (cnt_crc); a good RDMA_READ_REQ (OP
//      2); an ACK (unknown KIND); a good two-segment RDMA_READ_RESP (OP 3);
//      response continuations with another TAG, another REMOTE_HANDLE, a
//      REMOTE_VA off by 8, and a READ_RESP after an RDMA_WRITE first
//      segment (aborted, cnt_reasm 2 each); READ_REQs with a payload or not
//      FIRST and LAST (malformed); READ_RESPs ended by their sender with a
//      status (STATUS nonzero, good CRC: cnt_crc; one segment, and the
//      second of two with fewer bytes than its SEG_LEN: they come out with
//      that status and the bytes that came; a second segment with another
//      TAG: the open message is aborted, the frame dropped; a second
//      segment with nothing open: dropped); then a good one again.

`timescale 1ns / 1ps

module tb_via_wire;

localparam MTU = 256;
localparam NMSG1 = 150, NMSG = 300;
localparam NALL = NMSG + 120;   // with the messages of phases 4 and 5
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

reg [31:0] m_len   [0:NALL-1];
reg [15:0] m_dvi   [0:NALL-1];
reg [15:0] m_svi   [0:NALL-1];
reg        m_immf  [0:NALL-1];
reg [7:0]  m_node  [0:NALL-1];   // peer node in the internal header (destination)
reg [31:0] m_stat  [0:NALL-1];   // the sender's trailer status
reg [31:0] m_cut   [0:NALL-1];   // payload bytes actually sent (< len: cut short)
reg        m_bad   [0:NALL-1];   // a frame of it was damaged on the wire (or injected bad)
reg        m_got   [0:NALL-1];   // delivered whole
reg        m_abt   [0:NALL-1];   // delivered aborted (trailer status nonzero)
reg [31:0] m_rst   [0:NALL-1];   // that trailer's status
integer    m_rlen  [0:NALL-1];   // and the payload bytes that came before it
reg        m_rfail [0:NALL-1];   // some of them differ from the message's
reg [7:0]  m_op    [0:NALL-1];   // internal OP: 0 send, 1 RDMA write, 2 RDMA read request,
                                 // 3 RDMA read response, other: unknown
reg [63:0] m_va    [0:NALL-1];   // RDMA: remote VA of the first byte
reg [31:0] m_hdl   [0:NALL-1];   // RDMA: remote handle
reg [31:0] m_tag   [0:NALL-1];   // RDMA: TAG (read request/response: {any, message number})
reg [31:0] m_imm   [0:NALL-1];   // IMM (the message number; a read request's length; 0 in a response)
reg [31:0] m_xpay  [0:NALL-1];   // read request: payload bytes the packetizer must drop
reg [1:0]  m_xcut  [0:NALL-1];   // 1/2: the internal frame ends in place of extension beat 0/1
integer    m_nfr   [0:NALL-1];   // wire frames captured

function [7:0] pbyte(input integer m, input integer i);
    pbyte = m * 37 + i * 13 + (i >> 8);
endfunction

function deliverable(input integer m);
    deliverable = (m_node[m] == RX_NODE) && (m_stat[m] == 32'd0) && (m_cut[m] == m_len[m]) && !m_bad[m] &&
                  (m_op[m] <= 8'd3) && (m_xcut[m] == 2'd0);
endfunction

// a read response whose sender ended it with a status (cut short or not),
// to this node, no frame of it damaged: the depacketizer must deliver it
// with that status and the m_cut bytes that were sent
function status_out(input integer m);
    status_out = (m_op[m] == 8'd3) && (m_node[m] == RX_NODE) && (m_stat[m] != 32'd0) && !m_bad[m] &&
                 (m_xcut[m] == 2'd0);
endfunction

// does the packetizer send the message (a known OP, a whole extension)?
function sendable(input integer m);
    sendable = (m_op[m] <= 8'd3) && (m_xcut[m] == 2'd0);
endfunction

// the wire frames the packetizer sends for a message
function integer nframes(input integer m);
    begin
        if (!sendable(m)) nframes = 0;
        else if (m_cut[m] < m_len[m]) nframes = m_cut[m] / MTU + 1;  // (ends in the segment of the cut)
        else if (m_len[m] == 0) nframes = 1;
        else nframes = (m_len[m] + MTU - 1) / MTU;
    end
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

// messages the packetizer sends, in order (the capture's frame -> message)
integer wexp [0:NALL-1];
integer wexp_n = 0;

// drive message mi's internal frame from the tables: header, the RDMA
// extension (OP 1..3; m_xcut puts the trailer in place of one of its
// beats), the first m_cut bytes of the payload (a read request: m_xpay
// bytes, LENGTH m_xpay), the trailer
task gen_one(input integer mi);
    reg [63:0] d;
    reg [7:0]  kp;
    integer n, off;
    begin
        m_nfr[mi] = 0;
        if (sendable(mi)) begin
            wexp[wexp_n] = mi;
            wexp_n = wexp_n + 1;
        end
        g_beat({m_len[mi] + m_xpay[mi], m_svi[mi], m_dvi[mi]}, 8'hFF, 1'b0);
        g_beat({8'd0, m_node[mi], m_op[mi], 7'd0, m_immf[mi], m_imm[mi]}, 8'hFF, 1'b0);
        if (m_op[mi] >= 8'd1 && m_op[mi] <= 8'd3 && m_xcut[mi] != 2'd1) g_beat(m_va[mi], 8'hFF, 1'b0);
        if (m_op[mi] >= 8'd1 && m_op[mi] <= 8'd3 && m_xcut[mi] == 2'd0) g_beat({m_tag[mi], m_hdl[mi]}, 8'hFF, 1'b0);
        if (m_xcut[mi] == 2'd0) begin
            for (off = 0; off < m_cut[mi] + m_xpay[mi]; off = off + 8) begin
                n = (m_cut[mi] + m_xpay[mi] - off > 8) ? 8 : m_cut[mi] + m_xpay[mi] - off;
                d = 64'd0;
                for (gk = 0; gk < n; gk = gk + 1) d[8*gk +: 8] = pbyte(mi, off + gk);
                kp = 8'hFF >> (8 - n);
                g_beat(d, kp, 1'b0);
            end
        end
        g_beat({32'd0, m_stat[mi]}, 8'hFF, 1'b1);
    end
endtask

// random messages from..to-1; with_rdma: a quarter each sends, RDMA writes
// (random VA and handle), RDMA read requests (no payload, a random read
// length in IMM, random VA, handle and tag) and RDMA read responses (VA
// and handle 0, random tag, IMM 0 without the flag); without, the same
// random sequence as ever (sends only)
task gen_msgs(input integer from, input integer to, input with_rdma);
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
            m_abt[m] = 1'b0;
            m_rst[m] = 32'd0; m_rlen[m] = 0; m_rfail[m] = 1'b0;
            m_xcut[m] = 2'd0;
            m_op[m] = 8'd0; m_va[m] = 64'd0; m_hdl[m] = 32'd0;
            m_tag[m] = 32'd0; m_imm[m] = m; m_xpay[m] = 32'd0;
            if (with_rdma) begin
                sg = nx(sg); m_op[m] = {6'd0, sg[4:3]};
                sg = nx(sg); m_va[m][63:32] = sg;
                sg = nx(sg); m_va[m][31:0] = sg;
                sg = nx(sg); m_hdl[m] = sg;
                sg = nx(sg);
                if (m_op[m] == 8'd2) begin
                    m_len[m] = 0; m_cut[m] = 0; m_immf[m] = 1'b1;
                    m_imm[m] = sg % 70000;
                    m_tag[m] = {sg[31:16] ^ 16'h3C3C, m[15:0]};
                end else if (m_op[m] == 8'd3) begin
                    m_va[m] = 64'd0; m_hdl[m] = 32'd0; m_immf[m] = 1'b0; m_imm[m] = 32'd0;
                    m_tag[m] = {sg[15:0], m[15:0]};
                end
            end
            if ($test$plusargs("debug")) $display("gen %0d: op %0d len %0d node %0d stat %0d cut %0d", m, m_op[m], m_len[m], m_node[m], m_stat[m], m_cut[m]);
            gen_one(m);
        end
    end
endtask

// a message of phase 4 or 5 (to this node, whole, no status; IMM: the
// message number, for a read request a read length, for a response 0;
// TAG: for the read ops {a pattern, the message number}, else 0)
task set_msg(input integer mi, input [7:0] op, input [31:0] len, input immf, input [63:0] va, input [31:0] hdl);
    begin
        m_op[mi] = op; m_len[mi] = len; m_immf[mi] = immf; m_va[mi] = va; m_hdl[mi] = hdl;
        m_imm[mi] = (op == 8'd2) ? 32'h0000_1000 + mi : (op == 8'd3) ? 32'd0 : mi;
        m_tag[mi] = (op == 8'd2 || op == 8'd3) ? {16'hA000 ^ mi[15:0], mi[15:0]} : 32'd0;
        m_xpay[mi] = 32'd0;
        m_dvi[mi] = 16'h0100 + mi[15:0]; m_svi[mi] = 16'h0200 + mi[15:0];
        m_node[mi] = RX_NODE; m_stat[mi] = 32'd0; m_cut[mi] = len; m_xcut[mi] = 2'd0;
        m_bad[mi] = 1'b0; m_got[mi] = 1'b0; m_abt[mi] = 1'b0; m_nfr[mi] = 0;
        m_rst[mi] = 32'd0; m_rlen[mi] = 0; m_rfail[mi] = 1'b0;
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
integer    chn = 4;              // its header beats (HDR 4, with the RDMA extension 6: KIND 2..4)
integer    cmsg = 0;             // its message
integer    cseg = 0;             // its segment number in the message
integer    coff = 0, cslen = 0;  // the OFFSET and SEG_LEN it must have
integer    cn, cj;
integer    cap_stat = 0;         // frames with a nonzero STATUS
reg [31:0] wire_msg [0:WQ/4];    // message number of each captured frame

// header beat b of segment (off, sl) of message mi, as the packetizer must
// send it
function [63:0] exp_hdr(input integer mi, input integer b, input integer off, input integer sl);
    reg [7:0] fl;
    reg [31:0] o32, s32;
    begin
        o32 = off; s32 = sl;
        fl = {5'd0, m_immf[mi], (off + sl == m_len[mi]) ? 1'b1 : 1'b0, (off == 0) ? 1'b1 : 1'b0};
        case (b)
        0: exp_hdr = {fl, (m_op[mi] == 8'd0) ? 8'd0 : m_op[mi] + 8'd1, m_svi[mi], m_dvi[mi], TX_NODE, m_node[mi]};
        1: exp_hdr = {m_len[mi], 32'd0};
        2: exp_hdr = {16'd0, s32[15:0], o32};
        3: exp_hdr = {32'd0, m_imm[mi]};
        4: exp_hdr = m_va[mi] + {32'd0, o32};
        default: exp_hdr = {m_tag[mi], m_hdl[mi]};
        endcase
    end
endfunction

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
                if (cb < chn) begin
                    $display("tb_via_wire: ERROR frame %0d: trailer after %0d header beats", cap_frames, cb);
                    errors = errors + 1;
                end
                // STATUS: 0, or the sender's (its last segment, or where it was cut)
                if (w_data[63:32] != 32'd0) cap_stat = cap_stat + 1;
                if ((w_data[63:32] != 32'd0 && w_data[63:32] !== m_stat[cmsg]) ||
                    (w_data[63:32] == 32'd0 && ch0[57] && m_stat[cmsg] != 32'd0) || w_keep !== 8'hFF) begin
                    $display("tb_via_wire: ERROR frame %0d (message %0d): STATUS %08x keep %02x, sender's status %08x",
                             cap_frames, cmsg, w_data[63:32], w_keep, m_stat[cmsg]);
                    errors = errors + 1;
                end
                m_nfr[cmsg] = m_nfr[cmsg] + 1;
                cap_frames = cap_frames + 1;
                cb = 0;
            end else begin
                if (cb == 0) begin
                    ch0 = w_data;
                    if (w_data[56]) begin  // FIRST
                        cap_first = cap_first + 1;
                        cseg = 0;
                    end else begin
                        cseg = cseg + 1;
                    end
                    cmsg = (cap_first > 0) ? wexp[cap_first - 1] : 0;
                    // (known before the frame is replayed: the driver may
                    // start on it before its trailer is captured)
                    wire_msg[cap_frames] = cmsg;
                    chn = (w_data[55:48] >= 8'd2 && w_data[55:48] <= 8'd4) ? 6 : 4;
                    coff = cseg * MTU;
                    cslen = m_len[cmsg] - coff;
                    if (cslen > MTU) cslen = MTU;
                end
                if (cb == 1) ch1 = w_data;
                if (cb == 2) ch2 = w_data;
                if (cb < chn) begin
                    // a header beat: every field as the message says
                    if (w_data !== exp_hdr(cmsg, cb, coff, cslen) || w_keep !== 8'hFF) begin
                        $display("tb_via_wire: ERROR frame %0d (message %0d segment %0d) header beat %0d: %016x keep %02x, want %016x",
                                 cap_frames, cmsg, cseg, cb, w_data, w_keep, exp_hdr(cmsg, cb, coff, cslen));
                        errors = errors + 1;
                    end
                end else begin
                    // a payload beat: lanes from 0, the message's bytes
                    cn = via_keep_bytes(w_keep);
                    if (cn == 0 || w_keep !== (8'hFF >> (8 - cn))) begin
                        $display("tb_via_wire: ERROR frame %0d: payload keep %02x", cap_frames, w_keep);
                        errors = errors + 1;
                    end
                    for (cj = 0; cj < cn; cj = cj + 1) begin
                        if (w_data[8*cj +: 8] !== pbyte(cmsg, coff + cpay + cj)) begin
                            $display("tb_via_wire: ERROR frame %0d (message %0d): payload byte %0d is %02x, want %02x",
                                     cap_frames, cmsg, coff + cpay + cj, w_data[8*cj +: 8], pbyte(cmsg, coff + cpay + cj));
                            errors = errors + 1;
                        end
                    end
                end
                ccrc = via_wire_crc32_d64(ccrc, w_data, cb < chn ? 4'd8 : via_keep_bytes(w_keep));
                if (cb >= chn) cpay = cpay + via_keep_bytes(w_keep);
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
integer s_hdrn = 2;              // its header beats (2; with the RDMA extension 4)
integer s_msg = -1, s_next = 0, s_off = 0, delivered = 0, aborted = 0;
reg [63:0] sh0, sh1, sva;
reg [7:0]  s_op;
reg        s_fail;

// the internal frame's message is known (s_msg): in order, none lost
// before it, its header as the tables say
task s_ident;
    begin
        if (s_msg < s_next || s_msg >= NALL) begin
            $display("tb_via_wire: ERROR frame for message %0d, expected %0d or later", s_msg, s_next);
            errors = errors + 1;
            s_msg = -1;
        end else begin
            for (sk = s_next; sk < s_msg; sk = sk + 1) begin
                if (deliverable(sk)) begin
                    $display("tb_via_wire: ERROR message %0d lost (len %0d)", sk, m_len[sk]);
                    errors = errors + 1;
                end
            end
            s_next = s_msg + 1;
            if (sh0 !== {m_len[s_msg], m_svi[s_msg], m_dvi[s_msg]} ||
                sh1 !== {8'd0, TX_NODE, m_op[s_msg], 7'd0, m_immf[s_msg], m_imm[s_msg]}) begin
                $display("tb_via_wire: ERROR message %0d header %016x %016x", s_msg, sh0, sh1);
                errors = errors + 1;
            end
        end
    end
endtask

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
                // the message: IMM (sends, RDMA writes), else the TAG's
                // low half (read requests and responses: in the extension)
                sh1 = r_data;
                s_op = r_data[47:40];
                s_off = 0;
                s_fail = 1'b0;
                s_hdrn = (s_op >= 8'd1 && s_op <= 8'd3) ? 4 : 2;
                if (s_op == 8'd2 || s_op == 8'd3) begin
                    s_msg = -1;
                end else begin
                    s_msg = r_data[31:0];
                    s_ident();
                end
                sb = 2;
            end else if (!r_last && sb < s_hdrn) begin
                // the RDMA extension: the first segment's REMOTE_VA, {TAG,
                // the handle}
                if (r_keep !== 8'hFF) begin
                    $display("tb_via_wire: ERROR RDMA extension beat %0d keep %02x", sb - 2, r_keep);
                    errors = errors + 1;
                end
                if (sb == 2) begin
                    sva = r_data;
                end else begin
                    if (s_op == 8'd2 || s_op == 8'd3) begin
                        s_msg = r_data[47:32];
                        s_ident();
                    end
                    if (s_msg >= 0 && s_msg < NALL && (sva !== m_va[s_msg] || r_data !== {m_tag[s_msg], m_hdl[s_msg]})) begin
                        $display("tb_via_wire: ERROR message %0d RDMA extension %016x %016x, want %016x %016x", s_msg,
                                 sva, r_data, m_va[s_msg], {m_tag[s_msg], m_hdl[s_msg]});
                        errors = errors + 1;
                    end
                end
                sb = sb + 1;
            end else if (!r_last) begin
                for (sk = 0; sk < 8; sk = sk + 1) begin
                    if (r_keep[sk]) begin
                        if (r_data[8*sk +: 8] !== pbyte(s_msg, s_off)) s_fail = 1'b1;
                        s_off = s_off + 1;
                    end
                end
            end else if (s_msg < 0) begin
                $display("tb_via_wire: ERROR an internal frame of no known message ended at beat %0d", sb);
                errors = errors + 1;
                sb = 0;
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
                    m_abt[s_msg] = 1'b1;
                    m_rst[s_msg] = r_data[31:0];
                    m_rlen[s_msg] = s_off;
                    m_rfail[s_msg] = s_fail;
                    aborted = aborted + 1;
                end
                sb = 0;
            end
        end
    end
end

// ------------------------------------------------------------ injection

reg [63:0] ib [0:63];
reg [7:0]  ik [0:63];            // their tkeep
integer    in_n;

task inj_send;  // drive ib[0..in_n-1], the last with tlast (as g_beat)
    begin
        @(negedge clk);
        injecting = 1'b1;
        for (k = 0; k < in_n; k = k + 1) begin
            d_data = ib[k]; d_keep = ik[k]; d_last = (k == in_n - 1); d_valid = 1'b1;
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
        for (k = 0; k < 5 + npay; k = k + 1) ik[k] = 8'hFF;
        c = 32'hFFFF_FFFF;
        for (k = 0; k < 4 + npay; k = k + 1) c = via_wire_crc32_d64(c, ib[k], 4'd8);
        ib[4 + npay] = {32'd0, ~c};
        in_n = 5 + npay;
        inj_send();
    end
endtask

// build (not send) a wire frame of message mi (its tables): KIND kind,
// the segment of sl bytes at offset off, for KIND RDMA_WRITE,
// RDMA_READ_REQ and RDMA_READ_RESP the extension {va, {tag, hdl}}, a
// trailer with a correct CRC and STATUS 0
task inj_build(input [7:0] kind, input integer mi, input integer off, input integer sl, input [63:0] va,
               input [31:0] hdl, input [31:0] tag);
    reg [31:0] c, o32, s32;
    reg [7:0]  fl;
    reg [63:0] d;
    integer nh, np, b, j, n;
    begin
        o32 = off; s32 = sl;
        nh = (kind >= 8'd2 && kind <= 8'd4) ? 6 : 4;
        fl = {5'd0, m_immf[mi], (off + sl == m_len[mi]) ? 1'b1 : 1'b0, (off == 0) ? 1'b1 : 1'b0};
        ib[0] = {fl, kind, m_svi[mi], m_dvi[mi], TX_NODE, RX_NODE};
        ib[1] = {m_len[mi], 32'd0};
        ib[2] = {16'd0, s32[15:0], o32};
        ib[3] = {32'd0, m_imm[mi]};
        ib[4] = va;
        ib[5] = {tag, hdl};
        for (b = 0; b < nh; b = b + 1) ik[b] = 8'hFF;
        c = 32'hFFFF_FFFF;
        for (b = 0; b < nh; b = b + 1) c = via_wire_crc32_d64(c, ib[b], 4'd8);
        np = (sl + 7) / 8;
        for (b = 0; b < np; b = b + 1) begin
            n = (sl - 8 * b > 8) ? 8 : sl - 8 * b;
            d = 64'd0;
            for (j = 0; j < n; j = j + 1) d[8*j +: 8] = pbyte(mi, off + 8 * b + j);
            ib[nh + b] = d;
            ik[nh + b] = 8'hFF >> (8 - n);
            c = via_wire_crc32_d64(c, d, n[3:0]);
        end
        ib[nh + np] = {32'd0, ~c};
        ik[nh + np] = 8'hFF;
        in_n = nh + np + 1;
    end
endtask

task expect_cnt(input [31:0] got, input [31:0] want, input [8*40-1:0] what);
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
reg [31:0] base_crc, base_mis, base_msgs, base_txf, base_txm;
integer    base_cap, base_flip, base_stat, base_abt, base_del, n_send;
integer    p4, p4r, p4e, p5;   // the first message of phase 4, its random part, its end; phase 5's first
reg [31:0] icrc;
integer    mA, mB, mC, mD, mE, mF, mG, mH, mI, mJ, mK, mL, mM, mN, mO, mP, mQ, mR, mS, mT, mU, mV, mW;

// message mi must have come out whole (want_got) or aborted (want_abt)
task expect_msg(input integer mi, input want_got, input want_abt, input [8*40-1:0] what);
    begin
        if (m_got[mi] !== want_got || m_abt[mi] !== want_abt) begin
            $display("tb_via_wire: ERROR %0s (message %0d): delivered %0d aborted %0d, want %0d %0d", what, mi,
                     m_got[mi], m_abt[mi], want_got, want_abt);
            errors = errors + 1;
        end
    end
endtask

// messages from..to-1 that must come out with their sender's status
// (status_out) did, with the bytes sent before it
task expect_status_out(input integer from, input integer to);
    integer mi;
    begin
        for (mi = from; mi < to; mi = mi + 1) begin
            if (status_out(mi) && (!m_abt[mi] || m_got[mi] || m_rst[mi] !== m_stat[mi] || m_rlen[mi] != m_cut[mi] ||
                                   m_rfail[mi])) begin
                $display("tb_via_wire: ERROR READ_RESP %0d with the sender's status %08x: out %0d with status %08x after %0d bytes (want %0d, bad bytes %0d)",
                         mi, m_stat[mi], m_abt[mi], m_rst[mi], m_rlen[mi], m_cut[mi], m_rfail[mi]);
                errors = errors + 1;
            end
        end
    end
endtask

// the counters' changes since the base_* snapshot
task snap;
    begin
        base_mal = c_malformed; base_kind = c_kind; base_reasm = c_reasm; base_frames = c_frames;
        base_crc = c_crc; base_mis = c_misrouted; base_msgs = c_msgs; base_txf = tx_frames; base_txm = tx_msgs;
        base_cap = cap_frames; base_flip = flipped; base_stat = cap_stat; base_abt = aborted; base_del = delivered;
    end
endtask

initial begin
    repeat (4) @(posedge clk);
    rst = 1'b0;

    // 1. clean
    gen_msgs(0, NMSG1, 1'b0);
    drain();
    // 2. corrupt
    corrupt_every = 7;
    gen_msgs(NMSG1, NMSG, 1'b0);
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

    // 4. RDMA writes through the packetizer and the depacketizer
    snap();
    p4 = NMSG;
    set_msg(p4 + 0, 8'd1, 32'd100, 1'b1, 64'h0000_7F00_1234_5679, 32'hA5A5_0001);   // one segment, 100 bytes
    set_msg(p4 + 1, 8'd1, 32'd256, 1'b0, 64'h0000_0000_0040_0000, 32'hA5A5_0002);   // exactly MTU
    set_msg(p4 + 2, 8'd1, 32'd1003, 1'b1, 64'h0000_1234_0000_0003, 32'hA5A5_0003);  // 4 segments, 1003 bytes
    set_msg(p4 + 3, 8'd1, 32'd768, 1'b0, 64'h0000_0000_1000_0000, 32'hA5A5_0004);   // 3 whole segments
    set_msg(p4 + 4, 8'd1, 32'd0, 1'b1, 64'h0000_0000_2000_0000, 32'hA5A5_0005);     // zero length
    set_msg(p4 + 5, 8'd1, 32'd600, 1'b0, 64'h0000_0001_FFFF_FF80, 32'hA5A5_0006);   // VA carries into bit 32
    set_msg(p4 + 6, 8'd1, 32'd520, 1'b1, 64'hFFFF_FFFF_FFFF_FF00, 32'hA5A5_0007);   // VA wraps at 2^64
    set_msg(p4 + 7, 8'd0, 32'd300, 1'b1, 64'd0, 32'd0);                             // a send between them
    set_msg(p4 + 8, 8'd7, 32'd40, 1'b0, 64'd0, 32'd0);                              // unknown OP: dropped
    set_msg(p4 + 9, 8'd1, 32'd50, 1'b0, 64'h0000_0000_3000_0008, 32'hA5A5_000A);
    set_msg(p4 + 10, 8'd1, 32'd64, 1'b0, 64'h0000_0000_4000_0000, 32'hA5A5_000B);   // extension cut: dropped
    m_xcut[p4 + 10] = 2'd2;
    set_msg(p4 + 11, 8'd1, 32'd64, 1'b0, 64'h0000_0000_5000_0000, 32'hA5A5_000C);   // (cut at its first beat)
    m_xcut[p4 + 11] = 2'd1;
    set_msg(p4 + 12, 8'd1, 32'd17, 1'b1, 64'h0000_0000_6000_0001, 32'hA5A5_000D);
    set_msg(p4 + 13, 8'd1, 32'd900, 1'b0, 64'h0000_0000_7000_0000, 32'hA5A5_000E);  // the sender's status
    m_stat[p4 + 13] = 32'h0000_0004;
    set_msg(p4 + 14, 8'd1, 32'd700, 1'b1, 64'h0000_0000_8000_0000, 32'hA5A5_000F);  // cut short at 300
    m_cut[p4 + 14] = 32'd300; m_stat[p4 + 14] = 32'h0000_0040;
    set_msg(p4 + 15, 8'd1, 32'd520, 1'b1, 64'h0000_0000_9000_0000, 32'hA5A5_0010);
    // RDMA read: requests (OP 2 -> KIND 3) and responses (OP 3 -> KIND 4)
    set_msg(p4 + 16, 8'd2, 32'd0, 1'b1, 64'h0000_7F00_DEAD_0008, 32'hA5A5_0011);    // a request
    m_imm[p4 + 16] = 32'd65536;
    set_msg(p4 + 17, 8'd3, 32'd100, 1'b0, 64'd0, 32'd0);                          // response, one segment
    set_msg(p4 + 18, 8'd3, 32'd1003, 1'b0, 64'd0, 32'd0);                         // 4 segments
    set_msg(p4 + 19, 8'd3, 32'd512, 1'b1, 64'h0000_0001_FFFF_FF00, 32'hA5A5_0014);  // 2 whole, VA carries
    m_imm[p4 + 19] = 32'h1234_5678;                                                // (IMM as carried)
    set_msg(p4 + 20, 8'd3, 32'd0, 1'b0, 64'd0, 32'd0);                            // zero length
    set_msg(p4 + 21, 8'd3, 32'd700, 1'b0, 64'd0, 32'd0);                          // cut short at 300
    m_cut[p4 + 21] = 32'd300; m_stat[p4 + 21] = 32'h0000_0040;
    set_msg(p4 + 22, 8'd2, 32'd0, 1'b1, 64'h0000_0000_0000_1000, 32'hA5A5_0017);    // request, LENGTH 20 and
    m_imm[p4 + 22] = 32'd1; m_xpay[p4 + 22] = 32'd20;                              // a payload: dropped
    set_msg(p4 + 23, 8'd3, 32'd100, 1'b0, 64'd0, 32'd0);                          // one segment, the
    m_stat[p4 + 23] = 32'h0000_0004;                                               // sender's status
    set_msg(p4 + 24, 8'd3, 32'd200, 1'b0, 64'd0, 32'd0);                          // cut before any byte
    m_cut[p4 + 24] = 32'd0; m_stat[p4 + 24] = 32'h0000_0040;
    set_msg(p4 + 25, 8'd2, 32'd0, 1'b1, 64'h0000_0000_0000_2000, 32'hA5A5_001A);    // request, the sender's
    m_stat[p4 + 25] = 32'h0000_0004;                                               // status
    set_msg(p4 + 26, 8'd1, 32'd40, 1'b0, 64'h0000_0000_B000_0000, 32'hA5A5_001B);   // RDMA write, TAG carried
    m_tag[p4 + 26] = 32'h1357_9BDF;
    set_msg(p4 + 27, 8'd3, 32'd300, 1'b1, 64'd0, 32'd0);                          // 2 segments, flag as
    m_imm[p4 + 27] = 32'hCAFE_0001;                                                // carried
    p4r = p4 + 28;
    for (m = p4; m < p4r; m = m + 1) gen_one(m);
    drain();
    // random sends and RDMA writes, a bit flipped in every 5th frame; a
    // last good message ends whatever they left open
    corrupt_every = 5;
    gen_msgs(p4r, p4r + 40, 1'b1);
    drain();
    corrupt_every = 0;
    p4e = p4r + 41;
    set_msg(p4e - 1, 8'd1, 32'd333, 1'b1, 64'h0000_0000_A000_0000, 32'hA5A5_0011);
    gen_one(p4e - 1);
    drain();
    n_deliv = 0; n_send = 0;
    for (m = p4; m < p4e; m = m + 1) begin
        if (sendable(m)) n_send = n_send + 1;
        if (deliverable(m)) n_deliv = n_deliv + 1;
        if (deliverable(m) && !m_got[m]) begin
            $display("tb_via_wire: ERROR message %0d (op %0d len %0d) never delivered", m, m_op[m], m_len[m]);
            errors = errors + 1;
        end
        if (m_nfr[m] != nframes(m)) begin
            $display("tb_via_wire: ERROR message %0d (op %0d len %0d): %0d wire frames, want %0d", m, m_op[m],
                     m_len[m], m_nfr[m], nframes(m));
            errors = errors + 1;
        end
    end
    for (m = p4; m < p4r; m = m + 1) begin
        expect_msg(m, deliverable(m), m == p4 + 13 || m == p4 + 14 || m == p4 + 21 || m == p4 + 23 || m == p4 + 24,
                   "RDMA fixed case");
    end
    expect_status_out(p4, p4e);
    n_stat = 0;
    for (m = p4; m < p4e; m = m + 1) if (status_out(m)) n_stat = n_stat + 1;
    $display("tb_via_wire: RDMA phase: %0d messages (%0d sent), %0d wire frames (%0d with a bit flipped), %0d delivered whole, %0d aborted (%0d read responses with the sender's status)",
             p4e - p4, n_send, cap_frames - base_cap, flipped - base_flip, delivered - base_del, aborted - base_abt, n_stat);
    expect_cnt(delivered - base_del, n_deliv, "RDMA: delivered");
    expect_cnt(c_msgs - base_msgs, n_deliv, "RDMA: cnt_msgs");
    expect_cnt(tx_msgs - base_txm, n_send, "RDMA: tx cnt_msgs");
    expect_cnt(tx_frames - base_txf, cap_frames - base_cap, "RDMA: tx cnt_frames");
    expect_cnt(c_malformed, base_mal, "RDMA: malformed");
    expect_cnt(c_kind, base_kind, "RDMA: kind");
    expect_cnt((c_frames - base_frames) + (c_crc - base_crc) + (c_misrouted - base_mis), cap_frames - base_cap,
               "RDMA: rx verdicts");
    if (c_crc - base_crc < flipped - base_flip || c_crc - base_crc > (flipped - base_flip) + (cap_stat - base_stat)) begin
        $display("tb_via_wire: ERROR RDMA: %0d dropped for CRC/status, %0d flipped, %0d with a status", c_crc - base_crc,
                 flipped - base_flip, cap_stat - base_stat);
        errors = errors + 1;
    end

    // 5. injected RDMA frames into the depacketizer
    p5 = p4e;
    // (numbered in the order they are sent: the sink wants them rising)
    mA = p5; mB = p5 + 1; mC = p5 + 2; mD = p5 + 3; mE = p5 + 4; mK = p5 + 5; mF = p5 + 6; mG = p5 + 7;
    mH = p5 + 8; mI = p5 + 9; mL = p5 + 10; mM = p5 + 11; mN = p5 + 12; mO = p5 + 13; mP = p5 + 14;
    mQ = p5 + 15; mR = p5 + 16; mS = p5 + 17; mU = p5 + 18; mT = p5 + 19; mV = p5 + 20; mW = p5 + 21;
    mJ = p5 + 22;
    snap();
    // good: one segment; two segments (the second at VA + 256)
    set_msg(mA, 8'd1, 32'd20, 1'b1, 64'h0000_00AB_CDEF_0001, 32'h0000_1111);
    inj_build(8'd2, mA, 0, 20, m_va[mA], m_hdl[mA], m_tag[mA]); inj_send();
    set_msg(mB, 8'd1, 32'd300, 1'b0, 64'h0000_00AB_CDEF_1000, 32'h0000_2222);
    inj_build(8'd2, mB, 0, 256, m_va[mB], m_hdl[mB], m_tag[mB]); inj_send();
    inj_build(8'd2, mB, 256, 44, m_va[mB] + 64'd256, m_hdl[mB], m_tag[mB]); inj_send();
    drain();
    expect_msg(mA, 1'b1, 1'b0, "injected RDMA, 1 segment");
    expect_msg(mB, 1'b1, 1'b0, "injected RDMA, 2 segments");
    expect_cnt(c_msgs, base_msgs + 2, "injected RDMA: cnt_msgs");
    // continuations that do not continue: aborted, cnt_reasm + 2 each
    set_msg(mC, 8'd1, 32'd300, 1'b1, 64'h0000_0000_C000_0000, 32'h0000_3333);  // REMOTE_VA off by 8
    m_bad[mC] = 1'b1;
    inj_build(8'd2, mC, 0, 256, m_va[mC], m_hdl[mC], m_tag[mC]); inj_send();
    inj_build(8'd2, mC, 256, 44, m_va[mC] + 64'd264, m_hdl[mC], m_tag[mC]); inj_send();
    drain();
    expect_msg(mC, 1'b0, 1'b1, "continuation, wrong VA");
    expect_cnt(c_reasm, base_reasm + 2, "continuation, wrong VA");
    set_msg(mD, 8'd1, 32'd300, 1'b0, 64'h0000_0000_D000_0000, 32'h0000_4444);  // REMOTE_HANDLE differs
    m_bad[mD] = 1'b1;
    inj_build(8'd2, mD, 0, 256, m_va[mD], m_hdl[mD], m_tag[mD]); inj_send();
    inj_build(8'd2, mD, 256, 44, m_va[mD] + 64'd256, m_hdl[mD] ^ 32'h0001_0000, m_tag[mD]); inj_send();
    drain();
    expect_msg(mD, 1'b0, 1'b1, "continuation, wrong handle");
    expect_cnt(c_reasm, base_reasm + 4, "continuation, wrong handle");
    set_msg(mE, 8'd1, 32'd300, 1'b0, 64'h0000_0000_E000_0000, 32'h0000_5555);  // SEND after RDMA_WRITE
    m_bad[mE] = 1'b1;
    inj_build(8'd2, mE, 0, 256, m_va[mE], m_hdl[mE], m_tag[mE]); inj_send();
    inj_build(8'd0, mE, 256, 44, 64'd0, 32'd0, m_tag[mE]); inj_send();
    drain();
    expect_msg(mE, 1'b0, 1'b1, "continuation, SEND after RDMA");
    expect_cnt(c_reasm, base_reasm + 6, "continuation, SEND after RDMA");
    set_msg(mK, 8'd0, 32'd300, 1'b0, 64'd0, 32'd0);                           // RDMA_WRITE after SEND
    m_bad[mK] = 1'b1;
    inj_build(8'd0, mK, 0, 256, 64'd0, 32'd0, m_tag[mK]); inj_send();
    inj_build(8'd2, mK, 256, 44, 64'd256, 32'd0, m_tag[mK]); inj_send();
    drain();
    expect_msg(mK, 1'b0, 1'b1, "continuation, RDMA after SEND");
    expect_cnt(c_reasm, base_reasm + 8, "continuation, RDMA after SEND");
    set_msg(mF, 8'd1, 32'd300, 1'b1, 64'h0000_0000_F000_0000, 32'h0000_6666);  // VA without OFFSET
    m_bad[mF] = 1'b1;
    inj_build(8'd2, mF, 0, 256, m_va[mF], m_hdl[mF], m_tag[mF]); inj_send();
    inj_build(8'd2, mF, 256, 44, m_va[mF], m_hdl[mF], m_tag[mF]); inj_send();
    drain();
    expect_msg(mF, 1'b0, 1'b1, "continuation, VA w/o OFFSET");
    expect_cnt(c_reasm, base_reasm + 10, "continuation, VA w/o OFFSET");
    expect_cnt(c_frames, base_frames + 13, "injected RDMA: good frames");
    // cut short in the extension: the trailer in place of its beat 0, 1
    set_msg(mG, 8'd1, 32'd16, 1'b0, 64'h0000_0000_1234_0000, 32'h0000_7777);
    m_bad[mG] = 1'b1;
    inj_build(8'd2, mG, 0, 16, m_va[mG], m_hdl[mG], m_tag[mG]);
    ib[4] = ib[in_n - 1]; in_n = 5; inj_send();
    drain();
    expect_cnt(c_malformed, base_mal + 1, "RDMA cut in extension 0");
    inj_build(8'd2, mG, 0, 16, m_va[mG], m_hdl[mG], m_tag[mG]);
    ib[5] = ib[in_n - 1]; in_n = 6; inj_send();
    drain();
    expect_cnt(c_malformed, base_mal + 2, "RDMA cut in extension 1");
    expect_msg(mG, 1'b0, 1'b0, "RDMA cut in extension");
    // a bit flipped in the extension after the CRC: VA, handle, TAG
    set_msg(mH, 8'd1, 32'd40, 1'b1, 64'h0000_0000_5678_0000, 32'h0000_8888);
    m_bad[mH] = 1'b1;
    inj_build(8'd2, mH, 0, 40, m_va[mH], m_hdl[mH], m_tag[mH]);
    ib[4] = ib[4] ^ 64'h0000_0100_0000_0000; inj_send();
    inj_build(8'd2, mH, 0, 40, m_va[mH], m_hdl[mH], m_tag[mH]);
    ib[5] = ib[5] ^ 64'h0000_0000_0000_0008; inj_send();
    inj_build(8'd2, mH, 0, 40, m_va[mH], m_hdl[mH], m_tag[mH]);
    ib[5] = ib[5] ^ 64'h0000_0020_0000_0000; inj_send();
    drain();
    expect_cnt(c_crc, base_crc + 3, "CRC over the extension");
    expect_msg(mH, 1'b0, 1'b0, "CRC over the extension");
    // RDMA_READ_REQ (with its extension): OP 2, IMM the read's length, TAG
    set_msg(mI, 8'd2, 32'd0, 1'b1, 64'h0000_0000_9ABC_0000, 32'h0000_9999);
    m_imm[mI] = 32'd70000; m_tag[mI] = {16'hFEDC, mI[15:0]};
    inj_build(8'd3, mI, 0, 0, m_va[mI], m_hdl[mI], m_tag[mI]); inj_send();
    drain();
    expect_msg(mI, 1'b1, 1'b0, "injected RDMA_READ_REQ");
    expect_cnt(c_msgs, base_msgs + 3, "injected RDMA_READ_REQ");
    // ACK: unknown KIND (not handled yet)
    set_msg(mL, 8'd0, 32'd0, 1'b0, 64'd0, 32'd0);
    m_bad[mL] = 1'b1;
    inj_build(8'd5, mL, 0, 0, 64'd0, 32'd0, 32'd0); inj_send();
    drain();
    expect_cnt(c_kind, base_kind + 1, "ACK");
    // RDMA_READ_RESP, two segments (REMOTE_VA = OFFSET, handle 0): OP 3
    set_msg(mM, 8'd3, 32'd300, 1'b0, 64'd0, 32'd0);
    inj_build(8'd4, mM, 0, 256, 64'd0, 32'd0, m_tag[mM]); inj_send();
    inj_build(8'd4, mM, 256, 44, 64'd256, 32'd0, m_tag[mM]); inj_send();
    drain();
    expect_msg(mM, 1'b1, 1'b0, "injected RDMA_READ_RESP, 2 segments");
    expect_cnt(c_msgs, base_msgs + 4, "injected RDMA_READ_RESP: cnt_msgs");
    // response continuations that do not continue: another TAG, RDMA_WRITE
    // then READ_RESP, REMOTE_VA off by 8, another REMOTE_HANDLE
    set_msg(mN, 8'd3, 32'd300, 1'b0, 64'd0, 32'd0);
    m_bad[mN] = 1'b1;
    inj_build(8'd4, mN, 0, 256, 64'd0, 32'd0, m_tag[mN]); inj_send();
    inj_build(8'd4, mN, 256, 44, 64'd256, 32'd0, m_tag[mN] ^ 32'h0001_0000); inj_send();
    drain();
    expect_msg(mN, 1'b0, 1'b1, "READ_RESP continuation, wrong TAG");
    expect_cnt(c_reasm, base_reasm + 12, "READ_RESP continuation, wrong TAG");
    set_msg(mO, 8'd1, 32'd300, 1'b0, 64'h0000_0000_0B00_0000, 32'h0000_BBBB);
    m_bad[mO] = 1'b1;
    inj_build(8'd2, mO, 0, 256, m_va[mO], m_hdl[mO], m_tag[mO]); inj_send();
    inj_build(8'd4, mO, 256, 44, m_va[mO] + 64'd256, m_hdl[mO], m_tag[mO]); inj_send();
    drain();
    expect_msg(mO, 1'b0, 1'b1, "READ_RESP after RDMA_WRITE");
    expect_cnt(c_reasm, base_reasm + 14, "READ_RESP after RDMA_WRITE");
    set_msg(mP, 8'd3, 32'd300, 1'b0, 64'd0, 32'd0);
    m_bad[mP] = 1'b1;
    inj_build(8'd4, mP, 0, 256, 64'd0, 32'd0, m_tag[mP]); inj_send();
    inj_build(8'd4, mP, 256, 44, 64'd264, 32'd0, m_tag[mP]); inj_send();
    drain();
    expect_msg(mP, 1'b0, 1'b1, "READ_RESP continuation, wrong VA");
    expect_cnt(c_reasm, base_reasm + 16, "READ_RESP continuation, wrong VA");
    set_msg(mQ, 8'd3, 32'd300, 1'b0, 64'd0, 32'd0);
    m_bad[mQ] = 1'b1;
    inj_build(8'd4, mQ, 0, 256, 64'd0, 32'd0, m_tag[mQ]); inj_send();
    inj_build(8'd4, mQ, 256, 44, 64'd256, 32'd1, m_tag[mQ]); inj_send();
    drain();
    expect_msg(mQ, 1'b0, 1'b1, "READ_RESP continuation, wrong handle");
    expect_cnt(c_reasm, base_reasm + 18, "READ_RESP continuation, wrong handle");
    expect_cnt(c_frames, base_frames + 24, "injected RDMA read: good frames");
    // READ_REQ of another shape: malformed (with a payload; not FIRST and
    // LAST, MSG_LEN 16)
    set_msg(mR, 8'd2, 32'd8, 1'b1, 64'h0000_0000_0000_3000, 32'h0000_CCCC);
    m_bad[mR] = 1'b1;
    inj_build(8'd3, mR, 0, 8, m_va[mR], m_hdl[mR], m_tag[mR]); inj_send();
    set_msg(mS, 8'd2, 32'd16, 1'b1, 64'h0000_0000_0000_4000, 32'h0000_DDDD);
    m_bad[mS] = 1'b1;
    inj_build(8'd3, mS, 0, 0, m_va[mS], m_hdl[mS], m_tag[mS]); inj_send();
    drain();
    expect_cnt(c_malformed, base_mal + 4, "READ_REQ with a payload, not whole");
    expect_msg(mR, 1'b0, 1'b0, "READ_REQ with a payload");
    expect_msg(mS, 1'b0, 1'b0, "READ_REQ not whole");
    // READ_RESP ended by its sender with a status (STATUS nonzero, CRC
    // good): counted in cnt_crc, and delivered with that status (the
    // initiator's read completes with it): one segment with its 100 bytes;
    // the second of two, cut short at 44 bytes
    set_msg(mU, 8'd3, 32'd100, 1'b0, 64'd0, 32'd0);
    m_stat[mU] = 32'h0000_0004;
    inj_build(8'd4, mU, 0, 100, 64'd0, 32'd0, m_tag[mU]);
    ib[in_n - 1][63:32] = m_stat[mU]; inj_send();
    drain();
    expect_cnt(c_crc, base_crc + 4, "READ_RESP with STATUS, 1 segment");
    expect_msg(mU, 1'b0, 1'b1, "READ_RESP with STATUS, 1 segment");
    set_msg(mT, 8'd3, 32'd700, 1'b0, 64'd0, 32'd0);
    m_stat[mT] = 32'h0000_0040; m_cut[mT] = 32'd300;
    inj_build(8'd4, mT, 0, 256, 64'd0, 32'd0, m_tag[mT]); inj_send();
    inj_build(8'd4, mT, 256, 44, 64'd256, 32'd0, m_tag[mT]);  // (SEG_LEN 256 promised, 44 came)
    ib[2][47:32] = 16'd256; icrc = 32'hFFFF_FFFF;
    for (k = 0; k < in_n - 1; k = k + 1) icrc = via_wire_crc32_d64(icrc, ib[k], via_keep_bytes(ik[k]));
    ib[in_n - 1] = {m_stat[mT], ~icrc}; inj_send();
    drain();
    expect_cnt(c_crc, base_crc + 5, "READ_RESP cut short");
    expect_msg(mT, 1'b0, 1'b1, "READ_RESP cut short");
    expect_status_out(mU, mT + 1);
    // ... but not when it does not continue the open message (another TAG:
    // the open one aborted, this dropped), nor with nothing open
    set_msg(mV, 8'd3, 32'd300, 1'b0, 64'd0, 32'd0);
    m_stat[mV] = 32'h0000_0040; m_bad[mV] = 1'b1;
    inj_build(8'd4, mV, 0, 256, 64'd0, 32'd0, m_tag[mV]); inj_send();
    inj_build(8'd4, mV, 256, 44, 64'd256, 32'd0, m_tag[mV] ^ 32'h0100_0000);
    ib[in_n - 1][63:32] = m_stat[mV]; inj_send();
    drain();
    expect_msg(mV, 1'b0, 1'b1, "READ_RESP with STATUS, wrong TAG");
    if (m_rst[mV] == m_stat[mV]) begin
        $display("tb_via_wire: ERROR READ_RESP with STATUS, wrong TAG: came out with the sender's status");
        errors = errors + 1;
    end
    expect_cnt(c_reasm, base_reasm + 20, "READ_RESP with STATUS, wrong TAG");
    set_msg(mW, 8'd3, 32'd300, 1'b0, 64'd0, 32'd0);
    m_stat[mW] = 32'h0000_0040; m_bad[mW] = 1'b1;
    inj_build(8'd4, mW, 256, 44, 64'd256, 32'd0, m_tag[mW]);
    ib[in_n - 1][63:32] = m_stat[mW]; inj_send();
    drain();
    expect_msg(mW, 1'b0, 1'b0, "READ_RESP with STATUS, nothing open");
    expect_cnt(c_reasm, base_reasm + 21, "READ_RESP with STATUS, nothing open");
    expect_cnt(c_crc, base_crc + 7, "READ_RESP with STATUS");
    // and a good one again
    set_msg(mJ, 8'd1, 32'd264, 1'b1, 64'h0000_0000_DEAD_BEE8, 32'h0000_AAAA);
    inj_build(8'd2, mJ, 0, 256, m_va[mJ], m_hdl[mJ], m_tag[mJ]); inj_send();
    inj_build(8'd2, mJ, 256, 8, m_va[mJ] + 64'd256, m_hdl[mJ], m_tag[mJ]); inj_send();
    drain();
    expect_msg(mJ, 1'b1, 1'b0, "injected RDMA after bad ones");
    expect_cnt(c_msgs, base_msgs + 5, "injected RDMA: cnt_msgs");
    expect_cnt(c_frames, base_frames + 28, "injected RDMA: good frames");
    expect_cnt(c_malformed, base_mal + 4, "injected RDMA: malformed");
    expect_cnt(c_kind, base_kind + 1, "injected RDMA: kind");
    expect_cnt(c_crc, base_crc + 7, "injected RDMA: crc");
    expect_cnt(c_reasm, base_reasm + 21, "injected RDMA: reassembly");
    expect_cnt(aborted, base_abt + 12, "injected RDMA: aborted");
    $display("tb_via_wire: rx counters: frames %0d crc/status %0d malformed %0d misrouted %0d kind %0d reassembly %0d messages %0d",
             c_frames, c_crc, c_malformed, c_misrouted, c_kind, c_reasm, c_msgs);

    if (errors == 0) begin
        $display("PASS");
    end else begin
        $display("FAIL: %0d errors", errors);
        $fatal(1, "tb_via_wire failed");
    end
    $finish;
end

endmodule
