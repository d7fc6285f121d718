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
//      the AXI-Lite side keeps answering.

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

localparam [31:0] IRQ_MASK = (32'd1 << NUM_IRQ) - 1;
localparam [31:0] CFG_MASK = 32'h000f01ff;

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
reg [31:0]  in_rx_frames = 32'd0, in_tx_frames = 32'd0;
reg [NUM_IRQ-1:0] in_irq_set = {NUM_IRQ{1'b0}};
wire [NUM_IRQ-1:0] irq;

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
    .DATA_WIDTH(DATA_WIDTH),
    .DMA_ADDR_WIDTH(DMA_ADDR_WIDTH),
    .DMA_ID_WIDTH(DMA_ID_WIDTH),
    .DMA_MAX_BURST(DMA_MAX_BURST),
    .DMA_MAX_OUTSTANDING(DMA_MAX_OUTSTANDING),
    .NET_FIFO_DEPTH(NET_FIFO_DEPTH),
    .SOFT_RESET_CYCLES(SOFT_RESET_CYCLES)
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
    .soft_reset_req(soft_reset_req),
    .diag_src(diag_src),
    .diag_dst(diag_dst),
    .diag_len(diag_len),
    .diag_start(diag_start),
    .diag_abort(diag_abort),
    .diag_cfg_max_burst(diag_cfg_max_burst),
    .diag_cfg_max_outstanding(diag_cfg_max_outstanding),
    .diag_busy(in_busy),
    .diag_done(in_done),
    .diag_error(in_error),
    .diag_bad_param(in_bad_param),
    .diag_rd_err(in_rd_err),
    .diag_wr_err(in_wr_err),
    .diag_aborted(in_aborted),
    .diag_err_resp(in_err_resp),
    .diag_cycles(in_cycles),
    .diag_bytes(in_bytes),
    .diag_err_addr(in_err_addr),
    .diag_rd_bursts(in_rd_bursts),
    .diag_wr_bursts(in_wr_bursts),
    .diag_max_inflight(in_max_inflight),
    .net_rx_frames(in_rx_frames),
    .net_tx_frames(in_tx_frames),
    .irq_set(irq_set),
    .irq(irq)
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

integer start_pulses = 0, abort_pulses = 0, soft_pulses = 0;
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
integer exp_start, exp_abort, exp_soft, exp_db;

task model_reset;
    begin
        sh_scratch = 0;
        sh_irq_en = 0;
        sh_irq_st = 0;
        sh_src_lo = 0;
        sh_src_hi = 0;
        sh_dst_lo = 0;
        sh_dst_hi = 0;
        sh_len = 0;
        sh_cfg = 0;
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
            16'h180, 16'h184:
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
            model_resp = is_reg({addr[15:2], 2'b00}) ? 2'b00 : 2'b10;
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
                16'h11c: model_data = {in_err_resp, 1'b0, in_aborted, in_wr_err, in_rd_err, in_bad_param,
                                       in_error, in_done, in_busy};
                16'h120: model_data = in_cycles;
                16'h124: model_data = in_bytes;
                16'h128: model_data = in_err_addr[31:0];
                16'h12c: model_data = in_err_addr[63:32];
                16'h130: model_data = in_rd_bursts;
                16'h134: model_data = in_wr_bursts;
                16'h138: model_data = in_max_inflight;
                16'h180: model_data = in_rx_frames;
                16'h184: model_data = in_tx_frames;
                default: model_data = 32'd0;
            endcase
        end
    end
endfunction

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
                default: begin
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
                || diag_cfg_max_burst !== sh_cfg[8:0] || diag_cfg_max_outstanding !== sh_cfg[19:16]) begin
            $fatal(1, "tb_via_regfile: DIAG outputs %h %h %h %h %h, expected %h %h %h %h %h",
                diag_src, diag_dst, diag_len, diag_cfg_max_burst, diag_cfg_max_outstanding,
                {sh_src_hi, sh_src_lo}, {sh_dst_hi, sh_dst_lo}, sh_len, sh_cfg[8:0], sh_cfg[19:16]);
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
        master.axil_read_check(op_addr, model_data(op_addr), model_resp(op_addr));
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
        for (off = 0; off < 16'h200; off = off + 4) begin
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
        rand32(in_rx_frames);
        rand32(in_tx_frames);
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
            0, 1, 2, 3: begin
                // a register (or a hole between registers)
                addr = r2 % 16'h190;
            end
            4: addr = r2 % 20'h10000;                           // anywhere global
            5: addr = 20'h10000 + r2 % (NUM_VI * 20'h1000);     // a doorbell page
            6: addr = 20'h10000 + NUM_VI * 20'h1000 + r2 % 20'h1000;  // just beyond
            default: addr = r2;                                 // anywhere
        endcase
    end
endtask

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
    exp_db = 0;
    stop_reader = 1'b0;
    model_reset();
    repeat (5) @(posedge clk);
    #1;
    hard_rst = 1'b0;
    blk_rst = 1'b0;

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

    // 3. random traffic
    for (n = 0; n < 1500; n = n + 1) begin
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
    $display("tb_via_regfile: random traffic done at %0t", $time);

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
