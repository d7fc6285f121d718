// via_regfile: BAR0 routing, the glue between via_axil_slave's register port
// and the blocks that own BAR0's registers.
//
// BAR0 is decoded as follows (offsets from rtl/generated/via_bar0.vh):
//
//   [0, VIA_DOORBELL_BASE)              global space. A register of
//                                       bar0.layout (in [0, VIA_GLOBAL_BYTES))
//                                       and the two admin windows answer
//                                       OKAY; any other offset answers SLVERR
//                                       (reads 0, writes have no effect).
//                                       Writes to ro registers (and to
//                                       ADMIN_RSP_WIN) are ignored (OKAY); wo,
//                                       w1s registers read as 0.
//   VIA_DOORBELL_BASE + k*STRIDE, k < NUM_VI
//                                       doorbell page of VI k: OKAY. Writes
//                                       go out on the db_wr_* port (VI index,
//                                       offset in the page, data, strobes)
//                                       and complete when db_wr_ready; reads
//                                       return 0.
//   anything else                       DECERR (reads 0, writes ignored).
//
// Address bits 1:0 are ignored (AXI-Lite is word-wide). rw registers honour
// wstrb byte by byte; for wo command bits, w1c and w1s only bytes with their
// strobe set count.
//
// The registers live in their blocks, each with a register module generated
// from its `block` of bar0.layout (docs/rtl.md, "Register blocks"); this
// module routes the register bus to all of them and ORs their answers. The
// hand-written blocks here:
//
//   irq      via_irq_ctrl: IRQ_STATUS/ENABLE/FORCE/PENDING and irq
//   cpu      via_cpu_ctrl: CPU_CTRL.RUN, CPU_STATUS, traps, FW_READY
//   cpu_mem  via_cpu_host_port: CPU_MEM_ADDR/DATA, the core's host port
//   fw_log   via_fw_log: the firmware log FIFO
//   admin    via_admin_mbox: the admin mailbox and its two windows
//
// and EXT_BLOCKS blocks outside this module (in via_nic: `nic` via_nic_ctrl,
// `diag` via_dma_diag, `net` via_net_loopback, `tpt` via_tpt_probe). The
// register bus goes out on the blk_* port as it comes (write already
// qualified, read address, read fire), shared by all of them; each answers
// on its own bit of blk_wr_hit and blk_rd_hit and its own word of
// blk_rd_data (block k: bits 32k+31..32k), which this module ORs with the
// answers of its own blocks. A block answers 0 (rd_data) at an offset it
// does not hold.
//
// via_bar0_fw_view shares the blocks' read multiplexer with the
// firmware's read-only BAR0 view (fw_bar_rd_*; host first).
//
// Hardware interrupt causes: irq_set (bit 0 the DMA diagnostic engine's done
// pulse), FW_FAULT on the rising edge of cpu_halted, ADMIN_DONE when the
// firmware completes a command, FW_LOG on every fw_log_push (bits beyond
// NUM_IRQ do not exist).
//
// Multi-cycle reads: CPU_MEM_DATA (through the core's host port, acked when
// cpu_host_rvalid comes back) and the two admin windows (RAMs with a
// synchronous read, acked the cycle after the RAM read) do not answer in the
// cycle of the request. Such a read is issued in a cycle in which no write
// to the global space is presented (writes are acked at once and reg_wr_en
// then drops for at least a cycle, so a read waits at most one cycle); a
// write and a read therefore never use the host port or a window RAM in the
// same cycle, and CPU_MEM_ADDR.WORD moves at most once per cycle (a read
// increments it when it is issued).
//
// Reads with a side effect (FW_LOG pops, FW_LOG_LEVEL clears DROPPED,
// CPU_MEM_DATA increments CPU_MEM_ADDR.WORD) have it when the host's read is
// acked, also while reset_busy; the firmware's reads never have one.
//
// Soft reset: rst is the NIC's block reset (hard reset or the hold phase of a
// soft reset); it returns every register to its reset value. The register
// port stays answered throughout because its handshake is purely
// combinational here (except the multi-cycle reads, which wait until rst
// ends). While reset_busy (STATUS.RESET_BUSY) is 1, writes are answered OKAY
// but have no effect (the register bus sees none), doorbell writes are
// dropped and hardware interrupt causes are ignored, so that nothing starts
// and nothing interrupts while the NIC drains (the blocks' command bits,
// CTRL.SOFT_RESET or DIAG_CTRL.START, therefore fire only outside it).

`timescale 1ns / 1ps
`default_nettype none

`include "via_bar0.vh"
`include "via_param_check.vh"

module via_regfile #(
    parameter ADDR_WIDTH          = `VIA_DEFAULT_AXIL_ADDR_WIDTH,     // BAR0 address bits (17..32)
    parameter NUM_VI              = `VIA_DEFAULT_NUM_VI,              // doorbell pages (VIs)
    parameter NUM_IRQ             = `VIA_DEFAULT_NUM_IRQ,             // interrupt outputs (1..32)
    parameter FW_LOG_DEPTH        = `VIA_DEFAULT_FW_LOG_DEPTH,        // firmware log FIFO words (2..65535)
    parameter EXT_BLOCKS          = 1,                                // register blocks on the blk_* port (1..32)
    // derived, do not override
    parameter VI_WIDTH            = (NUM_VI > 1) ? $clog2(NUM_VI) : 1,  // VI index bits
    parameter DB_OFFSET_WIDTH     = $clog2(`VIA_DOORBELL_STRIDE)        // offset bits in a doorbell page
) (
    input  wire                       clk,
    input  wire                       rst,
    input  wire                       reset_busy,

    // register port (from via_axil_slave)
    /* verilator lint_off UNUSEDSIGNAL */
    // bits 1:0 select a byte inside a word; registers are word-wide
    input  wire [ADDR_WIDTH-1:0]      reg_wr_addr,
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire [31:0]                reg_wr_data,
    input  wire [3:0]                 reg_wr_strb,
    input  wire                       reg_wr_en,
    output wire                       reg_wr_ack,
    output wire [1:0]                 reg_wr_resp,
    /* verilator lint_off UNUSEDSIGNAL */
    // see reg_wr_addr
    input  wire [ADDR_WIDTH-1:0]      reg_rd_addr,
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire                       reg_rd_en,
    output wire                       reg_rd_ack,
    output wire [31:0]                reg_rd_data,
    output wire [1:0]                 reg_rd_resp,

    // doorbell write port (one write per db_wr_valid && db_wr_ready)
    output wire                       db_wr_valid,
    input  wire                       db_wr_ready,
    output wire [VI_WIDTH-1:0]        db_wr_vi,
    output wire [DB_OFFSET_WIDTH-1:0] db_wr_offset,
    output wire [31:0]                db_wr_data,
    output wire [3:0]                 db_wr_strb,

    // the external register blocks (docs/rtl.md's block bus): one bus out,
    // one answer per block in (block k: hit bit k, data bits 32k+31..32k)
    output wire                       blk_wr_en,
    output wire [15:0]                blk_wr_addr,
    output wire [31:0]                blk_wr_data,
    output wire [3:0]                 blk_wr_strb,
    input  wire [EXT_BLOCKS-1:0]      blk_wr_hit,
    output wire                       blk_rd_en,
    output wire [15:0]                blk_rd_addr,
    output wire                       blk_rd_fire,
    input  wire [EXT_BLOCKS-1:0]      blk_rd_hit,
    input  wire [32*EXT_BLOCKS-1:0]   blk_rd_data,

    // control processor: run control, host port, status
    output wire                       cpu_run,
    output wire                       cpu_host_en,
    output wire                       cpu_host_we,
    output wire                       cpu_host_sel,
    output wire [15:0]                cpu_host_addr,
    output wire [31:0]                cpu_host_wdata,
    input  wire [31:0]                cpu_host_rdata,
    input  wire                       cpu_host_rvalid,
    input  wire                       cpu_halted,
    input  wire                       cpu_wfi,
    input  wire [4:0]                 cpu_trap_cause,
    input  wire [31:0]                cpu_trap_pc,
    input  wire [31:0]                cpu_trap_val,
    input  wire [31:0]                cpu_pc,
    input  wire [31:0]                cpu_retired,

    // firmware side (from via_cpu_periph)
    input  wire [31:0]                fw_ready,
    input  wire                       fw_log_push,
    input  wire [31:0]                fw_log_data,
    output wire [15:0]                fw_log_space,
    output wire                       fw_admin_event,
    input  wire                       fw_admin_complete,
    input  wire                       fw_cmd_en,
    input  wire [5:0]                 fw_cmd_addr,
    output wire [31:0]                fw_cmd_rdata,
    input  wire                       fw_rsp_en,
    input  wire [3:0]                 fw_rsp_we,
    input  wire [5:0]                 fw_rsp_addr,
    input  wire [31:0]                fw_rsp_wdata,
    output wire [31:0]                fw_rsp_rdata,
    input  wire                       fw_bar_rd_en,
    /* verilator lint_off UNUSEDSIGNAL */
    // a byte address; registers are word-wide
    input  wire [9:0]                 fw_bar_rd_addr,
    /* verilator lint_on UNUSEDSIGNAL */
    output wire                       fw_bar_rd_ack,
    output wire [31:0]                fw_bar_rd_data,
    output wire                       fw_bar_rd_err,

    // activity, for via_nic's idle output
    output wire                       busy,

    // interrupts
    input  wire [NUM_IRQ-1:0]         irq_set,
    output wire [NUM_IRQ-1:0]         irq
);


generate
    if (ADDR_WIDTH < 17 || ADDR_WIDTH > 32) begin : g_bad_addr_width
        `VIA_PARAM_FAIL(("via_regfile: ADDR_WIDTH=%0d, must be 17..32", ADDR_WIDTH))
    end
    if (NUM_VI < 1 || 64'd65536 + 64'd4096 * NUM_VI > (64'd1 << ADDR_WIDTH)) begin : g_bad_num_vi
        `VIA_PARAM_FAIL(("via_regfile: NUM_VI=%0d, must be >= 1 with every doorbell page inside the 2**%0d-byte BAR0", NUM_VI, ADDR_WIDTH))
    end
    if (NUM_IRQ < 1 || NUM_IRQ > 32) begin : g_bad_num_irq
        `VIA_PARAM_FAIL(("via_regfile: NUM_IRQ=%0d, must be 1..32", NUM_IRQ))
    end
    if (FW_LOG_DEPTH < 2 || FW_LOG_DEPTH > 65535) begin : g_bad_fw_log_depth
        `VIA_PARAM_FAIL(("via_regfile: FW_LOG_DEPTH=%0d, must be 2..65535", FW_LOG_DEPTH))
    end
    if (EXT_BLOCKS < 1 || EXT_BLOCKS > 32) begin : g_bad_ext_blocks
        `VIA_PARAM_FAIL(("via_regfile: EXT_BLOCKS=%0d, must be 1..32", EXT_BLOCKS))
    end
    if (VI_WIDTH != ((NUM_VI > 1) ? $clog2(NUM_VI) : 1) || DB_OFFSET_WIDTH != $clog2(`VIA_DOORBELL_STRIDE)) begin : g_bad_derived
        `VIA_PARAM_FAIL(("via_regfile: VI_WIDTH=%0d, DB_OFFSET_WIDTH=%0d are derived, do not override", VI_WIDTH, DB_OFFSET_WIDTH))
    end
endgenerate

localparam [1:0] RESP_OKAY   = 2'b00;
localparam [1:0] RESP_SLVERR = 2'b10;
localparam [1:0] RESP_DECERR = 2'b11;

localparam [31:0] GLOBAL_BYTES = `VIA_GLOBAL_BYTES;
localparam [31:0] DB_BASE      = `VIA_DOORBELL_BASE;
localparam [31:0] DB_STRIDE    = `VIA_DOORBELL_STRIDE;
localparam [31:0] DB_END       = DB_BASE + NUM_VI * DB_STRIDE;

localparam [31:0] CMD_BASE  = `VIA_ADMIN_CMD_WIN_BASE;
localparam [31:0] CMD_END   = `VIA_ADMIN_CMD_WIN_BASE + `VIA_ADMIN_CMD_WIN_BYTES;
localparam [31:0] RSP_BASE  = `VIA_ADMIN_RSP_WIN_BASE;
localparam [31:0] RSP_END   = `VIA_ADMIN_RSP_WIN_BASE + `VIA_ADMIN_RSP_WIN_BYTES;

// ---------------------------------------------------------------- decode

// zero-extended 32-bit byte addresses
reg [31:0] wr_addr32;
reg [31:0] rd_addr32;

always @* begin
    wr_addr32 = 32'd0;
    wr_addr32[ADDR_WIDTH-1:0] = reg_wr_addr;
    rd_addr32 = 32'd0;
    rd_addr32[ADDR_WIDTH-1:0] = reg_rd_addr;
end

// the register blocks' answers, one bit or word per block
localparam NBLK = 5;
wire [NBLK-1:0] blk_wr_hit_w;
wire [NBLK-1:0] blk_rd_hit_w;
wire [32*NBLK-1:0] blk_rd_data_w;   // block k: bits 32k+31..32k

// the external blocks count as more
wire wr_hit_any = |blk_wr_hit_w || |blk_wr_hit;
wire rd_hit_any = |blk_rd_hit_w || |blk_rd_hit;

// global space: everything below the doorbell pages (registers, windows,
// and unmapped offsets that answer SLVERR)
wire        wr_is_global = wr_addr32 < DB_BASE;
wire        wr_is_db     = wr_addr32 >= DB_BASE && wr_addr32 < DB_END;
wire        wr_is_gregs  = wr_addr32 < GLOBAL_BYTES;
wire        wr_is_cmd    = wr_addr32 >= CMD_BASE && wr_addr32 < CMD_END;
wire        wr_is_rsp    = wr_addr32 >= RSP_BASE && wr_addr32 < RSP_END;
wire        wr_is_reg    = (wr_is_gregs && wr_hit_any) || wr_is_cmd || wr_is_rsp;

wire        rd_is_global = rd_addr32 < DB_BASE;
wire        rd_is_db     = rd_addr32 >= DB_BASE && rd_addr32 < DB_END;
wire [15:0] rd_off       = {rd_addr32[15:2], 2'b00};
wire        rd_is_gregs  = rd_addr32 < GLOBAL_BYTES;
wire        rd_is_cmd    = rd_addr32 >= CMD_BASE && rd_addr32 < CMD_END;
wire        rd_is_rsp    = rd_addr32 >= RSP_BASE && rd_addr32 < RSP_END;
// CPU_MEM_DATA's host read goes through the core's host port
wire        rd_is_mem    = rd_is_gregs && rd_off == `VIA_REG_CPU_MEM_DATA;
// reads answered after a RAM or host-port access
wire        rd_is_slow   = rd_is_cmd || rd_is_rsp || rd_is_mem;

/* verilator lint_off UNUSEDSIGNAL */
// only the VI index and in-page offset bits of the doorbell-relative address
// matter; the rest is zero by construction of wr_is_db
wire [31:0] wr_db_rel = wr_addr32 - DB_BASE;
/* verilator lint_on UNUSEDSIGNAL */

// ------------------------------------------------------------ doorbells

assign db_wr_valid  = reg_wr_en && wr_is_db && !reset_busy;
assign db_wr_vi     = wr_db_rel[DB_OFFSET_WIDTH +: VI_WIDTH];
assign db_wr_offset = {wr_db_rel[DB_OFFSET_WIDTH-1:2], 2'b00};
assign db_wr_data   = reg_wr_data;
assign db_wr_strb   = reg_wr_strb;

// ----------------------------------------------------------- write side

// a write completes at once, except a doorbell write, which waits for the
// doorbell port (or is dropped during a soft reset)
assign reg_wr_ack  = reg_wr_en && (!wr_is_db || reset_busy || db_wr_ready);
assign reg_wr_resp = wr_is_reg ? RESP_OKAY :
                     wr_is_db ? RESP_OKAY :
                     wr_is_global ? RESP_SLVERR : RESP_DECERR;

wire wr_fire = reg_wr_en && reg_wr_ack && wr_is_reg && !reset_busy;

// the register bus's write side: writes that take effect, to the register
// space (the window writes go to the admin block's RAM port)
wire        bus_wr_en   = wr_fire && wr_is_gregs;
wire [15:0] bus_wr_addr = wr_addr32[15:0];

// ------------------------------------------------------------ read side

reg rd_wait_reg;   // a multi-cycle read was issued

// multi-cycle reads: issued when no write to the global space is presented
wire rd_issue = reg_rd_en && rd_is_slow && !rd_wait_reg && !(reg_wr_en && wr_is_global);
wire rd_done  = reg_rd_en && reg_rd_ack;

always @(posedge clk) begin
    if (rst) begin
        rd_wait_reg <= 1'b0;
    end else begin
        rd_wait_reg <= rd_issue || (rd_wait_reg && !rd_done);
    end
end

// The register multiplexer serves one address per cycle: the host's, when
// a host read that needs it is presented, else the firmware's BAR0 view.
// It has no side effects itself; the blocks' read strobes (pops, clears)
// fire on bus_rd_fire, a host read acked through the multiplexer.
wire        host_mux = reg_rd_en && !rd_is_slow;
wire        bus_rd_en;
wire [15:0] bus_rd_addr;
wire        bus_rd_fire = rd_done && host_mux;

reg [31:0] mux_data;
integer    i;

always @* begin
    mux_data = 32'd0;
    for (i = 0; i < NBLK; i = i + 1) begin
        mux_data = mux_data | blk_rd_data_w[32*i +: 32];
    end
    for (i = 0; i < EXT_BLOCKS; i = i + 1) begin
        mux_data = mux_data | blk_rd_data[32*i +: 32];
    end
end

via_bar0_fw_view fw_view_inst (
    .host_rd(host_mux),
    .host_sel(rd_is_gregs),
    .host_off(rd_off),
    .fw_rd_en(fw_bar_rd_en),
    .fw_rd_addr(fw_bar_rd_addr),
    .fw_rd_ack(fw_bar_rd_ack),
    .fw_rd_data(fw_bar_rd_data),
    .fw_rd_err(fw_bar_rd_err),
    .mux_en(bus_rd_en),
    .mux_off(bus_rd_addr),
    .mux_hit(rd_hit_any),
    .mux_data(mux_data)
);

// ------------------------------------------------------------ blocks

// hardware interrupt causes as a word; bits NUM_IRQ and up do not exist
wire cpu_fault_event;
wire admin_done_irq;
/* verilator lint_off UNUSEDSIGNAL */
reg [31:0] hw_causes;
/* verilator lint_on UNUSEDSIGNAL */

always @* begin
    hw_causes = 32'd0;
    hw_causes[`VIA_IRQ_STATUS_FW_FAULT_LSB]   = cpu_fault_event;
    hw_causes[`VIA_IRQ_STATUS_ADMIN_DONE_LSB] = admin_done_irq;
    hw_causes[`VIA_IRQ_STATUS_FW_LOG_LSB]     = fw_log_push;
end

via_irq_ctrl #(
    .NUM_IRQ(NUM_IRQ)
) irq_ctrl_inst (
    .clk(clk),
    .rst(rst),
    .reset_busy(reset_busy),
    .wr_en(bus_wr_en),
    .wr_addr(bus_wr_addr),
    .wr_data(reg_wr_data),
    .wr_strb(reg_wr_strb),
    .wr_hit(blk_wr_hit_w[0]),
    .rd_en(bus_rd_en),
    .rd_addr(bus_rd_addr),
    .rd_fire(bus_rd_fire),
    .rd_hit(blk_rd_hit_w[0]),
    .rd_data(blk_rd_data_w[0*32 +: 32]),
    .irq_set(irq_set | hw_causes[NUM_IRQ-1:0]),
    .irq(irq)
);

via_cpu_ctrl cpu_ctrl_inst (
    .clk(clk),
    .rst(rst),
    .wr_en(bus_wr_en),
    .wr_addr(bus_wr_addr),
    .wr_data(reg_wr_data),
    .wr_strb(reg_wr_strb),
    .wr_hit(blk_wr_hit_w[1]),
    .rd_en(bus_rd_en),
    .rd_addr(bus_rd_addr),
    .rd_fire(bus_rd_fire),
    .rd_hit(blk_rd_hit_w[1]),
    .rd_data(blk_rd_data_w[1*32 +: 32]),
    .run(cpu_run),
    .halted(cpu_halted),
    .wfi(cpu_wfi),
    .trap_cause(cpu_trap_cause),
    .trap_pc(cpu_trap_pc),
    .trap_val(cpu_trap_val),
    .pc(cpu_pc),
    .retired(cpu_retired),
    .fw_ready(fw_ready),
    .fault_event(cpu_fault_event)
);

via_cpu_host_port cpu_host_port_inst (
    .clk(clk),
    .rst(rst),
    .wr_en(bus_wr_en),
    .wr_addr(bus_wr_addr),
    .wr_data(reg_wr_data),
    .wr_strb(reg_wr_strb),
    .wr_hit(blk_wr_hit_w[2]),
    .rd_en(bus_rd_en),
    .rd_addr(bus_rd_addr),
    .rd_fire(bus_rd_fire),
    .rd_hit(blk_rd_hit_w[2]),
    .rd_data(blk_rd_data_w[2*32 +: 32]),
    .rd_issue(rd_issue && rd_is_mem),
    .host_en(cpu_host_en),
    .host_we(cpu_host_we),
    .host_sel(cpu_host_sel),
    .host_addr(cpu_host_addr),
    .host_wdata(cpu_host_wdata)
);

via_fw_log #(
    .DEPTH(FW_LOG_DEPTH)
) fw_log_inst (
    .clk(clk),
    .rst(rst),
    .wr_en(bus_wr_en),
    .wr_addr(bus_wr_addr),
    .wr_data(reg_wr_data),
    .wr_strb(reg_wr_strb),
    .wr_hit(blk_wr_hit_w[3]),
    .rd_en(bus_rd_en),
    .rd_addr(bus_rd_addr),
    .rd_fire(bus_rd_fire),
    .rd_hit(blk_rd_hit_w[3]),
    .rd_data(blk_rd_data_w[3*32 +: 32]),
    .push(fw_log_push),
    .push_data(fw_log_data),
    .space(fw_log_space)
);

// admin mailbox and windows; the windows are 256-byte aligned: address bits
// 7:2 select the word
wire [31:0] cmd_host_rdata;
wire [31:0] rsp_host_rdata;

via_admin_mbox admin_inst (
    .clk(clk),
    .rst(rst),
    .wr_en(bus_wr_en),
    .wr_addr(bus_wr_addr),
    .wr_data(reg_wr_data),
    .wr_strb(reg_wr_strb),
    .wr_hit(blk_wr_hit_w[4]),
    .rd_en(bus_rd_en),
    .rd_addr(bus_rd_addr),
    .rd_fire(bus_rd_fire),
    .rd_hit(blk_rd_hit_w[4]),
    .rd_data(blk_rd_data_w[4*32 +: 32]),
    .run(cpu_run),
    .admin_event(fw_admin_event),
    .complete(fw_admin_complete),
    .done_irq(admin_done_irq),
    .host_cmd_wr(wr_fire && wr_is_cmd),
    .host_cmd_rd(rd_issue && rd_is_cmd),
    .host_rsp_rd(rd_issue && rd_is_rsp),
    .host_wr_word(wr_addr32[7:2]),
    .host_rd_word(rd_addr32[7:2]),
    .host_cmd_rdata(cmd_host_rdata),
    .host_rsp_rdata(rsp_host_rdata),
    .fw_cmd_en(fw_cmd_en),
    .fw_cmd_addr(fw_cmd_addr),
    .fw_cmd_rdata(fw_cmd_rdata),
    .fw_rsp_en(fw_rsp_en),
    .fw_rsp_we(fw_rsp_we),
    .fw_rsp_addr(fw_rsp_addr),
    .fw_rsp_wdata(fw_rsp_wdata),
    .fw_rsp_rdata(fw_rsp_rdata)
);

assign busy = fw_admin_event || rd_wait_reg;

// the external blocks
assign blk_wr_en   = bus_wr_en;
assign blk_wr_addr = bus_wr_addr;
assign blk_wr_data = reg_wr_data;
assign blk_wr_strb = reg_wr_strb;
assign blk_rd_en   = bus_rd_en;
assign blk_rd_addr = bus_rd_addr;
assign blk_rd_fire = bus_rd_fire;

// ------------------------------------------------------------ host read answer

wire rd_is_reg = rd_is_cmd || rd_is_rsp || rd_is_mem || (host_mux && rd_hit_any);

assign reg_rd_ack  = reg_rd_en && (!rd_is_slow || (rd_wait_reg && (!rd_is_mem || cpu_host_rvalid)));
assign reg_rd_data = !rd_is_slow ? mux_data :
                     rd_is_mem ? cpu_host_rdata :
                     rd_is_cmd ? cmd_host_rdata : rsp_host_rdata;
assign reg_rd_resp = rd_is_reg ? RESP_OKAY :
                     rd_is_db ? RESP_OKAY :
                     rd_is_global ? RESP_SLVERR : RESP_DECERR;

endmodule

`default_nettype wire
