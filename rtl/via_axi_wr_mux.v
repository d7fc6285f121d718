// via_axi_wr_mux: shares one AXI4 master's write channels (AW, W, B) between
// PORTS write masters, each with its own fixed AWID (IDS).
//
// Ports are packed vectors, port k in slice k (s_axi_awid[ID_WIDTH*k+:
// ID_WIDTH], s_axi_wdata[DATA_WIDTH*k+:DATA_WIDTH], ...). B response and ID
// are not switched: wire m_axi_bresp and m_axi_bid to every port; only
// bvalid/bready are per port.
//
// AW: a request that has been presented (m_axi_awvalid without
// m_axi_awready) keeps the channel until it is accepted. Between requests
// the channel goes round robin: the first asking port after the one granted
// last, so an asking port waits for at most PORTS-1 grants to others. The
// index of each accepted AW's port goes into an order FIFO of FIFO_DEPTH
// entries; while it is full no AW is presented (m_axi_awvalid 0; a presented
// AW never sees the FIFO fill, as only its own acceptance pushes).
//
// W: beats come from the port at the head of the order FIFO, i.e. the port
// whose AW was accepted earliest among those whose W beats are not all
// through; its wlast beat pops the entry. So the slave sees W bursts in AW
// order (AXI4 write data order), and a port's W beats pass only after its AW
// was accepted (from the cycle after the AW handshake). Other ports' wvalid
// is ignored (their wready stays 0) until their turn.
//
// B: routed by BID to the port k with IDS[k] == m_axi_bid (lowest k; IDs
// distinct, checked); an ID no port has goes to port 0. m_axi_bready is the
// addressed port's bready.
//
// Deadlock freedom: the mux holds no W beat and waits for nothing but the
// head port's wvalid and the slave's wready. It cannot deadlock provided
// the ports follow docs/vi.md rule (b): a port presents AW only when it can
// supply every W beat of the burst without waiting on anything outside
// itself (and wlast matches awlen), and takes its B without waiting on
// another port.
//
// busy[k]: port k has an AW presented, or accepted whose B has not been
// taken (which covers W beats pending); counted from the handshakes (up to
// 511 bursts per port).
//
// Timing: combinational paths from s_axi_awvalid (round-robin pick) and the
// FIFO's full flag to m_axi_awvalid and the AW payload mux; m_axi_awready to
// s_axi_awready; from the FIFO head register through the W mux to
// m_axi_wvalid/wdata/wstrb/wlast; m_axi_wready to s_axi_wready; m_axi_bid/
// bvalid (ID compare) to s_axi_bvalid; m_axi_bid and s_axi_bready to
// m_axi_bready. Registers: the lock, its owner, the round-robin pointer, the
// order FIFO and one outstanding count per port.

`timescale 1ns / 1ps
`default_nettype none

`include "via_param_check.vh"

module via_axi_wr_mux #(
    parameter PORTS      = 2,     // write masters, 2..8
    parameter ADDR_WIDTH = 48,    // AW address bits (1..64)
    parameter DATA_WIDTH = 64,    // W data bits (8..1024, power of two)
    parameter ID_WIDTH   = 4,     // AXI4 ID bits (1..32)
    // port k's AWID in bits [ID_WIDTH*k +: ID_WIDTH], all distinct
    parameter [PORTS*ID_WIDTH-1:0] IDS = 8'h10,
    // AW order FIFO entries (2..64): accepted AWs whose W is not through
    parameter FIFO_DEPTH = 4 * PORTS,
    // port index bits (derived, do not override)
    parameter PORT_BITS  = (PORTS <= 2) ? 1 : (PORTS <= 4) ? 2 : 3
) (
    input  wire                          clk,
    input  wire                          rst,

    // write masters (port k in slice k)
    input  wire [PORTS*ID_WIDTH-1:0]     s_axi_awid,
    input  wire [PORTS*ADDR_WIDTH-1:0]   s_axi_awaddr,
    input  wire [PORTS*8-1:0]            s_axi_awlen,
    input  wire [PORTS*3-1:0]            s_axi_awsize,
    input  wire [PORTS*2-1:0]            s_axi_awburst,
    input  wire [PORTS-1:0]              s_axi_awlock,
    input  wire [PORTS*4-1:0]            s_axi_awcache,
    input  wire [PORTS*3-1:0]            s_axi_awprot,
    input  wire [PORTS-1:0]              s_axi_awvalid,
    output wire [PORTS-1:0]              s_axi_awready,
    input  wire [PORTS*DATA_WIDTH-1:0]   s_axi_wdata,
    input  wire [PORTS*DATA_WIDTH/8-1:0] s_axi_wstrb,
    input  wire [PORTS-1:0]              s_axi_wlast,
    input  wire [PORTS-1:0]              s_axi_wvalid,
    output wire [PORTS-1:0]              s_axi_wready,
    output wire [PORTS-1:0]              s_axi_bvalid,
    input  wire [PORTS-1:0]              s_axi_bready,

    // shared master write channels (B resp and id go to all ports)
    output wire [ID_WIDTH-1:0]           m_axi_awid,
    output wire [ADDR_WIDTH-1:0]         m_axi_awaddr,
    output wire [7:0]                    m_axi_awlen,
    output wire [2:0]                    m_axi_awsize,
    output wire [1:0]                    m_axi_awburst,
    output wire                          m_axi_awlock,
    output wire [3:0]                    m_axi_awcache,
    output wire [2:0]                    m_axi_awprot,
    output wire                          m_axi_awvalid,
    input  wire                          m_axi_awready,
    output wire [DATA_WIDTH-1:0]         m_axi_wdata,
    output wire [DATA_WIDTH/8-1:0]       m_axi_wstrb,
    output wire                          m_axi_wlast,
    output wire                          m_axi_wvalid,
    input  wire                          m_axi_wready,
    input  wire [ID_WIDTH-1:0]           m_axi_bid,
    input  wire                          m_axi_bvalid,
    output wire                          m_axi_bready,

    output wire [PORTS-1:0]              busy
);

localparam BYTES = DATA_WIDTH / 8;

genvar k, j;
generate
    if (PORTS < 2 || PORTS > 8) begin : g_bad_ports
        `VIA_PARAM_FAIL(("via_axi_wr_mux: PORTS=%0d, must be 2..8", PORTS))
    end
    if (ADDR_WIDTH < 1 || ADDR_WIDTH > 64) begin : g_bad_addr_width
        `VIA_PARAM_FAIL(("via_axi_wr_mux: ADDR_WIDTH=%0d, must be 1..64", ADDR_WIDTH))
    end
    if (DATA_WIDTH < 8 || DATA_WIDTH > 1024 || (DATA_WIDTH & (DATA_WIDTH - 1)) != 0) begin : g_bad_data_width
        `VIA_PARAM_FAIL(("via_axi_wr_mux: DATA_WIDTH=%0d, must be a power of two, 8..1024", DATA_WIDTH))
    end
    if (ID_WIDTH < 1 || ID_WIDTH > 32) begin : g_bad_id_width
        `VIA_PARAM_FAIL(("via_axi_wr_mux: ID_WIDTH=%0d, must be 1..32", ID_WIDTH))
    end
    if (FIFO_DEPTH < 2 || FIFO_DEPTH > 64) begin : g_bad_fifo_depth
        `VIA_PARAM_FAIL(("via_axi_wr_mux: FIFO_DEPTH=%0d, must be 2..64", FIFO_DEPTH))
    end
    if (PORT_BITS != ((PORTS <= 2) ? 1 : (PORTS <= 4) ? 2 : 3)) begin : g_bad_port_bits
        `VIA_PARAM_FAIL(("via_axi_wr_mux: PORT_BITS=%0d is derived, do not override", PORT_BITS))
    end
    for (k = 0; k < PORTS; k = k + 1) begin : g_ids_k
        for (j = k + 1; j < PORTS; j = j + 1) begin : g_ids_j
            if (IDS[k*ID_WIDTH +: ID_WIDTH] == IDS[j*ID_WIDTH +: ID_WIDTH]) begin : g_dup
                `VIA_PARAM_FAIL(("via_axi_wr_mux: IDS=%0h, ports %0d and %0d share an ID", IDS, k, j))
            end
        end
    end
endgenerate

localparam [31:0] LAST_PORT32 = PORTS - 1;
localparam [PORT_BITS-1:0] LAST_PORT = LAST_PORT32[PORT_BITS-1:0];
localparam [31:0] LAST_SLOT32 = FIFO_DEPTH - 1;
// FIFO index bits
localparam PW = (FIFO_DEPTH <= 2) ? 1 : (FIFO_DEPTH <= 4) ? 2 : (FIFO_DEPTH <= 8) ? 3 :
                (FIFO_DEPTH <= 16) ? 4 : (FIFO_DEPTH <= 32) ? 5 : 6;
localparam [PW-1:0] LAST_SLOT = LAST_SLOT32[PW-1:0];
localparam [PW-1:0] SLOT_ONE = 1;
localparam [31:0] DEPTH32 = FIFO_DEPTH;
localparam [6:0]  DEPTH7 = DEPTH32[6:0];

reg                 lock_reg;      // an AW is presented and not accepted
reg [PORT_BITS-1:0] lock_sel_reg;  // its port
reg [PORT_BITS-1:0] last_reg;      // the port granted last

// AW order FIFO
reg [PORT_BITS-1:0] fifo_mem [0:FIFO_DEPTH-1];
reg [PW-1:0]        fifo_rd_reg;
reg [PW-1:0]        fifo_wr_reg;
reg [6:0]           fifo_count_reg;
reg [PORT_BITS-1:0] head_reg;      // fifo_mem[fifo_rd_reg], registered
wire fifo_full  = fifo_count_reg == DEPTH7;
wire fifo_empty = fifo_count_reg == 7'd0;

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

wire [PORT_BITS:0]   rr     = rr_pick(s_axi_awvalid, last_reg);
wire                 rr_any = rr[PORT_BITS];
wire [PORT_BITS-1:0] rr_sel = rr[PORT_BITS-1:0];

wire [PORT_BITS-1:0] sel = lock_reg ? lock_sel_reg : rr_sel;

assign m_axi_awid    = s_axi_awid[sel*ID_WIDTH +: ID_WIDTH];
assign m_axi_awaddr  = s_axi_awaddr[sel*ADDR_WIDTH +: ADDR_WIDTH];
assign m_axi_awlen   = s_axi_awlen[sel*8 +: 8];
assign m_axi_awsize  = s_axi_awsize[sel*3 +: 3];
assign m_axi_awburst = s_axi_awburst[sel*2 +: 2];
assign m_axi_awlock  = s_axi_awlock[sel];
assign m_axi_awcache = s_axi_awcache[sel*4 +: 4];
assign m_axi_awprot  = s_axi_awprot[sel*3 +: 3];
assign m_axi_awvalid = (lock_reg || rr_any) && !fifo_full;
wire   aw_fire       = m_axi_awvalid && m_axi_awready;

// W from the head port
assign m_axi_wdata  = s_axi_wdata[head_reg*DATA_WIDTH +: DATA_WIDTH];
assign m_axi_wstrb  = s_axi_wstrb[head_reg*BYTES +: BYTES];
assign m_axi_wlast  = s_axi_wlast[head_reg];
assign m_axi_wvalid = !fifo_empty && s_axi_wvalid[head_reg];
wire   w_done       = m_axi_wvalid && m_axi_wready && m_axi_wlast;

// B routing: the lowest port whose ID matches, else port 0
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

wire [PORT_BITS-1:0] b_port = port_of(m_axi_bid);

assign m_axi_bready = s_axi_bready[b_port];

generate
    for (k = 0; k < PORTS; k = k + 1) begin : g_port
        assign s_axi_awready[k] = aw_fire && sel == k;
        assign s_axi_wready[k]  = m_axi_wready && !fifo_empty && head_reg == k;
        assign s_axi_bvalid[k]  = m_axi_bvalid && b_port == k;
        reg [8:0] out_reg;  // AWs accepted whose B is not taken
        assign busy[k] = s_axi_awvalid[k] || out_reg != 9'd0;

        wire b_fire = s_axi_bvalid[k] && s_axi_bready[k];
        always @(posedge clk) begin
            if (rst) begin
                out_reg <= 9'd0;
            end else begin
                out_reg <= out_reg + {8'd0, s_axi_awready[k]} - {8'd0, b_fire};
            end
        end
    end
endgenerate

wire [PW-1:0] fifo_rd_next = (fifo_rd_reg == LAST_SLOT) ? {PW{1'b0}} : fifo_rd_reg + SLOT_ONE;

always @(posedge clk) begin
    if (aw_fire) begin
        fifo_mem[fifo_wr_reg] <= sel;
    end
end

always @(posedge clk) begin
    if (rst) begin
        lock_reg       <= 1'b0;
        lock_sel_reg   <= {PORT_BITS{1'b0}};
        last_reg       <= LAST_PORT;
        fifo_rd_reg    <= {PW{1'b0}};
        fifo_wr_reg    <= {PW{1'b0}};
        fifo_count_reg <= 7'd0;
        head_reg       <= {PORT_BITS{1'b0}};
    end else begin
        lock_reg     <= m_axi_awvalid && !m_axi_awready;
        lock_sel_reg <= sel;
        if (aw_fire) begin
            last_reg    <= sel;
            fifo_wr_reg <= (fifo_wr_reg == LAST_SLOT) ? {PW{1'b0}} : fifo_wr_reg + SLOT_ONE;
        end
        if (w_done) begin
            fifo_rd_reg <= fifo_rd_next;
        end
        fifo_count_reg <= fifo_count_reg + {6'd0, aw_fire} - {6'd0, w_done};
        // the head: the next entry after a pop, or the one just pushed into
        // an empty (or emptying) FIFO
        if (w_done) begin
            if (fifo_count_reg == 7'd1) begin
                head_reg <= sel;
            end else begin
                head_reg <= fifo_mem[fifo_rd_next];
            end
        end else if (fifo_empty) begin
            head_reg <= sel;
        end
    end
end

endmodule

`default_nettype wire
