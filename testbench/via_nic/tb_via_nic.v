// tb_via_nic: top-level self-checking bench for rtl/via_nic.v (default
// parameters), with random back-pressure on every handshake:
//   BAR0     testbench/common/axil_master.v (random valid delays, B/R ready)
//   DMA      testbench/common/axi_ram_model.v (64 KiB, random ready/valid)
//   network  testbench/common/axis_source.v -> s_axis, m_axis ->
//            testbench/common/axis_sink.v (random gaps and tready)
//
// Sequence:
//   1. identification and capabilities: MAGIC, HW_VERSION, MAP_HASH_LO/HI,
//      CAP_* against the parameters (the layout's defaults), CAP_DB_*;
//   1b. CAP_TPT; the TPT probe (TPT_PROBE_*: HANDLE errors for handle 0
//      and an unregistered region, the TPT_LOOKUPS/ERRORS counters);
//   2. SCRATCH with byte strobes; SLVERR on unmapped global offsets (reads 0,
//      writes ignored); doorbell pages OKAY (reads 0); DECERR beyond them;
//   3. interrupts: IRQ_FORCE / IRQ_ENABLE / IRQ_STATUS (w1c) / IRQ_PENDING
//      and the irq pins;
//   4. DMA diagnostic copies programmed over BAR0, completion seen as an
//      interrupt on irq[0], destination checked byte for byte (and the bytes
//      around it untouched), statistics against what the memory saw;
//   5. DMA errors: read SLVERR, read DECERR (beyond the memory), write
//      SLVERR, bad parameters, abort - each visible in DIAG_STATUS /
//      DIAG_ERR_ADDR and raising the interrupt;
//   5b. translated copies: two regions programmed on the TPT's port (forced,
//      the core being held in reset), scattered pages, the probe's PA, a
//      page-crossing copy over BAR0 (DIAG_XLAT, handles) checked byte for
//      byte, a PTAG error writing nothing, a soft reset in the middle of a
//      translated copy (nothing left in flight, the TPT cleared: HANDLE);
//   6. network port: random frames into s_axis are taken, none delivered,
//      each counted once (NET_RX_FRAMES and one of the NET_RX_* drop
//      counters), nothing sent on m_axis (the wire's good paths are tested
//      by the via_wire bench and the co-simulation tests);
//   7. soft reset: every register back to its reset value, RESET_BUSY while
//      it runs, the triggering write answered; once idle, once in the middle
//      of a long DMA copy (no AXI4 transaction is cut: nothing outstanding
//      while the blocks are in reset) and once with frames coming in on the
//      network port; the NIC works normally afterwards;
//   8. control processor (programs in fw/, built by fw/build.sh): host
//      download through CPU_MEM_ADDR/DATA with readback (both memories,
//      auto-increment, words beyond the memory), a doorbell while the core
//      is held in reset is REJECTED, RUN, FW_READY, the boot log (what the
//      firmware read through its BAR0 view: MAGIC, CAP_CPU, FW_LOG_LEVEL and
//      FW_LOG without side effects) on FW_LOG and on the fw_log_* debug
//      port, FW_LOG irq, the admin mailbox (ADMIN_CMD written, doorbell,
//      REJECTED while BUSY, ADMIN_DONE irq, ADMIN_RSP = ADMIN_CMD), a timer
//      event, WFI and idle, an illegal instruction (FW_FAULT irq,
//      CPU_STATUS.HALTED, CPU_TRAP_* exact, idle while halted), RUN=0 / RUN=1
//      restarts, a soft reset stops the core.

`timescale 1ns / 1ps

`include "via_bar0.vh"

module tb_via_nic;

localparam DATA_WIDTH = `VIA_DEFAULT_DATA_WIDTH;
localparam KEEP_WIDTH = DATA_WIDTH / 8;
localparam BYTES = DATA_WIDTH / 8;
localparam NUM_VI = `VIA_DEFAULT_NUM_VI;
localparam AXIL_ADDR_WIDTH = `VIA_DEFAULT_AXIL_ADDR_WIDTH;
localparam DMA_ADDR_WIDTH = `VIA_DEFAULT_DMA_ADDR_WIDTH;
localparam DMA_ID_WIDTH = `VIA_DEFAULT_DMA_ID_WIDTH;
localparam DMA_MAX_BURST = `VIA_DEFAULT_DMA_MAX_BURST;
localparam DMA_MAX_OUTSTANDING = `VIA_DEFAULT_DMA_MAX_OUTSTANDING;
localparam NUM_IRQ = `VIA_DEFAULT_NUM_IRQ;
localparam [31:0] IRQ_MASK = (NUM_IRQ >= 32) ? 32'hffffffff : ((32'd1 << NUM_IRQ) - 32'd1);
localparam NET_FIFO_DEPTH = `VIA_DEFAULT_NET_FIFO_DEPTH;
localparam SOFT_RESET_CYCLES = `VIA_DEFAULT_SOFT_RESET_CYCLES;

localparam MEM_BYTES = 65536;
localparam IDLE_WAIT = 8;   // cycles after which a quiet NIC must say idle

localparam [1:0] OKAY = 2'b00;
localparam [1:0] SLVERR = 2'b10;
localparam [1:0] DECERR = 2'b11;

reg clk = 1'b0;
reg rst = 1'b1;

always #5 clk = ~clk;

reg [8*256-1:0] vcd_file;

initial begin
    if ($value$plusargs("vcd=%s", vcd_file)) begin
        $dumpfile(vcd_file);
        $dumpvars(0, tb_via_nic);
    end
end

initial begin
    #50000000;
    $fatal(1, "tb_via_nic: watchdog timeout");
end

// ------------------------------------------------------------ wiring

wire [AXIL_ADDR_WIDTH-1:0] s_axil_awaddr, s_axil_araddr;
wire [2:0]                 s_axil_awprot, s_axil_arprot;
wire                       s_axil_awvalid, s_axil_awready, s_axil_wvalid, s_axil_wready;
wire                       s_axil_bvalid, s_axil_bready, s_axil_arvalid, s_axil_arready;
wire                       s_axil_rvalid, s_axil_rready;
wire [31:0]                s_axil_wdata, s_axil_rdata;
wire [3:0]                 s_axil_wstrb;
wire [1:0]                 s_axil_bresp, s_axil_rresp;

wire [DMA_ID_WIDTH-1:0]    m_axi_awid, m_axi_bid, m_axi_arid, m_axi_rid;
wire [DMA_ADDR_WIDTH-1:0]  m_axi_awaddr, m_axi_araddr;
wire [7:0]                 m_axi_awlen, m_axi_arlen;
wire [2:0]                 m_axi_awsize, m_axi_arsize, m_axi_awprot, m_axi_arprot;
wire [1:0]                 m_axi_awburst, m_axi_arburst, m_axi_bresp, m_axi_rresp;
wire                       m_axi_awlock, m_axi_arlock;
wire [3:0]                 m_axi_awcache, m_axi_arcache;
wire                       m_axi_awvalid, m_axi_awready, m_axi_wlast, m_axi_wvalid, m_axi_wready;
wire                       m_axi_bvalid, m_axi_bready, m_axi_arvalid, m_axi_arready;
wire                       m_axi_rlast, m_axi_rvalid, m_axi_rready;
wire [DATA_WIDTH-1:0]      m_axi_wdata, m_axi_rdata;
wire [DATA_WIDTH/8-1:0]    m_axi_wstrb;

wire [DATA_WIDTH-1:0]      s_axis_tdata, m_axis_tdata;
wire [KEEP_WIDTH-1:0]      s_axis_tkeep, m_axis_tkeep;
wire                       s_axis_tvalid, s_axis_tready, s_axis_tlast;
wire                       m_axis_tvalid, m_axis_tready, m_axis_tlast;

wire [NUM_IRQ-1:0]         irq;
wire                       idle;
integer                    idle_cycles = 0;
wire                       fw_log_valid;
wire [31:0]                fw_log_word;

// the platform's time base: starts just below 2**32 so that the firmware's
// 64-bit timer arithmetic crosses into TIME_HI during the run
reg [63:0] time_cycles = 64'h0000_0000_ffff_c000;

always @(posedge clk) begin
    time_cycles <= time_cycles + 64'd1;
end

// the control processor is busy unless held in reset, halted, or asleep in
// WFI with nothing to wake it
wire cpu_active = !dut.cpu_rst && !dut.cpu_halted && !(dut.cpu_wfi && !dut.cpu_irq_wake);

// words on the fw_log debug port
integer    fwlog_count = 0;
reg [31:0] fwlog_words [0:255];
reg [63:0] fwlog_time [0:255];

always @(posedge clk) begin
    if (!rst && fw_log_valid) begin
        if ((^fw_log_word) === 1'bx) begin
            $fatal(1, "tb_via_nic: X on fw_log_word");
        end
        fwlog_words[fwlog_count % 256] = fw_log_word;
        fwlog_time[fwlog_count % 256] = time_cycles;
        fwlog_count = fwlog_count + 1;
    end
end

// idle promises that nothing moves until an input does: it must never be
// high while a DMA burst, a BAR0 transaction or a network beat is under way
always @(posedge clk) begin
    if (!rst && idle) begin
        idle_cycles = idle_cycles + 1;
        if (dut.diag_busy || m_axi_arvalid || m_axi_awvalid || m_axi_wvalid || m_axi_rready && m_axi_rvalid ||
            s_axil_awvalid || s_axil_wvalid || s_axil_arvalid || s_axil_bvalid || s_axil_rvalid ||
            m_axis_tvalid || s_axis_tvalid || dut.soft_reset_busy) begin
            $fatal(1, "tb_via_nic: idle high at %0t while the NIC is busy", $time);
        end
        if (dut.per_valid || fw_log_valid || dut.fw_admin_event || dut.regfile_inst.rd_wait_reg
                || (!dut.cpu_rst && !dut.cpu_halted && (cpu_active || dut.per_ev_pending || dut.per_timer_armed))) begin
            $fatal(1, "tb_via_nic: idle high at %0t while the control processor is busy", $time);
        end
    end
end

axil_master #(
    .ADDR_WIDTH(AXIL_ADDR_WIDTH),
    .MAX_DELAY(3),
    .READY_PCT(60)
) mmio (
    .clk(clk),
    .rst(rst),
    .m_axil_awaddr(s_axil_awaddr),
    .m_axil_awprot(s_axil_awprot),
    .m_axil_awvalid(s_axil_awvalid),
    .m_axil_awready(s_axil_awready),
    .m_axil_wdata(s_axil_wdata),
    .m_axil_wstrb(s_axil_wstrb),
    .m_axil_wvalid(s_axil_wvalid),
    .m_axil_wready(s_axil_wready),
    .m_axil_bresp(s_axil_bresp),
    .m_axil_bvalid(s_axil_bvalid),
    .m_axil_bready(s_axil_bready),
    .m_axil_araddr(s_axil_araddr),
    .m_axil_arprot(s_axil_arprot),
    .m_axil_arvalid(s_axil_arvalid),
    .m_axil_arready(s_axil_arready),
    .m_axil_rdata(s_axil_rdata),
    .m_axil_rresp(s_axil_rresp),
    .m_axil_rvalid(s_axil_rvalid),
    .m_axil_rready(s_axil_rready)
);

via_nic dut (
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
    .irq(irq),
    .time_cycles(time_cycles),
    .node_id(8'd3),
    .fw_log_valid(fw_log_valid),
    .fw_log_word(fw_log_word),
    .idle(idle)
);

axi_ram_model #(
    .DATA_WIDTH(DATA_WIDTH),
    .ADDR_WIDTH(DMA_ADDR_WIDTH),
    .ID_WIDTH(DMA_ID_WIDTH),
    .MEM_BYTES(MEM_BYTES),
    .READ_LATENCY(12),
    .WRITE_LATENCY(3),
    .READY_PROB(60)
) ram (
    .clk(clk),
    .rst(rst),
    .s_axi_awid(m_axi_awid),
    .s_axi_awaddr(m_axi_awaddr),
    .s_axi_awlen(m_axi_awlen),
    .s_axi_awsize(m_axi_awsize),
    .s_axi_awburst(m_axi_awburst),
    .s_axi_awlock(m_axi_awlock),
    .s_axi_awcache(m_axi_awcache),
    .s_axi_awprot(m_axi_awprot),
    .s_axi_awvalid(m_axi_awvalid),
    .s_axi_awready(m_axi_awready),
    .s_axi_wdata(m_axi_wdata),
    .s_axi_wstrb(m_axi_wstrb),
    .s_axi_wlast(m_axi_wlast),
    .s_axi_wvalid(m_axi_wvalid),
    .s_axi_wready(m_axi_wready),
    .s_axi_bid(m_axi_bid),
    .s_axi_bresp(m_axi_bresp),
    .s_axi_bvalid(m_axi_bvalid),
    .s_axi_bready(m_axi_bready),
    .s_axi_arid(m_axi_arid),
    .s_axi_araddr(m_axi_araddr),
    .s_axi_arlen(m_axi_arlen),
    .s_axi_arsize(m_axi_arsize),
    .s_axi_arburst(m_axi_arburst),
    .s_axi_arlock(m_axi_arlock),
    .s_axi_arcache(m_axi_arcache),
    .s_axi_arprot(m_axi_arprot),
    .s_axi_arvalid(m_axi_arvalid),
    .s_axi_arready(m_axi_arready),
    .s_axi_rid(m_axi_rid),
    .s_axi_rdata(m_axi_rdata),
    .s_axi_rresp(m_axi_rresp),
    .s_axi_rlast(m_axi_rlast),
    .s_axi_rvalid(m_axi_rvalid),
    .s_axi_rready(m_axi_rready)
);

axis_source #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH)
) net_src (
    .clk(clk),
    .rst(rst),
    .m_axis_tdata(s_axis_tdata),
    .m_axis_tkeep(s_axis_tkeep),
    .m_axis_tvalid(s_axis_tvalid),
    .m_axis_tready(s_axis_tready),
    .m_axis_tlast(s_axis_tlast)
);

axis_sink #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH)
) net_snk (
    .clk(clk),
    .rst(rst),
    .s_axis_tdata(m_axis_tdata),
    .s_axis_tkeep(m_axis_tkeep),
    .s_axis_tvalid(m_axis_tvalid),
    .s_axis_tready(m_axis_tready),
    .s_axis_tlast(m_axis_tlast)
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
    rng = seed * 32'h9e3779b1 + 32'd424242;
    if (rng == 32'd0) begin
        rng = 32'h2545f491;
    end
end

// ------------------------------------------------------------ monitors

// soft reset: length of each block-reset pulse, and nothing outstanding on
// the DMA bus or stalled on m_axis while the blocks are held in reset
wire    blk_rst = dut.soft_reset_inst.blk_rst;
integer blk_len = 0, blk_pulses = 0;
reg     prev_blk = 1'b0;
reg     prev_irq0 = 1'b0;

always @(negedge clk) begin
    if (!rst) begin
        if (blk_rst) begin
            blk_len = blk_len + 1;
            if (ram.rd_outstanding != 0 || ram.wr_outstanding != 0 || ram.awq_count != 0
                    || m_axi_arvalid || m_axi_awvalid || m_axi_wvalid) begin
                $fatal(1, "tb_via_nic: soft reset while the DMA bus has a transaction in flight (rd %0d wr %0d)",
                    ram.rd_outstanding, ram.wr_outstanding);
            end
        end else if (prev_blk) begin
            if (blk_len != SOFT_RESET_CYCLES) begin
                $fatal(1, "tb_via_nic: soft reset held the blocks %0d cycles", blk_len);
            end
            blk_len = 0;
            blk_pulses = blk_pulses + 1;
        end
        prev_blk = blk_rst;
        if (dut.soft_reset_busy && irq[0] && !prev_irq0) begin
            $fatal(1, "tb_via_nic: DMA completion interrupt raised during a soft reset");
        end
        prev_irq0 = irq[0];
        if ((^irq) === 1'bx) begin
            $fatal(1, "tb_via_nic: X on irq");
        end
    end
end

// ------------------------------------------------------------ helpers

reg [31:0] rdata;

// BAR0 accesses go through one server process, which also checks the
// results, so that the axil_master tasks and the error reports have a single
// call site (Verilator inlines tasks at every call site, and this bench makes
// hundreds of accesses).
reg                       op_write;
reg [AXIL_ADDR_WIDTH-1:0] op_addr;
reg [31:0]                op_data;     // write data, or expected read data
reg [3:0]                 op_strb;
reg [1:0]                 op_expect;   // expected response
reg                       op_check;    // compare read data with op_data
reg [1:0]                 op_resp;
reg [31:0]                op_rdata;
integer                   op_req = 0, op_ack = 0;

always begin
    wait (op_req != op_ack);
    if (op_write) begin
        mmio.axil_write_resp(op_addr, op_data, op_strb, op_resp);
        if (op_resp !== op_expect) begin
            $fatal(1, "tb_via_nic: write 0x%0h = 0x%08h strb %b: resp %0d, expected %0d",
                op_addr, op_data, op_strb, op_resp, op_expect);
        end
    end else begin
        mmio.axil_read(op_addr, op_rdata, op_resp);
        if (op_resp !== op_expect || (op_check && op_rdata !== op_data)) begin
            $fatal(1, "tb_via_nic: read 0x%0h: 0x%08h resp %0d, expected 0x%08h resp %0d",
                op_addr, op_rdata, op_resp, op_data, op_expect);
        end
    end
    op_ack = op_ack + 1;
end

task bar0_access;
    input                       write;
    input [AXIL_ADDR_WIDTH-1:0] addr;
    input [31:0]                data;
    input [3:0]                 strb;
    input [1:0]                 expect_resp;
    input                       check;
    begin
        op_write = write;
        op_addr = addr;
        op_data = data;
        op_strb = strb;
        op_expect = expect_resp;
        op_check = check;
        op_req = op_req + 1;
        wait (op_ack == op_req);
    end
endtask

// write with strobes, $fatal unless the response is expect_resp
task bar0_write;
    input [AXIL_ADDR_WIDTH-1:0] addr;
    input [31:0]                data;
    input [3:0]                 strb;
    input [1:0]                 expect_resp;
    begin
        bar0_access(1'b1, addr, data, strb, expect_resp, 1'b0);
    end
endtask

// read, $fatal unless data and response are as expected
task bar0_read_check;
    input [AXIL_ADDR_WIDTH-1:0] addr;
    input [31:0]                expect_data;
    input [1:0]                 expect_resp;
    begin
        bar0_access(1'b0, addr, expect_data, 4'd0, expect_resp, 1'b1);
    end
endtask

task wr;
    input [AXIL_ADDR_WIDTH-1:0] addr;
    input [31:0] data;
    begin
        bar0_access(1'b1, addr, data, 4'hf, OKAY, 1'b0);
    end
endtask

task rd_check;
    input [AXIL_ADDR_WIDTH-1:0] addr;
    input [31:0] expect_data;
    begin
        bar0_access(1'b0, addr, expect_data, 4'd0, OKAY, 1'b1);
    end
endtask

// read, $fatal unless OKAY
task rd;
    input [AXIL_ADDR_WIDTH-1:0] addr;
    output [31:0] data;
    begin
        bar0_access(1'b0, addr, 32'd0, 4'd0, OKAY, 1'b0);
        data = op_rdata;
    end
endtask

task expect_irq;
    input [NUM_IRQ-1:0] pins;
    begin
        // irq is registered: it follows the register write by the time the
        // B response has been taken
        @(negedge clk);
        if (irq !== pins) begin
            $fatal(1, "tb_via_nic: irq pins %b, expected %b", irq, pins);
        end
    end
endtask

// shadow of the host memory, to check copies byte for byte
reg [7:0] shadow [0:MEM_BYTES-1];

task mem_randomize;
    integer i;
    reg [31:0] r;
    begin
        for (i = 0; i < MEM_BYTES; i = i + 4) begin
            rand32(r);
            ram.mem[i] = r[7:0];
            ram.mem[i + 1] = r[15:8];
            ram.mem[i + 2] = r[23:16];
            ram.mem[i + 3] = r[31:24];
            shadow[i] = r[7:0];
            shadow[i + 1] = r[15:8];
            shadow[i + 2] = r[23:16];
            shadow[i + 3] = r[31:24];
        end
    end
endtask

task mem_check;
    input [255:0] what;
    integer i;
    begin
        for (i = 0; i < MEM_BYTES; i = i + 1) begin
            if (ram.mem[i] !== shadow[i]) begin
                $fatal(1, "tb_via_nic: %0s: memory byte 0x%0h is 0x%02h, expected 0x%02h", what, i, ram.mem[i], shadow[i]);
            end
        end
    end
endtask

// program the diagnostic engine over BAR0 and start it
task diag_start;
    input [63:0] src;
    input [63:0] dst;
    input [31:0] len;
    input [8:0]  max_burst;
    input [3:0]  max_out;
    begin
        wr(`VIA_REG_DIAG_SRC_LO, src[31:0]);
        wr(`VIA_REG_DIAG_SRC_HI, src[63:32]);
        wr(`VIA_REG_DIAG_DST_LO, dst[31:0]);
        wr(`VIA_REG_DIAG_DST_HI, dst[63:32]);
        wr(`VIA_REG_DIAG_LEN, len);
        wr(`VIA_REG_DIAG_CFG, {12'd0, max_out, 7'd0, max_burst});
        ram.clear_stats();
        wr(`VIA_REG_DIAG_CTRL, 32'h1 << `VIA_DIAG_CTRL_START_LSB);
    end
endtask

// wait for the completion interrupt (IRQ_ENABLE bit 0 must be set)
task wait_irq0;
    integer n;
    begin
        n = 0;
        while (irq[0] !== 1'b1) begin
            @(posedge clk);
            n = n + 1;
            if (n > 200000) begin
                $fatal(1, "tb_via_nic: no DMA completion interrupt");
            end
        end
    end
endtask

// check DIAG_STATUS against expected flags and clear the interrupt
task diag_finish;
    input [31:0] expect_status;
    begin
        wait_irq0();
        rd_check(`VIA_REG_IRQ_STATUS, 32'h1);
        rd_check(`VIA_REG_DIAG_STATUS, expect_status);
        wr(`VIA_REG_IRQ_STATUS, 32'h1);
        expect_irq(8'h00);
    end
endtask

localparam [31:0] ST_DONE = 32'h1 << `VIA_DIAG_STATUS_DONE_LSB;
localparam [31:0] ST_ERROR = 32'h1 << `VIA_DIAG_STATUS_ERROR_LSB;
localparam [31:0] ST_BAD_PARAM = 32'h1 << `VIA_DIAG_STATUS_BAD_PARAM_LSB;
localparam [31:0] ST_RD_ERR = 32'h1 << `VIA_DIAG_STATUS_RD_ERR_LSB;
localparam [31:0] ST_WR_ERR = 32'h1 << `VIA_DIAG_STATUS_WR_ERR_LSB;
localparam [31:0] ST_ABORTED = 32'h1 << `VIA_DIAG_STATUS_ABORTED_LSB;
localparam [31:0] ST_SLVERR = 32'h2 << `VIA_DIAG_STATUS_RESP_LSB;
localparam [31:0] ST_DECERR = 32'h3 << `VIA_DIAG_STATUS_RESP_LSB;

// one successful copy, checked completely
task dma_copy;
    input [63:0] src;
    input [63:0] dst;
    input [31:0] len;
    input [8:0]  max_burst;
    input [3:0]  max_out;
    integer i;
    reg [31:0] v;
    begin
        diag_start(src, dst, len, max_burst, max_out);
        for (i = 0; i < len; i = i + 1) begin
            shadow[dst + i] = shadow[src + i];
        end
        diag_finish(ST_DONE);
        mem_check("copy");
        rd_check(`VIA_REG_DIAG_BYTES, len);
        rd(`VIA_REG_DIAG_RD_BURSTS, v);
        if (v != ram.ar_count || v < (len + BYTES * DMA_MAX_BURST - 1) / (BYTES * DMA_MAX_BURST)) begin
            $fatal(1, "tb_via_nic: DIAG_RD_BURSTS %0d, memory saw %0d", v, ram.ar_count);
        end
        rd(`VIA_REG_DIAG_WR_BURSTS, v);
        if (v != ram.aw_count) begin
            $fatal(1, "tb_via_nic: DIAG_WR_BURSTS %0d, memory saw %0d", v, ram.aw_count);
        end
        rd(`VIA_REG_DIAG_MAX_INFLIGHT, v);
        if (v < 1 || v > DMA_MAX_OUTSTANDING || (max_out != 0 && v > max_out)) begin
            $fatal(1, "tb_via_nic: DIAG_MAX_INFLIGHT %0d", v);
        end
        rd(`VIA_REG_DIAG_CYCLES, v);
        if (v < len / BYTES) begin
            $fatal(1, "tb_via_nic: DIAG_CYCLES %0d for %0d bytes", v, len);
        end
    end
endtask

// every frame the source sent was taken and dropped: NET_RX_FRAMES counts
// them, exactly one drop counter counts each, nothing was delivered or sent
task net_check_dropped;
    input [8*24-1:0] what;
    reg [31:0] c0, c1, c2, c3;
    begin
        if (net_snk.received != 0) begin
            $fatal(1, "tb_via_nic: %0s: %0d beats out of the network port", what, net_snk.received);
        end
        rd_check(`VIA_REG_NET_RX_FRAMES, net_src.frames_sent);
        rd_check(`VIA_REG_NET_TX_FRAMES, 32'h0);
        rd_check(`VIA_REG_NET_RX_GOOD, 32'h0);
        rd_check(`VIA_REG_NET_RX_MSGS, 32'h0);
        rd_check(`VIA_REG_NET_RX_CM, 32'h0);
        rd(`VIA_REG_NET_RX_CRC, c0);
        rd(`VIA_REG_NET_RX_MALFORMED, c1);
        rd(`VIA_REG_NET_RX_MISROUTED, c2);
        rd(`VIA_REG_NET_RX_KIND, c3);
        if (c0 + c1 + c2 + c3 != net_src.frames_sent) begin
            $fatal(1, "tb_via_nic: %0s: %0d frames in, dropped CRC %0d + malformed %0d + misrouted %0d + kind %0d",
                   what, net_src.frames_sent, c0, c1, c2, c3);
        end
        if (c1 == 0 || c0 == 0) begin
            $fatal(1, "tb_via_nic: %0s: expected both CRC (%0d) and malformed (%0d) drops", what, c0, c1);
        end
    end
endtask

// all writable registers to something, so a reset can be seen
task dirty_registers;
    begin
        wr(`VIA_REG_SCRATCH, 32'hfeedf00d);
        wr(`VIA_REG_IRQ_ENABLE, 32'h000000ff);
        wr(`VIA_REG_IRQ_FORCE, 32'h000000f0);
        wr(`VIA_REG_DIAG_SRC_LO, 32'h11111110);
        wr(`VIA_REG_DIAG_SRC_HI, 32'h22222222);
        wr(`VIA_REG_DIAG_DST_LO, 32'h33333330);
        wr(`VIA_REG_DIAG_DST_HI, 32'h44444444);
        wr(`VIA_REG_DIAG_LEN, 32'h55555550);
        wr(`VIA_REG_DIAG_CFG, 32'h000a0005);
        expect_irq(8'hf0);
    end
endtask

// every register at its reset value (network counters and DIAG statistics
// included)
task check_reset_values;
    begin
        rd_check(`VIA_REG_MAGIC, `VIA_MAGIC);
        rd_check(`VIA_REG_SCRATCH, 32'h0);
        rd_check(`VIA_REG_STATUS, 32'h0);
        rd_check(`VIA_REG_IRQ_STATUS, 32'h0);
        rd_check(`VIA_REG_IRQ_ENABLE, 32'h0);
        rd_check(`VIA_REG_IRQ_PENDING, 32'h0);
        rd_check(`VIA_REG_DIAG_SRC_LO, 32'h0);
        rd_check(`VIA_REG_DIAG_SRC_HI, 32'h0);
        rd_check(`VIA_REG_DIAG_DST_LO, 32'h0);
        rd_check(`VIA_REG_DIAG_DST_HI, 32'h0);
        rd_check(`VIA_REG_DIAG_LEN, 32'h0);
        rd_check(`VIA_REG_DIAG_CFG, 32'h0);
        rd_check(`VIA_REG_DIAG_STATUS, 32'h0);
        rd_check(`VIA_REG_DIAG_CYCLES, 32'h0);
        rd_check(`VIA_REG_DIAG_BYTES, 32'h0);
        rd_check(`VIA_REG_DIAG_ERR_ADDR_LO, 32'h0);
        rd_check(`VIA_REG_DIAG_ERR_ADDR_HI, 32'h0);
        rd_check(`VIA_REG_DIAG_RD_BURSTS, 32'h0);
        rd_check(`VIA_REG_DIAG_WR_BURSTS, 32'h0);
        rd_check(`VIA_REG_DIAG_MAX_INFLIGHT, 32'h0);
        rd_check(`VIA_REG_NET_RX_FRAMES, 32'h0);
        rd_check(`VIA_REG_NET_TX_FRAMES, 32'h0);
        expect_irq(8'h00);
    end
endtask

// the control processor's registers at their reset values (kept apart from
// check_reset_values: section 1 must not grow, the GTKWave screenshot test
// of internal/vcd/ looks for the first DMA at a fixed time window)
task check_cpu_reset_values;
    begin
        rd_check(`VIA_REG_CPU_CTRL, 32'h0);
        rd_check(`VIA_REG_CPU_STATUS, 32'h0);
        rd_check(`VIA_REG_CPU_MEM_ADDR, 32'h0);
        rd_check(`VIA_REG_FW_READY, 32'h0);
        rd_check(`VIA_REG_FW_LOG_LEVEL, 32'h0);
        rd_check(`VIA_REG_FW_LOG, 32'h0);
        rd_check(`VIA_REG_ADMIN_STATUS, 32'h0);
    end
endtask

// write CTRL.SOFT_RESET (its B response must come back OKAY), check that
// RESET_BUSY reads 1 right after, wait until it reads 0
task soft_reset;
    output integer busy_reads;
    integer n;
    begin
        wr(`VIA_REG_CTRL, 32'h1 << `VIA_CTRL_SOFT_RESET_LSB);
        rd_check(`VIA_REG_STATUS, 32'h1 << `VIA_STATUS_RESET_BUSY_LSB);
        busy_reads = 1;
        rdata = 32'h1;
        n = 0;
        while (rdata != 32'h0) begin
            rd(`VIA_REG_STATUS, rdata);
            busy_reads = busy_reads + 1;
            n = n + 1;
            if (n > 10000) begin
                $fatal(1, "tb_via_nic: soft reset does not end");
            end
        end
    end
endtask


// ------------------------------------------------------------ TPT helpers

localparam [63:0] XS_VA = 64'h00007000_12340000;
localparam [63:0] XD_VA = 64'hffff8000_00010000;
localparam [15:0] XPTAG = 16'h0102;
reg [31:0] xs_handle, xd_handle;

// registers region idx (3 pages at va) straight on the TPT's programming
// port (forcing the peripheral window's outputs while the core is held in
// reset); the page list at pl
task tpt_region;
    input [15:0] idx;
    input [63:0] va;
    input [31:0] n;
    input [63:0] pl;
    input [63:0] p0;
    input [63:0] p1;
    input [63:0] p2;
    begin
        while (dut.tpt_prog_busy) @(posedge clk);
        @(negedge clk);
        force dut.tpt_prog_op = 3'd1;
        force dut.tpt_prog_index = idx;
        force dut.tpt_prog_va = va;
        force dut.tpt_prog_len = n;
        force dut.tpt_prog_ptag = XPTAG;
        force dut.tpt_prog_rdma_write = 1'b0;
        force dut.tpt_prog_rdma_read = 1'b0;
        force dut.tpt_prog_pl = pl;
        force dut.tpt_prog_valid = 1'b1;
        @(negedge clk);
        force dut.tpt_prog_valid = 1'b0;
        @(negedge clk);
        while (dut.tpt_prog_busy) @(negedge clk);
        release dut.tpt_prog_valid;
        release dut.tpt_prog_op;
        release dut.tpt_prog_index;
        release dut.tpt_prog_va;
        release dut.tpt_prog_len;
        release dut.tpt_prog_ptag;
        release dut.tpt_prog_rdma_write;
        release dut.tpt_prog_rdma_read;
        release dut.tpt_prog_pl;
        if (dut.tpt_prog_rd_valid !== 1'b1) begin
            $fatal(1, "tb_via_nic: TPT WRITE of region %0d failed", idx);
        end
    end
endtask

// physical address of a VA of a 3-page region at base (page aligned)
function [31:0] xpa;
    input [63:0] base;
    input [63:0] p0;
    input [63:0] p1;
    input [63:0] p2;
    input [63:0] va;
    reg [63:0] pi;
    begin
        pi = (va - base) >> 12;
        xpa = (pi == 0 ? p0[31:0] : pi == 1 ? p1[31:0] : p2[31:0]) + {20'd0, va[11:0]};
    end
endfunction

// ------------------------------------------------------------ control processor helpers

localparam IMEM_WORDS = `VIA_DEFAULT_CPU_IMEM_BYTES / 4;
localparam DMEM_WORDS = `VIA_DEFAULT_CPU_DMEM_BYTES / 4;
localparam [31:0] READY_ADMIN = 32'h56460102;   // what fw/admin.S writes to READY
localparam [31:0] READY_FAULT = 32'h56460001;   // fw/fault.S
localparam [31:0] ST_BUSY = 32'h1, ST_ADONE = 32'h2, ST_REJ = 32'h4;
localparam [31:0] IRQ_FW_FAULT = 32'h1 << `VIA_IRQ_STATUS_FW_FAULT_LSB;
localparam [31:0] IRQ_ADMIN_DONE = 32'h1 << `VIA_IRQ_STATUS_ADMIN_DONE_LSB;
localparam [31:0] IRQ_FW_LOG = 32'h1 << `VIA_IRQ_STATUS_FW_LOG_LSB;

string     fw_dir;
reg [31:0] fw_image [0:IMEM_WORDS-1];
integer    fw_words;
integer    fw_prev_words = 0;
integer    rel_i;

initial begin
    // fw/ next to this file (bench.sh compiles it by absolute path)
    fw_dir = `__FILE__;
    for (rel_i = fw_dir.len() - 1; rel_i >= 0 && fw_dir[rel_i] != "/"; rel_i = rel_i - 1) ;
    if (rel_i >= 0) begin
        fw_dir = {fw_dir.substr(0, rel_i), "fw"};
    end else begin
        fw_dir = "testbench/via_nic/fw";
    end
end

// loads fw/NAME.hex into fw_image
task fw_load(input string name);
    integer k;
    begin
        for (k = 0; k < IMEM_WORDS; k = k + 1) fw_image[k] = 32'd0;
        $readmemh({fw_dir, "/", name, ".hex"}, fw_image);
        fw_words = 0;
        for (k = 0; k < IMEM_WORDS; k = k + 1) begin
            if (fw_image[k] !== 32'd0) fw_words = k + 1;
        end
        if (fw_words == 0) begin
            $fatal(1, "tb_via_nic: no image in %s/%s.hex", fw_dir, name);
        end
    end
endtask

// downloads fw_image into instruction memory through CPU_MEM_ADDR/DATA
// (zeroing what the last image used beyond it) and reads it back
task fw_download;
    integer k, total;
    begin
        total = fw_words > fw_prev_words ? fw_words : fw_prev_words;
        wr(`VIA_REG_CPU_MEM_ADDR, 32'h0);
        for (k = 0; k < total; k = k + 1) begin
            wr(`VIA_REG_CPU_MEM_DATA, fw_image[k]);
        end
        rd_check(`VIA_REG_CPU_MEM_ADDR, total);
        wr(`VIA_REG_CPU_MEM_ADDR, 32'h0);
        for (k = 0; k < total; k = k + 1) begin
            rd_check(`VIA_REG_CPU_MEM_DATA, fw_image[k]);
        end
        rd_check(`VIA_REG_CPU_MEM_ADDR, total);
        fw_prev_words = fw_words;
    end
endtask

// polls register addr until (value & mask) == want
task poll_reg;
    input [AXIL_ADDR_WIDTH-1:0] addr;
    input [31:0] mask;
    input [31:0] want;
    integer k;
    begin
        k = 0;
        rdata = ~want;
        while ((rdata & mask) !== want) begin
            rd(addr, rdata);
            k = k + 1;
            if (k > 5000) begin
                $fatal(1, "tb_via_nic: register 0x%0h reads 0x%08h, waited for 0x%08h (mask 0x%08h)",
                    addr, rdata, want, mask);
            end
        end
    end
endtask

// waits for irq pin b (at most max cycles)
task wait_irq_bit;
    input integer b;
    input integer max;
    integer k;
    begin
        k = 0;
        while (irq[b] !== 1'b1) begin
            @(negedge clk);
            k = k + 1;
            if (k > max) begin
                $fatal(1, "tb_via_nic: irq[%0d] not raised within %0d cycles", b, max);
            end
        end
    end
endtask

// pops one FW_LOG word and checks it and the debug port's copy of it
integer fwlog_popped = 0;

task log_pop_check;
    input [31:0] want;
    begin
        rd_check(`VIA_REG_FW_LOG, want);
        if (fwlog_popped >= fwlog_count || fwlog_words[fwlog_popped % 256] !== want) begin
            $fatal(1, "tb_via_nic: fw_log port word %0d is 0x%08h (%0d seen), FW_LOG gave 0x%08h",
                fwlog_popped, fwlog_words[fwlog_popped % 256], fwlog_count, want);
        end
        fwlog_popped = fwlog_popped + 1;
    end
endtask

// waits until the core sleeps in WFI with nothing pending
task wait_wfi;
    integer k;
    begin
        k = 0;
        while (!(dut.cpu_wfi && !dut.cpu_irq_wake)) begin
            @(negedge clk);
            k = k + 1;
            if (k > 20000) begin
                $fatal(1, "tb_via_nic: the firmware does not go to sleep");
            end
        end
    end
endtask

// the firmware's boot log of fw/admin.S
task admin_boot_log;
    begin
        log_pop_check(32'h746f6f62);      // "boot"
        log_pop_check(`VIA_MAGIC);
        log_pop_check(((`VIA_DEFAULT_CPU_DMEM_BYTES / 1024) << 16) | (`VIA_DEFAULT_CPU_IMEM_BYTES / 1024));
        log_pop_check(32'h3);             // FW_LOG_LEVEL through the view: 3 words, nothing cleared
        log_pop_check(32'h746f6f62);      // FW_LOG through the view: the head, not popped
    end
endtask

// one admin command through the mailbox; timer_cycles goes to CMD word 1;
// reject 1 rings the doorbell twice (the second is REJECTED while BUSY)
reg [31:0] cmd_words [0:63];

task admin_command;
    input [31:0] timer_cycles;
    input        reject;
    integer k;
    begin
        for (k = 0; k < 64; k = k + 1) begin
            rand32(cmd_words[k]);
        end
        cmd_words[1] = timer_cycles;
        for (k = 0; k < 64; k = k + 1) begin
            wr(`VIA_ADMIN_CMD_WIN_BASE + 4 * k, cmd_words[k]);
        end
        rd_check(`VIA_ADMIN_CMD_WIN_BASE + 4, timer_cycles);
        wr(`VIA_REG_IRQ_STATUS, 32'hffffffff);
        wr(`VIA_REG_ADMIN_DOORBELL, 32'h1);
        if (reject) begin
            // the firmware needs hundreds of cycles to copy the command
            wr(`VIA_REG_ADMIN_DOORBELL, 32'h1);
            rd_check(`VIA_REG_ADMIN_STATUS, ST_BUSY | ST_REJ);
        end
        wait_irq_bit(`VIA_IRQ_STATUS_ADMIN_DONE_LSB, 20000);
        rd_check(`VIA_REG_ADMIN_STATUS, reject ? (ST_ADONE | ST_REJ) : ST_ADONE);
        for (k = 0; k < 64; k = k + 1) begin
            rd_check(`VIA_ADMIN_RSP_WIN_BASE + 4 * k, cmd_words[k]);
        end
        // read-only for the host
        wr(`VIA_ADMIN_RSP_WIN_BASE + 8, ~cmd_words[2]);
        rd_check(`VIA_ADMIN_RSP_WIN_BASE + 8, cmd_words[2]);
        log_pop_check(cmd_words[0]);
    end
endtask

// ------------------------------------------------------------ test

integer i, n, pulses, busy_reads;
// loop bounds kept in variables: Verilator unrolls short constant loops,
// inlining their bodies (and the tasks in them) once per iteration
integer count;
reg [31:0] r, v;
reg [63:0] src, dst;
reg [31:0] len;

initial begin
    net_src.gap_pct = 20;
    net_snk.ready_pct = 70;
    mem_randomize();
    repeat (8) @(posedge clk);
    #1;
    rst = 1'b0;
    repeat (2) @(posedge clk);

    // ---------------------------------------------- 1. identification
    rd_check(`VIA_REG_MAGIC, 32'h5649414e);
    rd_check(`VIA_REG_HW_VERSION, {`VIA_HW_VERSION_MAJOR_RESET, `VIA_HW_VERSION_MINOR_RESET, `VIA_HW_VERSION_PATCH_RESET});
    rd_check(`VIA_REG_MAP_HASH_LO, `VIA_BAR0_HASH & 64'hffffffff);
    rd_check(`VIA_REG_MAP_HASH_HI, `VIA_BAR0_HASH >> 32);
    rd_check(`VIA_REG_CAP_DATAPATH, DATA_WIDTH);
    rd_check(`VIA_REG_CAP_VI, NUM_VI);
    rd_check(`VIA_REG_CAP_DB_BASE, `VIA_DOORBELL_BASE);
    rd_check(`VIA_REG_CAP_DB_STRIDE, `VIA_DOORBELL_STRIDE);
    rd_check(`VIA_REG_CAP_BAR, AXIL_ADDR_WIDTH);
    rd_check(`VIA_REG_CAP_DMA, (DMA_MAX_OUTSTANDING << 16) | (DMA_ID_WIDTH << 8) | DMA_ADDR_WIDTH);
    rd_check(`VIA_REG_CAP_DMA_BURST, DMA_MAX_BURST);
    rd_check(`VIA_REG_CAP_IRQ, NUM_IRQ);
    rd_check(`VIA_REG_CAP_NET, (32'd3 << 16) | NET_FIFO_DEPTH);  // node_id 3
    rd_check(`VIA_REG_CAP_RESET, SOFT_RESET_CYCLES);
    rd_check(`VIA_REG_CAP_TPT, ($clog2(`VIA_DEFAULT_TPT_CACHE_ENTRIES) << 8) | $clog2(`VIA_DEFAULT_TPT_REGIONS));
    check_reset_values();
    $display("tb_via_nic: identification ok at %0t", $time);

    // ---------------------------------------------- 1b. the TPT probe
    // (no region is registered: handle 0 and a never-registered index are
    // HANDLE errors, answered without a page-list fetch; the counters count
    // them). The first probe waits for the TPT to clear its table after
    // reset.
    wr(`VIA_REG_TPT_PROBE_HANDLE, 32'h0);
    wr(`VIA_REG_TPT_PROBE_VA_LO, 32'h1000);
    wr(`VIA_REG_TPT_PROBE_LEN, 32'd16);
    wr(`VIA_REG_TPT_PROBE_GO, 32'h1);
    poll_reg(`VIA_REG_TPT_PROBE_STATUS, 32'h3, 32'h2);
    rd_check(`VIA_REG_TPT_PROBE_STATUS, 32'h2 | (`VIA_TPT_ERR_HANDLE << 4));
    rd_check(`VIA_REG_TPT_PROBE_PA_LO, 32'h0);
    rd_check(`VIA_REG_TPT_PROBE_BYTES, 32'h0);
    wr(`VIA_REG_TPT_PROBE_HANDLE, 32'h00010005);
    wr(`VIA_REG_TPT_PROBE_GO, 32'h1);
    poll_reg(`VIA_REG_TPT_PROBE_STATUS, 32'h3, 32'h2);
    rd_check(`VIA_REG_TPT_PROBE_STATUS, 32'h2 | (`VIA_TPT_ERR_HANDLE << 4));
    rd_check(`VIA_REG_TPT_LOOKUPS, 32'd2);
    rd_check(`VIA_REG_TPT_ERRORS, 32'd2);
    rd_check(`VIA_REG_TPT_HITS, 32'd0);
    rd_check(`VIA_REG_TPT_MISSES, 32'd0);
    $display("tb_via_nic: TPT probe ok at %0t", $time);

    // ---------------------------------------------- 2. scratch and decode
    wr(`VIA_REG_SCRATCH, 32'h11223344);
    rd_check(`VIA_REG_SCRATCH, 32'h11223344);
    bar0_write(`VIA_REG_SCRATCH, 32'haabbccdd, 4'b0101, OKAY);
    rd_check(`VIA_REG_SCRATCH, 32'h11bb33dd);
    bar0_write(`VIA_REG_SCRATCH, 32'h99000000, 4'b1000, OKAY);
    rd_check(`VIA_REG_SCRATCH, 32'h99bb33dd);
    bar0_write(`VIA_REG_SCRATCH, 32'h00000000, 4'b0000, OKAY);
    rd_check(`VIA_REG_SCRATCH, 32'h99bb33dd);
    // unmapped global offsets
    bar0_read_check(20'h00014, 32'h0, SLVERR);
    bar0_read_check(20'h08000, 32'h0, SLVERR);
    bar0_read_check(20'h0fffc, 32'h0, SLVERR);
    bar0_write(20'h00014, 32'hffffffff, 4'hf, SLVERR);
    bar0_write(20'h0fffc, 32'hffffffff, 4'hf, SLVERR);
    // a write to a read-only register is ignored
    bar0_write(`VIA_REG_MAGIC, 32'h0, 4'hf, OKAY);
    rd_check(`VIA_REG_MAGIC, 32'h5649414e);
    // doorbell pages: accepted, ignored, read as zero
    count = NUM_VI;
    for (i = 0; i < count; i = i + 1) begin
        bar0_write(`VIA_DOORBELL_BASE + i * `VIA_DOORBELL_STRIDE + 4 * i, 32'hdb000000 + i, 4'hf, OKAY);
        bar0_read_check(`VIA_DOORBELL_BASE + i * `VIA_DOORBELL_STRIDE + 4 * i, 32'h0, OKAY);
    end
    bar0_read_check(`VIA_DOORBELL_BASE + NUM_VI * `VIA_DOORBELL_STRIDE - 4, 32'h0, OKAY);
    // beyond the last doorbell page
    bar0_write(`VIA_DOORBELL_BASE + NUM_VI * `VIA_DOORBELL_STRIDE, 32'h1, 4'hf, DECERR);
    bar0_read_check(`VIA_DOORBELL_BASE + NUM_VI * `VIA_DOORBELL_STRIDE, 32'h0, DECERR);
    bar0_read_check(20'hffffc, 32'h0, DECERR);
    bar0_write(20'hffffc, 32'h1, 4'hf, DECERR);
    rd_check(`VIA_REG_SCRATCH, 32'h99bb33dd);
    $display("tb_via_nic: scratch and decode ok at %0t", $time);

    // ---------------------------------------------- 3. interrupts
    wr(`VIA_REG_IRQ_FORCE, 32'h000000a5);
    expect_irq(8'h00);
    rd_check(`VIA_REG_IRQ_STATUS, 32'h000000a5);
    rd_check(`VIA_REG_IRQ_PENDING, 32'h0);
    wr(`VIA_REG_IRQ_ENABLE, 32'h0000000f);
    expect_irq(8'h05);
    rd_check(`VIA_REG_IRQ_PENDING, 32'h00000005);
    wr(`VIA_REG_IRQ_ENABLE, 32'hffffffff);
    rd_check(`VIA_REG_IRQ_ENABLE, IRQ_MASK);   // bits NUM_IRQ and up do not exist
    expect_irq(8'ha5);
    wr(`VIA_REG_IRQ_STATUS, 32'h00000021);
    expect_irq(8'h84);
    rd_check(`VIA_REG_IRQ_STATUS, 32'h00000084);
    wr(`VIA_REG_IRQ_FORCE, ~IRQ_MASK);         // no such causes
    rd_check(`VIA_REG_IRQ_STATUS, 32'h00000084);
    wr(`VIA_REG_IRQ_FORCE, IRQ_MASK & 32'hffffff00);   // the vectors' bits (8 and up) exist
    rd_check(`VIA_REG_IRQ_STATUS, (IRQ_MASK & 32'hffffff00) | 32'h00000084);
    wr(`VIA_REG_IRQ_STATUS, 32'hffffffff);
    expect_irq(8'h00);
    rd_check(`VIA_REG_IRQ_STATUS, 32'h0);
    wr(`VIA_REG_IRQ_ENABLE, 32'h00000001);
    $display("tb_via_nic: interrupts ok at %0t", $time);

    // ---------------------------------------------- 4. DMA copies
    dma_copy(64'h0000, 64'h8000, 32'd256, 9'd0, 4'd0);
    dma_copy(64'h1ff8, 64'h9ff0, 32'd4096 + 64, 9'd0, 4'd0);     // both cross 4 KiB
    dma_copy(64'h3000, 64'hc008, 32'd8, 9'd0, 4'd0);             // one beat
    dma_copy(64'h2000, 64'ha000, 32'd2048, 9'd3, 4'd2);          // odd burst limit, 2 in flight
    dma_copy(64'h4100, 64'hd000, 32'd1024, 9'd300, 4'd15);       // limits above the maximum
    count = 3;
    for (n = 0; n < count; n = n + 1) begin
        rand32(r);
        len = BYTES * (1 + r % 600);
        rand32(r);
        src = BYTES * (r % ((32768 - len) / BYTES));
        rand32(r);
        dst = 32768 + BYTES * (r % ((32768 - len) / BYTES));
        rand32(r);
        ram.set_ready_prob(20 + r % 81);
        dma_copy(src, dst, len, r[16:8] % 20, r[23:20]);
    end
    ram.set_ready_prob(60);
    $display("tb_via_nic: DMA copies ok at %0t", $time);

    // ---------------------------------------------- 5. DMA errors
    // read SLVERR in the middle of the source
    ram.set_rd_error(64'h1400, 64'h1408);
    diag_start(64'h1000, 64'h9000, 32'd2048, 9'd0, 4'd0);
    diag_finish(ST_DONE | ST_ERROR | ST_RD_ERR | ST_SLVERR);
    rd(`VIA_REG_DIAG_ERR_ADDR_LO, v);
    if (v > 64'h1400 || v + 8 * DMA_MAX_BURST <= 64'h1400) begin
        $fatal(1, "tb_via_nic: DIAG_ERR_ADDR 0x%0h for an error at 0x1400", v);
    end
    rd_check(`VIA_REG_DIAG_ERR_ADDR_HI, 32'h0);
    ram.clear_errors();
    // read beyond the memory: DECERR
    diag_start(64'h20000, 64'h9000, 32'd512, 9'd0, 4'd0);
    diag_finish(ST_DONE | ST_ERROR | ST_RD_ERR | ST_DECERR);
    rd_check(`VIA_REG_DIAG_ERR_ADDR_LO, 32'h20000);
    // write SLVERR
    ram.set_wr_error(64'h9100, 64'h9108);
    diag_start(64'h1000, 64'h9000, 32'd1024, 9'd0, 4'd0);
    diag_finish(ST_DONE | ST_ERROR | ST_WR_ERR | ST_SLVERR);
    ram.clear_errors();
    // bad parameters: length not a multiple of the bus width
    diag_start(64'h1000, 64'h9000, 32'd100, 9'd0, 4'd0);
    diag_finish(ST_DONE | ST_ERROR | ST_BAD_PARAM);
    // abort of a long copy
    mem_randomize();
    ram.set_ready_prob(15);
    diag_start(64'h0000, 64'h8000, 32'd32768, 9'd0, 4'd0);
    repeat (200) @(posedge clk);
    rd(`VIA_REG_DIAG_STATUS, v);
    if (v[`VIA_DIAG_STATUS_BUSY_LSB] !== 1'b1) begin
        $fatal(1, "tb_via_nic: DIAG_STATUS 0x%0h while copying", v);
    end
    wr(`VIA_REG_DIAG_CTRL, 32'h1 << `VIA_DIAG_CTRL_ABORT_LSB);
    diag_finish(ST_DONE | ST_ERROR | ST_ABORTED);
    rd(`VIA_REG_DIAG_BYTES, v);
    if (v >= 32768) begin
        $fatal(1, "tb_via_nic: an aborted copy wrote all %0d bytes", v);
    end
    ram.set_ready_prob(60);
    if (ram.rd_outstanding != 0 || ram.wr_outstanding != 0) begin
        $fatal(1, "tb_via_nic: transactions left in flight after an abort");
    end
    // what the aborted copy wrote (whole prefix) is the source
    for (i = 0; i < v; i = i + 1) begin
        shadow[32'h8000 + i] = shadow[i];
    end
    mem_check("abort");
    // the engine works again
    dma_copy(64'h0100, 64'hf000, 32'd512, 9'd0, 4'd0);
    $display("tb_via_nic: DMA errors ok at %0t", $time);

    // ---------------------------------------------- 5b. translated copies
    // two regions programmed straight on the TPT's port (the firmware's
    // path is tb_via_cpu_periph's and the co-simulation's), their pages
    // scattered; page lists in page 0
    tpt_region(16'd1, XS_VA, 32'd3 * 4096, 64'h0000, 64'h5000, 64'h2000, 64'h9000);
    xs_handle = {dut.tpt_prog_rd_gen, 16'd1};
    tpt_region(16'd2, XD_VA, 32'd3 * 4096, 64'h0040, 64'hc000, 64'h7000, 64'h3000);
    xd_handle = {dut.tpt_prog_rd_gen, 16'd2};
    mem_randomize();
    // the page lists (little endian) into memory and shadow
    for (i = 0; i < 8; i = i + 1) begin
        v = 32'h0;
        case (i)
            0: v = 32'h5000;
            1: v = 32'h2000;
            2: v = 32'h9000;
            default: v = 32'h0;
        endcase
        for (n = 0; n < 8; n = n + 1) begin
            ram.mem[i * 8 + n] = n < 4 ? v[8*n +: 8] : 8'h00;
            shadow[i * 8 + n] = n < 4 ? v[8*n +: 8] : 8'h00;
        end
        case (i)
            0: v = 32'hc000;
            1: v = 32'h7000;
            2: v = 32'h3000;
            default: v = 32'h0;
        endcase
        for (n = 0; n < 8; n = n + 1) begin
            ram.mem[64 + i * 8 + n] = n < 4 ? v[8*n +: 8] : 8'h00;
            shadow[64 + i * 8 + n] = n < 4 ? v[8*n +: 8] : 8'h00;
        end
    end
    // the probe: a translation, then its counters
    wr(`VIA_REG_TPT_PROBE_HANDLE, xs_handle);
    wr(`VIA_REG_TPT_PROBE_VA_LO, XS_VA[31:0] + 32'h1010);
    wr(`VIA_REG_TPT_PROBE_VA_HI, XS_VA[63:32]);
    wr(`VIA_REG_TPT_PROBE_LEN, 32'd100);
    wr(`VIA_REG_TPT_PROBE_CTRL, {14'd0, 2'd0, XPTAG});
    wr(`VIA_REG_TPT_PROBE_GO, 32'h1);
    poll_reg(`VIA_REG_TPT_PROBE_STATUS, 32'h3, 32'h2);
    rd_check(`VIA_REG_TPT_PROBE_STATUS, 32'h2);
    rd_check(`VIA_REG_TPT_PROBE_PA_LO, 32'h2010);
    rd_check(`VIA_REG_TPT_PROBE_PA_HI, 32'h0);
    rd_check(`VIA_REG_TPT_PROBE_BYTES, 32'd100);
    // a translated copy over BAR0: 2 pages + 256 bytes, crossing pages on
    // both sides
    wr(`VIA_REG_IRQ_ENABLE, 32'h1);
    ram.set_ready_prob(60);
    wr(`VIA_REG_DIAG_XLAT, {XPTAG, 8'd0, 2'd1, 2'd0, 3'd0, 1'b1});
    wr(`VIA_REG_DIAG_SRC_HANDLE, xs_handle);
    wr(`VIA_REG_DIAG_DST_HANDLE, xd_handle);
    diag_start(XS_VA + 64'h0100, XD_VA + 64'h0800, 32'd8448, 9'd0, 4'd0);
    for (i = 0; i < 8448; i = i + 1) begin
        shadow[xpa(XD_VA, 64'hc000, 64'h7000, 64'h3000, XD_VA + 64'h0800 + i)]
            = shadow[xpa(XS_VA, 64'h5000, 64'h2000, 64'h9000, XS_VA + 64'h0100 + i)];
    end
    diag_finish(ST_DONE);
    mem_check("translated copy");
    rd_check(`VIA_REG_DIAG_BYTES, 32'd8448);
    // a PTAG mismatch: the error, nothing written
    wr(`VIA_REG_DIAG_XLAT, {XPTAG + 16'h1, 8'd0, 2'd1, 2'd0, 3'd0, 1'b1});
    diag_start(XS_VA + 64'h0100, XD_VA + 64'h0800, 32'd4096, 9'd0, 4'd0);
    diag_finish(ST_DONE | ST_ERROR | (32'h1 << `VIA_DIAG_STATUS_XLAT_ERR_LSB) | (`VIA_TPT_ERR_PTAG << `VIA_DIAG_STATUS_XLAT_CODE_LSB));
    mem_check("translation error");
    rd(`VIA_REG_TPT_LOOKUPS, v);
    if (v < 8) begin
        $fatal(1, "tb_via_nic: TPT_LOOKUPS %0d after the translated copies", v);
    end
    // a soft reset in the middle of a translated copy drains it (and the
    // TPT's fetches): nothing left in flight
    ram.set_ready_prob(25);
    wr(`VIA_REG_DIAG_XLAT, {XPTAG, 8'd0, 2'd1, 2'd0, 3'd0, 1'b1});
    diag_start(XS_VA, XD_VA, 32'd3 * 4096, 9'd0, 4'd0);
    rand32(r);
    repeat (20 + r % 300) @(posedge clk);
    soft_reset(busy_reads);
    if (ram.rd_outstanding != 0 || ram.wr_outstanding != 0 || ram.awq_count != 0) begin
        $fatal(1, "tb_via_nic: transactions left in flight after a soft reset during a translated copy");
    end
    rd_check(`VIA_REG_DIAG_XLAT, 32'h0);
    ram.set_ready_prob(60);
    // the destination got a prefix of the source (in whole beats): resync
    // the shadow from what the memory holds in the destination pages
    for (i = 0; i < 3 * 4096; i = i + 1) begin
        shadow[xpa(XD_VA, 64'hc000, 64'h7000, 64'h3000, XD_VA + i)] = ram.mem[xpa(XD_VA, 64'hc000, 64'h7000, 64'h3000, XD_VA + i)];
    end
    mem_check("soft reset during a translated copy");
    // after the reset the region is gone: the probe says HANDLE
    wr(`VIA_REG_TPT_PROBE_HANDLE, xs_handle);
    wr(`VIA_REG_TPT_PROBE_VA_LO, XS_VA[31:0]);
    wr(`VIA_REG_TPT_PROBE_VA_HI, XS_VA[63:32]);
    wr(`VIA_REG_TPT_PROBE_LEN, 32'd8);
    wr(`VIA_REG_TPT_PROBE_CTRL, {14'd0, 2'd0, XPTAG});
    wr(`VIA_REG_TPT_PROBE_GO, 32'h1);
    poll_reg(`VIA_REG_TPT_PROBE_STATUS, 32'h3, 32'h2);
    rd_check(`VIA_REG_TPT_PROBE_STATUS, 32'h2 | (`VIA_TPT_ERR_HANDLE << 4));
    wr(`VIA_REG_IRQ_ENABLE, 32'h0);
    $display("tb_via_nic: translated copies, probe and soft reset during a translated copy ok at %0t", $time);

    // ---------------------------------------------- 6. network port
    // frames that are not good wire frames (random beats, 1..30 per frame):
    // the depacketizer takes every one, delivers none and counts each in
    // exactly one drop counter; nothing goes out on m_axis
    count = 4;
    for (n = 0; n < count; n = n + 1) begin
        net_src.send_random_frames(15, 30);
        net_src.wait_idle();
    end
    repeat (100) @(posedge clk);
    net_check_dropped("random frames");
    $display("tb_via_nic: network port: %0d bad frames dropped and counted at %0t", net_src.frames_sent, $time);

    // ---------------------------------------------- 7. soft reset
    // a. idle NIC
    pulses = blk_pulses;
    dirty_registers();
    soft_reset(busy_reads);
    if (blk_pulses != pulses + 1) begin
        $fatal(1, "tb_via_nic: soft reset did not reset the blocks");
    end
    check_reset_values();
    check_cpu_reset_values();
    rd_check(`VIA_REG_MAGIC, 32'h5649414e);
    // b. in the middle of a long DMA copy with heavy back-pressure
    wr(`VIA_REG_IRQ_ENABLE, 32'h1);
    mem_randomize();
    ram.set_ready_prob(25);
    diag_start(64'h0000, 64'h8000, 32'd32768, 9'd0, 4'd0);
    rand32(r);
    repeat (100 + r % 400) @(posedge clk);
    if (dut.dma_diag_inst.busy !== 1'b1) begin
        $fatal(1, "tb_via_nic: the copy is not running when the soft reset comes");
    end
    dirty_registers();
    soft_reset(busy_reads);
    if (ram.rd_outstanding != 0 || ram.wr_outstanding != 0 || ram.awq_count != 0) begin
        $fatal(1, "tb_via_nic: transactions left in flight after a soft reset");
    end
    check_reset_values();
    ram.set_ready_prob(60);
    // the copy wrote a prefix of the destination, in whole beats
    for (i = 0; i < 32768 && ram.mem[32'h8000 + i] === shadow[i]; i = i + 1) begin
    end
    for (n = 0; n < i; n = n + 1) begin
        shadow[32'h8000 + n] = shadow[n];
    end
    mem_check("soft reset during a copy");
    $display("tb_via_nic: soft reset during a copy ok (%0d bytes copied, %0d busy reads) at %0t", i, busy_reads, $time);
    wr(`VIA_REG_IRQ_ENABLE, 32'h1);
    dma_copy(64'h0200, 64'he000, 32'd1024, 9'd0, 4'd0);
    // c. frames streaming into the network port: the reset stops taking
    //    them (the rest wait with the sender), the counters restart, and
    //    the port works afterwards
    net_src.send_random_frames(30, 20);
    repeat (150) @(posedge clk);
    wr(`VIA_REG_CTRL, 32'h1 << `VIA_CTRL_SOFT_RESET_LSB);
    rdata = 32'h1;
    while (rdata != 32'h0) begin
        rd(`VIA_REG_STATUS, rdata);
    end
    net_src.wait_idle();
    repeat (100) @(posedge clk);
    rd(`VIA_REG_NET_RX_FRAMES, r);
    if (r == 0 || r > 30) begin
        $fatal(1, "tb_via_nic: %0d frames counted after a soft reset during 30", r);
    end
    wr(`VIA_REG_IRQ_ENABLE, 32'h0);
    // clean counting after that
    net_src.send_random_frames(20, 16);
    net_src.wait_idle();
    repeat (100) @(posedge clk);
    rd_check(`VIA_REG_NET_RX_FRAMES, r + 20);
    if (net_snk.received != 0) begin
        $fatal(1, "tb_via_nic: %0d beats out of the network port", net_snk.received);
    end
    $display("tb_via_nic: soft reset with frames coming in ok at %0t", $time);

    if (blk_pulses != pulses + 3) begin
        $fatal(1, "tb_via_nic: %0d soft resets, expected 3", blk_pulses - pulses);
    end

    // ---------------------------------------------- 8. control processor
    rd_check(`VIA_REG_CAP_CPU, ((`VIA_DEFAULT_CPU_DMEM_BYTES / 1024) << 16) | (`VIA_DEFAULT_CPU_IMEM_BYTES / 1024));
    check_cpu_reset_values();
    // decode around the new registers: holes of the global registers and
    // beyond the admin windows answer SLVERR
    bar0_read_check(20'h0021c, 32'h0, SLVERR);
    bar0_read_check(20'h003fc, 32'h0, SLVERR);
    bar0_read_check(20'h00600, 32'h0, SLVERR);
    bar0_write(20'h00600, 32'hffffffff, 4'hf, SLVERR);
    bar0_write(20'h0021c, 32'hffffffff, 4'hf, SLVERR);
    // the admin windows answer OKAY; ADMIN_RSP is read-only for the host
    wr(`VIA_ADMIN_CMD_WIN_BASE + 4, 32'hc0ffee01);
    rd_check(`VIA_ADMIN_CMD_WIN_BASE + 4, 32'hc0ffee01);
    bar0_write(`VIA_ADMIN_CMD_WIN_BASE + 4, 32'h00aa0000, 4'b0100, OKAY);
    rd_check(`VIA_ADMIN_CMD_WIN_BASE + 4, 32'hc0aaee01);
    // (its contents are undefined until the firmware writes it: the
    // read-only check is in admin_command)
    wr(`VIA_ADMIN_RSP_WIN_BASE + 8, 32'h12345678);
    // data memory: download, readback, auto-increment, words beyond it
    wr(`VIA_REG_CPU_MEM_ADDR, 32'h80000010);
    wr(`VIA_REG_CPU_MEM_DATA, 32'h0badf00d);
    wr(`VIA_REG_CPU_MEM_DATA, 32'h12345678);
    rd_check(`VIA_REG_CPU_MEM_ADDR, 32'h80000012);
    wr(`VIA_REG_CPU_MEM_ADDR, 32'h80000010);
    rd_check(`VIA_REG_CPU_MEM_DATA, 32'h0badf00d);
    rd_check(`VIA_REG_CPU_MEM_DATA, 32'h12345678);
    rd_check(`VIA_REG_CPU_MEM_ADDR, 32'h80000012);
    wr(`VIA_REG_CPU_MEM_ADDR, 32'h80000000 | DMEM_WORDS);
    wr(`VIA_REG_CPU_MEM_DATA, 32'hffffffff);                 // ignored
    wr(`VIA_REG_CPU_MEM_ADDR, 32'h80000000 | DMEM_WORDS);
    rd_check(`VIA_REG_CPU_MEM_DATA, 32'h0);
    wr(`VIA_REG_CPU_MEM_ADDR, 32'h0000ffff);
    rd_check(`VIA_REG_CPU_MEM_DATA, 32'h0);
    rd_check(`VIA_REG_CPU_MEM_ADDR, 32'h00000000);           // WORD wraps
    // the firmware image
    fw_load("admin");
    fw_download();
    // no firmware to take a command while the core is held in reset
    wr(`VIA_REG_ADMIN_DOORBELL, 32'h1);
    rd_check(`VIA_REG_ADMIN_STATUS, ST_REJ);
    wr(`VIA_REG_IRQ_STATUS, 32'hffffffff);
    wr(`VIA_REG_IRQ_ENABLE, IRQ_FW_FAULT | IRQ_ADMIN_DONE | IRQ_FW_LOG);
    fwlog_popped = fwlog_count;
    wr(`VIA_REG_CPU_CTRL, 32'h1);
    rd_check(`VIA_REG_CPU_CTRL, 32'h1);
    poll_reg(`VIA_REG_FW_READY, 32'hffffffff, READY_ADMIN);
    rd(`VIA_REG_CPU_STATUS, v);
    if (v[`VIA_CPU_STATUS_RUNNING_LSB] !== 1'b1 || v[`VIA_CPU_STATUS_HALTED_LSB] !== 1'b0) begin
        $fatal(1, "tb_via_nic: CPU_STATUS 0x%08h while the firmware runs", v);
    end
    rd(`VIA_REG_CPU_RETIRED, v);
    if (v < 10) begin
        $fatal(1, "tb_via_nic: CPU_RETIRED %0d after the boot", v);
    end
    rd_check(`VIA_REG_IRQ_STATUS, IRQ_FW_LOG);
    expect_irq(IRQ_FW_LOG);
    rd_check(`VIA_REG_FW_LOG_LEVEL, 32'h5);
    admin_boot_log();
    rd_check(`VIA_REG_FW_LOG, 32'h0);                        // empty
    rd_check(`VIA_REG_FW_LOG_LEVEL, 32'h0);
    wait_wfi();
    rd_check(`VIA_REG_CPU_STATUS, 32'h5);                    // RUNNING, WFI
    repeat (IDLE_WAIT) @(negedge clk);
    if (!idle) begin
        $fatal(1, "tb_via_nic: not idle while the firmware sleeps");
    end
    $display("tb_via_nic: firmware download and boot ok at %0t", $time);
    // admin commands
    admin_command(32'd0, 1'b0);
    admin_command(32'd0, 1'b1);
    wait_wfi();
    $display("tb_via_nic: admin mailbox ok at %0t", $time);
    // a timer event 400 cycles after the firmware reads TIME
    n = fwlog_count;
    v = time_cycles[31:0];
    admin_command(32'd400, 1'b0);
    wait (fwlog_count == n + 2);
    @(negedge clk);
    if (fwlog_words[(n + 1) % 256] !== 32'h726d6974 || fwlog_time[(n + 1) % 256] - fwlog_time[n % 256] < 400
            || fwlog_time[(n + 1) % 256] - fwlog_time[n % 256] > 600) begin
        $fatal(1, "tb_via_nic: timer event logged 0x%08h %0d cycles after the command",
            fwlog_words[(n + 1) % 256], fwlog_time[(n + 1) % 256] - fwlog_time[n % 256]);
    end
    log_pop_check(32'h726d6974);
    wait_wfi();
    $display("tb_via_nic: timer event ok at %0t", $time);
    // a firmware fault: stop, load the faulting program, run
    wr(`VIA_REG_CPU_CTRL, 32'h0);
    rd_check(`VIA_REG_CPU_STATUS, 32'h0);
    rd_check(`VIA_REG_FW_READY, 32'h0);
    fw_load("fault");
    fw_download();
    for (i = 0; i < IMEM_WORDS && fw_image[i] !== 32'hffffffff; i = i + 1) begin
    end
    wr(`VIA_REG_IRQ_STATUS, 32'hffffffff);
    wr(`VIA_REG_CPU_CTRL, 32'h1);
    wait_irq_bit(`VIA_IRQ_STATUS_FW_FAULT_LSB, 5000);
    rd_check(`VIA_REG_CPU_STATUS, 32'h2);                    // HALTED
    rd_check(`VIA_REG_CPU_TRAP_CAUSE, 32'd2);
    rd_check(`VIA_REG_CPU_TRAP_PC, 4 * i);
    rd_check(`VIA_REG_CPU_TRAP_VAL, 32'hffffffff);
    rd_check(`VIA_REG_FW_READY, READY_FAULT);
    rd_check(`VIA_REG_IRQ_STATUS, IRQ_FW_FAULT | IRQ_FW_LOG);
    log_pop_check(32'h21746c66);                            // "flt!"
    repeat (IDLE_WAIT) @(negedge clk);
    if (!idle) begin
        $fatal(1, "tb_via_nic: not idle with the core halted");
    end
    // a command for a halted core: accepted, queued, never taken; still idle
    wr(`VIA_REG_ADMIN_DOORBELL, 32'h1);
    rd_check(`VIA_REG_ADMIN_STATUS, ST_BUSY);
    repeat (IDLE_WAIT) @(negedge clk);
    if (!idle || !dut.per_ev_pending) begin
        $fatal(1, "tb_via_nic: idle %b with a halted core and an event queued", idle);
    end
    // RUN=0 clears HALTED and abandons the command; the admin firmware runs
    // again
    wr(`VIA_REG_CPU_CTRL, 32'h0);
    rd_check(`VIA_REG_CPU_STATUS, 32'h0);
    rd_check(`VIA_REG_ADMIN_STATUS, 32'h0);
    rd_check(`VIA_REG_CPU_TRAP_CAUSE, 32'h0);
    fw_load("admin");
    fw_download();
    wr(`VIA_REG_IRQ_STATUS, 32'hffffffff);
    wr(`VIA_REG_CPU_CTRL, 32'h1);
    poll_reg(`VIA_REG_FW_READY, 32'hffffffff, READY_ADMIN);
    admin_boot_log();
    admin_command(32'd0, 1'b0);
    wait_wfi();
    $display("tb_via_nic: firmware fault and restart ok at %0t", $time);
    // a soft reset stops the core (RUN back to 0)
    pulses = blk_pulses;
    soft_reset(busy_reads);
    rd_check(`VIA_REG_CPU_CTRL, 32'h0);
    rd_check(`VIA_REG_CPU_STATUS, 32'h0);
    rd_check(`VIA_REG_FW_READY, 32'h0);
    rd_check(`VIA_REG_ADMIN_STATUS, 32'h0);
    // the memories keep their contents
    wr(`VIA_REG_CPU_MEM_ADDR, 32'h0);
    rd_check(`VIA_REG_CPU_MEM_DATA, fw_image[0]);
    if (fwlog_count != fwlog_popped) begin
        $fatal(1, "tb_via_nic: %0d words on the fw_log port, %0d popped from FW_LOG", fwlog_count, fwlog_popped);
    end
    $display("tb_via_nic: control processor ok at %0t", $time);

    $display("tb_via_nic: %0d BAR0 writes, %0d reads", mmio.writes_done, mmio.reads_done);
    // with nothing left to do the NIC must say so within a few cycles (once
    // the TPT has cleared its table after the soft reset: REGIONS cycles)
    while (dut.tpt_prog_busy) @(posedge clk);
    repeat (8) @(posedge clk);
    if (!idle) begin
        $fatal(1, "tb_via_nic: not idle 8 cycles after the last transaction");
    end
    // and it stays idle while nothing happens (the TPT's table clear after
    // every reset keeps the NIC busy for REGIONS cycles, so the run has
    // fewer idle stretches than before the TPT)
    repeat (100) begin
        @(posedge clk);
        if (!idle) begin
            $fatal(1, "tb_via_nic: idle dropped with nothing to do");
        end
    end
    if (idle_cycles < 100) begin
        $fatal(1, "tb_via_nic: idle only %0d cycles over the whole run", idle_cycles);
    end
    $display("PASS");
    $finish;
end

endmodule
