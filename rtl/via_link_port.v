// via_link_port: the node side of a fabric link (docs/fabric.md).
//
// Sits between a NIC's AXI-Stream network port and one link of the fabric
// switch (via_fabric). The link carries symbols only: data beats one way,
// credit pulses the other way, each delayed by the link (>= 1 cycle, added
// outside this module). Nothing here depends combinationally on a symbol
// from the far end: every link output comes from a flip-flop.
//
// Send side (frames from the NIC to the link):
//   s_axis_*  frames to send (from the NIC's m_axis). A beat is taken
//             (s_axis_tready) only while the port holds a send credit and the
//             bandwidth limit allows a beat; s_axis_tready is a function of
//             state only (no path from s_axis_tvalid).
//   tx_valid, tx_data, tx_keep, tx_last
//             the beat taken in the cycle before, registered; at most one
//             per cycle. Each beat spends one credit.
//   tx_credit one pulse per slot the far end freed in its input buffer; adds
//             one credit. The port starts with CREDITS credits (the far end's
//             buffer depth). A credit that comes back in a cycle can be spent
//             in the next one.
//
// Receive side (frames from the link to the NIC):
//   rx_valid, rx_data, rx_keep, rx_last
//             beats from the link, always accepted into the receive buffer
//             (RX_DEPTH beats, via_fifo): the far end sends only with a
//             credit, so there is always room.
//   m_axis_*  the buffer's head to the NIC's s_axis, standard valid/ready.
//   rx_credit one registered pulse, the cycle after the NIC takes a beat
//             (a slot freed); the far end must start with RX_DEPTH credits.
//
// Bandwidth limit: a token bucket. BW_NUM tokens come in every cycle, a beat
// needs and costs BW_DEN tokens, the bucket holds at most BW_DEN + BW_NUM - 1
// (it starts with BW_DEN). So at most BW_NUM beats go out in any BW_DEN
// consecutive cycles, and a sender that always has a beat gets exactly
// BW_NUM per BW_DEN (no token is lost while it sends). 1/1 (the default) is
// line rate.
//
// Latency: a beat on s_axis appears on tx_* the next cycle; a beat on rx_*
// can be on m_axis the next cycle (via_fifo's first-word fall-through).

`timescale 1ns / 1ps
`default_nettype none

`include "via_param_check.vh"

module via_link_port #(
    parameter CREDITS  = 64,  // initial send credits = far end's input buffer depth (1 .. 65535)
    parameter RX_DEPTH = 64,  // receive buffer in beats (power of two, 2 .. 65536)
    parameter BW_NUM   = 1,   // bandwidth limit: BW_NUM beats ... (1 .. BW_DEN)
    parameter BW_DEN   = 1    // ... per BW_DEN cycles (1 .. 65535)
) (
    input  wire        clk,
    input  wire        rst,

    // frames from the NIC (its m_axis)
    input  wire [63:0] s_axis_tdata,
    input  wire [7:0]  s_axis_tkeep,
    input  wire        s_axis_tvalid,
    output wire        s_axis_tready,
    input  wire        s_axis_tlast,

    // frames to the NIC (its s_axis)
    output wire [63:0] m_axis_tdata,
    output wire [7:0]  m_axis_tkeep,
    output wire        m_axis_tvalid,
    input  wire        m_axis_tready,
    output wire        m_axis_tlast,

    // link, outgoing beats and incoming credits
    output reg         tx_valid,
    output reg  [63:0] tx_data,
    output reg  [7:0]  tx_keep,
    output reg         tx_last,
    input  wire        tx_credit,

    // link, incoming beats and outgoing credits
    input  wire        rx_valid,
    input  wire [63:0] rx_data,
    input  wire [7:0]  rx_keep,
    input  wire        rx_last,
    output reg         rx_credit,

    // nothing in flight here: no beat or credit on the link outputs, the
    // receive buffer empty, the bandwidth bucket full (a simulator may skip
    // cycles: nothing changes until an input does)
    output wire        idle
);

generate
    if (CREDITS < 1 || CREDITS > 65535) begin : g_bad_credits
        `VIA_PARAM_FAIL(("via_link_port: CREDITS=%0d, must be 1..65535", CREDITS))
    end
    if (RX_DEPTH < 2 || RX_DEPTH > 65536 || (RX_DEPTH & (RX_DEPTH - 1)) != 0) begin : g_bad_rx_depth
        `VIA_PARAM_FAIL(("via_link_port: RX_DEPTH=%0d, must be a power of two 2..65536", RX_DEPTH))
    end
    if (BW_DEN < 1 || BW_DEN > 65535) begin : g_bad_bw_den
        `VIA_PARAM_FAIL(("via_link_port: BW_DEN=%0d, must be 1..65535", BW_DEN))
    end
    if (BW_NUM < 1 || BW_NUM > BW_DEN) begin : g_bad_bw_num
        `VIA_PARAM_FAIL(("via_link_port: BW_NUM=%0d, must be 1..BW_DEN", BW_NUM))
    end
endgenerate

// ---------------------------------------------------------------- send side
wire may_send;
wire bucket_full;
wire send = s_axis_tvalid && s_axis_tready;
assign s_axis_tready = may_send;

via_link_gate #(
    .CREDITS(CREDITS),
    .BW_NUM(BW_NUM),
    .BW_DEN(BW_DEN)
) u_gate (
    .clk(clk),
    .rst(rst),
    .send(send),
    .credit(tx_credit),
    .may_send(may_send),
    .full(bucket_full)
);

always @(posedge clk) begin
    if (rst) begin
        tx_valid <= 1'b0;
    end else begin
        tx_valid <= send;
    end
end

// the beat itself needs no reset: tx_valid qualifies it
always @(posedge clk) begin
    if (send) begin
        tx_data <= s_axis_tdata;
        tx_keep <= s_axis_tkeep;
        tx_last <= s_axis_tlast;
    end
end

// ------------------------------------------------------------- receive side
/* verilator lint_off UNUSEDSIGNAL */
// the credits guarantee room: the buffer's s_ready and level are not needed
wire       rx_ready_unused;
wire [$clog2(RX_DEPTH + 1)-1:0] rx_level_unused;
/* verilator lint_on UNUSEDSIGNAL */

via_fifo #(
    .WIDTH(73),
    .DEPTH(RX_DEPTH)
) u_rx_buf (
    .clk(clk),
    .rst(rst),
    .s_data({rx_last, rx_keep, rx_data}),
    .s_valid(rx_valid),
    .s_ready(rx_ready_unused),
    .m_data({m_axis_tlast, m_axis_tkeep, m_axis_tdata}),
    .m_valid(m_axis_tvalid),
    .m_ready(m_axis_tready),
    .level(rx_level_unused)
);

always @(posedge clk) begin
    if (rst) begin
        rx_credit <= 1'b0;
    end else begin
        rx_credit <= m_axis_tvalid && m_axis_tready;
    end
end

assign idle = !tx_valid && !rx_credit && !m_axis_tvalid && bucket_full;

endmodule

`default_nettype wire
