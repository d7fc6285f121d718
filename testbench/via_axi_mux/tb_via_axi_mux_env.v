// tb_via_axi_mux_env: one configuration of the via_axi_mux bench: PORTS
// behavioural masters (tb_via_axi_mux_master) share one axi_ram_model
// (random back-pressure on every channel; port k makes N_READS + k*N_READS/4
// reads and N_WRITES + (PORTS-1-k)*N_WRITES/4 writes, so some run alone at
// the end) through via_axi_rd_mux and
// via_axi_wr_mux. finished goes to 1 when every master is done and every
// busy flag is 0. Checked here, every cycle: the payload on the shared AR,
// AW and W channels does not change while valid && !ready (the memory model
// checks it too); the muxes offer AR whenever a port asks, AW whenever a
// port asks and the order FIFO has room; and the write mux never shows a W beat before an AW
// (the model would reject it otherwise).

`timescale 1ns / 1ps

module tb_via_axi_mux_env #(
    parameter PORTS      = 2,
    parameter DATA_WIDTH = 64,
    parameter ADDR_WIDTH = 48,
    parameter ID_WIDTH   = 4,
    parameter [PORTS*ID_WIDTH-1:0] IDS = 8'h10,
    parameter FIFO_DEPTH = 4 * PORTS,
    parameter READY_PROB = 60,    // the memory's back-pressure
    parameter AR_PROB    = -1,    // the memory's arready / awready percent (-1: READY_PROB)
    parameter AW_PROB    = -1,
    parameter VALID_PROB = 60,    // the masters' valid gaps
    parameter N_READS    = 100,
    parameter N_WRITES   = 100,
    parameter SALT       = 0
) (
    input  wire clk,
    input  wire rst,
    output reg  finished = 1'b0
);

localparam BYTES = DATA_WIDTH / 8;
localparam RO_BYTES = 8192;
localparam WR_BYTES = 1024;
localparam MEM_BYTES = RO_BYTES + 8 * WR_BYTES;

// ports, packed
wire [PORTS*ID_WIDTH-1:0]   s_arid;
wire [PORTS*ADDR_WIDTH-1:0] s_araddr;
wire [PORTS*8-1:0]          s_arlen;
wire [PORTS*3-1:0]          s_arsize;
wire [PORTS*2-1:0]          s_arburst;
wire [PORTS-1:0]            s_arvalid, s_arready, s_rvalid, s_rready, rd_busy;
wire [PORTS*ID_WIDTH-1:0]   s_awid;
wire [PORTS*ADDR_WIDTH-1:0] s_awaddr;
wire [PORTS*8-1:0]          s_awlen;
wire [PORTS*3-1:0]          s_awsize;
wire [PORTS*2-1:0]          s_awburst;
wire [PORTS-1:0]            s_awvalid, s_awready;
wire [PORTS*DATA_WIDTH-1:0] s_wdata;
wire [PORTS*BYTES-1:0]      s_wstrb;
wire [PORTS-1:0]            s_wlast, s_wvalid, s_wready, s_bvalid, s_bready, wr_busy;
wire [PORTS-1:0]            done;

// shared
wire [ID_WIDTH-1:0]   m_arid, m_awid, m_rid, m_bid;
wire [ADDR_WIDTH-1:0] m_araddr, m_awaddr;
wire [7:0]            m_arlen, m_awlen;
wire [2:0]            m_arsize, m_awsize, m_arprot, m_awprot;
wire [1:0]            m_arburst, m_awburst, m_rresp, m_bresp;
wire                  m_arlock, m_awlock;
wire [3:0]            m_arcache, m_awcache;
wire                  m_arvalid, m_arready, m_rlast, m_rvalid, m_rready;
wire                  m_awvalid, m_awready, m_wlast, m_wvalid, m_wready, m_bvalid, m_bready;
wire [DATA_WIDTH-1:0] m_rdata, m_wdata;
wire [BYTES-1:0]      m_wstrb;

via_axi_rd_mux #(
    .PORTS(PORTS), .ADDR_WIDTH(ADDR_WIDTH), .ID_WIDTH(ID_WIDTH), .IDS(IDS)
) rd_mux (
    .clk(clk), .rst(rst),
    .s_axi_arid(s_arid), .s_axi_araddr(s_araddr), .s_axi_arlen(s_arlen), .s_axi_arsize(s_arsize),
    .s_axi_arburst(s_arburst), .s_axi_arlock({PORTS{1'b0}}), .s_axi_arcache({PORTS{4'b0011}}),
    .s_axi_arprot({PORTS{3'b000}}), .s_axi_arvalid(s_arvalid), .s_axi_arready(s_arready),
    .s_axi_rvalid(s_rvalid), .s_axi_rready(s_rready),
    .m_axi_arid(m_arid), .m_axi_araddr(m_araddr), .m_axi_arlen(m_arlen), .m_axi_arsize(m_arsize),
    .m_axi_arburst(m_arburst), .m_axi_arlock(m_arlock), .m_axi_arcache(m_arcache), .m_axi_arprot(m_arprot),
    .m_axi_arvalid(m_arvalid), .m_axi_arready(m_arready),
    .m_axi_rid(m_rid), .m_axi_rlast(m_rlast), .m_axi_rvalid(m_rvalid), .m_axi_rready(m_rready),
    .busy(rd_busy)
);

via_axi_wr_mux #(
    .PORTS(PORTS), .ADDR_WIDTH(ADDR_WIDTH), .DATA_WIDTH(DATA_WIDTH), .ID_WIDTH(ID_WIDTH), .IDS(IDS),
    .FIFO_DEPTH(FIFO_DEPTH)
) wr_mux (
    .clk(clk), .rst(rst),
    .s_axi_awid(s_awid), .s_axi_awaddr(s_awaddr), .s_axi_awlen(s_awlen), .s_axi_awsize(s_awsize),
    .s_axi_awburst(s_awburst), .s_axi_awlock({PORTS{1'b0}}), .s_axi_awcache({PORTS{4'b0011}}),
    .s_axi_awprot({PORTS{3'b000}}), .s_axi_awvalid(s_awvalid), .s_axi_awready(s_awready),
    .s_axi_wdata(s_wdata), .s_axi_wstrb(s_wstrb), .s_axi_wlast(s_wlast), .s_axi_wvalid(s_wvalid),
    .s_axi_wready(s_wready), .s_axi_bvalid(s_bvalid), .s_axi_bready(s_bready),
    .m_axi_awid(m_awid), .m_axi_awaddr(m_awaddr), .m_axi_awlen(m_awlen), .m_axi_awsize(m_awsize),
    .m_axi_awburst(m_awburst), .m_axi_awlock(m_awlock), .m_axi_awcache(m_awcache), .m_axi_awprot(m_awprot),
    .m_axi_awvalid(m_awvalid), .m_axi_awready(m_awready),
    .m_axi_wdata(m_wdata), .m_axi_wstrb(m_wstrb), .m_axi_wlast(m_wlast), .m_axi_wvalid(m_wvalid),
    .m_axi_wready(m_wready),
    .m_axi_bid(m_bid), .m_axi_bvalid(m_bvalid), .m_axi_bready(m_bready),
    .busy(wr_busy)
);

axi_ram_model #(
    .DATA_WIDTH(DATA_WIDTH), .ADDR_WIDTH(ADDR_WIDTH), .ID_WIDTH(ID_WIDTH), .MEM_BYTES(MEM_BYTES),
    .READ_LATENCY(6), .WRITE_LATENCY(3), .READY_PROB(READY_PROB), .MAX_READS(8), .MAX_WRITES(8),
    .SEED_SALT(SALT)
) ram (
    .clk(clk), .rst(rst),
    .s_axi_awid(m_awid), .s_axi_awaddr(m_awaddr), .s_axi_awlen(m_awlen), .s_axi_awsize(m_awsize),
    .s_axi_awburst(m_awburst), .s_axi_awlock(m_awlock), .s_axi_awcache(m_awcache), .s_axi_awprot(m_awprot),
    .s_axi_awvalid(m_awvalid), .s_axi_awready(m_awready),
    .s_axi_wdata(m_wdata), .s_axi_wstrb(m_wstrb), .s_axi_wlast(m_wlast), .s_axi_wvalid(m_wvalid),
    .s_axi_wready(m_wready),
    .s_axi_bid(m_bid), .s_axi_bresp(m_bresp), .s_axi_bvalid(m_bvalid), .s_axi_bready(m_bready),
    .s_axi_arid(m_arid), .s_axi_araddr(m_araddr), .s_axi_arlen(m_arlen), .s_axi_arsize(m_arsize),
    .s_axi_arburst(m_arburst), .s_axi_arlock(m_arlock), .s_axi_arcache(m_arcache), .s_axi_arprot(m_arprot),
    .s_axi_arvalid(m_arvalid), .s_axi_arready(m_arready),
    .s_axi_rid(m_rid), .s_axi_rdata(m_rdata), .s_axi_rresp(m_rresp), .s_axi_rlast(m_rlast),
    .s_axi_rvalid(m_rvalid), .s_axi_rready(m_rready)
);

genvar k;
generate
    for (k = 0; k < PORTS; k = k + 1) begin : g_m
        tb_via_axi_mux_master #(
            .PORT(k), .PORTS(PORTS), .DATA_WIDTH(DATA_WIDTH), .ADDR_WIDTH(ADDR_WIDTH), .ID_WIDTH(ID_WIDTH),
            .ID(IDS[k*ID_WIDTH +: ID_WIDTH]), .RO_BYTES(RO_BYTES), .WR_BASE(RO_BYTES + k * WR_BYTES),
            .WR_BYTES(WR_BYTES), .N_READS(N_READS + k * (N_READS / 4)), .N_WRITES(N_WRITES + (PORTS - 1 - k) * (N_WRITES / 4)), .VALID_PROB(VALID_PROB),
            .SALT(SALT)
        ) m (
            .clk(clk), .rst(rst),
            .arid(s_arid[k*ID_WIDTH +: ID_WIDTH]), .araddr(s_araddr[k*ADDR_WIDTH +: ADDR_WIDTH]),
            .arlen(s_arlen[k*8 +: 8]), .arsize(s_arsize[k*3 +: 3]), .arburst(s_arburst[k*2 +: 2]),
            .arvalid(s_arvalid[k]), .arready(s_arready[k]),
            .rid(m_rid), .rdata(m_rdata), .rresp(m_rresp), .rlast(m_rlast),
            .rvalid(s_rvalid[k]), .rready(s_rready[k]), .rd_busy(rd_busy[k]),
            .ar_grant(m_arvalid && m_arready),
            .awid(s_awid[k*ID_WIDTH +: ID_WIDTH]), .awaddr(s_awaddr[k*ADDR_WIDTH +: ADDR_WIDTH]),
            .awlen(s_awlen[k*8 +: 8]), .awsize(s_awsize[k*3 +: 3]), .awburst(s_awburst[k*2 +: 2]),
            .awvalid(s_awvalid[k]), .awready(s_awready[k]),
            .wdata(s_wdata[k*DATA_WIDTH +: DATA_WIDTH]), .wstrb(s_wstrb[k*BYTES +: BYTES]),
            .wlast(s_wlast[k]), .wvalid(s_wvalid[k]), .wready(s_wready[k]),
            .bid(m_bid), .bresp(m_bresp), .bvalid(s_bvalid[k]), .bready(s_bready[k]), .wr_busy(wr_busy[k]),
            .aw_grant(m_awvalid && m_awready),
            .done(done[k])
        );
    end
endgenerate

// the read-only area's contents (as tb_via_axi_mux_master's pattern)
function [7:0] pattern;
    input [63:0] a;
    reg [63:0] x;
    begin
        x = a * 64'd37 + (a >> 8) * 64'd11 + 64'h5a;
        pattern = x[7:0];
    end
endfunction

integer i;
initial begin
    #1;
    ram.set_channel_probs(AW_PROB, -1, -1, AR_PROB, -1);
    for (i = 0; i < RO_BYTES; i = i + 1) begin
        ram.mem[i] = pattern(i);
    end
    // the write regions start as zeros (the masters' shadows do)
    for (i = RO_BYTES; i < MEM_BYTES; i = i + 1) begin
        ram.mem[i] = 8'h00;
    end
end

// payload stability on the shared channels, and statistics
reg                  p_arv, p_awv, p_wv;
reg [ID_WIDTH+ADDR_WIDTH+8+3+2-1:0] p_ar, p_aw;
reg [DATA_WIDTH+BYTES:0] p_w;
integer ar_lock_held, aw_lock_held;
integer cycles, aw_blocked_full, w_switches, ar_n, aw_n;
reg [2:0] last_w_port;
always @(posedge clk) begin
    if (rst) begin
        p_arv <= 1'b0; p_awv <= 1'b0; p_wv <= 1'b0;
        cycles = 0; aw_blocked_full = 0; ar_lock_held = 0; aw_lock_held = 0; ar_n = 0; aw_n = 0;
    end else begin
        cycles = cycles + 1;
        if (p_arv && (!m_arvalid || p_ar !== {m_arid, m_araddr, m_arlen, m_arsize, m_arburst}))
            $fatal(1, "%m: AR dropped or changed while valid && !ready");
        if (p_awv && (!m_awvalid || p_aw !== {m_awid, m_awaddr, m_awlen, m_awsize, m_awburst}))
            $fatal(1, "%m: AW dropped or changed while valid && !ready");
        if (p_wv && (!m_wvalid || p_w !== {m_wdata, m_wstrb, m_wlast}))
            $fatal(1, "%m: W dropped or changed while valid && !ready");
        // work conserving: the channel is offered whenever a port asks (AW:
        // unless the order FIFO is full)
        if (m_arvalid !== (|s_arvalid)) $fatal(1, "%m: m_axi_arvalid differs from 'some port asks'");
        if (m_awvalid !== ((|s_awvalid) && wr_mux.fifo_count_reg != FIFO_DEPTH))
            $fatal(1, "%m: m_axi_awvalid differs from 'some port asks and the order FIFO has room'");
        p_arv <= m_arvalid && !m_arready;
        p_awv <= m_awvalid && !m_awready;
        p_wv  <= m_wvalid && !m_wready;
        p_ar  <= {m_arid, m_araddr, m_arlen, m_arsize, m_arburst};
        p_aw  <= {m_awid, m_awaddr, m_awlen, m_awsize, m_awburst};
        p_w   <= {m_wdata, m_wstrb, m_wlast};
        if (|s_awvalid && !m_awvalid && !wr_mux.lock_reg) aw_blocked_full = aw_blocked_full + 1;
        // the lock matters: round robin alone would now pick another port
        if (rd_mux.lock_reg && rd_mux.rr_sel != rd_mux.lock_sel_reg) ar_lock_held = ar_lock_held + 1;
        if (wr_mux.lock_reg && wr_mux.rr_sel != wr_mux.lock_sel_reg) aw_lock_held = aw_lock_held + 1;
        if (m_arvalid && m_arready) ar_n = ar_n + 1;
        if (m_awvalid && m_awready) aw_n = aw_n + 1;
        if (&done && !finished) begin
            if (rd_busy !== {PORTS{1'b0}} || wr_busy !== {PORTS{1'b0}})
                $fatal(1, "%m: busy %b/%b after every master is done", rd_busy, wr_busy);
            $display("%m: PORTS %0d DATA_WIDTH %0d FIFO_DEPTH %0d: %0d cycles, %0d ARs, %0d AWs, max %0d reads / %0d writes outstanding at the memory, %0d cycles with AW held back by a full order FIFO, AR/AW lock overriding round robin in %0d/%0d cycles",
                     PORTS, DATA_WIDTH, FIFO_DEPTH, cycles, ar_n, aw_n, ram.rd_outstanding_max, ram.wr_outstanding_max, aw_blocked_full, ar_lock_held, aw_lock_held);
            finished <= 1'b1;
        end
    end
end

endmodule
