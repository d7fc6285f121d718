// via_wire_tx: the packetizer. Turns the send engine's internal frames
// (rtl/via_frame.vh: a 16-byte header, for the RDMA ops a 16-byte RDMA
// extension, the message, a status trailer) into wire frames
// (docs/wire.md): the message is cut into segments of at most MTU bytes,
// each sent as one frame with its own base header (KIND SEND, RDMA_WRITE,
// RDMA_READ_REQ or RDMA_READ_RESP, FIRST on the first, LAST on the last,
// OFFSET, SEG_LEN, MSG_LEN, the immediate data), for the RDMA kinds the
// RDMA extension, its payload and a trailer with the CRC-32 of the
// header(s) and payload.
// Cut-through: nothing is buffered, the header of a segment is known before
// its payload; one beat per cycle in and out (64-bit).
//
// The internal header's byte 13 (OP) picks the frame kind:
//   - OP send (0): KIND SEND frames, 4 header beats (HDR) then the payload.
//   - OP RDMA write (1): the two extension beats that follow the header
//     (remote VA; {tag, remote handle}) are taken too, and every segment is
//     a KIND RDMA_WRITE frame whose 4 HDR beats are followed by the 2 beats
//     of the RDMA extension: REMOTE_VA = the message's remote VA + the
//     segment's OFFSET (each segment names the target address of its own
//     first byte, modulo 2^64), REMOTE_HANDLE = the handle, TAG = the
//     internal extension's bytes 12..15 (zero from the send engine). The
//     CRC covers both headers and the payload. Such a frame is 2 beats
//     longer than a send's of the same payload, and the message takes 2
//     more input beats (the extension) before its first frame starts.
//   - OP RDMA read response (3): as an RDMA write, with KIND
//     RDMA_READ_RESP (the extension's VA and handle are 0 from the engine,
//     so REMOTE_VA = OFFSET; TAG is the initiator's read tag).
//   - OP RDMA read request (2): one KIND RDMA_READ_REQ frame, FIRST and
//     LAST, MSG_LEN 0, SEG_LEN 0, no payload, the immediate flag and data
//     as in the internal header (flag 1, IMM = the read's length), then the
//     RDMA extension (REMOTE_VA, REMOTE_HANDLE, TAG as taken). Its internal
//     LENGTH is 0; were it not, its payload beats would be taken and
//     dropped (the wire's READ_REQ carries none).
//   - any other OP: the internal frame is dropped whole (taken up to its
//     trailer, nothing sent, not counted in cnt_msgs).
// The internal header's byte 14 (PEER_NODE) is the destination node;
// SRC_NODE is node_id. SEQ is 0 (sequence numbers come with the reliable
// levels). The internal trailer's status goes into the last segment's
// trailer STATUS; a message whose payload ends early (the trailer comes
// before LENGTH bytes) ends its current segment there with that status
// (or 32'hFFFFFFFF if it was 0), so that the receiver drops it. An
// internal frame that ends inside its header or RDMA extension sends
// nothing.
//
//   s_axis_*  internal frames from the send engine (tlast on the trailer)
//   m_axis_*  wire frames (tlast on each frame's trailer; tkeep all ones
//             except on a segment's last payload beat)
//   busy      a frame is being converted (or dropped)
//   cnt_frames / cnt_msgs  wire frames / messages sent (wrap)

`timescale 1ns / 1ps
`default_nettype none

`include "via_frame.vh"
`include "via_param_check.vh"
module via_wire_tx #(
    parameter MTU = 4096  // payload bytes per frame: a multiple of 8, 8 .. 65528
) (
    input  wire        clk,
    input  wire        rst,
    input  wire [7:0]  node_id,

    input  wire [63:0] s_axis_tdata,
    input  wire [7:0]  s_axis_tkeep,
    input  wire        s_axis_tvalid,
    output wire        s_axis_tready,
    input  wire        s_axis_tlast,

    output wire [63:0] m_axis_tdata,
    output wire [7:0]  m_axis_tkeep,
    output wire        m_axis_tvalid,
    input  wire        m_axis_tready,
    output wire        m_axis_tlast,

    output wire        busy,
    output reg  [31:0] cnt_frames,
    output reg  [31:0] cnt_msgs
);

generate
    if (MTU < 8 || MTU > 65528 || MTU % 8 != 0) begin : g_bad_mtu
        `VIA_PARAM_FAIL(("via_wire_tx: MTU=%0d, must be a multiple of 8 in 8..65528", MTU))
    end
endgenerate

localparam [31:0] MTU_W = MTU;
localparam [7:0]  KIND_SEND = 8'd0, KIND_RDMA_WRITE = 8'd2, KIND_RDMA_READ_REQ = 8'd3, KIND_RDMA_READ_RESP = 8'd4;
// internal ops of RDMA read (rtl/via_frame.vh): request, response
localparam [7:0]  OP_RDMA_READ_REQ = 8'd2, OP_RDMA_READ_RESP = 8'd3;

// states
localparam [3:0] S_H0 = 4'd0,   // take the internal header's first beat
                 S_H1 = 4'd1,   // its second beat
                 S_WH = 4'd2,   // send the segment's header beats (4, RDMA 6)
                 S_PAY = 4'd3,  // pass the segment's payload
                 S_END = 4'd4,  // take the internal trailer (last segment)
                 S_TRL = 4'd5,  // send the segment's trailer
                 S_E0 = 4'd6,   // take the RDMA extension's first beat (VA)
                 S_E1 = 4'd7,   // its second beat (handle, tag)
                 S_DROP = 4'd8; // unknown OP: take the frame up to its trailer

reg [3:0]  st;
reg [2:0]  hb;          // header beat being sent (0..3 HDR, 4..5 RDMA)
reg        rdma;        // the message carries the RDMA extension (OP 1..3)
reg [7:0]  kind;        // its frames' KIND
reg [63:0] seg_va;      // RDMA: the remote VA of the segment's first byte
reg [31:0] handle;      // RDMA: the remote memory handle
reg [31:0] tag;         // RDMA: TAG (the internal extension's bytes 12..15)
reg [15:0] dst_vi, src_vi;
reg [31:0] msg_len, imm;
reg        immf;
reg [7:0]  dst_node;
reg [31:0] off;         // the segment's offset in the message
reg [31:0] seg_len;     // its payload bytes
reg [31:0] seg_done;    // payload bytes of it passed
reg        first;
reg [31:0] trl_status;  // STATUS of the trailer to send

wire        lastseg = (off + seg_len == msg_len);
wire [7:0]  flags = {5'd0, immf, lastseg, first};
wire        hb_end = (hb == (rdma ? 3'd5 : 3'd3));  // the segment's last header beat

reg [63:0] hdr_beat;
always @(*) begin
    case (hb)
    3'd0: hdr_beat = {flags, kind, src_vi, dst_vi, node_id, dst_node};
    3'd1: hdr_beat = {msg_len, 32'd0};                 // SEQ 0
    3'd2: hdr_beat = {16'd0, seg_len[15:0], off};
    3'd3: hdr_beat = {32'd0, imm};
    3'd4: hdr_beat = seg_va;                           // RDMA: REMOTE_VA
    default: hdr_beat = {tag, handle};                 // TAG, REMOTE_HANDLE
    endcase
end

wire [31:0] crc;
wire [31:0] crc_unused;
wire        s_fire = s_axis_tvalid && s_axis_tready;
wire        m_fire = m_axis_tvalid && m_axis_tready;

// payload beat bytes: the internal payload is packed from lane 0
`include "via_keep.vh"
wire [3:0]  pay_n = via_keep_bytes(s_axis_tkeep);
wire [7:0]  op = s_axis_tdata[47:40];  // OP, in the header's second beat (byte 13)
wire        op_ext = (op == `VIA_FRAME_OP_RDMA_WRITE) || (op == OP_RDMA_READ_REQ) || (op == OP_RDMA_READ_RESP);
wire        pay_beat = (st == S_PAY) && !s_axis_tlast;
wire        pay_cut = (st == S_PAY) && s_axis_tvalid && s_axis_tlast;  // trailer before the end

assign s_axis_tready = (st == S_H0) || (st == S_H1) || (st == S_E0) || (st == S_E1) ||
                       (st == S_DROP) || (st == S_END) ||
                       (st == S_PAY && (s_axis_tlast || m_axis_tready));
assign m_axis_tvalid = (st == S_WH) || (st == S_TRL) || (st == S_PAY && s_axis_tvalid && !s_axis_tlast);
assign m_axis_tdata  = (st == S_WH) ? hdr_beat : (st == S_TRL) ? {trl_status, crc} : s_axis_tdata;
assign m_axis_tkeep  = (st == S_PAY) ? s_axis_tkeep : 8'hFF;
assign m_axis_tlast  = (st == S_TRL);
assign busy = (st != S_H0);
wire unused_ok = &{1'b0, crc_unused};

via_wire_crc u_crc (
    .clk(clk),
    .rst(rst),
    .init(st == S_WH && hb == 3'd0 && m_fire),
    .valid((st == S_WH || pay_beat) && m_fire),
    .data(m_axis_tdata),
    .nbytes(st == S_WH ? 4'd8 : pay_n),
    .crc(crc),
    .crc_next(crc_unused)
);

// a segment's payload is complete once seg_len bytes passed
wire [31:0] seg_done_next = seg_done + {28'd0, pay_n};

always @(posedge clk) begin
    if (rst) begin
        st <= S_H0;
        hb <= 3'd0;
        rdma <= 1'b0; kind <= KIND_SEND; seg_va <= 64'd0; handle <= 32'd0; tag <= 32'd0;
        dst_vi <= 16'd0; src_vi <= 16'd0;
        msg_len <= 32'd0; imm <= 32'd0; immf <= 1'b0; dst_node <= 8'd0;
        off <= 32'd0; seg_len <= 32'd0; seg_done <= 32'd0; first <= 1'b0;
        trl_status <= 32'd0;
        cnt_frames <= 32'd0; cnt_msgs <= 32'd0;
    end else begin
        case (st)
        S_H0: if (s_fire) begin
            dst_vi <= s_axis_tdata[`VIA_FRAME_HDR_DST_VI_RANGE];
            src_vi <= s_axis_tdata[`VIA_FRAME_HDR_SRC_VI_RANGE];
            msg_len <= s_axis_tdata[`VIA_FRAME_HDR_LENGTH_RANGE];
            // a one-beat frame (only a trailer) is not a frame: skip it
            st <= s_axis_tlast ? S_H0 : S_H1;
        end
        S_H1: if (s_fire) begin
            // the header's second beat: bytes 8..15 (IMM, FLAGS, OP, PEER_NODE)
            imm <= s_axis_tdata[31:0];
            immf <= s_axis_tdata[32 + `VIA_FRAME_FLAG_IMM_BIT];
            rdma <= op_ext;
            kind <= (op == OP_RDMA_READ_REQ) ? KIND_RDMA_READ_REQ :
                    (op == OP_RDMA_READ_RESP) ? KIND_RDMA_READ_RESP :
                    (op == `VIA_FRAME_OP_RDMA_WRITE) ? KIND_RDMA_WRITE : KIND_SEND;
            dst_node <= s_axis_tdata[55:48];
            off <= 32'd0;
            first <= 1'b1;
            if (op == OP_RDMA_READ_REQ) begin
                // a read request carries no payload: one frame, MSG_LEN 0
                msg_len <= 32'd0;
                seg_len <= 32'd0;
            end else begin
                seg_len <= (msg_len > MTU_W) ? MTU_W : msg_len;
            end
            seg_done <= 32'd0;
            hb <= 3'd0;
            if (s_axis_tlast) begin
                st <= S_H0;  // malformed: ends in the header
            end else if (op == `VIA_FRAME_OP_SEND) begin
                st <= S_WH;
            end else if (op_ext) begin
                st <= S_E0;
            end else begin
                st <= S_DROP;
            end
        end
        S_E0: if (s_fire) begin
            // the RDMA extension's first beat: the remote VA (of byte 0)
            seg_va <= s_axis_tdata;
            st <= s_axis_tlast ? S_H0 : S_E1;  // malformed: ends in it
        end
        S_E1: if (s_fire) begin
            // its second beat: the remote handle, the tag (bytes 12..15)
            handle <= s_axis_tdata[31:0];
            tag <= s_axis_tdata[63:32];
            st <= s_axis_tlast ? S_H0 : S_WH;
        end
        S_DROP: if (s_fire && s_axis_tlast) begin
            st <= S_H0;
        end
        S_WH: if (m_fire) begin
            hb <= hb + 3'd1;
            if (hb_end) begin
                st <= (seg_len == 32'd0) ? S_END : S_PAY;
            end
        end
        S_PAY: begin
            if (pay_cut) begin
                // the payload ended early: this segment ends with the
                // sender's status, and so does the message
                trl_status <= (s_axis_tdata[31:0] == 32'd0) ? 32'hFFFF_FFFF : s_axis_tdata[31:0];
                st <= S_TRL;
            end else if (s_fire) begin
                seg_done <= seg_done_next;
                if (seg_done_next >= seg_len) begin
                    if (lastseg) begin
                        st <= S_END;
                    end else begin
                        trl_status <= 32'd0;
                        st <= S_TRL;
                    end
                end
            end
        end
        S_END: if (s_fire) begin
            if (s_axis_tlast) begin
                trl_status <= s_axis_tdata[31:0];
                st <= S_TRL;
            end
            // (extra payload beats past LENGTH, and a read request's
            // payload, are dropped here; the engine never sends any)
        end
        S_TRL: if (m_fire) begin
            cnt_frames <= cnt_frames + 32'd1;
            if (lastseg || trl_status != 32'd0) begin
                cnt_msgs <= cnt_msgs + 32'd1;
                st <= S_H0;
            end else begin
                off <= off + seg_len;
                seg_va <= seg_va + {32'd0, seg_len};
                seg_len <= (msg_len - (off + seg_len) > MTU_W) ? MTU_W : msg_len - (off + seg_len);
                seg_done <= 32'd0;
                first <= 1'b0;
                hb <= 3'd0;
                st <= S_WH;
            end
        end
        default: st <= S_H0;
        endcase
    end
end

endmodule

`default_nettype wire
