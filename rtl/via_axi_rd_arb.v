// via_axi_rd_arb: shares one AXI4 master's read channels (AR, R) between
// two read masters, port 0 and port 1, that use distinct ARIDs.
//
// AR: the two ports' requests are multiplexed onto m_axi_ar*. A request that
// has been presented (arvalid 1 without arready) keeps the channel until it
// is accepted, so the payload seen by the slave never changes before its
// handshake; between requests the channel alternates when both ports ask
// (round robin), else it goes to whichever asks. The multiplexer is
// combinational: a port alone on the bus sees the slave's arready in the same
// cycle, i.e. a single master behaves exactly as if it were connected
// directly (no added cycle).
//
// R: every beat is routed by its ID: RID == S1_ID goes to port 1, any other
// ID to port 0 (rvalid of the other port stays 0; data, response and last
// are broadcast). No beat waits for the other port: m_axi_rready is the
// addressed port's rready. Deadlock freedom is the ports' business: each
// must accept the R beats of every burst it issued without waiting for
// anything the other port holds (via_dma_diag reserves buffer space before
// its AR; via_tpt accepts its page-list beats always).
//
// busy1: port 1 has a read burst presented or accepted and not yet
// complete (its last R beat not taken); counted from the handshakes.
//
// Timing: combinational paths from s*_arvalid to m_axi_arvalid, from
// m_axi_arready to s*_arready, from m_axi_rid/rvalid to s*_rvalid and from
// s*_rready to m_axi_rready. One register holds the lock, one the round-robin
// pointer.

`timescale 1ns / 1ps
`default_nettype none

`include "via_param_check.vh"

module via_axi_rd_arb #(
    parameter ADDR_WIDTH = 48,                  // AR address bits (1..64)
    parameter ID_WIDTH = 4,                     // AXI4 ID bits (1..32)
    parameter [ID_WIDTH-1:0] S1_ID = 1          // the ID port 1 uses (R beats with it go to port 1)
) (
    input  wire                  clk,
    input  wire                  rst,

    // port 0
    input  wire [ID_WIDTH-1:0]   s0_axi_arid,
    input  wire [ADDR_WIDTH-1:0] s0_axi_araddr,
    input  wire [7:0]            s0_axi_arlen,
    input  wire [2:0]            s0_axi_arsize,
    input  wire [1:0]            s0_axi_arburst,
    input  wire                  s0_axi_arlock,
    input  wire [3:0]            s0_axi_arcache,
    input  wire [2:0]            s0_axi_arprot,
    input  wire                  s0_axi_arvalid,
    output wire                  s0_axi_arready,
    output wire                  s0_axi_rvalid,
    input  wire                  s0_axi_rready,

    // port 1
    input  wire [ID_WIDTH-1:0]   s1_axi_arid,
    input  wire [ADDR_WIDTH-1:0] s1_axi_araddr,
    input  wire [7:0]            s1_axi_arlen,
    input  wire [2:0]            s1_axi_arsize,
    input  wire [1:0]            s1_axi_arburst,
    input  wire                  s1_axi_arlock,
    input  wire [3:0]            s1_axi_arcache,
    input  wire [2:0]            s1_axi_arprot,
    input  wire                  s1_axi_arvalid,
    output wire                  s1_axi_arready,
    output wire                  s1_axi_rvalid,
    input  wire                  s1_axi_rready,

    // shared master read channels (R data, resp and last go to both ports)
    output wire [ID_WIDTH-1:0]   m_axi_arid,
    output wire [ADDR_WIDTH-1:0] m_axi_araddr,
    output wire [7:0]            m_axi_arlen,
    output wire [2:0]            m_axi_arsize,
    output wire [1:0]            m_axi_arburst,
    output wire                  m_axi_arlock,
    output wire [3:0]            m_axi_arcache,
    output wire [2:0]            m_axi_arprot,
    output wire                  m_axi_arvalid,
    input  wire                  m_axi_arready,
    input  wire [ID_WIDTH-1:0]   m_axi_rid,
    input  wire                  m_axi_rlast,
    input  wire                  m_axi_rvalid,
    output wire                  m_axi_rready,

    output wire                  busy1
);

generate
    if (ADDR_WIDTH < 1 || ADDR_WIDTH > 64) begin : g_bad_addr_width
        `VIA_PARAM_FAIL(("via_axi_rd_arb: ADDR_WIDTH=%0d, must be 1..64", ADDR_WIDTH))
    end
    if (ID_WIDTH < 1 || ID_WIDTH > 32) begin : g_bad_id_width
        `VIA_PARAM_FAIL(("via_axi_rd_arb: ID_WIDTH=%0d, must be 1..32", ID_WIDTH))
    end
endgenerate

// a presented request keeps the channel: lock_reg, with its owner
reg lock_reg;
reg lock_sel_reg;
// round robin: 1 = port 1 goes first when both ask
reg rr_reg;
// port 1's bursts presented or accepted and not complete
reg [8:0] out1_reg;

wire sel = lock_reg ? lock_sel_reg :
           (s0_axi_arvalid && s1_axi_arvalid) ? rr_reg :
           s1_axi_arvalid;

assign m_axi_arid     = sel ? s1_axi_arid     : s0_axi_arid;
assign m_axi_araddr   = sel ? s1_axi_araddr   : s0_axi_araddr;
assign m_axi_arlen    = sel ? s1_axi_arlen    : s0_axi_arlen;
assign m_axi_arsize   = sel ? s1_axi_arsize   : s0_axi_arsize;
assign m_axi_arburst  = sel ? s1_axi_arburst  : s0_axi_arburst;
assign m_axi_arlock   = sel ? s1_axi_arlock   : s0_axi_arlock;
assign m_axi_arcache  = sel ? s1_axi_arcache  : s0_axi_arcache;
assign m_axi_arprot   = sel ? s1_axi_arprot   : s0_axi_arprot;
assign m_axi_arvalid  = sel ? s1_axi_arvalid  : s0_axi_arvalid;
assign s0_axi_arready = !sel && m_axi_arready;
assign s1_axi_arready = sel && m_axi_arready;

wire r_to1 = m_axi_rid == S1_ID;
assign s0_axi_rvalid = m_axi_rvalid && !r_to1;
assign s1_axi_rvalid = m_axi_rvalid && r_to1;
assign m_axi_rready  = r_to1 ? s1_axi_rready : s0_axi_rready;

wire ar1_fire = s1_axi_arvalid && s1_axi_arready;
wire r1_last  = s1_axi_rvalid && s1_axi_rready && m_axi_rlast;

assign busy1 = s1_axi_arvalid || out1_reg != 9'd0;

always @(posedge clk) begin
    if (rst) begin
        lock_reg     <= 1'b0;
        lock_sel_reg <= 1'b0;
        rr_reg       <= 1'b0;
        out1_reg     <= 9'd0;
    end else begin
        lock_reg     <= m_axi_arvalid && !m_axi_arready;
        lock_sel_reg <= sel;
        if (m_axi_arvalid && m_axi_arready) begin
            rr_reg <= !sel;
        end
        out1_reg <= out1_reg + {8'd0, ar1_fire} - {8'd0, r1_last};
    end
end

endmodule

`default_nettype wire
