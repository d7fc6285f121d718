// via_axil_slave: AXI4-Lite slave front end for BAR0.
//
// Turns AXI4-Lite transactions into a simple register-port request with a
// handshake, so that the register file (and later blocks behind it, such as a
// doorbell decoder) only deal with one access at a time:
//
//   write: reg_wr_en stays 1 with addr/data/strb stable until the target
//          answers reg_wr_ack (in the same cycle or later) with reg_wr_resp.
//          The write takes effect in the cycle reg_wr_en && reg_wr_ack; the
//          target must ack at most once per request (reg_wr_en drops the
//          cycle after the ack).
//   read:  reg_rd_en stays 1 with addr stable until reg_rd_ack; reg_rd_data
//          and reg_rd_resp are sampled in the ack cycle.
//
// AW and W are accepted independently (either order, or the same cycle) into
// one holding register each; the B response is held until bready. Reads and
// writes are independent and may be in progress at the same time; each
// channel has one transaction in flight. Addresses are passed on unchanged
// (byte addresses; the target ignores bits 1:0). No state here is touched by
// the NIC's soft reset: only rst (the hard reset) resets it.

`timescale 1ns / 1ps
`default_nettype none

`include "via_param_check.vh"
module via_axil_slave #(
    parameter ADDR_WIDTH = 20  // AXI-Lite address bits
) (
    input  wire                  clk,
    input  wire                  rst,

    // AXI-Lite slave
    input  wire [ADDR_WIDTH-1:0] s_axil_awaddr,
    /* verilator lint_off UNUSEDSIGNAL */
    // protection attributes carry no meaning for BAR0: every access is allowed
    input  wire [2:0]            s_axil_awprot,
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire                  s_axil_awvalid,
    output wire                  s_axil_awready,
    input  wire [31:0]           s_axil_wdata,
    input  wire [3:0]            s_axil_wstrb,
    input  wire                  s_axil_wvalid,
    output wire                  s_axil_wready,
    output wire [1:0]            s_axil_bresp,
    output wire                  s_axil_bvalid,
    input  wire                  s_axil_bready,
    input  wire [ADDR_WIDTH-1:0] s_axil_araddr,
    /* verilator lint_off UNUSEDSIGNAL */
    // see s_axil_awprot
    input  wire [2:0]            s_axil_arprot,
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire                  s_axil_arvalid,
    output wire                  s_axil_arready,
    output wire [31:0]           s_axil_rdata,
    output wire [1:0]            s_axil_rresp,
    output wire                  s_axil_rvalid,
    input  wire                  s_axil_rready,

    // register port: writes
    output wire [ADDR_WIDTH-1:0] reg_wr_addr,
    output wire [31:0]           reg_wr_data,
    output wire [3:0]            reg_wr_strb,
    output wire                  reg_wr_en,
    input  wire                  reg_wr_ack,
    input  wire [1:0]            reg_wr_resp,

    // register port: reads
    output wire [ADDR_WIDTH-1:0] reg_rd_addr,
    output wire                  reg_rd_en,
    input  wire                  reg_rd_ack,
    input  wire [31:0]           reg_rd_data,
    input  wire [1:0]            reg_rd_resp
);

generate
    if (ADDR_WIDTH < 3 || ADDR_WIDTH > 64) begin : g_bad_addr_width
        `VIA_PARAM_FAIL(("via_axil_slave: ADDR_WIDTH=%0d, must be 3..64", ADDR_WIDTH))
    end
endgenerate

// write channel state
reg                  aw_full_reg;
reg [ADDR_WIDTH-1:0] awaddr_reg;
reg                  w_full_reg;
reg [31:0]           wdata_reg;
reg [3:0]            wstrb_reg;
reg                  bvalid_reg;
reg [1:0]            bresp_reg;

// read channel state
reg                  ar_full_reg;
reg [ADDR_WIDTH-1:0] araddr_reg;
reg                  rvalid_reg;
reg [31:0]           rdata_reg;
reg [1:0]            rresp_reg;

// AW and W may be taken while a B response is still waiting for bready; the
// next write is only presented to the target once that response is gone.
assign s_axil_awready = !aw_full_reg;
assign s_axil_wready  = !w_full_reg;
assign s_axil_bvalid  = bvalid_reg;
assign s_axil_bresp   = bresp_reg;

assign s_axil_arready = !ar_full_reg;
assign s_axil_rvalid  = rvalid_reg;
assign s_axil_rdata   = rdata_reg;
assign s_axil_rresp   = rresp_reg;

assign reg_wr_addr = awaddr_reg;
assign reg_wr_data = wdata_reg;
assign reg_wr_strb = wstrb_reg;
assign reg_wr_en   = aw_full_reg && w_full_reg && !bvalid_reg;

assign reg_rd_addr = araddr_reg;
assign reg_rd_en   = ar_full_reg && !rvalid_reg;

wire wr_done = reg_wr_en && reg_wr_ack;
wire rd_done = reg_rd_en && reg_rd_ack;

always @(posedge clk) begin
    if (s_axil_awvalid && s_axil_awready) begin
        awaddr_reg <= s_axil_awaddr;
    end
    if (s_axil_wvalid && s_axil_wready) begin
        wdata_reg <= s_axil_wdata;
        wstrb_reg <= s_axil_wstrb;
    end
    if (wr_done) begin
        bresp_reg <= reg_wr_resp;
    end
    if (s_axil_arvalid && s_axil_arready) begin
        araddr_reg <= s_axil_araddr;
    end
    if (rd_done) begin
        rdata_reg <= reg_rd_data;
        rresp_reg <= reg_rd_resp;
    end

    if (rst) begin
        aw_full_reg <= 1'b0;
        w_full_reg  <= 1'b0;
        bvalid_reg  <= 1'b0;
        ar_full_reg <= 1'b0;
        rvalid_reg  <= 1'b0;
        // keep the response fields defined out of reset (4-state simulators)
        bresp_reg   <= 2'b00;
        rresp_reg   <= 2'b00;
        rdata_reg   <= 32'd0;
    end else begin
        if (s_axil_awvalid && s_axil_awready) begin
            aw_full_reg <= 1'b1;
        end else if (wr_done) begin
            aw_full_reg <= 1'b0;
        end
        if (s_axil_wvalid && s_axil_wready) begin
            w_full_reg <= 1'b1;
        end else if (wr_done) begin
            w_full_reg <= 1'b0;
        end
        if (wr_done) begin
            bvalid_reg <= 1'b1;
        end else if (s_axil_bready) begin
            bvalid_reg <= 1'b0;
        end

        if (s_axil_arvalid && s_axil_arready) begin
            ar_full_reg <= 1'b1;
        end else if (rd_done) begin
            ar_full_reg <= 1'b0;
        end
        if (rd_done) begin
            rvalid_reg <= 1'b1;
        end else if (s_axil_rready) begin
            rvalid_reg <= 1'b0;
        end
    end
end

endmodule

`default_nettype wire
