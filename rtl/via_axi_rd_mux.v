// via_axi_rd_mux: shares one AXI4 master's read channels (AR, R) between
// PORTS read masters, each with its own fixed ARID (IDS). The N-port form of
// via_axi_rd_arb, with the same rules.
//
// Ports are packed vectors, port k in slice k (s_axi_arid[ID_WIDTH*k+:
// ID_WIDTH], s_axi_araddr[ADDR_WIDTH*k+:ADDR_WIDTH], s_axi_arlen[8k+:8],
// ...). R data, response, ID and last are not switched: wire m_axi_rdata,
// m_axi_rresp, m_axi_rid and m_axi_rlast to every port; only rvalid/rready
// are per port.
//
// AR: a request that has been presented (m_axi_arvalid without
// m_axi_arready) keeps the channel until it is accepted, so the payload seen
// by the slave never changes before its handshake. Between requests the
// channel goes round robin: the first asking port after the one granted
// last, so an asking port waits for at most PORTS-1 grants to others. The
// multiplexer is combinational: a port alone on the bus sees the slave's
// arready in the same cycle (no added cycle).
//
// R: every beat is routed by its ID to the port k with IDS[k] == m_axi_rid
// (the lowest such k; the IDs must be distinct, checked); a beat with an ID
// no port has goes to port 0. s_axi_rvalid of the other ports stays 0. No
// beat waits for another port: m_axi_rready is the addressed port's rready.
// Port k must issue its ARs with ARID IDS[k] (the mux passes s_axi_arid
// through unchanged). Deadlock freedom is the ports' business (docs/vi.md
// rule (a): a read master issues AR only when it has buffer space for every
// R beat of the burst).
//
// busy[k]: port k has a read burst presented, or accepted and not yet
// complete (its last R beat not taken); counted from the handshakes (up to
// 511 bursts per port).
//
// Timing: combinational paths from s_axi_arvalid (round-robin pick) to
// m_axi_arvalid and the AR payload mux, from m_axi_arready to s_axi_arready,
// from m_axi_rid/rvalid (ID compare) to s_axi_rvalid, and from m_axi_rid and
// s_axi_rready to m_axi_rready. Registers: the lock, its owner, the
// round-robin pointer, one outstanding count per port.

`timescale 1ns / 1ps
`default_nettype none

`include "via_param_check.vh"

module via_axi_rd_mux #(
    parameter PORTS      = 2,     // read masters, 2..8
    parameter ADDR_WIDTH = 48,    // AR address bits (1..64)
    parameter ID_WIDTH   = 4,     // AXI4 ID bits (1..32)
    // port k's ARID in bits [ID_WIDTH*k +: ID_WIDTH], all distinct
    parameter [PORTS*ID_WIDTH-1:0] IDS = 8'h10,
    // port index bits (derived, do not override)
    parameter PORT_BITS  = (PORTS <= 2) ? 1 : (PORTS <= 4) ? 2 : 3
) (
    input  wire                        clk,
    input  wire                        rst,

    // read masters (port k in slice k)
    input  wire [PORTS*ID_WIDTH-1:0]   s_axi_arid,
    input  wire [PORTS*ADDR_WIDTH-1:0] s_axi_araddr,
    input  wire [PORTS*8-1:0]          s_axi_arlen,
    input  wire [PORTS*3-1:0]          s_axi_arsize,
    input  wire [PORTS*2-1:0]          s_axi_arburst,
    input  wire [PORTS-1:0]            s_axi_arlock,
    input  wire [PORTS*4-1:0]          s_axi_arcache,
    input  wire [PORTS*3-1:0]          s_axi_arprot,
    input  wire [PORTS-1:0]            s_axi_arvalid,
    output wire [PORTS-1:0]            s_axi_arready,
    output wire [PORTS-1:0]            s_axi_rvalid,
    input  wire [PORTS-1:0]            s_axi_rready,

    // shared master read channels (R data, resp, id and last go to all ports)
    output wire [ID_WIDTH-1:0]         m_axi_arid,
    output wire [ADDR_WIDTH-1:0]       m_axi_araddr,
    output wire [7:0]                  m_axi_arlen,
    output wire [2:0]                  m_axi_arsize,
    output wire [1:0]                  m_axi_arburst,
    output wire                        m_axi_arlock,
    output wire [3:0]                  m_axi_arcache,
    output wire [2:0]                  m_axi_arprot,
    output wire                        m_axi_arvalid,
    input  wire                        m_axi_arready,
    input  wire [ID_WIDTH-1:0]         m_axi_rid,
    input  wire                        m_axi_rlast,
    input  wire                        m_axi_rvalid,
    output wire                        m_axi_rready,

    output wire [PORTS-1:0]            busy
);

genvar k, j;
generate
    if (PORTS < 2 || PORTS > 8) begin : g_bad_ports
        `VIA_PARAM_FAIL(("via_axi_rd_mux: PORTS=%0d, must be 2..8", PORTS))
    end
    if (ADDR_WIDTH < 1 || ADDR_WIDTH > 64) begin : g_bad_addr_width
        `VIA_PARAM_FAIL(("via_axi_rd_mux: ADDR_WIDTH=%0d, must be 1..64", ADDR_WIDTH))
    end
    if (ID_WIDTH < 1 || ID_WIDTH > 32) begin : g_bad_id_width
        `VIA_PARAM_FAIL(("via_axi_rd_mux: ID_WIDTH=%0d, must be 1..32", ID_WIDTH))
    end
    if (PORT_BITS != ((PORTS <= 2) ? 1 : (PORTS <= 4) ? 2 : 3)) begin : g_bad_port_bits
        `VIA_PARAM_FAIL(("via_axi_rd_mux: PORT_BITS=%0d is derived, do not override", PORT_BITS))
    end
    for (k = 0; k < PORTS; k = k + 1) begin : g_ids_k
        for (j = k + 1; j < PORTS; j = j + 1) begin : g_ids_j
            if (IDS[k*ID_WIDTH +: ID_WIDTH] == IDS[j*ID_WIDTH +: ID_WIDTH]) begin : g_dup
                `VIA_PARAM_FAIL(("via_axi_rd_mux: IDS=%0h, ports %0d and %0d share an ID", IDS, k, j))
            end
        end
    end
endgenerate

localparam [31:0] LAST_PORT32 = PORTS - 1;
localparam [PORT_BITS-1:0] LAST_PORT = LAST_PORT32[PORT_BITS-1:0];

reg                 lock_reg;      // an AR is presented and not accepted
reg [PORT_BITS-1:0] lock_sel_reg;  // its port
reg [PORT_BITS-1:0] last_reg;      // the port granted last

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

wire [PORT_BITS:0]   rr     = rr_pick(s_axi_arvalid, last_reg);
wire                 rr_any = rr[PORT_BITS];
wire [PORT_BITS-1:0] rr_sel = rr[PORT_BITS-1:0];

wire [PORT_BITS-1:0] sel = lock_reg ? lock_sel_reg : rr_sel;

assign m_axi_arid    = s_axi_arid[sel*ID_WIDTH +: ID_WIDTH];
assign m_axi_araddr  = s_axi_araddr[sel*ADDR_WIDTH +: ADDR_WIDTH];
assign m_axi_arlen   = s_axi_arlen[sel*8 +: 8];
assign m_axi_arsize  = s_axi_arsize[sel*3 +: 3];
assign m_axi_arburst = s_axi_arburst[sel*2 +: 2];
assign m_axi_arlock  = s_axi_arlock[sel];
assign m_axi_arcache = s_axi_arcache[sel*4 +: 4];
assign m_axi_arprot  = s_axi_arprot[sel*3 +: 3];
assign m_axi_arvalid = lock_reg || rr_any;

// R routing: the lowest port whose ID matches, else port 0
function [PORT_BITS-1:0] port_of;
    input [ID_WIDTH-1:0] id;
    integer i;
    begin
        port_of = {PORT_BITS{1'b0}};
        for (i = PORTS - 1; i >= 0; i = i - 1) begin
            if (IDS[i*ID_WIDTH +: ID_WIDTH] == id) begin
                port_of = i[PORT_BITS-1:0];
            end
        end
    end
endfunction

wire [PORT_BITS-1:0] r_port = port_of(m_axi_rid);

assign m_axi_rready = s_axi_rready[r_port];

generate
    for (k = 0; k < PORTS; k = k + 1) begin : g_port
        assign s_axi_arready[k] = m_axi_arready && m_axi_arvalid && sel == k;
        assign s_axi_rvalid[k]  = m_axi_rvalid && r_port == k;
        reg [8:0] out_reg;  // bursts accepted and not complete
        assign busy[k] = s_axi_arvalid[k] || out_reg != 9'd0;

        wire ar_fire = s_axi_arvalid[k] && s_axi_arready[k];
        wire r_last  = s_axi_rvalid[k] && s_axi_rready[k] && m_axi_rlast;
        always @(posedge clk) begin
            if (rst) begin
                out_reg <= 9'd0;
            end else begin
                out_reg <= out_reg + {8'd0, ar_fire} - {8'd0, r_last};
            end
        end
    end
endgenerate

always @(posedge clk) begin
    if (rst) begin
        lock_reg     <= 1'b0;
        lock_sel_reg <= {PORT_BITS{1'b0}};
        last_reg     <= LAST_PORT;
    end else begin
        lock_reg     <= m_axi_arvalid && !m_axi_arready;
        lock_sel_reg <= sel;
        if (m_axi_arvalid && m_axi_arready) begin
            last_reg <= sel;
        end
    end
end

endmodule

`default_nettype wire
