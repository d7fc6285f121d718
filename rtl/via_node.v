// via_node: one node of the cluster as a board would carry it: the NIC
// (via_nic) and the node's end of its fabric link (via_link_port) between
// the NIC's AXI-Stream network port and the link (docs/fabric.md). This is
// the model the simulator builds for every node: its only outputs towards
// the fabric are the link's registered symbols (beats one way, credit
// pulses the other), so nodes and the switch can be evaluated apart and
// synchronised once per link latency.
//
// The NIC's parameters pass through unchanged (DATA_WIDTH must be 64, the
// link's width); LINK_* are the link port's. The other ports are via_nic's.
// idle: the NIC is idle and the link port holds nothing.

`timescale 1ns / 1ps
`default_nettype none

`include "via_bar0.vh"
`include "via_param_check.vh"
module via_node #(
    parameter DATA_WIDTH          /*verilator public_flat*/ = `VIA_DEFAULT_DATA_WIDTH,                 // DMA and AXI-Stream datapath bits
    parameter NUM_VI              /*verilator public_flat*/ = `VIA_DEFAULT_NUM_VI,                     // VIs, one doorbell page each
    parameter AXIL_ADDR_WIDTH     /*verilator public_flat*/ = `VIA_DEFAULT_AXIL_ADDR_WIDTH,            // BAR0 address bits (17..32)
    parameter DMA_ADDR_WIDTH      /*verilator public_flat*/ = `VIA_DEFAULT_DMA_ADDR_WIDTH,             // host address bits of the DMA master
    parameter DMA_ID_WIDTH        /*verilator public_flat*/ = `VIA_DEFAULT_DMA_ID_WIDTH,               // AXI4 ID bits of the DMA master
    parameter DMA_MAX_BURST       /*verilator public_flat*/ = `VIA_DEFAULT_DMA_MAX_BURST,              // longest DMA burst in beats
    parameter DMA_MAX_OUTSTANDING /*verilator public_flat*/ = `VIA_DEFAULT_DMA_MAX_OUTSTANDING,        // DMA read bursts in flight at most
    parameter NUM_IRQ             /*verilator public_flat*/ = `VIA_DEFAULT_NUM_IRQ,                    // interrupt outputs (1..32)
    parameter NET_FIFO_DEPTH      /*verilator public_flat*/ = `VIA_DEFAULT_NET_FIFO_DEPTH,             // network loopback FIFO beats
    parameter SOFT_RESET_CYCLES   /*verilator public_flat*/ = `VIA_DEFAULT_SOFT_RESET_CYCLES,          // cycles a soft reset holds the blocks
    parameter CPU_IMEM_BYTES      /*verilator public_flat*/ = `VIA_DEFAULT_CPU_IMEM_BYTES,             // control processor instruction memory bytes
    parameter CPU_DMEM_BYTES      /*verilator public_flat*/ = `VIA_DEFAULT_CPU_DMEM_BYTES,             // control processor data memory bytes
    parameter FW_LOG_DEPTH        /*verilator public_flat*/ = `VIA_DEFAULT_FW_LOG_DEPTH,               // firmware log FIFO words
    parameter FW_EVENT_DEPTH      /*verilator public_flat*/ = `VIA_DEFAULT_FW_EVENT_DEPTH,             // control processor event FIFO entries
    parameter TPT_REGIONS         /*verilator public_flat*/ = `VIA_DEFAULT_TPT_REGIONS,                // TPT memory regions (power of two, 16..65536)
    parameter TPT_CACHE_ENTRIES   /*verilator public_flat*/ = `VIA_DEFAULT_TPT_CACHE_ENTRIES,          // TPT cached page-list entries (power of two, 64..16384)
    parameter MAX_DESC            /*verilator public_flat*/ = `VIA_DEFAULT_MAX_DESC,                   // MaxDescriptorsPerQueue (2..1024)
    parameter MAX_SEGS            /*verilator public_flat*/ = `VIA_DEFAULT_MAX_SEGS,                   // MaxSegmentsPerDesc (1..124)
    parameter LINK_CREDITS        /*verilator public_flat*/ = 64,  // send credits: the switch's input buffer, beats
    parameter LINK_RX_DEPTH       /*verilator public_flat*/ = 64,  // link receive buffer, beats (the switch's CREDITS)
    parameter LINK_BW_NUM         = 1,   // link bandwidth limit: LINK_BW_NUM beats ...
    parameter LINK_BW_DEN         = 1    // ... per LINK_BW_DEN cycles
) (
    input  wire                       clk,
    input  wire                       rst,

    // AXI4-Lite slave: BAR0
    input  wire [AXIL_ADDR_WIDTH-1:0] s_axil_awaddr,
    input  wire [2:0]                 s_axil_awprot,
    input  wire                       s_axil_awvalid,
    output wire                       s_axil_awready,
    input  wire [31:0]                s_axil_wdata,
    input  wire [3:0]                 s_axil_wstrb,
    input  wire                       s_axil_wvalid,
    output wire                       s_axil_wready,
    output wire [1:0]                 s_axil_bresp,
    output wire                       s_axil_bvalid,
    input  wire                       s_axil_bready,
    input  wire [AXIL_ADDR_WIDTH-1:0] s_axil_araddr,
    input  wire [2:0]                 s_axil_arprot,
    input  wire                       s_axil_arvalid,
    output wire                       s_axil_arready,
    output wire [31:0]                s_axil_rdata,
    output wire [1:0]                 s_axil_rresp,
    output wire                       s_axil_rvalid,
    input  wire                       s_axil_rready,

    // AXI4 master: DMA into host memory
    output wire [DMA_ID_WIDTH-1:0]    m_axi_awid,
    output wire [DMA_ADDR_WIDTH-1:0]  m_axi_awaddr,
    output wire [7:0]                 m_axi_awlen,
    output wire [2:0]                 m_axi_awsize,
    output wire [1:0]                 m_axi_awburst,
    output wire                       m_axi_awlock,
    output wire [3:0]                 m_axi_awcache,
    output wire [2:0]                 m_axi_awprot,
    output wire                       m_axi_awvalid,
    input  wire                       m_axi_awready,
    output wire [DATA_WIDTH-1:0]      m_axi_wdata,
    output wire [DATA_WIDTH/8-1:0]    m_axi_wstrb,
    output wire                       m_axi_wlast,
    output wire                       m_axi_wvalid,
    input  wire                       m_axi_wready,
    input  wire [DMA_ID_WIDTH-1:0]    m_axi_bid,
    input  wire [1:0]                 m_axi_bresp,
    input  wire                       m_axi_bvalid,
    output wire                       m_axi_bready,
    output wire [DMA_ID_WIDTH-1:0]    m_axi_arid,
    output wire [DMA_ADDR_WIDTH-1:0]  m_axi_araddr,
    output wire [7:0]                 m_axi_arlen,
    output wire [2:0]                 m_axi_arsize,
    output wire [1:0]                 m_axi_arburst,
    output wire                       m_axi_arlock,
    output wire [3:0]                 m_axi_arcache,
    output wire [2:0]                 m_axi_arprot,
    output wire                       m_axi_arvalid,
    input  wire                       m_axi_arready,
    input  wire [DMA_ID_WIDTH-1:0]    m_axi_rid,
    input  wire [DATA_WIDTH-1:0]      m_axi_rdata,
    input  wire [1:0]                 m_axi_rresp,
    input  wire                       m_axi_rlast,
    input  wire                       m_axi_rvalid,
    output wire                       m_axi_rready,

    // interrupts: irq[i] = IRQ_STATUS[i] & IRQ_ENABLE[i]
    output wire [NUM_IRQ-1:0]         irq,

    // platform time base: cycles since power-on (as a PCIe/PTP time block
    // would provide); the firmware reads it as TIME_LO/HI
    input  wire [63:0]                time_cycles,

    // the NIC's network address: the fabric port it is cabled to, strapped
    // by the board (a static input; CAP_NET.NODE_ID shows it)
    input  wire [7:0]                 node_id,

    // debug port (not part of the device's function; the simulator prints
    // the firmware's log from it): a one-cycle strobe with every word the
    // firmware stores into its LOG register, also when the FW_LOG FIFO is
    // full and drops it
    output wire                       fw_log_valid,
    output wire [31:0]                fw_log_word,

    // simulation aid (synthesizable, harmless in hardware): 1 when nothing
    // is in flight and no internal state will change until an input does,
    // so a simulator may skip cycles without evaluating them
    output wire                       idle,

    // simulation aid: the R and B handshakes of the last rising edge
    // (registered rvalid & rready, bvalid & bready). rready and bready
    // depend combinationally on rid and bid (the read and write muxes route
    // by ID); with these a simulator learns whether its beat was taken
    // after the edge, so it need not evaluate the model between driving
    // the inputs and the edge
    output reg                        dma_r_taken,
    output reg                        dma_b_taken,

    // the fabric link: beats out and credits in, beats in and credits out;
    // link_rst resets the link port (with the switch's end of the link, at
    // power-on): the NIC's own rst leaves the link up, as a NIC's function
    // reset leaves its PHY's link up, so the credits of both ends stay in
    // step. A frame the NIC's reset cuts short reaches the far end without
    // a good CRC and is dropped there.
    input  wire                       link_rst,
    output wire                       tx_valid,
    output wire [63:0]                tx_data,
    output wire [7:0]                 tx_keep,
    output wire                       tx_last,
    input  wire                       tx_credit,
    input  wire                       rx_valid,
    input  wire [63:0]                rx_data,
    input  wire [7:0]                 rx_keep,
    input  wire                       rx_last,
    output wire                       rx_credit
);

generate
    if (DATA_WIDTH != 64) begin : g_bad_data_width
        `VIA_PARAM_FAIL(("via_node: DATA_WIDTH=%0d, must be 64 (the link's width)", DATA_WIDTH))
    end
endgenerate

wire [63:0] n_tx_tdata, n_rx_tdata;
wire [7:0]  n_tx_tkeep, n_rx_tkeep;
wire        n_tx_tvalid, n_tx_tready, n_tx_tlast;
wire        n_rx_tvalid, n_rx_tready, n_rx_tlast;
wire        nic_idle, link_idle;

via_nic #(
    .DATA_WIDTH(DATA_WIDTH),
    .NUM_VI(NUM_VI),
    .AXIL_ADDR_WIDTH(AXIL_ADDR_WIDTH),
    .DMA_ADDR_WIDTH(DMA_ADDR_WIDTH),
    .DMA_ID_WIDTH(DMA_ID_WIDTH),
    .DMA_MAX_BURST(DMA_MAX_BURST),
    .DMA_MAX_OUTSTANDING(DMA_MAX_OUTSTANDING),
    .NUM_IRQ(NUM_IRQ),
    .NET_FIFO_DEPTH(NET_FIFO_DEPTH),
    .SOFT_RESET_CYCLES(SOFT_RESET_CYCLES),
    .CPU_IMEM_BYTES(CPU_IMEM_BYTES),
    .CPU_DMEM_BYTES(CPU_DMEM_BYTES),
    .FW_LOG_DEPTH(FW_LOG_DEPTH),
    .FW_EVENT_DEPTH(FW_EVENT_DEPTH),
    .TPT_REGIONS(TPT_REGIONS),
    .TPT_CACHE_ENTRIES(TPT_CACHE_ENTRIES),
    .MAX_DESC(MAX_DESC),
    .MAX_SEGS(MAX_SEGS)
) via_nic (
    .clk(clk),
    .rst(rst),
    .s_axil_awaddr(s_axil_awaddr),
    .s_axil_awprot(s_axil_awprot),
    .s_axil_awvalid(s_axil_awvalid),
    .s_axil_awready(s_axil_awready),
    .s_axil_wdata(s_axil_wdata),
    .s_axil_wstrb(s_axil_wstrb),
    .s_axil_wvalid(s_axil_wvalid),
    .s_axil_wready(s_axil_wready),
    .s_axil_bresp(s_axil_bresp),
    .s_axil_bvalid(s_axil_bvalid),
    .s_axil_bready(s_axil_bready),
    .s_axil_araddr(s_axil_araddr),
    .s_axil_arprot(s_axil_arprot),
    .s_axil_arvalid(s_axil_arvalid),
    .s_axil_arready(s_axil_arready),
    .s_axil_rdata(s_axil_rdata),
    .s_axil_rresp(s_axil_rresp),
    .s_axil_rvalid(s_axil_rvalid),
    .s_axil_rready(s_axil_rready),
    .m_axi_awid(m_axi_awid),
    .m_axi_awaddr(m_axi_awaddr),
    .m_axi_awlen(m_axi_awlen),
    .m_axi_awsize(m_axi_awsize),
    .m_axi_awburst(m_axi_awburst),
    .m_axi_awlock(m_axi_awlock),
    .m_axi_awcache(m_axi_awcache),
    .m_axi_awprot(m_axi_awprot),
    .m_axi_awvalid(m_axi_awvalid),
    .m_axi_awready(m_axi_awready),
    .m_axi_wdata(m_axi_wdata),
    .m_axi_wstrb(m_axi_wstrb),
    .m_axi_wlast(m_axi_wlast),
    .m_axi_wvalid(m_axi_wvalid),
    .m_axi_wready(m_axi_wready),
    .m_axi_bid(m_axi_bid),
    .m_axi_bresp(m_axi_bresp),
    .m_axi_bvalid(m_axi_bvalid),
    .m_axi_bready(m_axi_bready),
    .m_axi_arid(m_axi_arid),
    .m_axi_araddr(m_axi_araddr),
    .m_axi_arlen(m_axi_arlen),
    .m_axi_arsize(m_axi_arsize),
    .m_axi_arburst(m_axi_arburst),
    .m_axi_arlock(m_axi_arlock),
    .m_axi_arcache(m_axi_arcache),
    .m_axi_arprot(m_axi_arprot),
    .m_axi_arvalid(m_axi_arvalid),
    .m_axi_arready(m_axi_arready),
    .m_axi_rid(m_axi_rid),
    .m_axi_rdata(m_axi_rdata),
    .m_axi_rresp(m_axi_rresp),
    .m_axi_rlast(m_axi_rlast),
    .m_axi_rvalid(m_axi_rvalid),
    .m_axi_rready(m_axi_rready),
    .irq(irq),
    .time_cycles(time_cycles),
    .node_id(node_id),
    .fw_log_valid(fw_log_valid),
    .fw_log_word(fw_log_word),
    .idle(nic_idle),
    .s_axis_tdata(n_rx_tdata),
    .s_axis_tkeep(n_rx_tkeep),
    .s_axis_tvalid(n_rx_tvalid),
    .s_axis_tready(n_rx_tready),
    .s_axis_tlast(n_rx_tlast),
    .m_axis_tdata(n_tx_tdata),
    .m_axis_tkeep(n_tx_tkeep),
    .m_axis_tvalid(n_tx_tvalid),
    .m_axis_tready(n_tx_tready),
    .m_axis_tlast(n_tx_tlast)
);

via_link_port #(
    .CREDITS(LINK_CREDITS),
    .RX_DEPTH(LINK_RX_DEPTH),
    .BW_NUM(LINK_BW_NUM),
    .BW_DEN(LINK_BW_DEN)
) link (
    .clk(clk),
    .rst(link_rst),
    .s_axis_tdata(n_tx_tdata),
    .s_axis_tkeep(n_tx_tkeep),
    .s_axis_tvalid(n_tx_tvalid),
    .s_axis_tready(n_tx_tready),
    .s_axis_tlast(n_tx_tlast),
    .m_axis_tdata(n_rx_tdata),
    .m_axis_tkeep(n_rx_tkeep),
    .m_axis_tvalid(n_rx_tvalid),
    .m_axis_tready(n_rx_tready),
    .m_axis_tlast(n_rx_tlast),
    .tx_valid(tx_valid),
    .tx_data(tx_data),
    .tx_keep(tx_keep),
    .tx_last(tx_last),
    .tx_credit(tx_credit),
    .rx_valid(rx_valid),
    .rx_data(rx_data),
    .rx_keep(rx_keep),
    .rx_last(rx_last),
    .rx_credit(rx_credit),
    .idle(link_idle)
);

assign idle = nic_idle && link_idle;

always @(posedge clk) begin
    dma_r_taken <= m_axi_rvalid && m_axi_rready;
    dma_b_taken <= m_axi_bvalid && m_axi_bready;
end

endmodule

`default_nettype wire
