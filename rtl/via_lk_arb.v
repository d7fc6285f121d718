// via_lk_arb: shares via_tpt's lookup port between PORTS requesters (issue 9:
// the TX and RX engines' descriptor fetches and data units, behind
// via_tpt_probe's engine port).
//
// Ports are packed vectors, port k in slice k: s_lk_valid[k],
// s_lk_handle[32k+:32], s_lk_va[64k+:64], s_lk_len[32k+:32],
// s_lk_ptag[16k+:16], s_lk_kind[2k+:2], s_lk_tag[TAG_WIDTH*k+:TAG_WIDTH];
// responses likewise (s_rs_pa[ADDR_WIDTH*k+:ADDR_WIDTH], ...). Every port's
// response payload slices carry the same value (the TPT's response); only
// s_rs_valid differs.
//
// Lookups: a lookup presented to the TPT (m_lk_valid without m_lk_ready)
// keeps the port until accepted, so the payload the TPT sees never changes
// before its handshake. Between lookups the port goes round robin: the first
// asking port after the one granted last (no asking port waits for more than
// PORTS-1 grants to others). The TPT gets the tag {port index, inner tag}:
// m_lk_tag = {k[PORT_BITS-1:0], s_lk_tag of port k}, M_TAG_WIDTH =
// PORT_BITS + TAG_WIDTH bits (PORT_BITS = clog2(PORTS)); instantiate via_tpt
// (or via_tpt_probe's engine port) with that tag width.
//
// Responses: via_tpt answers in order; each response goes to the port in
// its tag's high bits (s_rs_valid of the others stays 0), with the inner tag
// in that port's s_rs_tag. m_rs_ready is that port's s_rs_ready: nothing
// waits for another port. (A port field >= PORTS cannot come from this
// arbiter; such a response would go to port 0.) Deadlock freedom is the
// requesters' business (docs/vi.md rule: a requester issues a lookup only
// when it will take the response without waiting on anything).
//
// busy: some port presents a lookup, or lookups accepted by the TPT are not
// answered yet (accepted - answered, counted from the handshakes; up to 255
// outstanding, far more than via_tpt's pipeline holds). For the soft reset's
// drain and idle detection.
//
// Timing: the multiplexer is combinational, like via_axi_rd_arb (a single
// requester sees the TPT as if connected directly, no added cycle). Paths:
// s_lk_valid -> (round-robin pick) -> m_lk_valid and the m_lk_* payload
// mux; m_lk_ready -> s_lk_ready; m_rs_valid/m_rs_tag -> s_rs_valid;
// m_rs_tag + s_rs_ready -> m_rs_ready. Note that via_tpt's lk_ready itself
// depends combinationally on rs_ready (via_tpt.v), so the longest path is
// s_rs_ready -> m_rs_ready -> (via_tpt) lk_ready -> s_lk_ready of the
// requester. Registers: the lock, its owner, the round-robin pointer and the
// outstanding count.

`timescale 1ns / 1ps
`default_nettype none

`include "via_param_check.vh"

module via_lk_arb #(
    parameter PORTS      = 2,    // requesters, 2..8
    parameter ADDR_WIDTH = 48,   // physical address bits of a response (32..64)
    parameter TAG_WIDTH  = 1,    // each requester's own tag bits, 1..24
    // port index bits, and the tag width via_tpt must be given (do not override)
    parameter PORT_BITS   = (PORTS <= 2) ? 1 : (PORTS <= 4) ? 2 : 3,
    parameter M_TAG_WIDTH = PORT_BITS + TAG_WIDTH
) (
    input  wire                          clk,
    input  wire                          rst,

    // requesters (port k in slice k)
    input  wire [PORTS-1:0]              s_lk_valid,
    output wire [PORTS-1:0]              s_lk_ready,
    input  wire [PORTS*32-1:0]           s_lk_handle,
    input  wire [PORTS*64-1:0]           s_lk_va,
    input  wire [PORTS*32-1:0]           s_lk_len,
    input  wire [PORTS*16-1:0]           s_lk_ptag,
    input  wire [PORTS*2-1:0]            s_lk_kind,
    input  wire [PORTS*TAG_WIDTH-1:0]    s_lk_tag,
    output wire [PORTS-1:0]              s_rs_valid,
    input  wire [PORTS-1:0]              s_rs_ready,
    output wire [PORTS*3-1:0]            s_rs_err,
    output wire [PORTS*ADDR_WIDTH-1:0]   s_rs_pa,
    output wire [PORTS*13-1:0]           s_rs_bytes,
    output wire [PORTS-1:0]              s_rs_hit,
    output wire [PORTS-1:0]              s_rs_epoch,
    output wire [PORTS*TAG_WIDTH-1:0]    s_rs_tag,

    // to via_tpt's lookup port
    output wire                          m_lk_valid,
    input  wire                          m_lk_ready,
    output wire [31:0]                   m_lk_handle,
    output wire [63:0]                   m_lk_va,
    output wire [31:0]                   m_lk_len,
    output wire [15:0]                   m_lk_ptag,
    output wire [1:0]                    m_lk_kind,
    output wire [M_TAG_WIDTH-1:0]        m_lk_tag,
    input  wire                          m_rs_valid,
    output wire                          m_rs_ready,
    input  wire [2:0]                    m_rs_err,
    input  wire [ADDR_WIDTH-1:0]         m_rs_pa,
    input  wire [12:0]                   m_rs_bytes,
    input  wire                          m_rs_hit,
    input  wire                          m_rs_epoch,
    input  wire [M_TAG_WIDTH-1:0]        m_rs_tag,

    output wire                          busy
);

generate
    if (PORTS < 2 || PORTS > 8) begin : g_bad_ports
        `VIA_PARAM_FAIL(("via_lk_arb: PORTS=%0d, must be 2..8", PORTS))
    end
    if (ADDR_WIDTH < 32 || ADDR_WIDTH > 64) begin : g_bad_addr_width
        `VIA_PARAM_FAIL(("via_lk_arb: ADDR_WIDTH=%0d, must be 32..64", ADDR_WIDTH))
    end
    if (TAG_WIDTH < 1 || TAG_WIDTH > 24) begin : g_bad_tag_width
        `VIA_PARAM_FAIL(("via_lk_arb: TAG_WIDTH=%0d, must be 1..24", TAG_WIDTH))
    end
    if (PORT_BITS != ((PORTS <= 2) ? 1 : (PORTS <= 4) ? 2 : 3) || M_TAG_WIDTH != PORT_BITS + TAG_WIDTH) begin : g_bad_derived
        `VIA_PARAM_FAIL(("via_lk_arb: PORT_BITS=%0d M_TAG_WIDTH=%0d are derived, do not override", PORT_BITS, M_TAG_WIDTH))
    end
endgenerate

localparam [31:0] LAST_PORT32 = PORTS - 1;
localparam [PORT_BITS-1:0] LAST_PORT = LAST_PORT32[PORT_BITS-1:0];

reg                 lock_reg;      // a lookup is presented and not accepted
reg [PORT_BITS-1:0] lock_sel_reg;  // its port
reg [PORT_BITS-1:0] last_reg;      // the port granted last
reg [7:0]           out_reg;       // accepted and not answered

// round robin: the first asking port after last_reg ({found, port}).
// (Functions in continuous assignments rather than always @*: Icarus runs
// an always @* only after an input changes, which would leave the outputs
// X until then.)
function [PORT_BITS:0] rr_pick;
    input [PORTS-1:0]     valid;
    input [PORT_BITS-1:0] last;
    integer i;
    integer idx;
    begin
        rr_pick = {1'b0, last};
        for (i = PORTS; i >= 1; i = i - 1) begin
            idx = {{(32-PORT_BITS){1'b0}}, last} + i;
            if (idx >= PORTS) begin
                idx = idx - PORTS;
            end
            if (valid[idx]) begin
                rr_pick = {1'b1, idx[PORT_BITS-1:0]};
            end
        end
    end
endfunction

wire [PORT_BITS:0]   rr     = rr_pick(s_lk_valid, last_reg);
wire                 rr_any = rr[PORT_BITS];
wire [PORT_BITS-1:0] rr_sel = rr[PORT_BITS-1:0];

wire [PORT_BITS-1:0] sel = lock_reg ? lock_sel_reg : rr_sel;

assign m_lk_valid  = lock_reg || rr_any;
assign m_lk_handle = s_lk_handle[sel*32 +: 32];
assign m_lk_va     = s_lk_va[sel*64 +: 64];
assign m_lk_len    = s_lk_len[sel*32 +: 32];
assign m_lk_ptag   = s_lk_ptag[sel*16 +: 16];
assign m_lk_kind   = s_lk_kind[sel*2 +: 2];
assign m_lk_tag    = {sel, s_lk_tag[sel*TAG_WIDTH +: TAG_WIDTH]};

wire [PORT_BITS-1:0] rs_field = m_rs_tag[M_TAG_WIDTH-1 -: PORT_BITS];
wire [PORT_BITS-1:0] rs_port  = ({{(32-PORT_BITS){1'b0}}, rs_field} < PORTS) ? rs_field : {PORT_BITS{1'b0}};
assign m_rs_ready = s_rs_ready[rs_port];

genvar k;
generate
    for (k = 0; k < PORTS; k = k + 1) begin : g_port
        assign s_lk_ready[k] = m_lk_ready && m_lk_valid && sel == k;
        assign s_rs_valid[k] = m_rs_valid && rs_port == k;
        assign s_rs_err[k*3 +: 3]                     = m_rs_err;
        assign s_rs_pa[k*ADDR_WIDTH +: ADDR_WIDTH]    = m_rs_pa;
        assign s_rs_bytes[k*13 +: 13]                 = m_rs_bytes;
        assign s_rs_hit[k]                            = m_rs_hit;
        assign s_rs_epoch[k]                          = m_rs_epoch;
        assign s_rs_tag[k*TAG_WIDTH +: TAG_WIDTH]     = m_rs_tag[TAG_WIDTH-1:0];
    end
endgenerate

wire lk_fire = m_lk_valid && m_lk_ready;
wire rs_fire = m_rs_valid && m_rs_ready;

assign busy = (|s_lk_valid) || out_reg != 8'd0;

always @(posedge clk) begin
    if (rst) begin
        lock_reg     <= 1'b0;
        lock_sel_reg <= {PORT_BITS{1'b0}};
        last_reg     <= LAST_PORT;
        out_reg      <= 8'd0;
    end else begin
        lock_reg     <= m_lk_valid && !m_lk_ready;
        lock_sel_reg <= sel;
        if (lk_fire) begin
            last_reg <= sel;
        end
        out_reg <= out_reg + {7'd0, lk_fire} - {7'd0, rs_fire};
    end
end

endmodule

`default_nettype wire
