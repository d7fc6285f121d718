// via_soft_reset: sequencer for CTRL.SOFT_RESET.
//
// A soft reset must not cut an AXI4 transaction of the DMA master in half (a
// burst whose address was accepted but whose data or response is still owed
// would be left dangling for the host bridge), nor drop an AXI-Stream beat
// that the network side has already been offered. So it runs in two phases:
//
//   DRAIN  dma_abort is pulsed once; the engine stops issuing bursts and
//          finishes those in flight. The phase ends in the first cycle in
//          which the engine is idle (dma_busy 0), no AXI4 request is being
//          offered (arvalid/awvalid/wvalid all 0), every accepted read burst
//          has had its last R beat, every accepted write burst its W beats
//          and its B response (counted here from the handshakes, so a
//          premature dma_busy 0 cannot cause a dangling burst), and no m_axis
//          beat is waiting for tready (busy also quiesces the network port,
//          so that no new beat is offered once the last one is taken).
//   HOLD   blk_rst is 1 for CYCLES cycles: every block and register except
//          the BAR0 slave's handshake logic (and this sequencer) is reset.
//
// busy (STATUS.RESET_BUSY) is 1 during both phases. A request while busy is
// ignored. If the AXI4 slave never answers an accepted burst, DRAIN never
// ends: only the hard reset recovers from a hung host interconnect.

`timescale 1ns / 1ps
`default_nettype none

`include "via_param_check.vh"
module via_soft_reset #(
    parameter CYCLES = 16  // cycles blk_rst is held (>= 1; 0 counts as 1)
) (
    input  wire clk,
    input  wire rst,

    // control
    input  wire req,        // one-cycle pulse: CTRL.SOFT_RESET written with 1
    output wire busy,       // STATUS.RESET_BUSY; also quiesces the network port
    output wire blk_rst,    // synchronous reset for the NIC's blocks

    // DMA engine
    output wire dma_abort,  // one-cycle pulse at the start of DRAIN
    input  wire dma_busy,   // in via_nic: the engine, the TPT probe, lookups
                            // and page-list fetches (anything that may still
                            // start an AXI4 burst)

    // DMA AXI4 master handshakes, observed
    input  wire m_axi_awvalid,
    input  wire m_axi_awready,
    input  wire m_axi_wvalid,
    input  wire m_axi_wready,
    input  wire m_axi_wlast,
    input  wire m_axi_bvalid,
    input  wire m_axi_bready,
    input  wire m_axi_arvalid,
    input  wire m_axi_arready,
    input  wire m_axi_rvalid,
    input  wire m_axi_rready,
    input  wire m_axi_rlast,

    // network port: an m_axis beat is offered and not yet taken
    input  wire net_stalled
);

generate
    if (CYCLES < 0 || CYCLES > (1 << 24)) begin : g_bad_cycles
        `VIA_PARAM_FAIL(("via_soft_reset: CYCLES=%0d, must be 0 .. 2**24 (0 counts as 1)", CYCLES))
    end
endgenerate

localparam HOLD_CYCLES = (CYCLES < 1) ? 1 : CYCLES;
localparam CNT_WIDTH = (HOLD_CYCLES > 1) ? $clog2(HOLD_CYCLES) : 1;
localparam [31:0] HOLD_M1 = HOLD_CYCLES - 1;
localparam [CNT_WIDTH-1:0] CNT_LOAD = HOLD_M1[CNT_WIDTH-1:0];

// enough for any number of bursts an AXI4 ID space of 16 IDs could have in flight
localparam OUT_WIDTH = 8;

localparam [1:0] STATE_IDLE  = 2'd0;
localparam [1:0] STATE_DRAIN = 2'd1;
localparam [1:0] STATE_HOLD  = 2'd2;

reg [1:0]           state_reg, state_next;
reg [CNT_WIDTH-1:0] cnt_reg, cnt_next;
reg                 blk_rst_reg;
reg                 abort_reg;

// bursts accepted on AR without their last R beat yet
reg [OUT_WIDTH-1:0] rd_out_reg;
// bursts accepted on AW without their B response yet
reg [OUT_WIDTH-1:0] aw_out_reg;
// bursts whose W data has all been sent (wlast) without their B response yet
reg [OUT_WIDTH-1:0] w_out_reg;
// a W burst has started (some beats sent) but its wlast has not
reg                 w_mid_reg;

wire ar_hs    = m_axi_arvalid && m_axi_arready;
wire rlast_hs = m_axi_rvalid && m_axi_rready && m_axi_rlast;
wire aw_hs    = m_axi_awvalid && m_axi_awready;
wire w_hs     = m_axi_wvalid && m_axi_wready;
wire wlast_hs = w_hs && m_axi_wlast;
wire b_hs     = m_axi_bvalid && m_axi_bready;

wire drained = !dma_busy &&
               !m_axi_arvalid && !m_axi_awvalid && !m_axi_wvalid &&
               rd_out_reg == {OUT_WIDTH{1'b0}} &&
               aw_out_reg == {OUT_WIDTH{1'b0}} &&
               w_out_reg == {OUT_WIDTH{1'b0}} &&
               !w_mid_reg &&
               !net_stalled;

assign busy      = state_reg != STATE_IDLE;
assign blk_rst   = blk_rst_reg;
assign dma_abort = abort_reg;

always @* begin
    state_next = state_reg;
    cnt_next   = cnt_reg;
    case (state_reg)
        STATE_IDLE: begin
            if (req) begin
                state_next = STATE_DRAIN;
            end
        end
        STATE_DRAIN: begin
            if (drained) begin
                state_next = STATE_HOLD;
                cnt_next   = CNT_LOAD;
            end
        end
        STATE_HOLD: begin
            if (cnt_reg == {CNT_WIDTH{1'b0}}) begin
                state_next = STATE_IDLE;
            end else begin
                cnt_next = cnt_reg - 1'b1;
            end
        end
        default: begin
            state_next = STATE_IDLE;
        end
    endcase
end

always @(posedge clk) begin
    if (rst) begin
        state_reg   <= STATE_IDLE;
        cnt_reg     <= {CNT_WIDTH{1'b0}};
        blk_rst_reg <= 1'b0;
        abort_reg   <= 1'b0;
        rd_out_reg  <= {OUT_WIDTH{1'b0}};
        aw_out_reg  <= {OUT_WIDTH{1'b0}};
        w_out_reg   <= {OUT_WIDTH{1'b0}};
        w_mid_reg   <= 1'b0;
    end else begin
        state_reg   <= state_next;
        cnt_reg     <= cnt_next;
        // blk_rst is high exactly in the cycles where state_reg is HOLD
        blk_rst_reg <= state_next == STATE_HOLD;
        abort_reg   <= state_reg == STATE_IDLE && state_next == STATE_DRAIN;

        rd_out_reg <= rd_out_reg + {{(OUT_WIDTH-1){1'b0}}, ar_hs}
                                 - {{(OUT_WIDTH-1){1'b0}}, rlast_hs};
        aw_out_reg <= aw_out_reg + {{(OUT_WIDTH-1){1'b0}}, aw_hs}
                                 - {{(OUT_WIDTH-1){1'b0}}, b_hs};
        w_out_reg  <= w_out_reg + {{(OUT_WIDTH-1){1'b0}}, wlast_hs}
                                - {{(OUT_WIDTH-1){1'b0}}, b_hs};
        if (wlast_hs) begin
            w_mid_reg <= 1'b0;
        end else if (w_hs) begin
            w_mid_reg <= 1'b1;
        end
    end
end

endmodule

`default_nettype wire
