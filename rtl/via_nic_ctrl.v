// via_nic_ctrl: BAR0 block `nic`, the registers of the NIC itself.
//
// Registers (rtl/generated/via_bar0_nic_regs.v, instantiated here; the bus
// is the register-block bus of docs/rtl.md, routed by via_regfile):
//   identification and MAP_HASH   constants (the layout's hash)
//   CAP_*                         the build parameters below, as the NIC was
//                                 built (constants)
//   SCRATCH                       rw, no effect on the hardware
//   CTRL.SOFT_RESET               a written 1 becomes a one-cycle pulse on
//                                 soft_reset_req, the cycle after the write
//                                 (for via_soft_reset)
//   STATUS.RESET_BUSY             reset_busy (via_soft_reset's busy)
//
// Timing: the register module's (stored SCRATCH, registered pulse,
// combinational read answer). Reset: rst (the NIC's block reset) returns
// SCRATCH to its reset value.

`timescale 1ns / 1ps
`default_nettype none

`include "via_bar0.vh"
`include "via_param_check.vh"

module via_nic_ctrl #(
    // reported in the CAP_* registers only
    parameter ADDR_WIDTH          = `VIA_DEFAULT_AXIL_ADDR_WIDTH,     // BAR0 address bits (17..32)
    parameter NUM_VI              = `VIA_DEFAULT_NUM_VI,              // doorbell pages (VIs), 1..65535
    parameter NUM_IRQ             = `VIA_DEFAULT_NUM_IRQ,             // interrupt outputs (1..32)
    parameter DATA_WIDTH          = `VIA_DEFAULT_DATA_WIDTH,          // datapath width
    parameter DMA_ADDR_WIDTH      = `VIA_DEFAULT_DMA_ADDR_WIDTH,      // DMA address bits
    parameter DMA_ID_WIDTH        = `VIA_DEFAULT_DMA_ID_WIDTH,        // DMA ID bits
    parameter DMA_MAX_BURST       = `VIA_DEFAULT_DMA_MAX_BURST,       // DMA burst beats
    parameter DMA_MAX_OUTSTANDING = `VIA_DEFAULT_DMA_MAX_OUTSTANDING, // DMA reads in flight
    parameter NET_FIFO_DEPTH      = `VIA_DEFAULT_NET_FIFO_DEPTH,      // loopback FIFO beats
    parameter SOFT_RESET_CYCLES   = `VIA_DEFAULT_SOFT_RESET_CYCLES,   // soft reset hold cycles
    parameter CPU_IMEM_BYTES      = `VIA_DEFAULT_CPU_IMEM_BYTES,      // control processor memories
    parameter CPU_DMEM_BYTES      = `VIA_DEFAULT_CPU_DMEM_BYTES,
    parameter TPT_REGIONS         = `VIA_DEFAULT_TPT_REGIONS,         // TPT regions (reported as log2)
    parameter TPT_CACHE_ENTRIES   = `VIA_DEFAULT_TPT_CACHE_ENTRIES,   // TPT cache entries (reported as log2)
    parameter MAX_DESC            = `VIA_DEFAULT_MAX_DESC,            // MaxDescriptorsPerQueue
    parameter MAX_SEGS            = `VIA_DEFAULT_MAX_SEGS             // MaxSegmentsPerDesc
) (
    input  wire        clk,
    input  wire        rst,

    // register bus (docs/rtl.md, "Register blocks")
    input  wire        wr_en,
    input  wire [15:0] wr_addr,
    input  wire [31:0] wr_data,
    input  wire [3:0]  wr_strb,
    output wire        wr_hit,
    input  wire        rd_en,
    input  wire [15:0] rd_addr,
    input  wire        rd_fire,
    output wire        rd_hit,
    output wire [31:0] rd_data,

    // the NIC's network address (CAP_NET.NODE_ID), a strap
    input  wire [7:0]  node_id,

    // soft reset: CTRL.SOFT_RESET's pulse, STATUS.RESET_BUSY's source
    output wire        soft_reset_req,
    input  wire        reset_busy
);

generate
    if (ADDR_WIDTH < 17 || ADDR_WIDTH > 32) begin : g_bad_addr_width
        `VIA_PARAM_FAIL(("via_nic_ctrl: ADDR_WIDTH=%0d, must be 17..32", ADDR_WIDTH))
    end
    if (NUM_VI < 1 || NUM_VI > 65535) begin : g_bad_num_vi
        `VIA_PARAM_FAIL(("via_nic_ctrl: NUM_VI=%0d, must be 1..65535", NUM_VI))
    end
    if (NUM_IRQ < 1 || NUM_IRQ > 32) begin : g_bad_num_irq
        `VIA_PARAM_FAIL(("via_nic_ctrl: NUM_IRQ=%0d, must be 1..32", NUM_IRQ))
    end
    if (DATA_WIDTH < 1 || DATA_WIDTH > 65535) begin : g_bad_data_width
        `VIA_PARAM_FAIL(("via_nic_ctrl: DATA_WIDTH=%0d, must be 1..65535 (CAP_DATAPATH)", DATA_WIDTH))
    end
    if (DMA_ADDR_WIDTH > 255 || DMA_ID_WIDTH > 255 || DMA_MAX_OUTSTANDING > 255 || DMA_MAX_BURST > 65535) begin : g_bad_dma
        `VIA_PARAM_FAIL(("via_nic_ctrl: DMA_ADDR_WIDTH=%0d, DMA_ID_WIDTH=%0d, DMA_MAX_OUTSTANDING=%0d, DMA_MAX_BURST=%0d do not fit CAP_DMA/CAP_DMA_BURST",
                         DMA_ADDR_WIDTH, DMA_ID_WIDTH, DMA_MAX_OUTSTANDING, DMA_MAX_BURST))
    end
    if (NET_FIFO_DEPTH > 65535 || SOFT_RESET_CYCLES > 65535) begin : g_bad_net_reset
        `VIA_PARAM_FAIL(("via_nic_ctrl: NET_FIFO_DEPTH=%0d, SOFT_RESET_CYCLES=%0d, must be at most 65535 (CAP_NET, CAP_RESET)",
                         NET_FIFO_DEPTH, SOFT_RESET_CYCLES))
    end
    if (CPU_IMEM_BYTES / 1024 > 65535 || CPU_DMEM_BYTES / 1024 > 65535) begin : g_bad_cpu_mem
        `VIA_PARAM_FAIL(("via_nic_ctrl: CPU_IMEM_BYTES=%0d, CPU_DMEM_BYTES=%0d do not fit CAP_CPU", CPU_IMEM_BYTES, CPU_DMEM_BYTES))
    end
    if (TPT_REGIONS < 1 || TPT_CACHE_ENTRIES < 1) begin : g_bad_tpt
        `VIA_PARAM_FAIL(("via_nic_ctrl: TPT_REGIONS=%0d, TPT_CACHE_ENTRIES=%0d, must be >= 1", TPT_REGIONS, TPT_CACHE_ENTRIES))
    end
endgenerate

localparam [63:0] MAP_HASH = `VIA_BAR0_HASH;

// capability values, as 32-bit constants to slice fields from
localparam [31:0] CAP_DATA_WIDTH       = DATA_WIDTH;
localparam [31:0] CAP_NUM_VI           = NUM_VI;
localparam [31:0] CAP_AXIL_ADDR_WIDTH  = ADDR_WIDTH;
localparam [31:0] CAP_DMA_ADDR_WIDTH   = DMA_ADDR_WIDTH;
localparam [31:0] CAP_DMA_ID_WIDTH     = DMA_ID_WIDTH;
localparam [31:0] CAP_DMA_MAX_OUT      = DMA_MAX_OUTSTANDING;
localparam [31:0] CAP_DMA_MAX_BURST    = DMA_MAX_BURST;
localparam [31:0] CAP_NUM_IRQ          = NUM_IRQ;
localparam [31:0] CAP_NET_FIFO_DEPTH   = NET_FIFO_DEPTH;
localparam [31:0] CAP_RESET_CYCLES     = SOFT_RESET_CYCLES;
localparam [31:0] CAP_IMEM_KB          = CPU_IMEM_BYTES / 1024;
localparam [31:0] CAP_DMEM_KB          = CPU_DMEM_BYTES / 1024;
localparam [31:0] CAP_TPT_REGIONS_LOG2 = $clog2(TPT_REGIONS);
localparam [31:0] CAP_TPT_CACHE_LOG2   = $clog2(TPT_CACHE_ENTRIES);
localparam [31:0] CAP_VI_MAX_DESC      = MAX_DESC;
localparam [31:0] CAP_VI_MAX_SEGS      = MAX_SEGS;

/* verilator lint_off UNUSEDSIGNAL */
// SCRATCH has no effect on the hardware
wire [31:0] scratch_q;
/* verilator lint_on UNUSEDSIGNAL */

via_bar0_nic_regs regs_inst (
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
    .map_hash_lo_i(MAP_HASH[31:0]),
    .map_hash_hi_i(MAP_HASH[63:32]),
    .scratch_q(scratch_q),
    .cap_datapath_data_width_i(CAP_DATA_WIDTH[`VIA_CAP_DATAPATH_DATA_WIDTH_WIDTH-1:0]),
    .cap_vi_num_vi_i(CAP_NUM_VI[`VIA_CAP_VI_NUM_VI_WIDTH-1:0]),
    .cap_db_base_i(`VIA_DOORBELL_BASE),
    .cap_db_stride_i(`VIA_DOORBELL_STRIDE),
    .cap_bar_addr_width_i(CAP_AXIL_ADDR_WIDTH[`VIA_CAP_BAR_ADDR_WIDTH_WIDTH-1:0]),
    .cap_dma_addr_width_i(CAP_DMA_ADDR_WIDTH[`VIA_CAP_DMA_ADDR_WIDTH_WIDTH-1:0]),
    .cap_dma_id_width_i(CAP_DMA_ID_WIDTH[`VIA_CAP_DMA_ID_WIDTH_WIDTH-1:0]),
    .cap_dma_max_outstanding_i(CAP_DMA_MAX_OUT[`VIA_CAP_DMA_MAX_OUTSTANDING_WIDTH-1:0]),
    .cap_dma_burst_max_burst_i(CAP_DMA_MAX_BURST[`VIA_CAP_DMA_BURST_MAX_BURST_WIDTH-1:0]),
    .cap_irq_num_irq_i(CAP_NUM_IRQ[`VIA_CAP_IRQ_NUM_IRQ_WIDTH-1:0]),
    .cap_net_fifo_depth_i(CAP_NET_FIFO_DEPTH[`VIA_CAP_NET_FIFO_DEPTH_WIDTH-1:0]),
    .cap_net_node_id_i(node_id),
    .cap_reset_cycles_i(CAP_RESET_CYCLES[`VIA_CAP_RESET_CYCLES_WIDTH-1:0]),
    .cap_cpu_imem_kb_i(CAP_IMEM_KB[`VIA_CAP_CPU_IMEM_KB_WIDTH-1:0]),
    .cap_cpu_dmem_kb_i(CAP_DMEM_KB[`VIA_CAP_CPU_DMEM_KB_WIDTH-1:0]),
    .cap_tpt_regions_log2_i(CAP_TPT_REGIONS_LOG2[`VIA_CAP_TPT_REGIONS_LOG2_WIDTH-1:0]),
    .cap_tpt_cache_log2_i(CAP_TPT_CACHE_LOG2[`VIA_CAP_TPT_CACHE_LOG2_WIDTH-1:0]),
    .cap_vi_queue_max_desc_i(CAP_VI_MAX_DESC[`VIA_CAP_VI_QUEUE_MAX_DESC_WIDTH-1:0]),
    .cap_vi_queue_max_segs_i(CAP_VI_MAX_SEGS[`VIA_CAP_VI_QUEUE_MAX_SEGS_WIDTH-1:0]),
    .ctrl_soft_reset_pulse(soft_reset_req),
    .status_reset_busy_i(reset_busy)
);

endmodule

`default_nettype wire
