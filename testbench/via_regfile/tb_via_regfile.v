// tb_via_regfile: self-checking bench for rtl/via_regfile.v behind
// rtl/via_axil_slave.v, driven by testbench/common/axil_master.v with random
// delays and B/R back-pressure.
//
// Non-default parameters (so the CAP_* registers must come from them, not
// from the layout's defaults): NUM_VI 3, NUM_IRQ 5, DATA_WIDTH 128, ...
// The bench keeps its own model of every register (written from the layout's
// description, with field positions spelled out here rather than taken from
// the generated macros) and checks:
//   1. reset values of every register;
//   2. a sweep over every word of the global region: registers OKAY, the
//      rest SLVERR reading 0; doorbell pages OKAY reading 0; beyond DECERR;
//   3. random reads and writes (random data and strobes, some unaligned)
//      over all registers, unmapped offsets, doorbell pages and beyond, with
//      the hardware-side inputs changing: responses, read data, outputs
//      (DIAG_SRC/DST/LEN/CFG), command pulses (soft reset, start, abort:
//      exactly one one-cycle pulse per written 1), doorbell writes on the
//      db_wr port (VI, offset, data, strobes; random db_wr_ready);
//   4. interrupts: IRQ_FORCE/IRQ_STATUS w1s/w1c, IRQ_PENDING, irq pins, a
//      hardware set in the very cycle of a w1c clear wins;
//   5. reset_busy: writes have no effect, no pulses, no doorbell writes, no
//      hardware interrupt causes, STATUS.RESET_BUSY reads 1; a block reset (rst of the register file
//      only) during traffic returns every register to its reset value while
//      the AXI-Lite side keeps answering;
//   6. control processor registers (with a model of the core's host port
//      and of the firmware side): CPU_CTRL, CPU_STATUS, CPU_TRAP_*, CPU_PC,
//      CPU_RETIRED, CAP_CPU are part of the random traffic and of the model;
//      CPU_MEM_ADDR/DATA download and readback (auto-increment on every
//      access, multi-cycle reads, words beyond the memories, a write and a
//      read of CPU_MEM_DATA at once); the admin windows (CMD read/write for
//      the host and read by the firmware port, RSP written by the firmware
//      with strobes and read-only for the host, a write and a read at once);
//      translated-mode registers DIAG_XLAT, DIAG_SRC/DST_HANDLE (outputs)
//      and DIAG_STATUS.XLAT_* (inputs); CAP_TPT from TPT_REGIONS 64,
//      TPT_CACHE_ENTRIES 128; the external block port (blk_*) with the
//      generated via_bar0_tpt_regs on it (probe inputs rw, the results and
//      counters from random inputs, TPT_PROBE_GO one we pulse per write);
//      the FW_LOG FIFO (FW_LOG_DEPTH 5: wrap, full, DROPPED saturating count
//      cleared by reading FW_LOG_LEVEL, FW_LOG pops, fw_log_space, FW_LOG
//      irq); the admin mailbox (REJECTED while BUSY or with RUN=0, one
//      admin_event pulse per accepted doorbell, ADMIN_COMPLETE, ADMIN_DONE
//      irq, RUN=0 clears BUSY); FW_FAULT on the rising edge of cpu_halted;
//      FW_READY 0 while RUN=0; and, during all the random traffic, a
//      firmware reader of the BAR0 view (fw_bar_rd_*) that checks every
//      answer (constant registers exactly, the error flag for holes) while
//      the host model checks that it never popped or cleared anything.

`timescale 1ns / 1ps

`include "via_bar0.vh"

module tb_via_regfile;

localparam ADDR_WIDTH = 20;
localparam NUM_VI = 3;
localparam NUM_IRQ = 5;
localparam DATA_WIDTH = 128;
localparam DMA_ADDR_WIDTH = 40;
localparam DMA_ID_WIDTH = 6;
localparam DMA_MAX_BURST = 32;
localparam DMA_MAX_OUTSTANDING = 7;
localparam NET_FIFO_DEPTH = 100;
localparam SOFT_RESET_CYCLES = 9;
localparam VI_WIDTH = 2;
localparam DB_OFFSET_WIDTH = 12;
localparam CPU_IMEM_BYTES = 2048;
localparam CPU_DMEM_BYTES = 1024;
localparam FW_LOG_DEPTH = 5;
localparam TPT_REGIONS = 64;
localparam TPT_CACHE_ENTRIES = 128;
localparam IMEM_WORDS = CPU_IMEM_BYTES / 4;
localparam DMEM_WORDS = CPU_DMEM_BYTES / 4;

localparam [31:0] IRQ_MASK = (32'd1 << NUM_IRQ) - 1;
localparam [31:0] CFG_MASK = 32'h000f01ff;
localparam [31:0] XLAT_MASK = 32'hffff00f1;
localparam [31:0] PCTRL_MASK = 32'h0003ffff;

reg clk = 1'b0;
reg hard_rst = 1'b1;
reg blk_rst = 1'b1;

always #5 clk = ~clk;

reg [8*256-1:0] vcd_file;

initial begin
    if ($value$plusargs("vcd=%s", vcd_file)) begin
        $dumpfile(vcd_file);
        $dumpvars(0, tb_via_regfile);
    end
end

initial begin
    #20000000;
    $fatal(1, "tb_via_regfile: watchdog timeout");
end

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

wire        soft_reset_req;
wire [63:0] diag_src, diag_dst;
wire [31:0] diag_len;
wire        diag_start, diag_abort;
wire [8:0]  diag_cfg_max_burst;
wire [3:0]  diag_cfg_max_outstanding;

reg         reset_busy = 1'b0;
reg         in_busy = 1'b0, in_done = 1'b0, in_error = 1'b0, in_bad_param = 1'b0;
reg         in_rd_err = 1'b0, in_wr_err = 1'b0, in_aborted = 1'b0;
reg [1:0]   in_err_resp = 2'd0;
reg [31:0]  in_cycles = 32'd0, in_bytes = 32'd0, in_rd_bursts = 32'd0, in_wr_bursts = 32'd0;
reg [63:0]  in_err_addr = 64'd0;
reg [7:0]   in_max_inflight = 8'd0;
reg         in_xlat_err = 1'b0, in_xlat_dst = 1'b0;
reg [2:0]   in_xlat_code = 3'd0;
wire        diag_xlat_mode;
wire [1:0]  diag_xlat_src_kind, diag_xlat_dst_kind;
wire [15:0] diag_xlat_ptag;
wire [31:0] diag_src_handle, diag_dst_handle;
// the external blocks (0 via_nic_ctrl, 1 via_bar0_diag_regs, 2
// via_bar0_net_regs, 3 via_bar0_tpt_regs) and their inputs
wire        blk_wr_en, blk_rd_en, blk_rd_fire;
wire [3:0]  blk_wr_hit, blk_rd_hit;
wire [15:0] blk_wr_addr, blk_rd_addr;
wire [31:0] blk_wr_data;
wire [127:0] blk_rd_data;
wire [3:0]  blk_wr_strb;
wire [31:0] p_handle, p_va_lo, p_va_hi, p_len;
wire [15:0] p_ptag;
wire [1:0]  p_kind;
wire        p_go;
reg  [6:0]  in_p_status = 7'd0;
reg  [31:0] in_p_pa_lo = 32'd0, in_p_pa_hi = 32'd0, in_p_bytes = 32'd0;
reg  [31:0] in_lookups = 32'd0, in_hits = 32'd0, in_misses = 32'd0, in_errors = 32'd0;
reg [31:0]  in_rx_frames = 32'd0, in_tx_frames = 32'd0;
reg [NUM_IRQ-1:0] in_irq_set = {NUM_IRQ{1'b0}};
wire [NUM_IRQ-1:0] irq;

// control processor side
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

// the core's memories behind the host port: one-cycle read latency, as
// via_cpu; words beyond a memory are ignored and read as 0
reg [31:0] imem [0:IMEM_WORDS-1];
reg [31:0] dmem [0:DMEM_WORDS-1];
integer    host_writes = 0, host_reads = 0;

always @(posedge clk) begin
    cpu_host_rvalid <= cpu_host_en && !cpu_host_we;
    if (cpu_host_en) begin
        if ((^{cpu_host_we, cpu_host_sel, cpu_host_addr}) === 1'bx) begin
            $fatal(1, "tb_via_regfile: X on the host port");
        end
        if (cpu_host_we) begin
            host_writes = host_writes + 1;
            if (!cpu_host_sel && cpu_host_addr < IMEM_WORDS) imem[cpu_host_addr] <= cpu_host_wdata;
            if (cpu_host_sel && cpu_host_addr < DMEM_WORDS) dmem[cpu_host_addr] <= cpu_host_wdata;
        end else begin
            host_reads = host_reads + 1;
            cpu_host_rdata <= !cpu_host_sel ? (cpu_host_addr < IMEM_WORDS ? imem[cpu_host_addr] : 32'd0)
                                            : (cpu_host_addr < DMEM_WORDS ? dmem[cpu_host_addr] : 32'd0);
        end
    end else begin
        cpu_host_rdata <= 32'hxxxxxxxx;   // only valid with host_rvalid
    end
end

// admin_event pulses
integer admin_events = 0;
reg     prev_admin_event = 1'b0;

always @(negedge clk) begin
    if (!hard_rst) begin
        if (fw_admin_event === 1'bx) begin
            $fatal(1, "tb_via_regfile: X on fw_admin_event");
        end
        if (fw_admin_event) begin
            admin_events = admin_events + 1;
            if (prev_admin_event) begin
                $fatal(1, "tb_via_regfile: admin_event longer than one cycle");
            end
        end
        prev_admin_event = fw_admin_event;
    end
end

// a hardware interrupt cause raised in the exact cycle a write to
// IRQ_STATUS takes effect (see collide)
reg  [NUM_IRQ-1:0] collide_bits = {NUM_IRQ{1'b0}};
wire irq_status_write = reg_wr_en && reg_wr_ack && {reg_wr_addr[15:2], 2'b00} == 16'h00c0
                        && reg_wr_addr[19:16] == 4'd0;
wire [NUM_IRQ-1:0] irq_set = in_irq_set | (irq_status_write ? collide_bits : {NUM_IRQ{1'b0}});

axil_master #(
    .ADDR_WIDTH(ADDR_WIDTH),
    .MAX_DELAY(2),
    .READY_PCT(60)
) master (
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
    .EXT_BLOCKS(4)
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
    .irq_set(irq_set),
    .irq(irq)
);

// the blocks outside via_regfile, as via_nic has them: the real `nic` block,
// the generated register modules of `diag` and `net` (their engines'
// sides driven by the bench) and of `tpt`
via_nic_ctrl #(
    .ADDR_WIDTH(ADDR_WIDTH),
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
    .TPT_CACHE_ENTRIES(TPT_CACHE_ENTRIES)
) nic_ctrl_inst (
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
    .soft_reset_req(soft_reset_req),
    .reset_busy(reset_busy)
);

wire [31:0] diag_src_lo, diag_src_hi, diag_dst_lo, diag_dst_hi;
assign diag_src = {diag_src_hi, diag_src_lo};
assign diag_dst = {diag_dst_hi, diag_dst_lo};

via_bar0_diag_regs diag_regs_inst (
    .clk(clk),
    .rst(blk_rst),
    .wr_en(blk_wr_en),
    .wr_addr(blk_wr_addr),
    .wr_data(blk_wr_data),
    .wr_strb(blk_wr_strb),
    .rd_en(blk_rd_en),
    .rd_addr(blk_rd_addr),
    .rd_fire(blk_rd_fire),
    .wr_hit(blk_wr_hit[1]),
    .rd_hit(blk_rd_hit[1]),
    .rd_data(blk_rd_data[32 +: 32]),
    .diag_src_lo_q(diag_src_lo),
    .diag_src_hi_q(diag_src_hi),
    .diag_dst_lo_q(diag_dst_lo),
    .diag_dst_hi_q(diag_dst_hi),
    .diag_len_q(diag_len),
    .diag_ctrl_start_pulse(diag_start),
    .diag_ctrl_abort_pulse(diag_abort),
    .diag_cfg_max_burst_q(diag_cfg_max_burst),
    .diag_cfg_max_outstanding_q(diag_cfg_max_outstanding),
    .diag_status_busy_i(in_busy),
    .diag_status_done_i(in_done),
    .diag_status_error_i(in_error),
    .diag_status_bad_param_i(in_bad_param),
    .diag_status_rd_err_i(in_rd_err),
    .diag_status_wr_err_i(in_wr_err),
    .diag_status_aborted_i(in_aborted),
    .diag_status_resp_i(in_err_resp),
    .diag_status_xlat_err_i(in_xlat_err),
    .diag_status_xlat_dst_i(in_xlat_dst),
    .diag_status_xlat_code_i(in_xlat_code),
    .diag_cycles_i(in_cycles),
    .diag_bytes_i(in_bytes),
    .diag_err_addr_lo_i(in_err_addr[31:0]),
    .diag_err_addr_hi_i(in_err_addr[63:32]),
    .diag_rd_bursts_i(in_rd_bursts),
    .diag_wr_bursts_i(in_wr_bursts),
    .diag_max_inflight_i({24'd0, in_max_inflight}),
    .diag_xlat_mode_q(diag_xlat_mode),
    .diag_xlat_src_kind_q(diag_xlat_src_kind),
    .diag_xlat_dst_kind_q(diag_xlat_dst_kind),
    .diag_xlat_ptag_q(diag_xlat_ptag),
    .diag_src_handle_q(diag_src_handle),
    .diag_dst_handle_q(diag_dst_handle)
);

via_bar0_net_regs net_regs_inst (
    .clk(clk),
    .rst(blk_rst),
    .wr_en(blk_wr_en),
    .wr_addr(blk_wr_addr),
    .wr_data(blk_wr_data),
    .wr_strb(blk_wr_strb),
    .rd_en(blk_rd_en),
    .rd_addr(blk_rd_addr),
    .rd_fire(blk_rd_fire),
    .wr_hit(blk_wr_hit[2]),
    .rd_hit(blk_rd_hit[2]),
    .rd_data(blk_rd_data[64 +: 32]),
    .net_rx_frames_i(in_rx_frames),
    .net_tx_frames_i(in_tx_frames)
);

via_bar0_tpt_regs ext_blk_inst (
    .clk(clk),
    .rst(blk_rst),
    .wr_en(blk_wr_en),
    .wr_addr(blk_wr_addr),
    .wr_data(blk_wr_data),
    .wr_strb(blk_wr_strb),
    .rd_en(blk_rd_en),
    .rd_addr(blk_rd_addr),
    .rd_fire(blk_rd_fire),
    .wr_hit(blk_wr_hit[3]),
    .rd_hit(blk_rd_hit[3]),
    .rd_data(blk_rd_data[96 +: 32]),
    .tpt_probe_handle_q(p_handle),
    .tpt_probe_va_lo_q(p_va_lo),
    .tpt_probe_va_hi_q(p_va_hi),
    .tpt_probe_len_q(p_len),
    .tpt_probe_ctrl_ptag_q(p_ptag),
    .tpt_probe_ctrl_kind_q(p_kind),
    .tpt_probe_go_we(p_go),
    .tpt_probe_status_busy_i(in_p_status[0]),
    .tpt_probe_status_done_i(in_p_status[1]),
    .tpt_probe_status_hit_i(in_p_status[2]),
    .tpt_probe_status_err_i(in_p_status[6:4]),
    .tpt_probe_pa_lo_i(in_p_pa_lo),
    .tpt_probe_pa_hi_i(in_p_pa_hi),
    .tpt_probe_bytes_i(in_p_bytes),
    .tpt_lookups_i(in_lookups),
    .tpt_hits_i(in_hits),
    .tpt_misses_i(in_misses),
    .tpt_errors_i(in_errors)
);

// ------------------------------------------------------------ randomness

reg [31:0] rng;
integer seed;

task rand32;
    output [31:0] r;
    begin
        rng = rng ^ (rng << 13);
        rng = rng ^ (rng >> 17);
        rng = rng ^ (rng << 5);
        r = rng;
    end
endtask

initial begin
    if (!$value$plusargs("seed=%d", seed)) begin
        seed = 1;
    end
    rng = seed * 32'h9e3779b1 + 32'd1234567;
    if (rng == 32'd0) begin
        rng = 32'h2545f491;
    end
end

// db_wr_ready: random back-pressure on the doorbell port
integer db_ready_pct = 50;
reg [31:0] db_r;

always @(posedge clk) begin
    #1;
    rand32(db_r);
    db_wr_ready <= (db_r % 100) < db_ready_pct;
end

// ------------------------------------------------------------ monitors

integer start_pulses = 0, abort_pulses = 0, soft_pulses = 0, go_pulses = 0;
reg     prev_start = 1'b0, prev_abort = 1'b0, prev_soft = 1'b0;

// doorbell writes seen on the port
integer    db_count = 0;
reg [31:0] db_log_vi [0:1023];
reg [31:0] db_log_off [0:1023];
reg [31:0] db_log_data [0:1023];
reg [3:0]  db_log_strb [0:1023];
reg        db_stall = 1'b0;
reg [63:0] db_stall_val;

always @(negedge clk) begin
    if (!hard_rst) begin
        if ((^{diag_start, diag_abort, soft_reset_req, db_wr_valid, irq}) === 1'bx) begin
            $fatal(1, "tb_via_regfile: X on an output");
        end
        if (diag_start) start_pulses = start_pulses + 1;
        if (diag_abort) abort_pulses = abort_pulses + 1;
        if (soft_reset_req) soft_pulses = soft_pulses + 1;
        if (p_go) go_pulses = go_pulses + 1;
        if ((diag_start && prev_start) || (diag_abort && prev_abort) || (soft_reset_req && prev_soft)) begin
            $fatal(1, "tb_via_regfile: a command pulse longer than one cycle");
        end
        prev_start = diag_start;
        prev_abort = diag_abort;
        prev_soft = soft_reset_req;
        if (db_stall && (!db_wr_valid || {db_wr_vi, db_wr_offset, db_wr_data, db_wr_strb} !== db_stall_val[VI_WIDTH+DB_OFFSET_WIDTH+36-1:0])) begin
            $fatal(1, "tb_via_regfile: doorbell write dropped or changed before db_wr_ready");
        end
        if (db_wr_valid && db_wr_ready) begin
            db_log_vi[db_count] = db_wr_vi;
            db_log_off[db_count] = db_wr_offset;
            db_log_data[db_count] = db_wr_data;
            db_log_strb[db_count] = db_wr_strb;
            db_count = db_count + 1;
        end
        db_stall = db_wr_valid && !db_wr_ready;
        db_stall_val = {db_wr_vi, db_wr_offset, db_wr_data, db_wr_strb};
    end
end

// ------------------------------------------------------------ model

reg [31:0] sh_scratch, sh_irq_en, sh_irq_st, sh_src_lo, sh_src_hi, sh_dst_lo, sh_dst_hi, sh_len, sh_cfg;
reg [31:0] sh_xlat, sh_src_h, sh_dst_h, sh_p_handle, sh_p_va_lo, sh_p_va_hi, sh_p_len, sh_p_ctrl;
integer exp_start, exp_abort, exp_soft, exp_db, exp_go;

// control processor side of the model
reg        sh_run, sh_mem_sel, sh_busy, sh_done, sh_rej;
reg [15:0] sh_mem_word;
reg [15:0] sh_dropped;
reg [31:0] sh_log [0:FW_LOG_DEPTH-1];
integer    sh_log_n;
reg [31:0] sh_cmd [0:63];
reg [31:0] sh_rsp [0:63];
reg [31:0] sh_imem [0:IMEM_WORDS-1];
reg [31:0] sh_dmem [0:DMEM_WORDS-1];
integer    exp_admin_events = 0;

task model_reset;
    begin
        sh_run = 0;
        sh_mem_sel = 0;
        sh_mem_word = 0;
        sh_busy = 0;
        sh_done = 0;
        sh_rej = 0;
        sh_dropped = 0;
        sh_log_n = 0;
        sh_scratch = 0;
        sh_irq_en = 0;
        sh_irq_st = 0;
        sh_src_lo = 0;
        sh_src_hi = 0;
        sh_dst_lo = 0;
        sh_dst_hi = 0;
        sh_len = 0;
        sh_cfg = 0;
        sh_xlat = 0;
        sh_src_h = 0;
        sh_dst_h = 0;
        sh_p_handle = 0;
        sh_p_va_lo = 0;
        sh_p_va_hi = 0;
        sh_p_len = 0;
        sh_p_ctrl = 0;
    end
endtask

// register offsets of the layout, spelled out
function is_reg;
    input [15:0] off;
    begin
        case (off)
            16'h000, 16'h004, 16'h008, 16'h00c, 16'h010,
            16'h040, 16'h044, 16'h048, 16'h04c, 16'h050, 16'h054, 16'h058, 16'h05c, 16'h060, 16'h064,
            16'h080, 16'h084,
            16'h0c0, 16'h0c4, 16'h0c8, 16'h0cc,
            16'h100, 16'h104, 16'h108, 16'h10c, 16'h110, 16'h114, 16'h118, 16'h11c,
            16'h120, 16'h124, 16'h128, 16'h12c, 16'h130, 16'h134, 16'h138,
            16'h06c, 16'h13c, 16'h140, 16'h144,
            16'h380, 16'h384, 16'h388, 16'h38c, 16'h390, 16'h394, 16'h398, 16'h39c, 16'h3a0, 16'h3a4,
            16'h3b0, 16'h3b4, 16'h3b8, 16'h3bc,
            16'h180, 16'h184,
            16'h068, 16'h200, 16'h204, 16'h208, 16'h20c, 16'h210, 16'h214, 16'h218,
            16'h220, 16'h224, 16'h228, 16'h22c, 16'h230, 16'h300, 16'h304:
                is_reg = 1'b1;
            default:
                is_reg = 1'b0;
        endcase
    end
endfunction

function [1:0] model_resp;
    input [ADDR_WIDTH-1:0] addr;
    begin
        if (addr < 20'h10000) begin
            model_resp = (is_reg({addr[15:2], 2'b00}) || (addr >= 20'h400 && addr < 20'h600)) ? 2'b00 : 2'b10;
        end else if (addr < 20'h10000 + NUM_VI * 20'h1000) begin
            model_resp = 2'b00;
        end else begin
            model_resp = 2'b11;
        end
    end
endfunction

function [31:0] model_data;
    input [ADDR_WIDTH-1:0] addr;
    begin
        model_data = 32'd0;
        if (addr < 20'h10000) begin
            case ({addr[15:2], 2'b00})
                16'h000: model_data = 32'h5649414e;
                16'h004: model_data = 32'h00000100;  // 0.1.0
                16'h008: model_data = `VIA_BAR0_HASH & 64'hffffffff;
                16'h00c: model_data = `VIA_BAR0_HASH >> 32;
                16'h010: model_data = sh_scratch;
                16'h040: model_data = DATA_WIDTH;
                16'h044: model_data = NUM_VI;
                16'h048: model_data = 32'h10000;
                16'h04c: model_data = 32'h1000;
                16'h050: model_data = ADDR_WIDTH;
                16'h054: model_data = DMA_MAX_OUTSTANDING * 65536 + DMA_ID_WIDTH * 256 + DMA_ADDR_WIDTH;
                16'h058: model_data = DMA_MAX_BURST;
                16'h05c: model_data = NUM_IRQ;
                16'h060: model_data = NET_FIFO_DEPTH;
                16'h064: model_data = SOFT_RESET_CYCLES;
                16'h084: model_data = reset_busy;
                16'h0c0: model_data = sh_irq_st;
                16'h0c4: model_data = sh_irq_en;
                16'h0cc: model_data = sh_irq_st & sh_irq_en;
                16'h100: model_data = sh_src_lo;
                16'h104: model_data = sh_src_hi;
                16'h108: model_data = sh_dst_lo;
                16'h10c: model_data = sh_dst_hi;
                16'h110: model_data = sh_len;
                16'h118: model_data = sh_cfg;
                16'h11c: model_data = {in_xlat_code, in_xlat_dst, in_xlat_err,
                                       in_err_resp, 1'b0, in_aborted, in_wr_err, in_rd_err, in_bad_param,
                                       in_error, in_done, in_busy};
                16'h06c: model_data = 32'd7 * 256 + 32'd6;   // log2 128, log2 64
                16'h13c: model_data = sh_xlat;
                16'h140: model_data = sh_src_h;
                16'h144: model_data = sh_dst_h;
                16'h380: model_data = sh_p_handle;
                16'h384: model_data = sh_p_va_lo;
                16'h388: model_data = sh_p_va_hi;
                16'h38c: model_data = sh_p_len;
                16'h390: model_data = sh_p_ctrl;
                16'h398: model_data = {25'd0, in_p_status[6:4], 1'b0, in_p_status[2:0]};
                16'h39c: model_data = in_p_pa_lo;
                16'h3a0: model_data = in_p_pa_hi;
                16'h3a4: model_data = in_p_bytes;
                16'h3b0: model_data = in_lookups;
                16'h3b4: model_data = in_hits;
                16'h3b8: model_data = in_misses;
                16'h3bc: model_data = in_errors;
                16'h120: model_data = in_cycles;
                16'h124: model_data = in_bytes;
                16'h128: model_data = in_err_addr[31:0];
                16'h12c: model_data = in_err_addr[63:32];
                16'h130: model_data = in_rd_bursts;
                16'h134: model_data = in_wr_bursts;
                16'h138: model_data = in_max_inflight;
                16'h180: model_data = in_rx_frames;
                16'h184: model_data = in_tx_frames;
                16'h068: model_data = (CPU_DMEM_BYTES / 1024) * 65536 + CPU_IMEM_BYTES / 1024;
                16'h200: model_data = sh_run;
                16'h204: model_data = {in_wfi, in_halted, sh_run && !in_halted};
                16'h208: model_data = in_trap_cause;
                16'h20c: model_data = in_trap_pc;
                16'h210: model_data = in_trap_val;
                16'h214: model_data = in_pc;
                16'h218: model_data = in_retired;
                16'h220: model_data = {sh_mem_sel, 15'd0, sh_mem_word};
                16'h228: model_data = sh_run ? in_fw_ready : 32'd0;
                16'h22c: model_data = sh_log_n > 0 ? sh_log[0] : 32'd0;   // without the pop
                16'h230: model_data = {sh_dropped, 16'd0} | sh_log_n;       // without the clear
                16'h304: model_data = {sh_rej, sh_done, sh_busy};
                default: begin
                    if (addr >= 20'h400 && addr < 20'h500) model_data = sh_cmd[addr[7:2]];
                    else if (addr >= 20'h500 && addr < 20'h600) model_data = sh_rsp[addr[7:2]];
                    else model_data = 32'd0;
                end
            endcase
        end
    end
endfunction

// expected read data, and the read's side effects on the model
task model_read;
    input  [ADDR_WIDTH-1:0] addr;
    output [31:0]           data;
    integer k;
    begin
        data = model_data(addr);
        if (addr < 20'h400) begin
            case ({addr[15:2], 2'b00})
                16'h224: begin
                    data = !sh_mem_sel ? (sh_mem_word < IMEM_WORDS ? sh_imem[sh_mem_word] : 32'd0)
                                       : (sh_mem_word < DMEM_WORDS ? sh_dmem[sh_mem_word] : 32'd0);
                    sh_mem_word = sh_mem_word + 1;
                end
                16'h22c: begin
                    if (sh_log_n > 0) begin
                        for (k = 0; k < FW_LOG_DEPTH - 1; k = k + 1) sh_log[k] = sh_log[k + 1];
                        sh_log_n = sh_log_n - 1;
                    end
                end
                16'h230: sh_dropped = 0;
                default: begin
                end
            endcase
        end
    end
endtask

function [31:0] bytes_of;
    input [3:0] strb;
    begin
        bytes_of = {{8{strb[3]}}, {8{strb[2]}}, {8{strb[1]}}, {8{strb[0]}}};
    end
endfunction

function [31:0] merge;
    input [31:0] old;
    input [31:0] data;
    input [3:0] strb;
    begin
        merge = (old & ~bytes_of(strb)) | (data & bytes_of(strb));
    end
endfunction

task model_write;
    input [ADDR_WIDTH-1:0] addr;
    input [31:0] data;
    input [3:0] strb;
    reg [31:0] ones;
    begin
        ones = data & bytes_of(strb);
        if (reset_busy) begin
            // no effect
        end else if (addr < 20'h10000) begin
            case ({addr[15:2], 2'b00})
                16'h010: sh_scratch = merge(sh_scratch, data, strb);
                16'h080: exp_soft = exp_soft + ones[0];
                16'h0c0: sh_irq_st = sh_irq_st & ~ones;
                16'h0c4: sh_irq_en = merge(sh_irq_en, data, strb) & IRQ_MASK;
                16'h0c8: sh_irq_st = sh_irq_st | (ones & IRQ_MASK);
                16'h100: sh_src_lo = merge(sh_src_lo, data, strb);
                16'h104: sh_src_hi = merge(sh_src_hi, data, strb);
                16'h108: sh_dst_lo = merge(sh_dst_lo, data, strb);
                16'h10c: sh_dst_hi = merge(sh_dst_hi, data, strb);
                16'h110: sh_len = merge(sh_len, data, strb);
                16'h114: begin
                    exp_start = exp_start + ones[0];
                    exp_abort = exp_abort + ones[1];
                end
                16'h118: sh_cfg = merge(sh_cfg, data, strb) & CFG_MASK;
                16'h13c: sh_xlat = merge(sh_xlat, data, strb) & XLAT_MASK;
                16'h140: sh_src_h = merge(sh_src_h, data, strb);
                16'h144: sh_dst_h = merge(sh_dst_h, data, strb);
                16'h380: sh_p_handle = merge(sh_p_handle, data, strb);
                16'h384: sh_p_va_lo = merge(sh_p_va_lo, data, strb);
                16'h388: sh_p_va_hi = merge(sh_p_va_hi, data, strb);
                16'h38c: sh_p_len = merge(sh_p_len, data, strb);
                16'h390: sh_p_ctrl = merge(sh_p_ctrl, data, strb) & PCTRL_MASK;
                16'h394: exp_go = exp_go + 1;
                16'h200: begin
                    if (strb[0]) sh_run = data[0];
                    if (!sh_run) sh_busy = 0;
                end
                16'h220: begin
                    sh_mem_word = merge({16'd0, sh_mem_word}, data, strb);
                    if (strb[3]) sh_mem_sel = data[31];
                end
                16'h224: begin
                    if (!sh_mem_sel && sh_mem_word < IMEM_WORDS) sh_imem[sh_mem_word] = data;
                    if (sh_mem_sel && sh_mem_word < DMEM_WORDS) sh_dmem[sh_mem_word] = data;
                    sh_mem_word = sh_mem_word + 1;
                end
                16'h300: begin
                    if (sh_busy || !sh_run) begin
                        sh_rej = 1;
                    end else begin
                        sh_busy = 1;
                        sh_done = 0;
                        sh_rej = 0;
                        exp_admin_events = exp_admin_events + 1;
                    end
                end
                default: begin
                    if (addr >= 20'h400 && addr < 20'h500) sh_cmd[addr[7:2]] = merge(sh_cmd[addr[7:2]], data, strb);
                end
            endcase
        end else if (addr < 20'h10000 + NUM_VI * 20'h1000) begin
            exp_db = exp_db + 1;
        end
    end
endtask

task check_outputs;
    begin
        // pulses come one cycle after the write; wait for them to settle
        repeat (2) @(posedge clk);
        @(negedge clk);
        if (diag_src !== {sh_src_hi, sh_src_lo} || diag_dst !== {sh_dst_hi, sh_dst_lo} || diag_len !== sh_len
                || diag_cfg_max_burst !== sh_cfg[8:0] || diag_cfg_max_outstanding !== sh_cfg[19:16]
                || {diag_xlat_ptag, 8'd0, diag_xlat_dst_kind, diag_xlat_src_kind, 3'd0, diag_xlat_mode} !== sh_xlat
                || diag_src_handle !== sh_src_h || diag_dst_handle !== sh_dst_h
                || {p_handle, p_va_hi, p_va_lo, p_len} !== {sh_p_handle, sh_p_va_hi, sh_p_va_lo, sh_p_len}
                || {14'd0, p_kind, p_ptag} !== sh_p_ctrl) begin
            $fatal(1, "tb_via_regfile: DIAG outputs %h %h %h %h %h, expected %h %h %h %h %h",
                diag_src, diag_dst, diag_len, diag_cfg_max_burst, diag_cfg_max_outstanding,
                {sh_src_hi, sh_src_lo}, {sh_dst_hi, sh_dst_lo}, sh_len, sh_cfg[8:0], sh_cfg[19:16]);
        end
        if (go_pulses != exp_go) begin
            $fatal(1, "tb_via_regfile: %0d TPT_PROBE_GO strobes, expected %0d", go_pulses, exp_go);
        end
        if (start_pulses != exp_start || abort_pulses != exp_abort || soft_pulses != exp_soft) begin
            $fatal(1, "tb_via_regfile: pulses start %0d abort %0d soft %0d, expected %0d %0d %0d",
                start_pulses, abort_pulses, soft_pulses, exp_start, exp_abort, exp_soft);
        end
        if (irq !== (sh_irq_st & sh_irq_en)) begin
            $fatal(1, "tb_via_regfile: irq %b, expected %b", irq, sh_irq_st & sh_irq_en);
        end
        if (db_count != exp_db) begin
            $fatal(1, "tb_via_regfile: %0d doorbell writes on the port, expected %0d", db_count, exp_db);
        end
        if (admin_events != exp_admin_events) begin
            $fatal(1, "tb_via_regfile: %0d admin events, expected %0d", admin_events, exp_admin_events);
        end
        if (cpu_run !== sh_run) begin
            $fatal(1, "tb_via_regfile: cpu_run %b, expected %b", cpu_run, sh_run);
        end
        if (fw_log_space !== FW_LOG_DEPTH - sh_log_n) begin
            $fatal(1, "tb_via_regfile: fw_log_space %0d, expected %0d", fw_log_space, FW_LOG_DEPTH - sh_log_n);
        end
    end
endtask

// Accesses go through one server process, so that the model functions and
// the axil_master tasks have a single call site each (Verilator inlines
// tasks and functions at every call site).
reg                  op_write;
reg [ADDR_WIDTH-1:0] op_addr;
reg [31:0]           op_data;
reg [3:0]            op_strb;
integer              op_req = 0, op_ack = 0;
reg [ADDR_WIDTH-1:0] op_rel;
reg [31:0]           op_exp;

always begin
    wait (op_req != op_ack);
    if (op_write) begin
        // write through AXI-Lite, update the model, check response and outputs
        master.axil_write(op_addr, op_data, op_strb, model_resp(op_addr));
        model_write(op_addr, op_data, op_strb);
        check_outputs();
        if (!reset_busy && op_addr >= 20'h10000 && op_addr < 20'h10000 + NUM_VI * 20'h1000) begin
            op_rel = op_addr - 20'h10000;
            if (db_log_vi[db_count-1] !== op_rel[13:12] || db_log_off[db_count-1] !== {op_rel[11:2], 2'b00}
                    || db_log_data[db_count-1] !== op_data || db_log_strb[db_count-1] !== op_strb) begin
                $fatal(1, "tb_via_regfile: doorbell write 0x%0h: port saw VI %0d offset 0x%0h data 0x%08h strb %b",
                    op_addr, db_log_vi[db_count-1], db_log_off[db_count-1], db_log_data[db_count-1],
                    db_log_strb[db_count-1]);
            end
        end
    end else begin
        // read through AXI-Lite and compare with the model
        model_read(op_addr, op_exp);
        master.axil_read_check(op_addr, op_exp, model_resp(op_addr));
    end
    op_ack = op_ack + 1;
end

task access;
    input                  write;
    input [ADDR_WIDTH-1:0] addr;
    input [31:0]           data;
    input [3:0]            strb;
    begin
        op_write = write;
        op_addr = addr;
        op_data = data;
        op_strb = strb;
        op_req = op_req + 1;
        wait (op_ack == op_req);
    end
endtask

task wr;
    input [ADDR_WIDTH-1:0] addr;
    input [31:0] data;
    input [3:0] strb;
    begin
        access(1'b1, addr, data, strb);
    end
endtask

task rd;
    input [ADDR_WIDTH-1:0] addr;
    begin
        access(1'b0, addr, 32'd0, 4'd0);
    end
endtask

// every register of the layout
task read_all_regs;
    integer off;
    begin
        for (off = 0; off < 16'h400; off = off + 4) begin
            if (is_reg(off)) begin
                rd(off);
            end
        end
    end
endtask

// new random values on the hardware-side inputs
task randomize_inputs;
    reg [31:0] r;
    begin
        rand32(r);
        {in_busy, in_done, in_error, in_bad_param, in_rd_err, in_wr_err, in_aborted, in_err_resp} = r[8:0];
        rand32(in_cycles);
        rand32(in_bytes);
        rand32(r);
        in_err_addr[31:0] = r;
        rand32(r);
        in_err_addr[63:32] = r;
        rand32(in_rd_bursts);
        rand32(in_wr_bursts);
        rand32(r);
        in_max_inflight = r[7:0];
        {in_xlat_code, in_xlat_dst, in_xlat_err} = r[13:9];
        rand32(r);
        in_p_status = r[6:0];
        rand32(in_p_pa_lo);
        rand32(in_p_pa_hi);
        rand32(in_p_bytes);
        rand32(in_lookups);
        rand32(in_hits);
        rand32(in_misses);
        rand32(in_errors);
        rand32(in_rx_frames);
        rand32(in_tx_frames);
        rand32(r);
        in_wfi = r[0];
        in_trap_cause = r[12:8];
        // a rising edge of halted raises FW_FAULT
        if (r[1] && !in_halted && !reset_busy) begin
            sh_irq_st = sh_irq_st | 32'h2;
        end
        in_halted = r[1];
        rand32(in_trap_pc);
        rand32(in_trap_val);
        rand32(in_pc);
        rand32(in_retired);
        rand32(in_fw_ready);
    end
endtask

// an interesting random address
task rand_addr;
    output [ADDR_WIDTH-1:0] addr;
    reg [31:0] r, r2;
    begin
        rand32(r);
        rand32(r2);
        case (r % 8)
            0, 1: begin
                // a register (or a hole between registers)
                addr = r2 % 16'h190;
            end
            2: addr = 16'h200 + r2 % 16'h140;                   // control processor, mailbox
            3: addr = 16'h400 + r2 % 16'h200;                   // admin windows
            4: addr = r2 % 20'h10000;                           // anywhere global
            5: addr = 20'h10000 + r2 % (NUM_VI * 20'h1000);     // a doorbell page
            6: addr = 20'h10000 + NUM_VI * 20'h1000 + r2 % 20'h1000;  // just beyond
            default: addr = r2;                                 // anywhere
        endcase
    end
endtask


// ------------------------------------------------------------ firmware side

integer mi;
initial begin
    for (mi = 0; mi < IMEM_WORDS; mi = mi + 1) begin
        imem[mi] = 32'h1000_0000 + mi;
        sh_imem[mi] = 32'h1000_0000 + mi;
    end
    for (mi = 0; mi < DMEM_WORDS; mi = mi + 1) begin
        dmem[mi] = 32'h2000_0000 + mi;
        sh_dmem[mi] = 32'h2000_0000 + mi;
    end
end

// one word pushed by the firmware (LOG register)
task fw_log;
    input [31:0] word;
    begin
        @(negedge clk);
        fw_log_push = 1'b1;
        fw_log_data = word;
        @(negedge clk);
        fw_log_push = 1'b0;
        if (sh_log_n < FW_LOG_DEPTH) begin
            sh_log[sh_log_n] = word;
            sh_log_n = sh_log_n + 1;
        end else if (sh_dropped != 16'hffff) begin
            sh_dropped = sh_dropped + 1;
        end
        if (!reset_busy) sh_irq_st = sh_irq_st | 32'h8;
    end
endtask

// the firmware writes ADMIN_COMPLETE
task fw_complete;
    begin
        @(negedge clk);
        fw_admin_complete = 1'b1;
        @(negedge clk);
        fw_admin_complete = 1'b0;
        if (sh_busy) begin
            sh_busy = 0;
            sh_done = 1;
            if (!reset_busy) sh_irq_st = sh_irq_st | 32'h4;
        end
    end
endtask

// a firmware store into ADMIN_RSP
task fw_rsp_write;
    input [5:0]  word;
    input [31:0] data;
    input [3:0]  we;
    begin
        @(negedge clk);
        fw_rsp_en = 1'b1;
        fw_rsp_we = we;
        fw_rsp_addr = word;
        fw_rsp_wdata = data;
        @(negedge clk);
        fw_rsp_en = 1'b0;
        fw_rsp_we = 4'd0;
        sh_rsp[word] = merge(sh_rsp[word], data, we);
    end
endtask

// firmware loads from ADMIN_CMD and ADMIN_RSP (synchronous RAM reads)
task fw_win_read_check;
    input [5:0] word;
    begin
        @(negedge clk);
        fw_cmd_en = 1'b1;
        fw_cmd_addr = word;
        fw_rsp_en = 1'b1;
        fw_rsp_we = 4'd0;
        fw_rsp_addr = word;
        @(negedge clk);
        fw_cmd_en = 1'b0;
        fw_rsp_en = 1'b0;
        if (fw_cmd_rdata !== sh_cmd[word] || fw_rsp_rdata !== sh_rsp[word]) begin
            $fatal(1, "tb_via_regfile: firmware reads CMD[%0d] 0x%08h RSP 0x%08h, expected 0x%08h 0x%08h",
                word, fw_cmd_rdata, fw_rsp_rdata, sh_cmd[word], sh_rsp[word]);
        end
    end
endtask

// the firmware's read-only view of BAR0: exp_data is checked unless
// any_data; the error flag must say whether the offset holds a register
integer fw_bar_reads = 0;
integer fw_bar_waits = 0;

task fw_bar_read;
    input [9:0]  addr;
    input [31:0] exp_data;
    input        any_data;
    integer k;
    begin
        @(negedge clk);
        fw_bar_rd_en = 1'b1;
        fw_bar_rd_addr = addr;
        k = 0;
        #1;
        while (fw_bar_rd_ack !== 1'b1) begin
            @(negedge clk);
            k = k + 1;
            if (k > 20) begin
                $fatal(1, "tb_via_regfile: firmware BAR0 read 0x%0h not answered in 20 cycles", addr);
            end
        end
        fw_bar_waits = fw_bar_waits + k;
        if (fw_bar_rd_err !== !is_reg({6'd0, addr[9:2], 2'b00})
                || (!any_data && fw_bar_rd_data !== exp_data) || (^fw_bar_rd_data) === 1'bx) begin
            $fatal(1, "tb_via_regfile: firmware BAR0 read 0x%0h: 0x%08h err %b, expected 0x%08h err %b",
                addr, fw_bar_rd_data, fw_bar_rd_err, exp_data, !is_reg({6'd0, addr[9:2], 2'b00}));
        end
        fw_bar_reads = fw_bar_reads + 1;
        @(posedge clk);
        #1;
        fw_bar_rd_en = 1'b0;
    end
endtask

// a firmware reader of the BAR0 view running alongside the host traffic:
// registers that never change (identification, capabilities) exactly, the
// others only for X and the error flag
reg        fw_reader_on = 1'b0;
reg [31:0] fr_rng = 32'h1357_9bdf;
reg [9:0]  fr_addr;
reg [31:0] fr_exp;
reg        fr_any;

always begin
    @(negedge clk);
    if (fw_reader_on) begin
        fr_rng = fr_rng ^ (fr_rng << 13);
        fr_rng = fr_rng ^ (fr_rng >> 17);
        fr_rng = fr_rng ^ (fr_rng << 5);
        fr_addr = (fr_rng[12:11] == 2'd0) ? {fr_rng[6:2] + 5'd16, 2'b00} & 10'h07f   // 0x040..0x07c
                                          : fr_rng[9:0];
        fr_any = 1'b1;
        fr_exp = 32'd0;
        case ({fr_addr[9:2], 2'b00})
            10'h000, 10'h004, 10'h008, 10'h00c,
            10'h040, 10'h044, 10'h048, 10'h04c, 10'h050, 10'h054, 10'h058, 10'h05c,
            10'h060, 10'h064, 10'h068: begin
                fr_exp = model_data({10'd0, fr_addr});
                fr_any = 1'b0;
            end
            10'h080, 10'h0c8, 10'h114, 10'h224, 10'h300: begin
                fr_any = 1'b0;   // write-only, and CPU_MEM_DATA: 0
            end
            default: begin
            end
        endcase
        fw_bar_read(fr_addr, fr_exp, fr_any);
    end
end

// ------------------------------------------------------------ test

integer i, n, off;
reg [31:0] r, d;
reg [ADDR_WIDTH-1:0] a;
reg [3:0] s;
reg [31:0] got;
reg [1:0] resp;
reg stop_reader;

initial begin
    exp_start = 0;
    exp_abort = 0;
    exp_soft = 0;
    exp_go = 0;
    exp_db = 0;
    stop_reader = 1'b0;
    model_reset();
    repeat (5) @(posedge clk);
    #1;
    hard_rst = 1'b0;
    blk_rst = 1'b0;

    // the admin windows have no reset: give them defined contents (the
    // host writes ADMIN_CMD, the firmware ADMIN_RSP)
    for (i = 0; i < 64; i = i + 1) begin
        sh_cmd[i] = 32'hxxxxxxxx;
        sh_rsp[i] = 32'hxxxxxxxx;
        rand32(d);
        wr(20'h400 + 4 * i, d, 4'hf);
        rand32(d);
        fw_rsp_write(i, d, 4'hf);
    end

    // 1. reset values
    read_all_regs();
    check_outputs();

    // 2. sweep the global region, every doorbell page edge, and beyond
    master.max_delay = 0;
    master.ready_pct = 100;
    for (off = 0; off < 20'h10000; off = off + 4) begin
        rd(off);
    end
    for (i = 0; i <= NUM_VI; i = i + 1) begin
        rd(20'h10000 + i * 20'h1000);
        rd(20'h10000 + i * 20'h1000 + 20'hffc);
        rd(20'h10000 + i * 20'h1000 + 20'h7f3);
    end
    rd(20'hffffc);
    rd(20'h80000);
    master.max_delay = 2;
    master.ready_pct = 60;
    $display("tb_via_regfile: sweep done at %0t", $time);

    // 3. random traffic, with the firmware reading its BAR0 view meanwhile
    fw_reader_on = 1'b1;
    for (n = 0; n < 2500; n = n + 1) begin
        rand32(r);
        if (r % 16 == 0) begin
            randomize_inputs();
        end
        rand_addr(a);
        rand32(d);
        rand32(r);
        s = (r[7:4] < 4) ? 4'hf : r[3:0];
        if (r[8]) begin
            wr(a, d, s);
        end else begin
            rd(a);
        end
    end
    read_all_regs();
    fw_reader_on = 1'b0;
    wait (fw_bar_rd_en == 1'b0);
    $display("tb_via_regfile: random traffic done at %0t (%0d firmware BAR0 reads, %0d wait cycles)",
        $time, fw_bar_reads, fw_bar_waits);

    // 6. control processor (directed)
    in_halted = 1'b0;
    in_wfi = 1'b0;
    wr(`VIA_REG_CPU_CTRL, 32'h0, 4'hf);
    wr(`VIA_REG_IRQ_ENABLE, 32'hffffffff, 4'hf);
    wr(`VIA_REG_IRQ_STATUS, 32'hffffffff, 4'hf);
    check_outputs();
    // host download and readback of both memories
    wr(`VIA_REG_CPU_MEM_ADDR, 32'h0000_0003, 4'hf);
    for (i = 0; i < 20; i = i + 1) begin
        rand32(d);
        wr(`VIA_REG_CPU_MEM_DATA, d, 4'hf);
    end
    rd(`VIA_REG_CPU_MEM_ADDR);
    wr(`VIA_REG_CPU_MEM_ADDR, 32'h0000_0003, 4'hf);
    for (i = 0; i < 21; i = i + 1) begin
        rd(`VIA_REG_CPU_MEM_DATA);
    end
    wr(`VIA_REG_CPU_MEM_ADDR, 32'h8000_0000 | (DMEM_WORDS - 2), 4'hf);
    for (i = 0; i < 4; i = i + 1) begin                 // the last two exist
        wr(`VIA_REG_CPU_MEM_DATA, 32'hd0d0_0000 + i, 4'hf);
    end
    wr(`VIA_REG_CPU_MEM_ADDR, 32'h8000_0000 | (DMEM_WORDS - 2), 4'hf);
    for (i = 0; i < 4; i = i + 1) begin
        rd(`VIA_REG_CPU_MEM_DATA);
    end
    wr(`VIA_REG_CPU_MEM_ADDR, 32'h0000_ffff, 4'hf);
    rd(`VIA_REG_CPU_MEM_DATA);
    rd(`VIA_REG_CPU_MEM_ADDR);                          // wrapped to 0
    wr(`VIA_REG_CPU_MEM_ADDR, 32'h0000_0100, 4'b0010);  // byte strobes
    rd(`VIA_REG_CPU_MEM_ADDR);
    // a write and a read of CPU_MEM_DATA at the same time: one after the
    // other, in either order, each on its own word
    for (n = 0; n < 6; n = n + 1) begin
        wr(`VIA_REG_CPU_MEM_ADDR, 32'h0000_0040 + 2 * n, 4'hf);
        rand32(d);
        fork
            master.axil_write(`VIA_REG_CPU_MEM_DATA, d, 4'hf, 2'b00);
            begin
                repeat (n % 3) @(posedge clk);
                master.axil_read(`VIA_REG_CPU_MEM_DATA, got, resp);
            end
        join
        a = 20'h40 + 2 * n;
        if (resp !== 2'b00 || !((got === sh_imem[a] && imem[a + 1] === d) || (got === sh_imem[a + 1] && imem[a] === d))) begin
            $fatal(1, "tb_via_regfile: CPU_MEM_DATA write 0x%08h and read 0x%08h at once (words 0x%08h 0x%08h)",
                d, got, imem[a], imem[a + 1]);
        end
        sh_imem[a] = imem[a];
        sh_imem[a + 1] = imem[a + 1];
        sh_mem_word = a + 2;
        rd(`VIA_REG_CPU_MEM_ADDR);
    end
    // the same for ADMIN_CMD
    for (n = 0; n < 4; n = n + 1) begin
        rand32(d);
        fork
            master.axil_write(20'h400 + 4 * n, d, 4'hf, 2'b00);
            begin
                repeat (n % 2) @(posedge clk);
                master.axil_read(20'h400 + 4 * n, got, resp);
            end
        join
        if (resp !== 2'b00 || (got !== d && got !== sh_cmd[n])) begin
            $fatal(1, "tb_via_regfile: ADMIN_CMD write and read at once: 0x%08h", got);
        end
        sh_cmd[n] = d;
        rd(20'h400 + 4 * n);
    end
    $display("tb_via_regfile: host port ok at %0t (%0d writes, %0d reads on it)", $time, host_writes, host_reads);
    // admin windows from the firmware side
    for (i = 0; i < 64; i = i + 7) begin
        fw_win_read_check(i);
    end
    fw_rsp_write(5, 32'hAABBCCDD, 4'b1010);
    fw_win_read_check(5);
    rd(20'h514);
    wr(20'h514, 32'h0, 4'hf);                           // host: read-only
    rd(20'h514);
    // the admin mailbox
    wr(`VIA_REG_ADMIN_DOORBELL, 32'h1, 4'hf);           // RUN=0: rejected
    rd(`VIA_REG_ADMIN_STATUS);
    in_fw_ready = 32'h5646_0001;
    rd(`VIA_REG_FW_READY);                              // 0 while RUN=0
    wr(`VIA_REG_CPU_CTRL, 32'h1, 4'hf);
    rd(`VIA_REG_FW_READY);
    rd(`VIA_REG_CPU_STATUS);
    fw_complete();                                      // nothing to complete
    check_outputs();
    wr(`VIA_REG_ADMIN_DOORBELL, 32'h1, 4'hf);
    rd(`VIA_REG_ADMIN_STATUS);
    wr(`VIA_REG_ADMIN_DOORBELL, 32'h0, 4'h0);           // busy: rejected
    rd(`VIA_REG_ADMIN_STATUS);
    fw_complete();
    check_outputs();
    rd(`VIA_REG_ADMIN_STATUS);
    rd(`VIA_REG_IRQ_STATUS);
    wr(`VIA_REG_ADMIN_DOORBELL, 32'h1, 4'hf);           // accepted: clears DONE, REJECTED
    rd(`VIA_REG_ADMIN_STATUS);
    wr(`VIA_REG_CPU_CTRL, 32'h0, 4'hf);                 // RUN=0 abandons it
    rd(`VIA_REG_ADMIN_STATUS);
    rd(`VIA_REG_CPU_STATUS);
    wr(`VIA_REG_CPU_CTRL, 32'h1, 4'hf);
    wr(`VIA_REG_ADMIN_DOORBELL, 32'h1, 4'hf);
    fw_complete();
    rd(`VIA_REG_ADMIN_STATUS);
    check_outputs();
    // FW_FAULT on the rising edge of halted only
    wr(`VIA_REG_IRQ_STATUS, 32'hffffffff, 4'hf);
    @(negedge clk);
    in_halted = 1'b1;
    sh_irq_st = sh_irq_st | 32'h2;
    check_outputs();
    rd(`VIA_REG_CPU_STATUS);
    wr(`VIA_REG_IRQ_STATUS, 32'h2, 4'hf);
    check_outputs();                                    // still halted: no new edge
    rd(`VIA_REG_IRQ_STATUS);
    in_halted = 1'b0;
    $display("tb_via_regfile: admin mailbox and faults ok at %0t", $time);
    // the log FIFO: fill, wrap, overflow, pops, level; the firmware's view
    // of FW_LOG and FW_LOG_LEVEL has no side effect
    wr(`VIA_REG_IRQ_STATUS, 32'hffffffff, 4'hf);
    for (n = 0; n < 3; n = n + 1) begin
        for (i = 0; i < FW_LOG_DEPTH + 2; i = i + 1) begin
            rand32(d);
            fw_log(d);
        end
        check_outputs();
        fw_bar_read(10'h230, model_data(20'h230), 1'b0);
        fw_bar_read(10'h22c, sh_log[0], 1'b0);
        fw_bar_read(10'h22e, sh_log[0], 1'b0);
        rd(`VIA_REG_FW_LOG_LEVEL);                      // clears DROPPED
        rd(`VIA_REG_FW_LOG_LEVEL);
        rd(`VIA_REG_IRQ_STATUS);
        for (i = 0; i < FW_LOG_DEPTH - 2 + n; i = i + 1) begin
            rd(`VIA_REG_FW_LOG);
        end
        check_outputs();
        wr(`VIA_REG_IRQ_STATUS, 32'hffffffff, 4'hf);
    end
    for (i = 0; i < FW_LOG_DEPTH; i = i + 1) begin
        rd(`VIA_REG_FW_LOG);
    end
    rd(`VIA_REG_FW_LOG_LEVEL);
    // the dropped count saturates
    for (i = 0; i < FW_LOG_DEPTH; i = i + 1) fw_log(32'h0);
    @(negedge clk);
    fw_log_push = 1'b1;
    repeat (70000) @(negedge clk);
    fw_log_push = 1'b0;
    sh_dropped = 16'hffff;
    rd(`VIA_REG_FW_LOG_LEVEL);
    rd(`VIA_REG_FW_LOG_LEVEL);
    fw_bar_read(10'h224, 32'h0, 1'b0);                  // CPU_MEM_DATA: 0, no access
    rd(`VIA_REG_CPU_MEM_ADDR);
    $display("tb_via_regfile: firmware log ok at %0t", $time);
    wr(`VIA_REG_IRQ_STATUS, 32'hffffffff, 4'hf);
    wr(`VIA_REG_IRQ_ENABLE, 32'h0, 4'hf);
    check_outputs();

    // directed: unaligned accesses act on the word
    wr(20'h00013, 32'hdeadbeef, 4'b1000);
    rd(20'h00012);
    rd(20'h00001);
    // directed: commands
    wr(`VIA_REG_DIAG_CTRL, 32'h1, 4'h1);
    wr(`VIA_REG_DIAG_CTRL, 32'h2, 4'h1);
    wr(`VIA_REG_DIAG_CTRL, 32'h3, 4'h1);
    wr(`VIA_REG_DIAG_CTRL, 32'h3, 4'he);   // strobe off: nothing
    wr(`VIA_REG_DIAG_CTRL, 32'hfffffffc, 4'hf);
    wr(`VIA_REG_CTRL, 32'h1, 4'h1);
    wr(`VIA_REG_CTRL, 32'h1, 4'h2);
    wr(`VIA_REG_CTRL, 32'hfffffffe, 4'hf);

    // 4. interrupts
    wr(`VIA_REG_IRQ_ENABLE, 32'hffffffff, 4'hf);
    wr(`VIA_REG_IRQ_STATUS, 32'hffffffff, 4'hf);
    wr(`VIA_REG_IRQ_FORCE, 32'h0000000a, 4'h1);
    rd(`VIA_REG_IRQ_STATUS);
    rd(`VIA_REG_IRQ_PENDING);
    wr(`VIA_REG_IRQ_ENABLE, 32'h00000002, 4'h1);
    rd(`VIA_REG_IRQ_PENDING);
    wr(`VIA_REG_IRQ_FORCE, 32'hffffffff, 4'hf);   // bits >= NUM_IRQ do not exist
    rd(`VIA_REG_IRQ_STATUS);
    wr(`VIA_REG_IRQ_STATUS, 32'h00000002, 4'h1);
    rd(`VIA_REG_IRQ_PENDING);
    wr(`VIA_REG_IRQ_ENABLE, 32'hffffffff, 4'hf);
    // hardware causes
    n = NUM_IRQ;  // a variable bound: Verilator would unroll a constant one
    for (i = 0; i < n; i = i + 1) begin
        wr(`VIA_REG_IRQ_STATUS, 32'hffffffff, 4'hf);
        @(posedge clk) #1;
        in_irq_set = 1 << i;
        @(posedge clk) #1;
        in_irq_set = 0;
        sh_irq_st = sh_irq_st | (1 << i);
        check_outputs();
        rd(`VIA_REG_IRQ_STATUS);
    end
    // a cause raised in the cycle a w1c clear takes effect wins
    wr(`VIA_REG_IRQ_FORCE, 32'h1f, 4'h1);
    collide_bits = 5'b00101;
    master.axil_write(`VIA_REG_IRQ_STATUS, 32'h1f, 4'h1, 2'b00);
    collide_bits = 5'b00000;
    model_write(`VIA_REG_IRQ_STATUS, 32'h1f, 4'h1);
    sh_irq_st = sh_irq_st | 32'h5;
    check_outputs();
    rd(`VIA_REG_IRQ_STATUS);
    rd(`VIA_REG_IRQ_PENDING);
    wr(`VIA_REG_IRQ_STATUS, 32'h1f, 4'h1);
    rd(`VIA_REG_IRQ_STATUS);

    // 5. reset_busy: no effects, then the block reset
    wr(`VIA_REG_SCRATCH, 32'h600dcafe, 4'hf);
    wr(`VIA_REG_IRQ_FORCE, 32'h3, 4'h1);
    @(posedge clk) #1;
    reset_busy = 1'b1;
    rd(`VIA_REG_STATUS);
    for (n = 0; n < 200; n = n + 1) begin
        rand_addr(a);
        rand32(d);
        wr(a, d, 4'hf);
        rd(a);
    end
    wr(`VIA_REG_DIAG_CTRL, 32'h3, 4'hf);
    wr(`VIA_REG_CTRL, 32'h1, 4'hf);
    wr(20'h10000, 32'h1, 4'hf);
    // hardware interrupt causes are ignored too
    @(posedge clk) #1;
    in_irq_set = 5'h1f;
    @(posedge clk) #1;
    in_irq_set = 5'h00;
    check_outputs();
    read_all_regs();
    // block reset while reads keep going
    fork
        begin
            while (!stop_reader) begin
                master.axil_read(`VIA_REG_SCRATCH, got, resp);
                if (resp !== 2'b00 || (got !== 32'h600dcafe && got !== 32'h0)) begin
                    $fatal(1, "tb_via_regfile: SCRATCH read 0x%08h resp %0d during the block reset", got, resp);
                end
            end
        end
        begin
            repeat (7) @(posedge clk);
            #1;
            blk_rst = 1'b1;
            repeat (SOFT_RESET_CYCLES) @(posedge clk);
            #1;
            blk_rst = 1'b0;
            repeat (7) @(posedge clk);
            stop_reader = 1'b1;
        end
    join
    model_reset();
    read_all_regs();
    @(posedge clk) #1;
    reset_busy = 1'b0;
    rd(`VIA_REG_STATUS);
    check_outputs();
    wr(`VIA_REG_SCRATCH, 32'h12345678, 4'hf);
    rd(`VIA_REG_SCRATCH);

    $display("tb_via_regfile: %0d writes, %0d reads, %0d doorbell writes, %0d/%0d/%0d pulses",
        master.writes_done, master.reads_done, db_count, start_pulses, abort_pulses, soft_pulses);
    $display("PASS");
    $finish;
end

endmodule
