// via_cm_tx: builds the wire frame of a connection-management message
// (docs/wire.md: a CONNECT frame, KIND 1, FIRST and LAST, MSG_LEN and
// SEG_LEN 32, the 32-byte CM payload, the CRC trailer) from what the
// firmware's connection manager hands over, and sends it out on m_axis.
//
//   s_valid / s_ready   a message: taken (all fields latched) when both are
//                       1; s_ready is 1 while no frame is being sent
//   dst_node, dst_vi, src_vi, data
//                       the frame's addressing and CM payload (data[7:0] is
//                       the payload's byte 0)
//   m_axis_*            9 beats: 4 header, 4 payload, the trailer (tlast)
//   busy                a frame is being sent
//
// SRC_NODE is node_id, SEQ 0, IMMEDIATE 0.

`timescale 1ns / 1ps
`default_nettype none

module via_cm_tx (
    input  wire         clk,
    input  wire         rst,
    input  wire [7:0]   node_id,

    input  wire         s_valid,
    output wire         s_ready,
    input  wire [7:0]   dst_node,
    input  wire [15:0]  dst_vi,
    input  wire [15:0]  src_vi,
    input  wire [255:0] data,

    output wire [63:0]  m_axis_tdata,
    output wire [7:0]   m_axis_tkeep,
    output wire         m_axis_tvalid,
    input  wire         m_axis_tready,
    output wire         m_axis_tlast,

    output wire         busy
);

localparam [7:0]  KIND_CONNECT = 8'd1;
localparam [7:0]  FLAGS = 8'd3;      // FIRST | LAST
localparam [31:0] CM_BYTES = 32'd32;

reg         active;
reg  [3:0]  beat;                    // 0..3 header, 4..7 payload, 8 trailer
reg  [7:0]  r_node;
reg  [15:0] r_dvi, r_svi;
reg  [255:0] r_data;

reg [63:0] b;
always @(*) begin
    case (beat)
    4'd0: b = {FLAGS, KIND_CONNECT, r_svi, r_dvi, node_id, r_node};
    4'd1: b = {CM_BYTES, 32'd0};                  // MSG_LEN, SEQ 0
    4'd2: b = {16'd0, CM_BYTES[15:0], 32'd0};     // SEG_LEN, OFFSET 0
    4'd3: b = 64'd0;                              // IMMEDIATE 0
    4'd4: b = r_data[63:0];
    4'd5: b = r_data[127:64];
    4'd6: b = r_data[191:128];
    4'd7: b = r_data[255:192];
    default: b = 64'd0;
    endcase
end

wire [31:0] crc;
wire [31:0] crc_unused;
wire        m_fire = m_axis_tvalid && m_axis_tready;
wire        last = (beat == 4'd8);

via_wire_crc u_crc (
    .clk(clk),
    .rst(rst),
    .init(m_fire && beat == 4'd0),
    .valid(m_fire && !last),
    .data(b),
    .nbytes(4'd8),
    .crc(crc),
    .crc_next(crc_unused)
);
wire unused_ok = &{1'b0, crc_unused};

assign s_ready       = !active;
assign m_axis_tvalid = active;
assign m_axis_tdata  = last ? {32'd0, crc} : b;   // trailer: CRC, STATUS 0
assign m_axis_tkeep  = 8'hFF;
assign m_axis_tlast  = last;
assign busy          = active;

always @(posedge clk) begin
    if (rst) begin
        active <= 1'b0;
        beat   <= 4'd0;
        r_node <= 8'd0;
        r_dvi  <= 16'd0;
        r_svi  <= 16'd0;
        r_data <= 256'd0;
    end else if (!active) begin
        if (s_valid) begin
            active <= 1'b1;
            beat   <= 4'd0;
            r_node <= dst_node;
            r_dvi  <= dst_vi;
            r_svi  <= src_vi;
            r_data <= data;
        end
    end else if (m_fire) begin
        if (last) begin
            active <= 1'b0;
            beat   <= 4'd0;
        end else begin
            beat <= beat + 4'd1;
        end
    end
end

endmodule

`default_nettype wire
