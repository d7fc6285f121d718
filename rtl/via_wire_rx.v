// via_wire_rx: the depacketizer. Checks the wire frames that come in from
// the fabric (docs/wire.md) and turns the segments of each message back
// into one internal frame for the receive engine (rtl/via_frame.vh), and
// connection-management frames into messages for the firmware.
//
// Store and forward per frame: a frame's payload is written into a buffer
// and handed on only once its trailer shows it good, so a bad frame is
// dropped whole and never delivered. Headers: the 4 beats of HDR, then for
// the kinds that carry the RDMA extension (RDMA_WRITE, RDMA_READ_REQ,
// RDMA_READ_RESP; the kind is known from beat 0) its 2 beats; the CRC
// covers them all and the payload. Good means: the CRC matches, the
// trailer's STATUS is 0, the frame has all its header beats and a trailer,
// the payload has SEG_LEN bytes (at most MTU), the frame is for this node
// (DST_NODE = node_id), and its KIND is SEND, RDMA_WRITE, RDMA_READ_RESP,
// RDMA_READ_REQ as a whole message without payload (FIRST and LAST,
// MSG_LEN 0, SEG_LEN 0), or CONNECT with a 32-byte payload. Everything else
// is counted and dropped (a READ_REQ or CONNECT of another shape as
// malformed; ACK, not handled yet, as unknown KIND).
//
// A nonzero STATUS: the sender cut its message short. Such a frame is
// counted with the CRC failures (cnt_crc) and, of every KIND but one,
// dropped: if its message was open (earlier segments delivered) it ends
// aborted as below once another message's frame comes; if it was the first
// segment, nothing of the message is delivered. The exception is
// RDMA_READ_RESP, whose sender's status is the error the initiator's read
// completes with (rtl/via_frame.vh): a READ_RESP frame with a nonzero
// STATUS, a good CRC, for this node, whose payload is at most SEG_LEN
// bytes (at most MTU) ends its message there, as on the loopback path: its
// payload (the bytes that came, fewer than SEG_LEN if the sender cut it
// short) and a trailer with that STATUS, whether it is the FIRST segment
// (the header and extension first) or continues the open message (as
// below, but it need not be LAST or a multiple of 8 long); one that does
// neither is a reassembly error as any segment. Such a message is not
// counted in cnt_msgs (whole messages only).
//
// Reassembly: the segments of a message arrive one after the other (the
// fabric carries one message at a time on a link, and a sender sends a
// message's segments back to back), so one message is open at a time. A
// FIRST segment starts the internal frame (its header: DST_VI, SRC_VI,
// LENGTH = MSG_LEN, IMM, the immediate flag, OP: send 0 for KIND SEND, RDMA
// write 1 for RDMA_WRITE, RDMA read request 2 for RDMA_READ_REQ, RDMA read
// response 3 for RDMA_READ_RESP; PEER_NODE = the sender's node in byte 14;
// for the RDMA kinds then the RDMA extension: the FIRST segment's
// REMOTE_VA, REMOTE_HANDLE and TAG in bytes 0..7, 8..11, 12..15, TAG as
// carried, also for RDMA writes), each segment adds its payload, the LAST
// one ends it with trailer status 0 (a READ_RESP cut short: with its
// STATUS, above). A segment that does not continue the
// open message (another sender or VI, another KIND, a gap in OFFSET, a
// non-last segment whose length is not a multiple of 8, more bytes than
// MSG_LEN; for the RDMA kinds another REMOTE_HANDLE or TAG, or a REMOTE_VA
// other than the FIRST segment's REMOTE_VA + OFFSET, modulo 2^64), and a
// FIRST while one is open, end the open message with trailer status
// STATUS_ABORT (the receive engine then drops it and keeps its receive
// descriptor), and a segment that starts nothing is dropped; all counted.
//
//   s_axis_*   wire frames (from the link)
//   m_axis_*   internal frames (to the receive engine)
//   cm_*       a CONNECT frame's sender and 32-byte payload (docs/wire.md CM)
//   cnt_*      counters (wrap): good frames, CRC or STATUS failures,
//              malformed (short, too long, SEG_LEN, CONNECT size), not
//              for this node, unknown KIND, reassembly errors (messages
//              aborted and segments dropped), messages delivered

`timescale 1ns / 1ps
`default_nettype none

`include "via_frame.vh"
`include "via_param_check.vh"
module via_wire_rx #(
    parameter MTU       = 4096,  // payload bytes per frame at most (a multiple of 8)
    parameter BUF_BEATS = 1024,  // payload buffer, beats (power of two, > MTU/8)
    parameter SEGQ      = 8      // frames buffered (power of two, 2..256)
) (
    input  wire         clk,
    input  wire         rst,
    input  wire [7:0]   node_id,

    input  wire [63:0]  s_axis_tdata,
    input  wire [7:0]   s_axis_tkeep,
    input  wire         s_axis_tvalid,
    output wire         s_axis_tready,
    input  wire         s_axis_tlast,

    output wire [63:0]  m_axis_tdata,
    output wire [7:0]   m_axis_tkeep,
    output wire         m_axis_tvalid,
    input  wire         m_axis_tready,
    output wire         m_axis_tlast,

    output reg          cm_valid,
    input  wire         cm_ready,
    output reg  [7:0]   cm_src_node,
    output reg  [15:0]  cm_src_vi,
    output reg  [15:0]  cm_dst_vi,
    output reg  [255:0] cm_data,

    output wire         busy,
    output reg  [31:0]  cnt_frames,
    output reg  [31:0]  cnt_crc,
    output reg  [31:0]  cnt_malformed,
    output reg  [31:0]  cnt_misrouted,
    output reg  [31:0]  cnt_kind,
    output reg  [31:0]  cnt_reasm,
    output reg  [31:0]  cnt_msgs
);

localparam BA = $clog2(BUF_BEATS);
localparam QA = (SEGQ > 2) ? $clog2(SEGQ) : 1;
localparam [31:0] MTU_W = MTU;
localparam [31:0] MTU_BEATS = MTU / 8;
localparam [BA:0] BUF_W = BUF_BEATS;

generate
    if (MTU < 8 || MTU > 65528 || MTU % 8 != 0) begin : g_bad_mtu
        `VIA_PARAM_FAIL(("via_wire_rx: MTU=%0d, must be a multiple of 8 in 8..65528", MTU))
    end
    if (BUF_BEATS < 4 || (BUF_BEATS & (BUF_BEATS - 1)) != 0 || BUF_BEATS <= MTU / 8) begin : g_bad_buf
        `VIA_PARAM_FAIL(("via_wire_rx: BUF_BEATS=%0d, must be a power of two above MTU/8=%0d", BUF_BEATS, MTU / 8))
    end
    if (SEGQ < 2 || SEGQ > 256 || (SEGQ & (SEGQ - 1)) != 0) begin : g_bad_segq
        `VIA_PARAM_FAIL(("via_wire_rx: SEGQ=%0d, must be a power of two in 2..256", SEGQ))
    end
endgenerate

localparam [7:0]  KIND_SEND = 8'd0, KIND_CONNECT = 8'd1, KIND_RDMA_WRITE = 8'd2, KIND_RDMA_READ_REQ = 8'd3,
                  KIND_RDMA_READ_RESP = 8'd4;
// internal ops (rtl/via_frame.vh): send 0, RDMA write 1, RDMA read request
// 2, RDMA read response 3
localparam [1:0]  OP_SEND = 2'd0, OP_RDMA_WRITE = 2'd1, OP_RDMA_READ_REQ = 2'd2, OP_RDMA_READ_RESP = 2'd3;
localparam [31:0] CM_BYTES = 32;
// the internal trailer's status of an aborted message (any nonzero value
// makes the receive engine drop the frame)
localparam [31:0] STATUS_ABORT = 32'h8000_0000;

// ------------------------------------------------------------ write side

localparam [1:0] W_H = 2'd0, W_P = 2'd1, W_DISCARD = 2'd2;
reg [1:0]   w_st;
reg [2:0]   w_hb;               // header beat (0..3 HDR, 4..5 RDMA extension)
reg [63:0]  h0, h1, h2;         // header beats 0..2 (beat 3 is IMM: h3)
reg [31:0]  h3;
reg [63:0]  h4;                 // RDMA extension: REMOTE_VA
reg [63:0]  h5;                 // its {TAG, REMOTE_HANDLE}
reg [BA:0]  wp;                 // committed write pointer (free-running, one extra bit)
reg [BA:0]  wp_t;               // this frame's next beat
reg [BA:0]  rp;                 // read pointer
reg [31:0]  w_bytes;            // payload bytes of this frame
reg [QA:0]  q_cnt;

wire s_fire = s_axis_tvalid && s_axis_tready;
wire [BA:0] used = wp_t - rp;
wire        room = (used != BUF_W);
wire        q_full = (q_cnt == SEGQ[QA:0]);

assign s_axis_tready = (w_st == W_H) ? !q_full : (w_st == W_P) ? (s_axis_tlast || room) : 1'b1;

`include "via_keep.vh"
wire [3:0] s_n = via_keep_bytes(s_axis_tkeep);  // the beat's bytes

wire [31:0] crc;
wire [31:0] crc_unused;
wire        hdr_beat = (w_st == W_H) && s_fire && !s_axis_tlast;
wire        pay_beat = (w_st == W_P) && s_fire && !s_axis_tlast;
via_wire_crc u_crc (
    .clk(clk),
    .rst(rst),
    .init(hdr_beat && w_hb == 3'd0),
    .valid(hdr_beat || pay_beat),
    .data(s_axis_tdata),
    .nbytes(hdr_beat ? 4'd8 : s_n),
    .crc(crc),
    .crc_next(crc_unused)
);

// the header's fields (docs/wire.md HDR)
wire [7:0]  f_dst_node = h0[7:0];
wire [7:0]  f_src_node = h0[15:8];
wire [15:0] f_dst_vi   = h0[31:16];
wire [15:0] f_src_vi   = h0[47:32];
wire [7:0]  f_kind     = h0[55:48];
wire [7:0]  f_flags    = h0[63:56];
wire [31:0] f_msg_len  = h1[63:32];
wire [31:0] f_offset   = h2[31:0];
wire [15:0] f_seg_len  = h2[47:32];
// frames of these kinds carry the RDMA extension after HDR (docs/wire.md)
wire        f_ext      = (f_kind == KIND_RDMA_WRITE) || (f_kind == KIND_RDMA_READ_REQ) ||
                         (f_kind == KIND_RDMA_READ_RESP);
// the internal OP of a SEND or RDMA frame
wire [1:0]  f_op       = (f_kind == KIND_RDMA_WRITE) ? OP_RDMA_WRITE :
                         (f_kind == KIND_RDMA_READ_REQ) ? OP_RDMA_READ_REQ :
                         (f_kind == KIND_RDMA_READ_RESP) ? OP_RDMA_READ_RESP : OP_SEND;

// the trailer's verdict
wire [31:0] t_crc    = s_axis_tdata[31:0];
wire [31:0] t_status = s_axis_tdata[63:32];
wire        v_crc    = (t_crc == crc) && (t_status == 32'd0);
wire        v_len    = ({16'd0, f_seg_len} == w_bytes) && ({16'd0, f_seg_len} <= MTU_W);
wire        v_node   = (f_dst_node == node_id);
wire        v_kind   = (f_kind == KIND_SEND) || (f_kind == KIND_CONNECT) || f_ext;
wire        v_cm     = (f_kind != KIND_CONNECT) || ({16'd0, f_seg_len} == CM_BYTES && f_flags[1:0] == 2'b11);
// a read request: one whole message, no payload
wire        v_req    = (f_kind != KIND_RDMA_READ_REQ) ||
                       (f_seg_len == 16'd0 && f_msg_len == 32'd0 && f_flags[1:0] == 2'b11);
wire        trl_beat = (w_st == W_P) && s_fire && s_axis_tlast;
wire        good     = v_crc && v_len && v_node && v_kind && v_cm && v_req;
// a READ_RESP its sender cut short: delivered with its STATUS (w_bytes <=
// SEG_LEN bytes of payload)
wire        v_rcut   = (t_crc == crc) && (t_status != 32'd0) && (f_kind == KIND_RDMA_READ_RESP) && v_node &&
                       (w_bytes <= {16'd0, f_seg_len}) && ({16'd0, f_seg_len} <= MTU_W);
wire        keep     = good || v_rcut;  // the frame goes on to reassembly

// segment queue: {kind connect, internal OP, first, last, immf, src_node,
// src_vi, dst_vi, msg_len, offset, payload bytes (SEG_LEN; fewer in a
// READ_RESP cut short), imm, remote VA, {tag, remote handle} (these two
// meaningful for the RDMA kinds only), the sender's STATUS (0 but in a
// READ_RESP cut short), start}
localparam QW = 1 + 2 + 1 + 1 + 1 + 8 + 16 + 16 + 32 + 32 + 16 + 32 + 64 + 64 + 32 + (BA + 1);
reg  [QW-1:0] q_mem [0:SEGQ-1];
reg  [QA-1:0] q_wr, q_rd;
wire          q_push = trl_beat && keep;
wire [QW-1:0] q_in = {f_kind == KIND_CONNECT, f_op, f_flags[0], f_flags[1], f_flags[2],
                      f_src_node, f_src_vi, f_dst_vi, f_msg_len, f_offset, w_bytes[15:0], h3, h4, h5,
                      good ? 32'd0 : t_status, wp};

always @(posedge clk) begin
    if (q_push) q_mem[q_wr] <= q_in;
end

// payload buffer
wire          b_rd_en;
wire [BA-1:0] b_rd_addr;
wire [63:0]   b_rd_data;
via_ram #(.WIDTH(64), .WORDS(BUF_BEATS)) u_buf (
    .clk(clk),
    .wr_en(pay_beat),
    .wr_addr(wp_t[BA-1:0]),
    .wr_data(s_axis_tdata),
    .rd_en(b_rd_en),
    .rd_addr(b_rd_addr),
    .rd_data(b_rd_data)
);

always @(posedge clk) begin
    if (rst) begin
        w_st <= W_H; w_hb <= 3'd0;
        h0 <= 64'd0; h1 <= 64'd0; h2 <= 64'd0; h3 <= 32'd0; h4 <= 64'd0; h5 <= 64'd0;
        wp <= {(BA + 1){1'b0}}; wp_t <= {(BA + 1){1'b0}};
        w_bytes <= 32'd0;
        q_wr <= {QA{1'b0}};
        cnt_frames <= 32'd0; cnt_crc <= 32'd0; cnt_malformed <= 32'd0;
        cnt_misrouted <= 32'd0; cnt_kind <= 32'd0;
    end else begin
        case (w_st)
        W_H: if (s_fire) begin
            if (s_axis_tlast) begin
                // shorter than its headers and a trailer (4 HDR beats, 6
                // with the RDMA extension)
                cnt_malformed <= cnt_malformed + 32'd1;
                w_hb <= 3'd0;
            end else begin
                case (w_hb)
                3'd0: h0 <= s_axis_tdata;
                3'd1: h1 <= s_axis_tdata;
                3'd2: h2 <= s_axis_tdata;
                3'd3: h3 <= s_axis_tdata[31:0];
                3'd4: h4 <= s_axis_tdata;
                default: h5 <= s_axis_tdata;
                endcase
                w_hb <= w_hb + 3'd1;
                // the headers end after HDR, or after the RDMA extension
                // (f_kind: h0, taken at beat 0)
                if (w_hb == 3'd5 || (w_hb == 3'd3 && !f_ext)) begin
                    w_st <= W_P;
                    w_hb <= 3'd0;
                    w_bytes <= 32'd0;
                    wp_t <= wp;
                end
            end
        end
        W_P: if (s_fire) begin
            if (s_axis_tlast) begin
                w_st <= W_H;
                w_hb <= 3'd0;
                if (keep) begin
                    wp <= wp_t;
                end else begin
                    wp_t <= wp;
                end
                if (good) begin
                    cnt_frames <= cnt_frames + 32'd1;
                end else begin
                    if (!v_crc) cnt_crc <= cnt_crc + 32'd1;
                    else if (!v_len || !v_cm || !v_req) cnt_malformed <= cnt_malformed + 32'd1;
                    else if (!v_node) cnt_misrouted <= cnt_misrouted + 32'd1;
                    else cnt_kind <= cnt_kind + 32'd1;
                end
            end else begin
                wp_t <= wp_t + 1'b1;
                w_bytes <= w_bytes + {28'd0, s_n};
                if (wp_t - wp == MTU_BEATS[BA:0]) begin
                    // more payload than MTU: drop the frame
                    w_st <= W_DISCARD;
                    wp_t <= wp;
                    cnt_malformed <= cnt_malformed + 32'd1;
                end
            end
        end
        default: if (s_fire && s_axis_tlast) begin  // W_DISCARD
            w_st <= W_H;
            w_hb <= 3'd0;
        end
        endcase
        if (q_push) q_wr <= q_wr + 1'b1;
    end
end

// ------------------------------------------------------------ read side

wire [QW-1:0] q_out = q_mem[q_rd];
wire        d_cm, d_first, d_last, d_immf;
wire [1:0]  d_op;
wire [7:0]  d_src_node;
wire [15:0] d_src_vi, d_dst_vi, d_seg_len;
wire [31:0] d_msg_len, d_offset, d_imm, d_handle, d_tag, d_status;
wire [63:0] d_va;
wire [BA:0] d_start;
assign {d_cm, d_op, d_first, d_last, d_immf, d_src_node, d_src_vi, d_dst_vi, d_msg_len, d_offset, d_seg_len,
        d_imm, d_va, d_tag, d_handle, d_status, d_start} = q_out;
wire        d_cut = (d_status != 32'd0);     // a READ_RESP cut short: it ends its message
wire        d_rdma = (d_op != OP_SEND);  // the frame carries the RDMA extension
wire        q_any = (q_cnt != {(QA + 1){1'b0}});
// payload beats of the frame (SEG_LEN <= MTU < 8 * BUF_BEATS: it fits BA+1 bits)
wire [13:0] d_beats14 = {1'b0, d_seg_len[15:3]} + {13'd0, d_seg_len[2:0] != 3'd0};
wire [BA:0] d_beats = d_beats14[BA:0];

// output FIFO of internal beats {tlast, tkeep, tdata}: a push is decided
// one cycle (header, trailer) or two (a buffer read) before it happens, so
// a new one is decided only while the FIFO has room for it and for those in
// progress (level <= 4 of 8)
reg         o_push;
reg  [72:0] o_reg;
wire        o_ready_unused;
wire [3:0]  o_level;
via_fifo #(.WIDTH(73), .DEPTH(8)) u_out (
    .clk(clk),
    .rst(rst),
    .s_data(o_reg),
    .s_valid(o_push),
    .s_ready(o_ready_unused),
    .m_data({m_axis_tlast, m_axis_tkeep, m_axis_tdata}),
    .m_valid(m_axis_tvalid),
    .m_ready(m_axis_tready),
    .level(o_level)
);
wire o_room = (o_level <= 4'd4);

// reassembly state
reg        open;
reg [31:0] exp_off, cur_len;
reg [15:0] cur_src_vi, cur_dst_vi;
reg [7:0]  cur_src_node;
reg [1:0]  cur_op;       // the open message's internal OP
reg [31:0] cur_handle;   // RDMA: its REMOTE_HANDLE
reg [31:0] cur_tag;      // RDMA: its TAG
reg [63:0] exp_va;       // the REMOTE_VA its next segment must carry

localparam [3:0] R_IDLE = 4'd0,  // take the next frame
                 R_ABORT = 4'd1, // end the open message with STATUS_ABORT
                 R_H0 = 4'd2,    // internal header, first beat
                 R_H1 = 4'd3,    // second beat
                 R_PAY = 4'd4,   // payload beats from the buffer
                 R_TRL = 4'd5,   // trailer, status r_status
                 R_CM = 4'd6,    // gather a CONNECT payload
                 R_SKIP = 4'd7,  // drop the frame's payload
                 R_E0 = 4'd8,    // RDMA kinds: internal extension, REMOTE_VA
                 R_E1 = 4'd9;    // its second beat, {TAG, REMOTE_HANDLE}
reg [3:0]  r_st;
reg        r_then_h;     // after R_ABORT: start this frame (FIRST) or skip it
reg [BA:0] r_left;       // payload beats still to read
reg [BA:0] r_addr;
reg        r_inflight;   // a buffer read whose data lands this cycle
reg        r_last_beat;  // that read is the frame's last beat
reg [7:0]  r_keep_last;
reg        r_msg_done;   // after the payload: the trailer (LAST, or cut short) or back to idle
reg [31:0] r_status;     // that trailer's status (0; a READ_RESP cut short: the sender's)
reg        pop_req;      // the head frame is done: pop it (next cycle)

// what the head frame (SEND or an RDMA kind; CONNECT: d_cm) does to the
// open message
wire        d_ok_first = !d_cm && d_first && (d_offset == 32'd0) && ({16'd0, d_seg_len} <= d_msg_len) &&
                         (d_cut || (d_last ? ({16'd0, d_seg_len} == d_msg_len) :
                                             (d_seg_len[2:0] == 3'd0 && d_seg_len != 16'd0)));
// (exp_va = the FIRST segment's REMOTE_VA + exp_off, and d_offset == exp_off)
wire        d_rdma_ok = (d_op == cur_op) &&
                        (!d_rdma || (d_handle == cur_handle && d_tag == cur_tag && d_va == exp_va));
wire        d_cont_ok = !d_cm && !d_first && open && d_src_node == cur_src_node && d_src_vi == cur_src_vi &&
                        d_dst_vi == cur_dst_vi && d_msg_len == cur_len && d_offset == exp_off && d_rdma_ok &&
                        (d_offset + {16'd0, d_seg_len} <= cur_len) &&
                        (d_cut || (d_last ? (d_offset + {16'd0, d_seg_len} == cur_len) :
                                            (d_seg_len[2:0] == 3'd0 && d_seg_len != 16'd0)));
wire [7:0]  d_keep_last = (d_seg_len[2:0] == 3'd0) ? 8'hFF : (8'hFF >> (4'd8 - {1'b0, d_seg_len[2:0]}));

wire rd_pay = (r_st == R_PAY) && (r_left != {(BA + 1){1'b0}}) && o_room;
wire rd_cm  = (r_st == R_CM) && (r_left != {(BA + 1){1'b0}}) && !r_inflight;
assign b_rd_en = rd_pay || rd_cm;
assign b_rd_addr = r_addr[BA-1:0];

wire [63:0] ihdr0 = {d_msg_len, d_src_vi, d_dst_vi};
wire [63:0] ihdr1 = {8'd0, d_src_node, 6'd0, d_op, 7'd0, d_immf, d_imm};
wire        can_push = o_room && !r_inflight;  // a header or trailer beat now

always @(posedge clk) begin
    if (rst) begin
        r_st <= R_IDLE; r_then_h <= 1'b0;
        r_left <= {(BA + 1){1'b0}}; r_addr <= {(BA + 1){1'b0}};
        r_inflight <= 1'b0; r_last_beat <= 1'b0; r_keep_last <= 8'hFF; r_msg_done <= 1'b0; r_status <= 32'd0;
        pop_req <= 1'b0;
        open <= 1'b0; exp_off <= 32'd0; cur_len <= 32'd0;
        cur_src_vi <= 16'd0; cur_dst_vi <= 16'd0; cur_src_node <= 8'd0;
        cur_op <= OP_SEND; cur_handle <= 32'd0; cur_tag <= 32'd0; exp_va <= 64'd0;
        o_push <= 1'b0; o_reg <= 73'd0;
        q_rd <= {QA{1'b0}}; q_cnt <= {(QA + 1){1'b0}};
        rp <= {(BA + 1){1'b0}};
        cm_valid <= 1'b0; cm_src_node <= 8'd0; cm_src_vi <= 16'd0; cm_dst_vi <= 16'd0; cm_data <= 256'd0;
        cnt_reasm <= 32'd0; cnt_msgs <= 32'd0;
    end else begin
        o_push <= 1'b0;
        pop_req <= 1'b0;
        r_inflight <= b_rd_en;
        // a buffer read lands: a payload beat, or a word of a CONNECT payload
        if (r_inflight) begin
            if (r_st == R_CM) begin
                cm_data <= {b_rd_data, cm_data[255:64]};
            end else begin
                o_push <= 1'b1;
                o_reg <= {1'b0, r_last_beat ? r_keep_last : 8'hFF, b_rd_data};
            end
        end
        if (cm_valid && cm_ready) cm_valid <= 1'b0;
        if (b_rd_en) begin
            r_addr <= r_addr + 1'b1;
            r_left <= r_left - 1'b1;
            r_last_beat <= (r_left == {{BA{1'b0}}, 1'b1});
        end
        if (pop_req) begin
            q_rd <= q_rd + 1'b1;
        end

        case (r_st)
        R_IDLE: if (q_any && !pop_req) begin
            if (d_cm) begin
                if (!cm_valid) begin
                    cm_src_node <= d_src_node; cm_src_vi <= d_src_vi; cm_dst_vi <= d_dst_vi;
                    r_addr <= d_start; r_left <= d_beats;
                    r_st <= R_CM;
                end
            end else if (d_first) begin
                if (open) begin
                    r_then_h <= d_ok_first;
                    r_st <= R_ABORT;
                end else if (d_ok_first) begin
                    r_st <= R_H0;
                end else begin
                    cnt_reasm <= cnt_reasm + 32'd1;
                    r_st <= R_SKIP;
                end
            end else if (d_cont_ok) begin
                r_addr <= d_start; r_left <= d_beats;
                r_keep_last <= d_keep_last;
                exp_off <= d_offset + {16'd0, d_seg_len};
                exp_va <= exp_va + {48'd0, d_seg_len};
                r_msg_done <= d_last || d_cut;
                r_status <= d_status;
                r_st <= R_PAY;
            end else begin
                // does not continue the open message: end it, drop this
                cnt_reasm <= cnt_reasm + 32'd1;
                r_then_h <= 1'b0;
                r_st <= open ? R_ABORT : R_SKIP;
            end
        end
        R_ABORT: if (can_push) begin
            o_push <= 1'b1;
            o_reg <= {1'b1, 8'hFF, 32'd0, STATUS_ABORT};
            open <= 1'b0;
            cnt_reasm <= cnt_reasm + 32'd1;
            r_st <= r_then_h ? R_H0 : R_SKIP;
        end
        R_H0: if (can_push) begin
            o_push <= 1'b1;
            o_reg <= {1'b0, 8'hFF, ihdr0};
            r_st <= R_H1;
        end
        R_H1: if (can_push) begin
            o_push <= 1'b1;
            o_reg <= {1'b0, 8'hFF, ihdr1};
            open <= 1'b1;
            cur_src_node <= d_src_node; cur_src_vi <= d_src_vi; cur_dst_vi <= d_dst_vi; cur_len <= d_msg_len;
            cur_op <= d_op; cur_handle <= d_handle; cur_tag <= d_tag;
            exp_off <= {16'd0, d_seg_len};
            exp_va <= d_va + {48'd0, d_seg_len};
            r_addr <= d_start; r_left <= d_beats;
            r_keep_last <= d_keep_last;
            r_msg_done <= d_last || d_cut;
            r_status <= d_status;
            r_st <= d_rdma ? R_E0 : R_PAY;
        end
        R_E0: if (can_push) begin
            o_push <= 1'b1;
            o_reg <= {1'b0, 8'hFF, d_va};
            r_st <= R_E1;
        end
        R_E1: if (can_push) begin
            o_push <= 1'b1;
            o_reg <= {1'b0, 8'hFF, d_tag, d_handle};
            r_st <= R_PAY;
        end
        R_PAY: if (r_left == {(BA + 1){1'b0}} && !r_inflight && !b_rd_en) begin
            // every payload beat is read (the last one lands, or landed):
            // free the frame's buffer space and let it go
            rp <= d_start + d_beats;
            pop_req <= 1'b1;
            r_st <= r_msg_done ? R_TRL : R_IDLE;
        end
        R_TRL: if (can_push) begin
            o_push <= 1'b1;
            o_reg <= {1'b1, 8'hFF, 32'd0, r_status};
            open <= 1'b0;
            if (r_status == 32'd0) cnt_msgs <= cnt_msgs + 32'd1;
            r_st <= R_IDLE;
        end
        R_CM: if (r_left == {(BA + 1){1'b0}} && !r_inflight && !b_rd_en) begin
            cm_valid <= 1'b1;
            rp <= d_start + d_beats;
            pop_req <= 1'b1;
            r_st <= R_IDLE;
        end
        R_SKIP: begin
            rp <= d_start + d_beats;
            pop_req <= 1'b1;
            r_st <= R_IDLE;
        end
        default: r_st <= R_IDLE;
        endcase

        q_cnt <= q_cnt + {{QA{1'b0}}, q_push} - {{QA{1'b0}}, pop_req};
    end
end

assign busy = (w_st != W_H) || (w_hb != 3'd0) || q_any || (r_st != R_IDLE) || m_axis_tvalid || cm_valid;

// SEQ (h1[31:0]) and the reserved bytes are not used yet
wire unused_ok = &{1'b0, crc_unused, o_ready_unused, h1[31:0], h2[63:48], f_flags[7:3], d_beats14};

endmodule

`default_nettype wire
