// via_net_loopback: the network port until the fabric exists.
//
// Two paths: the external AXI-Stream port's loopback (below) and the
// descriptor engine's (e_tx -> FIFO -> e_rx: a message a VI sends to a VI
// joined with it on this NIC; docs/vi.md, "Loopback").
//
// Every beat received on s_axis is queued in a FIFO of FIFO_DEPTH beats and
// sent back out on m_axis unchanged (tdata, tkeep, tlast), with full
// back-pressure in both directions: s_axis_tready is 0 while the FIFO is full.
// BAR0 block `net` (rtl/generated/via_bar0_net_regs.v, instantiated here;
// the bus is the register-block bus of docs/rtl.md, routed by via_regfile):
// NET_RX_FRAMES / NET_TX_FRAMES count beats with tlast accepted on s_axis /
// m_axis (rx_frames, tx_frames); they wrap at 2**32 and read as the counter's
// value in the cycle of the read.
//
// quiesce (a soft reset is pending) stops the port cleanly before the reset
// empties the FIFO: s_axis_tready goes to 0 (beats stay with the sender), and
// no new beat is offered on m_axis; a beat already offered stays offered
// until it is taken, as AXI-Stream requires. Once m_axis_tvalid is 0 under
// quiesce, it stays 0 until quiesce drops, so resetting then cuts nothing.

`timescale 1ns / 1ps
`default_nettype none

`include "via_param_check.vh"
module via_net_loopback #(
    parameter DATA_WIDTH = 64,             // AXI-Stream tdata bits
    parameter KEEP_WIDTH = DATA_WIDTH / 8, // AXI-Stream tkeep bits
    parameter FIFO_DEPTH = 64              // loopback FIFO depth in beats (>= 2)
) (
    input  wire                  clk,
    input  wire                  rst,

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

    // AXI-Stream in (from the network)
    input  wire [DATA_WIDTH-1:0] s_axis_tdata,
    input  wire [KEEP_WIDTH-1:0] s_axis_tkeep,
    input  wire                  s_axis_tvalid,
    output wire                  s_axis_tready,
    input  wire                  s_axis_tlast,

    // AXI-Stream out (to the network)
    output wire [DATA_WIDTH-1:0] m_axis_tdata,
    output wire [KEEP_WIDTH-1:0] m_axis_tkeep,
    output wire                  m_axis_tvalid,
    input  wire                  m_axis_tready,
    output wire                  m_axis_tlast,

    // the descriptor engine's loopback path: frames the send engine
    // transmits (e_tx) come back to the receive engine (e_rx) through a
    // FIFO of their own, FIFO_DEPTH beats
    input  wire [DATA_WIDTH-1:0] e_tx_tdata,
    input  wire [KEEP_WIDTH-1:0] e_tx_tkeep,
    input  wire                  e_tx_tvalid,
    output wire                  e_tx_tready,
    input  wire                  e_tx_tlast,
    output wire [DATA_WIDTH-1:0] e_rx_tdata,
    output wire [KEEP_WIDTH-1:0] e_rx_tkeep,
    output wire                  e_rx_tvalid,
    input  wire                  e_rx_tready,
    output wire                  e_rx_tlast,
    // a beat is in the engine path's FIFO
    output wire                  e_busy
);

generate
    if (DATA_WIDTH < 8 || DATA_WIDTH % 8 != 0) begin : g_bad_data_width
        `VIA_PARAM_FAIL(("via_net_loopback: DATA_WIDTH=%0d, must be a multiple of 8", DATA_WIDTH))
    end
    if (KEEP_WIDTH != DATA_WIDTH / 8) begin : g_bad_keep_width
        `VIA_PARAM_FAIL(("via_net_loopback: KEEP_WIDTH=%0d, must be DATA_WIDTH/8", KEEP_WIDTH))
    end
    if (FIFO_DEPTH < 2) begin : g_bad_fifo_depth
        `VIA_PARAM_FAIL(("via_net_loopback: FIFO_DEPTH=%0d, must be >= 2", FIFO_DEPTH))
    end
endgenerate

localparam FIFO_WIDTH = DATA_WIDTH + KEEP_WIDTH + 1;

reg [31:0] rx_frames_reg;
reg [31:0] tx_frames_reg;
// m_axis_tvalid was 1 without tready: the beat must stay offered
reg        offered_reg;

wire fifo_s_ready;
wire fifo_m_valid;

// the output side may offer a beat: not quiesced, or finishing an offer
wire out_enable = !quiesce || offered_reg;

// frame counters (NET_RX_FRAMES, NET_TX_FRAMES)
wire [31:0] rx_frames = rx_frames_reg;
wire [31:0] tx_frames = tx_frames_reg;

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
    .net_rx_frames_i(rx_frames),
    .net_tx_frames_i(tx_frames)
);

assign s_axis_tready = fifo_s_ready && !quiesce;
assign m_axis_tvalid = fifo_m_valid && out_enable;

/* verilator lint_off UNUSEDSIGNAL */
// the FIFO's fill level, for waveforms
wire [$clog2(FIFO_DEPTH + 1)-1:0] fifo_level;
/* verilator lint_on UNUSEDSIGNAL */

via_fifo #(
    .WIDTH(FIFO_WIDTH),
    .DEPTH(FIFO_DEPTH)
) fifo_inst (
    .clk(clk),
    .rst(rst),
    .s_data({s_axis_tlast, s_axis_tkeep, s_axis_tdata}),
    .s_valid(s_axis_tvalid && !quiesce),
    .s_ready(fifo_s_ready),
    .m_data({m_axis_tlast, m_axis_tkeep, m_axis_tdata}),
    .m_valid(fifo_m_valid),
    .m_ready(m_axis_tready && out_enable),
    .level(fifo_level)
);

// ---- the engine's loopback path (same quiesce rule as the port's)
reg  e_offered_reg;
wire e_fifo_s_ready;
wire e_fifo_m_valid;
wire e_out_enable = !quiesce || e_offered_reg;
/* verilator lint_off UNUSEDSIGNAL */
wire [$clog2(FIFO_DEPTH + 1)-1:0] e_fifo_level;
/* verilator lint_on UNUSEDSIGNAL */

assign e_tx_tready = e_fifo_s_ready && !quiesce;
assign e_rx_tvalid = e_fifo_m_valid && e_out_enable;
assign e_busy      = e_fifo_m_valid;

via_fifo #(
    .WIDTH(FIFO_WIDTH),
    .DEPTH(FIFO_DEPTH)
) e_fifo_inst (
    .clk(clk),
    .rst(rst),
    .s_data({e_tx_tlast, e_tx_tkeep, e_tx_tdata}),
    .s_valid(e_tx_tvalid && !quiesce),
    .s_ready(e_fifo_s_ready),
    .m_data({e_rx_tlast, e_rx_tkeep, e_rx_tdata}),
    .m_valid(e_fifo_m_valid),
    .m_ready(e_rx_tready && e_out_enable),
    .level(e_fifo_level)
);

always @(posedge clk) begin
    if (rst) begin
        e_offered_reg <= 1'b0;
    end else begin
        e_offered_reg <= e_rx_tvalid && !e_rx_tready;
    end
end

always @(posedge clk) begin
    if (rst) begin
        rx_frames_reg <= 32'd0;
        tx_frames_reg <= 32'd0;
        offered_reg   <= 1'b0;
    end else begin
        offered_reg <= m_axis_tvalid && !m_axis_tready;
        if (s_axis_tvalid && s_axis_tready && s_axis_tlast) begin
            rx_frames_reg <= rx_frames_reg + 32'd1;
        end
        if (m_axis_tvalid && m_axis_tready && m_axis_tlast) begin
            tx_frames_reg <= tx_frames_reg + 32'd1;
        end
    end
end

endmodule

`default_nettype wire
