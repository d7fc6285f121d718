// tb_via_regfile: self-checking bench of the BAR0 routing, rtl/via_regfile.v,
// behind rtl/via_axil_slave.v, driven by testbench/common/axil_master.v with
// random delays and B/R back-pressure.
//
// The bench has no register model of its own. What a register holds and
// answers comes from the blocks themselves: a second, reference instance of
// each of via_regfile's own blocks (via_irq_ctrl, via_cpu_ctrl,
// via_cpu_host_port, via_fw_log, via_admin_mbox) sits on the block bus that
// via_regfile drives out (blk_*: the same bus its own blocks get) with the
// same hardware-side inputs; the external blocks are real ones of via_nic
// (via_nic_ctrl, via_net without traffic, via_tpt_probe with a TPT
// that never answers and random counter pulses) on EXT_BLOCKS = 3 answer
// slices. The `diag`, `vi`, `cq` and `evt` blocks are left out (the DMA and VI engines
// would double this bench's Verilator build, and their routing is the same
// bus as the others'): their registers must answer SLVERR here like any
// offset without a register (tb_via_bar0_regs and tb_via_nic have them). No bench names a
// generated register module's ports. Where a register
// is comes from the generated table (testbench/common/via_bar0_reg_table.vh),
// the regions from rtl/generated/via_bar0.vh. Non-default parameters
// (NUM_VI 3, NUM_IRQ 5, FW_LOG_DEPTH 5, 20 address bits).
//
// Checked in every cycle:
//   - via_regfile's outputs equal the reference blocks' (irq, cpu_run, the
//     core's host port, fw_log_space, fw_admin_event): each block is wired
//     to the bus and to its hardware side, and the hardware interrupt causes
//     (FW_FAULT, ADMIN_DONE, FW_LOG, irq_set) reach the controller;
//   - the bus: a write goes out (blk_wr_en) exactly when the host's write to
//     the register space is acked outside reset_busy, with its address, data
//     and strobes; read side effects (blk_rd_fire) only with a host read's
//     ack; the core's host port reads only for a host read of CPU_MEM_DATA;
//     no doorbell write while reset_busy.
// Checked at every host response (reg_* port):
//   - the response by region: a register of the table or an admin window
//     OKAY, another offset of the global space SLVERR, a doorbell page of a
//     VI OKAY, beyond DECERR; at a register exactly one block hits;
//   - read data: a register through the multiplexer reads the OR of the
//     blocks' answers (the reference blocks' and the external ones'),
//     CPU_MEM_DATA the core's host port answer, the windows what was
//     written into them (the host's command words with strobes, the
//     firmware's response words), everything else 0;
//   - doorbell writes on the db_wr port (VI, offset, data, strobes), acked
//     only with db_wr_ready (random) or dropped while reset_busy.
// And the firmware's BAR0 view (fw_bar_rd_*, a reader running throughout):
// every answer is the blocks' OR at its offset, the error flag is set
// exactly for offsets without a register, and it never fires a read side
// effect. The traffic: a sweep over the register space and the windows
// (read, then write), samples of the rest, doorbell pages and beyond; random reads and writes (random
// data, strobes, some unaligned addresses) with the hardware side changing;
// CPU_MEM_DATA download and readback; the admin windows from both sides;
// reset_busy phases; a block reset during traffic.

`timescale 1ns / 1ps

`include "via_bar0.vh"

module tb_via_regfile;

`include "via_bar0_reg_table.vh"

localparam ADDR_WIDTH = 20;
localparam NUM_VI = 3;
localparam NUM_IRQ = 5;
localparam FW_LOG_DEPTH = 5;
localparam VI_WIDTH = 2;
localparam DB_OFFSET_WIDTH = 12;
localparam EXT = 3;
localparam IMEM_WORDS = 512;
localparam DMEM_WORDS = 256;
localparam RANDOM_OPS = 1500;

localparam [1:0] OKAY = 2'b00, SLVERR = 2'b10, DECERR = 2'b11;
localparam [31:0] DB_END = `VIA_DOORBELL_BASE + NUM_VI * `VIA_DOORBELL_STRIDE;

reg clk = 1'b0;
reg hard_rst = 1'b1;
reg blk_rst = 1'b1;

always #5 clk = ~clk;

reg [1023:0] vcd_path;
initial begin
    if ($value$plusargs("vcd=%s", vcd_path)) begin
        $dumpfile(vcd_path);
        $dumpvars(0, tb_via_regfile);
    end
end

`define FAIL(msg) begin $display("FAIL %m at %0t: %0s", $time, msg); $fatal(1, "tb_via_regfile: check failed"); end

// ------------------------------------------------------------ DUT

wire [ADDR_WIDTH-1:0] awaddr, araddr;
wire [2:0]            awprot, arprot;
wire                  awvalid, awready, wvalid, wready, bvalid, bready;
wire                  arvalid, arready, rvalid, rready;
wire [31:0]           wdata, rdata;
wire [3:0]            wstrb;
wire [1:0]            bresp, rresp;

wire [ADDR_WIDTH-1:0] reg_wr_addr, reg_rd_addr;
wire [31:0]           reg_wr_data, reg_rd_data;
wire [3:0]            reg_wr_strb;
wire                  reg_wr_en, reg_wr_ack, reg_rd_en, reg_rd_ack;
wire [1:0]            reg_wr_resp, reg_rd_resp;

wire                       db_wr_valid;
reg                        db_wr_ready = 1'b0;
wire [VI_WIDTH-1:0]        db_wr_vi;
wire [DB_OFFSET_WIDTH-1:0] db_wr_offset;
wire [31:0]                db_wr_data;
wire [3:0]                 db_wr_strb;

reg         reset_busy = 1'b0;

wire             blk_wr_en, blk_rd_en, blk_rd_fire;
wire [15:0]      blk_wr_addr, blk_rd_addr;
wire [31:0]      blk_wr_data;
wire [3:0]       blk_wr_strb;
wire [EXT-1:0]   blk_wr_hit, blk_rd_hit;
wire [32*EXT-1:0] blk_rd_data;

reg  [NUM_IRQ-1:0] in_irq_set = {NUM_IRQ{1'b0}};
wire [NUM_IRQ-1:0] irq;

wire        cpu_run;
wire        cpu_host_en, cpu_host_we, cpu_host_sel;
wire [15:0] cpu_host_addr;
wire [31:0] cpu_host_wdata;
reg  [31:0] cpu_host_rdata = 32'd0;
reg         cpu_host_rvalid = 1'b0;
reg         in_halted = 1'b0, in_wfi = 1'b0;
reg  [4:0]  in_trap_cause = 5'd0;
reg  [31:0] in_trap_pc = 32'd0, in_trap_val = 32'd0, in_pc = 32'd0, in_retired = 32'd0;
reg  [31:0] in_fw_ready = 32'd0;
reg         fw_log_push = 1'b0;
reg  [31:0] fw_log_data = 32'd0;
wire [15:0] fw_log_space;
wire        fw_admin_event;
reg         fw_admin_complete = 1'b0;
reg         fw_cmd_en = 1'b0;
reg  [5:0]  fw_cmd_addr = 6'd0;
wire [31:0] fw_cmd_rdata;
reg         fw_rsp_en = 1'b0;
reg  [3:0]  fw_rsp_we = 4'd0;
reg  [5:0]  fw_rsp_addr = 6'd0;
reg  [31:0] fw_rsp_wdata = 32'd0;
wire [31:0] fw_rsp_rdata;
reg         fw_bar_rd_en = 1'b0;
reg  [9:0]  fw_bar_rd_addr = 10'd0;
wire        fw_bar_rd_ack;
wire [31:0] fw_bar_rd_data;
wire        fw_bar_rd_err;
wire        rf_busy;

axil_master #(
    .ADDR_WIDTH(ADDR_WIDTH),
    .MAX_DELAY(3),
    .READY_PCT(60),
    .SEED_SALT(11)
) host (
    .clk(clk),
    .rst(hard_rst),
    .m_axil_awaddr(awaddr),
    .m_axil_awprot(awprot),
    .m_axil_awvalid(awvalid),
    .m_axil_awready(awready),
    .m_axil_wdata(wdata),
    .m_axil_wstrb(wstrb),
    .m_axil_wvalid(wvalid),
    .m_axil_wready(wready),
    .m_axil_bresp(bresp),
    .m_axil_bvalid(bvalid),
    .m_axil_bready(bready),
    .m_axil_araddr(araddr),
    .m_axil_arprot(arprot),
    .m_axil_arvalid(arvalid),
    .m_axil_arready(arready),
    .m_axil_rdata(rdata),
    .m_axil_rresp(rresp),
    .m_axil_rvalid(rvalid),
    .m_axil_rready(rready)
);

via_axil_slave #(
    .ADDR_WIDTH(ADDR_WIDTH)
) slave (
    .clk(clk),
    .rst(hard_rst),
    .s_axil_awaddr(awaddr),
    .s_axil_awprot(awprot),
    .s_axil_awvalid(awvalid),
    .s_axil_awready(awready),
    .s_axil_wdata(wdata),
    .s_axil_wstrb(wstrb),
    .s_axil_wvalid(wvalid),
    .s_axil_wready(wready),
    .s_axil_bresp(bresp),
    .s_axil_bvalid(bvalid),
    .s_axil_bready(bready),
    .s_axil_araddr(araddr),
    .s_axil_arprot(arprot),
    .s_axil_arvalid(arvalid),
    .s_axil_arready(arready),
    .s_axil_rdata(rdata),
    .s_axil_rresp(rresp),
    .s_axil_rvalid(rvalid),
    .s_axil_rready(rready),
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

via_regfile #(
    .ADDR_WIDTH(ADDR_WIDTH),
    .NUM_VI(NUM_VI),
    .NUM_IRQ(NUM_IRQ),
    .FW_LOG_DEPTH(FW_LOG_DEPTH),
    .EXT_BLOCKS(EXT)
) dut (
    .clk(clk),
    .rst(blk_rst),
    .reset_busy(reset_busy),
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
    .cpu_halted(in_halted),
    .cpu_wfi(in_wfi),
    .cpu_trap_cause(in_trap_cause),
    .cpu_trap_pc(in_trap_pc),
    .cpu_trap_val(in_trap_val),
    .cpu_pc(in_pc),
    .cpu_retired(in_retired),
    .fw_ready(in_fw_ready),
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
    .busy(rf_busy),
    .irq_set(in_irq_set),
    .irq(irq)
);

// ------------------------------------------------------------ external blocks

// random hardware-side values (the TPT counters' pulses)
reg [31:0] x0 = 0, x1 = 0, x2 = 0, x3 = 0, x4 = 0, x5 = 0, x6 = 0, x7 = 0;

via_nic_ctrl #(
    .ADDR_WIDTH(ADDR_WIDTH),
    .NUM_VI(NUM_VI),
    .NUM_IRQ(NUM_IRQ)
) ext_nic (
    .clk(clk),
    .rst(blk_rst),
    .wr_en(blk_wr_en),
    .wr_addr(blk_wr_addr),
    .wr_data(blk_wr_data),
    .wr_strb(blk_wr_strb),
    .wr_hit(blk_wr_hit[0]),
    .rd_en(blk_rd_en),
    .rd_addr(blk_rd_addr),
    .rd_fire(blk_rd_fire),
    .rd_hit(blk_rd_hit[0]),
    .rd_data(blk_rd_data[0 +: 32]),
    .soft_reset_req(),
    .node_id(8'd5),
    .reset_busy(reset_busy)
);


via_net ext_net (
    .clk(clk),
    .rst(blk_rst),
    .node_id(8'd5),
    .wr_en(blk_wr_en),
    .wr_addr(blk_wr_addr),
    .wr_data(blk_wr_data),
    .wr_strb(blk_wr_strb),
    .wr_hit(blk_wr_hit[1]),
    .rd_en(blk_rd_en),
    .rd_addr(blk_rd_addr),
    .rd_fire(blk_rd_fire),
    .rd_hit(blk_rd_hit[1]),
    .rd_data(blk_rd_data[32 +: 32]),
    .quiesce(1'b0),
    .s_axis_tdata(64'd0),
    .s_axis_tkeep(8'd0),
    .s_axis_tvalid(1'b0),
    .s_axis_tready(),
    .s_axis_tlast(1'b0),
    .m_axis_tdata(),
    .m_axis_tkeep(),
    .m_axis_tvalid(),
    .m_axis_tready(1'b1),
    .m_axis_tlast(),
    .e_tx_tdata(64'd0),
    .e_tx_tkeep(8'd0),
    .e_tx_tvalid(1'b0),
    .e_tx_tready(),
    .e_tx_tlast(1'b0),
    .e_rx_tdata(),
    .e_rx_tkeep(),
    .e_rx_tvalid(),
    .e_rx_tready(1'b1),
    .e_rx_tlast(),
    .cmt_valid(1'b0),
    .cmt_ready(),
    .cmt_dst_node(8'd0),
    .cmt_dst_vi(16'd0),
    .cmt_src_vi(16'd0),
    .cmt_data(256'd0),
    .cm_valid(),
    .cm_ready(1'b1),
    .cm_src_node(),
    .cm_src_vi(),
    .cm_dst_vi(),
    .cm_data(),
    .busy()
);

via_tpt_probe #(
    .ADDR_WIDTH(48),
    .TAG_WIDTH(2)
) ext_tpt (
    .clk(clk),
    .rst(blk_rst),
    .wr_en(blk_wr_en),
    .wr_addr(blk_wr_addr),
    .wr_data(blk_wr_data),
    .wr_strb(blk_wr_strb),
    .wr_hit(blk_wr_hit[2]),
    .rd_en(blk_rd_en),
    .rd_addr(blk_rd_addr),
    .rd_fire(blk_rd_fire),
    .rd_hit(blk_rd_hit[2]),
    .rd_data(blk_rd_data[64 +: 32]),
    .d_lk_valid(1'b0),
    .d_lk_ready(),
    .d_lk_handle(32'd0),
    .d_lk_va(64'd0),
    .d_lk_len(32'd0),
    .d_lk_ptag(16'd0),
    .d_lk_kind(2'd0),
    .d_lk_tag(1'b0),
    .d_rs_valid(),
    .d_rs_ready(1'b1),
    .d_rs_err(),
    .d_rs_pa(),
    .d_rs_bytes(),
    .d_rs_hit(),
    .d_rs_epoch(),
    .d_rs_tag(),
    .lk_valid(),
    .lk_ready(1'b0),
    .lk_handle(),
    .lk_va(),
    .lk_len(),
    .lk_ptag(),
    .lk_kind(),
    .lk_tag(),
    .rs_valid(1'b0),
    .rs_ready(),
    .rs_err(3'd0),
    .rs_pa(48'd0),
    .rs_bytes(13'd0),
    .rs_hit(1'b0),
    .rs_epoch(1'b0),
    .rs_tag(2'd0),
    .st_lookup(x0[0]),
    .st_hit(x0[1]),
    .st_miss(x0[2]),
    .st_error(x0[3]),
    .busy(),
    .lk_pending()
);

// ------------------------------------------------------------ reference blocks

// via_regfile's own blocks once more, on the bus it drives out, with the
// same hardware sides: what the routing's blocks must answer and drive
wire [4:0]   ref_wr_hit, ref_rd_hit;
wire [159:0] ref_rd_data;
wire         ref_run, ref_fault_event, ref_admin_event, ref_done_irq;
wire [NUM_IRQ-1:0] ref_irq;
wire         ref_host_en, ref_host_we, ref_host_sel;
wire [15:0]  ref_host_addr;
wire [31:0]  ref_host_wdata;
wire [15:0]  ref_log_space;

// the hardware interrupt causes, at their IRQ_STATUS bits
reg [31:0] ref_causes;
always @* begin
    ref_causes = 32'd0;
    ref_causes[`VIA_IRQ_STATUS_FW_FAULT_LSB] = ref_fault_event;
    ref_causes[`VIA_IRQ_STATUS_ADMIN_DONE_LSB] = ref_done_irq;
    ref_causes[`VIA_IRQ_STATUS_FW_LOG_LSB] = fw_log_push;
end

via_irq_ctrl #(
    .NUM_IRQ(NUM_IRQ)
) ref_irq_ctrl (
    .clk(clk),
    .rst(blk_rst),
    .reset_busy(reset_busy),
    .wr_en(blk_wr_en),
    .wr_addr(blk_wr_addr),
    .wr_data(blk_wr_data),
    .wr_strb(blk_wr_strb),
    .wr_hit(ref_wr_hit[0]),
    .rd_en(blk_rd_en),
    .rd_addr(blk_rd_addr),
    .rd_fire(blk_rd_fire),
    .rd_hit(ref_rd_hit[0]),
    .rd_data(ref_rd_data[0 +: 32]),
    .irq_set(in_irq_set | ref_causes[NUM_IRQ-1:0]),
    .irq(ref_irq)
);

via_cpu_ctrl ref_cpu_ctrl (
    .clk(clk),
    .rst(blk_rst),
    .wr_en(blk_wr_en),
    .wr_addr(blk_wr_addr),
    .wr_data(blk_wr_data),
    .wr_strb(blk_wr_strb),
    .wr_hit(ref_wr_hit[1]),
    .rd_en(blk_rd_en),
    .rd_addr(blk_rd_addr),
    .rd_fire(blk_rd_fire),
    .rd_hit(ref_rd_hit[1]),
    .rd_data(ref_rd_data[32 +: 32]),
    .run(ref_run),
    .halted(in_halted),
    .wfi(in_wfi),
    .trap_cause(in_trap_cause),
    .trap_pc(in_trap_pc),
    .trap_val(in_trap_val),
    .pc(in_pc),
    .retired(in_retired),
    .fw_ready(in_fw_ready),
    .fault_event(ref_fault_event)
);

// a read the routing issues on the core's host port (checked below to come
// only from a host read of CPU_MEM_DATA) moves the reference's address too
via_cpu_host_port ref_host_port (
    .clk(clk),
    .rst(blk_rst),
    .wr_en(blk_wr_en),
    .wr_addr(blk_wr_addr),
    .wr_data(blk_wr_data),
    .wr_strb(blk_wr_strb),
    .wr_hit(ref_wr_hit[2]),
    .rd_en(blk_rd_en),
    .rd_addr(blk_rd_addr),
    .rd_fire(blk_rd_fire),
    .rd_hit(ref_rd_hit[2]),
    .rd_data(ref_rd_data[64 +: 32]),
    .rd_issue(cpu_host_en && !cpu_host_we),
    .host_en(ref_host_en),
    .host_we(ref_host_we),
    .host_sel(ref_host_sel),
    .host_addr(ref_host_addr),
    .host_wdata(ref_host_wdata)
);

via_fw_log #(
    .DEPTH(FW_LOG_DEPTH)
) ref_fw_log (
    .clk(clk),
    .rst(blk_rst),
    .wr_en(blk_wr_en),
    .wr_addr(blk_wr_addr),
    .wr_data(blk_wr_data),
    .wr_strb(blk_wr_strb),
    .wr_hit(ref_wr_hit[3]),
    .rd_en(blk_rd_en),
    .rd_addr(blk_rd_addr),
    .rd_fire(blk_rd_fire),
    .rd_hit(ref_rd_hit[3]),
    .rd_data(ref_rd_data[96 +: 32]),
    .push(fw_log_push),
    .push_data(fw_log_data),
    .space(ref_log_space)
);

// its windows are not used (they are checked end to end, below)
via_admin_mbox ref_admin (
    .clk(clk),
    .rst(blk_rst),
    .wr_en(blk_wr_en),
    .wr_addr(blk_wr_addr),
    .wr_data(blk_wr_data),
    .wr_strb(blk_wr_strb),
    .wr_hit(ref_wr_hit[4]),
    .rd_en(blk_rd_en),
    .rd_addr(blk_rd_addr),
    .rd_fire(blk_rd_fire),
    .rd_hit(ref_rd_hit[4]),
    .rd_data(ref_rd_data[128 +: 32]),
    .run(ref_run),
    .admin_event(ref_admin_event),
    .complete(fw_admin_complete),
    .done_irq(ref_done_irq),
    .host_cmd_wr(1'b0),
    .host_cmd_rd(1'b0),
    .host_rsp_rd(1'b0),
    .host_wr_word(6'd0),
    .host_rd_word(6'd0),
    .host_cmd_rdata(),
    .host_rsp_rdata(),
    .fw_cmd_en(1'b0),
    .fw_cmd_addr(6'd0),
    .fw_cmd_rdata(),
    .fw_rsp_en(1'b0),
    .fw_rsp_we(4'd0),
    .fw_rsp_addr(6'd0),
    .fw_rsp_wdata(32'd0),
    .fw_rsp_rdata()
);

// the blocks' answers at the multiplexer's address, as the routing must OR them
reg [31:0] or_data;
integer    n_hit, bi;
always @* begin
    or_data = 32'd0;
    n_hit = 0;
    for (bi = 0; bi < 5; bi = bi + 1) begin
        or_data = or_data | ref_rd_data[32*bi +: 32];
        n_hit = n_hit + ref_rd_hit[bi];
    end
    for (bi = 0; bi < EXT; bi = bi + 1) begin
        or_data = or_data | blk_rd_data[32*bi +: 32];
        n_hit = n_hit + blk_rd_hit[bi];
    end
end

// ------------------------------------------------------------ the core's memories

// one-cycle read latency, as via_cpu; words beyond a memory are ignored and
// read as 0
reg [31:0] imem [0:IMEM_WORDS-1];
reg [31:0] dmem [0:DMEM_WORDS-1];

always @(posedge clk) begin
    cpu_host_rvalid <= cpu_host_en && !cpu_host_we;
    if (cpu_host_en) begin
        if (cpu_host_we) begin
            if (!cpu_host_sel && cpu_host_addr < IMEM_WORDS) imem[cpu_host_addr] <= cpu_host_wdata;
            if (cpu_host_sel && cpu_host_addr < DMEM_WORDS) dmem[cpu_host_addr] <= cpu_host_wdata;
        end else begin
            cpu_host_rdata <= !cpu_host_sel ? (cpu_host_addr < IMEM_WORDS ? imem[cpu_host_addr] : 32'd0)
                                            : (cpu_host_addr < DMEM_WORDS ? dmem[cpu_host_addr] : 32'd0);
        end
    end else begin
        cpu_host_rdata <= 32'hxxxxxxxx;   // only valid with host_rvalid
    end
end

// ------------------------------------------------------------ the windows' contents

// what the command window holds (host writes with strobes) and the response
// window (firmware writes with strobes); X until written. A read in the
// cycle of a write to the same word through the other port may see the old
// word: the previous value of each word is kept too.
reg [31:0] cmd_win [0:63];
reg [31:0] rsp_win [0:63];
reg [31:0] cmd_prev [0:63];
reg [31:0] rsp_prev [0:63];
integer    wi;
initial begin
    for (wi = 0; wi < 64; wi = wi + 1) begin
        cmd_win[wi] = 32'hxxxxxxxx;
        rsp_win[wi] = 32'hxxxxxxxx;
        cmd_prev[wi] = 32'hxxxxxxxx;
        rsp_prev[wi] = 32'hxxxxxxxx;
    end
end

// a window word read: what was written last, or before that
function win_ok;
    input [31:0] got;
    input [31:0] cur;
    input [31:0] prev;
    win_ok = (^cur) === 1'bx || got === cur || ((^prev) !== 1'bx && got === prev);
endfunction

function [31:0] merge;
    input [31:0] old;
    input [31:0] d;
    input [3:0]  s;
    integer b;
    begin
        merge = old;
        for (b = 0; b < 4; b = b + 1) begin
            if (s[b]) merge[8*b +: 8] = d[8*b +: 8];
        end
    end
endfunction

// ------------------------------------------------------------ expected responses

// is_reg: a register of the table at the word of byte offset a, but those
// of the block left out (a lookup table built from the generated one at
// time 0)
reg reg_at [0:`VIA_GLOBAL_BYTES/4-1];
integer ti, diag_blk, vi_blk, cq_blk, evt_blk;
initial begin
    diag_blk = -1;
    vi_blk = -1;
    cq_blk = -1;
    evt_blk = -1;
    for (ti = 0; ti < VIA_BAR0_REGS; ti = ti + 1) begin
        if (via_bar0_reg_offset(ti) == `VIA_REG_DIAG_CTRL) diag_blk = via_bar0_reg_block(ti);
        if (via_bar0_reg_offset(ti) == `VIA_REG_VI_DOORBELLS) vi_blk = via_bar0_reg_block(ti);
        if (via_bar0_reg_offset(ti) == `VIA_REG_CQ_SEL) cq_blk = via_bar0_reg_block(ti);
        if (via_bar0_reg_offset(ti) == `VIA_REG_EVT_ARM) evt_blk = via_bar0_reg_block(ti);
    end
    for (ti = 0; ti < `VIA_GLOBAL_BYTES / 4; ti = ti + 1) reg_at[ti] = 1'b0;
    for (ti = 0; ti < VIA_BAR0_REGS; ti = ti + 1) begin
        if (via_bar0_reg_block(ti) != diag_blk && via_bar0_reg_block(ti) != vi_blk && via_bar0_reg_block(ti) != cq_blk &&
            via_bar0_reg_block(ti) != evt_blk) reg_at[via_bar0_reg_offset(ti) >> 2] = 1'b1;
    end
end

function is_reg;
    input [31:0] a;
    is_reg = a < `VIA_GLOBAL_BYTES && reg_at[a >> 2] === 1'b1;
endfunction

function is_cmd;
    input [31:0] a;
    is_cmd = a >= `VIA_ADMIN_CMD_WIN_BASE && a < `VIA_ADMIN_CMD_WIN_BASE + `VIA_ADMIN_CMD_WIN_BYTES;
endfunction

function is_rsp;
    input [31:0] a;
    is_rsp = a >= `VIA_ADMIN_RSP_WIN_BASE && a < `VIA_ADMIN_RSP_WIN_BASE + `VIA_ADMIN_RSP_WIN_BYTES;
endfunction

function is_db;
    input [31:0] a;
    is_db = a >= `VIA_DOORBELL_BASE && a < DB_END;
endfunction

function [1:0] exp_resp;
    input [31:0] a;
    begin
        if (is_reg(a) || is_cmd(a) || is_rsp(a) || is_db(a)) exp_resp = OKAY;
        else if (a < `VIA_DOORBELL_BASE) exp_resp = SLVERR;
        else exp_resp = DECERR;
    end
endfunction

// ------------------------------------------------------------ monitors

wire [31:0] wa = {{(32-ADDR_WIDTH){1'b0}}, reg_wr_addr};
wire [31:0] ra = {{(32-ADDR_WIDTH){1'b0}}, reg_rd_addr};

integer n_wr = 0, n_rd = 0, n_db = 0, n_fw = 0, n_mem_rd = 0, n_win_rd = 0, n_reg_rd = 0;

// Everything is sampled at the falling edge: the master and the bench drive
// 1 ns after the rising one, so the combinational answers are settled.
always @(negedge clk) begin
    if (!hard_rst) begin
        // the blocks' outputs
        if (irq !== ref_irq) `FAIL("irq differs from the interrupt controller's")
        if (cpu_run !== ref_run) `FAIL("cpu_run differs from CPU_CTRL.RUN's block")
        if (cpu_host_en !== ref_host_en || cpu_host_we !== ref_host_we || cpu_host_sel !== ref_host_sel
            || cpu_host_addr !== ref_host_addr || (cpu_host_we && cpu_host_wdata !== ref_host_wdata))
            `FAIL("the core's host port differs from the host port block's")
        if (fw_log_space !== ref_log_space) `FAIL("fw_log_space differs from the log's")
        if (fw_admin_event !== ref_admin_event) `FAIL("fw_admin_event differs from the mailbox's")

        // the bus
        if (blk_wr_en !== (reg_wr_en && reg_wr_ack && wa < `VIA_GLOBAL_BYTES && is_reg(wa) && !reset_busy))
            `FAIL("blk_wr_en is not an acked register write outside reset_busy")
        if (blk_wr_en && (blk_wr_addr !== wa[15:0] || blk_wr_data !== reg_wr_data || blk_wr_strb !== reg_wr_strb))
            `FAIL("the bus write differs from the host's")
        if (blk_rd_fire && !(reg_rd_en && reg_rd_ack)) `FAIL("a read side effect without a host read's ack")
        if (cpu_host_en && !cpu_host_we && !(reg_rd_en && {ra[15:2], 2'b00} == `VIA_REG_CPU_MEM_DATA && ra < `VIA_GLOBAL_BYTES))
            `FAIL("a host port read without a host read of CPU_MEM_DATA")
        if (reset_busy && db_wr_valid) `FAIL("a doorbell write while reset_busy")
        if (blk_rd_en && n_hit > 1) `FAIL("two blocks answer one offset")

        // write responses
        if (reg_wr_en && reg_wr_ack) begin
            n_wr = n_wr + 1;
            if (reg_wr_resp !== exp_resp(wa)) begin
                $display("  write 0x%0h: resp %0d, expected %0d", wa, reg_wr_resp, exp_resp(wa));
                `FAIL("write response")
            end
            if (wa < `VIA_GLOBAL_BYTES && is_reg(wa) && !reset_busy && (ref_wr_hit != 0) + (blk_wr_hit != 0) != 1)
                `FAIL("not exactly one block takes a register write")
            if (wa < `VIA_GLOBAL_BYTES && !is_reg(wa) && (ref_wr_hit != 0 || blk_wr_hit != 0))
                `FAIL("a block takes a write off the register list")
            if (is_db(wa)) begin
                if (!reset_busy) begin
                    n_db = n_db + 1;
                    if (!db_wr_valid || !db_wr_ready || db_wr_vi !== (wa - `VIA_DOORBELL_BASE) / `VIA_DOORBELL_STRIDE
                        || db_wr_offset !== {wa[DB_OFFSET_WIDTH-1:2], 2'b00} || db_wr_data !== reg_wr_data
                        || db_wr_strb !== reg_wr_strb)
                        `FAIL("the doorbell write on db_wr")
                end
            end else if (db_wr_valid) begin
                `FAIL("db_wr_valid for a write outside the doorbell pages")
            end
            if (is_cmd(wa) && !reset_busy) begin
                cmd_prev[wa[7:2]] = cmd_win[wa[7:2]];
                cmd_win[wa[7:2]] = merge(cmd_win[wa[7:2]], reg_wr_data, reg_wr_strb);
            end
        end else if (db_wr_valid !== (reg_wr_en && is_db(wa) && !reset_busy)) begin
            `FAIL("db_wr_valid without a doorbell write")
        end

        // read responses
        if (reg_rd_en && reg_rd_ack) begin
            n_rd = n_rd + 1;
            if (reg_rd_resp !== exp_resp(ra)) begin
                $display("  read 0x%0h: resp %0d, expected %0d", ra, reg_rd_resp, exp_resp(ra));
                `FAIL("read response")
            end
            if (ra < `VIA_GLOBAL_BYTES && {ra[15:2], 2'b00} == `VIA_REG_CPU_MEM_DATA) begin
                n_mem_rd = n_mem_rd + 1;
                if (!cpu_host_rvalid || reg_rd_data !== cpu_host_rdata) `FAIL("CPU_MEM_DATA is not the host port's answer")
            end else if (is_cmd(ra) || is_rsp(ra)) begin
                n_win_rd = n_win_rd + 1;
                if (is_cmd(ra) ? !win_ok(reg_rd_data, cmd_win[ra[7:2]], cmd_prev[ra[7:2]])
                               : !win_ok(reg_rd_data, rsp_win[ra[7:2]], rsp_prev[ra[7:2]])) begin
                    $display("  read 0x%0h: 0x%0h, written 0x%0h (before 0x%0h)", ra, reg_rd_data,
                             is_cmd(ra) ? cmd_win[ra[7:2]] : rsp_win[ra[7:2]], is_cmd(ra) ? cmd_prev[ra[7:2]] : rsp_prev[ra[7:2]]);
                    `FAIL("an admin window word differs from what was written")
                end
            end else if (ra < `VIA_GLOBAL_BYTES && is_reg(ra)) begin
                n_reg_rd = n_reg_rd + 1;
                if (!blk_rd_en || blk_rd_addr !== {ra[15:2], 2'b00}) `FAIL("the multiplexer does not serve the host's read")
                if (n_hit != 1) `FAIL("not exactly one block answers a register")
                if (reg_rd_data !== or_data) begin
                    $display("  read 0x%0h: 0x%0h, the blocks answer 0x%0h", ra, reg_rd_data, or_data);
                    `FAIL("register read data")
                end
            end else begin
                if (reg_rd_data !== 32'd0) `FAIL("a read of no register does not read 0")
                if (ra < `VIA_GLOBAL_BYTES && n_hit != 0) `FAIL("a block answers off the register list")
            end
        end

        // the firmware's view
        if (fw_bar_rd_en && fw_bar_rd_ack) begin
            n_fw = n_fw + 1;
            if (blk_rd_fire) `FAIL("a firmware read fires a read side effect")
            if (!blk_rd_en || blk_rd_addr !== {6'd0, fw_bar_rd_addr[9:2], 2'b00}) `FAIL("the multiplexer does not serve the firmware's read")
            if (fw_bar_rd_err !== !is_reg({22'd0, fw_bar_rd_addr[9:2], 2'b00})) `FAIL("fw_bar_rd_err")
            if (fw_bar_rd_data !== or_data) `FAIL("firmware read data differs from the blocks' answer")
        end
    end
end

// ------------------------------------------------------------ randomness

integer seed;
reg [31:0] rstate;
task rand32;
    output [31:0] r;
    begin
        rstate = rstate ^ (rstate << 13);
        rstate = rstate ^ (rstate >> 17);
        rstate = rstate ^ (rstate << 5);
        r = rstate;
    end
endtask

// the hardware side: random, changing at every rising edge (1 ns after)
reg [31:0] hr;
reg        hw_quiet = 1'b1;
always @(posedge clk) begin
    #1;
    rand32(hr);
    db_wr_ready = hr[0] | hr[1];
    if (!hw_quiet) begin
        fw_log_push = hr[4:2] == 3'd0;
        fw_log_data = {hr[31:16], hr[15:0] ^ 16'h5a5a};
        fw_admin_complete = hr[7:5] == 3'd0;
        in_irq_set = (hr[13:8] == 6'd0) ? hr[20:16] : {NUM_IRQ{1'b0}};
        if (hr[27:21] == 7'd0) in_halted = !in_halted;
        in_wfi = hr[28];
        rand32(hr);
        x0 = hr;
        x1 = {hr[15:0], hr[31:16]};
        x2 = ~hr;
        x3 = hr ^ 32'h12345678;
        x4 = hr + 32'd7;
        x5 = {hr[7:0], hr[31:8]};
        x6 = hr - 32'd99;
        x7 = hr ^ 32'hffff0000;
        in_trap_cause = hr[4:0];
        in_trap_pc = x3;
        in_trap_val = x4;
        in_pc = x5;
        in_retired = x6;
        in_fw_ready = x1;
    end else begin
        fw_log_push = 1'b0;
        fw_admin_complete = 1'b0;
        in_irq_set = {NUM_IRQ{1'b0}};
    end
end

// the firmware's reader of its BAR0 view: a request held until acked
reg fw_reader_on = 1'b0;
reg [31:0] fr;
always @(posedge clk) begin
    #1;
    if (fw_bar_rd_en && fw_bar_rd_ack) fw_bar_rd_en = 1'b0;
    else if (fw_reader_on && !fw_bar_rd_en) begin
        rand32(fr);
        if (fr[0]) begin
            fw_bar_rd_en = 1'b1;
            fw_bar_rd_addr = fr[11:2];
        end
    end
end

// the firmware side of the windows: writes the response window, reads the
// command window (checked against what the host wrote)
reg fw_win_on = 1'b0;
reg fw_cmd_pending = 1'b0;
reg [5:0] fw_cmd_word;
always @(posedge clk) begin
    #1;
    if (fw_cmd_pending) begin
        if (!win_ok(fw_cmd_rdata, cmd_win[fw_cmd_word], cmd_prev[fw_cmd_word]))
            `FAIL("the firmware reads another command word than the host wrote")
        fw_cmd_pending = 1'b0;
    end
    if (fw_win_on) begin
        fw_cmd_en = 1'b0;
        fw_rsp_en = 1'b0;
        fw_rsp_we = 4'd0;
        rand32(fr);
        if (fr[2:0] == 3'd0) begin
            fw_rsp_en = 1'b1;
            fw_rsp_we = fr[7:4];
            fw_rsp_addr = fr[13:8];
            fw_rsp_wdata = {fr[15:0], fr[31:16]};
            rsp_prev[fr[13:8]] = rsp_win[fr[13:8]];
            rsp_win[fr[13:8]] = merge(rsp_win[fr[13:8]], {fr[15:0], fr[31:16]}, fr[7:4]);
        end else if (fr[2:0] == 3'd1) begin
            fw_cmd_en = 1'b1;
            fw_cmd_addr = fr[13:8];
            fw_cmd_word = fr[13:8];
            fw_cmd_pending = 1'b1;
        end
    end
end

// ------------------------------------------------------------ traffic

reg [31:0] r, d;
reg [1:0]  resp;
integer    i, k, a;

task host_write;
    input [31:0] addr;
    input [31:0] data;
    input [3:0]  strb;
    begin
        host.axil_write_resp(addr[ADDR_WIDTH-1:0], data, strb, resp);
    end
endtask

task host_read;
    input [31:0] addr;
    begin
        host.axil_read(addr[ADDR_WIDTH-1:0], d, resp);
    end
endtask

// a random address: registers of the table most often, then the windows,
// holes of the register space, doorbell pages, beyond them
task rand_addr;
    output [31:0] ad;
    begin
        rand32(r);
        case (r[2:0])
            3'd0, 3'd1, 3'd2: ad = via_bar0_reg_offset(r[15:8] % VIA_BAR0_REGS);
            3'd3: ad = `VIA_ADMIN_CMD_WIN_BASE + {r[13:8], 2'b00};
            3'd4: ad = `VIA_ADMIN_RSP_WIN_BASE + {r[13:8], 2'b00};
            3'd5: ad = {r[25:16], 2'b00} & 32'h0000fffc;
            3'd6: ad = `VIA_DOORBELL_BASE + (r[9:8] % NUM_VI) * `VIA_DOORBELL_STRIDE + {r[19:10], 2'b00};
            default: ad = `VIA_DOORBELL_BASE + NUM_VI * `VIA_DOORBELL_STRIDE + {r[19:10], 2'b00};
        endcase
        if (r[31:29] == 3'd0) ad = ad | r[27:26];   // unaligned now and then
    end
endtask

// keep the core out of the way of the random traffic: RUN stays 1, the
// memory words stay inside the memories
task random_traffic;
    input integer n;
    begin
        for (k = 0; k < n; k = k + 1) begin
            rand_addr(a);
            rand32(r);
            if (r[0]) begin
                rand32(d);
                if ({a[15:2], 2'b00} == `VIA_REG_CPU_CTRL && a < `VIA_GLOBAL_BYTES) d[`VIA_CPU_CTRL_RUN_LSB] = 1'b1;
                if ({a[15:2], 2'b00} == `VIA_REG_CPU_MEM_ADDR && a < `VIA_GLOBAL_BYTES) d[15:8] = 8'd0;
                host_write(a, d, r[7:4]);
            end else begin
                host_read(a);
            end
        end
    end
endtask

initial begin
    if (!$value$plusargs("seed=%d", seed)) seed = 1;
    rstate = 32'h9e3779b9 ^ (seed * 32'h01000193);
    if (rstate == 0) rstate = 1;
    for (i = 0; i < IMEM_WORDS; i = i + 1) imem[i] = 32'd0;
    for (i = 0; i < DMEM_WORDS; i = i + 1) dmem[i] = 32'd0;
    repeat (5) @(posedge clk);
    #1;
    hard_rst = 1'b0;
    blk_rst = 1'b0;
    repeat (2) @(posedge clk);

    // the windows have no reset: give them defined contents first (the
    // command window by the host, the response window by the firmware)
    for (i = 0; i < 64; i = i + 1) begin
        rand32(r);
        host_write(`VIA_ADMIN_CMD_WIN_BASE + 4 * i, r, 4'hf);
    end
    for (i = 0; i < 64; i = i + 1) begin
        rand32(r);
        @(posedge clk);
        #1;
        fw_rsp_en = 1'b1;
        fw_rsp_we = 4'hf;
        fw_rsp_addr = i;
        fw_rsp_wdata = r;
        rsp_win[i] = r;
    end
    @(posedge clk);
    #1;
    fw_rsp_en = 1'b0;
    fw_rsp_we = 4'h0;

    // 1. the decode: every word of the register space and the windows, then
    // a word every 1 KiB of the rest of the global space, read, then written
    // with all strobes clear (no effect, same response); the first and last
    // word of each doorbell page, beyond the last page, the top of BAR0
    for (a = 0; a < `VIA_DOORBELL_BASE; a = a + (a < 32'h800 ? 4 : 32'h3fc)) begin
        host_read(a);
        host_write(a, 32'hffffffff, 4'h0);
    end
    for (i = 0; i <= NUM_VI; i = i + 1) begin
        host_read(`VIA_DOORBELL_BASE + i * `VIA_DOORBELL_STRIDE);
        host_write(`VIA_DOORBELL_BASE + i * `VIA_DOORBELL_STRIDE + `VIA_DOORBELL_STRIDE - 4, 32'h01020304, 4'hf);
    end
    host_read((32'd1 << ADDR_WIDTH) - 4);
    host_write((32'd1 << ADDR_WIDTH) - 4, 32'h0, 4'hf);
    $display("tb_via_regfile: decode sweep ok (%0d reads, %0d writes)", n_rd, n_wr);

    // 2. the core's memories through CPU_MEM_ADDR/DATA: download, readback
    host_write(`VIA_REG_CPU_MEM_ADDR, 32'h00000010, 4'hf);
    for (i = 0; i < 8; i = i + 1) host_write(`VIA_REG_CPU_MEM_DATA, 32'hc0de0000 + i, 4'hf);
    host_write(`VIA_REG_CPU_MEM_ADDR, 32'h00000010, 4'hf);
    for (i = 0; i < 8; i = i + 1) begin
        host.axil_read(`VIA_REG_CPU_MEM_DATA, d, resp);
        if (d !== 32'hc0de0000 + i) `FAIL("CPU_MEM_DATA readback")
    end
    if (imem[16] !== 32'hc0de0000 || imem[23] !== 32'hc0de0007) `FAIL("CPU_MEM_DATA download")
    // a write and a read of CPU_MEM_DATA at once: both answered, the
    // address moves twice (the reference host port checks the order)
    host_write(`VIA_REG_CPU_MEM_ADDR, 32'h80000004, 4'hf);
    fork
        host_write(`VIA_REG_CPU_MEM_DATA, 32'h5eed5eed, 4'hf);
        host.axil_read(`VIA_REG_CPU_MEM_DATA, r, resp);
    join
    host.axil_read(`VIA_REG_CPU_MEM_ADDR, d, resp);
    if (d[15:0] !== 16'd6) `FAIL("CPU_MEM_ADDR.WORD after a write and a read at once")

    // 3. random traffic with the hardware side, the firmware's view and the
    // windows' firmware side running; RUN 1 so admin commands are taken
    host_write(`VIA_REG_CPU_CTRL, 32'd1 << `VIA_CPU_CTRL_RUN_LSB, 4'hf);
    hw_quiet = 1'b0;
    fw_reader_on = 1'b1;
    fw_win_on = 1'b1;
    random_traffic(RANDOM_OPS);
    $display("tb_via_regfile: random traffic ok (%0d reads, %0d writes, %0d doorbell writes, %0d firmware view reads)",
             n_rd, n_wr, n_db, n_fw);

    // 4. reset_busy: writes have no effect (the bus sees none), doorbells are
    // dropped, hardware causes ignored (the monitors check all of it)
    @(posedge clk);
    #1;
    reset_busy = 1'b1;
    random_traffic(200);
    @(posedge clk);
    #1;
    reset_busy = 1'b0;

    // 5. a block reset during traffic: the AXI side keeps answering, every
    // block (and its reference) restarts from its reset value
    fork
        random_traffic(300);
        begin
            for (i = 0; i < 6; i = i + 1) begin
                repeat (97) @(posedge clk);
                #1;
                blk_rst = 1'b1;
                repeat (3) @(posedge clk);
                #1;
                blk_rst = 1'b0;
            end
        end
    join
    hw_quiet = 1'b1;
    fw_reader_on = 1'b0;
    fw_win_on = 1'b0;
    repeat (4) @(posedge clk);
    #1;
    fw_cmd_en = 1'b0;
    fw_rsp_en = 1'b0;
    fw_rsp_we = 4'd0;

    if (n_mem_rd < 8 || n_win_rd < 50 || n_reg_rd < 250 || n_db < 20 || n_fw < 200) begin
        $display("  counts: %0d CPU_MEM_DATA reads, %0d window reads, %0d register reads, %0d doorbells, %0d firmware reads",
                 n_mem_rd, n_win_rd, n_reg_rd, n_db, n_fw);
        `FAIL("the traffic did not exercise every path")
    end
    $display("tb_via_regfile: %0d reads, %0d writes checked (%0d registers, %0d CPU_MEM_DATA, %0d windows), %0d doorbell writes, %0d firmware view reads",
             n_rd, n_wr, n_reg_rd, n_mem_rd, n_win_rd, n_db, n_fw);
    $display("PASS");
    $finish;
end

// watchdog
integer cycles = 0;
always @(posedge clk) begin
    cycles <= cycles + 1;
    if (cycles > 400000) $fatal(1, "tb_via_regfile: timeout");
end

endmodule

`undef FAIL
