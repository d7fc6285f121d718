// via_net: the NIC's network block (docs/fabric.md, "The NIC on the wire").
//
// Between the VI engine's frame ports (e_tx from the send engine, e_rx to the
// receive engine; internal frames, rtl/via_frame.vh) and the network port
// (s_axis / m_axis: wire frames, docs/wire.md):
//
//   e_tx ─► router ─┬─ peer node = node_id ─► loopback FIFO ───────────┐
//                   └─ other node ─► via_wire_tx ─► m_axis              ├─► merge ─► e_rx
//   s_axis ─► via_wire_rx ─────────────────────────────────────────────┘
//                   └─ CONNECT frames: cm_* (the control processor's)
//   cmt_* (the control processor's CONNECT messages) ─► via_cm_tx ─► m_axis
//                                        (with via_wire_tx's frames, whole)
//
// Router: the internal header's byte 14 (the peer node) is in its second
// beat, so the first beat waits one cycle in a register until the second
// shows where the frame goes; the rest of the frame follows at one beat per
// cycle. A frame for this node (a VI joined with a VI of this NIC) goes
// through the loopback FIFO (FIFO_DEPTH beats), the others are packetized.
// Merge: the receive engine takes whole frames from the loopback FIFO and
// the depacketizer in turn (round-robin at frame boundaries). Likewise
// m_axis carries whole frames of the packetizer and of the CONNECT framer
// in turn; a beat offered stays offered (the choice of source holds until
// it is taken).
//
// DATA_WIDTH other than 64 (the wire is 64 bits wide): every frame goes to
// the loopback FIFO whatever its peer node, frames from s_axis are counted
// (NET_RX_FRAMES, NET_RX_MALFORMED) and dropped, m_axis stays idle.
//
// quiesce (a soft reset is pending) stops every path cleanly before the
// reset: no beat is taken from e_tx or s_axis, no new beat is offered on
// e_rx or m_axis; a beat already offered stays offered until it is taken, as
// AXI-Stream requires. A wire frame the reset cuts short reaches the far end
// without its trailer: the far end's depacketizer drops it (CRC).
//
// BAR0 block `net` (rtl/generated/via_bar0_net_regs.v): the counters of the
// port, the router, the packetizer and the depacketizer (NET_*); 32 bits,
// wrapping.

`timescale 1ns / 1ps
`default_nettype none

`include "via_frame.vh"
`include "via_wire.vh"
`include "via_param_check.vh"
module via_net #(
    parameter DATA_WIDTH = 64,             // AXI-Stream tdata bits
    parameter KEEP_WIDTH = DATA_WIDTH / 8, // AXI-Stream tkeep bits
    parameter FIFO_DEPTH = 64,             // loopback FIFO depth in beats (>= 2)
    parameter MTU        = `VIA_WIRE_MTU,  // wire payload bytes per frame
    parameter RX_BUF     = 1024,           // depacketizer payload buffer, beats
    parameter RX_SEGQ    = 8               // depacketizer frames buffered
) (
    input  wire                  clk,
    input  wire                  rst,
    input  wire [7:0]            node_id,

    // register bus (docs/rtl.md, "Register blocks")
    input  wire                  wr_en,
    input  wire [15:0]           wr_addr,
    input  wire [31:0]           wr_data,
    input  wire [3:0]            wr_strb,
    output wire                  wr_hit,
    input  wire                  rd_en,
    input  wire [15:0]           rd_addr,
    input  wire                  rd_fire,
    output wire                  rd_hit,
    output wire [31:0]           rd_data,

    // stop taking and offering beats (soft reset pending)
    input  wire                  quiesce,

    // AXI-Stream in (wire frames from the network)
    input  wire [DATA_WIDTH-1:0] s_axis_tdata,
    input  wire [KEEP_WIDTH-1:0] s_axis_tkeep,
    input  wire                  s_axis_tvalid,
    output wire                  s_axis_tready,
    input  wire                  s_axis_tlast,

    // AXI-Stream out (wire frames to the network)
    output wire [DATA_WIDTH-1:0] m_axis_tdata,
    output wire [KEEP_WIDTH-1:0] m_axis_tkeep,
    output wire                  m_axis_tvalid,
    input  wire                  m_axis_tready,
    output wire                  m_axis_tlast,

    // the send engine's frames
    input  wire [DATA_WIDTH-1:0] e_tx_tdata,
    input  wire [KEEP_WIDTH-1:0] e_tx_tkeep,
    input  wire                  e_tx_tvalid,
    output wire                  e_tx_tready,
    input  wire                  e_tx_tlast,
    // frames for the receive engine
    output wire [DATA_WIDTH-1:0] e_rx_tdata,
    output wire [KEEP_WIDTH-1:0] e_rx_tkeep,
    output wire                  e_rx_tvalid,
    input  wire                  e_rx_tready,
    output wire                  e_rx_tlast,

    // a CONNECT message to send: taken when cmt_valid && cmt_ready
    input  wire                  cmt_valid,
    output wire                  cmt_ready,
    input  wire [7:0]            cmt_dst_node,
    input  wire [15:0]           cmt_dst_vi,
    input  wire [15:0]           cmt_src_vi,
    input  wire [255:0]          cmt_data,

    // CONNECT frames received (docs/wire.md CM): held until cm_ready
    output wire                  cm_valid,
    input  wire                  cm_ready,
    output wire [7:0]            cm_src_node,
    output wire [15:0]           cm_src_vi,
    output wire [15:0]           cm_dst_vi,
    output wire [255:0]          cm_data,

    // a frame is on its way somewhere inside
    output wire                  busy
);

generate
    if (DATA_WIDTH < 8 || DATA_WIDTH % 8 != 0) begin : g_bad_data_width
        `VIA_PARAM_FAIL(("via_net: DATA_WIDTH=%0d, must be a multiple of 8", DATA_WIDTH))
    end
    if (KEEP_WIDTH != DATA_WIDTH / 8) begin : g_bad_keep_width
        `VIA_PARAM_FAIL(("via_net: KEEP_WIDTH=%0d, must be DATA_WIDTH/8", KEEP_WIDTH))
    end
    if (FIFO_DEPTH < 2) begin : g_bad_fifo_depth
        `VIA_PARAM_FAIL(("via_net: FIFO_DEPTH=%0d, must be >= 2", FIFO_DEPTH))
    end
endgenerate

localparam W = DATA_WIDTH + KEEP_WIDTH + 1;  // {tlast, tkeep, tdata}

// ------------------------------------------------------------ router

localparam [1:0] R_B0 = 2'd0,    // waiting for a frame's first beat
                 R_B1 = 2'd1,    // first beat held, waiting for the second
                 R_PASS = 2'd2;  // the frame's destination is known

reg  [1:0]   r_st;
reg  [W-1:0] r_beat;             // the held beat
reg          r_full;             // r_beat holds a beat (R_PASS)
reg          r_wire;             // the frame goes to the wire
wire         r_last = r_beat[W-1];

// the destination of the frame whose second beat is on e_tx
wire [7:0]   b1_node;
generate
    if (DATA_WIDTH == 64) begin : g_node64
        assign b1_node = e_tx_tdata[8 * (`VIA_FRAME_PEER_NODE_OFF - 8) +: 8];
    end else begin : g_node_wide
        assign b1_node = node_id;  // one header beat; all frames stay here
    end
endgenerate
wire         b1_wire = (DATA_WIDTH == 64) && (b1_node != node_id);

// where the held beat goes in this cycle
wire         o_wire = (r_st == R_B1) ? b1_wire : r_wire;
wire         o_valid = ((r_st == R_B1) && e_tx_tvalid) || ((r_st == R_PASS) && r_full);
wire         loop_s_ready;
wire         wtx_s_ready;
wire         o_ready = o_wire ? wtx_s_ready : loop_s_ready;
wire         o_fire = o_valid && o_ready;

// wide data paths: the whole header is in the first beat, the router passes
// frames through (R_B0 -> R_PASS directly)
wire         one_hdr_beat = (DATA_WIDTH != 64);

assign e_tx_tready = !quiesce && (
    (r_st == R_B0) ||
    (r_st == R_B1 && o_ready) ||
    (r_st == R_PASS && (!r_full || (o_ready && !r_last))));
wire e_tx_fire = e_tx_tvalid && e_tx_tready;

always @(posedge clk) begin
    if (rst) begin
        r_st   <= R_B0;
        r_full <= 1'b0;
        r_wire <= 1'b0;
        r_beat <= {W{1'b0}};
    end else begin
        case (r_st)
        R_B0: if (e_tx_fire) begin
            r_beat <= {e_tx_tlast, e_tx_tkeep, e_tx_tdata};
            r_full <= 1'b1;
            r_wire <= 1'b0;
            r_st   <= one_hdr_beat ? R_PASS : R_B1;
        end
        R_B1: if (e_tx_fire) begin
            r_beat <= {e_tx_tlast, e_tx_tkeep, e_tx_tdata};
            r_wire <= b1_wire;
            r_st   <= R_PASS;
        end
        default: begin
            if (o_fire && r_last) begin
                r_full <= 1'b0;
                r_st   <= R_B0;
            end else if (e_tx_fire) begin
                r_beat <= {e_tx_tlast, e_tx_tkeep, e_tx_tdata};
                r_full <= 1'b1;
            end else if (o_fire) begin
                r_full <= 1'b0;
            end
        end
        endcase
    end
end

// ------------------------------------------------------------ loopback FIFO

wire [W-1:0] loop_m_data;
wire         loop_m_valid;
wire         loop_m_ready;
/* verilator lint_off UNUSEDSIGNAL */
wire [$clog2(FIFO_DEPTH + 1)-1:0] loop_level;  // for waveforms
/* verilator lint_on UNUSEDSIGNAL */

via_fifo #(
    .WIDTH(W),
    .DEPTH(FIFO_DEPTH)
) loop_fifo_inst (
    .clk(clk),
    .rst(rst),
    .s_data(r_beat),
    .s_valid(o_valid && !o_wire),
    .s_ready(loop_s_ready),
    .m_data(loop_m_data),
    .m_valid(loop_m_valid),
    .m_ready(loop_m_ready),
    .level(loop_level)
);

// ------------------------------------------------------------ the wire

wire [DATA_WIDTH-1:0] wrx_tdata;
wire [KEEP_WIDTH-1:0] wrx_tkeep;
wire                  wrx_tvalid, wrx_tlast;
wire                  wrx_tready;
wire                  wtx_busy, wrx_busy;
wire [31:0] cnt_tx_frames, cnt_tx_msgs;
wire [31:0] cnt_rx_good, cnt_rx_crc, cnt_rx_malformed, cnt_rx_misrouted;
wire [31:0] cnt_rx_kind, cnt_rx_reasm, cnt_rx_msgs;
reg         m_offered_reg;   // m_axis_tvalid was 1 without tready
wire        m_enable = !quiesce || m_offered_reg;
wire        wtx_m_valid_o;     // the beat offered on m_axis (packetizer or CONNECT)
wire        wrx_s_ready;

generate
    if (DATA_WIDTH == 64) begin : g_wire
        wire        wtx_m_valid;       // the packetizer's beat
        wire [63:0] wtx_tdata, cmf_tdata;
        wire [7:0]  wtx_tkeep, cmf_tkeep;
        wire        wtx_tlast, cmf_tlast, wtx_m_ready, cmf_valid, cmf_ready, cmf_busy;
        wire        wtx_busy_w, cmt_ready_w;
        via_wire_tx #(
            .MTU(MTU)
        ) wire_tx_inst (
            .clk(clk),
            .rst(rst),
            .node_id(node_id),
            .s_axis_tdata(r_beat[63:0]),
            .s_axis_tkeep(r_beat[71:64]),
            .s_axis_tvalid(o_valid && o_wire),
            .s_axis_tready(wtx_s_ready),
            .s_axis_tlast(r_beat[72]),
            .m_axis_tdata(wtx_tdata),
            .m_axis_tkeep(wtx_tkeep),
            .m_axis_tvalid(wtx_m_valid),
            .m_axis_tready(wtx_m_ready),
            .m_axis_tlast(wtx_tlast),
            .busy(wtx_busy_w),
            .cnt_frames(cnt_tx_frames),
            .cnt_msgs(cnt_tx_msgs)
        );

        via_cm_tx cm_tx_inst (
            .clk(clk),
            .rst(rst),
            .node_id(node_id),
            .s_valid(cmt_valid && !quiesce),
            .s_ready(cmt_ready_w),
            .dst_node(cmt_dst_node),
            .dst_vi(cmt_dst_vi),
            .src_vi(cmt_src_vi),
            .data(cmt_data),
            .m_axis_tdata(cmf_tdata),
            .m_axis_tkeep(cmf_tkeep),
            .m_axis_tvalid(cmf_valid),
            .m_axis_tready(cmf_ready),
            .m_axis_tlast(cmf_tlast),
            .busy(cmf_busy)
        );
        assign cmt_ready = cmt_ready_w && !quiesce;
        assign wtx_busy = wtx_busy_w || cmf_busy;

        // m_axis: whole frames of the packetizer and the CONNECT framer in
        // turn; the source of an offered beat holds until it is taken
        reg  o_lock, o_sel, o_prio, o_hold;
        wire o_pick = (o_lock || o_hold) ? o_sel : (wtx_m_valid && cmf_valid) ? o_prio : cmf_valid;
        assign wtx_m_valid_o = o_pick ? cmf_valid : wtx_m_valid;
        assign m_axis_tdata  = o_pick ? cmf_tdata : wtx_tdata;
        assign m_axis_tkeep  = o_pick ? cmf_tkeep : wtx_tkeep;
        assign m_axis_tlast  = o_pick ? cmf_tlast : wtx_tlast;
        assign wtx_m_ready   = !o_pick && m_axis_tready && m_enable;
        assign cmf_ready     = o_pick && m_axis_tready && m_enable;
        always @(posedge clk) begin
            if (rst) begin
                o_lock <= 1'b0;
                o_sel  <= 1'b0;
                o_prio <= 1'b0;
                o_hold <= 1'b0;
            end else begin
                o_hold <= m_axis_tvalid && !m_axis_tready;
                if (m_axis_tvalid) begin
                    o_sel <= o_pick;
                end
                if (m_axis_tvalid && m_axis_tready) begin
                    o_lock <= !m_axis_tlast;
                    if (m_axis_tlast) begin
                        o_prio <= !o_pick;
                    end
                end
            end
        end

        via_wire_rx #(
            .MTU(MTU),
            .BUF_BEATS(RX_BUF),
            .SEGQ(RX_SEGQ)
        ) wire_rx_inst (
            .clk(clk),
            .rst(rst),
            .node_id(node_id),
            .s_axis_tdata(s_axis_tdata),
            .s_axis_tkeep(s_axis_tkeep),
            .s_axis_tvalid(s_axis_tvalid && !quiesce),
            .s_axis_tready(wrx_s_ready),
            .s_axis_tlast(s_axis_tlast),
            .m_axis_tdata(wrx_tdata),
            .m_axis_tkeep(wrx_tkeep),
            .m_axis_tvalid(wrx_tvalid),
            .m_axis_tready(wrx_tready),
            .m_axis_tlast(wrx_tlast),
            .cm_valid(cm_valid),
            .cm_ready(cm_ready),
            .cm_src_node(cm_src_node),
            .cm_src_vi(cm_src_vi),
            .cm_dst_vi(cm_dst_vi),
            .cm_data(cm_data),
            .busy(wrx_busy),
            .cnt_frames(cnt_rx_good),
            .cnt_crc(cnt_rx_crc),
            .cnt_malformed(cnt_rx_malformed),
            .cnt_misrouted(cnt_rx_misrouted),
            .cnt_kind(cnt_rx_kind),
            .cnt_reasm(cnt_rx_reasm),
            .cnt_msgs(cnt_rx_msgs)
        );
    end else begin : g_no_wire
        // frames from s_axis are taken and dropped (counted as malformed)
        reg [31:0] dropped_reg;
        always @(posedge clk) begin
            if (rst) begin
                dropped_reg <= 32'd0;
            end else if (s_axis_tvalid && s_axis_tready && s_axis_tlast) begin
                dropped_reg <= dropped_reg + 32'd1;
            end
        end
        assign wtx_s_ready = 1'b0;
        assign wtx_m_valid_o = 1'b0;
        assign cmt_ready = 1'b0;
        assign m_axis_tdata = {DATA_WIDTH{1'b0}};
        assign m_axis_tkeep = {KEEP_WIDTH{1'b0}};
        assign m_axis_tlast = 1'b0;
        assign wrx_s_ready = 1'b1;
        assign wrx_tdata = {DATA_WIDTH{1'b0}};
        assign wrx_tkeep = {KEEP_WIDTH{1'b0}};
        assign wrx_tvalid = 1'b0;
        assign wrx_tlast = 1'b0;
        assign cm_valid = 1'b0;
        assign cm_src_node = 8'd0;
        assign cm_src_vi = 16'd0;
        assign cm_dst_vi = 16'd0;
        assign cm_data = 256'd0;
        assign wtx_busy = 1'b0;
        assign wrx_busy = 1'b0;
        assign cnt_tx_frames = 32'd0;
        assign cnt_tx_msgs = 32'd0;
        assign cnt_rx_good = 32'd0;
        assign cnt_rx_crc = 32'd0;
        assign cnt_rx_malformed = dropped_reg;
        assign cnt_rx_misrouted = 32'd0;
        assign cnt_rx_kind = 32'd0;
        assign cnt_rx_reasm = 32'd0;
        assign cnt_rx_msgs = 32'd0;
        wire unused_ok = &{1'b0, wrx_tready, cm_ready, s_axis_tdata, s_axis_tkeep, m_axis_tready,
                           cmt_valid, cmt_dst_node, cmt_dst_vi, cmt_src_vi, cmt_data, m_enable};
    end
endgenerate

assign s_axis_tready = wrx_s_ready && !quiesce;
assign m_axis_tvalid = wtx_m_valid_o && m_enable;

// ------------------------------------------------------------ merge

reg  m_lock;     // a frame is being passed
reg  m_sel;      // its source: 0 loopback, 1 wire
reg  m_prio;     // the source that wins a tie
reg  e_offered_reg;
wire e_enable = !quiesce || e_offered_reg;
wire pick = m_lock ? m_sel : (loop_m_valid && wrx_tvalid) ? m_prio : wrx_tvalid;

assign e_rx_tvalid = e_enable && (pick ? wrx_tvalid : loop_m_valid);
assign e_rx_tdata  = pick ? wrx_tdata : loop_m_data[DATA_WIDTH-1:0];
assign e_rx_tkeep  = pick ? wrx_tkeep : loop_m_data[DATA_WIDTH +: KEEP_WIDTH];
assign e_rx_tlast  = pick ? wrx_tlast : loop_m_data[W-1];
assign loop_m_ready = e_enable && !pick && e_rx_tready;
assign wrx_tready   = e_enable && pick && e_rx_tready;
wire e_rx_fire = e_rx_tvalid && e_rx_tready;

// ------------------------------------------------------------ counters

reg [31:0] rx_frames_reg, loop_msgs_reg, rx_cm_reg;

always @(posedge clk) begin
    if (rst) begin
        m_lock        <= 1'b0;
        m_sel         <= 1'b0;
        m_prio        <= 1'b0;
        e_offered_reg <= 1'b0;
        m_offered_reg <= 1'b0;
        rx_frames_reg <= 32'd0;
        loop_msgs_reg <= 32'd0;
        rx_cm_reg     <= 32'd0;
    end else begin
        e_offered_reg <= e_rx_tvalid && !e_rx_tready;
        m_offered_reg <= m_axis_tvalid && !m_axis_tready;
        if (e_rx_fire) begin
            m_sel  <= pick;
            m_lock <= !e_rx_tlast;
            if (e_rx_tlast) begin
                m_prio <= !pick;
            end
        end
        if (s_axis_tvalid && s_axis_tready && s_axis_tlast) begin
            rx_frames_reg <= rx_frames_reg + 32'd1;
        end
        if (cm_valid && cm_ready) begin
            rx_cm_reg <= rx_cm_reg + 32'd1;
        end
        if (o_fire && !o_wire && r_last) begin
            loop_msgs_reg <= loop_msgs_reg + 32'd1;
        end
    end
end

via_bar0_net_regs regs_inst (
    .clk(clk),
    .rst(rst),
    .wr_en(wr_en),
    .wr_addr(wr_addr),
    .wr_data(wr_data),
    .wr_strb(wr_strb),
    .rd_en(rd_en),
    .rd_addr(rd_addr),
    .rd_fire(rd_fire),
    .wr_hit(wr_hit),
    .rd_hit(rd_hit),
    .rd_data(rd_data),
    .net_rx_frames_i(rx_frames_reg),
    .net_tx_frames_i(cnt_tx_frames),
    .net_loop_msgs_i(loop_msgs_reg),
    .net_tx_msgs_i(cnt_tx_msgs),
    .net_rx_good_i(cnt_rx_good),
    .net_rx_crc_i(cnt_rx_crc),
    .net_rx_malformed_i(cnt_rx_malformed),
    .net_rx_misrouted_i(cnt_rx_misrouted),
    .net_rx_kind_i(cnt_rx_kind),
    .net_rx_reasm_i(cnt_rx_reasm),
    .net_rx_msgs_i(cnt_rx_msgs),
    .net_rx_cm_i(rx_cm_reg)
);

assign busy = (r_st != R_B0) || loop_m_valid || wtx_busy || wrx_busy || m_lock ||
              m_axis_tvalid || cm_valid;

endmodule

`default_nettype wire
