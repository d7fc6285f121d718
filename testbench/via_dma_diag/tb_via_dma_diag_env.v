// tb_via_dma_diag_env: one via_dma_diag connected to an axi_ram_model, and
// the self-checking test sequence for it. tb_via_dma_diag runs several of
// these side by side, one per DUT configuration.
//
// The sequence (build_steps) runs twice: with the memory never stalling, then
// with random back-pressure on every AXI handshake (READY_PROB percent); a few
// steps also make one side of the memory much slower than the other. Every
// copy is checked byte for byte against a shadow of the memory (destination
// and the guard bytes around it; the whole memory once per pass), its burst
// counts against a reference of the split rule, its statistics against what
// the memory model saw, and that nothing is left in flight on the bus when
// done rises. Error and abort steps check the status, err_addr/err_resp, and
// that exactly the acknowledged bytes were written.
//
// The bench drives the engine through its BAR0 block (the register-block
// bus): a copy's parameters are written to DIAG_SRC/DST/LEN/CFG, START and
// ABORT are writes to DIAG_CTRL (one cycle before the engine sees the
// pulse), and the results are read from DIAG_STATUS, DIAG_CYCLES, ... in the
// cycle done_pulse is high and compared with the engine's own status
// signals (dut.done, dut.cycles, ...). An abort in the first busy cycle uses
// ext_abort (the soft reset's port), later ones DIAG_CTRL.ABORT. Because
// the parameters take a write each, a copy starts 7 cycles after the
// previous one's done_pulse (with the engine's ports driven directly it
// started in that very cycle).

`timescale 1ns / 1ps

// report a failed check: message here, context and $fatal in the `failed`
// block (the #1 lets it run before this process goes on). A statement of its own:
// no semicolon after it.
`define FAIL_CHECK(msg) begin $display("FAIL %m: %0s", msg); failed = 1'b1; #1; end

module tb_via_dma_diag_env #(
    parameter DATA_WIDTH = 64,
    parameter ADDR_WIDTH = 48,
    parameter ID_WIDTH = 4,
    parameter MAX_BURST = 16,
    parameter MAX_OUTSTANDING = 4,
    // memory model
    parameter MEM_BYTES = 131072,
    parameter READ_LATENCY = 20,
    parameter WRITE_LATENCY = 4,
    // back-pressure of the second pass (the first runs at 100)
    parameter READY_PROB = 40,
    // random copies per pass
    parameter RANDOM_COPIES = 10,
    // distinguishes the random sequences of several environments
    parameter SALT = 0
) (
    input  wire clk,
    input  wire rst,
    output reg  finished
);

localparam BYTES = DATA_WIDTH/8;
localparam GUARD = 256;
localparam HALF = MEM_BYTES/2;
// cycles one copy may take at most before the bench calls it a hang
localparam WATCHDOG = 400000;
localparam [63:0] NONE = {64{1'b1}};

// ------------------------------------------------------------- the DUT

`include "via_bar0.vh"

// the register-block bus (driven by the tasks bus_write, bus_read)
reg         wr_en, rd_en, abort;
reg  [15:0] wr_addr, rd_addr;
reg  [31:0] wr_data;
wire [31:0] rd_data;
wire        wr_hit, rd_hit;
wire        busy, done_pulse, start_pulse;
// the engine's own status, to compare the registers with
wire        done = dut.done;
wire        error = dut.error;
wire        xlat_err = dut.xlat_err;
wire [31:0] cycles = dut.cycles;
wire [31:0] bytes = dut.bytes;
wire        lk_valid;
wire [1:0]  inflight_epoch;

// physical mode never looks anything up nor holds a translation
always @(posedge clk) begin
    if (!rst && (lk_valid !== 1'b0 || xlat_err !== 1'b0 || inflight_epoch !== 2'b00)) begin
        $display("FAIL %m: lookup, translation error or fence in physical mode");
        $fatal(1);
    end
end

wire [ID_WIDTH-1:0]     axi_awid, axi_bid, axi_arid, axi_rid;
wire [ADDR_WIDTH-1:0]   axi_awaddr, axi_araddr;
wire [7:0]              axi_awlen, axi_arlen;
wire [2:0]              axi_awsize, axi_arsize, axi_awprot, axi_arprot;
wire [1:0]              axi_awburst, axi_arburst, axi_bresp, axi_rresp;
wire                    axi_awlock, axi_arlock;
wire [3:0]              axi_awcache, axi_arcache;
wire                    axi_awvalid, axi_awready, axi_wlast, axi_wvalid, axi_wready;
wire                    axi_bvalid, axi_bready, axi_arvalid, axi_arready;
wire                    axi_rlast, axi_rvalid, axi_rready;
wire [DATA_WIDTH-1:0]   axi_wdata, axi_rdata;
wire [DATA_WIDTH/8-1:0] axi_wstrb;

via_dma_diag #(
    .DATA_WIDTH(DATA_WIDTH),
    .ADDR_WIDTH(ADDR_WIDTH),
    .ID_WIDTH(ID_WIDTH),
    .MAX_BURST(MAX_BURST),
    .MAX_OUTSTANDING(MAX_OUTSTANDING)
) dut (
    .clk(clk),
    .rst(rst),
    // physical mode only here (DIAG_XLAT stays 0; translated:
    // tb_via_dma_diag_xlat_env)
    .wr_en(wr_en),
    .wr_addr(wr_addr),
    .wr_data(wr_data),
    .wr_strb(4'hf),
    .wr_hit(wr_hit),
    .rd_en(rd_en),
    .rd_addr(rd_addr),
    .rd_fire(1'b0),
    .rd_hit(rd_hit),
    .rd_data(rd_data),
    .ext_abort(abort),
    .busy(busy),
    .start_pulse(start_pulse),
    .done_pulse(done_pulse),
    .lk_valid(lk_valid),
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
    .rs_pa({ADDR_WIDTH{1'b0}}),
    .rs_bytes(13'd0),
    .rs_hit(1'b0),
    .rs_epoch(1'b0),
    .rs_tag(1'b0),
    .inflight_epoch(inflight_epoch),
    .m_axi_awid(axi_awid),
    .m_axi_awaddr(axi_awaddr),
    .m_axi_awlen(axi_awlen),
    .m_axi_awsize(axi_awsize),
    .m_axi_awburst(axi_awburst),
    .m_axi_awlock(axi_awlock),
    .m_axi_awcache(axi_awcache),
    .m_axi_awprot(axi_awprot),
    .m_axi_awvalid(axi_awvalid),
    .m_axi_awready(axi_awready),
    .m_axi_wdata(axi_wdata),
    .m_axi_wstrb(axi_wstrb),
    .m_axi_wlast(axi_wlast),
    .m_axi_wvalid(axi_wvalid),
    .m_axi_wready(axi_wready),
    .m_axi_bid(axi_bid),
    .m_axi_bresp(axi_bresp),
    .m_axi_bvalid(axi_bvalid),
    .m_axi_bready(axi_bready),
    .m_axi_arid(axi_arid),
    .m_axi_araddr(axi_araddr),
    .m_axi_arlen(axi_arlen),
    .m_axi_arsize(axi_arsize),
    .m_axi_arburst(axi_arburst),
    .m_axi_arlock(axi_arlock),
    .m_axi_arcache(axi_arcache),
    .m_axi_arprot(axi_arprot),
    .m_axi_arvalid(axi_arvalid),
    .m_axi_arready(axi_arready),
    .m_axi_rid(axi_rid),
    .m_axi_rdata(axi_rdata),
    .m_axi_rresp(axi_rresp),
    .m_axi_rlast(axi_rlast),
    .m_axi_rvalid(axi_rvalid),
    .m_axi_rready(axi_rready)
);

axi_ram_model #(
    .DATA_WIDTH(DATA_WIDTH),
    .ADDR_WIDTH(ADDR_WIDTH),
    .ID_WIDTH(ID_WIDTH),
    .MEM_BYTES(MEM_BYTES),
    .READ_LATENCY(READ_LATENCY),
    .WRITE_LATENCY(WRITE_LATENCY),
    .READY_PROB(100),
    .SEED_SALT(SALT)
) ram (
    .clk(clk),
    .rst(rst),
    .s_axi_awid(axi_awid),
    .s_axi_awaddr(axi_awaddr),
    .s_axi_awlen(axi_awlen),
    .s_axi_awsize(axi_awsize),
    .s_axi_awburst(axi_awburst),
    .s_axi_awlock(axi_awlock),
    .s_axi_awcache(axi_awcache),
    .s_axi_awprot(axi_awprot),
    .s_axi_awvalid(axi_awvalid),
    .s_axi_awready(axi_awready),
    .s_axi_wdata(axi_wdata),
    .s_axi_wstrb(axi_wstrb),
    .s_axi_wlast(axi_wlast),
    .s_axi_wvalid(axi_wvalid),
    .s_axi_wready(axi_wready),
    .s_axi_bid(axi_bid),
    .s_axi_bresp(axi_bresp),
    .s_axi_bvalid(axi_bvalid),
    .s_axi_bready(axi_bready),
    .s_axi_arid(axi_arid),
    .s_axi_araddr(axi_araddr),
    .s_axi_arlen(axi_arlen),
    .s_axi_arsize(axi_arsize),
    .s_axi_arburst(axi_arburst),
    .s_axi_arlock(axi_arlock),
    .s_axi_arcache(axi_arcache),
    .s_axi_arprot(axi_arprot),
    .s_axi_arvalid(axi_arvalid),
    .s_axi_arready(axi_arready),
    .s_axi_rid(axi_rid),
    .s_axi_rdata(axi_rdata),
    .s_axi_rresp(axi_rresp),
    .s_axi_rlast(axi_rlast),
    .s_axi_rvalid(axi_rvalid),
    .s_axi_rready(axi_rready)
);

// ------------------------------------------------------------ bench state

integer seed;
`include "bench_random.vh"
// what the memory should hold
reg [7:0] exp_mem [0:MEM_BYTES-1];

// results of the last copy, captured when done_pulse rose
integer res_ticks;
reg res_done, res_error, res_bad_param, res_rd_err, res_wr_err, res_aborted;
reg [1:0] res_err_resp;
reg [31:0] res_cycles, res_bytes, res_rd_bursts, res_wr_bursts;
reg [63:0] res_err_addr;
reg [7:0] res_max_inflight;

// the copy in progress
reg [63:0] cur_src, cur_dst;
reg [31:0] cur_len;
integer cur_lim, cur_out;

integer pass, copies, total_cycles, total_bytes;

// one clock; all bench activity happens 1 ns after the rising edge
task tick;
    begin
        @(posedge clk);
        #1;
    end
endtask

// one register write, taking effect at the next edge
task bus_write;
    input [15:0] a;
    input [31:0] d;
    begin
        wr_en = 1'b1;
        wr_addr = a;
        wr_data = d;
        tick;
        if (!wr_hit) `FAIL_CHECK("a DIAG register write did not hit the block")
        wr_en = 1'b0;
    end
endtask

// one register read, within the current cycle (combinational answer)
task bus_read;
    input [15:0] a;
    output [31:0] d;
    begin
        rd_en = 1'b1;
        rd_addr = a;
        #0.01;
        if (!rd_hit) `FAIL_CHECK("a DIAG register read did not hit the block")
        d = rd_data;
        rd_en = 1'b0;
    end
endtask

// A failed check prints its message where it happened (FAIL_CHECK), then this
// block prints the state of the copy and stops the simulation. (A task taking
// the message would be inlined by Verilator at each of its call sites, with
// its whole body: minutes of C++ compilation.)
reg failed = 1'b0;
always @(posedge failed) begin
    $display("  copy src 0x%0h dst 0x%0h len %0d lim %0d out %0d pass %0d", cur_src, cur_dst, cur_len, cur_lim, cur_out, pass);
    $display("  status done %b error %b bad_param %b rd_err %b wr_err %b aborted %b resp %0d err_addr 0x%0h",
        res_done, res_error, res_bad_param, res_rd_err, res_wr_err, res_aborted, res_err_resp, res_err_addr);
    $display("  bytes %0d cycles %0d (bench %0d) rd_bursts %0d wr_bursts %0d max_inflight %0d",
        res_bytes, res_cycles, res_ticks, res_rd_bursts, res_wr_bursts, res_max_inflight);
    $fatal(1, "%m: check failed (see FAIL above)");
end

// effective limits, as the DUT derives them from the cfg inputs
function integer eff_lim;
    input integer cfg;
    begin
        eff_lim = (cfg == 0 || cfg > MAX_BURST) ? MAX_BURST : cfg;
    end
endfunction

function integer eff_out;
    input integer cfg;
    begin
        eff_out = (cfg == 0 || cfg > MAX_OUTSTANDING) ? MAX_OUTSTANDING : cfg;
    end
endfunction

// Reference of the split rule: bursts of at most lim beats that do not cross a
// 4 KiB boundary. Returns the number of bursts and the start of the first
// burst overlapping [lo, hi) (NONE if none does; hi 0 means 2**64).
task ref_split;
    input [63:0] addr;
    input [63:0] nbytes;
    input integer lim;
    input [63:0] lo;
    input [63:0] hi;
    output integer nb;
    output [63:0] hit;
    reg [63:0] a, left, n, page_left;
    begin
        a = addr;
        left = nbytes;
        nb = 0;
        hit = NONE;
        while (left != 0) begin
            page_left = 64'd4096 - (a & 64'hfff);
            n = lim * BYTES;
            if (page_left < n) n = page_left;
            if (left < n) n = left;
            // (compared with last bytes, so ranges may end at 2**64)
            if (hit == NONE && a <= hi - 1 && a + n - 1 >= lo) hit = a;
            a = a + n;
            left = left - n;
            nb = nb + 1;
        end
    end
endtask

// random source bytes; destination = complement of the source (so every
// destination byte tells whether it was written); random guard bytes. Bytes
// beyond the memory are skipped. (One loop, one $random per 4 bytes: Icarus
// spends a good part of the bench in these loops.)
task prep;
    input [63:0] s;
    input [63:0] d;
    input [63:0] n;
    reg [63:0] i;
    reg [31:0] r;
    reg [7:0] b;
    begin
        r = 0;
        for (i = 0; i < n; i = i + 1) begin
            if (i[1:0] == 2'd0) r = bench_random(0);
            b = r >> {i[1:0], 3'd0};
            if (s + i < MEM_BYTES) begin
                ram.mem[s + i] = b;
                exp_mem[s + i] = b;
                b = ~b;
            end
            if (d + i < MEM_BYTES) begin
                ram.mem[d + i] = b;
                exp_mem[d + i] = b;
            end
        end
        for (i = 1; i <= GUARD; i = i + 1) begin
            r = bench_random(0);
            if (d >= i && d - i < MEM_BYTES) begin
                ram.mem[d - i] = r[7:0];
                exp_mem[d - i] = r[7:0];
            end
            if (d + n - 1 + i < MEM_BYTES) begin
                ram.mem[d + n - 1 + i] = r[15:8];
                exp_mem[d + n - 1 + i] = r[15:8];
            end
        end
    end
endtask

// memory must equal the shadow in [lo, hi)
task check_window;
    input [63:0] lo;
    input [63:0] hi;
    reg [63:0] i;
    begin
        for (i = lo; i < hi && i < MEM_BYTES; i = i + 1) begin
            if (ram.mem[i] !== exp_mem[i]) begin
                $display("  byte 0x%0h is 0x%0h, expected 0x%0h", i, ram.mem[i], exp_mem[i]);
                `FAIL_CHECK("memory differs from the expected contents")
            end
        end
    end
endtask

reg [31:0] cfg_word, rd_word;

// Start a copy: its registers, then START (seen by the engine at the edge
// after the one that wrote DIAG_CTRL); returns in the cycle after that edge.
task start_copy;
    input [63:0] s;
    input [63:0] d;
    input [31:0] n;
    input integer cb;
    input integer co;
    begin
        cur_src = s;
        cur_dst = d;
        cur_len = n;
        cur_lim = eff_lim(cb);
        cur_out = eff_out(co);
        bus_write(`VIA_REG_DIAG_SRC_LO, s[31:0]);
        bus_write(`VIA_REG_DIAG_SRC_HI, s[63:32]);
        bus_write(`VIA_REG_DIAG_DST_LO, d[31:0]);
        bus_write(`VIA_REG_DIAG_DST_HI, d[63:32]);
        bus_write(`VIA_REG_DIAG_LEN, n);
        cfg_word = 32'd0;
        cfg_word[`VIA_DIAG_CFG_MAX_BURST_RANGE] = cb;
        cfg_word[`VIA_DIAG_CFG_MAX_OUTSTANDING_RANGE] = co;
        bus_write(`VIA_REG_DIAG_CFG, cfg_word);
        ram.clear_stats();
        if (busy || start_pulse) `FAIL_CHECK("writing the parameters started something")
        bus_write(`VIA_REG_DIAG_CTRL, 32'd1 << `VIA_DIAG_CTRL_START_LSB);
        if (!start_pulse || busy) `FAIL_CHECK("no START pulse the cycle after the DIAG_CTRL write")
        tick;
        if (start_pulse) `FAIL_CHECK("START pulse longer than a cycle")
        if (!busy) `FAIL_CHECK("busy did not rise after start")
        if (done) `FAIL_CHECK("done not cleared by start")
    end
endtask

// Wait for done_pulse, optionally pulsing abort (abort_at ticks after start)
// and a start that must be ignored (poke_at ticks after start).
task wait_done;
    input integer abort_at;
    input integer poke_at;
    integer t;
    begin
        t = 0;
        while (!done_pulse) begin
            // an abort at tick 0 through ext_abort, later ones written to
            // DIAG_CTRL.ABORT a cycle early (its pulse comes a cycle later)
            if (t == abort_at && t == 0) abort = 1'b1;
            if (t + 1 == abort_at) begin
                wr_en = 1'b1;
                wr_addr = `VIA_REG_DIAG_CTRL;
                wr_data = 32'd1 << `VIA_DIAG_CTRL_ABORT_LSB;
            end
            // a start while busy (and new parameters) must change nothing
            if (t == poke_at) begin
                wr_en = 1'b1;
                wr_addr = `VIA_REG_DIAG_CTRL;
                wr_data = 32'd1 << `VIA_DIAG_CTRL_START_LSB;
            end
            if (poke_at >= 0 && t == poke_at + 1) begin
                wr_en = 1'b1;
                wr_addr = `VIA_REG_DIAG_LEN;
                wr_data = 32'h5;
            end
            if (poke_at >= 0 && t == poke_at + 2) begin
                wr_en = 1'b1;
                wr_addr = `VIA_REG_DIAG_SRC_LO;
                wr_data = 32'h1;
            end
            tick;
            abort = 1'b0;
            wr_en = 1'b0;
            t = t + 1;
            if (t > WATCHDOG) `FAIL_CHECK("copy hangs (watchdog)")
            if (!done_pulse && !busy) `FAIL_CHECK("busy fell without done_pulse")
        end
        res_ticks = t;
        // the results, read through the registers
        bus_read(`VIA_REG_DIAG_STATUS, rd_word);
        if (rd_word[`VIA_DIAG_STATUS_BUSY_LSB] !== busy) `FAIL_CHECK("DIAG_STATUS.BUSY differs from busy")
        res_done = rd_word[`VIA_DIAG_STATUS_DONE_LSB];
        res_error = rd_word[`VIA_DIAG_STATUS_ERROR_LSB];
        res_bad_param = rd_word[`VIA_DIAG_STATUS_BAD_PARAM_LSB];
        res_rd_err = rd_word[`VIA_DIAG_STATUS_RD_ERR_LSB];
        res_wr_err = rd_word[`VIA_DIAG_STATUS_WR_ERR_LSB];
        res_aborted = rd_word[`VIA_DIAG_STATUS_ABORTED_LSB];
        res_err_resp = rd_word[`VIA_DIAG_STATUS_RESP_RANGE];
        if (rd_word[`VIA_DIAG_STATUS_XLAT_ERR_LSB] !== 1'b0) `FAIL_CHECK("DIAG_STATUS.XLAT_ERR in physical mode")
        if (res_done !== dut.done || res_error !== dut.error || res_bad_param !== dut.bad_param
            || res_rd_err !== dut.rd_err || res_wr_err !== dut.wr_err || res_aborted !== dut.aborted
            || res_err_resp !== dut.err_resp) `FAIL_CHECK("DIAG_STATUS differs from the engine's status")
        bus_read(`VIA_REG_DIAG_CYCLES, res_cycles);
        bus_read(`VIA_REG_DIAG_BYTES, res_bytes);
        bus_read(`VIA_REG_DIAG_RD_BURSTS, res_rd_bursts);
        bus_read(`VIA_REG_DIAG_WR_BURSTS, res_wr_bursts);
        bus_read(`VIA_REG_DIAG_ERR_ADDR_LO, rd_word);
        res_err_addr[31:0] = rd_word;
        bus_read(`VIA_REG_DIAG_ERR_ADDR_HI, rd_word);
        res_err_addr[63:32] = rd_word;
        bus_read(`VIA_REG_DIAG_MAX_INFLIGHT, rd_word);
        res_max_inflight = rd_word[7:0];
        if (rd_word[31:8] != 0) `FAIL_CHECK("DIAG_MAX_INFLIGHT has bits above 7")
        if (res_cycles !== dut.cycles || res_bytes !== dut.bytes || res_rd_bursts !== dut.rd_bursts
            || res_wr_bursts !== dut.wr_bursts || res_err_addr !== dut.err_addr || res_max_inflight !== dut.max_inflight)
            `FAIL_CHECK("a DIAG counter register differs from the engine's")
        if (busy) `FAIL_CHECK("busy still high at done_pulse")
        if (!done) `FAIL_CHECK("done low at done_pulse")
        if (res_cycles != t) `FAIL_CHECK("cycles differs from the cycles the bench counted")
        if (res_error != (res_bad_param || res_rd_err || res_wr_err || res_aborted)) `FAIL_CHECK("error is not the OR of its causes")
        copies = copies + 1;
        total_cycles = total_cycles + t;
        total_bytes = total_bytes + res_bytes;
    end
endtask

// after done: nothing may be left in flight on the bus
task check_quiet;
    begin
        if (ram.rd_outstanding != 0 || ram.wr_outstanding != 0 || ram.awq_count != 0 || ram.bq_count != 0)
            `FAIL_CHECK("AXI transactions left in flight after done")
        if (axi_arvalid || axi_awvalid || axi_wvalid) `FAIL_CHECK("valid still high after done")
    end
endtask

// checks of a copy that must have succeeded; updates the shadow
task check_ok;
    integer nb_rd, nb_wr;
    reg [63:0] hit, i;
    begin
        check_quiet;
        if (res_error) `FAIL_CHECK("copy failed")
        if (res_bytes != cur_len) `FAIL_CHECK("bytes differs from len")
        ref_split(cur_src, cur_len, cur_lim, 0, 0, nb_rd, hit);
        ref_split(cur_dst, cur_len, cur_lim, 0, 0, nb_wr, hit);
        if (res_rd_bursts != nb_rd) `FAIL_CHECK("read burst count differs from the reference split")
        if (res_wr_bursts != nb_wr) `FAIL_CHECK("write burst count differs from the reference split")
        if (ram.ar_count != nb_rd || ram.aw_count != nb_wr || ram.b_count != nb_wr)
            `FAIL_CHECK("memory model saw other burst counts")
        if (ram.r_beats != cur_len / BYTES || ram.w_beats != cur_len / BYTES)
            `FAIL_CHECK("memory model saw another number of beats")
        if (ram.rd_errors != 0 || ram.wr_errors != 0) `FAIL_CHECK("memory model answered errors")
        if (ram.max_arlen + 1 > cur_lim || ram.max_awlen + 1 > cur_lim) `FAIL_CHECK("a burst is longer than the limit")
        if (res_max_inflight > cur_out) `FAIL_CHECK("max_inflight above the outstanding limit")
        if (ram.rd_outstanding_max > cur_out) `FAIL_CHECK("more reads in flight than the outstanding limit")
        if (cur_len != 0 && res_max_inflight == 0) `FAIL_CHECK("max_inflight is 0")
        // the destination, then the guard bytes around it (the source and
        // the rest of the memory are compared once per pass)
        for (i = 0; i < cur_len; i = i + 1) begin
            exp_mem[cur_dst + i] = exp_mem[cur_src + i];
            if (ram.mem[cur_dst + i] !== exp_mem[cur_dst + i]) begin
                $display("  byte 0x%0h is 0x%0h, expected 0x%0h", cur_dst + i, ram.mem[cur_dst + i], exp_mem[cur_dst + i]);
                `FAIL_CHECK("destination differs from the source")
            end
        end
        check_window(cur_dst - GUARD, cur_dst);
        check_window(cur_dst + cur_len, cur_dst + cur_len + GUARD);
    end
endtask

// A copy that stopped early: every destination byte is either untouched or
// copied; returns how many were copied and whether they form a prefix.
task check_partial;
    output [63:0] written;
    output prefix;
    reg [63:0] i;
    reg gap;
    reg [7:0] got;
    begin
        check_quiet;
        written = 0;
        prefix = 1'b1;
        gap = 1'b0;
        for (i = 0; i < cur_len && cur_dst + i < MEM_BYTES; i = i + 1) begin
            got = ram.mem[cur_dst + i];
            if (cur_src + i < MEM_BYTES && got === exp_mem[cur_src + i]) begin
                written = written + 1;
                if (gap) prefix = 1'b0;
                exp_mem[cur_dst + i] = got;
            end else if (got === exp_mem[cur_dst + i]) begin
                gap = 1'b1;
            end else begin
                $display("  byte 0x%0h is 0x%0h: neither old 0x%0h nor copied", cur_dst + i, got, exp_mem[cur_dst + i]);
                `FAIL_CHECK("destination byte neither untouched nor copied")
            end
        end
        check_window(cur_dst - GUARD, cur_dst);
        check_window(cur_dst + cur_len, cur_dst + cur_len + GUARD);
    end
endtask

// ------------------------------------------------------------- scenarios

// a copy that must succeed; poke_at >= 0: a start that must be ignored
task copy_ok;
    input [63:0] s;
    input [63:0] d;
    input [31:0] n;
    input integer cb;
    input integer co;
    input integer poke_at;
    begin
        prep(s, d, n);
        start_copy(s, d, n, cb, co);
        wait_done(-1, poke_at);
        check_ok;
    end
endtask

// parameters the DUT must refuse without touching the bus
task copy_bad;
    input [63:0] s;
    input [63:0] d;
    input [31:0] n;
    begin
        start_copy(s, d, n, 0, 0);
        wait_done(-1, -1);
        check_quiet;
        if (!res_bad_param || !res_error) `FAIL_CHECK("bad parameters not refused")
        if (res_rd_err || res_wr_err || res_aborted) `FAIL_CHECK("bad parameters reported as another error")
        if (res_bytes != 0 || res_rd_bursts != 0 || res_wr_bursts != 0) `FAIL_CHECK("bad parameters moved data")
        if (ram.ar_count != 0 || ram.aw_count != 0) `FAIL_CHECK("bad parameters reached the bus")
    end
endtask

// a copy that gets an error response: on read (is_wr 0) or write, SLVERR for
// bytes [lo, hi) or DECERR when the range is beyond the memory
task copy_err;
    input [63:0] s;
    input [63:0] d;
    input [31:0] n;
    input integer cb;
    input is_wr;
    input [63:0] lo;
    input [63:0] hi;
    input [1:0] resp;
    integer nb;
    reg [63:0] hit, written, i, bad_beat;
    reg prefix;
    begin
        prep(s, d, n);
        ram.clear_errors();
        if (resp == 2'd2) begin
            if (is_wr) ram.set_wr_error(lo, hi);
            else ram.set_rd_error(lo, hi);
        end
        start_copy(s, d, n, cb, 0);
        wait_done(-1, -1);
        ram.clear_errors();
        if (is_wr) ref_split(d, n, cur_lim, lo, hi, nb, hit);
        else ref_split(s, n, cur_lim, lo, hi, nb, hit);
        if (!res_error || res_bad_param || res_aborted) `FAIL_CHECK("error response: wrong status")
        if (is_wr ? (!res_wr_err || res_rd_err) : (!res_rd_err || res_wr_err)) `FAIL_CHECK("error response: wrong rd_err/wr_err")
        if (res_err_resp != resp) `FAIL_CHECK("error response: wrong err_resp")
        if (res_err_addr != hit) begin
            $display("  expected err_addr 0x%0h", hit);
            `FAIL_CHECK("error response: wrong err_addr")
        end
        if (ram.ar_count != res_rd_bursts || ram.aw_count != res_wr_bursts || ram.b_count != res_wr_bursts)
            `FAIL_CHECK("memory model saw other burst counts")
        check_partial(written, prefix);
        if (written != res_bytes) `FAIL_CHECK("bytes differs from the bytes written")
        if (!is_wr) begin
            // nothing from the first failed beat on may be written (the
            // model fails single beats; good beats before it may be written)
            bad_beat = ((lo > s ? lo : s) / BYTES) * BYTES;
            if (!prefix) `FAIL_CHECK("read error: written bytes are not a prefix")
            if (written > bad_beat - s) `FAIL_CHECK("read error: data of a failed beat (or later) was written")
        end else begin
            // (the destination held the complement of the source before)
            for (i = 0; i < n; i = i + 1) begin
                if (d + i >= lo && d + i <= hi - 1 && d + i < MEM_BYTES && s + i < MEM_BYTES
                        && ram.mem[d + i] === exp_mem[s + i]) begin
                    `FAIL_CHECK("write error: bytes of a failed burst were written")
                end
            end
        end
    end
endtask

// abort abort_at ticks after start
task copy_abort;
    input [63:0] s;
    input [63:0] d;
    input [31:0] n;
    input integer abort_at;
    reg [63:0] written;
    reg prefix;
    begin
        prep(s, d, n);
        start_copy(s, d, n, 0, 0);
        wait_done(abort_at, -1);
        if (!res_aborted || !res_error) `FAIL_CHECK("abort not reported")
        if (res_rd_err || res_wr_err || res_bad_param) `FAIL_CHECK("abort reported as another error")
        if (ram.ar_count != res_rd_bursts || ram.aw_count != res_wr_bursts || ram.b_count != res_wr_bursts)
            `FAIL_CHECK("memory model saw other burst counts")
        check_partial(written, prefix);
        if (!prefix) `FAIL_CHECK("abort: written bytes are not a prefix")
        if (written != res_bytes) `FAIL_CHECK("abort: bytes differs from the bytes written")
        if (res_bytes >= n) `FAIL_CHECK("abort: the whole copy completed, abort came too late to test anything")
        if (abort_at == 0 && (res_bytes != 0 || res_rd_bursts != 0)) `FAIL_CHECK("abort at start still moved data")
    end
endtask

// parameters of a random aligned copy: source in the lower half of the
// memory, destination in the upper, random limits
task random_copy;
    output [63:0] s;
    output [63:0] d;
    output [31:0] n;
    output integer cb;
    output integer co;
    integer r;
    begin
        r = bench_random(0);
        n = (($unsigned(r) % 24) == 0) ? BYTES : (($unsigned(bench_random(0)) % (8192 / BYTES)) + 1) * BYTES;
        s = ($unsigned(bench_random(0)) % ((HALF - GUARD - n) / BYTES)) * BYTES;
        d = HALF + GUARD + ($unsigned(bench_random(0)) % ((HALF - 2 * GUARD - n) / BYTES)) * BYTES;
        cb = $unsigned(bench_random(0)) % (MAX_BURST + 3);
        co = $unsigned(bench_random(0)) % 16;
    end
endtask

// --------------------------------------------------------- the sequence
//
// The test list below only records steps; one loop then runs them, so that
// each scenario task has a single call site. (Verilator inlines every task
// call; with a call per step the bench took minutes to compile.) Copies follow
// each other back to back: checks take no simulated time, so each start comes
// in the cycle done_pulse of the previous copy is high, unless a step asks
// for idle cycles first.

localparam [63:0] PAGE = 64'd4096;
localparam [63:0] ADDR_TOP = (ADDR_WIDTH >= 64) ? 64'd0 : (64'd1 << ADDR_WIDTH);  // 0: 2**64
localparam MAX_STEPS = 64;

// memory channel profiles: back-pressure of one side much heavier
localparam P_UNIFORM = 0, P_SLOW_W = 1, P_SLOW_R = 2, P_SLOW_B = 3;
// step kinds
localparam K_OK = 0, K_BAD = 1, K_RD_ERR = 2, K_WR_ERR = 3, K_ABORT = 4, K_RANDOM = 5;
// checks after a step, beyond those of its kind
localparam C_NONE = 0, C_ONE_CYCLE = 1, C_SRC_SPLIT = 2, C_DST_SPLIT = 3, C_LONG = 4, C_LIM1 = 5,
    C_LIM_MAX = 6, C_LIM_MAX_RD = 7, C_OUT1 = 8, C_OUT2 = 9, C_OUT_MAX = 10, C_HELD = 11,
    C_NO_BYTES = 12, C_WR_END = 13, C_WR_OUT = 14;

integer st_kind [0:MAX_STEPS-1];
reg [63:0] st_src [0:MAX_STEPS-1];
reg [63:0] st_dst [0:MAX_STEPS-1];
reg [31:0] st_len [0:MAX_STEPS-1];
integer st_cb [0:MAX_STEPS-1];
integer st_co [0:MAX_STEPS-1];
integer st_at [0:MAX_STEPS-1];     // abort_at / poke_at
reg [63:0] st_lo [0:MAX_STEPS-1];  // error range
reg [63:0] st_hi [0:MAX_STEPS-1];
reg [1:0] st_resp [0:MAX_STEPS-1];
integer st_check [0:MAX_STEPS-1];
integer st_gap [0:MAX_STEPS-1];    // idle cycles before the start
integer st_prof [0:MAX_STEPS-1];   // memory channel profile
integer n_steps;

task add;
    input integer kind;
    input [63:0] s;
    input [63:0] d;
    input [31:0] n;
    input integer cb;
    input integer co;
    input integer at;
    input integer check;
    begin
        if (n_steps >= MAX_STEPS) $fatal(1, "%m: MAX_STEPS too small");
        st_kind[n_steps] = kind;
        st_src[n_steps] = s;
        st_dst[n_steps] = d;
        st_len[n_steps] = n;
        st_cb[n_steps] = cb;
        st_co[n_steps] = co;
        st_at[n_steps] = at;
        st_lo[n_steps] = 0;
        st_hi[n_steps] = 0;
        st_resp[n_steps] = 0;
        st_check[n_steps] = check;
        st_gap[n_steps] = 0;
        st_prof[n_steps] = P_UNIFORM;
        n_steps = n_steps + 1;
    end
endtask

// an error step: response resp for bytes [lo, hi) (DECERR needs no range
// set: the model answers it beyond its memory)
task add_err;
    input is_wr;
    input [63:0] s;
    input [63:0] d;
    input [31:0] n;
    input integer cb;
    input [63:0] lo;
    input [63:0] hi;
    input [1:0] resp;
    input integer check;
    begin
        add(is_wr ? K_WR_ERR : K_RD_ERR, s, d, n, cb, 0, -1, check);
        st_lo[n_steps - 1] = lo;
        st_hi[n_steps - 1] = hi;
        st_resp[n_steps - 1] = resp;
    end
endtask

task build_steps;
    begin
        n_steps = 0;
        // length 0: done at once, no error, nothing on the bus, whatever the
        // addresses; the first after idle cycles
        add(K_OK, 64'h100, HALF, 0, 0, 0, -1, C_ONE_CYCLE);
        st_gap[n_steps - 1] = 3;
        add(K_OK, 64'h3, 64'h5, 0, 0, 0, -1, C_ONE_CYCLE);
        // one beat; then one beat just below a page end on both sides
        add(K_OK, 64'h40, HALF + 64'h80, BYTES, 0, 0, -1, C_NONE);
        add(K_OK, PAGE - BYTES, HALF + 3 * PAGE - BYTES, BYTES, 0, 0, -1, C_NONE);
        // source crosses a page 1 beat after its start: the read splits, the
        // write (aligned destination) does not; then destination only; both
        add(K_OK, PAGE - BYTES, HALF, 8 * BYTES, 0, 0, -1, C_SRC_SPLIT);
        add(K_OK, 2 * PAGE, HALF + 2 * PAGE - 2 * BYTES, 8 * BYTES, 0, 0, -1, C_DST_SPLIT);
        add(K_OK, 3 * PAGE - 3 * BYTES, HALF + 4 * PAGE - 5 * BYTES, 24 * BYTES, 0, 0, -1, C_NONE);
        // multi-page: 20 KiB, odd beat offsets on both sides
        add(K_OK, 5 * BYTES, HALF + 7 * BYTES + PAGE, 20480, 0, 0, -1, C_LONG);
        // burst limits: 1 beat, an odd value, the maximum, and the values
        // that mean the maximum (0, above MAX_BURST)
        add(K_OK, PAGE, HALF + PAGE, 4096 + 8 * BYTES, 1, 0, -1, C_LIM1);
        add(K_OK, PAGE + BYTES, HALF + PAGE, 64 * BYTES, 3, 0, -1, C_NONE);
        add(K_OK, 2 * PAGE, HALF + 2 * PAGE, 4096, MAX_BURST, 0, -1, C_LIM_MAX);
        add(K_OK, 3 * PAGE, HALF + 3 * PAGE, 4096, 0, 0, -1, C_LIM_MAX_RD);
        add(K_OK, 4 * PAGE, HALF + 4 * PAGE, 4096, 511, 0, -1, C_LIM_MAX_RD);
        // outstanding limits: 1, 2, and a value above MAX_OUTSTANDING
        add(K_OK, BYTES, HALF + 6 * PAGE, 8192, 0, 1, -1, C_OUT1);
        add(K_OK, BYTES, HALF + 6 * PAGE, 8192, 2, 2, -1, C_OUT2);
        add(K_OK, BYTES, HALF + 6 * PAGE, 8192, 2, 15, -1, C_OUT_MAX);
        // one side of the memory much slower than the other: writes (the
        // buffer fills up and reads must wait for room), reads, write
        // responses (the write bursts in flight reach their limit)
        add(K_OK, BYTES, HALF + 3 * BYTES, 4096, 0, 0, -1, C_NONE);
        st_prof[n_steps - 1] = P_SLOW_W;
        add(K_OK, PAGE - 2 * BYTES, HALF + BYTES, 2048, 5, 0, -1, C_NONE);
        st_prof[n_steps - 1] = P_SLOW_W;
        add(K_OK, BYTES, HALF + 3 * BYTES, 4096, 0, 0, -1, C_NONE);
        st_prof[n_steps - 1] = P_SLOW_R;
        add(K_OK, BYTES, HALF, 40 * BYTES, 1, 0, -1, C_WR_OUT);
        st_prof[n_steps - 1] = P_SLOW_B;
        // a start while busy is ignored; status is held until the next start
        add(K_OK, PAGE, HALF + PAGE, 4096, 0, 0, 5, C_HELD);
        // bad parameters: unaligned source, destination, length; ranges past
        // the top of the address space; bits above ADDR_WIDTH; wrapping 2**64
        add(K_BAD, 64'h4, HALF, 4 * BYTES, 0, 0, -1, C_NONE);
        add(K_BAD, 0, HALF + 64'h2, 4 * BYTES, 0, 0, -1, C_NONE);
        add(K_BAD, 0, HALF, 4 * BYTES + 4, 0, 0, -1, C_NONE);
        add(K_BAD, ADDR_TOP - 2 * BYTES, HALF, 4 * BYTES, 0, 0, -1, C_NONE);
        add(K_BAD, 0, ADDR_TOP - 2 * BYTES, 4 * BYTES, 0, 0, -1, C_NONE);
        if (ADDR_WIDTH < 64) begin
            add(K_BAD, 64'h1 << ADDR_WIDTH, HALF, 4 * BYTES, 0, 0, -1, C_NONE);
            add(K_BAD, 0, (64'h1 << 63) | HALF, 4 * BYTES, 0, 0, -1, C_NONE);
        end
        add(K_BAD, NONE - 2 * BYTES + 1, HALF, 4 * BYTES, 0, 0, -1, C_NONE);
        // up to exactly the top of the address space is valid (DECERR here)
        add_err(0, ADDR_TOP - 4 * BYTES, HALF, 4 * BYTES, 0, ADDR_TOP - 4 * BYTES, ADDR_TOP, 2'd3, C_NO_BYTES);
        // DECERR: the source runs off the end of memory (bursts before it
        // succeed); then the destination
        add_err(0, MEM_BYTES - 2048 + BYTES, HALF, 8192, 0, MEM_BYTES, NONE, 2'd3, C_NONE);
        add_err(1, PAGE, MEM_BYTES - 1024 - BYTES, 4096, 0, MEM_BYTES, NONE, 2'd3, C_WR_END);
        // injected SLVERR on a read burst in the middle of a long copy, on a
        // write burst, on the very first read
        add_err(0, BYTES, HALF + 5 * BYTES, 8192, 0, 3 * 1024 + 8, 3 * 1024 + 9, 2'd2, C_NONE);
        add_err(1, BYTES, HALF + 5 * BYTES, 8192, 3, HALF + 5000, HALF + 5001, 2'd2, C_NONE);
        add_err(0, PAGE, HALF, 4096, 0, PAGE, PAGE + 1, 2'd2, C_NO_BYTES);
        // the engine recovers
        add(K_OK, BYTES, HALF + BYTES, 6000 / BYTES * BYTES, 0, 0, -1, C_NONE);
        // abort in the middle of a long copy, and in the first busy cycle
        add(K_ABORT, 0, HALF + 3 * BYTES, 20480, 0, 0, 60 + READ_LATENCY, C_NONE);
        add(K_ABORT, 0, HALF, 20480, 0, 0, 0, C_NO_BYTES);
        add(K_OK, 0, HALF, 4096, 0, 0, -1, C_NONE);
        for (k = 0; k < RANDOM_COPIES; k = k + 1) begin
            add(K_RANDOM, 0, 0, 0, 0, 0, -1, C_NONE);
        end
    end
endtask

// checks of a step beyond those of its kind
task post_check;
    input integer check;
    integer lim;
    begin
        lim = MAX_BURST < 4096 / BYTES ? MAX_BURST : 4096 / BYTES;
        case (check)
            C_ONE_CYCLE: if (res_cycles != 1) `FAIL_CHECK("len 0 should take one cycle")
            C_SRC_SPLIT: if (MAX_BURST >= 8 && (res_rd_bursts != 2 || res_wr_bursts != 1))
                `FAIL_CHECK("source page split: expected 2 reads, 1 write")
            C_DST_SPLIT: if (MAX_BURST >= 8 && (res_rd_bursts != 1 || res_wr_bursts != 2))
                `FAIL_CHECK("destination page split: expected 1 read, 2 writes")
            C_LONG: begin
                $display("%m: 20 KiB copy in %0d cycles (%0d bytes per 100 cycles), %0d reads, %0d writes, %0d reads in flight at most",
                    res_cycles, res_bytes * 100 / res_cycles, res_rd_bursts, res_wr_bursts, res_max_inflight);
                if (MAX_OUTSTANDING > 1 && res_max_inflight < 2) `FAIL_CHECK("no two reads in flight on a long copy")
                if (MAX_OUTSTANDING > 1 && ram.rd_outstanding_max < 2) `FAIL_CHECK("memory never saw two reads in flight")
                if (prob == 100 && res_cycles > 20480 / BYTES * 3 / 2 + 4 * READ_LATENCY + 64)
                    `FAIL_CHECK("20 KiB copy far slower than one beat per cycle")
            end
            C_LIM1: if (ram.max_arlen != 0 || ram.max_awlen != 0) `FAIL_CHECK("limit 1: bursts longer than 1 beat")
            C_LIM_MAX: if (ram.max_arlen + 1 != lim || ram.max_awlen + 1 != lim)
                `FAIL_CHECK("aligned copy does not use the longest burst")
            C_LIM_MAX_RD: if (ram.max_arlen + 1 != lim) `FAIL_CHECK("cfg_max_burst 0 or above MAX_BURST does not mean MAX_BURST")
            C_OUT1: if (res_max_inflight != 1 || ram.rd_outstanding_max != 1)
                `FAIL_CHECK("cfg_max_outstanding 1: more than one read in flight")
            C_OUT2: if (MAX_OUTSTANDING > 1 && res_max_inflight != 2)
                `FAIL_CHECK("cfg_max_outstanding 2: not exactly 2 reads in flight at most")
            C_OUT_MAX: if (res_max_inflight != MAX_OUTSTANDING) `FAIL_CHECK("cfg_max_outstanding 15: not MAX_OUTSTANDING reads in flight")
            C_HELD: begin
                repeat (5) tick;
                if (!done || error || bytes != cur_len || cycles != res_cycles) `FAIL_CHECK("status not held after done")
            end
            C_NO_BYTES: if (res_bytes != 0) `FAIL_CHECK("data written although it should not be")
            C_WR_OUT: if (ram.wr_outstanding_max != 15) `FAIL_CHECK("slow B: not 15 write bursts in flight at most")
            C_WR_END: if (res_bytes != MEM_BYTES - cur_dst)
                `FAIL_CHECK("write DECERR: bursts before the end of memory not all acknowledged")
            default: begin
            end
        endcase
    end
endtask

integer k, prob, kind, cb0, co0;
reg [63:0] s0, d0;
reg [31:0] n0;

initial begin
    finished = 1'b0;
    if (!$value$plusargs("seed=%d", seed)) seed = 1;
    seed = seed * 31 + SALT * 1000003 + 5;
    wr_en = 1'b0;
    rd_en = 1'b0;
    wr_addr = 16'd0;
    rd_addr = 16'd0;
    wr_data = 32'd0;
    abort = 1'b0;
    copies = 0;
    total_cycles = 0;
    total_bytes = 0;
    cur_src = 0;
    cur_dst = 0;
    cur_len = 0;
    cur_lim = 0;
    cur_out = 0;
    for (k = 0; k < MEM_BYTES; k = k + 1) begin
        ram.mem[k] = 8'h00;
        exp_mem[k] = 8'h00;
    end
    build_steps;
    @(negedge rst);
    tick;
    if (busy || done) `FAIL_CHECK("busy or done after reset")

    for (pass = $test$plusargs("short") ? 1 : 0; pass < 2; pass = pass + 1) begin
        prob = pass == 0 ? 100 : READY_PROB;
        ram.set_ready_prob(prob);
        $display("%m: pass %0d, memory ready %0d%%, %0d steps", pass, prob, n_steps);
        for (k = 0; k < n_steps; k = k + ($test$plusargs("short") ? 3 : 1)) begin
            repeat (st_gap[k]) tick;
            kind = st_kind[k];
            s0 = st_src[k];
            d0 = st_dst[k];
            n0 = st_len[k];
            cb0 = st_cb[k];
            co0 = st_co[k];
            if (kind == K_RANDOM) begin
                random_copy(s0, d0, n0, cb0, co0);
                kind = K_OK;
            end
            case (st_prof[k])
                P_SLOW_W: ram.set_channel_probs(50, 15, 50, 100, 100);
                P_SLOW_R: ram.set_channel_probs(100, 100, 100, 50, 20);
                P_SLOW_B: ram.set_channel_probs(100, 100, 3, 100, 100);
                default: ram.set_channel_probs(-1, -1, -1, -1, -1);
            endcase
            case (kind)
                K_OK: copy_ok(s0, d0, n0, cb0, co0, st_at[k]);
                K_BAD: copy_bad(s0, d0, n0);
                K_RD_ERR, K_WR_ERR: copy_err(s0, d0, n0, cb0, kind == K_WR_ERR, st_lo[k], st_hi[k], st_resp[k]);
                default: copy_abort(s0, d0, n0, st_at[k]);
            endcase
            post_check(st_check[k]);
        end
        // nothing else in the memory changed (sources, stray writes)
        check_window(0, MEM_BYTES);
    end

    $display("%m: %0d copies, %0d bytes in %0d busy cycles", copies, total_bytes, total_cycles);
    finished = 1'b1;
end

endmodule

`undef FAIL_CHECK
