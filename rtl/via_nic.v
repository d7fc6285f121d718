// via_nic: top level of the vianic NIC.
//
// Interfaces: an AXI4-Lite slave for BAR0 (MMIO), an AXI4 master for DMA into
// host memory, an AXI-Stream pair for the network port, interrupt levels. One
// clock, synchronous active-high reset. The parameters below are the one place
// the NIC's build parameters live; their defaults come from bar0.layout
// (via the generated VIA_DEFAULT_* macros) and their actual values are
// reported in the CAP_* registers.
//
// Blocks:
//   via_axil_slave    AXI4-Lite protocol -> register port (never soft-reset)
//   via_regfile       BAR0 routing: decode, the hand-written register
//                     blocks (interrupt controller, admin mailbox, firmware
//                     log, control processor control and host port), the
//                     block bus to the blocks below, doorbell write port
//   via_nic_ctrl      BAR0 block `nic`: identification, capabilities,
//                     MAP_HASH, SCRATCH, CTRL, STATUS
//   via_soft_reset    CTRL.SOFT_RESET sequencer (drain, then hold blk_rst)
//   via_dma_diag      DMA diagnostic copy engine (AXI4 master), physical or
//                     translated through the TPT (DIAG_XLAT); BAR0 block
//                     `diag`
//   via_tpt           translation and protection table: region table,
//                     page-list cache, lookups, the DEREGISTER fence; fetches
//                     page lists from host memory on the DMA master's read
//                     channels
//   via_tpt_probe     BAR0 block `tpt` (probe, counters) and the TPT's lookup
//                     arbiter (DMA engine, probe)
//   via_axi_rd_arb    shares the DMA master's AR/R channels between the DMA
//                     engine (ARID 0) and the TPT's page-list fetch (ARID 1);
//                     R routed by ID
//   via_net           network block: the send engine's frames loop back
//                     (peer node = node_id) or go through the packetizer to
//                     m_axis; s_axis through the depacketizer to the receive
//                     engine; BAR0 block `net` (counters)
//   via_cpu           control processor (RV32I) with its memories
//   via_cpu_periph    the core's peripheral window (events, timer, log,
//                     admin mailbox, TPT programming, read-only view of BAR0)
//
// BAR0 decode (via_regfile): the 64 KiB global space holds the registers
// of rtl/layouts/bar0.layout (0x000..0x3FF) and the admin command and
// response windows (0x400, 0x500; other offsets: SLVERR); then one 4 KiB
// doorbell page per VI (OKAY); anything beyond: DECERR. The doorbell write
// port of via_regfile (VI index, offset in the page, data, strobes, with a
// ready) is not used yet: db_wr_ready is tied to 1, so doorbell writes are
// accepted and ignored and read as 0. A doorbell block plugs in there.
//
// Soft reset (via_soft_reset): CTRL.SOFT_RESET first drains (aborts the DMA
// engine and waits until no AXI4 burst is in flight, stops the network port
// once no m_axis beat is pending), then holds blk_rst for SOFT_RESET_CYCLES
// cycles. blk_rst resets every block and register but the AXI-Lite slave,
// which keeps answering: the triggering write gets its B response and
// STATUS.RESET_BUSY reads 1 until the end. The network FIFO's contents are
// dropped; beats not yet taken from s_axis stay with the sender. The TPT's
// page-list fetches are drained too: the sequencer's dma_busy is 1 while the
// DMA engine is busy, a probe is running, a lookup is presented or not yet
// answered, or a fetch burst is presented or in flight. The TPT fetches only
// to answer a lookup, and no new lookup starts once the engine is aborted
// and BAR0 writes are ignored (reset_busy), so no fetch starts after the
// drain. blk_rst resets the TPT as well (every region invalid, generations
// back to 1): the firmware starts over and programs it again.
//
// Control processor: via_cpu and via_cpu_periph are held in reset while
// CPU_CTRL.RUN is 0 or the NIC is in (soft) reset (cpu_rst); the host port
// of the core's memories (CPU_MEM_ADDR/DATA) works in either state. See
// via_admin_mbox, via_fw_log and via_cpu_periph for the mailbox, the log
// and the events.

`timescale 1ns / 1ps
`default_nettype none

`include "via_bar0.vh"
`include "via_param_check.vh"

// The parameters are verilator public_flat: the co-simulation harness reads
// the values a model was built with (cosim/harness/dut_params.h).
module via_nic #(
    parameter DATA_WIDTH          /*verilator public_flat*/ = `VIA_DEFAULT_DATA_WIDTH,          // DMA and AXI-Stream datapath bits
    parameter NUM_VI              /*verilator public_flat*/ = `VIA_DEFAULT_NUM_VI,              // VIs, one doorbell page each
    parameter AXIL_ADDR_WIDTH     /*verilator public_flat*/ = `VIA_DEFAULT_AXIL_ADDR_WIDTH,     // BAR0 address bits (17..32)
    parameter DMA_ADDR_WIDTH      /*verilator public_flat*/ = `VIA_DEFAULT_DMA_ADDR_WIDTH,      // host address bits of the DMA master
    parameter DMA_ID_WIDTH        /*verilator public_flat*/ = `VIA_DEFAULT_DMA_ID_WIDTH,        // AXI4 ID bits of the DMA master
    parameter DMA_MAX_BURST       /*verilator public_flat*/ = `VIA_DEFAULT_DMA_MAX_BURST,       // longest DMA burst in beats
    parameter DMA_MAX_OUTSTANDING /*verilator public_flat*/ = `VIA_DEFAULT_DMA_MAX_OUTSTANDING, // DMA read bursts in flight at most
    parameter NUM_IRQ             /*verilator public_flat*/ = `VIA_DEFAULT_NUM_IRQ,             // interrupt outputs (1..32)
    parameter NET_FIFO_DEPTH      /*verilator public_flat*/ = `VIA_DEFAULT_NET_FIFO_DEPTH,      // network loopback FIFO beats
    parameter SOFT_RESET_CYCLES   /*verilator public_flat*/ = `VIA_DEFAULT_SOFT_RESET_CYCLES,   // cycles a soft reset holds the blocks
    parameter CPU_IMEM_BYTES      /*verilator public_flat*/ = `VIA_DEFAULT_CPU_IMEM_BYTES,      // control processor instruction memory bytes
    parameter CPU_DMEM_BYTES      /*verilator public_flat*/ = `VIA_DEFAULT_CPU_DMEM_BYTES,      // control processor data memory bytes
    parameter FW_LOG_DEPTH        /*verilator public_flat*/ = `VIA_DEFAULT_FW_LOG_DEPTH,        // firmware log FIFO words
    parameter FW_EVENT_DEPTH      /*verilator public_flat*/ = `VIA_DEFAULT_FW_EVENT_DEPTH,      // control processor event FIFO entries
    parameter TPT_REGIONS         /*verilator public_flat*/ = `VIA_DEFAULT_TPT_REGIONS,         // TPT memory regions (power of two, 16..65536)
    parameter TPT_CACHE_ENTRIES   /*verilator public_flat*/ = `VIA_DEFAULT_TPT_CACHE_ENTRIES,   // TPT cached page-list entries (power of two, 64..16384)
    parameter MAX_DESC            /*verilator public_flat*/ = `VIA_DEFAULT_MAX_DESC,            // MaxDescriptorsPerQueue (2..1024)
    parameter MAX_SEGS            /*verilator public_flat*/ = `VIA_DEFAULT_MAX_SEGS             // MaxSegmentsPerDesc (1..124)
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

    // AXI-Stream in: network port receive
    input  wire [DATA_WIDTH-1:0]      s_axis_tdata,
    input  wire [DATA_WIDTH/8-1:0]    s_axis_tkeep,
    input  wire                       s_axis_tvalid,
    output wire                       s_axis_tready,
    input  wire                       s_axis_tlast,

    // AXI-Stream out: network port transmit
    output wire [DATA_WIDTH-1:0]      m_axis_tdata,
    output wire [DATA_WIDTH/8-1:0]    m_axis_tkeep,
    output wire                       m_axis_tvalid,
    input  wire                       m_axis_tready,
    output wire                       m_axis_tlast,

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
    output wire                       idle
);

generate
    if (DATA_WIDTH != 64 && DATA_WIDTH != 128 && DATA_WIDTH != 256 && DATA_WIDTH != 512) begin : g_bad_data_width
        `VIA_PARAM_FAIL(("via_nic: DATA_WIDTH=%0d, must be 64, 128, 256 or 512", DATA_WIDTH))
    end
    if (NUM_VI < 1 || NUM_VI > 1024) begin : g_bad_num_vi
        `VIA_PARAM_FAIL(("via_nic: NUM_VI=%0d, must be 1..1024", NUM_VI))
    end
    if (MAX_DESC < 2 || MAX_DESC > 1024) begin : g_bad_max_desc
        `VIA_PARAM_FAIL(("via_nic: MAX_DESC=%0d, must be 2..1024", MAX_DESC))
    end
    if (MAX_SEGS < 1 || MAX_SEGS > 124) begin : g_bad_max_segs
        `VIA_PARAM_FAIL(("via_nic: MAX_SEGS=%0d, must be 1..124", MAX_SEGS))
    end
    if (AXIL_ADDR_WIDTH < 17 || AXIL_ADDR_WIDTH > 32) begin : g_bad_axil_addr_width
        `VIA_PARAM_FAIL(("via_nic: AXIL_ADDR_WIDTH=%0d, must be 17..32", AXIL_ADDR_WIDTH))
    end
    if (DMA_ADDR_WIDTH < 32 || DMA_ADDR_WIDTH > 64) begin : g_bad_dma_addr_width
        `VIA_PARAM_FAIL(("via_nic: DMA_ADDR_WIDTH=%0d, must be 32..64", DMA_ADDR_WIDTH))
    end
    if (TPT_REGIONS < 16 || TPT_REGIONS > 65536 || (TPT_REGIONS & (TPT_REGIONS - 1)) != 0) begin : g_bad_tpt_regions
        `VIA_PARAM_FAIL(("via_nic: TPT_REGIONS=%0d, must be a power of two, 16..65536", TPT_REGIONS))
    end
    if (TPT_CACHE_ENTRIES < 64 || TPT_CACHE_ENTRIES > 16384 || (TPT_CACHE_ENTRIES & (TPT_CACHE_ENTRIES - 1)) != 0) begin : g_bad_tpt_cache_entries
        `VIA_PARAM_FAIL(("via_nic: TPT_CACHE_ENTRIES=%0d, must be a power of two, 64..16384", TPT_CACHE_ENTRIES))
    end
    if (DMA_ID_WIDTH < 3 || DMA_ID_WIDTH > 32) begin : g_bad_dma_id_width
        `VIA_PARAM_FAIL(("via_nic: DMA_ID_WIDTH=%0d, must be 3..32 (seven DMA requesters with IDs 0..6)", DMA_ID_WIDTH))
    end
    if (DMA_MAX_BURST < 2 || DMA_MAX_BURST > 256 || (DMA_MAX_BURST & (DMA_MAX_BURST - 1)) != 0) begin : g_bad_dma_max_burst
        `VIA_PARAM_FAIL(("via_nic: DMA_MAX_BURST=%0d, must be a power of two, 2..256", DMA_MAX_BURST))
    end
    if (DMA_MAX_OUTSTANDING < 1 || DMA_MAX_OUTSTANDING > 15) begin : g_bad_dma_max_outstanding
        `VIA_PARAM_FAIL(("via_nic: DMA_MAX_OUTSTANDING=%0d, must be 1..15", DMA_MAX_OUTSTANDING))
    end
    if (NUM_IRQ < 1 || NUM_IRQ > 32) begin : g_bad_num_irq
        `VIA_PARAM_FAIL(("via_nic: NUM_IRQ=%0d, must be 1..32", NUM_IRQ))
    end
    if (NET_FIFO_DEPTH < 2 || NET_FIFO_DEPTH > 65535) begin : g_bad_net_fifo_depth
        `VIA_PARAM_FAIL(("via_nic: NET_FIFO_DEPTH=%0d, must be 2..65535", NET_FIFO_DEPTH))
    end
    if (SOFT_RESET_CYCLES < 1 || SOFT_RESET_CYCLES > 65535) begin : g_bad_soft_reset_cycles
        `VIA_PARAM_FAIL(("via_nic: SOFT_RESET_CYCLES=%0d, must be 1..65535", SOFT_RESET_CYCLES))
    end
    if (CPU_IMEM_BYTES < 1024 || CPU_IMEM_BYTES > 262144 || (CPU_IMEM_BYTES & (CPU_IMEM_BYTES - 1)) != 0) begin : g_bad_cpu_imem_bytes
        `VIA_PARAM_FAIL(("via_nic: CPU_IMEM_BYTES=%0d, must be a power of two, 1 KiB .. 256 KiB", CPU_IMEM_BYTES))
    end
    if (CPU_DMEM_BYTES < 1024 || CPU_DMEM_BYTES > 262144 || (CPU_DMEM_BYTES & (CPU_DMEM_BYTES - 1)) != 0) begin : g_bad_cpu_dmem_bytes
        `VIA_PARAM_FAIL(("via_nic: CPU_DMEM_BYTES=%0d, must be a power of two, 1 KiB .. 256 KiB", CPU_DMEM_BYTES))
    end
    if (FW_LOG_DEPTH < 2 || FW_LOG_DEPTH > 65535) begin : g_bad_fw_log_depth
        `VIA_PARAM_FAIL(("via_nic: FW_LOG_DEPTH=%0d, must be 2..65535", FW_LOG_DEPTH))
    end
    if (FW_EVENT_DEPTH < 2 || FW_EVENT_DEPTH > 65535) begin : g_bad_fw_event_depth
        `VIA_PARAM_FAIL(("via_nic: FW_EVENT_DEPTH=%0d, must be 2..65535", FW_EVENT_DEPTH))
    end
endgenerate

localparam VI_WIDTH        = (NUM_VI > 1) ? $clog2(NUM_VI) : 1;
localparam DB_OFFSET_WIDTH = $clog2(`VIA_DOORBELL_STRIDE);

// AXI4 IDs: the diagnostic engine's bursts 0, the TPT's page-list fetches
// 1, the VI engines' 2..5 (TX descriptor fetch, TX data reads and
// write-backs, RX descriptor fetch, RX writes) and 6 (completion-queue
// entries)
localparam [DMA_ID_WIDTH-1:0] DIAG_ID      = 0;
localparam [DMA_ID_WIDTH-1:0] TPT_FETCH_ID = 1;
localparam [DMA_ID_WIDTH-1:0] TXF_ID       = 2;
localparam [DMA_ID_WIDTH-1:0] TXD_ID       = 3;
localparam [DMA_ID_WIDTH-1:0] RXF_ID       = 4;
localparam [DMA_ID_WIDTH-1:0] RXW_ID       = 5;
localparam [DMA_ID_WIDTH-1:0] CQW_ID       = 6;

// the multiplexers' per-port ID lists (constant functions: a concatenation
// of parameters is not allowed at every width)
/* verilator lint_off UNUSEDSIGNAL */
function [5*DMA_ID_WIDTH-1:0] rd_ids;
    input integer unused;
    begin
        rd_ids = {(5*DMA_ID_WIDTH){1'b0}};
        rd_ids[0*DMA_ID_WIDTH +: DMA_ID_WIDTH] = DIAG_ID;
        rd_ids[1*DMA_ID_WIDTH +: DMA_ID_WIDTH] = TPT_FETCH_ID;
        rd_ids[2*DMA_ID_WIDTH +: DMA_ID_WIDTH] = TXF_ID;
        rd_ids[3*DMA_ID_WIDTH +: DMA_ID_WIDTH] = TXD_ID;
        rd_ids[4*DMA_ID_WIDTH +: DMA_ID_WIDTH] = RXF_ID;
    end
endfunction

function [4*DMA_ID_WIDTH-1:0] wr_ids;
    input integer unused;
    begin
        wr_ids = {(4*DMA_ID_WIDTH){1'b0}};
        wr_ids[0*DMA_ID_WIDTH +: DMA_ID_WIDTH] = DIAG_ID;
        wr_ids[1*DMA_ID_WIDTH +: DMA_ID_WIDTH] = TXD_ID;
        wr_ids[2*DMA_ID_WIDTH +: DMA_ID_WIDTH] = RXW_ID;
        wr_ids[3*DMA_ID_WIDTH +: DMA_ID_WIDTH] = CQW_ID;
    end
endfunction

/* verilator lint_on UNUSEDSIGNAL */
localparam [5*DMA_ID_WIDTH-1:0] RD_IDS = rd_ids(0);
localparam [4*DMA_ID_WIDTH-1:0] WR_IDS = wr_ids(0);
// TPT lookups: via_lk_arb shares the engine port of via_tpt_probe between
// the diagnostic engine (port 0, its source/destination tag bit) and the
// VI engines' four requesters (ports 1..4, tag unused); its tag is
// {port (3 bits), 1 bit}; via_tpt_probe adds the probe bit
localparam LK_PORTS      = 5;
localparam LK_TAG_WIDTH  = 4;
localparam TPT_TAG_WIDTH = LK_TAG_WIDTH + 1;

// ------------------------------------------------------------ resets

wire soft_reset_req;
wire soft_reset_busy;
wire soft_blk_rst;
wire soft_dma_abort;

// reset of everything but the BAR0 slave and the soft-reset sequencer
wire blk_rst = rst || soft_blk_rst;

// ------------------------------------------------------------ BAR0

wire [AXIL_ADDR_WIDTH-1:0] reg_wr_addr;
wire [31:0]                reg_wr_data;
wire [3:0]                 reg_wr_strb;
wire                       reg_wr_en;
wire                       reg_wr_ack;
wire [1:0]                 reg_wr_resp;
wire [AXIL_ADDR_WIDTH-1:0] reg_rd_addr;
wire                       reg_rd_en;
wire                       reg_rd_ack;
wire [31:0]                reg_rd_data;
wire [1:0]                 reg_rd_resp;

via_axil_slave #(
    .ADDR_WIDTH(AXIL_ADDR_WIDTH)
) axil_slave_inst (
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
    .reg_wr_addr(reg_wr_addr),
    .reg_wr_data(reg_wr_data),
    .reg_wr_strb(reg_wr_strb),
    .reg_wr_en(reg_wr_en),
    .reg_wr_ack(reg_wr_ack),
    .reg_wr_resp(reg_wr_resp),
    .reg_rd_addr(reg_rd_addr),
    .reg_rd_en(reg_rd_en),
    .reg_rd_ack(reg_rd_ack),
    .reg_rd_data(reg_rd_data),
    .reg_rd_resp(reg_rd_resp)
);

// doorbell writes, to the VI engine's doorbell block
wire                       db_wr_valid;
wire [VI_WIDTH-1:0]        db_wr_vi;
wire [DB_OFFSET_WIDTH-1:0] db_wr_offset;
wire [31:0]                db_wr_data;
wire [3:0]                 db_wr_strb;
wire                       db_wr_ready;

wire        diag_start;
wire        diag_busy;
wire        diag_done_pulse;

// the register blocks outside via_regfile, on its block bus (docs/rtl.md):
// one bus out, one answer per block (EXT_* below)
localparam EXT_NIC    = 0;
localparam EXT_DIAG   = 1;
localparam EXT_NET    = 2;
localparam EXT_TPT    = 3;
localparam EXT_VI     = 4;
localparam EXT_BLOCKS = 5;

wire                    blk_wr_en;
wire [15:0]             blk_wr_addr;
wire [31:0]             blk_wr_data;
wire [3:0]              blk_wr_strb;
wire [EXT_BLOCKS-1:0]   blk_wr_hit;
wire                    blk_rd_en;
wire [15:0]             blk_rd_addr;
wire                    blk_rd_fire;
wire [EXT_BLOCKS-1:0]   blk_rd_hit;
wire [32*EXT_BLOCKS-1:0] blk_rd_data;

// TPT: programming (firmware), lookups, fence, statistics
wire        tpt_prog_valid;
wire [2:0]  tpt_prog_op;
wire [15:0] tpt_prog_index;
wire [63:0] tpt_prog_va;
wire [31:0] tpt_prog_len;
wire [15:0] tpt_prog_ptag;
wire        tpt_prog_rdma_write;
wire        tpt_prog_rdma_read;
wire [63:0] tpt_prog_pl;
wire        tpt_prog_busy;
wire [63:0] tpt_prog_rd_va;
wire [31:0] tpt_prog_rd_len;
wire [15:0] tpt_prog_rd_ptag;
wire        tpt_prog_rd_rdma_write;
wire        tpt_prog_rd_rdma_read;
wire [63:0] tpt_prog_rd_pl;
wire        tpt_prog_rd_valid;
wire [15:0] tpt_prog_rd_gen;

wire                      tpt_lk_valid;
wire                      tpt_lk_ready;
wire [31:0]               tpt_lk_handle;
wire [63:0]               tpt_lk_va;
wire [31:0]               tpt_lk_len;
wire [15:0]               tpt_lk_ptag;
wire [1:0]                tpt_lk_kind;
wire [TPT_TAG_WIDTH-1:0]  tpt_lk_tag;
wire                      tpt_rs_valid;
wire                      tpt_rs_ready;
wire [2:0]                tpt_rs_err;
wire [DMA_ADDR_WIDTH-1:0] tpt_rs_pa;
wire [12:0]               tpt_rs_bytes;
wire                      tpt_rs_hit;
wire                      tpt_rs_epoch;
wire [TPT_TAG_WIDTH-1:0]  tpt_rs_tag;
wire [1:0]                tpt_inflight_epoch;
wire                      tpt_st_lookup;
wire                      tpt_st_hit;
wire                      tpt_st_miss;
wire                      tpt_st_error;

// the diagnostic engine's lookup port
wire                      dlk_valid;
wire                      dlk_ready;
wire [31:0]               dlk_handle;
wire [63:0]               dlk_va;
wire [31:0]               dlk_len;
wire [15:0]               dlk_ptag;
wire [1:0]                dlk_kind;
wire                      dlk_tag;
wire                      drs_valid;
wire                      drs_ready;
wire [2:0]                drs_err;
wire [DMA_ADDR_WIDTH-1:0] drs_pa;
wire [12:0]               drs_bytes;
wire                      drs_hit;
wire                      drs_epoch;
wire                      drs_tag;
/* verilator lint_off UNUSEDSIGNAL */
// the VI engines' requesters have no tag
wire [LK_PORTS-1:0]       alk_rs_tag;
/* verilator lint_on UNUSEDSIGNAL */

// the VI engines' four lookup ports
wire [3:0]                vlk_valid;
wire [3:0]                vlk_ready;
wire [4*32-1:0]           vlk_handle;
wire [4*64-1:0]           vlk_va;
wire [4*32-1:0]           vlk_len;
wire [4*16-1:0]           vlk_ptag;
wire [4*2-1:0]            vlk_kind;
wire [3:0]                vrs_valid;
wire [3:0]                vrs_ready;

// the lookup arbiter's side of via_tpt_probe's engine port
wire                      elk_valid;
wire                      elk_ready;
wire [31:0]               elk_handle;
wire [63:0]               elk_va;
wire [31:0]               elk_len;
wire [15:0]               elk_ptag;
wire [1:0]                elk_kind;
wire [LK_TAG_WIDTH-1:0]   elk_tag;
wire                      ers_valid;
wire                      ers_ready;
wire [2:0]                ers_err;
wire [DMA_ADDR_WIDTH-1:0] ers_pa;
wire [12:0]               ers_bytes;
wire                      ers_hit;
wire                      ers_epoch;
wire [LK_TAG_WIDTH-1:0]   ers_tag;
wire [LK_PORTS*3-1:0]     alk_rs_err;
wire [LK_PORTS*DMA_ADDR_WIDTH-1:0] alk_rs_pa;
wire [LK_PORTS*13-1:0]    alk_rs_bytes;
wire [LK_PORTS-1:0]       alk_rs_hit;
wire [LK_PORTS-1:0]       alk_rs_epoch;
wire                      lk_arb_busy;

wire probe_busy;
wire lk_pending;

// the diagnostic engine's write master
wire [DMA_ID_WIDTH-1:0]   diag_awid;
wire [DMA_ADDR_WIDTH-1:0] diag_awaddr;
wire [7:0]                diag_awlen;
wire [2:0]                diag_awsize;
wire [1:0]                diag_awburst;
wire                      diag_awlock;
wire [3:0]                diag_awcache;
wire [2:0]                diag_awprot;
wire                      diag_awvalid;
wire                      diag_awready;
wire [DATA_WIDTH-1:0]     diag_wdata;
wire [DATA_WIDTH/8-1:0]   diag_wstrb;
wire                      diag_wlast;
wire                      diag_wvalid;
wire                      diag_wready;
wire                      diag_bvalid;
wire                      diag_bready;

// the VI engine's read masters (TX fetch, TX data, RX fetch) and write
// masters (TX write-back, RX)
wire [3*DMA_ID_WIDTH-1:0]   v_arid;
wire [3*DMA_ADDR_WIDTH-1:0] v_araddr;
wire [3*8-1:0]              v_arlen;
wire [3*3-1:0]              v_arsize;
wire [3*2-1:0]              v_arburst;
wire [2:0]                  v_arlock;
wire [3*4-1:0]              v_arcache;
wire [3*3-1:0]              v_arprot;
wire [2:0]                  v_arvalid;
wire [2:0]                  v_arready;
wire [2:0]                  v_rvalid;
wire [2:0]                  v_rready;
wire [3*DMA_ID_WIDTH-1:0]   v_awid;
wire [3*DMA_ADDR_WIDTH-1:0] v_awaddr;
wire [3*8-1:0]              v_awlen;
wire [3*3-1:0]              v_awsize;
wire [3*2-1:0]              v_awburst;
wire [2:0]                  v_awlock;
wire [3*4-1:0]              v_awcache;
wire [3*3-1:0]              v_awprot;
wire [2:0]                  v_awvalid;
wire [2:0]                  v_awready;
wire [3*DATA_WIDTH-1:0]     v_wdata;
wire [3*DATA_WIDTH/8-1:0]   v_wstrb;
wire [2:0]                  v_wlast;
wire [2:0]                  v_wvalid;
wire [2:0]                  v_wready;
wire [2:0]                  v_bvalid;
wire [2:0]                  v_bready;
wire [4:0]                  rd_mux_busy;
wire [3:0]                  wr_mux_busy;

// the VI engine's frames (through via_net)
wire [DATA_WIDTH-1:0]   etx_tdata;
wire [DATA_WIDTH/8-1:0] etx_tkeep;
wire                    etx_tvalid;
wire                    etx_tready;
wire                    etx_tlast;
wire [DATA_WIDTH-1:0]   erx_tdata;
wire [DATA_WIDTH/8-1:0] erx_tkeep;
wire                    erx_tvalid;
wire                    erx_tready;
wire                    erx_tlast;
wire                    net_e_busy;

wire                    vi_busy;
wire                    vi_done_pulse;
wire                    vi_aerr_pulse;
wire [7:0]              vi_evt_irq;
wire                    vi_evt_busy;
wire [1:0]              vi_inflight_epoch;
wire [1:0]              diag_inflight_epoch;

// the VI context port (firmware -> VI engine)
wire        vctx_valid;
wire [15:0] vctx_q_vi;
wire [1:0]  vctx_queued;
// reliable connections the data path found broken (VI_CTX_BREAK)
wire        vbrk_valid, vbrk_new, vbrk_clr;
wire [15:0] vbrk_vi, vbrk_clr_vi;
wire        vctx_ready;
wire [15:0] vctx_vi;
wire        vctx_enable;
wire [1:0]  vctx_state;
wire        vctx_reset_q;
wire        vctx_rdma_write;
wire        vctx_rdma_read;
wire        vctx_reliable;
wire [15:0] vctx_ptag;
wire [31:0] vctx_max_transfer;
wire [23:0] vctx_peer;

// the read masters: the diagnostic engine and the TPT
wire [DMA_ID_WIDTH-1:0]   diag_arid;
wire [DMA_ADDR_WIDTH-1:0] diag_araddr;
wire [7:0]                diag_arlen;
wire [2:0]                diag_arsize;
wire [1:0]                diag_arburst;
wire                      diag_arlock;
wire [3:0]                diag_arcache;
wire [2:0]                diag_arprot;
wire                      diag_arvalid;
wire                      diag_arready;
wire                      diag_rvalid;
wire                      diag_rready;
wire [DMA_ID_WIDTH-1:0]   tpt_arid;
wire [DMA_ADDR_WIDTH-1:0] tpt_araddr;
wire [7:0]                tpt_arlen;
wire [2:0]                tpt_arsize;
wire [1:0]                tpt_arburst;
wire                      tpt_arvalid;
wire                      tpt_arready;
wire                      tpt_rvalid;
wire                      tpt_rready;
wire                      tpt_rd_busy;

// control processor wiring
wire        cpu_run;
wire        cpu_host_en;
wire        cpu_host_we;
wire        cpu_host_sel;
wire [15:0] cpu_host_addr;
wire [31:0] cpu_host_wdata;
wire [31:0] cpu_host_rdata;
wire        cpu_host_rvalid;
wire        cpu_halted;
wire        cpu_wfi;
wire [4:0]  cpu_trap_cause;
wire [31:0] cpu_trap_pc;
wire [31:0] cpu_trap_val;
wire [31:0] cpu_pc;
/* verilator lint_off UNUSEDSIGNAL */
// CPU_RETIRED reports the low 32 bits
wire [63:0] cpu_retired;
/* verilator lint_on UNUSEDSIGNAL */
wire        per_valid;
wire        per_we;
wire [15:0] per_addr;
wire [31:0] per_wdata;
wire [3:0]  per_wstrb;
wire        per_ready;
wire [31:0] per_rdata;
wire        per_err;
wire        cpu_irq_wake;
wire [31:0] fw_ready;
wire        fw_log_push;
wire [31:0] fw_log_data;
wire [15:0] fw_log_space;
wire        fw_admin_event;
wire        fw_admin_complete;
wire        fw_cmd_en;
wire [5:0]  fw_cmd_addr;
wire [31:0] fw_cmd_rdata;
wire        fw_rsp_en;
wire [3:0]  fw_rsp_we;
wire [5:0]  fw_rsp_addr;
wire [31:0] fw_rsp_wdata;
wire [31:0] fw_rsp_rdata;
wire        fw_bar_rd_en;
wire [9:0]  fw_bar_rd_addr;
wire        fw_bar_rd_ack;
wire [31:0] fw_bar_rd_data;
wire        fw_bar_rd_err;
wire        regfile_busy;
/* verilator lint_off UNUSEDSIGNAL */
// the event FIFO's level is irq_wake; kept for waveforms and benches
wire        per_ev_pending;
/* verilator lint_on UNUSEDSIGNAL */
wire        per_timer_armed;
wire        per_busy;
// connection management: CONNECT messages between the firmware and the
// network block (via_net), and the firmware's host event
wire         cm_rx_valid, cm_rx_ready;
wire [7:0]   cm_rx_node;
wire [15:0]  cm_rx_vi, cm_rx_dst_vi;
wire [255:0] cm_rx_data;
wire         cm_tx_valid, cm_tx_ready;
wire [7:0]   cm_tx_node;
wire [15:0]  cm_tx_dst_vi, cm_tx_src_vi;
wire [255:0] cm_tx_data;
wire         fw_host_event;
wire         fw_aerr_push;      // the firmware's AERR_PUSH (CONN_LOST)
wire [23:0]  fw_aerr_data;

// the core and its peripherals run only with RUN=1 outside any reset
wire cpu_rst = blk_rst || !cpu_run;

// hardware interrupt causes: the diagnostic engine's completion, the VI
// engine's descriptor completions and asynchronous errors, the firmware's
// HOST_EVENT, the interrupt vectors of via_evt (the control
// processor's other causes are raised inside via_regfile)
reg [NUM_IRQ-1:0] irq_set;
integer ev;

always @* begin
    irq_set = {NUM_IRQ{1'b0}};
    irq_set[`VIA_IRQ_STATUS_DIAG_DONE_LSB] = diag_done_pulse;
    if (NUM_IRQ > `VIA_IRQ_STATUS_VI_DONE_LSB) begin
        irq_set[`VIA_IRQ_STATUS_VI_DONE_LSB % NUM_IRQ] = vi_done_pulse;
    end
    if (NUM_IRQ > `VIA_IRQ_STATUS_FW_EVENT_LSB) begin
        irq_set[`VIA_IRQ_STATUS_FW_EVENT_LSB % NUM_IRQ] = fw_host_event;
    end
    if (NUM_IRQ > `VIA_IRQ_STATUS_ASYNC_ERR_LSB) begin
        irq_set[`VIA_IRQ_STATUS_ASYNC_ERR_LSB % NUM_IRQ] = vi_aerr_pulse;
    end
    for (ev = 0; ev < 8; ev = ev + 1) begin
        if (NUM_IRQ > `VIA_IRQ_STATUS_VEC_LSB + ev) begin
            irq_set[(`VIA_IRQ_STATUS_VEC_LSB + ev) % NUM_IRQ] = vi_evt_irq[ev];
        end
    end
end

via_regfile #(
    .ADDR_WIDTH(AXIL_ADDR_WIDTH),
    .NUM_VI(NUM_VI),
    .NUM_IRQ(NUM_IRQ),
    .FW_LOG_DEPTH(FW_LOG_DEPTH),
    .EXT_BLOCKS(EXT_BLOCKS),
    .VI_WIDTH(VI_WIDTH),
    .DB_OFFSET_WIDTH(DB_OFFSET_WIDTH)
) regfile_inst (
    .clk(clk),
    .rst(blk_rst),
    .reset_busy(soft_reset_busy),
    .reg_wr_addr(reg_wr_addr),
    .reg_wr_data(reg_wr_data),
    .reg_wr_strb(reg_wr_strb),
    .reg_wr_en(reg_wr_en),
    .reg_wr_ack(reg_wr_ack),
    .reg_wr_resp(reg_wr_resp),
    .reg_rd_addr(reg_rd_addr),
    .reg_rd_en(reg_rd_en),
    .reg_rd_ack(reg_rd_ack),
    .reg_rd_data(reg_rd_data),
    .reg_rd_resp(reg_rd_resp),
    .db_wr_valid(db_wr_valid),
    .db_wr_ready(db_wr_ready),
    .db_wr_vi(db_wr_vi),
    .db_wr_offset(db_wr_offset),
    .db_wr_data(db_wr_data),
    .db_wr_strb(db_wr_strb),
    .blk_wr_en(blk_wr_en),
    .blk_wr_addr(blk_wr_addr),
    .blk_wr_data(blk_wr_data),
    .blk_wr_strb(blk_wr_strb),
    .blk_wr_hit(blk_wr_hit),
    .blk_rd_en(blk_rd_en),
    .blk_rd_addr(blk_rd_addr),
    .blk_rd_fire(blk_rd_fire),
    .blk_rd_hit(blk_rd_hit),
    .blk_rd_data(blk_rd_data),
    .cpu_run(cpu_run),
    .cpu_host_en(cpu_host_en),
    .cpu_host_we(cpu_host_we),
    .cpu_host_sel(cpu_host_sel),
    .cpu_host_addr(cpu_host_addr),
    .cpu_host_wdata(cpu_host_wdata),
    .cpu_host_rdata(cpu_host_rdata),
    .cpu_host_rvalid(cpu_host_rvalid),
    .cpu_halted(cpu_halted),
    .cpu_wfi(cpu_wfi),
    .cpu_trap_cause(cpu_trap_cause),
    .cpu_trap_pc(cpu_trap_pc),
    .cpu_trap_val(cpu_trap_val),
    .cpu_pc(cpu_pc),
    .cpu_retired(cpu_retired[31:0]),
    .fw_ready(fw_ready),
    .fw_log_push(fw_log_push),
    .fw_log_data(fw_log_data),
    .fw_log_space(fw_log_space),
    .fw_admin_event(fw_admin_event),
    .fw_admin_complete(fw_admin_complete),
    .fw_cmd_en(fw_cmd_en),
    .fw_cmd_addr(fw_cmd_addr),
    .fw_cmd_rdata(fw_cmd_rdata),
    .fw_rsp_en(fw_rsp_en),
    .fw_rsp_we(fw_rsp_we),
    .fw_rsp_addr(fw_rsp_addr),
    .fw_rsp_wdata(fw_rsp_wdata),
    .fw_rsp_rdata(fw_rsp_rdata),
    .fw_bar_rd_en(fw_bar_rd_en),
    .fw_bar_rd_addr(fw_bar_rd_addr),
    .fw_bar_rd_ack(fw_bar_rd_ack),
    .fw_bar_rd_data(fw_bar_rd_data),
    .fw_bar_rd_err(fw_bar_rd_err),
    .busy(regfile_busy),
    .irq_set(irq_set),
    .irq(irq)
);

// BAR0 block `nic`: identification, capabilities, SCRATCH, CTRL, STATUS
via_nic_ctrl #(
    .ADDR_WIDTH(AXIL_ADDR_WIDTH),
    .NUM_VI(NUM_VI),
    .NUM_IRQ(NUM_IRQ),
    .DATA_WIDTH(DATA_WIDTH),
    .DMA_ADDR_WIDTH(DMA_ADDR_WIDTH),
    .DMA_ID_WIDTH(DMA_ID_WIDTH),
    .DMA_MAX_BURST(DMA_MAX_BURST),
    .DMA_MAX_OUTSTANDING(DMA_MAX_OUTSTANDING),
    .NET_FIFO_DEPTH(NET_FIFO_DEPTH),
    .SOFT_RESET_CYCLES(SOFT_RESET_CYCLES),
    .CPU_IMEM_BYTES(CPU_IMEM_BYTES),
    .CPU_DMEM_BYTES(CPU_DMEM_BYTES),
    .TPT_REGIONS(TPT_REGIONS),
    .TPT_CACHE_ENTRIES(TPT_CACHE_ENTRIES),
    .MAX_DESC(MAX_DESC),
    .MAX_SEGS(MAX_SEGS)
) nic_ctrl_inst (
    .clk(clk),
    .rst(blk_rst),
    .wr_en(blk_wr_en),
    .wr_addr(blk_wr_addr),
    .wr_data(blk_wr_data),
    .wr_strb(blk_wr_strb),
    .wr_hit(blk_wr_hit[EXT_NIC]),
    .rd_en(blk_rd_en),
    .rd_addr(blk_rd_addr),
    .rd_fire(blk_rd_fire),
    .rd_hit(blk_rd_hit[EXT_NIC]),
    .rd_data(blk_rd_data[32*EXT_NIC +: 32]),
    .soft_reset_req(soft_reset_req),
    .node_id(node_id),
    .reset_busy(soft_reset_busy)
);

// ------------------------------------------------------------ control processor

/* verilator lint_off UNUSEDSIGNAL */
// fault equals halted
wire cpu_fault;
/* verilator lint_on UNUSEDSIGNAL */

via_cpu #(
    .IMEM_BYTES(CPU_IMEM_BYTES),
    .DMEM_BYTES(CPU_DMEM_BYTES)
) cpu_inst (
    .clk(clk),
    .rst(cpu_rst),
    .host_en(cpu_host_en),
    .host_we(cpu_host_we),
    .host_sel(cpu_host_sel),
    .host_addr(cpu_host_addr),
    .host_wdata(cpu_host_wdata),
    .host_rdata(cpu_host_rdata),
    .host_rvalid(cpu_host_rvalid),
    .per_valid(per_valid),
    .per_we(per_we),
    .per_addr(per_addr),
    .per_wdata(per_wdata),
    .per_wstrb(per_wstrb),
    .per_ready(per_ready),
    .per_rdata(per_rdata),
    .per_err(per_err),
    .irq_wake(cpu_irq_wake),
    .halted(cpu_halted),
    .fault(cpu_fault),
    .wfi(cpu_wfi),
    .trap_cause(cpu_trap_cause),
    .trap_pc(cpu_trap_pc),
    .trap_val(cpu_trap_val),
    .pc(cpu_pc),
    .retired(cpu_retired)
);

via_cpu_periph #(
    .EVENT_DEPTH(FW_EVENT_DEPTH)
) cpu_periph_inst (
    .clk(clk),
    .rst(cpu_rst),
    .per_valid(per_valid),
    .per_we(per_we),
    .per_addr(per_addr),
    .per_wdata(per_wdata),
    .per_wstrb(per_wstrb),
    .per_ready(per_ready),
    .per_rdata(per_rdata),
    .per_err(per_err),
    .irq_wake(cpu_irq_wake),
    .time_cycles(time_cycles),
    .admin_event(fw_admin_event),
    .admin_complete(fw_admin_complete),
    .ready(fw_ready),
    .log_push(fw_log_push),
    .log_data(fw_log_data),
    .log_space(fw_log_space),
    .cmd_en(fw_cmd_en),
    .cmd_addr(fw_cmd_addr),
    .cmd_rdata(fw_cmd_rdata),
    .rsp_en(fw_rsp_en),
    .rsp_we(fw_rsp_we),
    .rsp_addr(fw_rsp_addr),
    .rsp_wdata(fw_rsp_wdata),
    .rsp_rdata(fw_rsp_rdata),
    .bar_rd_en(fw_bar_rd_en),
    .bar_rd_addr(fw_bar_rd_addr),
    .bar_rd_ack(fw_bar_rd_ack),
    .bar_rd_data(fw_bar_rd_data),
    .bar_rd_err(fw_bar_rd_err),
    .tpt_prog_valid(tpt_prog_valid),
    .tpt_prog_op(tpt_prog_op),
    .tpt_prog_index(tpt_prog_index),
    .tpt_prog_va(tpt_prog_va),
    .tpt_prog_len(tpt_prog_len),
    .tpt_prog_ptag(tpt_prog_ptag),
    .tpt_prog_rdma_write(tpt_prog_rdma_write),
    .tpt_prog_rdma_read(tpt_prog_rdma_read),
    .tpt_prog_pl(tpt_prog_pl),
    .tpt_prog_busy(tpt_prog_busy),
    .tpt_prog_rd_va(tpt_prog_rd_va),
    .tpt_prog_rd_len(tpt_prog_rd_len),
    .tpt_prog_rd_ptag(tpt_prog_rd_ptag),
    .tpt_prog_rd_rdma_write(tpt_prog_rd_rdma_write),
    .tpt_prog_rd_rdma_read(tpt_prog_rd_rdma_read),
    .tpt_prog_rd_pl(tpt_prog_rd_pl),
    .tpt_prog_rd_valid(tpt_prog_rd_valid),
    .tpt_prog_rd_gen(tpt_prog_rd_gen),
    .ctx_valid(vctx_valid),
    .ctx_ready(vctx_ready),
    .ctx_vi(vctx_vi),
    .ctx_enable(vctx_enable),
    .ctx_state(vctx_state),
    .ctx_reset_q(vctx_reset_q),
    .ctx_rdma_write(vctx_rdma_write),
    .ctx_rdma_read(vctx_rdma_read),
    .ctx_reliable(vctx_reliable),
    .ctx_ptag(vctx_ptag),
    .ctx_max_transfer(vctx_max_transfer),
    .ctx_peer(vctx_peer),
    .ctx_q_vi(vctx_q_vi),
    .ctx_queued(vctx_queued),
    .cm_rx_valid(cm_rx_valid),
    .cm_rx_ready(cm_rx_ready),
    .cm_rx_node(cm_rx_node),
    .cm_rx_vi(cm_rx_vi),
    .cm_rx_dst_vi(cm_rx_dst_vi),
    .cm_rx_data(cm_rx_data),
    .cm_tx_valid(cm_tx_valid),
    .cm_tx_ready(cm_tx_ready),
    .cm_tx_node(cm_tx_node),
    .cm_tx_dst_vi(cm_tx_dst_vi),
    .cm_tx_src_vi(cm_tx_src_vi),
    .cm_tx_data(cm_tx_data),
    .host_event(fw_host_event),
    .aerr_push(fw_aerr_push),
    .aerr_push_data(fw_aerr_data),
    .brk_valid(vbrk_valid),
    .brk_vi(vbrk_vi),
    .brk_new(vbrk_new),
    .brk_clr(vbrk_clr),
    .brk_clr_vi(vbrk_clr_vi),
    .ev_pending(per_ev_pending),
    .timer_armed(per_timer_armed),
    .busy(per_busy)
);

assign fw_log_valid = fw_log_push;
assign fw_log_word  = fw_log_data;

// ------------------------------------------------------------ soft reset

via_soft_reset #(
    .CYCLES(SOFT_RESET_CYCLES)
) soft_reset_inst (
    .clk(clk),
    .rst(rst),
    .req(soft_reset_req),
    .busy(soft_reset_busy),
    .blk_rst(soft_blk_rst),
    .dma_abort(soft_dma_abort),
    .dma_busy(diag_busy || probe_busy || lk_pending || tpt_rd_busy || lk_arb_busy || vi_busy ||
              (|rd_mux_busy) || (|wr_mux_busy)),
    .m_axi_awvalid(m_axi_awvalid),
    .m_axi_awready(m_axi_awready),
    .m_axi_wvalid(m_axi_wvalid),
    .m_axi_wready(m_axi_wready),
    .m_axi_wlast(m_axi_wlast),
    .m_axi_bvalid(m_axi_bvalid),
    .m_axi_bready(m_axi_bready),
    .m_axi_arvalid(m_axi_arvalid),
    .m_axi_arready(m_axi_arready),
    .m_axi_rvalid(m_axi_rvalid),
    .m_axi_rready(m_axi_rready),
    .m_axi_rlast(m_axi_rlast),
    .net_stalled(m_axis_tvalid && !m_axis_tready)
);

// ------------------------------------------------------------ DMA diagnostics

via_dma_diag #(
    .DATA_WIDTH(DATA_WIDTH),
    .ADDR_WIDTH(DMA_ADDR_WIDTH),
    .ID_WIDTH(DMA_ID_WIDTH),
    .MAX_BURST(DMA_MAX_BURST),
    .MAX_OUTSTANDING(DMA_MAX_OUTSTANDING)
) dma_diag_inst (
    .clk(clk),
    .rst(blk_rst),
    .wr_en(blk_wr_en),
    .wr_addr(blk_wr_addr),
    .wr_data(blk_wr_data),
    .wr_strb(blk_wr_strb),
    .wr_hit(blk_wr_hit[EXT_DIAG]),
    .rd_en(blk_rd_en),
    .rd_addr(blk_rd_addr),
    .rd_fire(blk_rd_fire),
    .rd_hit(blk_rd_hit[EXT_DIAG]),
    .rd_data(blk_rd_data[32*EXT_DIAG +: 32]),
    .ext_abort(soft_dma_abort),
    .busy(diag_busy),
    .start_pulse(diag_start),
    .done_pulse(diag_done_pulse),
    .lk_valid(dlk_valid),
    .lk_ready(dlk_ready),
    .lk_handle(dlk_handle),
    .lk_va(dlk_va),
    .lk_len(dlk_len),
    .lk_ptag(dlk_ptag),
    .lk_kind(dlk_kind),
    .lk_tag(dlk_tag),
    .rs_valid(drs_valid),
    .rs_ready(drs_ready),
    .rs_err(drs_err),
    .rs_pa(drs_pa),
    .rs_bytes(drs_bytes),
    .rs_hit(drs_hit),
    .rs_epoch(drs_epoch),
    .rs_tag(drs_tag),
    .inflight_epoch(diag_inflight_epoch),
    .m_axi_awid(diag_awid),
    .m_axi_awaddr(diag_awaddr),
    .m_axi_awlen(diag_awlen),
    .m_axi_awsize(diag_awsize),
    .m_axi_awburst(diag_awburst),
    .m_axi_awlock(diag_awlock),
    .m_axi_awcache(diag_awcache),
    .m_axi_awprot(diag_awprot),
    .m_axi_awvalid(diag_awvalid),
    .m_axi_awready(diag_awready),
    .m_axi_wdata(diag_wdata),
    .m_axi_wstrb(diag_wstrb),
    .m_axi_wlast(diag_wlast),
    .m_axi_wvalid(diag_wvalid),
    .m_axi_wready(diag_wready),
    .m_axi_bid(m_axi_bid),
    .m_axi_bresp(m_axi_bresp),
    .m_axi_bvalid(diag_bvalid),
    .m_axi_bready(diag_bready),
    .m_axi_arid(diag_arid),
    .m_axi_araddr(diag_araddr),
    .m_axi_arlen(diag_arlen),
    .m_axi_arsize(diag_arsize),
    .m_axi_arburst(diag_arburst),
    .m_axi_arlock(diag_arlock),
    .m_axi_arcache(diag_arcache),
    .m_axi_arprot(diag_arprot),
    .m_axi_arvalid(diag_arvalid),
    .m_axi_arready(diag_arready),
    .m_axi_rid(m_axi_rid),
    .m_axi_rdata(m_axi_rdata),
    .m_axi_rresp(m_axi_rresp),
    .m_axi_rlast(m_axi_rlast),
    .m_axi_rvalid(diag_rvalid),
    .m_axi_rready(diag_rready)
);

// ------------------------------------------------------------ translation and protection table

via_tpt #(
    .REGIONS(TPT_REGIONS),
    .CACHE_ENTRIES(TPT_CACHE_ENTRIES),
    .ADDR_WIDTH(DMA_ADDR_WIDTH),
    .DATA_WIDTH(DATA_WIDTH),
    .ID_WIDTH(DMA_ID_WIDTH),
    .FETCH_ID(TPT_FETCH_ID),
    .TAG_WIDTH(TPT_TAG_WIDTH)
) tpt_inst (
    .clk(clk),
    .rst(blk_rst),
    .prog_valid(tpt_prog_valid),
    .prog_op(tpt_prog_op),
    .prog_index(tpt_prog_index),
    .prog_va(tpt_prog_va),
    .prog_len(tpt_prog_len),
    .prog_ptag(tpt_prog_ptag),
    .prog_rdma_write(tpt_prog_rdma_write),
    .prog_rdma_read(tpt_prog_rdma_read),
    .prog_pl(tpt_prog_pl),
    .prog_busy(tpt_prog_busy),
    .prog_rd_va(tpt_prog_rd_va),
    .prog_rd_len(tpt_prog_rd_len),
    .prog_rd_ptag(tpt_prog_rd_ptag),
    .prog_rd_rdma_write(tpt_prog_rd_rdma_write),
    .prog_rd_rdma_read(tpt_prog_rd_rdma_read),
    .prog_rd_pl(tpt_prog_rd_pl),
    .prog_rd_valid(tpt_prog_rd_valid),
    .prog_rd_gen(tpt_prog_rd_gen),
    .lk_valid(tpt_lk_valid),
    .lk_ready(tpt_lk_ready),
    .lk_handle(tpt_lk_handle),
    .lk_va(tpt_lk_va),
    .lk_len(tpt_lk_len),
    .lk_ptag(tpt_lk_ptag),
    .lk_kind(tpt_lk_kind),
    .lk_tag(tpt_lk_tag),
    .rs_valid(tpt_rs_valid),
    .rs_ready(tpt_rs_ready),
    .rs_err(tpt_rs_err),
    .rs_pa(tpt_rs_pa),
    .rs_bytes(tpt_rs_bytes),
    .rs_hit(tpt_rs_hit),
    .rs_epoch(tpt_rs_epoch),
    .rs_tag(tpt_rs_tag),
    .inflight_epoch(tpt_inflight_epoch),
    .m_axi_arid(tpt_arid),
    .m_axi_araddr(tpt_araddr),
    .m_axi_arlen(tpt_arlen),
    .m_axi_arsize(tpt_arsize),
    .m_axi_arburst(tpt_arburst),
    .m_axi_arvalid(tpt_arvalid),
    .m_axi_arready(tpt_arready),
    .m_axi_rid(m_axi_rid),
    .m_axi_rdata(m_axi_rdata),
    .m_axi_rresp(m_axi_rresp),
    .m_axi_rlast(m_axi_rlast),
    .m_axi_rvalid(tpt_rvalid),
    .m_axi_rready(tpt_rready),
    .st_lookup(tpt_st_lookup),
    .st_hit(tpt_st_hit),
    .st_miss(tpt_st_miss),
    .st_error(tpt_st_error)
);

via_tpt_probe #(
    .ADDR_WIDTH(DMA_ADDR_WIDTH),
    .TAG_WIDTH(TPT_TAG_WIDTH)
) tpt_probe_inst (
    .clk(clk),
    .rst(blk_rst),
    .wr_en(blk_wr_en),
    .wr_addr(blk_wr_addr),
    .wr_data(blk_wr_data),
    .wr_strb(blk_wr_strb),
    .wr_hit(blk_wr_hit[EXT_TPT]),
    .rd_en(blk_rd_en),
    .rd_addr(blk_rd_addr),
    .rd_fire(blk_rd_fire),
    .rd_hit(blk_rd_hit[EXT_TPT]),
    .rd_data(blk_rd_data[32*EXT_TPT +: 32]),
    .d_lk_valid(elk_valid),
    .d_lk_ready(elk_ready),
    .d_lk_handle(elk_handle),
    .d_lk_va(elk_va),
    .d_lk_len(elk_len),
    .d_lk_ptag(elk_ptag),
    .d_lk_kind(elk_kind),
    .d_lk_tag(elk_tag),
    .d_rs_valid(ers_valid),
    .d_rs_ready(ers_ready),
    .d_rs_err(ers_err),
    .d_rs_pa(ers_pa),
    .d_rs_bytes(ers_bytes),
    .d_rs_hit(ers_hit),
    .d_rs_epoch(ers_epoch),
    .d_rs_tag(ers_tag),
    .lk_valid(tpt_lk_valid),
    .lk_ready(tpt_lk_ready),
    .lk_handle(tpt_lk_handle),
    .lk_va(tpt_lk_va),
    .lk_len(tpt_lk_len),
    .lk_ptag(tpt_lk_ptag),
    .lk_kind(tpt_lk_kind),
    .lk_tag(tpt_lk_tag),
    .rs_valid(tpt_rs_valid),
    .rs_ready(tpt_rs_ready),
    .rs_err(tpt_rs_err),
    .rs_pa(tpt_rs_pa),
    .rs_bytes(tpt_rs_bytes),
    .rs_hit(tpt_rs_hit),
    .rs_epoch(tpt_rs_epoch),
    .rs_tag(tpt_rs_tag),
    .st_lookup(tpt_st_lookup),
    .st_hit(tpt_st_hit),
    .st_miss(tpt_st_miss),
    .st_error(tpt_st_error),
    .busy(probe_busy),
    .lk_pending(lk_pending)
);

// the DMA master's read channels: diagnostic engine (port 0, ID 0), TPT
// page-list fetches (port 1), the VI engine's TX fetch, TX data and RX
// fetch (ports 2..4); R routed by ID
via_axi_rd_mux #(
    .PORTS(5),
    .ADDR_WIDTH(DMA_ADDR_WIDTH),
    .ID_WIDTH(DMA_ID_WIDTH),
    .IDS(RD_IDS)
) rd_mux_inst (
    .clk(clk),
    .rst(blk_rst),
    .s_axi_arid({v_arid, tpt_arid, diag_arid}),
    .s_axi_araddr({v_araddr, tpt_araddr, diag_araddr}),
    .s_axi_arlen({v_arlen, tpt_arlen, diag_arlen}),
    .s_axi_arsize({v_arsize, tpt_arsize, diag_arsize}),
    .s_axi_arburst({v_arburst, tpt_arburst, diag_arburst}),
    .s_axi_arlock({v_arlock, 1'b0, diag_arlock}),
    .s_axi_arcache({v_arcache, 4'b0011, diag_arcache}),
    .s_axi_arprot({v_arprot, 3'b010, diag_arprot}),
    .s_axi_arvalid({v_arvalid, tpt_arvalid, diag_arvalid}),
    .s_axi_arready({v_arready, tpt_arready, diag_arready}),
    .s_axi_rvalid({v_rvalid, tpt_rvalid, diag_rvalid}),
    .s_axi_rready({v_rready, tpt_rready, diag_rready}),
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
    .m_axi_rlast(m_axi_rlast),
    .m_axi_rvalid(m_axi_rvalid),
    .m_axi_rready(m_axi_rready),
    .busy(rd_mux_busy)
);

assign tpt_rd_busy = rd_mux_busy[1];

// the DMA master's write channels: diagnostic engine (port 0), the VI
// engine's TX write-backs (port 1), RX writes (port 2) and CQ entries
// (port 3); W in AW order, B routed by ID
via_axi_wr_mux #(
    .PORTS(4),
    .ADDR_WIDTH(DMA_ADDR_WIDTH),
    .DATA_WIDTH(DATA_WIDTH),
    .ID_WIDTH(DMA_ID_WIDTH),
    .IDS(WR_IDS)
) wr_mux_inst (
    .clk(clk),
    .rst(blk_rst),
    .s_axi_awid({v_awid, diag_awid}),
    .s_axi_awaddr({v_awaddr, diag_awaddr}),
    .s_axi_awlen({v_awlen, diag_awlen}),
    .s_axi_awsize({v_awsize, diag_awsize}),
    .s_axi_awburst({v_awburst, diag_awburst}),
    .s_axi_awlock({v_awlock, diag_awlock}),
    .s_axi_awcache({v_awcache, diag_awcache}),
    .s_axi_awprot({v_awprot, diag_awprot}),
    .s_axi_awvalid({v_awvalid, diag_awvalid}),
    .s_axi_awready({v_awready, diag_awready}),
    .s_axi_wdata({v_wdata, diag_wdata}),
    .s_axi_wstrb({v_wstrb, diag_wstrb}),
    .s_axi_wlast({v_wlast, diag_wlast}),
    .s_axi_wvalid({v_wvalid, diag_wvalid}),
    .s_axi_wready({v_wready, diag_wready}),
    .s_axi_bvalid({v_bvalid, diag_bvalid}),
    .s_axi_bready({v_bready, diag_bready}),
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
    .m_axi_bvalid(m_axi_bvalid),
    .m_axi_bready(m_axi_bready),
    .busy(wr_mux_busy)
);

// TPT lookups: the diagnostic engine (port 0) and the VI engine's four
// requesters (ports 1..4) share via_tpt_probe's engine port
via_lk_arb #(
    .PORTS(LK_PORTS),
    .ADDR_WIDTH(DMA_ADDR_WIDTH),
    .TAG_WIDTH(1)
) lk_arb_inst (
    .clk(clk),
    .rst(blk_rst),
    .s_lk_valid({vlk_valid, dlk_valid}),
    .s_lk_ready({vlk_ready, dlk_ready}),
    .s_lk_handle({vlk_handle, dlk_handle}),
    .s_lk_va({vlk_va, dlk_va}),
    .s_lk_len({vlk_len, dlk_len}),
    .s_lk_ptag({vlk_ptag, dlk_ptag}),
    .s_lk_kind({vlk_kind, dlk_kind}),
    .s_lk_tag({4'b0000, dlk_tag}),
    .s_rs_valid({vrs_valid, drs_valid}),
    .s_rs_ready({vrs_ready, drs_ready}),
    .s_rs_err(alk_rs_err),
    .s_rs_pa(alk_rs_pa),
    .s_rs_bytes(alk_rs_bytes),
    .s_rs_hit(alk_rs_hit),
    .s_rs_epoch(alk_rs_epoch),
    .s_rs_tag(alk_rs_tag),
    .m_lk_valid(elk_valid),
    .m_lk_ready(elk_ready),
    .m_lk_handle(elk_handle),
    .m_lk_va(elk_va),
    .m_lk_len(elk_len),
    .m_lk_ptag(elk_ptag),
    .m_lk_kind(elk_kind),
    .m_lk_tag(elk_tag),
    .m_rs_valid(ers_valid),
    .m_rs_ready(ers_ready),
    .m_rs_err(ers_err),
    .m_rs_pa(ers_pa),
    .m_rs_bytes(ers_bytes),
    .m_rs_hit(ers_hit),
    .m_rs_epoch(ers_epoch),
    .m_rs_tag(ers_tag),
    .busy(lk_arb_busy)
);

assign drs_err   = alk_rs_err[2:0];
assign drs_pa    = alk_rs_pa[DMA_ADDR_WIDTH-1:0];
assign drs_bytes = alk_rs_bytes[12:0];
assign drs_hit   = alk_rs_hit[0];
assign drs_epoch = alk_rs_epoch[0];
assign drs_tag   = alk_rs_tag[0];

// every DMA unit's hold on a translation epoch (the DEREGISTER fence)
assign tpt_inflight_epoch = diag_inflight_epoch | vi_inflight_epoch;

// ------------------------------------------------------------ VI engine

via_vi_engine #(
    .DATA_WIDTH(DATA_WIDTH),
    .ADDR_WIDTH(DMA_ADDR_WIDTH),
    .ID_WIDTH(DMA_ID_WIDTH),
    .NUM_VI(NUM_VI),
    .VI_WIDTH(VI_WIDTH),
    .MAX_DESC(MAX_DESC),
    .MAX_SEGS(MAX_SEGS),
    .MAX_BURST(DMA_MAX_BURST),
    .TX_FETCH_ID(TXF_ID),
    .TX_DATA_ID(TXD_ID),
    .RX_FETCH_ID(RXF_ID),
    .RX_WR_ID(RXW_ID),
    .CQ_WR_ID(CQW_ID)
) vi_engine_inst (
    .clk(clk),
    .rst(blk_rst),
    .wr_en(blk_wr_en),
    .wr_addr(blk_wr_addr),
    .wr_data(blk_wr_data),
    .wr_strb(blk_wr_strb),
    .wr_hit(blk_wr_hit[EXT_VI]),
    .rd_en(blk_rd_en),
    .rd_addr(blk_rd_addr),
    .rd_fire(blk_rd_fire),
    .rd_hit(blk_rd_hit[EXT_VI]),
    .rd_data(blk_rd_data[32*EXT_VI +: 32]),
    .db_wr_valid(db_wr_valid),
    .db_wr_ready(db_wr_ready),
    .db_wr_vi(db_wr_vi),
    .db_wr_offset(db_wr_offset),
    .db_wr_data(db_wr_data),
    .db_wr_strb(db_wr_strb),
    .ctx_valid(vctx_valid),
    .ctx_ready(vctx_ready),
    .ctx_vi(vctx_vi),
    .ctx_enable(vctx_enable),
    .ctx_state(vctx_state),
    .ctx_reset_q(vctx_reset_q),
    .ctx_rdma_write(vctx_rdma_write),
    .ctx_rdma_read(vctx_rdma_read),
    .ctx_reliable(vctx_reliable),
    .ctx_ptag(vctx_ptag),
    .ctx_max_transfer(vctx_max_transfer),
    .ctx_peer(vctx_peer),
    .ctx_q_vi(vctx_q_vi),
    .ctx_queued(vctx_queued),
    .brk_valid(vbrk_valid),
    .brk_vi(vbrk_vi),
    .brk_new(vbrk_new),
    .brk_clr(vbrk_clr),
    .brk_clr_vi(vbrk_clr_vi),
    .lk_valid(vlk_valid),
    .lk_ready(vlk_ready),
    .lk_handle(vlk_handle),
    .lk_va(vlk_va),
    .lk_len(vlk_len),
    .lk_ptag(vlk_ptag),
    .lk_kind(vlk_kind),
    .rs_valid(vrs_valid),
    .rs_ready(vrs_ready),
    .rs_err(alk_rs_err[LK_PORTS*3-1:3]),
    .rs_pa(alk_rs_pa[LK_PORTS*DMA_ADDR_WIDTH-1:DMA_ADDR_WIDTH]),
    .rs_bytes(alk_rs_bytes[LK_PORTS*13-1:13]),
    .rs_hit(alk_rs_hit[LK_PORTS-1:1]),
    .rs_epoch(alk_rs_epoch[LK_PORTS-1:1]),
    .inflight_epoch(vi_inflight_epoch),
    .m_axi_arid(v_arid),
    .m_axi_araddr(v_araddr),
    .m_axi_arlen(v_arlen),
    .m_axi_arsize(v_arsize),
    .m_axi_arburst(v_arburst),
    .m_axi_arlock(v_arlock),
    .m_axi_arcache(v_arcache),
    .m_axi_arprot(v_arprot),
    .m_axi_arvalid(v_arvalid),
    .m_axi_arready(v_arready),
    .m_axi_rid(m_axi_rid),
    .m_axi_rdata(m_axi_rdata),
    .m_axi_rresp(m_axi_rresp),
    .m_axi_rlast(m_axi_rlast),
    .m_axi_rvalid(v_rvalid),
    .m_axi_rready(v_rready),
    .m_axi_awid(v_awid),
    .m_axi_awaddr(v_awaddr),
    .m_axi_awlen(v_awlen),
    .m_axi_awsize(v_awsize),
    .m_axi_awburst(v_awburst),
    .m_axi_awlock(v_awlock),
    .m_axi_awcache(v_awcache),
    .m_axi_awprot(v_awprot),
    .m_axi_awvalid(v_awvalid),
    .m_axi_awready(v_awready),
    .m_axi_wdata(v_wdata),
    .m_axi_wstrb(v_wstrb),
    .m_axi_wlast(v_wlast),
    .m_axi_wvalid(v_wvalid),
    .m_axi_wready(v_wready),
    .m_axi_bid(m_axi_bid),
    .m_axi_bresp(m_axi_bresp),
    .m_axi_bvalid(v_bvalid),
    .m_axi_bready(v_bready),
    .m_axis_tdata(etx_tdata),
    .m_axis_tkeep(etx_tkeep),
    .m_axis_tvalid(etx_tvalid),
    .m_axis_tready(etx_tready),
    .m_axis_tlast(etx_tlast),
    .s_axis_tdata(erx_tdata),
    .s_axis_tkeep(erx_tkeep),
    .s_axis_tvalid(erx_tvalid),
    .s_axis_tready(erx_tready),
    .s_axis_tlast(erx_tlast),
    .abort(soft_dma_abort),
    .busy(vi_busy),
    .done_pulse(vi_done_pulse),
    .aerr_pulse(vi_aerr_pulse),
    .evt_irq(vi_evt_irq),
    .evt_busy(vi_evt_busy),
    .fw_aerr_push(fw_aerr_push),
    .fw_aerr_data(fw_aerr_data)
);

// ------------------------------------------------------------ network port

via_net #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(DATA_WIDTH / 8),
    .FIFO_DEPTH(NET_FIFO_DEPTH)
) net_inst (
    .clk(clk),
    .rst(blk_rst),
    .node_id(node_id),
    .wr_en(blk_wr_en),
    .wr_addr(blk_wr_addr),
    .wr_data(blk_wr_data),
    .wr_strb(blk_wr_strb),
    .wr_hit(blk_wr_hit[EXT_NET]),
    .rd_en(blk_rd_en),
    .rd_addr(blk_rd_addr),
    .rd_fire(blk_rd_fire),
    .rd_hit(blk_rd_hit[EXT_NET]),
    .rd_data(blk_rd_data[32*EXT_NET +: 32]),
    .quiesce(soft_reset_busy),
    .s_axis_tdata(s_axis_tdata),
    .s_axis_tkeep(s_axis_tkeep),
    .s_axis_tvalid(s_axis_tvalid),
    .s_axis_tready(s_axis_tready),
    .s_axis_tlast(s_axis_tlast),
    .m_axis_tdata(m_axis_tdata),
    .m_axis_tkeep(m_axis_tkeep),
    .m_axis_tvalid(m_axis_tvalid),
    .m_axis_tready(m_axis_tready),
    .m_axis_tlast(m_axis_tlast),
    .e_tx_tdata(etx_tdata),
    .e_tx_tkeep(etx_tkeep),
    .e_tx_tvalid(etx_tvalid),
    .e_tx_tready(etx_tready),
    .e_tx_tlast(etx_tlast),
    .e_rx_tdata(erx_tdata),
    .e_rx_tkeep(erx_tkeep),
    .e_rx_tvalid(erx_tvalid),
    .e_rx_tready(erx_tready),
    .e_rx_tlast(erx_tlast),
    .cmt_valid(cm_tx_valid),
    .cmt_ready(cm_tx_ready),
    .cmt_dst_node(cm_tx_node),
    .cmt_dst_vi(cm_tx_dst_vi),
    .cmt_src_vi(cm_tx_src_vi),
    .cmt_data(cm_tx_data),
    .cm_valid(cm_rx_valid),
    .cm_ready(cm_rx_ready),
    .cm_src_node(cm_rx_node),
    .cm_src_vi(cm_rx_vi),
    .cm_dst_vi(cm_rx_dst_vi),
    .cm_data(cm_rx_data),
    .busy(net_e_busy)
);


// ------------------------------------------------------------ idle

// quiet: no block has work and no BAR0 transaction is under way. idle
// requires quiet for IDLE_HOLD cycles in a row, which covers the few cycles a
// command takes to travel from the register file to a block (a START pulse
// reaching the DMA engine, a done pulse reaching IRQ_STATUS and irq, a
// halted core reaching IRQ_STATUS.FW_FAULT).
//
// The control processor is quiet while it is held in reset (its
// peripherals too), halted by a trap (nothing will ever run again until the
// host clears RUN: an event queued or a timer firing meanwhile changes
// nothing anybody can observe), or asleep in WFI with no event queued and no
// timer armed (the time base moves; a simulator that skips cycles must not
// skip past the compare value). It is busy while it runs otherwise and while
// a peripheral access, an admin event, a multi-cycle BAR0 read or a
// log/complete strobe is under way.
//
// The VI engine's interrupt vectors (via_evt) are busy while a moderation
// time limit runs: the interrupt it raises must come at its cycle.
//
// The TPT is quiet when it has no command in progress (prog_busy), no
// lookup is presented or unanswered and no page-list fetch is in flight.
// One exception: the clear of its table after a reset (prog_busy from the
// reset until the first time it falls) is not activity. A simulator that
// skips cycles only delays it; it advances in every cycle that is
// evaluated, and whatever depends on it keeps the NIC busy until it is over
// (a lookup waits with lk_pending, the firmware polls TPT_STATUS). Without
// this a freshly reset node would stay awake for REGIONS cycles on its
// own, and how many of them run before the first client connects would
// depend on the wall clock.
localparam IDLE_HOLD = 4;

// the TPT's table clear after a reset
reg tpt_clearing_reg;

always @(posedge clk) begin
    if (blk_rst) begin
        tpt_clearing_reg <= 1'b1;
    end else if (!tpt_prog_busy) begin
        tpt_clearing_reg <= 1'b0;
    end
end

wire cpu_quiet = (cpu_rst || cpu_halted || (cpu_wfi && !cpu_irq_wake && !per_timer_armed)) &&
                 !per_busy && !regfile_busy && !fw_log_push && !fw_admin_complete;

wire quiet = cpu_quiet &&
             !diag_busy && !diag_start && !diag_done_pulse && !soft_reset_busy && !soft_reset_req &&
             !probe_busy && !lk_pending && !tpt_rd_busy && (!tpt_prog_busy || tpt_clearing_reg) &&
             !lk_arb_busy && !vi_busy && !vi_evt_busy && !net_e_busy && !(|rd_mux_busy) && !(|wr_mux_busy) &&
             !m_axis_tvalid && !s_axis_tvalid &&
             !s_axil_awvalid && !s_axil_wvalid && !s_axil_arvalid &&
             !s_axil_bvalid && !s_axil_rvalid && !reg_wr_en && !reg_rd_en;

reg [IDLE_HOLD-1:0] quiet_hist_reg;

always @(posedge clk) begin
    if (rst) begin
        quiet_hist_reg <= {IDLE_HOLD{1'b0}};
    end else begin
        quiet_hist_reg <= {quiet_hist_reg[IDLE_HOLD-2:0], quiet};
    end
end

assign idle = quiet && &quiet_hist_reg;

endmodule

`default_nettype wire
