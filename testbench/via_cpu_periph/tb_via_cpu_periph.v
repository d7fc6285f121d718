// tb_via_cpu_periph: self-checking bench for rtl/via_cpu_periph.v on its
// own. The bench plays the core (per_* port with via_cpu's protocol: request
// held until per_ready, then at least one idle cycle; random gaps between
// accesses), the admin windows (64-word RAMs with a synchronous read), the
// register file's BAR0 read multiplexer (random grant delay, error flag for
// holes), the log FIFO's free space and the platform time base. EVENT_DEPTH
// is 5 (not a power of two). Checks:
//   1. ID, reads of write-only registers (0), access faults: offsets in no
//      window or holding no register, stores to read-only registers and
//      windows;
//   2. SCRATCH and READY with byte strobes (the ready output follows);
//   3. events: admin_event pushes EV_ADMIN, EVENT pops (0 when empty),
//      EVENT_COUNT, irq_wake while not empty, overflow counted in DROPPED
//      (cleared by reading EVENT_COUNT);
//   4. timer: EV_TIMER in the cycle after time_cycles reaches TIMER_CMP
//      (64-bit compare), ARM cleared; a compare value in the future (HI)
//      does not fire; the timer and admin_event in the same cycle: both
//      events, admin first;
//   5. TIME_LO latches TIME_HI;
//   6. LOG: one log_push per store with the strobed bytes, LOG_SPACE;
//      ADMIN_COMPLETE: one pulse per store;
//   7. ADMIN_CMD reads, ADMIN_RSP stores with strobes and reads;
//   8. the BAR0 view: address, data and error passed through, whatever the
//      grant delay; stores fault;
//   9. random mix of all of the above against a model; rst (the core's
//      reset) clears events, timer, READY, SCRATCH;
//  10. the TPT window, against a model of via_tpt's programming port (4
//      entries, BUSY for a random 0..6 or 20 cycles after the pulse): TPT_INDEX ..
//      TPT_PL_HI with byte strobes (TPT_ATTR keeps bits 17:0), TPT_CMD sends
//      exactly one prog_valid with the registers' values, stores while BUSY
//      are ignored, TPT_STATUS (BUSY until the TPT is done, VALID, GEN),
//      WRITE / SET_ATTR / READ load the entry into the registers, INVALIDATE
//      does not; the reset clears the window.
//  11. the VI context window, against a model of the context table's write
//      port (ctx_ready low for a random 0..5 or 30 cycles of each commit):
//      VI_CTX_VI .. VI_CTX_PEER with byte strobes, each keeping its fields
//      only; VI_CTX_CMD.COMMIT gives exactly one transfer with the
//      registers' values at the commit (registers rewritten while it waits
//      do not change ctx_*), ctx_valid held and ctx_* stable until
//      ctx_ready, VI_CTX_STATUS.BUSY and the busy output while ctx_valid, a
//      commit while BUSY and a store with COMMIT 0 ignored; the reset
//      clears the window and drops a waiting commit.
// Protocol checks throughout: per_ready only while per_valid, one cycle;
// no X on the outputs; no window or BAR0 request without an access.

`timescale 1ns / 1ps

`include "via_bar0.vh"
`include "via_fw.vh"

module tb_via_cpu_periph;

localparam EVENT_DEPTH = 5;

reg clk = 1'b0;
reg rst = 1'b1;

always #5 clk = ~clk;

reg [8*256-1:0] vcd_file;

initial begin
    if ($value$plusargs("vcd=%s", vcd_file)) begin
        $dumpfile(vcd_file);
        $dumpvars(0, tb_via_cpu_periph);
    end
end

initial begin
    #20000000;
    $fatal(1, "tb_via_cpu_periph: watchdog timeout");
end

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
    rng = seed * 32'h9e3779b1 + 32'd7654321;
    if (rng == 32'd0) begin
        rng = 32'h2545f491;
    end
end

// ------------------------------------------------------------ DUT

reg         per_valid = 1'b0;
reg         per_we = 1'b0;
reg  [15:0] per_addr = 16'd0;
reg  [31:0] per_wdata = 32'd0;
reg  [3:0]  per_wstrb = 4'd0;
wire        per_ready;
wire [31:0] per_rdata;
wire        per_err;
wire        irq_wake;
reg  [63:0] time_cycles = 64'h0000_0001_ffff_ff00;
reg         admin_event = 1'b0;
// connection management: a message source (the network block's cm port)
// and sink (its CONNECT framer), and the host event pulses
reg          cmr_valid = 1'b0;
wire         cmr_ready;
reg  [7:0]   cmr_node = 8'd0;
reg  [15:0]  cmr_vi = 16'd0, cmr_dvi = 16'd0;
reg  [255:0] cmr_data = 256'd0;
wire         cmt_valid;
reg          cmt_ready = 1'b0;
wire [7:0]   cmt_node;
wire [15:0]  cmt_dvi, cmt_svi;
wire [255:0] cmt_data;
wire         host_event;
wire         aerr_push;
wire [23:0]  aerr_push_data;
reg  [23:0]  aerr_last = 24'd0;
integer      cmr_pops = 0, host_events = 0, aerr_pushes = 0;
always @(posedge clk) begin
    if (cmr_ready && !rst) begin   // (the model's registers are random until the reset)
        if (!cmr_valid) begin
            $fatal(1, "tb_via_cpu_periph: cm_rx_ready without a message");
        end
        cmr_pops = cmr_pops + 1;
    end
    if (host_event) begin
        host_events = host_events + 1;
    end
    if (aerr_push) begin
        aerr_pushes = aerr_pushes + 1;
        aerr_last = aerr_push_data;
    end
end
wire        admin_complete;
wire [31:0] ready;
wire        log_push;
wire [31:0] log_data;
reg  [15:0] log_space = 16'd17;
wire        cmd_en;
wire [5:0]  cmd_addr;
reg  [31:0] cmd_rdata = 32'd0;
wire        rsp_en;
wire [3:0]  rsp_we;
wire [5:0]  rsp_addr;
wire [31:0] rsp_wdata;
reg  [31:0] rsp_rdata = 32'd0;
wire        bar_rd_en;
wire [9:0]  bar_rd_addr;
reg         bar_rd_ack = 1'b0;
reg  [31:0] bar_rd_data = 32'd0;
reg         bar_rd_err = 1'b0;
wire        ev_pending;
wire        timer_armed;
wire        busy;

// via_tpt's programming port, modelled
wire        tpt_prog_valid;
wire [2:0]  tpt_prog_op;
wire [15:0] tpt_prog_index;
wire [63:0] tpt_prog_va;
wire [31:0] tpt_prog_len;
wire [15:0] tpt_prog_ptag;
wire        tpt_prog_rdma_write, tpt_prog_rdma_read;
wire [63:0] tpt_prog_pl;
reg         tm_busy = 1'b0;
reg  [63:0] tm_rd_va = 64'd0;
reg  [31:0] tm_rd_len = 32'd0;
reg  [15:0] tm_rd_ptag = 16'd0;
reg         tm_rd_rw = 1'b0, tm_rd_rr = 1'b0, tm_rd_valid = 1'b0;
reg  [63:0] tm_rd_pl = 64'd0;
reg  [15:0] tm_rd_gen = 16'd0;

via_cpu_periph #(
    .EVENT_DEPTH(EVENT_DEPTH)
) dut (
    .clk(clk),
    .rst(rst),
    .per_valid(per_valid),
    .per_we(per_we),
    .per_addr(per_addr),
    .per_wdata(per_wdata),
    .per_wstrb(per_wstrb),
    .per_ready(per_ready),
    .per_rdata(per_rdata),
    .per_err(per_err),
    .irq_wake(irq_wake),
    .time_cycles(time_cycles),
    .admin_event(admin_event),
    .admin_complete(admin_complete),
    .ready(ready),
    .log_push(log_push),
    .log_data(log_data),
    .log_space(log_space),
    .cmd_en(cmd_en),
    .cmd_addr(cmd_addr),
    .cmd_rdata(cmd_rdata),
    .rsp_en(rsp_en),
    .rsp_we(rsp_we),
    .rsp_addr(rsp_addr),
    .rsp_wdata(rsp_wdata),
    .rsp_rdata(rsp_rdata),
    .bar_rd_en(bar_rd_en),
    .bar_rd_addr(bar_rd_addr),
    .bar_rd_ack(bar_rd_ack),
    .bar_rd_data(bar_rd_data),
    .bar_rd_err(bar_rd_err),
    .tpt_prog_valid(tpt_prog_valid),
    .tpt_prog_op(tpt_prog_op),
    .tpt_prog_index(tpt_prog_index),
    .tpt_prog_va(tpt_prog_va),
    .tpt_prog_len(tpt_prog_len),
    .tpt_prog_ptag(tpt_prog_ptag),
    .tpt_prog_rdma_write(tpt_prog_rdma_write),
    .tpt_prog_rdma_read(tpt_prog_rdma_read),
    .tpt_prog_pl(tpt_prog_pl),
    .tpt_prog_busy(tm_busy),
    .tpt_prog_rd_va(tm_rd_va),
    .tpt_prog_rd_len(tm_rd_len),
    .tpt_prog_rd_ptag(tm_rd_ptag),
    .tpt_prog_rd_rdma_write(tm_rd_rw),
    .tpt_prog_rd_rdma_read(tm_rd_rr),
    .tpt_prog_rd_pl(tm_rd_pl),
    .tpt_prog_rd_valid(tm_rd_valid),
    .tpt_prog_rd_gen(tm_rd_gen),
    .ev_pending(ev_pending),
    .timer_armed(timer_armed),
    .ctx_valid(ctx_valid),
    .ctx_ready(ctx_ready),
    .ctx_vi(ctx_vi),
    .ctx_enable(ctx_enable),
    .ctx_state(ctx_state),
    .ctx_reset_q(ctx_reset_q),
    .ctx_rdma_write(ctx_rdma_write),
    .ctx_rdma_read(ctx_rdma_read),
    .ctx_reliable(ctx_reliable),
    .ctx_ptag(ctx_ptag),
    .ctx_max_transfer(ctx_max_transfer),
    .ctx_peer(ctx_peer),
    .ctx_q_vi(ctx_q_vi),
    .ctx_queued(tb_queued),
    .cm_rx_valid(cmr_valid),
    .cm_rx_ready(cmr_ready),
    .cm_rx_node(cmr_node),
    .cm_rx_vi(cmr_vi),
    .cm_rx_dst_vi(cmr_dvi),
    .cm_rx_data(cmr_data),
    .cm_tx_valid(cmt_valid),
    .cm_tx_ready(cmt_ready),
    .cm_tx_node(cmt_node),
    .cm_tx_dst_vi(cmt_dvi),
    .cm_tx_src_vi(cmt_svi),
    .cm_tx_data(cmt_data),
    .host_event(host_event),
    .aerr_push(aerr_push),
    .aerr_push_data(aerr_push_data),
    .brk_valid(brk_valid), .brk_vi(brk_vi), .brk_new(brk_new), .brk_clr(brk_clr), .brk_clr_vi(brk_clr_vi),
    .busy(busy)
);

// the context table's write port, modelled: while ctx_valid, ctx_ready
// comes after cm_lat cycles (cm_lat 0: at once); each transfer is counted
// and its fields kept; ctx_* must not change while ctx_valid waits
wire        ctx_valid;
reg         ctx_ready = 1'b0;
// the queue state the data path would show for VI ctx_q_vi (VI_CTX_VI as
// it is now): a function of it, so that a read shows which VI it asked for
wire [15:0] ctx_q_vi;
wire [1:0]  tb_queued = {ctx_q_vi[1] ^ ctx_q_vi[0], ctx_q_vi[0]};
wire [31:0] q_bits = {22'd0, tb_queued, 8'd0};
wire [15:0] ctx_vi;
wire        ctx_enable;
wire [1:0]  ctx_state;
wire        ctx_reset_q;
wire        ctx_rdma_write;
wire        ctx_rdma_read;
wire        ctx_reliable;
// VI_CTX_BREAK: the data path's side (driven by the test below)
reg         brk_valid = 1'b0, brk_new = 1'b0;
reg  [15:0] brk_vi = 16'd0;
wire        brk_clr;
wire [15:0] brk_clr_vi;
integer     brk_clrs = 0;
reg  [15:0] brk_clr_last = 16'd0;
always @(posedge clk) begin
    if (brk_clr) begin
        brk_clrs <= brk_clrs + 1;
        brk_clr_last <= brk_clr_vi;
    end
end
wire [15:0] ctx_ptag;
wire [31:0] ctx_max_transfer;
wire [15:0] ctx_peer;
wire [85:0] ctx_word = {ctx_vi, ctx_enable, ctx_state, ctx_reset_q, ctx_rdma_write, ctx_rdma_read, ctx_reliable,
                        ctx_ptag, ctx_max_transfer, ctx_peer};
integer     cm_lat = 0;
integer     cm_wait = 0;
integer     cm_xfers = 0;
reg  [85:0] cm_last = 86'd0;
reg  [85:0] cm_hold = 86'd0;
reg         cm_was_waiting = 1'b0;

always @* begin
    ctx_ready = ctx_valid && cm_wait >= cm_lat;
end

always @(posedge clk) begin
    if (!rst && (^ctx_word === 1'bx || ctx_valid === 1'bx)) begin
        $fatal(1, "tb_via_cpu_periph: X on the ctx port");
    end
    if (!rst && ctx_valid && !busy) begin
        $fatal(1, "tb_via_cpu_periph: busy 0 while ctx_valid");
    end
    if (!rst && cm_was_waiting && (!ctx_valid || ctx_word !== cm_hold)) begin
        $fatal(1, "tb_via_cpu_periph: ctx_valid dropped or ctx_* changed before ctx_ready");
    end
    cm_was_waiting <= !rst && ctx_valid && !ctx_ready;
    cm_hold <= ctx_word;
    if (rst || !ctx_valid || ctx_ready) begin
        cm_wait <= 0;
    end else begin
        cm_wait <= cm_wait + 1;
    end
    if (!rst && ctx_valid && ctx_ready) begin
        cm_xfers <= cm_xfers + 1;
        cm_last <= ctx_word;
    end
end

always @(posedge clk) begin
    time_cycles <= time_cycles + 64'd1;
end

// the TPT model: 4 entries; a command is taken when prog_valid while not
// busy, keeps busy for tm_lat cycles from the next one (0: none), then
// reports the entry on prog_rd_*
reg  [63:0] tm_va [0:3];
reg  [31:0] tm_len [0:3];
reg  [17:0] tm_attr [0:3];
reg  [63:0] tm_pl [0:3];
reg         tm_valid [0:3];
reg  [15:0] tm_gen [0:3];
integer     tm_lat = 0;
integer     tm_cnt = 0;
integer     tm_cmds = 0;
integer     tm_pulses = 0;
reg  [1:0]  tm_idx;
reg  [2:0]  tm_op;
reg         tm_pending = 1'b0;
integer     tk;

initial begin
    for (tk = 0; tk < 4; tk = tk + 1) begin
        tm_valid[tk] = 1'b0;
        tm_gen[tk] = 16'd1;
        tm_va[tk] = 64'd0;
        tm_len[tk] = 32'd0;
        tm_attr[tk] = 18'd0;
        tm_pl[tk] = 64'd0;
    end
end

task tm_report;
    begin
        tm_rd_va = tm_va[tm_idx];
        tm_rd_len = tm_len[tm_idx];
        tm_rd_ptag = tm_attr[tm_idx][15:0];
        tm_rd_rw = tm_attr[tm_idx][16];
        tm_rd_rr = tm_attr[tm_idx][17];
        tm_rd_pl = tm_pl[tm_idx];
        tm_rd_valid = tm_valid[tm_idx];
        tm_rd_gen = tm_gen[tm_idx];
    end
endtask

always @(posedge clk) begin
    if (!rst && tpt_prog_valid === 1'bx) begin
        $fatal(1, "tb_via_cpu_periph: X on tpt_prog_valid");
    end
    if (!rst && tpt_prog_valid) begin
        tm_pulses = tm_pulses + 1;
    end
    if (rst) begin
        // the outputs are not defined before the first reset edge
    end else if (tm_pending) begin
        if (tm_cnt == 0) begin
            tm_pending = 1'b0;
            tm_busy <= 1'b0;
            tm_report();
        end else begin
            tm_cnt = tm_cnt - 1;
            tm_busy <= 1'b1;
        end
    end else if (tpt_prog_valid && !tm_busy) begin
        tm_cmds = tm_cmds + 1;
        tm_idx = tpt_prog_index[1:0];
        tm_op = tpt_prog_op;
        case (tm_op)
            3'd1: begin
                tm_va[tm_idx] = tpt_prog_va;
                tm_len[tm_idx] = tpt_prog_len;
                tm_attr[tm_idx] = {tpt_prog_rdma_read, tpt_prog_rdma_write, tpt_prog_ptag};
                tm_pl[tm_idx] = tpt_prog_pl;
                tm_valid[tm_idx] = 1'b1;
            end
            3'd2: begin
                if (tm_valid[tm_idx]) tm_attr[tm_idx] = {tpt_prog_rdma_read, tpt_prog_rdma_write, tpt_prog_ptag};
            end
            3'd3: begin
                tm_valid[tm_idx] = 1'b0;
                tm_gen[tm_idx] = tm_gen[tm_idx] + 16'd1;
            end
            default: begin
            end
        endcase
        if (tm_lat == 0) begin
            // done within the pulse's cycle
            if (tm_op != 3'd3 && tm_op != 3'd0) tm_report();
        end else begin
            tm_pending = 1'b1;
            tm_cnt = tm_lat - 1;
            tm_busy <= 1'b1;
        end
    end
end

// ------------------------------------------------------------ environment

// admin windows: synchronous reads, RSP with byte writes
reg [31:0] cmd_mem [0:63];
reg [31:0] rsp_mem [0:63];
integer    k0;

initial begin
    for (k0 = 0; k0 < 64; k0 = k0 + 1) begin
        cmd_mem[k0] = 32'hc0de_0000 + k0 * 32'h0101;
        rsp_mem[k0] = 32'h5e50_0000 + k0;
    end
end

always @(posedge clk) begin
    if (cmd_en) begin
        cmd_rdata <= cmd_mem[cmd_addr];
    end
    if (rsp_en) begin
        if (rsp_we[0]) rsp_mem[rsp_addr][7:0]   <= rsp_wdata[7:0];
        if (rsp_we[1]) rsp_mem[rsp_addr][15:8]  <= rsp_wdata[15:8];
        if (rsp_we[2]) rsp_mem[rsp_addr][23:16] <= rsp_wdata[23:16];
        if (rsp_we[3]) rsp_mem[rsp_addr][31:24] <= rsp_wdata[31:24];
        rsp_rdata <= rsp_mem[rsp_addr];
    end
end

// the BAR0 read multiplexer: grants after a random delay; data derived from
// the address, the error flag for offsets that are multiples of 0x14
integer bar_pct = 50;
reg [31:0] bar_r;
integer bar_grants = 0;

function [31:0] bar_value;
    input [9:0] a;
    begin
        bar_value = 32'hba50_0000 ^ {a, 6'd0} ^ {22'd0, a};
    end
endfunction

function bar_hole;
    input [9:0] a;
    begin
        bar_hole = (a[9:2] % 5) == 0;
    end
endfunction

always @(negedge clk) begin
    rand32(bar_r);
    bar_rd_ack  = bar_rd_en && (bar_r % 100) < bar_pct;
    bar_rd_data = bar_rd_ack ? bar_value(bar_rd_addr) : 32'hxxxxxxxx;
    bar_rd_err  = bar_rd_ack ? bar_hole(bar_rd_addr) : 1'bx;
end

// ------------------------------------------------------------ monitors

integer log_pushes = 0, completes = 0, rsp_writes = 0;
reg [31:0] last_log;
reg        prev_ready = 1'b0;

always @(negedge clk) begin
    if (!rst) begin
        if ((^{per_ready, per_err, irq_wake, admin_complete, log_push, cmd_en, rsp_en, bar_rd_en,
               ev_pending, timer_armed, busy}) === 1'bx) begin
            $fatal(1, "tb_via_cpu_periph: X on an output");
        end
        if (per_ready && !per_valid) begin
            $fatal(1, "tb_via_cpu_periph: per_ready without a request");
        end
        if (per_ready && prev_ready) begin
            $fatal(1, "tb_via_cpu_periph: per_ready for two cycles");
        end
        if (per_ready && (^per_rdata) === 1'bx) begin
            $fatal(1, "tb_via_cpu_periph: X on per_rdata");
        end
        if ((cmd_en || rsp_en || bar_rd_en || log_push || admin_complete) && !per_valid) begin
            $fatal(1, "tb_via_cpu_periph: window, BAR0, log or complete without an access");
        end
        if (irq_wake !== ev_pending) begin
            $fatal(1, "tb_via_cpu_periph: irq_wake %b, events pending %b", irq_wake, ev_pending);
        end
        prev_ready = per_ready;
        if (log_push) begin
            log_pushes = log_pushes + 1;
            last_log = log_data;
        end
        if (admin_complete) completes = completes + 1;
        if (rsp_en && rsp_we != 4'd0) rsp_writes = rsp_writes + 1;
    end
end

// ------------------------------------------------------------ the core's side

integer max_gap = 3;
reg [31:0] res_rdata;
reg        res_err;

// one access with via_cpu's protocol; the result in res_rdata/res_err
task per_access;
    input        we;
    input [15:0] addr;
    input [31:0] wdata;
    input [3:0]  wstrb;
    reg [31:0] r;
    integer n;
    begin
        rand32(r);
        repeat (r % (max_gap + 1)) @(posedge clk);
        @(posedge clk);
        #1;
        per_valid = 1'b1;
        per_we = we;
        per_addr = addr;
        per_wdata = wdata;
        per_wstrb = we ? wstrb : 4'd0;
        n = 0;
        @(negedge clk);
        while (!per_ready) begin
            @(negedge clk);
            n = n + 1;
            if (n > 2000) begin
                $fatal(1, "tb_via_cpu_periph: access to 0x%04h not answered", addr);
            end
        end
        res_rdata = per_rdata;
        res_err = per_err;
        @(posedge clk);
        #1;
        per_valid = 1'b0;
        rand32(r);
        per_addr = r[15:0];   // don't-care while per_valid is 0
        per_wdata = r;
    end
endtask

task rd_check;
    input [15:0] addr;
    input [31:0] exp;
    begin
        per_access(1'b0, addr, 32'd0, 4'd0);
        if (res_err !== 1'b0 || res_rdata !== exp) begin
            $fatal(1, "tb_via_cpu_periph: load 0x%04h: 0x%08h err %b, expected 0x%08h", addr, res_rdata, res_err, exp);
        end
    end
endtask

task rd_fault;
    input [15:0] addr;
    begin
        per_access(1'b0, addr, 32'd0, 4'd0);
        if (res_err !== 1'b1) begin
            $fatal(1, "tb_via_cpu_periph: load 0x%04h did not fault", addr);
        end
    end
endtask

task wr;
    input [15:0] addr;
    input [31:0] data;
    input [3:0]  strb;
    begin
        per_access(1'b1, addr, data, strb);
        if (res_err !== 1'b0) begin
            $fatal(1, "tb_via_cpu_periph: store 0x%04h faulted", addr);
        end
    end
endtask

task wr_fault;
    input [15:0] addr;
    begin
        per_access(1'b1, addr, 32'h1, 4'hf);
        if (res_err !== 1'b1) begin
            $fatal(1, "tb_via_cpu_periph: store 0x%04h did not fault", addr);
        end
    end
endtask

task event_pulse;
    begin
        @(posedge clk);
        #1;
        admin_event = 1'b1;
        @(posedge clk);
        #1;
        admin_event = 1'b0;
    end
endtask

function [31:0] bytes_of;
    input [3:0] strb;
    begin
        bytes_of = {{8{strb[3]}}, {8{strb[2]}}, {8{strb[1]}}, {8{strb[0]}}};
    end
endfunction

// ------------------------------------------------------------ test

localparam [15:0] R_ID = `VIA_FW_REG_ID, R_EVENT = `VIA_FW_REG_EVENT, R_COUNT = `VIA_FW_REG_EVENT_COUNT,
                  R_TLO = `VIA_FW_REG_TIME_LO, R_THI = `VIA_FW_REG_TIME_HI,
                  R_CLO = `VIA_FW_REG_TIMER_CMP_LO, R_CHI = `VIA_FW_REG_TIMER_CMP_HI,
                  R_TCTRL = `VIA_FW_REG_TIMER_CTRL, R_LOG = `VIA_FW_REG_LOG, R_SPACE = `VIA_FW_REG_LOG_SPACE,
                  R_COMPLETE = `VIA_FW_REG_ADMIN_COMPLETE, R_READY = `VIA_FW_REG_READY,
                  R_SCRATCH = `VIA_FW_REG_SCRATCH;
localparam [15:0] W_CMD = `VIA_FW_ADMIN_CMD_WIN_BASE, W_RSP = `VIA_FW_ADMIN_RSP_WIN_BASE, W_BAR = `VIA_FW_BAR0_BASE;

integer i, n, pushes, comps, fire_cycle;
reg [31:0] r, d, s_scratch, s_ready, t_lo;
reg [63:0] cmp, t0;
reg [3:0] st;
reg [15:0] a;
integer m_events, m_dropped;
localparam [15:0] R_TINDEX = `VIA_FW_REG_TPT_INDEX, R_TVA_LO = `VIA_FW_REG_TPT_VA_LO, R_TVA_HI = `VIA_FW_REG_TPT_VA_HI,
                  R_TLEN = `VIA_FW_REG_TPT_LEN, R_TATTR = `VIA_FW_REG_TPT_ATTR, R_TPL_LO = `VIA_FW_REG_TPT_PL_LO,
                  R_TPL_HI = `VIA_FW_REG_TPT_PL_HI, R_TCMD = `VIA_FW_REG_TPT_CMD, R_TSTATUS = `VIA_FW_REG_TPT_STATUS;
reg [63:0] t_va, t_pl;
reg [31:0] t_len;
reg [17:0] t_attr;
reg [1:0]  t_idx;
reg [2:0]  t_op;
integer    cmds, pulses;
localparam [15:0] R_CVI = `VIA_FW_REG_VI_CTX_VI, R_CATTR = `VIA_FW_REG_VI_CTX_ATTR, R_CPTAG = `VIA_FW_REG_VI_CTX_PTAG,
                  R_CMTU = `VIA_FW_REG_VI_CTX_MTU, R_CPEER = `VIA_FW_REG_VI_CTX_PEER, R_CCMD = `VIA_FW_REG_VI_CTX_CMD,
                  R_CSTATUS = `VIA_FW_REG_VI_CTX_STATUS;
localparam [31:0] C_ATTR_MASK = 32'h00070033;
reg [15:0] c_vi, c_ptag, c_peer;
reg [31:0] c_attr, c_mtu;
reg [85:0] c_exp;
integer    xfers;

// the ctx_* word a commit of these register values gives
function [85:0] ctx_expect;
    input [15:0] vi;
    input [31:0] attr;
    input [15:0] ptag;
    input [31:0] mtu;
    input [15:0] peer;
    begin
        ctx_expect = {vi, attr[`VIA_FW_VI_CTX_ATTR_ENABLE_LSB], attr[`VIA_FW_VI_CTX_ATTR_STATE_RANGE],
                      attr[`VIA_FW_VI_CTX_ATTR_RESET_Q_LSB], attr[`VIA_FW_VI_CTX_ATTR_RDMA_WRITE_LSB],
                      attr[`VIA_FW_VI_CTX_ATTR_RDMA_READ_LSB], attr[`VIA_FW_VI_CTX_ATTR_RELIABLE_LSB], ptag, mtu, peer};
    end
endfunction

initial begin
    repeat (5) @(posedge clk);
    #1;
    rst = 1'b0;

    // 1. identification, write-only reads, faults
    rd_check(R_ID, `VIA_MAGIC);
    rd_check(R_LOG, 32'h0);
    rd_check(R_COMPLETE, 32'h0);
    rd_check(R_SPACE, 32'd17);
    rd_check(R_EVENT, 32'h0);
    rd_check(R_COUNT, 32'h0);
    rd_check(R_TCTRL, 32'h0);
    rd_check(R_READY, 32'h0);
    rd_check(R_SCRATCH, 32'h0);
    rd_fault(16'h000c);
    rd_fault(16'h0024);
    rd_fault(16'h0054);
    rd_fault(16'h0190);
    rd_fault(16'h01d0);
    rd_fault(16'h0ffc);
    rd_fault(16'h1200);
    rd_fault(16'h7ffc);
    rd_fault(16'h8400);
    rd_fault(16'hfffc);
    wr_fault(R_ID);
    wr_fault(R_EVENT);
    wr_fault(R_COUNT);
    wr_fault(R_TLO);
    wr_fault(R_THI);
    wr_fault(R_SPACE);
    wr_fault(16'h0054);
    wr_fault(W_CMD + 16'h10);
    wr_fault(W_BAR + 16'h40);
    wr_fault(16'h4000);
    if (log_pushes != 0 || completes != 0 || rsp_writes != 0 || ev_pending) begin
        $fatal(1, "tb_via_cpu_periph: a faulting access had an effect");
    end
    $display("tb_via_cpu_periph: identification and faults ok at %0t", $time);

    // 2. SCRATCH, READY with strobes
    wr(R_SCRATCH, 32'h11223344, 4'hf);
    wr(R_SCRATCH, 32'haabbccdd, 4'b0101);
    rd_check(R_SCRATCH, 32'h11bb33dd);
    wr(R_READY, 32'h56460102, 4'hf);
    wr(R_READY, 32'hffff0000, 4'b0100);
    rd_check(R_READY, 32'h56ff0102);
    if (ready !== 32'h56ff0102) begin
        $fatal(1, "tb_via_cpu_periph: ready output 0x%08h", ready);
    end

    // 3. events
    event_pulse();
    @(negedge clk);
    if (!irq_wake) $fatal(1, "tb_via_cpu_periph: no wake-up with an event queued");
    rd_check(R_COUNT, 32'h1);
    rd_check(R_EVENT, `VIA_FW_EV_ADMIN);
    rd_check(R_EVENT, 32'h0);
    @(negedge clk);
    if (irq_wake) $fatal(1, "tb_via_cpu_periph: wake-up with no event queued");
    for (i = 0; i < EVENT_DEPTH + 3; i = i + 1) begin
        event_pulse();
    end
    rd_check(R_COUNT, {16'd3, 16'd0} | EVENT_DEPTH);
    rd_check(R_COUNT, EVENT_DEPTH);                       // DROPPED cleared
    for (i = 0; i < EVENT_DEPTH; i = i + 1) begin
        rd_check(R_EVENT, `VIA_FW_EV_ADMIN);
    end
    rd_check(R_EVENT, 32'h0);
    rd_check(R_COUNT, 32'h0);
    $display("tb_via_cpu_periph: events ok at %0t", $time);

    // 4. timer (the time base crosses 2**32 meanwhile)
    for (n = 0; n < 4; n = n + 1) begin
        rd_check(R_TCTRL, 32'h0);
        cmp = time_cycles + 60 + 37 * n;
        wr(R_CLO, cmp[31:0], 4'hf);
        wr(R_CHI, cmp[63:32], 4'hf);
        rd_check(R_CLO, cmp[31:0]);
        rd_check(R_CHI, cmp[63:32]);
        wr(R_TCTRL, 32'h1, 4'h1);
        rd_check(R_TCTRL, 32'h1);
        fire_cycle = -1;
        while (!irq_wake) begin
            @(negedge clk);
            if (time_cycles > cmp + 1) $fatal(1, "tb_via_cpu_periph: timer did not fire at 0x%0h", cmp);
        end
        // the compare matched when time_cycles was cmp; the event is in the FIFO one cycle later
        if (time_cycles !== cmp + 1) begin
            $fatal(1, "tb_via_cpu_periph: timer for 0x%0h fired at 0x%0h", cmp, time_cycles - 1);
        end
        rd_check(R_TCTRL, 32'h0);
        rd_check(R_EVENT, `VIA_FW_EV_TIMER);
        rd_check(R_EVENT, 32'h0);
    end
    // a compare value in a later HI word does not fire
    cmp = time_cycles + 64'h1_0000_0000;
    wr(R_CLO, 32'h0, 4'hf);
    wr(R_CHI, cmp[63:32], 4'hf);
    wr(R_TCTRL, 32'h1, 4'h1);
    repeat (300) @(negedge clk);
    if (ev_pending || !timer_armed) $fatal(1, "tb_via_cpu_periph: a timer far in the future fired");
    wr(R_TCTRL, 32'h0, 4'h1);
    rd_check(R_TCTRL, 32'h0);
    // timer and admin event in the same cycle: both, admin first
    cmp = time_cycles + 40;
    wr(R_CLO, cmp[31:0], 4'hf);
    wr(R_CHI, cmp[63:32], 4'hf);
    wr(R_TCTRL, 32'h1, 4'h1);
    wait (time_cycles == cmp - 1);
    @(posedge clk);
    #1;
    admin_event = 1'b1;           // seen in the cycle time_cycles == cmp
    @(posedge clk);
    #1;
    admin_event = 1'b0;
    rd_check(R_COUNT, 32'h2);
    rd_check(R_EVENT, `VIA_FW_EV_ADMIN);
    rd_check(R_EVENT, `VIA_FW_EV_TIMER);
    rd_check(R_TCTRL, 32'h0);
    $display("tb_via_cpu_periph: timer ok at %0t", $time);

    // 5. TIME_LO latches TIME_HI
    for (n = 0; n < 3; n = n + 1) begin
        @(posedge clk);
        #1;
        time_cycles = {n[31:0] + 32'd2, 32'hffff_ff00};
        wait (time_cycles[31:0] == 32'hffff_fff0 - 8 * n);
        t0 = time_cycles;
        per_access(1'b0, R_TLO, 32'd0, 4'd0);
        t_lo = res_rdata;
        repeat (40) @(posedge clk);
        per_access(1'b0, R_THI, 32'd0, 4'd0);
        if (t_lo < t0[31:0] || t_lo > t0[31:0] + 8) $fatal(1, "tb_via_cpu_periph: TIME_LO 0x%08h at 0x%0h", t_lo, t0);
        if (res_rdata !== t0[63:32]) $fatal(1, "tb_via_cpu_periph: TIME_HI 0x%08h, latched at 0x%0h", res_rdata, t0);
    end
    $display("tb_via_cpu_periph: time ok at %0t", $time);

    // 6. LOG, LOG_SPACE, ADMIN_COMPLETE
    for (n = 0; n < 20; n = n + 1) begin
        rand32(d);
        rand32(r);
        st = (r[7:4] < 6) ? 4'hf : r[3:0];
        pushes = log_pushes;
        wr(R_LOG, d, st);
        if (log_pushes != pushes + 1 || last_log !== (d & bytes_of(st))) begin
            $fatal(1, "tb_via_cpu_periph: LOG store 0x%08h strb %b: %0d pushes, word 0x%08h",
                d, st, log_pushes - pushes, last_log);
        end
        log_space = r[31:16];
        rd_check(R_SPACE, r[31:16]);
    end
    comps = completes;
    wr(R_COMPLETE, 32'h0, 4'hf);
    wr(R_COMPLETE, 32'h1, 4'h1);
    if (completes != comps + 2) $fatal(1, "tb_via_cpu_periph: %0d completes", completes - comps);
    $display("tb_via_cpu_periph: log and complete ok at %0t", $time);

    // 7. admin windows
    for (i = 0; i < 64; i = i + 1) begin
        rd_check(W_CMD + 4 * i, cmd_mem[i]);
    end
    for (i = 0; i < 64; i = i + 1) begin
        rand32(d);
        rand32(r);
        st = r[3:0];
        a = W_RSP + 4 * i;
        r = (rsp_mem[i] & ~bytes_of(st)) | (d & bytes_of(st));
        wr(a, d, st);
        rd_check(a, r);
    end
    $display("tb_via_cpu_periph: admin windows ok at %0t", $time);

    // 8. the BAR0 view, with several grant delays
    for (n = 0; n < 4; n = n + 1) begin
        bar_pct = (n == 0) ? 100 : (n == 1) ? 5 : (n == 2) ? 30 : 70;
        for (i = 0; i < 64; i = i + 1) begin
            rand32(r);
            a = {6'd0, r[9:2], 2'b00};
            per_access(1'b0, W_BAR + a, 32'd0, 4'd0);
            if (res_err !== bar_hole(a[9:0]) || (!res_err && res_rdata !== bar_value(a[9:0]))) begin
                $fatal(1, "tb_via_cpu_periph: BAR0 view 0x%03h: 0x%08h err %b", a, res_rdata, res_err);
            end
        end
    end
    bar_pct = 50;
    $display("tb_via_cpu_periph: BAR0 view ok at %0t", $time);

    // 9. random mix against a model
    s_scratch = 32'h11bb33dd;
    s_ready = 32'h56ff0102;
    m_events = 0;
    m_dropped = 0;
    max_gap = 2;
    for (n = 0; n < 3000; n = n + 1) begin
        rand32(r);
        rand32(d);
        if (r[31:28] == 0) begin
            event_pulse();
            if (m_events < EVENT_DEPTH) m_events = m_events + 1; else m_dropped = m_dropped + 1;
        end
        case (r % 11)
            0: begin
                rd_check(R_EVENT, m_events > 0 ? `VIA_FW_EV_ADMIN : 0);
                if (m_events > 0) m_events = m_events - 1;
            end
            1: begin
                rd_check(R_COUNT, {m_dropped[15:0], m_events[15:0]});
                m_dropped = 0;
            end
            2: begin
                st = r[11:8];
                wr(R_SCRATCH, d, st);
                s_scratch = (s_scratch & ~bytes_of(st)) | (d & bytes_of(st));
            end
            3: rd_check(R_SCRATCH, s_scratch);
            4: begin
                st = r[11:8];
                wr(R_READY, d, st);
                s_ready = (s_ready & ~bytes_of(st)) | (d & bytes_of(st));
                if (ready !== s_ready) $fatal(1, "tb_via_cpu_periph: ready output 0x%08h", ready);
            end
            5: rd_check(R_ID, `VIA_MAGIC);
            6: rd_check(W_CMD + {r[13:8], 2'b00}, cmd_mem[r[13:8]]);
            7: begin
                a = {r[9:2], 2'b00};
                per_access(1'b0, W_BAR + a, 32'd0, 4'd0);
                if (res_err !== bar_hole(a[9:0]) || (!res_err && res_rdata !== bar_value(a[9:0]))) begin
                    $fatal(1, "tb_via_cpu_periph: BAR0 view 0x%03h: 0x%08h err %b", a, res_rdata, res_err);
                end
            end
            8: begin
                pushes = log_pushes;
                wr(R_LOG, d, 4'hf);
                if (log_pushes != pushes + 1 || last_log !== d) $fatal(1, "tb_via_cpu_periph: LOG push lost");
            end
            9: rd_fault({4'h2, r[11:2], 2'b00});
            default: begin
                a = W_RSP + {r[13:8], 2'b00};
                per_access(1'b0, a, 32'd0, 4'd0);
                if (res_err !== 1'b0 || res_rdata !== rsp_mem[r[13:8]]) begin
                    $fatal(1, "tb_via_cpu_periph: RSP load 0x%04h: 0x%08h", a, res_rdata);
                end
            end
        endcase
    end
    $display("tb_via_cpu_periph: random mix ok at %0t (%0d log pushes)", $time, log_pushes);

    // 10. the core's reset clears the firmware's state
    event_pulse();
    wr(R_TCTRL, 32'h1, 4'h1);
    @(posedge clk);
    #1;
    rst = 1'b1;
    repeat (3) @(posedge clk);
    #1;
    rst = 1'b0;
    @(negedge clk);
    if (ev_pending || timer_armed || ready !== 32'h0 || busy) begin
        $fatal(1, "tb_via_cpu_periph: state survived the reset");
    end
    rd_check(R_SCRATCH, 32'h0);
    rd_check(R_COUNT, 32'h0);
    rd_check(R_THI, 32'h0);

    // 11. the TPT window
    for (i = 0; i < 7; i = i + 1) begin
        rd_check(R_TINDEX + 4 * i, 32'h0);
    end
    rd_check(R_TCMD, 32'h0);
    rd_check(R_TSTATUS, 32'h0);
    wr_fault(R_TSTATUS);
    wr(R_TATTR, 32'hffffffff, 4'hf);
    rd_check(R_TATTR, 32'h0003ffff);
    wr(R_TATTR, 32'h12345678, 4'b1010);
    rd_check(R_TATTR, 32'h000356ff);
    wr(R_TLEN, 32'hdeadbeef, 4'hf);
    wr(R_TLEN, 32'h00000000, 4'b0110);
    rd_check(R_TLEN, 32'hde0000ef);
    for (n = 0; n < 60; n = n + 1) begin
        rand32(r);
        tm_lat = r[13] ? 20 : r[2:0] % 7;
        // fill the registers with random values
        rand32(d);
        t_va = {d, 32'h0};
        rand32(d);
        t_va = t_va | d;
        rand32(t_len);
        rand32(d);
        t_attr = d[17:0];
        rand32(d);
        t_pl = {d, 32'h0};
        rand32(d);
        t_pl = t_pl | d;
        t_idx = r[9:8];
        wr(R_TINDEX, {r[31:16], 14'd0, t_idx}, 4'hf);
        wr(R_TVA_LO, t_va[31:0], 4'hf);
        wr(R_TVA_HI, t_va[63:32], 4'hf);
        wr(R_TLEN, t_len, 4'hf);
        wr(R_TATTR, {14'd0, t_attr}, 4'hf);
        wr(R_TPL_LO, t_pl[31:0], 4'hf);
        wr(R_TPL_HI, t_pl[63:32], 4'hf);
        t_op = (r[12:10] % 5);
        cmds = tm_cmds;
        pulses = tm_pulses;
        max_gap = 0;
        wr(R_TCMD, {29'd0, t_op}, 4'h1);
        // a second command at once: ignored while busy
        if (r[13]) begin
            per_access(1'b0, R_TSTATUS, 32'd0, 4'd0);
            if (!res_rdata[0]) begin
                $fatal(1, "tb_via_cpu_periph: TPT_STATUS.BUSY 0 right after TPT_CMD");
            end
            wr(R_TCMD, 32'h4, 4'h1);
        end
        max_gap = 2;
        if (tm_pulses != pulses + 1 || tm_cmds != cmds + 1) begin
            $fatal(1, "tb_via_cpu_periph: TPT_CMD gave %0d pulses, %0d commands", tm_pulses - pulses, tm_cmds - cmds);
        end
        if (tpt_prog_index !== {14'd0, t_idx}) begin
            $fatal(1, "tb_via_cpu_periph: prog_index 0x%04h", tpt_prog_index);
        end
        // wait for BUSY to clear
        i = 0;
        res_rdata = 32'h1;
        while (res_rdata[0]) begin
            per_access(1'b0, R_TSTATUS, 32'd0, 4'd0);
            i = i + 1;
            if (i > 50) $fatal(1, "tb_via_cpu_periph: TPT_STATUS.BUSY stuck");
        end
        if (tm_busy || tm_pending) begin
            $fatal(1, "tb_via_cpu_periph: TPT_STATUS.BUSY 0 while the TPT is busy");
        end
        // VALID and GEN: the entry after WRITE, SET_ATTR, READ; else what
        // the TPT reported last
        if ((t_op == 3'd1 || t_op == 3'd2 || t_op == 3'd4)
                ? res_rdata !== {tm_gen[t_idx], 14'd0, tm_valid[t_idx], 1'b0}
                : res_rdata !== {tm_rd_gen, 14'd0, tm_rd_valid, 1'b0}) begin
            $fatal(1, "tb_via_cpu_periph: TPT_STATUS 0x%08h after op %0d", res_rdata, t_op);
        end
        if (t_op == 3'd1 || t_op == 3'd2 || t_op == 3'd4) begin
            t_va = tm_va[t_idx];
            t_len = tm_len[t_idx];
            t_attr = tm_attr[t_idx];
            t_pl = tm_pl[t_idx];
        end
        rd_check(R_TVA_LO, t_va[31:0]);
        rd_check(R_TVA_HI, t_va[63:32]);
        rd_check(R_TLEN, t_len);
        rd_check(R_TATTR, {14'd0, t_attr});
        rd_check(R_TPL_LO, t_pl[31:0]);
        rd_check(R_TPL_HI, t_pl[63:32]);
        rd_check(R_TINDEX, {r[31:16], 14'd0, t_idx});
    end
    // the core's reset clears the window
    @(posedge clk);
    #1;
    rst = 1'b1;
    repeat (3) @(posedge clk);
    #1;
    rst = 1'b0;
    for (i = 0; i < 7; i = i + 1) begin
        rd_check(R_TINDEX + 4 * i, 32'h0);
    end
    $display("tb_via_cpu_periph: TPT window ok at %0t", $time);

    // 12. the VI context window
    for (i = 0; i < 7; i = i + 1) begin
        rd_check(R_CVI + 4 * i, 32'h0);
    end
    wr_fault(R_CSTATUS);
    wr(R_CATTR, 32'hffffffff, 4'hf);
    rd_check(R_CATTR, C_ATTR_MASK);
    wr(R_CATTR, 32'h00000000, 4'b0100);
    rd_check(R_CATTR, 32'h00000033);
    wr(R_CVI, 32'hffffffff, 4'hf);
    rd_check(R_CVI, 32'h0000ffff);
    wr(R_CVI, 32'h00000000, 4'b0001);
    rd_check(R_CVI, 32'h0000ff00);
    wr(R_CPTAG, 32'h12345678, 4'hf);
    rd_check(R_CPTAG, 32'h00005678);
    wr(R_CPEER, 32'habcdef01, 4'b0010);
    rd_check(R_CPEER, 32'h0000ef00);
    wr(R_CMTU, 32'hdeadbeef, 4'hf);
    wr(R_CMTU, 32'h00000000, 4'b1001);
    rd_check(R_CMTU, 32'h00adbe00);
    // COMMIT 0, or byte 0 not strobed: nothing
    xfers = cm_xfers;
    wr(R_CCMD, 32'hfffffffe, 4'hf);
    wr(R_CCMD, 32'h00000001, 4'b1110);
    repeat (3) @(posedge clk);
    if (cm_xfers != xfers || ctx_valid) begin
        $fatal(1, "tb_via_cpu_periph: VI_CTX_CMD without COMMIT committed");
    end
    for (n = 0; n < 80; n = n + 1) begin
        rand32(r);
        cm_lat = r[13] ? 30 : r[2:0] % 6;
        rand32(d);
        c_vi = d[15:0];
        c_ptag = d[31:16];
        rand32(c_attr);
        rand32(c_mtu);
        rand32(d);
        c_peer = d[15:0];
        wr(R_CVI, {d[31:16], c_vi}, 4'hf);
        wr(R_CATTR, c_attr, 4'hf);
        wr(R_CPTAG, {d[31:16], c_ptag}, 4'hf);
        wr(R_CMTU, c_mtu, 4'hf);
        wr(R_CPEER, {d[31:16], c_peer}, 4'hf);
        rd_check(R_CATTR, c_attr & C_ATTR_MASK);
        c_exp = ctx_expect(c_vi, c_attr, c_ptag, c_mtu, c_peer);
        xfers = cm_xfers;
        max_gap = 0;
        wr(R_CCMD, 32'h1, r[14] ? 4'h1 : 4'hf);
        if (cm_lat >= 30) begin
            // still waiting: BUSY; rewrite the registers and commit again
            // (ignored); ctx_* keep the first commit's values
            per_access(1'b0, R_CSTATUS, 32'd0, 4'd0);
            if (res_rdata !== (32'h1 | q_bits)) begin
                $fatal(1, "tb_via_cpu_periph: VI_CTX_STATUS 0x%08h while a commit waits", res_rdata);
            end
            wr(R_CVI, ~{16'd0, c_vi}, 4'hf);
            wr(R_CMTU, ~c_mtu, 4'hf);
            wr(R_CCMD, 32'h1, 4'h1);
            if (ctx_valid && ctx_word !== c_exp) begin
                $fatal(1, "tb_via_cpu_periph: ctx_* follow the registers while a commit waits");
            end
        end
        max_gap = 2;
        i = 0;
        res_rdata = 32'h1;
        while (res_rdata[0]) begin
            per_access(1'b0, R_CSTATUS, 32'd0, 4'd0);
            i = i + 1;
            if (i > 60) $fatal(1, "tb_via_cpu_periph: VI_CTX_STATUS.BUSY stuck");
        end
        if (res_rdata !== q_bits || ctx_q_vi !== (cm_lat >= 30 ? ~c_vi : c_vi) || ctx_valid) begin
            $fatal(1, "tb_via_cpu_periph: VI_CTX_STATUS 0x%08h, ctx_valid %b after the commit", res_rdata, ctx_valid);
        end
        repeat (2) @(posedge clk);
        if (cm_xfers != xfers + 1) begin
            $fatal(1, "tb_via_cpu_periph: VI_CTX_CMD gave %0d transfers", cm_xfers - xfers);
        end
        if (cm_last !== c_exp) begin
            $fatal(1, "tb_via_cpu_periph: commit 0x%022h, expected 0x%022h", cm_last, c_exp);
        end
    end
    // the reset drops a waiting commit and clears the window
    cm_lat = 1000;
    wr(R_CCMD, 32'h1, 4'h1);
    @(posedge clk);
    #1;
    if (!ctx_valid) begin
        $fatal(1, "tb_via_cpu_periph: no ctx_valid after a commit");
    end
    rst = 1'b1;
    repeat (3) @(posedge clk);
    #1;
    rst = 1'b0;
    #1;
    if (ctx_valid) begin
        $fatal(1, "tb_via_cpu_periph: ctx_valid survived the reset");
    end
    cm_lat = 0;
    for (i = 0; i < 7; i = i + 1) begin
        rd_check(R_CVI + 4 * i, 32'h0);
    end
    $display("tb_via_cpu_periph: VI context window ok at %0t", $time);

    // ------------------------------------------ connection management
    rd_check(`VIA_FW_REG_CM_RX_STATUS, 32'h0);
    rd_check(R_EVENT, 32'h0);
    // a message comes up: one EV_CM, its fields readable
    @(negedge clk);
    cmr_valid = 1'b1; cmr_node = 8'd7; cmr_vi = 16'hFFFF; cmr_dvi = 16'h0042;
    for (i = 0; i < 8; i = i + 1) cmr_data[32*i +: 32] = 32'hA0B0C000 + i;
    rd_check(R_EVENT, `VIA_FW_EV_CM);
    rd_check(R_EVENT, 32'h0);
    rd_check(`VIA_FW_REG_CM_RX_STATUS, 32'h1);
    rd_check(`VIA_FW_REG_CM_RX_SRC, 32'hFFFF0007);
    rd_check(`VIA_FW_REG_CM_RX_DST_VI, 32'h42);
    for (i = 0; i < 8; i = i + 1) rd_check(`VIA_FW_REG_CM_RX_DATA0 + 4 * i, 32'hA0B0C000 + i);
    wr_fault(`VIA_FW_REG_CM_RX_STATUS);
    rd_check(`VIA_FW_REG_CM_RX_POP, 32'h0);
    // pop: one cm_rx_ready pulse; the next message follows at once (valid
    // stays 1) and is announced again
    wr(`VIA_FW_REG_CM_RX_POP, 32'h0, 4'h1);
    @(negedge clk);
    cmr_node = 8'd9; cmr_dvi = 16'h0043;
    @(negedge clk);
    if (cmr_pops != 1) $fatal(1, "tb_via_cpu_periph: %0d pops after one CM_RX_POP", cmr_pops);
    rd_check(R_EVENT, `VIA_FW_EV_CM);
    rd_check(`VIA_FW_REG_CM_RX_SRC, 32'hFFFF0009);
    wr(`VIA_FW_REG_CM_RX_POP, 32'h0, 4'h1);
    @(negedge clk);
    cmr_valid = 1'b0;
    repeat (3) @(posedge clk);
    rd_check(R_EVENT, 32'h0);
    rd_check(`VIA_FW_REG_CM_RX_STATUS, 32'h0);
    if (cmr_pops != 2) $fatal(1, "tb_via_cpu_periph: %0d pops after two CM_RX_POPs", cmr_pops);
    // a pop with no message is ignored
    wr(`VIA_FW_REG_CM_RX_POP, 32'h0, 4'h1);
    repeat (2) @(posedge clk);
    if (cmr_pops != 2) $fatal(1, "tb_via_cpu_periph: a pop of nothing reached the port");
    // a message in the same cycle as an admin event: both, admin first
    @(posedge clk);
    #1;
    admin_event = 1'b1; cmr_valid = 1'b1;
    @(posedge clk);
    #1;
    admin_event = 1'b0;
    rd_check(R_EVENT, `VIA_FW_EV_ADMIN);
    rd_check(R_EVENT, `VIA_FW_EV_CM);
    wr(`VIA_FW_REG_CM_RX_POP, 32'h0, 4'h1);
    @(negedge clk);
    cmr_valid = 1'b0;
    // sending: the fields as they were at the SEND store, held until taken
    wr(`VIA_FW_REG_CM_TX_DST, 32'h0021FF03, 4'hf);
    rd_check(`VIA_FW_REG_CM_TX_DST, 32'h00210003);
    wr(`VIA_FW_REG_CM_TX_SRC_VI, 32'hFFFF1234, 4'hf);
    rd_check(`VIA_FW_REG_CM_TX_SRC_VI, 32'h1234);
    for (i = 0; i < 8; i = i + 1) wr(`VIA_FW_REG_CM_TX_DATA0 + 4 * i, 32'h5EED0000 + i, 4'hf);
    wr(`VIA_FW_REG_CM_TX_DATA3, 32'h000000AB, 4'h1);   // byte strobes
    rd_check(`VIA_FW_REG_CM_TX_DATA3, 32'h5EED00AB);
    rd_check(`VIA_FW_REG_CM_TX_STATUS, 32'h0);
    if (cmt_valid) $fatal(1, "tb_via_cpu_periph: cm_tx_valid before a SEND");
    wr(`VIA_FW_REG_CM_TX_SEND, 32'h1, 4'h1);
    rd_check(`VIA_FW_REG_CM_TX_STATUS, 32'h1);
    wr(`VIA_FW_REG_CM_TX_DATA0, 32'hDEADBEEF, 4'hf);   // after the copy
    wr(`VIA_FW_REG_CM_TX_DST, 32'h00220004, 4'hf);
    wr(`VIA_FW_REG_CM_TX_SEND, 32'h1, 4'h1);           // BUSY: ignored
    if (!cmt_valid || cmt_node !== 8'd3 || cmt_dvi !== 16'h0021 || cmt_svi !== 16'h1234 ||
            cmt_data[31:0] !== 32'h5EED0000 || cmt_data[127:96] !== 32'h5EED00AB || cmt_data[255:224] !== 32'h5EED0007) begin
        $fatal(1, "tb_via_cpu_periph: cm_tx %b node %0d vi %h src %h data %h", cmt_valid, cmt_node, cmt_dvi, cmt_svi, cmt_data);
    end
    @(negedge clk);
    cmt_ready = 1'b1;
    @(negedge clk);
    cmt_ready = 1'b0;
    if (cmt_valid) $fatal(1, "tb_via_cpu_periph: cm_tx_valid after it was taken");
    rd_check(`VIA_FW_REG_CM_TX_STATUS, 32'h0);
    // the next SEND carries the registers as they are now
    wr(`VIA_FW_REG_CM_TX_SEND, 32'h1, 4'h1);
    if (!cmt_valid || cmt_node !== 8'd4 || cmt_data[31:0] !== 32'hDEADBEEF) begin
        $fatal(1, "tb_via_cpu_periph: second send: node %0d data %h", cmt_node, cmt_data[31:0]);
    end
    @(negedge clk);
    cmt_ready = 1'b1;
    @(negedge clk);
    cmt_ready = 1'b0;
    // HOST_EVENT: one pulse per store
    i = host_events;
    wr(`VIA_FW_REG_HOST_EVENT, 32'h0, 4'h1);
    wr(`VIA_FW_REG_HOST_EVENT, 32'h0, 4'hf);
    repeat (2) @(posedge clk);
    if (host_events != i + 2) $fatal(1, "tb_via_cpu_periph: %0d host events for 2 stores", host_events - i);
    rd_check(`VIA_FW_REG_HOST_EVENT, 32'h0);
    // AERR_PUSH: one pulse per store with byte 0 written, carrying bits
    // 23:0 of the word; a store without byte 0 pushes nothing; reads 0
    i = aerr_pushes;
    wr(`VIA_FW_REG_AERR_PUSH, 32'hA5_01_0007, 4'hf);
    repeat (2) @(posedge clk);
    if (aerr_pushes != i + 1 || aerr_last !== 24'h01_0007)
        $fatal(1, "tb_via_cpu_periph: AERR_PUSH: %0d pushes, data %h", aerr_pushes - i, aerr_last);
    wr(`VIA_FW_REG_AERR_PUSH, 32'h00_0A_0003, 4'he);
    repeat (2) @(posedge clk);
    if (aerr_pushes != i + 1) $fatal(1, "tb_via_cpu_periph: AERR_PUSH without byte 0 pushed");
    wr(`VIA_FW_REG_AERR_PUSH, 32'h00_0A_0003, 4'h1);
    repeat (2) @(posedge clk);
    if (aerr_pushes != i + 2) $fatal(1, "tb_via_cpu_periph: AERR_PUSH with byte 0 alone did not push");
    rd_check(`VIA_FW_REG_AERR_PUSH, 32'h0);
    $display("tb_via_cpu_periph: connection-management registers ok at %0t", $time);

    // VI_CTX_BREAK: reads {VALID, the lowest pending VI}; a pulse on
    // brk_new queues one EV_BREAK; a store clears (one brk_clr pulse with
    // bits 15:0, byte 0 strobed); reads 0 with nothing pending
    rd_check(`VIA_FW_REG_VI_CTX_BREAK, 32'h0);
    rd_check(R_EVENT, 32'h0);
    @(negedge clk);
    brk_valid = 1'b1;
    brk_vi = 16'd37;
    brk_new = 1'b1;
    @(negedge clk);
    brk_new = 1'b0;
    rd_check(`VIA_FW_REG_VI_CTX_BREAK, 32'h80000025);
    rd_check(R_EVENT, `VIA_FW_EV_BREAK);
    rd_check(R_EVENT, 32'h0);
    i = brk_clrs;
    wr(`VIA_FW_REG_VI_CTX_BREAK, 32'hFFFF0025, 4'hf);
    repeat (2) @(posedge clk);
    if (brk_clrs != i + 1 || brk_clr_last !== 16'd37)
        $fatal(1, "tb_via_cpu_periph: VI_CTX_BREAK store: %0d clears, VI %0d", brk_clrs - i, brk_clr_last);
    wr(`VIA_FW_REG_VI_CTX_BREAK, 32'h00000003, 4'he);
    repeat (2) @(posedge clk);
    if (brk_clrs != i + 1) $fatal(1, "tb_via_cpu_periph: VI_CTX_BREAK store without byte 0 cleared");
    @(negedge clk);
    brk_valid = 1'b0;
    rd_check(`VIA_FW_REG_VI_CTX_BREAK, 32'h0);
    $display("tb_via_cpu_periph: VI_CTX_BREAK ok at %0t", $time);

    $display("PASS");
    $finish;
end

endmodule
